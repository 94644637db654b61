//go:build linux

package atomicfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProtected: a read-only file and another user's file are refused by
// Check and Create, whatever the process's privileges (the tests run as
// root too, who could write them), and left as they were; with
// SetReplaceProtected(true) they are replaced, keeping their mode and
// owner. A loop of symbolic links is an error, not a file to replace.
func TestProtected(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode fs.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("old"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replace := func(p string) error {
		f, err := Create(p)
		if err != nil {
			return err
		}
		f.WriteString("new")
		return f.Commit()
	}
	cases := []struct {
		path  string
		mode  fs.FileMode
		owner int // -1: ours
	}{
		{write("ro.json", 0o444), 0o444, -1},
		{write("ro-group.json", 0o464), 0o464, -1},
	}
	foreign := write("foreign.json", 0o600)
	if os.Geteuid() == 0 {
		if err := os.Chown(foreign, 4321, 4321); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			path  string
			mode  fs.FileMode
			owner int
		}{foreign, 0o600, 4321})
	}
	for _, c := range cases {
		if err := Check(c.path); !errors.Is(err, ErrProtected) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("Check(%s): %v", c.path, err)
		}
		if err := replace(c.path); !errors.Is(err, ErrProtected) {
			t.Errorf("Create(%s): %v", c.path, err)
		}
		if b, _ := os.ReadFile(c.path); string(b) != "old" {
			t.Errorf("%s changed to %q", c.path, b)
		}
	}
	SetReplaceProtected(true)
	defer SetReplaceProtected(false)
	for _, c := range cases {
		if err := Check(c.path); err != nil {
			t.Errorf("Check(%s) with SetReplaceProtected: %v", c.path, err)
		}
		if err := replace(c.path); err != nil {
			t.Errorf("Create(%s) with SetReplaceProtected: %v", c.path, err)
			continue
		}
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(c.path)
		uid := int(fi.Sys().(*syscall.Stat_t).Uid)
		if string(b) != "new" || fi.Mode().Perm() != c.mode || c.owner >= 0 && uid != c.owner {
			t.Errorf("%s replaced: %q, mode %v, owner %d; want mode %v, owner %d", c.path, b, fi.Mode().Perm(), uid, c.mode, c.owner)
		}
	}
	SetReplaceProtected(false)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := Check(a); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Check of a loop: %v", err)
	}
	if err := replace(a); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Create of a loop: %v", err)
	}
	if fi, err := os.Lstat(a); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the loop's link was replaced: %v", err)
	}
}

// TestDescriptor: a path naming a descriptor of the process is written
// through it, at its offset, not renamed over: what was written to the
// descriptor before and after stays, and a pipe (whose link names no
// path, pipe:[N]) is written too.
func TestDescriptor(t *testing.T) {
	dir := t.TempDir()
	shared, err := os.Create(filepath.Join(dir, "x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	shared.WriteString("AAAA\n")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, p := range []string{"/proc/self/fd/", "/dev/fd/"} {
		for _, f := range []*os.File{shared, w} {
			path := p + itoa(int(f.Fd()))
			if err := Check(path); err != nil {
				t.Fatalf("Check(%s): %v", path, err)
			}
			o, err := Create(path)
			if err != nil {
				t.Fatalf("Create(%s): %v", path, err)
			}
			o.WriteString("JSON\n")
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	shared.WriteString("BBBB\n")
	if b, _ := os.ReadFile(shared.Name()); string(b) != "AAAA\nJSON\nJSON\nBBBB\n" {
		t.Errorf("the shared file holds %q", b)
	}
	w.Close()
	if b := make([]byte, 100); true {
		n, _ := r.Read(b)
		if string(b[:n]) != "JSON\nJSON\n" {
			t.Errorf("the pipe got %q", b[:n])
		}
	}
	// Read-only: refused.
	ro, err := os.Open(shared.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := Check("/proc/self/fd/" + itoa(int(ro.Fd()))); err == nil {
		t.Error("Check of a read-only descriptor passed")
	}
}

func itoa(k int) string {
	if k < 10 {
		return string(rune('0' + k))
	}
	return itoa(k/10) + string(rune('0'+k%10))
}

// TestLongName: every legal name, up to 255 bytes, has a temporary file
// (cut and hashed), recognized as one, and distinct names have distinct
// ones.
func TestLongName(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for _, n := range []int{200, 230, 234, 250, 255} {
		for _, last := range []string{"a", "b"} {
			name := strings.Repeat("é", (n-1)/2) + strings.Repeat("x", (n-1)%2) + last
			if len(name) != n {
				t.Fatalf("name of %d bytes, want %d", len(name), n)
			}
			path := filepath.Join(dir, name)
			f, err := Create(path)
			if err != nil {
				t.Fatalf("%d bytes: %v", n, err)
			}
			base := filepath.Base(f.Name())
			prefix := base[:strings.LastIndex(base, "-")]
			if !IsTemp(base) || len(base) > 255 || seen[prefix] {
				t.Errorf("%d bytes: temporary %q (%d bytes)", n, base, len(base))
			}
			seen[prefix] = true
			f.WriteString("x")
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
				t.Errorf("%d bytes: %q, %v", n, b, err)
			}
		}
	}
}

// TestFIFOContext: waiting for a FIFO's reader stops with the context.
func TestFIFOContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := CreateContext(ctx, fifo)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("CreateContext of a FIFO without reader: %v after %v", err, time.Since(start))
	}
	// With a reader it is written.
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := CreateContext(context.Background(), fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ok")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestAbortAll: the temporaries of writers still running are removed, and
// neither they nor new writers commit afterwards.
func TestAbortAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.npy")
	var fs []*File
	for range 2 {
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("partial")
		fs = append(fs, f)
	}
	AbortAll()
	defer func() { // the tests go on in this process
		live.Lock()
		live.closed = false
		live.Unlock()
	}()
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d entries left", len(es))
	}
	if err := fs[0].Commit(); !errors.Is(err, errAborted) || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("Commit after AbortAll: %v", err)
	}
	fs[1].Abort()
	if _, err := Create(path); !errors.Is(err, errAborted) {
		t.Errorf("Create after AbortAll: %v", err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d entries left", len(es))
	}
}

// TestWriteErrorNamesPath: a failing write names the output, never its
// temporary file.
func TestWriteErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.npy")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	f.File.Close() // makes every write fail
	for _, err := range []error{
		func() error { _, err := f.Write([]byte("x")); return err }(),
		func() error { _, err := f.WriteString("x"); return err }(),
		func() error { _, err := f.ReadFrom(strings.NewReader("x")); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("write error %v", err)
		}
	}
}
