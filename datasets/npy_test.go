package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"
)

// The builders and checks from here to TestRoundTrip serve the tests and
// benchmarks of every file of the package.

// onlyReader hides the Len and Seek methods of a reader, so that
// DecodeNPY cannot find the size of the stream.
type onlyReader struct{ io.Reader }

// float64s returns the entries of d, row-major, as float64.
func float64s(t testing.TB, d *tensor.Dense) []float64 {
	t.Helper()
	switch s := d.Data().(type) {
	case []float64:
		return append([]float64(nil), s...)
	case []float32:
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(v)
		}
		return out
	}
	t.Fatalf("unexpected data type %T", d.Data())
	return nil
}

// roundTo rounds v to the precision of dt.
func roundTo(dt tensor.Dtype, v float64) float64 {
	if dt == tensor.Float32 {
		return float64(float32(v))
	}
	return v
}

// checkMatrixEquals checks that d is a row-major m×n matrix of dtype dt
// whose entries are want rounded to dt.
func checkMatrixEquals(t testing.TB, d *tensor.Dense, dt tensor.Dtype, m, n int, want []float64) {
	t.Helper()
	if d.Dtype() != dt {
		t.Fatalf("dtype %v, want %v", d.Dtype(), dt)
	}
	if s := d.Shape(); len(s) != 2 || s[0] != m || s[1] != n {
		t.Fatalf("shape %v, want (%d, %d)", s, m, n)
	}
	if !d.DataOrder().IsRowMajor() || d.IsMaterializable() {
		t.Fatalf("result is not a plain row-major tensor")
	}
	got := float64s(t, d)
	if len(got) != m*n {
		t.Fatalf("%d entries, want %d", len(got), m*n)
	}
	for k, w := range want {
		if got[k] != roundTo(dt, w) {
			t.Fatalf("entry (%d, %d) = %v, want %v", k/n, k%n, got[k], roundTo(dt, w))
		}
	}
}

// testMatrix returns a reproducible m×n matrix with distinct entries.
func testMatrix(t testing.TB, dt tensor.Dtype, m, n int, seed uint64) *tensor.Dense {
	t.Helper()
	a, err := Uniform(dt, m, n, -10, 10, seed)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// setEntry sets entry (i, j) of the row-major matrix a.
func setEntry(a *tensor.Dense, i, j int, v float64) {
	n := a.Shape()[1]
	switch s := a.Data().(type) {
	case []float64:
		s[i*n+j] = v
	case []float32:
		s[i*n+j] = float32(v)
	}
}

// allocated returns the bytes allocated on the heap while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// encode returns the .npy encoding of a written with the options o.
func encode(t testing.TB, a *tensor.Dense, o *WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeNPYOptions(&buf, a, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// npyBytes returns a .npy file of the given format version with the header
// dictionary dict used verbatim (no padding is added) and the payload.
func npyBytes(major byte, dict string, payload []byte) []byte {
	var b []byte
	b = append(b, npyMagic...)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	b = append(b, dict...)
	return append(b, payload...)
}

// numpyDict returns the header dictionary NumPy writes, padded to 64 bytes.
func numpyDict(descr string, fortran bool, shape string) string {
	order := "False"
	if fortran {
		order = "True"
	}
	d := "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }"
	pad := 64 - (10+len(d)+1)%64
	if pad == 64 {
		pad = 0
	}
	return d + strings.Repeat(" ", pad) + "\n"
}

// enc encodes vals in stream order as elements of the NumPy dtype descr.
func enc(descr string, vals ...float64) []byte {
	var order binary.AppendByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		order = binary.BigEndian
	}
	var b []byte
	for _, v := range vals {
		switch descr[1:] {
		case "f8":
			b = order.AppendUint64(b, math.Float64bits(v))
		case "f4":
			b = order.AppendUint32(b, math.Float32bits(float32(v)))
		case "i1", "u1", "b1":
			b = append(b, byte(int64(v)))
		case "i2":
			b = order.AppendUint16(b, uint16(int16(v)))
		case "u2":
			b = order.AppendUint16(b, uint16(v))
		case "i4":
			b = order.AppendUint32(b, uint32(int32(v)))
		case "u4":
			b = order.AppendUint32(b, uint32(v))
		case "i8":
			b = order.AppendUint64(b, uint64(int64(v)))
		case "u8":
			b = order.AppendUint64(b, uint64(v))
		default:
			panic("enc: unknown dtype " + descr)
		}
	}
	return b
}

// benchFile writes a new file named name with write and returns its path,
// with the file's size as b's bytes per operation.
func benchFile(b *testing.B, name string, write func(path string) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	if err := write(path); err != nil {
		b.Fatal(err)
	}
	fileBytes(b, path)
	return path
}

// fileBytes sets b's bytes per operation to the size of the file at path,
// and reports allocations.
func fileBytes(b *testing.B, path string) {
	b.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	opts := []WriteOptions{{}, {BigEndian: true}, {Fortran: true}, {BigEndian: true, Fortran: true}}
	shapes := [][2]int{{1, 1}, {1, 7}, {7, 1}, {37, 53}}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, o := range opts {
			for _, sh := range shapes {
				m, n := sh[0], sh[1]
				name := fmt.Sprintf("%v/big=%v/fortran=%v/%dx%d", dt, o.BigEndian, o.Fortran, m, n)
				t.Run(name, func(t *testing.T) {
					a := testMatrix(t, dt, m, n, 1)
					want := float64s(t, a)
					path := filepath.Join(dir, "a.npy")
					if err := WriteNPYOptions(path, a, &o); err != nil {
						t.Fatal(err)
					}
					// The header says what was asked for.
					f, err := os.Open(path)
					if err != nil {
						t.Fatal(err)
					}
					h, err := readNPYHeader(f, -1)
					f.Close()
					if err != nil {
						t.Fatal(err)
					}
					if h.bigEndian != o.BigEndian || h.fortran != o.Fortran || h.major != 1 || h.dataOff%64 != 0 {
						t.Errorf("header %+v does not match options %+v", h, o)
					}
					b, err := ReadNPY(path, nil)
					if err != nil {
						t.Fatal(err)
					}
					checkMatrixEquals(t, b, dt, m, n, want)
					for _, to := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
						b, err := ReadNPY(path, &ReadOptions{DType: to})
						if err != nil {
							t.Fatal(err)
						}
						checkMatrixEquals(t, b, to, m, n, want)
					}
				})
			}
		}
	}
}

