package games

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// TestSource: the kinds of input Open meets, and what it knows of each
// before the payload is read.
func TestSource(t *testing.T) {
	dir := t.TempDir()
	mat := filepath.Join(dir, "m.npy")
	if err := datasets.WriteNPY(mat, tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))); err != nil {
		t.Fatal(err)
	}
	stack := filepath.Join(dir, "s.npy")
	if err := datasets.WriteStack(stack, tensor.New(tensor.WithShape(4, 2, 3), tensor.WithBacking(make([]float32, 24)))); err != nil {
		t.Fatal(err)
	}
	src, err := Open(mat, "")
	if err != nil || src.Dims != 2 || src.NPY.Rows != 2 || src.NPY.Cols != 3 || src.NPY.Exact32 || !src.Regular() {
		t.Fatalf("matrix: %+v, %v", src, err)
	}
	// Read twice through the one open file: each read starts at the top.
	for range 2 {
		a, exp, err := src.Read(context.Background(), nil)
		if err != nil || exp != 0 || a.Shape()[0] != 2 || a.Float64s()[5] != 6 {
			t.Fatalf("matrix read: %v, %d, %v", a, exp, err)
		}
	}
	if _, err := src.ReadStack(); err == nil {
		t.Error("a matrix read as a stack")
	}
	src.Close()

	src, err = Open(stack, "npy")
	if err != nil || src.Dims != 3 || !src.NPY.Exact32 {
		t.Fatalf("stack: %+v, %v", src, err)
	}
	if a, err := src.ReadStack(); err != nil || a.Shape()[0] != 4 {
		t.Fatalf("stack read: %v, %v", a, err)
	}
	src.Close()

	if _, err := Open(dir+"/x.npy", ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if d := filepath.Join(dir, "d.npy"); os.Mkdir(d, 0o755) != nil {
		t.Fatal("mkdir")
	} else if _, err := Open(d, ""); !errors.Is(err, ErrDirectory) {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(mat, "xls"); err == nil {
		t.Error("unknown format accepted")
	}
}
