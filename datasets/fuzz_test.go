package datasets

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// addFiles adds the files of testdata matching pattern to the corpus of
// f, once with each of modes (mode 0 if none is given).
func addFiles(f *testing.F, pattern string, modes ...uint8) {
	if len(modes) == 0 {
		modes = []uint8{0}
	}
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatalf("no files match testdata/%s", pattern)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, mode := range modes {
			f.Add(data, mode)
		}
	}
}

// fuzzOptions returns the read options that mode % 3 selects: the file's
// own dtype, Float64 or Float32.
func fuzzOptions(mode uint8) *ReadOptions {
	return &ReadOptions{DType: [...]tensor.Dtype{{}, tensor.Float64, tensor.Float32}[mode%3]}
}

// checkDecoded checks a result of a decoder given opt: on error, that it
// is an ErrFormat or ErrNotFinite error with the package prefix and no
// result; otherwise that the result is a valid matrix of the dtype asked
// for.
func checkDecoded(t *testing.T, d *tensor.Dense, err error, opt *ReadOptions) bool {
	t.Helper()
	if err != nil {
		if d != nil {
			t.Errorf("non-nil result with error %v", err)
		}
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrNotFinite) {
			t.Errorf("error %v is neither ErrFormat nor ErrNotFinite", err)
		}
		if !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("error %q lacks the prefix", err)
		}
		return false
	}
	if err := Validate(d); err != nil {
		t.Errorf("result does not validate: %v", err)
	}
	if opt.DType.Type != nil && d.Dtype() != opt.DType {
		t.Errorf("dtype %v, want %v", d.Dtype(), opt.DType)
	}
	s := d.Shape()
	if n := len(float64s(t, d)); len(s) != 2 || n != s[0]*s[1] {
		t.Errorf("shape %v with %d entries", s, n)
	}
	return true
}

// sameEntries checks that d and e have the same shape, dtype and bits.
func sameEntries(t *testing.T, d, e *tensor.Dense) {
	t.Helper()
	if d.Dtype() != e.Dtype() || !d.Shape().Eq(e.Shape()) {
		t.Fatalf("re-read %v %v, want %v %v", e.Dtype(), e.Shape(), d.Dtype(), d.Shape())
	}
	a, b := float64s(t, d), float64s(t, e)
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			t.Fatalf("re-read entry %d = %v, want %v", k, b[k], a[k])
		}
	}
}

// FuzzDecodeNPY checks that DecodeNPY never panics, that every error is
// ErrFormat or ErrNotFinite with the package prefix, that every result is
// a valid matrix, and that the memory allocated is bounded by a multiple
// of the input size.
func FuzzDecodeNPY(f *testing.F) {
	addFiles(f, "*.npy")
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzOptions(mode)
		known := mode&4 == 0
		var d *tensor.Dense
		var err error
		a := allocated(func() {
			if known {
				d, err = DecodeNPY(bytes.NewReader(data), int64(len(data)), opt)
			} else {
				d, err = DecodeNPY(onlyReader{bytes.NewReader(data)}, -1, opt)
			}
		})
		// The result takes at most 8 bytes per input byte, the read
		// buffers as much again, and the header is copied once. With
		// an unknown size the first allocation of the result (and of
		// the conversion buffer, up to twice as large) is made before
		// any data is seen, and later ones grow with the data.
		bound := uint64(24*len(data) + 64<<10)
		if !known {
			bound += 3*initialUnknown + 2*uint64(len(data))
		}
		if a > bound {
			t.Errorf("allocated %d bytes for %d input bytes (bound %d)", a, len(data), bound)
		}
		if !checkDecoded(t, d, err, opt) {
			return
		}
		// What was read writes back and reads again to the same.
		var buf bytes.Buffer
		if err := EncodeNPY(&buf, d); err != nil {
			t.Fatal(err)
		}
		e, err := DecodeNPY(&buf, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameEntries(t, d, e)
	})
}

