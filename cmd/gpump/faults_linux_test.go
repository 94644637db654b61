//go:build linux

package main

// The fault-injection tests that need Linux: a full disk (RLIMIT_FSIZE),
// FIFOs and endless inputs stopped by a signal, a memory-mapped input
// truncated under a lease, and a terminal (a pseudo-terminal) for the
// summary.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/internal/memlimit"

	"golang.org/x/sys/unix"

	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/internal/testexec"
)

// fullDiskEnv makes the test binary run the command of its arguments, its
// files unable to grow beyond the variable's value in bytes (RLIMIT_FSIZE):
// writes past it fail as on a full disk.
const fullDiskEnv = "GPUMP_TEST_FILE_LIMIT"

func TestMain(m *testing.M) {
	if room := os.Getenv(asLimitEnv); room != "" {
		n, _ := strconv.ParseUint(room, 10, 64)
		n += memlimit.Mapped()
		syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
		os.Args = append([]string{"gpump"}, os.Args[1:]...)
		main()
	}
	if os.Getenv(mainEnv) != "" {
		os.Args = append([]string{"gpump"}, os.Args[1:]...)
		main()
	}
	if limit := os.Getenv(fullDiskEnv); limit != "" {
		n, _ := strconv.ParseUint(limit, 10, 64)
		syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		os.Exit(run(context.Background(), append([]string{"gpump"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestFullDisk: when an output cannot be written (the disk is full), the
// command says so in one line and exits with status 1, and the previous
// content of every output is intact, with no temporary file left.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	r, s := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.npz")
	for _, p := range []string{r, s} {
		os.WriteFile(p, []byte("previous\n"), 0o644)
	}
	// A batch's previous results: appended to, never lost.
	res := filepath.Join(dir, "res.jsonl")
	manifest := writeManifest(t, strings.Repeat("gen:cyclic:n=3\n", 60))
	if code, _, stderr := gpump(t, "batch", "gen:cyclic:n=3", "-o", res, "-q"); code != exitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(res)
	for _, c := range []struct {
		args []string
		kept map[string]string
	}{
		{[]string{"solve", "--gen", "uniform:m=3000,n=20", "--algo", "rm+", "--eps", "1e-2", "-o", r, "-q"}, map[string]string{r: "previous\n"}},
		{[]string{"solve", "--gen", "uniform:m=3000,n=20", "--algo", "rm+", "--eps", "1e-2", "-o", r, "--strategies", s, "-q"}, map[string]string{r: "previous\n", s: "previous\n"}},
		{[]string{"batch", "--manifest", manifest, "-o", res, "--resume", "-q"}, nil},
	} {
		cmd := testexec.Self(c.args...)
		cmd.Env = append(os.Environ(), fullDiskEnv+"=16384")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if code != exitError || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "file too large") ||
			strings.Contains(stderr.String(), ".tmp-") {
			t.Errorf("%s: exit %d (%v), stderr %q", c.args[0], code, err, stderr.String())
		}
		for p, want := range c.kept {
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("%s: %s now holds %.40q", c.args[0], p, b)
			}
		}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if atomicfile.IsTemp(e.Name()) {
				t.Errorf("%s: temporary %s left", c.args[0], e.Name())
			}
		}
	}
	// The batch kept its previous results, and resumes to the end once
	// there is room.
	if b, _ := os.ReadFile(res); !bytes.HasPrefix(b, before) {
		t.Errorf("the previous results were changed")
	}
	if code, _, stderr := gpump(t, "batch", "--manifest", manifest, "-o", res, "--resume", "-q"); code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	lines := readLines(t, res)
	seen := map[float64]int{}
	for _, l := range lines[1:] {
		seen[l["index"].(float64)]++
	}
	if len(seen) != 60 || lines[0]["status"] != "error" {
		t.Errorf("%d instances after the resume", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("instance %v: %d results", k, n)
		}
	}
}

// TestInterruptRead: a cancel (the first Ctrl-C or SIGTERM) stops the
// opening of a FIFO that has no writer and the read of an endless input,
// with exit status 3 and one line, and nothing written.
func TestInterruptRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	defer unblock(fifo, os.O_WRONLY)
	out := filepath.Join(dir, "r.json")
	for _, args := range [][]string{
		{"solve", fifo, "-o", out},
		{"solve", "/dev/zero", "--format", "csv", "-o", out},
		{"solve", "/dev/zero", "--format", "npy", "-o", out},
		{"batch", fifo, "-o", out},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(ctx, append([]string{"gpump"}, args...), &stdout, &stderr)
		cancel()
		took := time.Since(start)
		if took > 10*time.Second {
			t.Errorf("%q: stopped after %v", args, took)
		}
		switch args[0] {
		case "solve":
			if code != exitCanceled && !(code == exitError && args[3] == "npy") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%q: exit %d, %q", args, code, stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%q wrote a result", args)
			}
		case "batch":
			lines := readLines(t, out)
			if code != exitCanceled || len(lines) != 1 || lines[0]["status"] != "canceled" {
				t.Errorf("%q: exit %d, %v, %s", args, code, lines, stderr.String())
			}
		}
	}
}

