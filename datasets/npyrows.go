package datasets

import (
	"fmt"
	"io"

	"gorgonia.org/tensor"
)

// ReadNPYRows reads one contiguous block of rows of the 2-D C-order array
// in the .npy file at path, and nothing else of its payload: rows tells,
// given the array's m rows, which block [lo, hi) to read. It returns the
// block, an (hi − lo)×n row-major matrix, and m. This is how each
// process of a sharded solve (package shard) reads its part of a matrix
// no one process holds.
//
// The accepted files, opt and the errors are those of ReadNPY, except
// that the file must be a regular file (the block is read at its offset)
// and the array in C order (a Fortran-order array's rows are not
// contiguous in the file: convert it, e.g. with numpy.ascontiguousarray).
// The entries are checked as ReadNPY checks them, within the block; an
// error names its entry by its row in the whole array.
func ReadNPYRows(path string, rows func(m int) (lo, hi int), opt *ReadOptions) (*tensor.Dense, int, error) {
	tg, err := resultTarget(opt)
	if err != nil {
		return nil, 0, err
	}
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if size < 0 {
		return nil, 0, &dataError{file: path, msg: "is not a regular file: a block of its rows cannot be read; use ReadNPY", off: -1}
	}
	a, m, err := readRows(f, size, rows, tg)
	if err != nil {
		return nil, 0, inFile(path, err)
	}
	return a, m, nil
}

// readRows reads the block of rows that rows chooses from the .npy stream
// r of size bytes.
func readRows(r io.ReaderAt, size int64, rows func(m int) (lo, hi int), tg target) (*tensor.Dense, int, error) {
	h, err := readNPYHeader(io.NewSectionReader(r, 0, size), size)
	if err != nil {
		return nil, 0, err
	}
	if h.nbytes > size-h.dataOff {
		return nil, 0, h.truncated(size - h.dataOff)
	}
	if err := h.checkPlatform(); err != nil {
		return nil, 0, err
	}
	if h.fortran {
		return nil, 0, formatErr(-1, "the array is in Fortran order, so its rows are not contiguous in the file: write it in C order (numpy.ascontiguousarray) to read a block of rows")
	}
	lo, hi := rows(h.m)
	if lo < 0 || lo >= hi || hi > h.m {
		return nil, 0, fmt.Errorf("datasets: rows [%d, %d) of an array of %d rows", lo, hi, h.m)
	}
	dt := tg.dt
	if dt.Type == nil {
		dt = tensor.Float64
		if h.kind == 'f' && h.itemSize == 4 {
			dt = tensor.Float32
		}
	}
	// The block as an array of its own, at its offset in the file.
	b := *h
	b.m, b.rowOff = hi-lo, lo
	b.count = b.m * h.n
	b.nbytes = int64(b.count) * int64(h.itemSize)
	b.dataOff = h.dataOff + int64(lo)*int64(h.n)*int64(h.itemSize)
	b.shape = []int64{int64(b.m), int64(h.n)}
	sr := io.NewSectionReader(r, b.dataOff, b.nbytes)
	var backing any
	if dt == tensor.Float32 {
		backing, err = readPayload[float32](sr, &b, true, tg.scale())
	} else {
		backing, err = readPayload[float64](sr, &b, true, 1)
	}
	if err != nil {
		return nil, 0, err
	}
	return tensor.New(tensor.WithShape(b.m, h.n), tensor.WithBacking(backing)), h.m, nil
}