// FuzzDecodeNPZ checks that DecodeNPZ never panics, that every error is
// ErrFormat or ErrNotFinite with the package prefix, that every result is
// a valid matrix, and that the memory allocated is bounded by what the
// archive can hold (deflate expands at most 1032-fold, and a float64
// result takes at most 8 bytes per byte of a member).
func FuzzDecodeNPZ(f *testing.F) {
	addFiles(f, "npz_*.npz")
	good := npyOf(f, 2, 3, fixA...)
	f.Add(makeZip(f, rawMember{name: "a.npy", data: good, deflate: true, usize: 1 << 40}), uint8(0))
	f.Add(makeZip(f, rawMember{name: "a.npy", data: good, badCRC: true}), uint8(1))
	f.Add(makeZip(f, rawMember{name: "a.npy", data: npyOf(f, 1, 2, 1, math.Inf(1)), deflate: true}), uint8(2))
	f.Add(makeZip(f, rawMember{name: "a", data: good}, rawMember{name: "b.npy", data: good}), uint8(3))
	f.Add(makeZip(f, rawMember{name: "arr_0.npy", data: append(npyHeaderBytes("<f8", false, 1<<20, 1<<10), make([]byte, 4096)...), deflate: true}), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzOptions(mode)
		switch mode / 3 % 4 {
		case 1:
			opt.Key = "a"
		case 2:
			opt.Key = "b.npy"
		case 3:
			opt.Key = "arr_0"
		}
		var d *tensor.Dense
		var err error
		a := allocated(func() { d, err = DecodeNPZ(bytes.NewReader(data), int64(len(data)), opt) })
		if bound := uint64(2*8*maxDeflateRatio*len(data) + 4<<20); a > bound {
			t.Errorf("allocated %d bytes for %d input bytes (bound %d)", a, len(data), bound)
		}
		if !checkDecoded(t, d, err, opt) {
			return
		}
		// What was read writes back and reads again to the same.
		var buf bytes.Buffer
		if err := encodeNPZ(&buf, []Array{{"k", d}}, WriteOptions{Compress: mode&1 != 0}); err != nil {
			t.Fatal(err)
		}
		e, err := DecodeNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ReadOptions{Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		sameEntries(t, d, e)
	})
}

// FuzzDecodeCSV checks that DecodeCSV never panics, that every error is
// ErrFormat or ErrNotFinite with the package prefix, that every result is
// a valid matrix that takes at most 4 bytes per input byte, and that it
// reads back exactly from what EncodeCSV writes.
func FuzzDecodeCSV(f *testing.F) {
	addFiles(f, "csv_*.csv")
	for _, s := range []string{
		"1,2\n3,4\n", "a b\n1 2\n", "1,2\n3\n", "1\tnan\n", "1e999", "\"1\",\"2\"\n", "\xef\xbb\xbf# c\r\n1;2\r\n",
		",a,b\n0,1,2\n", "1,\"2\n", "0x1p-2 1_0 .5 +5.\n", "1,2,\n", "3.4028235e38,3.4028236e38\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := &ReadOptions{}
		if mode&1 != 0 {
			opt.DType = tensor.Float32
		}
		var d *tensor.Dense
		var err error
		if mode&2 != 0 {
			d, err = DecodeCSV(onlyReader{bytes.NewReader(data)}, opt)
		} else {
			d, err = DecodeCSV(bytes.NewReader(data), opt)
		}
		if !checkDecoded(t, d, err, opt) {
			return
		}
		if opt.DType.Type == nil && d.Dtype() != tensor.Float64 {
			t.Errorf("dtype %v, want float64", d.Dtype())
		}
		if n := len(float64s(t, d)); n > len(data)/2+1 {
			t.Errorf("%d entries from %d bytes", n, len(data))
		}
		o := &WriteOptions{Header: mode&4 != 0}
		switch mode >> 3 % 3 {
		case 1:
			o.Comma = '\t'
		case 2:
			o.Comma = ' '
		}
		var buf bytes.Buffer
		if err := EncodeCSV(&buf, d, o); err != nil {
			t.Fatal(err)
		}
		e, err := DecodeCSV(&buf, &ReadOptions{DType: d.Dtype()})
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		sameEntries(t, d, e)
	})
}

// FuzzDecodeMTX checks that DecodeMTX never panics, that every error
// matches ErrFormat or ErrNotFinite, has the package prefix and names a
// line, and that every result has the shape of the size line and finite
// entries, whether the size of the input is known or not.
func FuzzDecodeMTX(f *testing.F) {
	addFiles(f, "mtx_*.mtx", 0, 6)
	for _, s := range []string{
		"%%MatrixMarket matrix array real general\n2 2\n1\nnan\n3\n4\n",
		"%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n",
		"%%MatrixMarket matrix array real skew-symmetric\n1 1\n",
		"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1e308\n1 1 1e308\n",
		"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2\n3 3 3\n",
		"%%MatrixMarket matrix coordinate real general\n1000 1000 100\n1 1 1\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5D+03\n",
		"%%MatrixMarket matrix array real general\r\n1 1\r\n1e39\r\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	// Keep the results small: a coordinate file of a few bytes may
	// otherwise claim a matrix of the size of the machine's memory.
	const limit = 1 << 20
	saved := entryLimit
	entryLimit = func(int) (int64, string) { return limit, "the fuzzing limit" }
	f.Cleanup(func() { entryLimit = saved })

	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		checkParseDecimal(t, data)
		opt := fuzzOptions(mode)
		var d *tensor.Dense
		var err error
		if mode&4 == 0 {
			d, err = DecodeMTX(bytes.NewReader(data), int64(len(data)), opt)
		} else {
			d, err = DecodeMTX(onlyReader{bytes.NewReader(data)}, -1, opt)
		}
		if !checkDecoded(t, d, err, opt) {
			if !strings.Contains(err.Error(), " at line ") {
				t.Errorf("error %q does not name the line", err)
			}
			return
		}
		want := tensor.Float64
		if opt.DType == tensor.Float32 {
			want = tensor.Float32
		}
		if d.Dtype() != want {
			t.Errorf("dtype %v, want %v", d.Dtype(), want)
		}
		m, n, ok := mtxClaimedShape(data)
		if !ok {
			t.Fatalf("accepted an input without a size line")
		}
		if s := d.Shape(); s[0] != m || s[1] != n || m*n > limit {
			t.Errorf("shape %v, the size line claims (%d, %d)", s, m, n)
		}
	})
}

