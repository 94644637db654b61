package datasets

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

func TestFormatOf(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"a.npy", "npy"}, {"dir/A.NPZ", "npz"}, {"x.csv", "csv"}, {"x.tsv", "csv"},
		{"x.txt", "csv"}, {"m.mtx", "mtx"}, {"x.npy.gz", ""}, {"noext", ""},
	} {
		got, err := FormatOf(c.path)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", c.path, got, err, c.want)
		}
		if err != nil && (!errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.path)) {
			t.Errorf("FormatOf(%q): error %v does not match ErrFormat or name the file", c.path, err)
		}
	}
}

// TestReadWrite: every writable format round trips through Read and Write,
// by extension and by an explicit format.
func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		a, err := Gaussian(dt, 7, 5, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			file string
			w    *WriteOptions
			r    *ReadOptions
		}{
			{"a.npy", nil, nil},
			{"a.npz", &WriteOptions{Key: "payoff", Compress: true}, &ReadOptions{Key: "payoff"}},
			{"a.csv", &WriteOptions{Header: true}, nil},
			{"a.tsv", nil, nil},
			{"a.dat", &WriteOptions{Format: "npz"}, &ReadOptions{Format: "npz"}},
			{"b.dat", &WriteOptions{Format: "csv", Comma: ' '}, &ReadOptions{Format: "CSV"}},
		} {
			path := filepath.Join(dir, c.file)
			if err := Write(path, a, c.w); err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			r := c.r
			if r == nil {
				r = &ReadOptions{}
			}
			r.DType = dt
			got, err := Read(path, r)
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if !got.Eq(a) {
				t.Errorf("%s (%v): read back a different matrix", c.file, dt)
			}
		}
	}
	a, _ := Identity(tensor.Float64, 2)
	for _, c := range []struct {
		path string
		o    *WriteOptions
		want string
	}{
		{"x.mtx", nil, "read, not written"},
		{"x.bin", nil, "unknown format"},
		{"x.npy", &WriteOptions{Format: "mtx"}, "unknown format"},
	} {
		if err := Write(filepath.Join(dir, c.path), a, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%s): %v, want an error containing %q", c.path, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "a.npy"), &ReadOptions{Format: "xls"}); err == nil || !strings.Contains(err.Error(), "xls") {
		t.Errorf("Read with format xls: %v", err)
	}
}
