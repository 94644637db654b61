//go:build unix

package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gorgonia.org/tensor"
)

// TestReadNPYPipe reads from a named pipe, whose size is unknown.
func TestReadNPYPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe.npy")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	a := testMatrix(t, tensor.Float32, 300, 400, 5)
	data := encode(t, a, &WriteOptions{Fortran: true})
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	d, err := ReadNPY(path, &ReadOptions{DType: tensor.Float64})
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 300, 400, float64s(t, a))
}

// TestReadScaledPipe: from a FIFO, which cannot be read twice, ReadScaled
// returns the RangeError.
func TestReadScaledPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString("1e-50,2e-50\n")
			f.Close()
		}
	}()
	_, _, err := ReadScaled(t.Context(), fifo, &ReadOptions{DType: tensor.Float32})
	var re *RangeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "cannot be read a second time") {
		t.Errorf("error %v", err)
	}
}

// TestReadCanceled: canceling the context stops a read that waits on a
// silent pipe and one that never ends.
func TestReadCanceled(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// A writer that says nothing until the test ends.
	w := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0)
		w <- f
	}()
	defer func() { (<-w).Close() }()
	for _, path := range []string{fifo, "/dev/zero"} {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		start := time.Now()
		_, _, err := ReadScaled(ctx, path, &ReadOptions{Format: "csv"})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %v after %v", path, err, time.Since(start))
		}
	}
}