// mtxClaimedShape returns the first two fields of the size line of a Matrix
// Market file, the first line after the banner that is neither blank nor a
// comment.
func mtxClaimedShape(data []byte) (m, n int, ok bool) {
	lines := strings.Split(string(data), "\n")
	for _, l := range lines[1:] {
		f := strings.FieldsFunc(l, func(r rune) bool { return r < 256 && isMTXBlank(byte(r)) })
		if len(f) == 0 || f[0][0] == '%' {
			continue
		}
		if len(f) < 2 {
			return 0, 0, false
		}
		m, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.Atoi(f[1])
		return m, n, err1 == nil && err2 == nil
	}
	return 0, 0, false
}

// checkParseDecimal checks that parseDecimal, when it accepts tok, agrees
// with strconv.ParseFloat to the bit.
func checkParseDecimal(t *testing.T, tok []byte) {
	t.Helper()
	v, ok := parseDecimal(tok)
	if !ok {
		return
	}
	w, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.Float64bits(v) != math.Float64bits(w) {
		t.Fatalf("parseDecimal(%q) = %v, strconv.ParseFloat gives %v, %v", tok, v, w, err)
	}
}

// TestParseDecimal compares parseDecimal with strconv.ParseFloat on
// numbers of many forms and on the limits of its fast paths.
func TestParseDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	check := func(s string) {
		if _, ok := parseDecimal([]byte(s)); ok {
			accepted++
		}
		checkParseDecimal(t, []byte(s))
	}
	for range 15000 {
		x := math.Float64frombits(r.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		check(strconv.FormatFloat(x, 'g', -1, 64))
		check(strconv.FormatFloat(x, 'e', r.IntN(20), 64))
		y := r.Float64()*2 - 1
		check(strconv.FormatFloat(y, 'g', -1, 64))
		check(strconv.FormatFloat(y, 'f', r.IntN(22), 64))
		check(strconv.FormatFloat(y*math.Pow(10, float64(r.IntN(40)-20)), 'g', r.IntN(20)+1, 64))
		// Halfway cases between neighbouring float64s.
		lo := math.Abs(x)
		hi := math.Nextafter(lo, math.Inf(1))
		if !math.IsInf(hi, 0) {
			mid := new(big.Float).SetPrec(2000).Add(big.NewFloat(lo).SetPrec(2000), big.NewFloat(hi).SetPrec(2000))
			mid.Quo(mid, big.NewFloat(2))
			check(mid.Text('e', 18))
			check(mid.Text('e', 25))
		}
	}
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "-0.000e5", "1", ".5", "5.", "-.5e-3", "1e5", "1E-5", "00012.500", "007",
		"4.9e-324", "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623159e308",
		"9007199254740992", "9007199254740993", "9007199254740993e3", "0.1", "123456789012345678", "1234567890123456789",
		"12345678901234567890", "1e22", "1e23", "1e-22", "1e-23", "1e308", "1e309", "1e-400", "1e", "1e+", ".", "-", "",
		"1.2.3", "1e5.5", "0x1p3", "inf", "NaN", "1_000", "12345678.12345678", "0.00000000000000000001234567890123456789",
	} {
		check(s)
	}
	t.Logf("parseDecimal accepted %d numbers", accepted)
	if accepted < 60000 {
		t.Errorf("parseDecimal accepted only %d numbers", accepted)
	}
}

// FuzzParseDecimal checks parseDecimal against strconv.ParseFloat.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-1.5", "1e23", "0.1", "9007199254740993", "2.2250738585072011e-308", "1234567890.123456789", "4.9e-324", ".5e-3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tok []byte) { checkParseDecimal(t, tok) })
}