// TestChunks reads with tiny chunk sizes, so that chunks hold partial
// columns, whole columns and partial rows, with known and unknown sizes.
func TestChunks(t *testing.T) {
	defer func(c int) { readChunk = c }(readChunk)
	for _, sh := range [][2]int{{37, 53}, {200, 5}, {1, 40}, {40, 1}} {
		testChunks(t, sh[0], sh[1])
	}
}

func testChunks(t *testing.T, m, n int) {
	for _, chunk := range []int{1, 24, 56, 1000, 5000, 8 << 20} {
		for _, src := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			for _, o := range []WriteOptions{{}, {BigEndian: true}, {Fortran: true}, {BigEndian: true, Fortran: true}} {
				a := testMatrix(t, src, m, n, 7)
				want := float64s(t, a)
				data := encode(t, a, &o)
				readChunk = chunk
				for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
					for _, known := range []bool{true, false} {
						var r io.Reader = bytes.NewReader(data)
						size := int64(len(data))
						if !known {
							r, size = onlyReader{r}, -1
						}
						d, err := DecodeNPY(r, size, &ReadOptions{DType: dt})
						if err != nil {
							t.Fatalf("%dx%d, chunk %d, %v to %v, %+v, known %v: %v", m, n, chunk, src, dt, o, known, err)
						}
						checkMatrixEquals(t, d, dt, m, n, want)
					}
				}
			}
		}
	}
}

// TestLarge reads matrices larger than the first allocation for streams of
// unknown size and large enough for the Fortran-order scatter to run in
// parallel, with several GOMAXPROCS.
func TestLarge(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, sh := range [][2]int{{301, 517}, {1003, 300}, {40000, 3}, {1100, 1000}} {
		m, n := sh[0], sh[1]
		a := testMatrix(t, tensor.Float64, m, n, 3)
		want := float64s(t, a)
		for _, fortran := range []bool{false, true} {
			data := encode(t, a, &WriteOptions{Fortran: fortran})
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				for _, known := range []bool{true, false} {
					var r io.Reader = bytes.NewReader(data)
					if !known {
						r = onlyReader{r}
					}
					d, err := DecodeNPY(r, -1, &ReadOptions{DType: tensor.Float32})
					if err != nil {
						t.Fatal(err)
					}
					checkMatrixEquals(t, d, tensor.Float32, m, n, want)
				}
			}
		}
	}
}

func TestIntegerConversions(t *testing.T) {
	type tc struct {
		descr string
		vals  []float64
	}
	signed := []float64{-5, 0, 3, 7, -1, 2}
	cases := []tc{
		{"|i1", []float64{-128, 127, 0, -1, 5, 6}},
		{"<i2", []float64{-32768, 32767, 0, -1, 5, 6}},
		{">i2", signed},
		{"<i4", []float64{-2147483648, 2147483647, 0, -1, 5, 6}},
		{">i4", signed},
		{"<i8", []float64{-1 << 62, 1 << 62, 0, -1, 5, 6}},
		{">i8", signed},
		{"|u1", []float64{0, 255, 1, 2, 3, 4}},
		{"<u2", []float64{0, 65535, 1, 2, 3, 4}},
		{">u2", []float64{0, 65535, 1, 2, 3, 4}},
		{"<u4", []float64{0, 4294967295, 1, 2, 3, 4}},
		{">u8", []float64{0, 1 << 63, 1, 2, 3, 4}},
		{"<u8", []float64{0, 1 << 63, 1, 2, 3, 4}},
	}
	for _, c := range cases {
		for _, fortran := range []bool{false, true} {
			stream := c.vals
			if fortran { // the 2×3 matrix c.vals in column-major order
				v := c.vals
				stream = []float64{v[0], v[3], v[1], v[4], v[2], v[5]}
			}
			data := npyBytes(1, numpyDict(c.descr, fortran, "(2, 3)"), enc(c.descr, stream...))
			for _, dt := range []tensor.Dtype{{}, tensor.Float64, tensor.Float32} {
				d, err := DecodeNPY(bytes.NewReader(data), int64(len(data)), &ReadOptions{DType: dt})
				if err != nil {
					t.Fatalf("%s: %v", c.descr, err)
				}
				want := dt
				if want.Type == nil {
					want = tensor.Float64
				}
				checkMatrixEquals(t, d, want, 2, 3, c.vals)
			}
		}
	}
	// Any non-zero byte is true.
	data := npyBytes(1, numpyDict("|b1", false, "(1, 3)"), []byte{0, 1, 7})
	d, err := DecodeNPY(bytes.NewReader(data), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 1, 3, []float64{0, 1, 1})
}

