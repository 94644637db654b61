//go:build unix

package datasets

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
