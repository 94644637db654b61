package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

var update = flag.Bool("update", false, "rewrite the golden .npy files in testdata")

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
