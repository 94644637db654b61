//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpump/gpump/internal/testexec"
)

// TestFile: the path keeps its old content until Commit, which installs the
// new content with the old file's mode (0600 here); Abort leaves the old content; neither leaves
// a temporary file; Commit and Abort are idempotent; a directory and a
// missing directory are refused, naming the path.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(when, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if es, _ := os.ReadDir(dir); string(b) != want || len(es) != 1 {
			t.Errorf("%s: %q and %d entries, want %q and 1", when, b, len(es), want)
		}
	}

	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != 0o600 || !IsTemp(filepath.Base(f.Name())) {
		t.Errorf("temporary %s: mode %v, %v", f.Name(), fi.Mode(), err)
	}
	f.WriteString("aborted")
	f.Abort()
	f.Abort()
	check("after Abort", "old")

	if f, err = Create(path); err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if err := f.Commit(); err != nil {
		t.Errorf("second Commit: %v", err)
	}
	check("after Commit", "new")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || f.Path() != path {
		t.Errorf("mode %v, Path %q", fi.Mode().Perm(), f.Path())
	}

	for _, bad := range []string{dir, filepath.Join(dir, "missing", "x")} {
		_, err := Create(bad)
		cerr := Check(bad)
		if err == nil || cerr == nil || !strings.Contains(err.Error(), bad) || err.Error() != cerr.Error() {
			t.Errorf("%s: Create %v, Check %v", bad, err, cerr)
		}
	}
	var nilFile *File
	nilFile.Abort()
}

// TestCheck leaves nothing behind, follows links and does not open a FIFO
// (which would wait for a reader).
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := Check(link); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("Check left %d entries", len(es))
	}
	if Canonical(link) != Canonical(target) || Canonical(target) != Canonical(filepath.Join(dir, ".", "target.json")) {
		t.Errorf("Canonical: %s, %s", Canonical(link), Canonical(target))
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// Were Check to open the FIFO for writing, it would wait for a reader:
	// one comes after 5 s, and the delay fails the test.
	reader := time.AfterFunc(5*time.Second, func() {
		if f, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	defer reader.Stop()
	start := time.Now()
	if err := Check(fifo); err != nil || time.Since(start) > 4*time.Second {
		t.Errorf("Check of a FIFO: %v after %v", err, time.Since(start))
	}
}

// TestIsTemp recognizes this package's names only.
func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".r.json.tmp-12-345": true, ".a.b.tmp-1-0": true,
		"r.json.tmp-12-345": false, ".r.json.tmp123": false, ".r.json.tmp-12": false,
		".r.json.tmp-x-1": false, ".tmp-1-2": false, ".r.json.tmp-0-1": false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v", name, !want)
		}
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := testexec.Self("-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestCleanStale removes the temporaries of dead writers only: not those of
// live processes, not those still locked, not other files.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := write(".r.json.tmp-" + dead + "-7")
	live := write(".r.json.tmp-" + strconv.Itoa(os.Getpid()) + "-7")
	locked := write(".t.csv.tmp-" + dead + "-8")
	other := write(".r.json.tmp123")
	f, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lock(f); err != nil {
		t.Fatal(err)
	}
	removed := CleanStale(dir)
	if len(removed) != 1 || removed[0] != stale {
		t.Errorf("removed %q, want only %s", removed, stale)
	}
	for _, p := range []string{live, locked, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestKilledWriter: the temporary of a writer killed with SIGKILL is
// removed by the next Create in its directory.
func TestKilledWriter(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_CHILD"); dir != "" {
		f, err := Create(filepath.Join(dir, "out.json"))
		if err != nil {
			os.Exit(1)
		}
		f.WriteString("partial")
		os.Stdout.WriteString("created\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := testexec.Self("-test.run=^TestKilledWriter$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := out.Read(buf); err != nil || string(buf[:7]) != "created" {
		t.Fatalf("child: %q, %v", buf, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if es, _ := os.ReadDir(dir); len(es) != 1 || !IsTemp(es[0].Name()) {
		t.Fatalf("after the kill: %v", es)
	}
	f, err := Create(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if es, _ := os.ReadDir(dir); len(es) != 1 || es[0].Name() != filepath.Base(f.Name()) {
		t.Errorf("after the next Create: %v", es)
	}
}
