package datasets

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"gorgonia.org/tensor"
)

// WriteOptions holds options for the writers (Write, WriteNPYOptions,
// EncodeNPYOptions, WriteNPZ, WriteCSV). A nil *WriteOptions is the same
// as the zero value, which writes little-endian data in C (row-major)
// order, an uncompressed .npz member named "arr_0", and CSV with commas
// and no header row.
type WriteOptions struct {
	// Format is the file format for Write: "npy", "npz" or "csv". The
	// empty string chooses it from the file name's extension.
	Format string
	// Key is the member name of a matrix written to an .npz archive
	// (".npy" is appended); the empty string means "arr_0", as
	// numpy.savez names its first positional array.
	Key string
	// Compress deflates the members of an .npz archive, as
	// numpy.savez_compressed does.
	Compress bool
	// Comma is the CSV field separator; 0 means ','.
	Comma rune
	// Header writes a first CSV row naming the columns c0, c1, ...
	Header bool

	// BigEndian writes big-endian data ('>f8', '>f4').
	BigEndian bool
	// Fortran writes the matrix in column-major order, with
	// fortran_order True in the header.
	Fortran bool
}

// WriteNPY writes the matrix t to the file at path in .npy format 1.0,
// little-endian and in C order, as float64 ('<f8') or float32 ('<f4')
// according to t's dtype. It is WriteNPYOptions with nil options.
func WriteNPY(path string, t *tensor.Dense) error {
	return WriteNPYOptions(path, t, nil)
}

// WriteNPYOptions writes the matrix t to the file at path in .npy format
// 1.0 with the byte order and memory order chosen by o, as float64 or
// float32 according to t's dtype.
//
// The file is written atomically: the data goes to a temporary file in
// the same directory, which is synced to disk and then renamed to path, so
// that path holds either its old content or the complete new file. The
// new file has mode 0644. A symbolic link is followed (its target is
// replaced, the link kept), and a path that is a device or a pipe
// (/dev/stdout, a FIFO) is written in place.
//
// t must be a non-empty 2-D tensor of dtype tensor.Float64 or
// tensor.Float32; its entries are written as they are, NaN and infinities
// included (use Validate to check them first).
func WriteNPYOptions(path string, t *tensor.Dense, o *WriteOptions) error {
	if err := checkMatrix(t); err != nil {
		return err
	}
	return writeFileAtomic(path, func(w io.Writer) error { return encodeNPY(w, t, o) })
}

// EncodeNPY writes the matrix t to w in .npy format 1.0, little-endian
// and in C order, as float64 ('<f8') or float32 ('<f4') according to t's
// dtype. It is EncodeNPYOptions with nil options.
func EncodeNPY(w io.Writer, t *tensor.Dense) error {
	return EncodeNPYOptions(w, t, nil)
}

// EncodeNPYOptions writes the matrix t to w in .npy format 1.0 with the
// byte order and memory order chosen by o. t must be a non-empty 2-D
// tensor of dtype tensor.Float64 or tensor.Float32; its entries are
// written as they are. Any tensor layout is accepted (row-major,
// column-major, transposed or sliced views); a row-major tensor written
// little-endian in C order is written with a single Write of its backing
// array.
func EncodeNPYOptions(w io.Writer, t *tensor.Dense, o *WriteOptions) error {
	if err := checkMatrix(t); err != nil {
		return err
	}
	return encodeNPY(w, t, o)
}

// encodeNPY writes the checked 1-D or 2-D tensor t to w as a .npy file. A
// vector is written as a 1×n matrix would be, with its own shape in the
// header; Fortran order means nothing for it.
func encodeNPY(w io.Writer, t *tensor.Dense, o *WriteOptions) error {
	var opt WriteOptions
	if o != nil {
		opt = *o
	}
	if len(t.Shape()) == 1 {
		opt.Fortran = false
	}
	if t.Dtype() == tensor.Float32 {
		return writeNPYData[float32](w, t, opt)
	}
	return writeNPYData[float64](w, t, opt)
}