// TestInterruptWrite: a signal while the result waits for a reader of its
// FIFO stops the command with exit status 3.
func TestInterruptWrite(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	defer unblock(fifo, os.O_RDONLY)
	ir := newInterrupts()
	ctx := context.WithValue(t.Context(), interruptsKey{}, ir)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ir.signal()
	}()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"gpump", "solve", "--gen", "cyclic:n=3", "-o", fifo, "-q"}, &stdout, &stderr)
	if code != exitCanceled || time.Since(start) > 10*time.Second || !strings.Contains(stderr.String(), "interrupted while writing the results") {
		t.Errorf("exit %d after %v: %q", code, time.Since(start), stderr.String())
	}
}

// unblock opens the FIFO at path the other way and closes it, so that the
// goroutines a test left waiting on it end.
func unblock(path string, flag int) {
	for range 2 { // one open each: the solve and the batch
		if f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0); err == nil {
			time.Sleep(10 * time.Millisecond)
			f.Close()
		}
	}
}

// TestMmapTruncated: a truncation of the mapped file during the solve
// stops it (the lease holds the truncation back until the matrix is
// released), writes the best certified point, and exits with status 1 and
// one line; without a lease, a fault reading the matrix, on the solve's
// thread or on a worker's, stops it the same way, with the best point
// certified before the fault.
func TestMmapTruncated(t *testing.T) {
	for _, c := range []struct {
		lease   bool
		threads string
	}{{true, "1"}, {false, "1"}, {false, "2"}} {
		lease := c.lease
		if !lease && testing.Short() {
			break
		}
		path, _ := genFile(t, "uniform:m=600,n=600,seed=2", "big.npy")
		out := filepath.Join(t.TempDir(), "r.json")
		var writer *os.File
		if !lease {
			// A writer keeps the lease from being taken.
			var err error
			if writer, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
				t.Fatal(err)
			}
		}
		truncated := make(chan error, 1)
		go func() {
			time.Sleep(500 * time.Millisecond)
			if writer != nil {
				truncated <- writer.Truncate(100)
				return
			}
			truncated <- os.Truncate(path, 100)
		}()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"gpump", "solve", path, "--mmap", "--threads", c.threads, "--eps", "0",
			"--max-iter", "100000000", "-o", out, "-q"}, &stdout, &stderr)
		if err := <-truncated; err != nil {
			t.Fatal(err)
		}
		if writer != nil {
			writer.Close()
		}
		lines := strings.Count(stderr.String(), "\n")
		if code != exitError || lines != 1 {
			t.Errorf("lease %v: exit %d, %q", lease, code, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil || decode(t, string(b)).Status != "canceled" || decode(t, string(b)).Iterations < 1 {
			t.Errorf("lease %v, %s threads: result %s, %v", lease, c.threads, b, err)
		}
		if !lease && !strings.Contains(stderr.String(), "faulted") {
			t.Errorf("no lease, %s threads: stderr %q", c.threads, stderr.String())
		}
	}
}

// openPTY returns the two ends of a new pseudo-terminal: the terminal a
// program writes to, and the master the test reads what it shows from.
func openPTY(t *testing.T) (tty, master *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skip(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	return tty, master
}

// onTerminal runs the command with a terminal as standard output and
// returns its exit status and what the terminal showed.
func onTerminal(t *testing.T, args ...string) (int, string) {
	t.Helper()
	tty, master := openPTY(t)
	shown := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, master)
		shown <- b.String()
	}()
	var stderr bytes.Buffer
	code := run(t.Context(), append([]string{"gpump"}, args...), tty, &stderr)
	tty.Close()
	out := <-shown
	master.Close()
	return code, strings.ReplaceAll(out, "\r\n", "\n")
}

// TestTerminalSummary: on a terminal the README's first command (smaller)
// prints a short summary, not thousands of lines of JSON; --json and -o -
// print the JSON there; a batch prints one line per instance.
func TestTerminalSummary(t *testing.T) {
	code, out := onTerminal(t, "solve", "--gen", "uniform", "--m", "300", "--n", "300", "--seed", "1", "--algo", "rm+", "-q")
	if code != exitOK || strings.Count(out, "\n") > 12 || json.Valid([]byte(out)) {
		t.Fatalf("exit %d, %d lines:\n%s", code, strings.Count(out, "\n"), out)
	}
	for _, want := range []string{"converged", "relative gap", "value", "iterations", "passes over A", "row player", "column player", "--json"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, flag := range [][]string{{"--json"}, {"-o", "-"}} {
		code, out := onTerminal(t, append([]string{"solve", "--gen", "cyclic:n=3", "-q"}, flag...)...)
		var o games.Report
		if code != exitOK || json.Unmarshal([]byte(out), &o) != nil || len(o.RowStrategy) != 3 {
			t.Errorf("%v: exit %d:\n%s", flag, code, out)
		}
	}
	if code, _ := onTerminal(t, "gen", "cyclic", "-o", "-", "--format", "npy"); code != exitError {
		t.Errorf("gen -o - of npy to a terminal: exit %d", code)
	}
	code, out = onTerminal(t, "batch", "--manifest", writeManifest(t, "gen:cyclic:n=3\ngen:nosuch\n"), "-q")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitError || len(lines) != 2 || !strings.HasPrefix(lines[0], "converged") || !strings.HasPrefix(lines[1], "error") {
		t.Errorf("batch: exit %d:\n%s", code, out)
	}
}
