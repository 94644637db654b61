package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"gorgonia.org/tensor"
)

// mtxFixtures are the valid Matrix Market files in testdata and their
// matrices, row-major.
var mtxFixtures = []struct {
	name string
	m, n int
	want []float64
}{
	{"mtx_array_real.mtx", 2, 3, []float64{1.5, 0, -4, -2, 32.5, 5}},
	{"mtx_array_integer.mtx", 3, 2, []float64{1, 4, -2, 0, 3, -60}},
	{"mtx_array_symmetric.mtx", 3, 3, []float64{1, 2, 3, 2, 4, 5, 3, 5, 6}},
	{"mtx_array_skew.mtx", 3, 3, []float64{0, -1, -2, 1, 0, -3, 2, 3, 0}},
	{"mtx_coord_general.mtx", 3, 4, []float64{1, 0, 0, -7, 0, 0, 5, 0, 15, 0, 0, -1.25}},
	{"mtx_coord_symmetric.mtx", 3, 3, []float64{2, -1, 0, -1, 0, -1, 0, -1, 2}},
	{"mtx_coord_skew.mtx", 3, 3, []float64{0, -1, 2, 1, 0, -3, -2, 3, 0}},
	{"mtx_coord_missing.mtx", 4, 5, []float64{0, 0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}},
	{"mtx_coord_zero.mtx", 2, 2, []float64{0, 0, 0, 0}},
	{"mtx_coord_pattern.mtx", 3, 3, []float64{1, 0, 1, 0, 0, 1, 1, 1, 0}},
	{"mtx_coord_duplicates.mtx", 2, 2, []float64{0, 1.75, 4, 0}},
	{"mtx_comments.mtx", 2, 2, []float64{1, 3, 0, 2}},
	{"mtx_crlf.mtx", 2, 2, []float64{1, 3, 2, 4}},
	{"mtx_uppercase.mtx", 2, 3, []float64{0, 0, 1e-3, -2, 0, 0}},
}

func TestReadMTXFixtures(t *testing.T) {
	for _, fx := range mtxFixtures {
		t.Run(fx.name, func(t *testing.T) {
			path := filepath.Join("testdata", fx.name)
			d, err := ReadMTX(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkMatrixEquals(t, d, tensor.Float64, fx.m, fx.n, fx.want)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The same with known and unknown sizes, one byte at a
			// time, and as both dtypes.
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				readers := map[string]func() (io.Reader, int64){
					"known":   func() (io.Reader, int64) { return bytes.NewReader(data), int64(len(data)) },
					"found":   func() (io.Reader, int64) { return bytes.NewReader(data), -1 },
					"stream":  func() (io.Reader, int64) { return onlyReader{bytes.NewReader(data)}, -1 },
					"onebyte": func() (io.Reader, int64) { return iotest.OneByteReader(bytes.NewReader(data)), int64(len(data)) },
				}
				for name, r := range readers {
					rd, size := r()
					d, err := DecodeMTX(rd, size, &ReadOptions{DType: dt})
					if err != nil {
						t.Fatalf("%s %v: %v", name, dt, err)
					}
					checkMatrixEquals(t, d, dt, fx.m, fx.n, fx.want)
				}
			}
		})
	}
}

// mtxError is an input that DecodeMTX refuses.
type mtxError struct {
	name string
	in   string
	kind error  // ErrFormat or ErrNotFinite
	msg  string // contained in the message
	loc  string // the location, such as "at line 3, column 2"
	dt   tensor.Dtype
}

const (
	mtxArrayBanner = "%%MatrixMarket matrix array real general\n"
	mtxCoordBanner = "%%MatrixMarket matrix coordinate real general\n"
)

