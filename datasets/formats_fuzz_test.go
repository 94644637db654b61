package datasets

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
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
