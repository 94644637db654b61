package datasets

import (
	"errors"
	"io/fs"
	"math"
	"os"
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

// TestMissingPaths: every reader reports a missing file, and every writer a
// missing directory, as fs.ErrNotExist, in a message with the package
// prefix that names the path; a failed write leaves nothing behind.
func TestMissingPaths(t *testing.T) {
	dir := t.TempDir()
	a, _ := Identity(tensor.Float64, 2)
	read := func(f func(string, *ReadOptions) (*tensor.Dense, error)) func(string) error {
		return func(path string) error { _, err := f(path, nil); return err }
	}
	for _, r := range []struct {
		name, file string
		read       func(path string) error
	}{
		{"Read", "x.npy", read(Read)},
		{"ReadNPY", "x.npy", read(ReadNPY)},
		{"ReadNPZ", "x.npz", read(ReadNPZ)},
		{"ReadCSV", "x.csv", read(ReadCSV)},
		{"ReadMTX", "x.mtx", read(ReadMTX)},
		{"ReadScaled", "x.mtx", func(path string) error { _, _, err := ReadScaled(t.Context(), path, nil); return err }},
		{"StatNPY", "x.npy", func(path string) error { _, err := StatNPY(path); return err }},
		{"NPZMembers", "x.npz", func(path string) error { _, err := NPZMembers(path); return err }},
		{"ReadNPZVector", "x.npz", func(path string) error { _, err := ReadNPZVector(path, "row"); return err }},
	} {
		path := filepath.Join(dir, r.file)
		if err := r.read(path); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "datasets: open "+path+": ") {
			t.Errorf("%s of a missing file: error %v", r.name, err)
		}
	}
	for _, w := range []struct {
		name, file string
		write      func(path string) error
	}{
		{"Write", "x.npz", func(path string) error { return Write(path, a, nil) }},
		{"WriteNPY", "x.npy", func(path string) error { return WriteNPY(path, a) }},
		{"WriteCSV", "x.csv", func(path string) error { return WriteCSV(path, a, nil) }},
		{"WriteNPZMatrix", "x.npz", func(path string) error { return WriteNPZMatrix(path, a, nil) }},
	} {
		path := filepath.Join(dir, "no", w.file)
		if err := w.write(path); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "datasets: "+path+": ") {
			t.Errorf("%s into a missing directory: error %v", w.name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed writes left %v", entries)
	}
}

// TestReadScaled: a float64 matrix at scales float32 cannot hold (1e-40:
// subnormal; 1e-50: below them; 1e40: overflow) is refused by Read as
// Float32 with a *RangeError in every format, and ReadScaled returns it
// scaled by the power of two that puts its largest entry in [1, 2), each
// entry rounded from the float64 one times 2^exp. In range, nothing is
// scaled.
func TestReadScaled(t *testing.T) {
	base := testMatrix(t, tensor.Float64, 4, 5, 3) // entries in [-1, 1)
	for _, s := range []float64{1e-40, 1e-50, 1e40, 1} {
		a := tensor.New(tensor.WithShape(4, 5), tensor.WithBacking(scaled(base.Data().([]float64), s)))
		dir := t.TempDir()
		for _, name := range []string{"a.npy", "a.npz", "a.csv"} {
			path := filepath.Join(dir, name)
			if err := Write(path, a, nil); err != nil {
				t.Fatal(err)
			}
			checkScaled(t, path, a, s)
		}
		mtx := filepath.Join(dir, "a.mtx")
		writeMTXFile(t, mtx, a.Data().([]float64), 4, 5, false)
		checkScaled(t, mtx, a, s)
	}
}

func checkScaled(t *testing.T, path string, a *tensor.Dense, s float64) {
	t.Helper()
	opt := &ReadOptions{DType: tensor.Float32}
	_, err := Read(path, opt)
	var re *RangeError
	if want := s != 1; errors.As(err, &re) != want || want && (re.Overflow != (s > 1) || errors.Is(err, ErrNotFinite) != re.Overflow || !strings.Contains(err.Error(), path)) {
		t.Errorf("%s at %g: Read: %v", path, s, err)
	}
	got, exp, err := ReadScaled(t.Context(), path, opt)
	if err != nil {
		t.Fatalf("%s at %g: %v", path, s, err)
	}
	data := a.Data().([]float64)
	m := 0.0
	for i, v := range got.Data().([]float32) {
		if want := float32(data[i] * math.Ldexp(1, exp)); v != want {
			t.Fatalf("%s at %g: entry %d is %g, want %g (exp %d)", path, s, i, v, want, exp)
		}
		m = max(m, math.Abs(float64(v)))
	}
	if s != 1 && (m < 1 || m >= 2) || s == 1 && exp != 0 {
		t.Errorf("%s at %g: exp %d puts the largest entry at %g", path, s, exp, m)
	}
}

func scaled(x []float64, s float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * s
	}
	return y
}

// TestReadNotes: the readers say what they assumed: a skipped header row,
// bool entries as 0 and 1, pattern entries as 1; nothing for plain files.
func TestReadNotes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"h.csv":   "a,b\n1,2\n",
		"p.mtx":   "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
		"b.npy":   string(npyHeaderBytes("|b1", false, 1, 2)) + "\x01\x00",
		"n.csv":   "1,2\n3,4\n",
		"r.mtx":   "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n",
		"f.npy":   string(npyHeaderBytes("<f8", false, 1, 1)) + "\x00\x00\x00\x00\x00\x00\xf0\x3f",
		"hdr.tsv": "# comment\nx\ty\n1\t2\n",
	}
	want := map[string]string{
		"h.csv": "line 1 is a header row, skipped: a,b", "p.mtx": "pattern entries read as 1, the entries not listed as 0",
		"b.npy": "bool entries read as 0 (false) and 1 (true)", "hdr.tsv": "line 2 is a header row, skipped: x\ty",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var notes []string
		if _, err := Read(path, &ReadOptions{Note: func(s string) { notes = append(notes, s) }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Join(notes, "|") != want[name] {
			t.Errorf("%s: notes %q, want %q", name, notes, want[name])
		}
	}
}