var mtxErrors = []mtxError{
	// Banner.
	{name: "empty", in: "", kind: ErrFormat, msg: "empty input", loc: "at line 1"},
	{name: "not mtx", in: "hello\n2 2\n", kind: ErrFormat, msg: "not a Matrix Market file", loc: "at line 1"},
	{name: "npy", in: "\x93NUMPY\x01\x00", kind: ErrFormat, msg: "not a Matrix Market file", loc: "at line 1"},
	{name: "short banner", in: "%%MatrixMarket matrix array real\n1 1\n1\n", kind: ErrFormat, msg: "banner has 4 fields, want 5", loc: "at line 1"},
	{name: "long banner", in: "%%MatrixMarket matrix array real general extra\n1 1\n1\n", kind: ErrFormat, msg: `unexpected banner field "extra"`, loc: "at line 1, column 6"},
	{name: "vector", in: "%%MatrixMarket vector array real general\n1\n1\n", kind: ErrFormat, msg: `unsupported object "vector"`, loc: "at line 1, column 2"},
	{name: "format", in: "%%MatrixMarket matrix dense real general\n1 1\n1\n", kind: ErrFormat, msg: `unknown format "dense"`, loc: "at line 1, column 3"},
	{name: "complex", in: "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", kind: ErrFormat, msg: "complex matrices are not supported", loc: "at line 1, column 4"},
	{name: "field", in: "%%MatrixMarket matrix array double general\n1 1\n1\n", kind: ErrFormat, msg: `unknown field "double"`, loc: "at line 1, column 4"},
	{name: "hermitian", in: "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", kind: ErrFormat, msg: "hermitian", loc: "at line 1, column 5"},
	{name: "symmetry", in: "%%MatrixMarket matrix array real diagonal\n1 1\n1\n", kind: ErrFormat, msg: `unknown symmetry "diagonal"`, loc: "at line 1, column 5"},
	{name: "pattern array", in: "%%MatrixMarket matrix array pattern general\n1 1\n1\n", kind: ErrFormat, msg: "pattern field requires the coordinate format", loc: "at line 1, column 4"},
	{name: "pattern skew", in: "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n", kind: ErrFormat, msg: "cannot be skew-symmetric", loc: "at line 1, column 5"},

	// Size line.
	{name: "no size line", in: mtxArrayBanner + "% only a comment\n\n", kind: ErrFormat, msg: "input ends before the size line", loc: "at line 3"},
	{name: "array size fields", in: mtxArrayBanner + "2 2 4\n1\n2\n3\n4\n", kind: ErrFormat, msg: "size line has 3 fields, want 2 (rows columns)", loc: "at line 2"},
	{name: "coordinate size fields", in: mtxCoordBanner + "% c\n2 2\n", kind: ErrFormat, msg: "size line has 2 fields, want 3 (rows columns entries)", loc: "at line 3"},
	{name: "size fields many", in: mtxCoordBanner + "1 2 3 4 5\n", kind: ErrFormat, msg: "size line has more than 4 fields", loc: "at line 2"},
	{name: "bad rows", in: mtxArrayBanner + "x 2\n1\n2\n", kind: ErrFormat, msg: `bad row count "x"`, loc: "at line 2, column 1"},
	{name: "negative columns", in: mtxArrayBanner + "1 -2\n1\n2\n", kind: ErrFormat, msg: `bad column count "-2"`, loc: "at line 2, column 2"},
	{name: "bad nnz", in: mtxCoordBanner + "1 2 1.0\n1 1 1\n", kind: ErrFormat, msg: `bad entry count "1.0"`, loc: "at line 2, column 3"},
	{name: "huge count", in: mtxCoordBanner + "1 1 99999999999999999999999\n", kind: ErrFormat, msg: "bad entry count", loc: "at line 2, column 3"},
	{name: "empty matrix", in: mtxArrayBanner + "0 3\n", kind: ErrFormat, msg: "empty matrix of shape (0, 3)", loc: "at line 2"},
	{name: "not square", in: "%%MatrixMarket matrix array real symmetric\n2 3\n1\n2\n3\n", kind: ErrFormat, msg: "symmetric matrix of shape (2, 3) is not square", loc: "at line 2"},
	{name: "skew not square", in: "%%MatrixMarket matrix coordinate real skew-symmetric\n3 2 0\n", kind: ErrFormat, msg: "skew-symmetric matrix of shape (3, 2) is not square", loc: "at line 2"},
	{name: "too large", in: mtxCoordBanner + "1000000000 1000000000 0\n", kind: ErrFormat, msg: "matrix of shape (1000000000, 1000000000) has 1000000000000000000 entries, more than this machine", loc: "at line 2"},
	{name: "overflowing shape", in: mtxCoordBanner + "9000000000000000 9000000000000000 1\n1 1 1\n", kind: ErrFormat, msg: "has too many entries, more than", loc: "at line 2"},
	{name: "array claim", in: mtxArrayBanner + "1000 1000\n1\n2\n", kind: ErrFormat, msg: "a general array of 1000000 listed entries, which take at least 1999999 bytes, but only 4 bytes follow", loc: "at line 2"},
	{name: "symmetric array claim", in: "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n", kind: ErrFormat, msg: "a symmetric array of 6 listed entries, which take at least 11 bytes, but only 10 bytes follow", loc: "at line 2"},
	{name: "coordinate claim", in: mtxCoordBanner + "10 10 100\n1 1 1\n", kind: ErrFormat, msg: "claims 100 entries, which take at least 599 bytes (6 per line), but only 6 bytes follow", loc: "at line 2, column 3"},
	{name: "pattern claim", in: "%%MatrixMarket matrix coordinate pattern general\n10 10 3\n1 1\n2 2\n", kind: ErrFormat, msg: "(4 per line), but only 8 bytes follow", loc: "at line 2, column 3"},

	// Entries.
	{name: "row zero", in: mtxCoordBanner + "3 3 1\n0 1 1\n", kind: ErrFormat, msg: `row index "0" is not in [1, 3]`, loc: "at line 3, column 1"},
	{name: "row too large", in: mtxCoordBanner + "3 3 2\n1 1 1\n4 1 1\n", kind: ErrFormat, msg: `row index "4" is not in [1, 3]`, loc: "at line 4, column 1"},
	{name: "column too large", in: mtxCoordBanner + "3 2 1\n% c\n1 3 1\n", kind: ErrFormat, msg: `column index "3" is not in [1, 2]`, loc: "at line 4, column 2"},
	{name: "index syntax", in: mtxCoordBanner + "3 3 1\n1.0 1 1\n", kind: ErrFormat, msg: `row index "1.0" is not in [1, 3]`, loc: "at line 3, column 1"},
	{name: "huge index", in: mtxCoordBanner + "3 3 1\n1 123456789012345678901234 1\n", kind: ErrFormat, msg: "column index", loc: "at line 3, column 2"},
	{name: "two fields", in: mtxCoordBanner + "3 3 1\n1 1    \n", kind: ErrFormat, msg: "entry line has 2 fields, want 3 (row column value)", loc: "at line 3"},
	{name: "four fields", in: mtxCoordBanner + "3 3 1\n1 1 1 0\n", kind: ErrFormat, msg: "entry line has 4 fields, want 3", loc: "at line 3, column 4"},
	{name: "pattern value", in: "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", kind: ErrFormat, msg: "entry line has 3 fields, want 2 (row column) for a pattern matrix", loc: "at line 3, column 3"},
	{name: "bad real", in: mtxCoordBanner + "3 3 1\n1 1 1.2.3\n", kind: ErrFormat, msg: `bad real number "1.2.3"`, loc: "at line 3, column 3"},
	{name: "bad array real", in: mtxArrayBanner + "2 1\n1\nabc\n", kind: ErrFormat, msg: `bad real number "abc"`, loc: "at line 4, column 1"},
	{name: "bad integer", in: "%%MatrixMarket matrix array integer general\n2 1\n1\n1.5\n", kind: ErrFormat, msg: `bad integer number "1.5"`, loc: "at line 4, column 1"},
	{name: "integer sign only", in: "%%MatrixMarket matrix array integer general\n1 1\n-\n", kind: ErrFormat, msg: `bad integer number "-"`, loc: "at line 3, column 1"},
	{name: "two per line", in: mtxArrayBanner + "2 2\n1 3\n2 4\n", kind: ErrFormat, msg: "one entry per line", loc: "at line 3, column 2"},
	{name: "skew diagonal", in: "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 1\n", kind: ErrFormat, msg: "diagonal entry (1, 1) in a skew-symmetric matrix", loc: "at line 4"},
	{name: "array truncated", in: mtxArrayBanner + "2 2\n10\n20\n30", kind: ErrFormat, msg: "input ends after 3 of the 4 entries", loc: "at line 5"},
	{name: "array truncated comment", in: mtxArrayBanner + "1 2\n1\n% the end\n\n", kind: ErrFormat, msg: "input ends after 1 of the 2 entries", loc: "at line 5"},
	{name: "coordinate truncated", in: mtxCoordBanner + "3 3 3\n1 1 1\n2 2 2\n\n\n\n\n\n", kind: ErrFormat, msg: "input ends after 2 of the 3 entries", loc: "at line 9"},
	{name: "array extra", in: mtxArrayBanner + "2 1\n1\n2\n% ok\n3\n", kind: ErrFormat, msg: "more entries than the 2 that a 2×1 general array lists", loc: "at line 6"},
	{name: "symmetric array extra", in: "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", kind: ErrFormat, msg: "more entries than the 3 that a 2×2 symmetric array lists", loc: "at line 6"},
	{name: "coordinate extra", in: mtxCoordBanner + "3 3 1\n1 1 1\n2 2 2\n", kind: ErrFormat, msg: "more entry lines than the 1 of the size line (line 2)", loc: "at line 4"},

	// Non-finite entries.
	{name: "array nan", in: mtxArrayBanner + "2 2\n1\nNaN\n3\n4\n", kind: ErrNotFinite, msg: "non-finite entry NaN at (1, 0)", loc: "at line 4, column 1"},
	{name: "array inf", in: mtxArrayBanner + "2 2\n1\n2\n3\n-inf\n", kind: ErrNotFinite, msg: "non-finite entry -Inf at (1, 1)", loc: "at line 6, column 1"},
	{name: "symmetric nan", in: "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\nnan\n", kind: ErrNotFinite, msg: "non-finite entry NaN at (1, 1)", loc: "at line 5, column 1"},
	{name: "coordinate inf", in: mtxCoordBanner + "3 3 2\n1 1 1\n3 2 +Infinity\n", kind: ErrNotFinite, msg: "non-finite entry +Inf at (2, 1)", loc: "at line 4, column 3"},
	{name: "float64 overflow", in: mtxCoordBanner + "3 3 1\n2 3 1e999\n", kind: ErrNotFinite, msg: "entry 1e999 at (1, 2) overflows float64", loc: "at line 3, column 3"},
	{name: "fortran overflow", in: mtxArrayBanner + "1 1\n-1D999\n", kind: ErrNotFinite, msg: "entry -1D999 at (0, 0) overflows float64", loc: "at line 3, column 1"},
	{name: "integer overflow", in: "%%MatrixMarket matrix array integer general\n1 1\n" + strings.Repeat("9", 400) + "\n", kind: ErrNotFinite, msg: "overflows float64", loc: "at line 3, column 1"},
	{name: "float32 overflow", in: mtxCoordBanner + "3 3 1\n3 1 -1e39\n", kind: ErrNotFinite, msg: "entry -1e+39 at (2, 0) overflows float32", loc: "at line 3, column 3", dt: tensor.Float32},
	{name: "float32 integer overflow", in: "%%MatrixMarket matrix array integer general\n1 1\n" + "1" + strings.Repeat("0", 39) + "\n", kind: ErrNotFinite, msg: "overflows float32", loc: "at line 3, column 1", dt: tensor.Float32},
	{name: "duplicate overflow", in: mtxCoordBanner + "2 2 2\n1 2 1e308\n1 2 1e308\n", kind: ErrNotFinite, msg: "sum of duplicate entries at (0, 1) overflows float64", loc: "at line 4"},
	{name: "symmetric duplicate overflow", in: "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 3e38\n1 2 3e38\n", kind: ErrNotFinite, msg: "sum of duplicate entries at (0, 1) overflows float32", loc: "at line 4", dt: tensor.Float32},

	// Lines.
	{name: "long line", in: mtxCoordBanner + "1 1 1\n1 1 " + strings.Repeat("1", 2<<20) + "\n", kind: ErrFormat, msg: "line longer than 1048576 bytes", loc: "at line 3"},
}

