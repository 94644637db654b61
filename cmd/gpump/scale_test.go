package main

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// TestF32Scaled: --precision f32 on a float64 game at scales float32
// cannot hold (1e-40: subnormal; 1e-50: below them; 1e40: overflow)
// stores it scaled by a power of two and reports in the file's units; the
// certificate holds against the float64 game: the pair's true gap is at
// most gap + 2·rounding_bound, and the true bracket lies within the
// reported one widened by rounding_bound.
func TestF32Scaled(t *testing.T) {
	base, err := datasets.Generate(tensor.Float64, mustSpec(t, "uniform:m=30,n=40,seed=5"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e-40, 1e-50, 1e40, 1} {
		data := make([]float64, 30*40)
		for i, v := range base.Data().([]float64) {
			data[i] = v * s
		}
		path := writeMatrix(t, "scaled.npy", 30, 40, data)
		algos := []string{"rm+", "ga-stochastic"}
		if testing.Short() {
			algos = algos[:1]
		}
		for _, algo := range algos {
			code, stdout, stderr := gpump(t, "solve", path, "--precision", "f32", "--algo", algo, "--eps", "1e-4", "--threads", "1", "-q")
			if code != exitOK {
				t.Fatalf("%g %s: exit %d: %s", s, algo, code, stderr)
			}
			o := decode(t, stdout)
			lo, hi := trueBracket(data, 30, 40, o.RowStrategy, o.ColumnStrategy)
			maxAbs := 0.0
			for _, v := range data {
				maxAbs = max(maxAbs, math.Abs(v))
			}
			tol := 70 * 0x1p-52 * maxAbs // our own evaluation's rounding
			d := o.RoundingBound
			switch {
			case o.Precision != "f32" || d <= 0 || d > 1.2e-7*maxAbs || math.Abs(o.MaxAbsEntry-maxAbs) > 1e-7*maxAbs:
				t.Errorf("%g %s: precision %s, rounding bound %g, max |A| %g (want %g)", s, algo, o.Precision, d, o.MaxAbsEntry, maxAbs)
			case hi-lo > o.Gap+2*d+tol:
				t.Errorf("%g %s: true gap %g exceeds gap %g + 2·%g", s, algo, hi-lo, o.Gap, d)
			case lo < o.ValueLower-d-tol || hi > o.ValueUpper+d+tol:
				t.Errorf("%g %s: true bracket [%g, %g] outside [%g, %g] ± %g", s, algo, lo, hi, o.ValueLower, o.ValueUpper, d)
			case o.RelativeGap > 1e-4 || o.Iterations < 1:
				t.Errorf("%g %s: relative gap %g after %d iterations", s, algo, o.RelativeGap, o.Iterations)
			}
		}
	}
}

// trueBracket returns min_j (Aᵀp)_j and max_i (A q)_i of the m×n float64
// matrix a, in float64.
func trueBracket(a []float64, m, n int, p, q []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := range n {
		s := 0.0
		for i := range m {
			s += a[i*n+j] * p[i]
		}
		lo = min(lo, s)
	}
	for i := range m {
		s := 0.0
		for j := range n {
			s += a[i*n+j] * q[j]
		}
		hi = max(hi, s)
	}
	return lo, hi
}
