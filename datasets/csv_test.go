package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

func TestCSVFixtures(t *testing.T) {
	tests := []struct {
		file string
		dt   tensor.Dtype
		m, n int
		want []float64
	}{
		// numpy.savetxt's default: '%.18e', space-separated.
		{"csv_savetxt_space.csv", tensor.Float64, 3, 4, fixC},
		// With delimiter ',' and a header, written as a comment.
		{"csv_savetxt_comma.csv", tensor.Float64, 2, 3, fixA},
		{"csv_savetxt_comma.csv", tensor.Float32, 2, 3, fixA},
		// Float32 values printed with '%.9g', tab-separated.
		{"csv_savetxt_tab.csv", tensor.Float32, 3, 2, fixB},
		// A byte order mark, a quoted header, comments, blank lines,
		// quotes and "\r\n".
		{"csv_header_quotes.csv", tensor.Float64, 2, 3, []float64{1, 2.5, -3e-2, 4, 5, 6}},
		{"csv_one_row.csv", tensor.Float64, 1, 3, []float64{1, 2, 3}},
	}
	for _, tc := range tests {
		path := filepath.Join("testdata", tc.file)
		d, err := ReadCSV(path, &ReadOptions{DType: tc.dt})
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		checkMatrixEquals(t, d, tc.dt, tc.m, tc.n, tc.want)
	}
}

// csvMatrix returns an m×n matrix of entries of random signs, mantissas
// and exponents (from 1e-300 to 1e300 in float64, 1e-38 to 1e38 in
// float32), with some zeros and small integers, to test exact round
// trips.
func csvMatrix(dt tensor.Dtype, m, n int, seed uint64) *tensor.Dense {
	r := rand.New(rand.NewPCG(seed, 0))
	maxExp := 300
	if dt == tensor.Float32 {
		maxExp = 37
	}
	v := make([]float64, m*n)
	for k := range v {
		switch r.IntN(8) {
		case 0:
			v[k] = 0
		case 1:
			v[k] = float64(r.IntN(201) - 100)
		default:
			v[k] = (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(2*maxExp+1)-maxExp))
		}
	}
	if dt == tensor.Float32 {
		w := make([]float32, len(v))
		for k, x := range v {
			w[k] = float32(x)
		}
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(w))
	}
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(v))
}