func TestDecodeMTXErrors(t *testing.T) {
	for _, c := range mtxErrors {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range []int64{int64(len(c.in)), -1} {
				var r io.Reader = strings.NewReader(c.in)
				if size < 0 {
					r = onlyReader{r}
				}
				d, err := DecodeMTX(r, size, &ReadOptions{DType: c.dt})
				if size < 0 && strings.Contains(c.name, "claim") {
					// Only the size of the input refuses these.
					if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Errorf("stream: got %v, want a truncated input", err)
					}
					continue
				}
				if err == nil {
					t.Fatalf("size %d: DecodeMTX succeeded with shape %v, want an error", size, d.Shape())
				}
				if d != nil {
					t.Errorf("non-nil result with error %v", err)
				}
				if !errors.Is(err, c.kind) {
					t.Errorf("size %d: error %q does not match %v", size, err, c.kind)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "datasets: ") || !strings.Contains(msg, c.msg) {
					t.Errorf("size %d: error %q does not contain %q", size, msg, c.msg)
				}
				if !hasMTXLocation(msg, c.loc) {
					t.Errorf("size %d: error %q is not %q", size, msg, c.loc)
				}
			}
		})
	}
}

// hasMTXLocation reports whether the error message msg gives the location
// loc ("at line L[, column C]"), which ends the message or its cause.
func hasMTXLocation(msg, loc string) bool {
	i := strings.Index(msg, " "+loc)
	if i < 0 {
		return false
	}
	rest := msg[i+1+len(loc):]
	return rest == "" || rest[0] == ':'
}