func TestNonFinite(t *testing.T) {
	defer func(c int) { readChunk = c }(readChunk)
	const m, n = 37, 53
	type entry struct {
		i, j int
		v    float64
	}
	cases := []struct {
		name    string
		src, dt tensor.Dtype
		bad     []entry
		msg     string
	}{
		{"nan", tensor.Float64, tensor.Float64, []entry{{5, 40, math.NaN()}}, "non-finite entry NaN at (5, 40)"},
		{"inf", tensor.Float64, tensor.Float64, []entry{{36, 52, math.Inf(1)}}, "non-finite entry +Inf at (36, 52)"},
		{"first of several", tensor.Float64, tensor.Float64, []entry{{30, 2, math.Inf(1)}, {5, 41, math.NaN()}, {5, 40, math.Inf(-1)}}, "non-finite entry -Inf at (5, 40)"},
		{"f32", tensor.Float32, tensor.Float32, []entry{{30, 2, math.Inf(1)}, {0, 50, math.NaN()}}, "non-finite entry NaN at (0, 50)"},
		{"f32 to f64", tensor.Float32, tensor.Float64, []entry{{2, 3, math.Inf(-1)}}, "non-finite entry -Inf at (2, 3)"},
		{"f64 to f32", tensor.Float64, tensor.Float32, []entry{{2, 3, math.NaN()}}, "non-finite entry NaN at (2, 3)"},
		{"overflow", tensor.Float64, tensor.Float32, []entry{{30, 2, -1e39}, {1, 1, 1e300}}, "entry 1e+300 at (1, 1) overflows float32"},
	}
	for _, c := range cases {
		a := testMatrix(t, c.src, m, n, 9)
		for _, e := range c.bad {
			setEntry(a, e.i, e.j, e.v)
		}
		if c.src == c.dt {
			err := Validate(a)
			if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: Validate: error %v, want %q", c.name, err, c.msg)
			}
		}
		for _, o := range []WriteOptions{{}, {BigEndian: true}, {Fortran: true}, {BigEndian: true, Fortran: true}} {
			data := encode(t, a, &o)
			for _, chunk := range []int{56, 1000, 8 << 20} {
				readChunk = chunk
				for _, known := range []bool{true, false} {
					var r io.Reader = bytes.NewReader(data)
					size := int64(len(data))
					if !known {
						r, size = onlyReader{r}, -1
					}
					_, err := DecodeNPY(r, size, &ReadOptions{DType: c.dt})
					if !errors.Is(err, ErrNotFinite) || errors.Is(err, ErrFormat) {
						t.Fatalf("%s %+v: error %v, want ErrNotFinite", c.name, o, err)
					}
					if !strings.HasPrefix(err.Error(), "datasets: ") || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "byte offset") {
						t.Fatalf("%s %+v: error %q, want %q and a byte offset", c.name, o, err, c.msg)
					}
				}
			}
		}
	}
}

// TestByteOffsetOfNonFinite checks the byte offset given for a bad entry.
func TestByteOffsetOfNonFinite(t *testing.T) {
	a := testMatrix(t, tensor.Float32, 3, 4, 1)
	setEntry(a, 2, 1, math.NaN())
	for _, o := range []WriteOptions{{}, {Fortran: true}} {
		data := encode(t, a, &o)
		_, err := DecodeNPY(bytes.NewReader(data), -1, nil)
		pos := 2*4 + 1 // C order
		if o.Fortran {
			pos = 1*3 + 2
		}
		want := fmt.Sprintf("NaN at (2, 1) at byte offset %d", 128+4*pos)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want %q", o, err, want)
		}
	}
}

