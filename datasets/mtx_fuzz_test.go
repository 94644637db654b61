package datasets

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

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