func TestCSVRoundTrip(t *testing.T) {
	dir := t.TempDir()
	shapes := [][2]int{{1, 1}, {1, 9}, {9, 1}, {31, 17}}
	opts := []WriteOptions{{}, {Header: true}, {Comma: '\t'}, {Comma: ' ', Header: true}, {Comma: ','}}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, sh := range shapes {
			for k, o := range opts {
				a := csvMatrix(dt, sh[0], sh[1], uint64(10*sh[0]+sh[1]))
				path := filepath.Join(dir, fmt.Sprintf("%v-%d-%d-%d.csv", dt, sh[0], sh[1], k))
				if err := WriteCSV(path, a, &o); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
					t.Fatalf("mode %v, %v", fi.Mode(), err)
				}
				d, err := ReadCSV(path, &ReadOptions{DType: dt})
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				// Exact: the shortest representation reads back to
				// the same bits.
				checkMatrixEquals(t, d, dt, sh[0], sh[1], float64s(t, a))
				// From a stream of unknown size too.
				data, _ := os.ReadFile(path)
				e, err := DecodeCSV(onlyReader{bytes.NewReader(data)}, &ReadOptions{DType: dt})
				if err != nil {
					t.Fatal(err)
				}
				checkMatrixEquals(t, e, dt, sh[0], sh[1], float64s(t, a))
			}
		}
	}
	// Float32 files read as Float64 by default.
	path := filepath.Join(dir, "f32.csv")
	a := csvMatrix(tensor.Float32, 3, 4, 1)
	if err := WriteCSV(path, a, nil); err != nil {
		t.Fatal(err)
	}
	d, err := ReadCSV(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := float64s(t, a)
	got := float64s(t, d)
	for k := range want {
		// The shortest float32 form read as float64 is within
		// half a float32 unit of the float32 value.
		if e := math.Abs(got[k] - want[k]); e > math.Abs(want[k])*0x1p-24 {
			t.Errorf("entry %d: %v, want %v (float32)", k, got[k], want[k])
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2*len(shapes)*len(opts)+1 {
		t.Errorf("directory holds %d files, want %d: temporary files left", len(entries), 2*len(shapes)*len(opts)+1)
	}
}

func TestEncodeCSV(t *testing.T) {
	a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{0.5, -1.25, 1e-300, 2, -0.1, 1e21}))
	f := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{0.1, 3, float32(math.Copysign(0, -1)), 16777216}))
	tr := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{0.5, 2, -1.25, -0.1, 1e-300, 1e21}))
	if err := tr.T(); err != nil {
		t.Fatal(err)
	}
	wide := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float64{9, 0.5, -1.25, 1e-300, 9, 2, -0.1, 1e21}))
	v, err := wide.Slice(nil, tensor.S(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	cs := v.(*tensor.Dense)
	nan := tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}))
	tests := []struct {
		name string
		t    *tensor.Dense
		o    *WriteOptions
		want string
	}{
		{"default", a, nil, "0.5,-1.25,1e-300\n2,-0.1,1e+21\n"},
		{"header", a, &WriteOptions{Header: true}, "c0,c1,c2\n0.5,-1.25,1e-300\n2,-0.1,1e+21\n"},
		{"tab", a, &WriteOptions{Comma: '\t', Header: true}, "c0\tc1\tc2\n0.5\t-1.25\t1e-300\n2\t-0.1\t1e+21\n"},
		{"space", a, &WriteOptions{Comma: ' '}, "0.5 -1.25 1e-300\n2 -0.1 1e+21\n"},
		{"float32", f, nil, "0.1,3\n-0,1.6777216e+07\n"},
		{"transposed", tr, nil, "0.5,-1.25,1e-300\n2,-0.1,1e+21\n"},
		{"column slice", cs, nil, "0.5,-1.25,1e-300\n2,-0.1,1e+21\n"},
		{"non-finite", nan, nil, "NaN,+Inf,-Inf\n"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := EncodeCSV(&buf, tc.t, tc.o); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if buf.String() != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.name, buf.String(), tc.want)
		}
	}
	// A long row is written in pieces.
	big := csvMatrix(tensor.Float64, 3, 20000, 1)
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, big, &WriteOptions{Header: true}); err != nil {
		t.Fatal(err)
	}
	d, err := DecodeCSV(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 3, 20000, float64s(t, big))

	// Errors.
	boom := errors.New("boom")
	if err := EncodeCSV(errWriter{boom}, a, &WriteOptions{Header: true}); !errors.Is(err, boom) {
		t.Errorf("write error: %v", err)
	}
	if err := EncodeCSV(io.Discard, a, &WriteOptions{Comma: ';'}); err == nil || !strings.Contains(err.Error(), `unsupported CSV separator ';'`) {
		t.Errorf("separator ';': error %v", err)
	}
	ints := tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]int{1, 2}))
	vec := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2}))
	for _, x := range []*tensor.Dense{nil, ints, vec} {
		if err := EncodeCSV(io.Discard, x, nil); !errors.Is(err, ErrFormat) {
			t.Errorf("bad tensor: error %v", err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.csv")
	if err := WriteCSV(path, a, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(path, ints, nil); !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), "datasets: "+path+": unsupported dtype") {
		t.Errorf("WriteCSV of ints: error %v", err)
	}
	if err := WriteCSV(path, a, &WriteOptions{Comma: ';'}); err == nil || !strings.HasPrefix(err.Error(), "datasets: "+path+": unsupported CSV separator") {
		t.Errorf("WriteCSV with ';': error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != tests[0].want {
		t.Errorf("failed writes changed the file: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want x.csv alone", entries)
	}
}

func TestDecodeCSV(t *testing.T) {
	type result struct {
		m, n int
		want []float64
	}
	ok := func(m, n int, v ...float64) result { return result{m, n, v} }
	f32 := tensor.Float32
	tests := []struct {
		name string
		in   string
		dt   tensor.Dtype // Float64 if nil
		res  result
		kind error  // ErrFormat or ErrNotFinite for an error
		msg  string // the message after "datasets: "
	}{
		{name: "comma", in: "1,2\n3,4\n", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "no final newline", in: "1,2\n3,4", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "spaces and tabs", in: "1 2\n3\t  4\n", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "blanks around fields", in: " \t1 ,  2\t\n3,4  \n", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "comments and blank lines", in: "# a\n\n  # b\n1,2\n\n \t\n# c\n3,4\n\n", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "crlf", in: "1,2\r\n3,4\r\n", res: ok(2, 2, 1, 2, 3, 4)},
		{name: "bom", in: "\xef\xbb\xbf1 2\n", res: ok(1, 2, 1, 2)},
		{name: "header", in: "a,b\n1,2\n", res: ok(1, 2, 1, 2)},
		{name: "whitespace header", in: "a b c\n1 2 3\n", res: ok(1, 3, 1, 2, 3)},
		{name: "whitespace header, comma rows", in: "a b c\n1,2,3\n", res: ok(1, 3, 1, 2, 3)},
		{name: "comma header, whitespace rows", in: "a,b c\n1 2\n", res: ok(1, 2, 1, 2)},
		{name: "index header", in: ",a,b\n0,1,2\n", res: ok(1, 3, 0, 1, 2)},
		{name: "quotes", in: "\"a\",\"b,c\"\n\"1\", \"2\"\n", res: ok(1, 2, 1, 2)},
		{name: "quoted space fields", in: "\"a b\" c\n\"1\" 2\n", res: ok(1, 2, 1, 2)},
		{name: "single column", in: "1\n2\n3\n", res: ok(3, 1, 1, 2, 3)},
		{name: "number syntax", in: "+1,-2.5,.5,5.,1E3,0x1p-2,1_0\n", res: ok(1, 7, 1, -2.5, 0.5, 5, 1000, 0.25, 10)},
		{name: "underflow", in: "1e-400,-1e-400,4.9e-324\n", res: ok(1, 3, 0, 0, 5e-324)},
		{name: "float32 rounding", in: "0.1,16777217,1e-46\n", dt: f32, res: ok(1, 3, 0.1, 16777216, 0)},
		{name: "float32 max", in: "3.4028234e38\n", dt: f32, res: ok(1, 1, math.MaxFloat32)},

		{name: "empty", in: "", kind: ErrFormat, msg: "no rows of numbers"},
		{name: "blank", in: "\n \n# x\n", kind: ErrFormat, msg: "no rows of numbers"},
		{name: "header only", in: "a,b\n", kind: ErrFormat, msg: "no rows of numbers after the header row"},
		{name: "header with numbers", in: "x, 2020\n1,2\n", kind: ErrFormat, msg: `the first row mixes numbers and text ("x"): a header row has no numbers and a data row no text; fix it, or make it a comment with '#' at line 1, column 1`},
		{name: "typo in the first row", in: "1,2,x\n3,4,5\n", kind: ErrFormat, msg: `the first row mixes numbers and text ("x"): a header row has no numbers and a data row no text; fix it, or make it a comment with '#' at line 1, column 3`},
		{name: "ragged short", in: "1,2,3\n4,5,6\n\n7,8\n", kind: ErrFormat, msg: "row has 2 fields, want 3 at line 4"},
		{name: "ragged long", in: "1 2\n3 4 5 6\n", kind: ErrFormat, msg: "row has 4 fields, want 2 at line 2"},
		{name: "header mismatch", in: "a,b,c\n1,2\n", kind: ErrFormat, msg: "header row has 3 fields, the first row 2 at line 1"},
		{name: "bad number", in: "1,2\n3,x\n", kind: ErrFormat, msg: `bad number "x" at line 2, column 2`},
		{name: "bad first row", in: "1,,2\n", kind: ErrFormat, msg: "empty field at line 1, column 2"},
		{name: "trailing comma", in: "1,2\n3,4,\n", kind: ErrFormat, msg: "row has 3 fields, want 2 at line 2"},
		{name: "empty field", in: "1,2\n,4\n", kind: ErrFormat, msg: "empty field at line 2, column 1"},
		{name: "inline comment", in: "1,2\n3,4 # x\n", kind: ErrFormat, msg: `bad number "4 # x" at line 2, column 2`},
		{name: "comma in whitespace text", in: "1 2\n3,4 5\n", kind: ErrFormat, msg: `bad number "3,4" at line 2, column 1`},
		{name: "long bad field", in: "1\n" + strings.Repeat("9", 50) + "x\n", kind: ErrFormat, msg: `bad number "9999999999999999999999999999999999999999..." at line 2, column 1`},
		{name: "unterminated quote", in: "1,\"2\n", kind: ErrFormat, msg: "unterminated quoted field at line 1, column 2"},
		{name: "text after quote", in: "1,2\n\"3\"x,4\n", kind: ErrFormat, msg: "text after a quoted field at line 2, column 1"},
		{name: "bad quote in long row", in: "1,2\n3,4,\"5\n", kind: ErrFormat, msg: "unterminated quoted field at line 2, column 3"},
		{name: "nan", in: "1,2\nnan,4\n", kind: ErrNotFinite, msg: "non-finite entry NaN at (1, 0) at line 2, column 1"},
		{name: "NaN header-like first row", in: "NaN 1\n", kind: ErrNotFinite, msg: "non-finite entry NaN at (0, 0) at line 1, column 1"},
		{name: "inf", in: "# c\n1,inf\n", kind: ErrNotFinite, msg: "non-finite entry +Inf at (0, 1) at line 2, column 2"},
		{name: "-Inf", in: "1 2\n3 -Inf\n", kind: ErrNotFinite, msg: "non-finite entry -Inf at (1, 1) at line 2, column 2"},
		{name: "infinity", in: "a,b\n1,-infinity\n", kind: ErrNotFinite, msg: "non-finite entry -Inf at (0, 1) at line 2, column 2"},
		{name: "quoted nan", in: "\"nan\"\n", kind: ErrNotFinite, msg: "non-finite entry NaN at (0, 0) at line 1, column 1"},
		{name: "overflow", in: "1,2\n3,1e999\n", kind: ErrNotFinite, msg: "entry 1e999 at (1, 1) overflows float64 at line 2, column 2"},
		{name: "float32 overflow", in: "1e39\n", dt: f32, kind: ErrNotFinite, msg: "entry 1e39 at (0, 0) overflows float32 at line 1, column 1: entries reach 1e+39: read them scaled (ReadScaled) or as float64"},
		{name: "float32 nan", in: "1 NaN\n", dt: f32, kind: ErrNotFinite, msg: "non-finite entry NaN at (0, 1) at line 1, column 2"},
	}
	for _, tc := range tests {
		dt := tc.dt
		if dt.Type == nil {
			dt = tensor.Float64
		}
		for _, stream := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if stream {
				r = onlyReader{r}
			}
			d, err := DecodeCSV(r, &ReadOptions{DType: tc.dt})
			if tc.kind != nil {
				if d != nil || !errors.Is(err, tc.kind) || err.Error() != "datasets: "+tc.msg {
					t.Errorf("%s: error %v, want %v: %q", tc.name, err, tc.kind, tc.msg)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			checkMatrixEquals(t, d, dt, tc.res.m, tc.res.n, tc.res.want)
		}
	}
	if _, err := DecodeCSV(strings.NewReader("1"), &ReadOptions{DType: tensor.Int}); err == nil || !strings.Contains(err.Error(), "unsupported result dtype") {
		t.Errorf("bad dtype: error %v", err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCSV(dir, nil); err == nil || err.Error() != "datasets: "+dir+": is a directory, not a csv file" {
		t.Errorf("directory: error %v", err)
	}
	if _, err := ReadCSV(dir, &ReadOptions{DType: tensor.Int}); err == nil || !strings.Contains(err.Error(), "unsupported result dtype") {
		t.Errorf("bad dtype: error %v", err)
	}
	for _, tc := range []struct {
		in   string
		kind error
		msg  string
	}{
		{"", ErrFormat, "no rows of numbers"},
		{"1,2\n3\n", ErrFormat, "row has 1 fields, want 2 at line 2"},
		{"1,2\n3,a\n", ErrFormat, `bad number "a" at line 2, column 2`},
		{"1,2\n3,NaN\n", ErrNotFinite, "non-finite entry NaN at (1, 1) at line 2, column 2"},
	} {
		path := filepath.Join(dir, "x.csv")
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCSV(path, nil)
		if !errors.Is(err, tc.kind) || err.Error() != "datasets: "+path+": "+tc.msg {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.msg)
		}
	}
	// An I/O error is not a format error.
	boom := errors.New("boom")
	_, err := DecodeCSV(io.MultiReader(strings.NewReader("1,2\n3,4\n"), errReader{boom}), nil)
	if !errors.Is(err, boom) || errors.Is(err, ErrFormat) || err.Error() != "datasets: reading at byte offset 8: boom" {
		t.Errorf("I/O error: error %v", err)
	}
}

func TestCSVLongLines(t *testing.T) {
	// Rows of 100 000 fields, longer than the read buffer.
	a := csvMatrix(tensor.Float64, 3, 100000, 7)
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, a, nil); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if len(data)/3 < 2*csvBuffer {
		t.Fatalf("rows of %d bytes are not long", len(data)/3)
	}
	d, err := DecodeCSV(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 3, 100000, float64s(t, a))

	// The line length limit.
	defer func(n int) { csvMaxLine = n }(csvMaxLine)
	csvMaxLine = bytes.IndexByte(data, '\n') - 100
	_, err = DecodeCSV(bytes.NewReader(data), nil)
	if !errors.Is(err, ErrFormat) || err.Error() != fmt.Sprintf("datasets: line longer than %d bytes at line 1", csvMaxLine) {
		t.Errorf("long line: error %v", err)
	}
	// A stream without line breaks stops at the limit.
	csvMaxLine = 1 << 20
	_, err = DecodeCSV(io.LimitReader(zeros{}, 1<<30), nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "line longer than") {
		t.Errorf("endless line: error %v", err)
	}
}

// zeros is an endless stream of '0'.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = '0'
	}
	return len(b), nil
}

func TestCSVMemory(t *testing.T) {
	// However many fields a line has, the memory is a small multiple of
	// the input: the values (8 bytes for at least 2 input bytes), the
	// line (when longer than the read buffer), the read buffer.
	for _, in := range []string{
		strings.Repeat("1,", 1<<19) + "1\n",
		strings.Repeat("1 ", 1<<19) + "1\n",
		strings.Repeat("1\n", 1<<19),
		"1,2,3\n" + strings.Repeat("1.2345678,2.3456789,3.4567891\n", 1<<15),
		"1.2345678,2.3456789,3.4567891\n" + strings.Repeat("1,2,3\n", 1<<17),
		strings.Repeat("1.2345678,2.3456789,3.4567891\n", 1<<14) + strings.Repeat("1,2,3\n", 1<<17),
	} {
		for _, r := range []func() io.Reader{
			func() io.Reader { return strings.NewReader(in) },
			func() io.Reader { return onlyReader{strings.NewReader(in)} },
		} {
			var err error
			runtime.GC()
			a := allocated(func() { _, err = DecodeCSV(r(), nil) })
			if err != nil {
				t.Fatal(err)
			}
			if bound := uint64(20*len(in) + 2*csvBuffer); a > bound {
				t.Errorf("input of %d bytes (%q...): allocated %d bytes, more than %d", len(in), in[:10], a, bound)
			}
		}
	}
	// The values are not allocated one by one.
	in := strings.Repeat("1.5,-2.25,3e-7,4\n", 1000)
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := DecodeCSV(strings.NewReader(in), nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("%v allocations reading 4000 entries", allocs)
	}
}

// BenchmarkReadCSV reads a 2000×2000 matrix of random float64 entries
// printed in full (about 77 MB) from a temporary file; the reported MB/s
// are of the file. Run it with
//
//	go test -run X -bench ReadCSV -benchtime 5x ./datasets/
func BenchmarkReadCSV(b *testing.B) {
	for _, tc := range []struct {
		name string
		dt   tensor.Dtype
		o    WriteOptions
	}{
		{"f64-comma", tensor.Float64, WriteOptions{}},
		{"f64-space", tensor.Float64, WriteOptions{Comma: ' '}},
		{"f32-comma", tensor.Float32, WriteOptions{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a, err := Uniform(tc.dt, 2000, 2000, -1, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			path := benchFile(b, "a.csv", func(p string) error { return WriteCSV(p, a, &tc.o) })
			for b.Loop() {
				if _, err := ReadCSV(path, &ReadOptions{DType: tc.dt}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteCSV writes a 1000×1000 float64 matrix to memory.
func BenchmarkWriteCSV(b *testing.B) {
	a, err := Uniform(tensor.Float64, 1000, 1000, -1, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, a, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := EncodeCSV(&buf, a, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// endlessRows is an endless CSV stream of the row "1,2".
type endlessRows struct{}

func (endlessRows) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = "1,2\n"[i%4]
	}
	return len(b) / 4 * 4, nil
}

// TestCSVEndless: an endless stream of rows stops with an error at the
// memory limit instead of growing without bound.
func TestCSVEndless(t *testing.T) {
	saved := entryLimit
	defer func() { entryLimit = saved }()
	entryLimit = func(int) (int64, string) { return 1 << 20, "the test's limit" }
	_, err := DecodeCSV(endlessRows{}, nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "more than 1048576 entries, more than the test's limit") {
		t.Errorf("error %v", err)
	}
}