// TestHostileHeader checks that a header claiming a huge matrix gives an
// error quickly, without allocating for it.
func TestHostileHeader(t *testing.T) {
	data := npyBytes(1, numpyDict("<f8", false, "(1000000, 1000000)"), make([]byte, 64))
	path := filepath.Join(t.TempDir(), "huge.npy")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		read  func() (*tensor.Dense, error)
		alloc uint64
	}{
		{"file", func() (*tensor.Dense, error) { return ReadNPY(path, nil) }, 64 << 10},
		{"bytes", func() (*tensor.Dense, error) { return DecodeNPY(bytes.NewReader(data), -1, nil) }, 64 << 10},
		{"size given", func() (*tensor.Dense, error) {
			return DecodeNPY(onlyReader{bytes.NewReader(data)}, int64(len(data)), nil)
		}, 64 << 10},
		// A stream of unknown size is refused: the claim is more than
		// memory holds.
		{"stream", func() (*tensor.Dense, error) { return DecodeNPY(onlyReader{bytes.NewReader(data)}, -1, nil) }, 64 << 10},
	}
	for _, c := range cases {
		var err error
		var elapsed time.Duration
		a := allocated(func() {
			start := time.Now()
			_, err = c.read()
			elapsed = time.Since(start)
		})
		if strconv.IntSize == 32 && c.name == "stream" {
			// With no size to check, the shape is too large for ints.
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "too large for this platform") {
				t.Errorf("%s: error %v, want ErrFormat", c.name, err)
			}
		} else if c.name == "stream" {
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "1000000000000 entries, more than") {
				t.Errorf("%s: error %v, want ErrFormat and the memory limit", c.name, err)
			}
		} else if !errors.Is(err, ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: error %v, want ErrFormat and io.ErrUnexpectedEOF", c.name, err)
		} else if !strings.Contains(err.Error(), "needs 8000000000000 bytes, found") {
			t.Errorf("%s: error %q does not give the sizes", c.name, err)
		}
		if elapsed > time.Second {
			t.Errorf("%s: took %v", c.name, elapsed)
		}
		if a > c.alloc {
			t.Errorf("%s: allocated %d bytes, want at most %d", c.name, a, c.alloc)
		}
	}
}

func TestHeaderLengthLimit(t *testing.T) {
	dict := numpyDict("<f8", false, "(1, 2)")
	for _, hlen := range []int{maxHeaderLen, maxHeaderLen + 1} {
		h := dict[:len(dict)-1] + strings.Repeat(" ", hlen-len(dict)) + "\n"
		data := npyBytes(2, h, enc("<f8", 1, 2))
		d, err := DecodeNPY(bytes.NewReader(data), -1, nil)
		if hlen <= maxHeaderLen {
			if err != nil {
				t.Fatalf("header of %d bytes: %v", hlen, err)
			}
			checkMatrixEquals(t, d, tensor.Float64, 1, 2, []float64{1, 2})
			continue
		}
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "exceeds the limit") {
			t.Errorf("header of %d bytes: error %v", hlen, err)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadNPY(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "is a directory") || !strings.HasPrefix(err.Error(), "datasets: "+dir) {
		t.Errorf("directory: error %v", err)
	}
	good := npyBytes(1, numpyDict("<f8", false, "(2, 3)"), enc("<f8", m23...))
	_, err = DecodeNPY(bytes.NewReader(good), -1, &ReadOptions{DType: tensor.Int})
	if err == nil || !strings.HasPrefix(err.Error(), "datasets: unsupported result dtype") {
		t.Errorf("bad result dtype: error %v", err)
	}

	// A size larger than the stream: the payload is found truncated
	// while reading.
	short := good[:len(good)-5]
	_, err = DecodeNPY(bytes.NewReader(short), int64(len(good)), nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "needs 48 bytes, found 43") {
		t.Errorf("short stream: error %v", err)
	}
	for _, k := range []int{0, 5, 9, 11, 63, 64, 100} {
		for _, size := range []int64{int64(k), -1} {
			_, err := DecodeNPY(onlyReader{bytes.NewReader(good[:k])}, size, nil)
			if !errors.Is(err, ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("truncated to %d bytes (size %d): error %v", k, size, err)
			}
		}
	}

	// An I/O error is wrapped, with its offset.
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(good[:80]), errReader{boom})
	_, err = DecodeNPY(r, -1, nil)
	if !errors.Is(err, boom) || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "at byte offset 80") {
		t.Errorf("I/O error: error %v", err)
	}
	// The same with a known size, in the middle of many chunks.
	defer func(c int) { readChunk = c }(readChunk)
	readChunk = 8000
	a := testMatrix(t, tensor.Float64, 100, 100, 1)
	for _, fortran := range []bool{false, true} {
		big := encode(t, a, &WriteOptions{Fortran: fortran})
		r = io.MultiReader(bytes.NewReader(big[:128+50000]), errReader{boom})
		_, err = DecodeNPY(r, int64(len(big)), nil)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading payload at byte offset 50128") {
			t.Errorf("I/O error, Fortran %v: error %v", fortran, err)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteNPY(t *testing.T) {
	dir := t.TempDir()
	a, err := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(append([]float64(nil), m23...))), error(nil)
	path := filepath.Join(dir, "m.npy")
	if err = WriteNPY(path, a); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := npyBytes(1, numpyDict("<f8", false, "(2, 3)"), enc("<f8", m23...))
	if !bytes.Equal(got, want) {
		t.Errorf("WriteNPY wrote\n%q\nwant\n%q", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	// Overwrite: no temporary file is left behind.
	if err := WriteNPY(path, testMatrix(t, tensor.Float32, 4, 5, 1)); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want only m.npy", entries)
	}

	bad := []struct {
		name string
		t    *tensor.Dense
		msg  string
	}{
		{"nil", nil, "nil matrix"},
		{"1-D", tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1, 2, 3})), "shape (3,) is not a 2-D matrix"},
		{"3-D", tensor.New(tensor.WithShape(1, 2, 2), tensor.WithBacking([]float64{1, 2, 3, 4})), "shape (1, 2, 2) is not a 2-D matrix"},
		{"int", tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]int{1, 2, 3, 4})), "unsupported dtype int"},
	}
	for _, b := range bad {
		for _, err := range []error{WriteNPY(filepath.Join(dir, "bad.npy"), b.t), EncodeNPY(io.Discard, b.t), Validate(b.t)} {
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), b.msg) {
				t.Errorf("%s: error %v, want %q", b.name, err, b.msg)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v after failed writes", entries)
	}
	if err := WriteNPY(filepath.Join(dir, "no", "such", "dir.npy"), a); err == nil || !strings.HasPrefix(err.Error(), "datasets: ") {
		t.Errorf("missing directory: error %v", err)
	}
	boom := errors.New("boom")
	if err := EncodeNPY(errWriter{boom}, a); !errors.Is(err, boom) {
		t.Errorf("writer error: error %v", err)
	}
}

