package datasets

import (
	"fmt"
	"io"

	"gorgonia.org/tensor"
)

// A stack is a batch of B matrices of one shape m×n stored as one 3-D .npy
// array of shape (B, m, n), as numpy.stack writes them: what gpump batch
// solves as a batch and what gpump gen --count writes.
//
// Unlike a matrix, a stack is read without checking its entries: a NaN in
// one game must fail that game alone (the solver checks each), not the
// batch. Stacks are read in the file's own float type (float64 for integer
// and bool files) and in C order only: a Fortran-order stack interleaves
// its games, and numpy writes C order unless told otherwise.

// ReadStack reads the 3-D array (B, m, n) in the .npy file at path and
// returns it as a contiguous row-major tensor of that shape. See
// DecodeStack. Error messages name the file.
func ReadStack(path string) (*tensor.Dense, error) {
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := DecodeStack(f, size)
	if err != nil {
		return nil, inFile(path, err)
	}
	return t, nil
}

// DecodeStack reads a .npy stream holding a 3-D C-order array (B, m, n)
// and returns it as a contiguous row-major tensor of that shape, float32
// for an 'f4' array and float64 otherwise. size is the number of bytes
// available from r, or -1 if unknown. The dtypes, byte orders and format
// versions are those of DecodeNPY; entries are not checked for being
// finite. An array that is not 3-D, is empty, is in Fortran order or is
// malformed or truncated gives an error matching ErrFormat.
func DecodeStack(r io.Reader, size int64) (*tensor.Dense, error) {
	if size < 0 {
		size = streamSize(r)
	}
	h, err := readHeaderOf(r, size, &npyHeader{stack: true, lenient: true})
	if err != nil {
		return nil, err
	}
	if err := h.checkPayload(size); err != nil {
		return nil, err
	}
	if limit, why := entryLimit(8); size < 0 && int64(h.count) > limit {
		return nil, formatErr(-1, fmt.Sprintf("array of %d entries, more than %s", h.count, why))
	}
	b, m, n := h.games, h.m/h.games, h.n
	if h.kind == 'f' && h.itemSize == 4 {
		d, err := readPayload[float32](r, h, size >= 0, 1)
		if err != nil {
			return nil, err
		}
		return tensor.New(tensor.WithShape(b, m, n), tensor.WithBacking(d)), nil
	}
	d, err := readPayload[float64](r, h, size >= 0, 1)
	if err != nil {
		return nil, err
	}
	return tensor.New(tensor.WithShape(b, m, n), tensor.WithBacking(d)), nil
}

// NPYDims returns the number of dimensions of the array in the .npy file
// at path, from its header alone: 2 for a matrix, 3 for a stack.
func NPYDims(path string) (int, error) {
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// A 3-D header is a stack, even one that ReadStack will refuse (in
	// Fortran order, empty, too large): its error is the one to show.
	h := &npyHeader{stack: true}
	if _, err := readHeaderOf(f, size, h); err == nil || h.ndim == 3 {
		return 3, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("datasets: %s: %w", path, err)
	}
	if _, err := readHeader(f, size, false); err != nil {
		return 0, inFile(path, err)
	}
	return 2, nil
}

// WriteStack writes the contiguous row-major 3-D tensor t (B, m, n) of
// dtype Float64 or Float32 to the file at path as a C-order little-endian
// .npy array, atomically like WriteNPYOptions.
func WriteStack(path string, t *tensor.Dense) error {
	if err := checkStack(t); err != nil {
		return err
	}
	return writeFileAtomic(path, func(w io.Writer) error { return EncodeStack(w, t) })
}

// EncodeStack writes the 3-D tensor t to w as WriteStack does.
func EncodeStack(w io.Writer, t *tensor.Dense) error {
	if err := checkStack(t); err != nil {
		return err
	}
	descr, data := "<f8", []byte(nil)
	if t.Dtype() == tensor.Float32 {
		descr, data = "<f4", bytesOf(t.Float32s())
	} else {
		data = bytesOf(t.Float64s())
	}
	if hostBigEndian {
		return formatErr(-1, "writing stacks on a big-endian host is not supported")
	}
	if _, err := w.Write(npyHeaderBytes(descr, false, t.Shape()...)); err != nil {
		return &dataError{msg: "writing header", off: -1, cause: err}
	}
	if _, err := w.Write(data); err != nil {
		return &dataError{msg: "writing payload", off: -1, cause: err}
	}
	return nil
}

func checkStack(t *tensor.Dense) error {
	if t == nil {
		return formatErr(-1, "nil tensor")
	}
	s := t.Shape()
	if len(s) != 3 || s[0] < 1 || s[1] < 1 || s[2] < 1 {
		return formatErr(-1, fmt.Sprintf("tensor of shape %v is not a non-empty 3-D stack", []int(s)))
	}
	if dt := t.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return formatErr(-1, fmt.Sprintf("unsupported dtype %v: want float64 or float32", dt))
	}
	if !t.IsNativelyAccessible() || t.DataOrder().IsColMajor() || t.DataSize() != s[0]*s[1]*s[2] || t.IsView() {
		return formatErr(-1, "a stack to write must be a contiguous row-major tensor")
	}
	return nil
}

// StatStack reads the header of the 3-D .npy file at path, with the checks
// of ReadStack: the number of games, and each game's shape and element
// type as StatNPY gives a matrix's (Exact32 says whether reading the
// stack as float32 loses nothing).
func StatStack(path string) (games int, info NPYInfo, err error) {
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return 0, NPYInfo{}, err
	}
	defer f.Close()
	h, err := readHeaderOf(f, size, &npyHeader{stack: true, lenient: true})
	if err == nil {
		err = h.checkPlatform()
	}
	if err != nil {
		return 0, NPYInfo{}, inFile(path, err)
	}
	return h.games, NPYInfo{
		Rows: h.m / h.games, Cols: h.n, Descr: h.descr, Fortran: h.fortran,
		Exact32: h.kind == 'f' && h.itemSize == 4 || h.kind != 'f' && h.itemSize <= 2,
	}, nil
}