// npyHeaderBytes returns a format 1.0 header for an array of the given
// shape, padded with spaces and a newline so that the payload starts at a
// multiple of 64 bytes.
func npyHeaderBytes(descr string, fortran bool, shape ...int) []byte {
	order := "False"
	if fortran {
		order = "True"
	}
	s := make([]int64, len(shape))
	for i, d := range shape {
		s[i] = int64(d)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, shapeString(s))
	hlen := len(dict) + 1
	if pad := (10 + hlen) % 64; pad != 0 {
		hlen += 64 - pad
	}
	b := make([]byte, 0, 10+hlen)
	b = append(b, npyMagic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", hlen-len(dict)-1)...)
	return append(b, '\n')
}

// writeBuffer is the number of elements converted at a time when the
// payload cannot be written straight from the tensor's backing array.
const writeBuffer = 1 << 17

func writeNPYData[T float](w io.Writer, t *tensor.Dense, o WriteOptions) error {
	m, n := dims(t)
	var zero T
	size := int(unsafe.Sizeof(zero))
	descr := fmt.Sprintf("<f%d", size)
	if o.BigEndian {
		descr = fmt.Sprintf(">f%d", size)
	}
	if _, err := w.Write(npyHeaderBytes(descr, o.Fortran, t.Shape()...)); err != nil {
		return &dataError{msg: "writing header", off: -1, cause: err}
	}
	src := newView[T](t)
	swap := o.BigEndian != hostBigEndian
	if !o.Fortran && !swap && src.contiguous(m, n) {
		if _, err := w.Write(bytesOf(src.data[:m*n])); err != nil {
			return &dataError{msg: "writing payload", off: -1, cause: err}
		}
		return nil
	}
	buf := make([]T, min(m*n, writeBuffer))
	k := 0
	flush := func() error {
		b := bytesOf(buf[:k])
		if swap {
			swapBytes(b, size)
		}
		k = 0
		if _, err := w.Write(b); err != nil {
			return &dataError{msg: "writing payload", off: -1, cause: err}
		}
		return nil
	}
	outer, inner := m, n
	if o.Fortran {
		outer, inner = n, m
	}
	for a := 0; a < outer; a++ {
		for b := 0; b < inner; b++ {
			i, j := a, b
			if o.Fortran {
				i, j = b, a
			}
			v, err := src.at(i, j)
			if err != nil {
				return err
			}
			buf[k] = v
			if k++; k == len(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if k > 0 {
		return flush()
	}
	return nil
}

// dims returns the shape of the 1-D or 2-D tensor t as a matrix: a vector
// of n entries is 1×n.
func dims(t *tensor.Dense) (m, n int) {
	if s := t.Shape(); len(s) == 2 {
		return s[0], s[1]
	}
	return 1, t.Shape()[0]
}

// denseData returns the backing array and the strides of the 1-D or 2-D
// tensor t, seen as a matrix (see dims), when entry (i, j) is
// data[i*s0+j*s1]; ok is false when t must be read through At
// (transposed, non-contiguous or masked tensors).
func denseData[T float](t *tensor.Dense) (data []T, s0, s1 int, ok bool) {
	if t.RequiresIterator() {
		return nil, 0, 0, false
	}
	data, ok = t.Data().([]T)
	st := t.Strides()
	if !ok || len(st) != len(t.Shape()) || len(st) < 1 || len(st) > 2 {
		return nil, 0, 0, false
	}
	m, n := dims(t)
	if len(st) == 2 {
		s0, s1 = st[0], st[1]
	} else {
		s1 = st[0]
	}
	if m == 1 {
		s0 = 0
	}
	if n == 1 {
		s1 = 0
	}
	if s0 < 0 || s1 < 0 || (m-1)*s0+(n-1)*s1 >= len(data) {
		return nil, 0, 0, false
	}
	return data, s0, s1, true
}

// view reads the entries of a 1-D or 2-D tensor seen as a matrix (see
// dims): from its backing array where denseData finds one, else through
// At.
type view[T float] struct {
	t      *tensor.Dense
	data   []T
	s0, s1 int
	direct bool
}

func newView[T float](t *tensor.Dense) view[T] {
	data, s0, s1, ok := denseData[T](t)
	return view[T]{t: t, data: data, s0: s0, s1: s1, direct: ok}
}

// at returns entry (i, j).
func (v view[T]) at(i, j int) (T, error) {
	if v.direct {
		return v.data[i*v.s0+j*v.s1], nil
	}
	return at[T](v.t, i, j)
}

// contiguous reports whether the m×n matrix is its backing array's first
// m·n entries in row-major order.
func (v view[T]) contiguous(m, n int) bool { return v.direct && rowMajor(m, n, v.s0, v.s1) }

// rowMajor reports whether strides s0, s1 (as returned by denseData) lay
// out an m×n matrix contiguously in row-major order.
func rowMajor(m, n, s0, s1 int) bool {
	return (s1 == 1 || n == 1) && (s0 == n || m == 1)
}

// at returns entry (i, j) of t, a 1-D or 2-D tensor seen as a matrix.
func at[T float](t *tensor.Dense, i, j int) (T, error) {
	var v any
	var err error
	if len(t.Shape()) == 1 {
		v, err = t.At(j)
	} else {
		v, err = t.At(i, j)
	}
	if err != nil {
		return 0, &dataError{msg: fmt.Sprintf("reading entry (%d, %d)", i, j), off: -1, cause: err}
	}
	x, ok := v.(T)
	if !ok {
		return 0, formatErr(-1, fmt.Sprintf("entry (%d, %d) has type %T", i, j, v))
	}
	return x, nil
}

// checkMatrix checks that t is a non-empty 2-D tensor of dtype Float64 or
// Float32.
func checkMatrix(t *tensor.Dense) error {
	if t == nil {
		return formatErr(-1, "nil matrix")
	}
	shape := t.Shape()
	if len(shape) != 2 {
		s := make([]int64, len(shape))
		for i, d := range shape {
			s[i] = int64(d)
		}
		return formatErr(-1, fmt.Sprintf("tensor of shape %s is not a 2-D matrix", shapeString(s)))
	}
	if shape[0] <= 0 || shape[1] <= 0 {
		return formatErr(-1, fmt.Sprintf("empty matrix of shape %s", shapeString([]int64{int64(shape[0]), int64(shape[1])})))
	}
	if dt := t.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return formatErr(-1, fmt.Sprintf("unsupported dtype %v: want float64 or float32", dt))
	}
	return nil
}

// Validate checks that t is a usable payoff matrix: a non-empty 2-D tensor
// of dtype tensor.Float64 or tensor.Float32 whose entries are all finite.
// A wrong shape or dtype gives an error matching ErrFormat; a NaN or
// infinite entry gives an error matching ErrNotFinite that names the first
// such entry in row-major order by (row, column). Any tensor layout is
// accepted.
func Validate(t *tensor.Dense) error {
	if err := checkMatrix(t); err != nil {
		return err
	}
	if t.Dtype() == tensor.Float32 {
		return validateData[float32](t)
	}
	return validateData[float64](t)
}

func validateData[T float](t *tensor.Dense) error {
	m, n := t.Shape()[0], t.Shape()[1]
	bad := func(i, j int, v T) error {
		return &dataError{msg: fmt.Sprintf("non-finite entry %v at (%d, %d)", v, i, j), off: -1, kind: ErrNotFinite}
	}
	src := newView[T](t)
	if src.contiguous(m, n) {
		if p := firstNonFinite(src.data[:m*n]); p >= 0 {
			return bad(p/n, p%n, src.data[p])
		}
		return nil
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			v, err := src.at(i, j)
			if err != nil {
				return err
			}
			if v-v != 0 {
				return bad(i, j, v)
			}
		}
	}
	return nil
}
