//go:build unix

package datasets

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"gorgonia.org/tensor"
)

// TestWriteThroughLinksAndPipes: writing to a symbolic link replaces its
// target and keeps the link; writing to a FIFO writes into it rather than
// replacing it.
func TestWriteThroughLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	a, _ := Identity(tensor.Float64, 3)
	target := filepath.Join(dir, "target.npy")
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Write(link, a, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got, err := ReadNPY(target, nil); err != nil || !got.Eq(a) {
		t.Errorf("target: %v", err)
	}

	fifo := filepath.Join(dir, "out.npy")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if err := Write(fifo, a, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(target)
	if b := <-got; string(b) != string(want) {
		t.Errorf("read %d bytes from the FIFO, want %d", len(b), len(want))
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}