// TestEncodeLayouts writes tensors that are not plain row-major.
func TestEncodeLayouts(t *testing.T) {
	// Column-major storage (AsFortran takes row-major data and transposes
	// it).
	f := tensor.New(tensor.WithShape(2, 3), tensor.AsFortran(append([]float64(nil), m23...)))
	if !f.DataOrder().IsColMajor() || f.Data().([]float64)[1] != 3 {
		t.Fatalf("AsFortran tensor is not stored column-major: %v", f.Data())
	}
	// A transposed 3×2 matrix.
	tr := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking(append([]float64(nil), m23F...)))
	if err := tr.T(); err != nil {
		t.Fatal(err)
	}
	// A slice of rows 1 and 2 of a 3×3 matrix.
	big := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float64{9, 9, 9, 0, 1, 2, 3, 4.5, -6, 9, 9, 9}))
	v, err := big.Slice(tensor.S(1, 3))
	if err != nil {
		t.Fatal(err)
	}
	sl := v.(*tensor.Dense)
	// A column slice (non-contiguous).
	wide := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float64{9, 0, 1, 2, 9, 3, 4.5, -6}))
	v, err = wide.Slice(nil, tensor.S(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	cs := v.(*tensor.Dense)
	for name, a := range map[string]*tensor.Dense{"fortran": f, "transposed": tr, "row slice": sl, "column slice": cs} {
		if err := Validate(a); err != nil {
			t.Errorf("%s: Validate: %v", name, err)
		}
		for _, o := range []WriteOptions{{}, {BigEndian: true}, {Fortran: true}} {
			data := encode(t, a, &o)
			d, err := DecodeNPY(bytes.NewReader(data), -1, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkMatrixEquals(t, d, tensor.Float64, 2, 3, m23)
		}
	}
	// Validate finds the first bad entry in row-major order whatever the
	// layout.
	g := tensor.New(tensor.WithShape(2, 3), tensor.AsFortran([]float64{0, math.Inf(1), 0, math.NaN(), 0, 0}))
	if err := Validate(g); !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "+Inf at (0, 1)") {
		t.Errorf("Validate: error %v, want +Inf at (0, 1)", err)
	}
}

func TestFirstNonFinite(t *testing.T) {
	for n := 0; n < 40; n++ {
		s := make([]float64, n)
		s32 := make([]float32, n)
		for i := range s {
			s[i], s32[i] = -0.0, float32(i)
		}
		if firstNonFinite(s) != -1 || firstNonFinite(s32) != -1 {
			t.Fatalf("n %d: finite slice reported", n)
		}
		for k := 0; k < n; k++ {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				s[k], s32[k] = bad, float32(bad)
				if n-1 > k {
					s[n-1], s32[n-1] = math.NaN(), float32(math.NaN())
				}
				if got, got32 := firstNonFinite(s), firstNonFinite(s32); got != k || got32 != k {
					t.Fatalf("n %d, %v at %d: got %d and %d", n, bad, k, got, got32)
				}
				for i := range s {
					s[i], s32[i] = 1e308, math.MaxFloat32
				}
			}
		}
	}
}

func TestStatNPY(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		data  any
		exact bool
		opt   *WriteOptions
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, false, nil},
		{[]float32{1, 2, 3, 4, 5, 6}, true, &WriteOptions{Fortran: true}},
	} {
		path := filepath.Join(dir, "m.npy")
		a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(c.data))
		if err := WriteNPYOptions(path, a, c.opt); err != nil {
			t.Fatal(err)
		}
		info, err := StatNPY(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != 2 || info.Cols != 3 || info.Exact32 != c.exact || info.Fortran != (c.opt != nil) {
			t.Errorf("%+v", info)
		}
	}
	if _, err := StatNPY(dir); err == nil {
		t.Error("directory: no error")
	}
	if _, err := StatNPY(filepath.Join("testdata", "1d.npy")); err == nil {
		t.Error("1-D file: no error")
	}
}

// TestNPYStreamClaim: from a stream of unknown size, a header claiming more
// entries than memory holds is refused before anything is allocated.
func TestNPYStreamClaim(t *testing.T) {
	saved := entryLimit
	defer func() { entryLimit = saved }()
	entryLimit = func(int) (int64, string) { return 1 << 20, "the test's limit" }
	hdr := npyHeaderBytes("<f8", false, 2000, 2000)
	_, err := DecodeNPY(struct{ io.Reader }{io.MultiReader(bytes.NewReader(hdr), zeros{})}, -1, nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "4000000 entries, more than the test's limit") {
		t.Errorf("error %v", err)
	}
}

