package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"gorgonia.org/tensor"
)

// The readers below take a file the caller has opened (and stated) once,
// so that a command reads its input's header and payload through one open
// file instead of opening it again for each look. size is the file's size
// for a regular file, which is read from its start, and -1 for a pipe or a
// device, read once from where it stands; name is the file's name in
// messages.

// ReadScaledFile is ReadScaled of the open file f in format (one of
// Formats). A pipe's RangeError is returned as ReadScaled returns it:
// it cannot be read a second time. Canceling ctx closes f.
func ReadScaledFile(ctx context.Context, f *os.File, size int64, name, format string, opt *ReadOptions) (t *tensor.Dense, exp int, err error) {
	var o ReadOptions
	if opt != nil {
		o = *opt
	}
	read := func() (*tensor.Dense, error) {
		tg, err := resultTarget(&o)
		if err != nil {
			return nil, err
		}
		if size >= 0 {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, fmt.Errorf("datasets: %s: %w", name, err)
			}
		}
		return readOpen(ctx, f, size, name, &o, tg, format)
	}
	t, err = read()
	var re *RangeError
	if !errors.As(err, &re) || o.Exp != 0 {
		return t, o.Exp, err
	}
	if size < 0 {
		return nil, 0, fmt.Errorf("%w (from a pipe or a device, which cannot be read a second time)", err)
	}
	o.Exp = re.Exp()
	if math.IsInf(math.Ldexp(1, o.Exp), 0) {
		return nil, 0, subnormalScale(name, re, o.Exp)
	}
	t, err = read()
	return t, o.Exp, err
}

// subnormalScale is the error of entries down among float64's subnormals
// (below 2⁻¹⁰²²), whose scale 2^exp itself overflows float64.
func subnormalScale(path string, re *RangeError, exp int) error {
	return &dataError{file: path, off: -1, kind: ErrNotFinite, msg: fmt.Sprintf(
		"entries are at most %g, so small that the scale factor 2^%d that would bring them into float32's range overflows float64: read them as float64 (--precision f64)", re.MaxAbs, exp)}
}

// InspectNPY reads the header of the open regular .npy file f and seeks
// back to its start: ndim is 3 for a stack (any 3-D header: ReadStackFile
// says what is wrong with one it refuses), else 2, and info describes a
// matrix's header (the zero NPYInfo for a stack, but for Descr and
// Exact32), with the checks of StatNPY.
func InspectNPY(f *os.File, size int64, name string) (info NPYInfo, ndim int, err error) {
	defer func() {
		if _, serr := f.Seek(0, io.SeekStart); serr != nil && err == nil {
			err = fmt.Errorf("datasets: %s: %w", name, serr)
		}
	}()
	h := &npyHeader{stack: true}
	if _, err := readHeaderOf(f, size, h); err == nil || h.ndim == 3 {
		return NPYInfo{Descr: h.descr, Exact32: exact32(h)}, 3, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return NPYInfo{}, 0, fmt.Errorf("datasets: %s: %w", name, err)
	}
	h, err = readNPYHeader(f, size)
	if err == nil {
		err = h.checkPlatform()
	}
	if err != nil {
		return NPYInfo{}, 0, inFile(name, err)
	}
	return NPYInfo{Rows: h.m, Cols: h.n, Descr: h.descr, Fortran: h.fortran, Exact32: exact32(h)}, 2, nil
}

// exact32 reports whether every value of h's element type is a float32.
func exact32(h *npyHeader) bool {
	return h.kind == 'f' && h.itemSize == 4 || h.kind != 'f' && h.itemSize <= 2
}

// ReadStackFile is ReadStack of the open regular file f.
func ReadStackFile(f *os.File, size int64, name string) (*tensor.Dense, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", name, err)
	}
	t, err := DecodeStack(f, size)
	if err != nil {
		return nil, inFile(name, err)
	}
	return t, nil
}
