package datasets

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"

	"gorgonia.org/tensor"
)

// minNormal32 is the smallest normal float32, 2⁻¹²⁶. Below it float32
// loses relative precision (subnormals), and a matrix whose largest entry
// lies below it loses the bound of 2⁻²⁴ max|A| on each entry's rounding.
const minNormal32 = 0x1p-126

// target is what a reader converts the file's entries to.
type target struct {
	// dt is the dtype of the result; the zero Dtype means the file's own
	// (float64 for integer, bool and text files).
	dt tensor.Dtype
	// exp scales a Float32 result: every entry is multiplied by 2^exp, in
	// float64, before it is rounded to float32.
	exp int
	// note hears of what the reader assumed, or is nil.
	note func(string)
	// vector accepts a 1-D array as a 1×n matrix.
	vector bool
}

// resultTarget returns the conversion opt asks for.
func resultTarget(opt *ReadOptions) (target, error) {
	if opt == nil {
		return target{}, nil
	}
	if opt.DType.Type == nil {
		if opt.Exp != 0 {
			return target{}, fmt.Errorf("datasets: Exp %d without DType Float32", opt.Exp)
		}
		return target{note: opt.Note}, nil
	}
	switch {
	case opt.DType != tensor.Float64 && opt.DType != tensor.Float32:
		return target{}, fmt.Errorf("datasets: unsupported result dtype %v: want float64 or float32", opt.DType)
	case opt.Exp != 0 && opt.DType != tensor.Float32:
		return target{}, fmt.Errorf("datasets: Exp %d applies to a Float32 result, not %v", opt.Exp, opt.DType)
	case opt.Exp < -1100 || opt.Exp > 1100:
		return target{}, fmt.Errorf("datasets: Exp %d out of range", opt.Exp)
	}
	return target{dt: opt.DType, exp: opt.Exp, note: opt.Note}, nil
}

// scale returns 2^exp.
func (tg target) scale() float64 { return math.Ldexp(1, tg.exp) }

// RangeError is the error of a reader asked for a Float32 result whose
// entries, read as float64 (a float64 or a text file), float32 cannot hold
// with a rounding error of at most 2⁻²⁴ max|A| each: some overflow float32,
// or all lie below its normal range (2⁻¹²⁶ ≈ 1.2e-38), where they would be
// rounded to subnormals or zero. ReadScaled reads such a file again with
// its entries scaled by a power of two. An overflow matches ErrNotFinite,
// and its message names the first entry that overflows.
type RangeError struct {
	// MaxAbs is the largest magnitude of the file's entries.
	MaxAbs float64
	// Overflow reports that some entry overflows float32.
	Overflow bool
	err      *dataError
}

func (e *RangeError) Error() string { return e.err.Error() }

// Unwrap returns the error with the message, which names the file.
func (e *RangeError) Unwrap() error { return e.err }

// Exp returns the power of two that scales the largest entry into [1, 2).
func (e *RangeError) Exp() int {
	_, x := math.Frexp(e.MaxAbs) // MaxAbs = f·2^x, f in [0.5, 1)
	return 1 - x
}

// range32 watches the entries of a file as they are rounded to float32.
type range32 struct {
	max   float64    // of the file's entries, unscaled
	first *dataError // the first entry that overflows float32, or nil
}

// observe records the magnitude of an entry of the file.
func (r *range32) observe(v float64) {
	if v = math.Abs(v); v > r.max {
		r.max = v
	}
}

// observeAll records the entries of src, all finite.
func (r *range32) observeAll(src []float64) {
	m := r.max
	for _, v := range src {
		m = max(m, math.Abs(v))
	}
	r.max = m
}

// overflow records the error naming an entry that overflows float32,
// unless one was recorded before it.
func (r *range32) overflow(e *dataError) {
	if r.first == nil {
		r.first = e
	}
}

// err returns the *RangeError of what was observed, the entries having
// been scaled by scale, or nil.
func (r *range32) err(scale float64) error {
	if r.first != nil {
		e := *r.first
		e.cause = fmt.Errorf("entries reach %g: read them scaled (ReadScaled) or as float64", r.max)
		return &RangeError{MaxAbs: r.max, Overflow: true, err: &e}
	}
	if s := r.max * scale; s > 0 && s < minNormal32 {
		return &RangeError{MaxAbs: r.max, err: &dataError{off: -1, msg: fmt.Sprintf(
			"entries are at most %g, below float32's normal range (%g), where rounding loses their relative precision: read them scaled (ReadScaled) or as float64", r.max, minNormal32)}}
	}
	return nil
}

// ReadScaled reads the file at path as Read does, and returns the result
// with the power of two it is scaled by: the result holds the file's matrix
// times 2^exp. exp is opt.Exp, or 0, unless opt asks for tensor.Float32 and
// the file's entries do not fit float32's normal range (see RangeError):
// the file is then read a second time, its entries scaled so that the
// largest lies in [1, 2), where float32 rounds each entry within 2⁻²⁴ of
// the largest. A pipe or a device cannot be read a second time: from one,
// the *RangeError is returned. Canceling ctx stops the read, even one that
// waits on a pipe, with an error wrapping ctx's cause.
func ReadScaled(ctx context.Context, path string, opt *ReadOptions) (t *tensor.Dense, exp int, err error) {
	var o ReadOptions
	if opt != nil {
		o = *opt
	}
	format, err := checkFormat(path, o.Format, Formats)
	if err != nil {
		return nil, 0, err
	}
	t, err = read(ctx, path, &o, format)
	var re *RangeError
	if !errors.As(err, &re) || o.Exp != 0 {
		return t, o.Exp, err
	}
	if fi, serr := os.Stat(path); serr != nil || !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%w (from a pipe or a device, which cannot be read a second time)", err)
	}
	o.Exp = re.Exp()
	if math.IsInf(math.Ldexp(1, o.Exp), 0) {
		// Entries down among float64's subnormals (below 2⁻¹⁰²²): the
		// scale 2^exp itself overflows float64.
		return nil, 0, subnormalScale(path, re, o.Exp)
	}
	t, err = read(ctx, path, &o, format)
	return t, o.Exp, err
}
