//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpump/gpump/internal/testexec"
)

// mainEnv makes the test binary run main() on its arguments: the command
// as a user runs it, with its signal handling and its exit.
const mainEnv = "GPUMP_TEST_MAIN"

// runBounded runs the command in this process with ctx, and fails the test
// if it has not returned after limit; unstick then frees it (opens a FIFO
// the other way, say) so that the test ends.
func runBounded(t *testing.T, ctx context.Context, limit time.Duration, unstick func(), args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"gpump"}, args...), &stdout, &stderr) }()
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(limit):
	}
	t.Errorf("%q still running after %v", args, limit)
	for range 100 {
		unstick()
		select {
		case code := <-done:
			return code, stdout.String(), stderr.String()
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%q hangs", args)
	return 0, "", ""
}

// TestFIFOInterrupt: the first interrupt (a canceled context) stops a
// solve whose --trace is a FIFO nobody reads, which writes its result and
// exits with status 3; a batch told to --resume from a FIFO is refused at
// once, since a pipe holds no results.
func TestFIFOInterrupt(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(dir, "r.json")
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	code, _, stderr := runBounded(t, ctx, 10*time.Second, func() { unblock(fifo, os.O_RDONLY) },
		"solve", "--gen", "uniform:m=100,n=100", "--eps", "0", "--max-iter", "100000000", "-o", out, "--trace", fifo, "-q")
	if code != exitCanceled || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--trace") {
		t.Errorf("solve --trace FIFO: exit %d, %q", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte(`"status": "canceled"`)) {
		t.Errorf("the result: %.80q, %v", b, err)
	}
	res := filepath.Join(dir, "res.jsonl")
	if err := syscall.Mkfifo(res, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runBounded(t, t.Context(), 10*time.Second, func() { unblock(res, os.O_WRONLY); unblock(res, os.O_RDONLY) },
		"batch", "--manifest", writeManifest(t, "gen:cyclic:n=3\n"), "-o", res, "--resume", "-q")
	if code != exitError || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("batch --resume from a FIFO: exit %d, %q", code, stderr)
	}
}

// TestInterruptTemporaries: an interrupt while gen writes its file leaves
// no temporary file behind (the writer, abandoned, would have), and the
// old file as it was.
func TestInterruptTemporaries(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2000×2000 entries of text")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	os.WriteFile(path, []byte("1,2\n"), 0o644)
	cmd := testexec.Self("gen", "uniform", "--m", "2000", "--n", "2000", "-o", path, "-q")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temporaries := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".big.csv.tmp-*"))
		return m
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(temporaries()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(temporaries()) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skip("the write ended before it was seen")
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != exitCanceled && code != exitOK {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if left := temporaries(); len(left) != 0 {
		t.Errorf("exit %d left %v", code, left)
	}
	if b, _ := os.ReadFile(path); code == exitCanceled && string(b) != "1,2\n" {
		t.Errorf("interrupted, the file holds %.20q", b)
	}
}

// TestDescriptorOutputs: an output named by a descriptor (/dev/stdout,
// /proc/self/fd/N, what bash's >(...) gives) is written through it: to a
// pipe, and to a file the shell opened, at its offset, keeping what was
// written before and after.
func TestDescriptorOutputs(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	shared, err := os.Create(filepath.Join(t.TempDir(), "x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	shared.WriteString("AAAA\n")
	for _, f := range []*os.File{w, shared} {
		for _, p := range []string{"/proc/self/fd/", "/dev/fd/"} {
			path := p + strconv.Itoa(int(f.Fd()))
			code, _, stderr := gpump(t, "solve", "--gen", "cyclic:n=3", "-q", "-o", path, "--trace", filepath.Join(t.TempDir(), "t.csv"))
			if code != exitOK {
				t.Errorf("-o %s: exit %d: %s", path, code, stderr)
			}
		}
	}
	w.Close()
	shared.WriteString("BBBB\n")
	var got bytes.Buffer
	got.ReadFrom(r)
	if n := strings.Count(got.String(), `"status": "converged"`); n != 2 {
		t.Errorf("the pipe got %d results: %.200q", n, got.String())
	}
	b, _ := os.ReadFile(shared.Name())
	if !bytes.HasPrefix(b, []byte("AAAA\n{")) || !bytes.HasSuffix(b, []byte("}\nBBBB\n")) || bytes.Count(b, []byte(`"status"`)) != 2 {
		t.Errorf("the shared file holds %.300q", b)
	}
}

// TestProtectedOutputs: an output file that is read-only, or another
// user's, is refused (one line, exit status 1, the file as it was) by
// every command that writes one, even for root, who could write it; with
// --force it is replaced, keeping its mode and owner.
func TestProtectedOutputs(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode os.FileMode, uid int) string {
		p := filepath.Join(dir, name)
		os.Remove(p)
		if err := os.WriteFile(p, []byte("keep\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		if uid >= 0 {
			if err := os.Chown(p, uid, uid); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	type kind struct {
		name string
		mode os.FileMode
		uid  int
	}
	kinds := []kind{{"ro", 0o444, -1}}
	if os.Geteuid() == 0 {
		kinds = append(kinds, kind{"foreign", 0o640, 4321})
	}
	for _, k := range kinds {
		for _, c := range []struct {
			ext  string
			args func(p string) []string
		}{
			{".json", func(p string) []string { return []string{"solve", "--gen", "cyclic:n=3", "-q", "-o", p} }},
			{".csv", func(p string) []string {
				return []string{"solve", "--gen", "cyclic:n=3", "-q", "-o", filepath.Join(dir, "r.json"), "--trace", p}
			}},
			{".npy", func(p string) []string { return []string{"gen", "cyclic", "--n", "3", "-q", "-o", p} }},
			{".jsonl", func(p string) []string {
				return []string{"batch", "--manifest", writeManifest(t, "gen:cyclic:n=3\n"), "-q", "-o", p}
			}},
			{".jsonl", func(p string) []string {
				return []string{"batch", "--manifest", writeManifest(t, "gen:cyclic:n=3\n"), "-q", "--resume", "-o", p}
			}},
		} {
			p := file(k.name+c.ext, k.mode, k.uid)
			code, _, stderr := gpump(t, c.args(p)...)
			if b, _ := os.ReadFile(p); code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--force") || string(b) != "keep\n" {
				t.Errorf("%s %q: exit %d, %q, the file holds %.20q", k.name, c.args(p), code, stderr, b)
			}
			if slices.Contains(c.args(p), "--resume") {
				continue
			}
			code, _, stderr = gpump(t, append(c.args(p), "--force")...)
			fi, err := os.Stat(p)
			if code != exitOK || err != nil || fi.Mode().Perm() != k.mode || k.uid >= 0 && int(fi.Sys().(*syscall.Stat_t).Uid) != k.uid {
				t.Errorf("%s %q --force: exit %d, %q, %v", k.name, c.args(p), code, stderr, fi.Mode())
			}
		}
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if code, _, stderr := gpump(t, "solve", "--gen", "cyclic:n=3", "-q", "-o", a); code != exitError || !strings.Contains(stderr, "symbolic links") {
		t.Errorf("a loop of links: exit %d, %q", code, stderr)
	}
	if fi, err := os.Lstat(a); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the loop's link was replaced")
	}
}

// TestBatchLock: a second batch writing the same results file (another
// holds its lock) fails at once with one line that says so, and changes
// nothing.
func TestBatchLock(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res.jsonl")
	m3, m4 := writeManifest(t, "gen:cyclic:n=3\n"), writeManifest(t, "gen:cyclic:n=5\n")
	if code, _, stderr := gpump(t, "batch", "--manifest", m3, "-o", out, "-q"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Skip(err)
	}
	for _, resume := range []bool{false, true} {
		args := []string{"batch", "--manifest", m4, "-o", out, "-q"}
		if resume {
			args = append(args, "--resume")
		}
		code, _, stderr := gpump(t, args...)
		if after, _ := os.ReadFile(out); code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "another gpump batch") || !bytes.Equal(after, before) {
			t.Errorf("resume %v: exit %d, %q", resume, code, stderr)
		}
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	if code, _, stderr := gpump(t, "batch", "--manifest", m4, "-o", out, "-q", "--resume"); code != exitOK {
		t.Errorf("after the lock is released: exit %d, %q", code, stderr)
	}
}

// TestBatchNamesNotUTF8: files whose names are not UTF-8 keep distinct,
// byte-exact instance names (escaped), which --resume recognizes.
func TestBatchNamesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a\xff.npy", "a\xfe.npy", `a\xff.npy`, "b.npy"}
	for k, name := range names {
		writeAt(t, filepath.Join(dir, name), 2, 2, []float64{1, float64(k), 0, 1})
	}
	out := filepath.Join(t.TempDir(), "res.jsonl")
	for _, size := range []string{"1", "100"} { // alone, and grouped
		os.Remove(out)
		for range 2 {
			if code, _, stderr := gpump(t, "batch", dir, "-o", out, "-q", "--resume", "--batch-size", size); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		seen := map[string]bool{}
		for _, l := range readLines(t, out) {
			seen[l["instance"].(string)] = true
		}
		want := []string{dir + `/a\xff.npy`, dir + `/a\xfe.npy`, dir + `/a\\xff.npy`, dir + "/b.npy"}
		for _, w := range want {
			if !seen[w] {
				t.Errorf("batch size %s: no instance %q in %v", size, w, seen)
			}
		}
		if n := len(readLines(t, out)); n != len(names) {
			t.Errorf("batch size %s: %d lines after a resume, want %d", size, n, len(names))
		}
	}
}

// TestLongOutputName: an output name of up to 255 bytes is written.
func TestLongOutputName(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{234, 255} {
		p := filepath.Join(dir, strings.Repeat("r", n-5)+".json")
		if code, _, stderr := gpump(t, "solve", "--gen", "cyclic:n=3", "-q", "-o", p); code != exitOK {
			t.Errorf("%d bytes: exit %d, %q", n, code, stderr)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// asLimitEnv makes the test binary run main() with RLIMIT_AS (ulimit -v)
// set to what it has mapped plus the variable's value in bytes.
const asLimitEnv = "GPUMP_TEST_AS_ROOM"

// TestAddressSpaceLimit: under ulimit -v, a matrix that would not fit is
// refused in one line with exit status 1, not by the runtime's "out of
// memory" with a dump of every goroutine and exit status 2.
func TestAddressSpaceLimit(t *testing.T) {
	cmd := testexec.Self("solve", "--gen", "uniform:m=4000,n=4000", "--max-iter", "3", "-q")
	cmd.Env = append(os.Environ(), asLimitEnv+"=150000000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitError || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "ulimit -v") {
		t.Errorf("exit %d: %.300q", code, stderr.String())
	}
}

// TestGANFIFOTraceInterrupt: gpump gan stopped by Ctrl-C writes its result
// before its trace, so that when the trace is a FIFO nobody reads, the
// second Ctrl-C, which gives up on the trace, finds the result written.
func TestGANFIFOTraceInterrupt(t *testing.T) {
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "trace.csv"), filepath.Join(dir, "r.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	cmd := testexec.Self("gan", "--data", "ring8", "--rounds", "100000", "-o", out, "--trace", fifo, "-q")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(2 * time.Second) // training
	cmd.Process.Signal(os.Interrupt)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(out); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // now waiting for the trace's reader
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("gan still running after two interrupts: %s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitCanceled {
		t.Errorf("exit %d, want %d: %s", code, exitCanceled, stderr.String())
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte(`"generators"`)) {
		t.Errorf("the result: %.80q, %v", b, err)
	}
}