var update = flag.Bool("update", false, "rewrite the golden .npy files in testdata")

// golden is a checked-in test file.
type golden struct {
	name  string
	data  []byte
	m, n  int
	want  []float64    // row-major entries when the file is valid
	dtype tensor.Dtype // default result dtype when valid
	err   error        // sentinel the error must match when invalid
	msg   string       // substring of the error message when invalid
}

var (
	m23   = []float64{0, 1, 2, 3, 4.5, -6} // 2×3, row-major
	m23F  = []float64{0, 3, 1, 4.5, 2, -6} // m23 in column-major order
	m34   = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	m34F  = []float64{1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}
	ints  = []float64{-128, -1, 0, 1, 2, 127} // fits every signed type
	uints = []float64{0, 1, 2, 100, 200, 255} // fits every unsigned type
	nan   = []float64{1, 2, 3, 4, 5, 6, math.NaN(), 8, 9, 10, 11, 12}
	inf2  = []float64{1, 2, 3, 4, 5, 6, 7, math.Inf(-1), 9, math.Inf(1), 11, 12}
)

func goldens() []golden {
	return []golden{
		// Valid files, as NumPy writes them.
		{name: "f64_c.npy", data: npyBytes(1, numpyDict("<f8", false, "(2, 3)"), enc("<f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "f32_c.npy", data: npyBytes(1, numpyDict("<f4", false, "(2, 3)"), enc("<f4", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float32},
		{name: "f64_be.npy", data: npyBytes(1, numpyDict(">f8", false, "(2, 3)"), enc(">f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "f64_fortran.npy", data: npyBytes(1, numpyDict("<f8", true, "(3, 4)"), enc("<f8", m34F...)), m: 3, n: 4, want: m34, dtype: tensor.Float64},
		{name: "f32_be_fortran.npy", data: npyBytes(1, numpyDict(">f4", true, "(2, 3)"), enc(">f4", m23F...)), m: 2, n: 3, want: m23, dtype: tensor.Float32},
		{name: "i1.npy", data: npyBytes(1, numpyDict("|i1", false, "(3, 2)"), enc("|i1", ints...)), m: 3, n: 2, want: ints, dtype: tensor.Float64},
		{name: "i2_be.npy", data: npyBytes(1, numpyDict(">i2", false, "(3, 2)"), enc(">i2", ints...)), m: 3, n: 2, want: ints, dtype: tensor.Float64},
		{name: "i4.npy", data: npyBytes(1, numpyDict("<i4", false, "(3, 2)"), enc("<i4", ints...)), m: 3, n: 2, want: ints, dtype: tensor.Float64},
		{name: "i8.npy", data: npyBytes(1, numpyDict("<i8", false, "(2, 3)"), enc("<i8", ints...)), m: 2, n: 3, want: ints, dtype: tensor.Float64},
		{name: "u1.npy", data: npyBytes(1, numpyDict("|u1", false, "(2, 3)"), enc("|u1", uints...)), m: 2, n: 3, want: uints, dtype: tensor.Float64},
		{name: "u2.npy", data: npyBytes(1, numpyDict("<u2", false, "(2, 3)"), enc("<u2", uints...)), m: 2, n: 3, want: uints, dtype: tensor.Float64},
		{name: "u4_be.npy", data: npyBytes(1, numpyDict(">u4", false, "(2, 3)"), enc(">u4", uints...)), m: 2, n: 3, want: uints, dtype: tensor.Float64},
		{name: "u8.npy", data: npyBytes(1, numpyDict("<u8", false, "(2, 3)"), enc("<u8", uints...)), m: 2, n: 3, want: uints, dtype: tensor.Float64},
		{name: "b1.npy", data: npyBytes(1, numpyDict("|b1", false, "(2, 2)"), []byte{0, 1, 1, 0}), m: 2, n: 2, want: []float64{0, 1, 1, 0}, dtype: tensor.Float64},
		{name: "i8_fortran.npy", data: npyBytes(1, numpyDict("<i8", true, "(2, 3)"), enc("<i8", -128, 1, -1, 2, 0, 127)), m: 2, n: 3, want: ints, dtype: tensor.Float64},

		// Hand-built headers.
		{name: "spaces.npy", data: npyBytes(1, "{ 'shape' : ( 2 ,3 , ) ,\t\"fortran_order\":False , 'descr':'<f8',   }   \n", enc("<f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "unpadded.npy", data: npyBytes(1, "{'descr':'<f8','fortran_order':False,'shape':(2,3)}", enc("<f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "py2_long.npy", data: npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }\n", enc("<f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "v2.npy", data: npyBytes(2, numpyDict("<f8", false, "(2, 3)")+"  ", enc("<f8", m23...)), m: 2, n: 3, want: m23, dtype: tensor.Float64},
		{name: "v3_fortran.npy", data: npyBytes(3, numpyDict("<f4", true, "(3, 4)")+"  ", enc("<f4", m34F...)), m: 3, n: 4, want: m34, dtype: tensor.Float32},
		{name: "trailing_data.npy", data: append(npyBytes(1, numpyDict("<f8", false, "(2, 3)"), enc("<f8", m23...)), "extra"...), m: 2, n: 3, want: m23, dtype: tensor.Float64},

		// Invalid files.
		{name: "nan.npy", data: npyBytes(1, numpyDict("<f8", false, "(3, 4)"), enc("<f8", nan...)), err: ErrNotFinite, msg: "NaN at (1, 2) at byte offset 176"},
		{name: "inf_fortran.npy", data: npyBytes(1, numpyDict("<f8", true, "(3, 4)"), enc("<f8", inf2...)), err: ErrNotFinite, msg: "+Inf at (0, 3)"},
		{name: "inf_f32.npy", data: npyBytes(1, numpyDict("<f4", false, "(3, 4)"), enc("<f4", inf2...)), err: ErrNotFinite, msg: "-Inf at (1, 3)"},
		{name: "3d.npy", data: npyBytes(1, numpyDict("<f8", false, "(2, 2, 2)"), enc("<f8", 1, 2, 3, 4, 5, 6, 7, 8)), err: ErrFormat, msg: "shape (2, 2, 2) is not a 2-D matrix"},
		{name: "1d.npy", data: npyBytes(1, numpyDict("<f8", false, "(4,)"), enc("<f8", 1, 2, 3, 4)), err: ErrFormat, msg: "shape (4,) is not a 2-D matrix"},
		{name: "0d.npy", data: npyBytes(1, numpyDict("<f8", false, "()"), enc("<f8", 1)), err: ErrFormat, msg: "shape () is not a 2-D matrix"},
		{name: "empty.npy", data: npyBytes(1, numpyDict("<f8", false, "(0, 3)"), nil), err: ErrFormat, msg: "empty matrix of shape (0, 3)"},
		{name: "truncated.npy", data: npyBytes(1, numpyDict("<f8", false, "(4, 4)"), make([]byte, 100)), err: ErrFormat, msg: "payload starting at byte offset 128 truncated: shape (4, 4) of \"<f8\" needs 128 bytes, found 100"},
		{name: "truncated_header.npy", data: npyBytes(1, numpyDict("<f8", false, "(4, 4)"), nil)[:40], err: ErrFormat, msg: "header starting at byte offset 10 truncated: expected 118 bytes, found 30"},
		{name: "huge.npy", data: npyBytes(1, numpyDict("<f8", false, "(1000000, 1000000)"), make([]byte, 16)), err: ErrFormat, msg: "needs 8000000000000 bytes, found 16"},
		{name: "overflow.npy", data: npyBytes(1, numpyDict("<f8", false, "(9223372036854775807, 3)"), nil), err: ErrFormat, msg: "too large"},
		{name: "hdrlen.npy", data: append(append([]byte(npyMagic), 2, 0), 0xff, 0xff, 0xff, 0x7f, '{'), err: ErrFormat, msg: "header length 2147483647 exceeds the limit"},
		{name: "c16.npy", data: npyBytes(1, numpyDict("<c16", false, "(1, 1)"), make([]byte, 16)), err: ErrFormat, msg: `unsupported dtype "<c16"`},
		{name: "object.npy", data: npyBytes(1, numpyDict("|O", false, "(1, 1)"), make([]byte, 8)), err: ErrFormat, msg: `unsupported dtype "|O"`},
		{name: "unicode.npy", data: npyBytes(1, numpyDict("<U3", false, "(1, 1)"), make([]byte, 12)), err: ErrFormat, msg: `unsupported dtype "<U3"`},
		{name: "f2.npy", data: npyBytes(1, numpyDict("<f2", false, "(1, 1)"), make([]byte, 2)), err: ErrFormat, msg: `unsupported dtype "<f2"`},
		{name: "structured.npy", data: npyBytes(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 1), }\n", make([]byte, 8)), err: ErrFormat, msg: "structured arrays are not supported"},
		{name: "bad_magic.npy", data: []byte("\x93NUMPZ\x01\x00\x00\x00"), err: ErrFormat, msg: "bad magic"},
		{name: "version4.npy", data: npyBytes(4, numpyDict("<f8", false, "(1, 1)"), make([]byte, 8)), err: ErrFormat, msg: "unsupported npy format version 4.0 at byte offset 6"},
		{name: "missing_key.npy", data: npyBytes(1, "{'descr': '<f8', 'shape': (1, 1)}", make([]byte, 8)), err: ErrFormat, msg: "no 'fortran_order' key"},
		{name: "dup_key.npy", data: npyBytes(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 1)}", make([]byte, 8)), err: ErrFormat, msg: "duplicate header key 'descr'"},
		{name: "extra_key.npy", data: npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), 'x': 1}", make([]byte, 8)), err: ErrFormat, msg: `unexpected header key "x"`},
		{name: "negative_dim.npy", data: npyBytes(1, numpyDict("<f8", false, "(-1, 2)"), make([]byte, 8)), err: ErrFormat, msg: "non-negative integers"},
		{name: "bad_syntax.npy", data: npyBytes(1, "{'descr': '<f8' 'fortran_order': False}", nil), err: ErrFormat, msg: "malformed header: expected ',' or '}' in header at byte offset 26"},
		{name: "short.npy", data: []byte("\x93NUMPY"), err: ErrFormat, msg: "too short"},
	}
}

// TestGoldenFiles checks the files in testdata against their definitions
// above and reads them. Run with -update to rewrite them.
func TestGoldenFiles(t *testing.T) {
	for _, g := range goldens() {
		path := filepath.Join("testdata", g.name)
		if *update {
			if err := os.WriteFile(path, g.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestGoldenFiles -update to create the golden files)", err)
		}
		if !bytes.Equal(got, g.data) {
			t.Errorf("%s differs from its definition (run with -update)", path)
		}
	}
}

func TestReadGolden(t *testing.T) {
	for _, g := range goldens() {
		t.Run(g.name, func(t *testing.T) {
			path := filepath.Join("testdata", g.name)
			d, err := ReadNPY(path, nil)
			if g.want == nil {
				if err == nil {
					t.Fatalf("ReadNPY succeeded, want error matching %v", g.err)
				}
				if !errors.Is(err, g.err) {
					t.Errorf("error %q does not match %v", err, g.err)
				}
				if !strings.HasPrefix(err.Error(), "datasets: "+path+": ") {
					t.Errorf("error %q does not start with %q", err, "datasets: "+path+": ")
				}
				if !strings.Contains(err.Error(), g.msg) {
					t.Errorf("error %q does not contain %q", err, g.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkMatrixEquals(t, d, g.dtype, g.m, g.n, g.want)

			// The same through DecodeNPY, with sizes known and unknown,
			// and converted to both dtypes.
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				for _, size := range []int64{int64(len(g.data)), -1} {
					var r io.Reader = bytes.NewReader(g.data)
					if size < 0 {
						r = onlyReader{r}
					}
					d, err := DecodeNPY(r, size, &ReadOptions{DType: dt})
					if err != nil {
						t.Fatalf("DecodeNPY(size %d, %v): %v", size, dt, err)
					}
					checkMatrixEquals(t, d, dt, g.m, g.n, g.want)
				}
			}
		})
	}
}

// benchRows×benchCols float64 is 1 GiB.
const benchRows, benchCols = 16384, 8192

// BenchmarkReadNPY reads 1 GiB .npy files written to os.TempDir(), which
// are in the page cache right after they are written, with several chunk
// sizes and conversions. It is skipped in -short mode. Run it with
//
//	go test -run X -bench ReadNPY -benchtime 5x ./datasets/
func BenchmarkReadNPY(b *testing.B) {
	if testing.Short() {
		b.Skip("skipping 1 GiB files in -short mode")
	}
	dir, err := os.MkdirTemp("", "datasets-bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	var a *tensor.Dense
	files := map[string]string{}
	file := func(b *testing.B, name string, o *WriteOptions) string {
		if p, ok := files[name]; ok {
			return p
		}
		if a == nil {
			if a, err = Uniform(tensor.Float64, benchRows, benchCols, -1, 1, 1); err != nil {
				b.Fatal(err)
			}
		}
		p := filepath.Join(dir, name+".npy")
		if err := WriteNPYOptions(p, a, o); err != nil {
			b.Fatal(err)
		}
		files[name] = p
		return p
	}
	read := func(b *testing.B, path string, opt *ReadOptions, chunk int) {
		defer func(c int) { readChunk = c }(readChunk)
		readChunk = chunk
		fileBytes(b, path)
		runtime.GC()
		b.ResetTimer()
		for b.Loop() {
			if _, err := ReadNPY(path, opt); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Baseline: the file read into a reused buffer, no checks.
	b.Run("baseline-read", func(b *testing.B) {
		path := file(b, "le", nil)
		fi, _ := os.Stat(path)
		buf := make([]byte, fi.Size())
		b.SetBytes(fi.Size())
		b.ResetTimer()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(f, buf); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	for _, chunk := range []int{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 64 << 20, math.MaxInt} {
		name := fmt.Sprintf("f64/chunk=%dMiB", chunk>>20)
		if chunk == math.MaxInt {
			name = "f64/whole"
		}
		b.Run(name, func(b *testing.B) { read(b, file(b, "le", nil), nil, chunk) })
	}
	b.Run("f64-to-f32", func(b *testing.B) {
		read(b, file(b, "le", nil), &ReadOptions{DType: tensor.Float32}, readChunk)
	})
	b.Run("f64-big-endian", func(b *testing.B) {
		read(b, file(b, "be", &WriteOptions{BigEndian: true}), nil, readChunk)
	})
	b.Run("f64-fortran", func(b *testing.B) {
		read(b, file(b, "fortran", &WriteOptions{Fortran: true}), nil, readChunk)
	})
}

// BenchmarkDecodeNPYSmall decodes a 16 MiB matrix from memory.
func BenchmarkDecodeNPYSmall(b *testing.B) {
	a, err := Uniform(tensor.Float64, 1024, 2048, -1, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeNPY(&buf, a); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeNPY(bytes.NewReader(data), int64(len(data)), nil); err != nil {
			b.Fatal(err)
		}
	}
}