// TestReadMTXErrors checks errors that name the file.
func TestReadMTXErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.mtx")
	if err := os.WriteFile(path, []byte(mtxArrayBanner+"2 2\n1\n2\nNaN\n4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadMTX(path, nil)
	if !errors.Is(err, ErrNotFinite) {
		t.Fatalf("error %v does not match ErrNotFinite", err)
	}
	if want := "datasets: " + path + ": non-finite entry NaN at (0, 1) at line 5, column 1"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	if err := os.WriteFile(path, []byte(mtxArrayBanner+"2 2\n1\n2\n\n\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadMTX(path, nil)
	if !errors.Is(err, ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v does not match ErrFormat and io.ErrUnexpectedEOF", err)
	}
	if want := "datasets: " + path + ": input ends after 2 of the 4 entries at line 7: unexpected EOF"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	// A directory.
	_, err = ReadMTX(dir, nil)
	if err == nil || !strings.Contains(err.Error(), dir+": is a directory") {
		t.Errorf("directory: error %v", err)
	}
	// A bad dtype.
	_, err = ReadMTX(filepath.Join("testdata", "mtx_crlf.mtx"), &ReadOptions{DType: tensor.Int})
	if err == nil || !strings.Contains(err.Error(), "unsupported result dtype") {
		t.Errorf("dtype int: error %v", err)
	}
	_, err = DecodeMTX(strings.NewReader(""), 0, &ReadOptions{DType: tensor.Int})
	if err == nil || !strings.Contains(err.Error(), "unsupported result dtype") {
		t.Errorf("dtype int: error %v", err)
	}
	// A read error.
	_, err = DecodeMTX(iotest.TimeoutReader(iotest.HalfReader(strings.NewReader(mtxCoordBanner+"1 1 1\n1 1 1\n"))), -1, nil)
	if !errors.Is(err, iotest.ErrTimeout) || errors.Is(err, ErrFormat) {
		t.Errorf("read error: %v", err)
	}
}

// TestMTXLongComment checks that comment lines of any length are skipped.
func TestMTXLongComment(t *testing.T) {
	long := "%" + strings.Repeat("x", 3<<20) + "\n"
	in := mtxCoordBanner + long + "2 2 1\n" + "  " + long + "2 1 5\n" + long[:len(long)-1]
	for _, r := range []io.Reader{strings.NewReader(in), onlyReader{strings.NewReader(in)}} {
		d, err := DecodeMTX(r, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkMatrixEquals(t, d, tensor.Float64, 2, 2, []float64{0, 0, 5, 0})
	}
	// Lines are still counted.
	in = mtxCoordBanner + long + "2 2 1\n" + long + "2 3 5\n"
	_, err := DecodeMTX(strings.NewReader(in), -1, nil)
	if err == nil || !strings.Contains(err.Error(), "at line 5, column 2") {
		t.Errorf("error %v, want one at line 5, column 2", err)
	}
}

// writeMTX writes a in Matrix Market format (array or coordinate, with
// every entry) to w, with the shortest representation of each value.
func writeMTX(w io.Writer, a []float64, m, n int, coordinate bool) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if coordinate {
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", m, n, m*n)
		for i := range m {
			for j := range n {
				fmt.Fprintf(bw, "%d %d %v\n", i+1, j+1, a[i*n+j])
			}
		}
	} else {
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix array real general\n%d %d\n", m, n)
		for j := range n {
			for i := range m {
				fmt.Fprintf(bw, "%v\n", a[i*n+j])
			}
		}
	}
	return bw.Flush()
}

// writeMTXFile writes a to a new file at path with writeMTX.
func writeMTXFile(tb testing.TB, path string, a []float64, m, n int, coordinate bool) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeMTX(f, a, m, n, coordinate); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestMTXLarge reads files larger than the read buffer, so that lines
// cross its boundaries, and checks every entry exactly.
func TestMTXLarge(t *testing.T) {
	const m, n = 300, 200
	a, err := Uniform(tensor.Float64, m, n, -1e3, 1e3, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := a.Data().([]float64)
	for _, coord := range []bool{false, true} {
		var buf bytes.Buffer
		if err := writeMTX(&buf, want, m, n, coord); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		for _, r := range []io.Reader{bytes.NewReader(data), onlyReader{bytes.NewReader(data)}, iotest.HalfReader(bytes.NewReader(data))} {
			d, err := DecodeMTX(r, -1, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkMatrixEquals(t, d, tensor.Float64, m, n, want)
		}
		d, err := DecodeMTX(bytes.NewReader(data), -1, &ReadOptions{DType: tensor.Float32})
		if err != nil {
			t.Fatal(err)
		}
		checkMatrixEquals(t, d, tensor.Float32, m, n, want)
	}
}

// TestMTXNumbers checks the number syntaxes accepted.
func TestMTXNumbers(t *testing.T) {
	reals := map[string]float64{
		"1": 1, "-0.5": -0.5, "+2.5": 2.5, ".25": 0.25, "1e3": 1000, "1E-3": 1e-3,
		"1.5D+03": 1500, "2d-1": 0.2, "-0.0": 0, "0x1p-2": 0.25, "4.9e-324": 5e-324,
		"1e-400": 0, "1.7976931348623157e308": math.MaxFloat64,
	}
	for tok, want := range reals {
		d, err := DecodeMTX(strings.NewReader(mtxArrayBanner+"1 1\n"+tok+"\n"), -1, nil)
		if err != nil {
			t.Errorf("%q: %v", tok, err)
			continue
		}
		if got := d.Data().([]float64)[0]; got != want {
			t.Errorf("%q: got %v, want %v", tok, got, want)
		}
	}
	ints := map[string]float64{
		"0": 0, "-7": -7, "+7": 7, "007": 7, "999999999999999999": 999999999999999999,
		"-9223372036854775808": -9223372036854775808, "123456789012345678901234567890": 123456789012345678901234567890,
	}
	for tok, want := range ints {
		d, err := DecodeMTX(strings.NewReader("%%MatrixMarket matrix array integer general\n1 1\n"+tok+"\n"), -1, nil)
		if err != nil {
			t.Errorf("%q: %v", tok, err)
			continue
		}
		if got := d.Data().([]float64)[0]; got != want {
			t.Errorf("%q: got %v, want %v", tok, got, want)
		}
	}
}

// BenchmarkReadMTX reads a 2000×2000 float64 matrix from Matrix Market
// files (array, about 79 MB, and coordinate, about 115 MB) in the page
// cache. Run it with
//
//	go test -run X -bench ReadMTX -benchtime 5x ./datasets/
func BenchmarkReadMTX(b *testing.B) {
	const m, n = 2000, 2000
	a, err := Uniform(tensor.Float64, m, n, -1, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, format := range []string{"array", "coordinate"} {
		path := filepath.Join(dir, format+".mtx")
		writeMTXFile(b, path, a.Data().([]float64), m, n, format == "coordinate")
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			b.Run(format+"/"+dt.String(), func(b *testing.B) {
				b.SetBytes(fi.Size())
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ReadMTX(path, &ReadOptions{DType: dt}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestMTXByteOrderMark(t *testing.T) {
	d, err := DecodeMTX(strings.NewReader("\xef\xbb\xbf"+mtxArrayBanner+"1 2\n3\n4\n"), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 1, 2, []float64{3, 4})
}
