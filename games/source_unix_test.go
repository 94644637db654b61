//go:build unix

package games

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSourceFIFO: a FIFO is stated, not opened: opening it would wait for
// a writer, and a pipe is read once, by Read.
func TestSourceFIFO(t *testing.T) {
	dir := t.TempDir()
	// A FIFO is stated, not opened: opening it would wait for a writer.
	fifo := filepath.Join(dir, "f.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := Open(fifo, "")
		if err == nil && (s.Regular() || s.Dims != 0) {
			err = errors.New("a FIFO taken for a regular file")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open waits on a FIFO")
	}
}
