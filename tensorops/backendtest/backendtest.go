// Package backendtest is the conformance suite of the tensorops backend
// contract: Run drives every operation of a tensorops.Backend on seeded
// random inputs of awkward shapes and compares the results with plain-Go
// float64 references, within tolerances derived from the rounding error of
// each operation. The CPU backend's tests and the CUDA backend's tests (on a
// GPU or on the fake driver of CI) run it, and `gpump selftest` prints it.
package backendtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// Tolerances of Run. Every error is relative to the scale of the
// quantity it measures, the sum of the magnitudes of the terms that form it
// (for A q: Σ_j |A_ij q_j| per row), so that the bounds hold for any scale of
// the inputs and a backend with a different summation order or with fused
// multiply-adds passes with a wide margin, while a structural error (a
// missing element, an off-by-one, a wrong stride, a wrong sign, float32
// accumulation) shows up as an error of 1e-8 or far more.
//
// The same tolerances hold for float32 storage: the reference then runs on
// the float32-rounded matrix, and the backend contract forms every product
// and sum in float64, so the only difference left is the order of the
// float64 additions. A backend that accumulated in float32 fails by 1e-8 or
// more.
const (
	// ExactTol is the tolerance of the operations that only move
	// data (Load/Store, Copy): they must reproduce every bit, including
	// signed zeros and subnormals.
	ExactTol = 0
	// ElementwiseTol is the tolerance of the elementwise operations
	// (Axpby, Start, Average): each output is a few roundings of its inputs,
	// so any correct evaluation order (fused or not) is within 4·2⁻⁵³ ≈
	// 4.4e-16 of the reference; 1e-14 leaves a factor of 20 for a device's
	// log (Start) being an ulp or two off.
	ElementwiseTol = 1e-14
	// ReductionTol is the least tolerance of the operations with a
	// reduction over a block or a row or column of A (Operator, MulVec,
	// MulTVec, Prox, ProxStats, RegretMatch). A sum of k terms has a
	// rounding error at most k·2⁻⁵³ times the sum of the terms' magnitudes
	// in any order of addition (Higham, Accuracy and Stability of Numerical
	// Algorithms, section 4.2), so the backend and the reference differ by at
	// most 2k·2⁻⁵³ of it: the tolerance for a reduction of length k is
	// max(ReductionTol, 4k·2⁻⁵³), which is 1e-12 up to k ≈ 2250.
	// Random inputs give errors of about √k·2⁻⁵³ at most; the CPU backend
	// stays below 1e-15 on the default shapes.
	ReductionTol = 1e-12
)

// unitRoundoff is 2⁻⁵³, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// reductionTol is the tolerance of a reduction of length k.
func reductionTol(k int) float64 {
	return max(ReductionTol, 4*float64(k)*unitRoundoff)
}

// Result is the largest relative error of one backend operation
// against the reference, over one shape of the payoff matrix and one storage
// type.
type Result struct {
	// Op names the operation and, where it has variants, the variant:
	// "Load/Store", "Copy", "Axpby", "Operator", "MulVec", "MulTVec",
	// "Start/S", "Prox/S" and "ProxStats/S" for each setup S (entropic,
	// euclidean, box, ball), "Average/simplex", "Average/box",
	// "Average/ball", "Average/lin" (the linear terms),
	// "RegretMatch/rm+", "RegretMatch/prm+"; for a backend that implements
	// tensorops.Batched also "BatchOperator", "BatchMulVec",
	// "BatchMulTVec", "BatchCopy", "BatchAxpby", "BatchProx/S" for the two
	// simplex setups, "BatchProxStats", "BatchAverage" and
	// "BatchRegretMatch", each over a batch of two to five games of the
	// shape.
	Op string
	// Shape is the payoff matrix's shape "MxN"; the vector operations run on
	// vectors of both lengths M and N.
	Shape string
	// Dtype is the storage type of the payoff matrix, "f64" or "f32".
	Dtype string
	// MaxRelErr is the largest error over every output of the operation,
	// relative to the scale of that output (see the *Tol constants). It
	// is +Inf when an output is NaN or infinite where the reference is
	// finite (an output the backend never wrote is NaN: every
	// destination is filled with NaN first).
	MaxRelErr float64
	// Tol is the tolerance MaxRelErr is held to.
	Tol float64
	// Pass reports MaxRelErr <= Tol.
	Pass bool
}

// Options configures Run; the zero value (or nil) runs the
// defaults.
type Options struct {
	// Seed seeds the random inputs: the same seed gives the same inputs.
	Seed uint64
	// Shapes are the payoff matrix shapes (rows, columns); nil means
	// DefaultShapes.
	Shapes [][2]int
	// Dtypes are the storage types (tensor.Float64, tensor.Float32); nil
	// means both.
	Dtypes []tensor.Dtype
}

// DefaultShapes are the shapes Run uses unless told otherwise:
// a single entry; one row and one column long enough for the CPU backend to
// split them over its workers (by columns and by rows) and for a GPU kernel
// to need more than 65535 blocks of a grid dimension; sizes that are
// neither multiples of 4 or 8 (the CPU's row groups) nor of a GPU's warp or block; tall and wide shapes
// beyond the 8-row groups; and shapes past the CPU backend's thresholds —
// parallel passes by rows (1000×97), by columns when there are fewer rows than
// four per worker (5×20000), and the column blocking of rows longer than
// 2·16384 (100×32800).
var DefaultShapes = [][2]int{
	{1, 1}, {1, 70001}, {70001, 1}, {7, 13}, {33, 65}, {257, 129},
	{1000, 37}, {37, 1000}, {1000, 97}, {5, 20000}, {100, 32800},
}

// Run runs every computing operation of the tensorops.Backend contract on
// b and on a plain-Go float64 reference (naive loops in this file) over fresh
// seeded random inputs, for every shape and storage type of opt, and returns
// one result per (operation, shape, dtype), in the order dtype, shape,
// operation. Operations that do not read the matrix run for every dtype too
// (with fresh inputs), so the table is rectangular.
//
// The inputs are what the contract allows, not only what the solver
// happens to pass: signed vectors for the matrix products, two step sizes
// for each prox (one of them large enough to make entropic probabilities
// underflow below 1e-300 and Euclidean projections sparse), both signs of
// RegretMatch, its "leave x unchanged" branch, aliased Axpby, and ProxStats
// and Average on blocks of different setups and lengths. Every destination
// is filled with NaN before the call, so an element not written is an
// error, and ProxStats is checked to leave its input averages untouched.
//
// It returns an error when the backend does (allocation, a synchronization
// point), when opt is invalid, or when ctx is done; a failed comparison is
// not an error but a result with Pass false.
func Run(ctx context.Context, b tensorops.Backend, opt *Options) ([]Result, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	shapes := o.Shapes
	if shapes == nil {
		shapes = DefaultShapes
	}
	dtypes := o.Dtypes
	if dtypes == nil {
		dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}
	}
	for _, sh := range shapes {
		if sh[0] <= 0 || sh[1] <= 0 {
			return nil, fmt.Errorf("backendtest: invalid shape %dx%d", sh[0], sh[1])
		}
	}
	for _, dt := range dtypes {
		if dt != tensor.Float64 && dt != tensor.Float32 {
			return nil, fmt.Errorf("backendtest: unsupported dtype %v (want float64 or float32)", dt)
		}
	}
	var out []Result
	for _, dt := range dtypes {
		for _, sh := range shapes {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			// Each (shape, dtype) draws from its own stream, so that it
			// sees the same inputs whatever else runs beside it: a failure
			// can be rerun alone.
			f32 := dt == tensor.Float32
			stream := uint64(sh[0])<<33 ^ uint64(sh[1])<<1 ^ 0x9e3779b97f4a7c15
			if f32 {
				stream++
			}
			st := &selfTest{
				ctx: ctx, b: b, m: sh[0], n: sh[1], f32: f32,
				rng:   rand.New(rand.NewPCG(o.Seed, stream)),
				shape: fmt.Sprintf("%dx%d", sh[0], sh[1]),
			}
			st.dtype = tensorops.Float64.String()
			if st.f32 {
				st.dtype = tensorops.Float32.String()
			}
			err := st.run()
			b.Free(st.owned...)
			out = append(out, st.out...)
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// Worst returns, for each operation in results (in the order of
// first appearance), its worst result: a failing one before a passing one,
// then the largest MaxRelErr. It is what a command prints as the largest
// error per operation.
func Worst(results []Result) []Result {
	var out []Result
	idx := map[string]int{}
	for _, r := range results {
		k, ok := idx[r.Op]
		if !ok {
			idx[r.Op] = len(out)
			out = append(out, r)
			continue
		}
		w := &out[k]
		if (!r.Pass && w.Pass) || (r.Pass == w.Pass && r.MaxRelErr > w.MaxRelErr) {
			*w = r
		}
	}
	return out
}

// selfTest is one Run on one shape and dtype.
type selfTest struct {
	ctx          context.Context
	b            tensorops.Backend
	rng          *rand.Rand
	m, n         int
	f32          bool
	shape, dtype string
	a            []float64 // the reference matrix (float32-rounded for f32)
	mat          tensorops.Matrix
	at           tensorops.Matrix // Aᵀ, once the Transpose check made it
	owned        []any
	out          []Result
}

// errAccum collects the largest relative error of one operation.
type errAccum struct{ max float64 }

// add records |got − want| / scale; NaN or Inf where the reference is finite
// counts as +Inf.
func (e *errAccum) add(got, want, scale float64) {
	e.max = max(e.max, relErr(got, want, scale))
}

// addVec records every element of got against want with the per-element
// scales (or one common scale when len(scale) == 1).
func (e *errAccum) addVec(got, want, scale []float64) {
	for i := range want {
		s := scale[0]
		if len(scale) > 1 {
			s = scale[i]
		}
		e.add(got[i], want[i], s)
	}
}

// addBits records an error unless got and want hold the same bits.
func (e *errAccum) addBits(got, want []float64) {
	for i := range want {
		if math.Float64bits(got[i]) == math.Float64bits(want[i]) {
			continue
		}
		// Any difference fails; its size, relative to the larger of the
		// two, is at most 2 (+Inf for NaN or Inf, 1 for +0 against −0).
		r := relErr(got[i], want[i], max(math.Abs(got[i]), math.Abs(want[i])))
		if r == 0 {
			r = 1
		}
		e.max = max(e.max, r)
	}
}

// minScale keeps a relative error finite when its scale is zero.
const minScale = 0x1p-1022

func relErr(got, want, scale float64) float64 {
	if got == want {
		return 0
	}
	if math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return math.Inf(1)
	}
	if !(scale >= minScale) {
		scale = minScale
	}
	return math.Abs(got-want) / scale
}

func (st *selfTest) record(op string, tol float64, e errAccum) {
	st.out = append(st.out, Result{
		Op: op, Shape: st.shape, Dtype: st.dtype,
		MaxRelErr: e.max, Tol: tol, Pass: e.max <= tol,
	})
}

func (st *selfTest) wrap(op string, err error) error {
	return fmt.Errorf("backendtest %s %s %s: %w", op, st.shape, st.dtype, err)
}

func (st *selfTest) run() error {
	if err := st.matrix(); err != nil {
		return st.wrap("NewMatrix", err)
	}
	ops := []struct {
		name string
		f    func() error
	}{
		{"Load/Store", st.loadStore},
		{"Copy", st.copy},
		{"Axpby", st.axpby},
		{"Operator", st.operator},
		{"MulVec", st.mulVec},
		{"MulTVec", st.mulTVec},
		{"SetMatrix", st.setMatrix},
		{"Transpose", st.transpose},
		{"SampledOperator", st.sampledOperator},
		{"Start", st.start},
		{"Prox", st.prox},
		{"ProxStats", st.proxStats},
		{"Average", st.average},
		{"RegretMatch", st.regretMatch},
		{"Batched", st.batched},
	}
	for _, op := range ops {
		if err := st.ctx.Err(); err != nil {
			return err
		}
		if err := op.f(); err != nil {
			return st.wrap(op.name, err)
		}
	}
	return nil
}

// matrix draws the payoff matrix and places it on the backend.
func (st *selfTest) matrix() error {
	mat, err := st.b.NewMatrix(st.drawMatrix())
	if err != nil {
		return err
	}
	st.mat = mat
	st.owned = append(st.owned, mat)
	return nil
}

// drawMatrix draws m×n entries uniform in [−2.5, 2.5) (not [−1, 1], so a
// backend that assumes a unit scale shows it) in the storage type, makes
// them the reference st.a (float32-rounded for f32) and returns their
// tensor.
func (st *selfTest) drawMatrix() *tensor.Dense {
	mn := st.m * st.n
	st.a = make([]float64, mn)
	if st.f32 {
		d := make([]float32, mn)
		for i := range d {
			d[i] = float32(5*st.rng.Float64() - 2.5)
			st.a[i] = float64(d[i])
		}
		return tensor.New(tensor.WithShape(st.m, st.n), tensor.WithBacking(d))
	}
	d := make([]float64, mn)
	for i := range d {
		d[i] = 5*st.rng.Float64() - 2.5
	}
	copy(st.a, d)
	return tensor.New(tensor.WithShape(st.m, st.n), tensor.WithBacking(d))
}

// lens are the two block lengths, rows then columns.
func (st *selfTest) lens() [2]int { return [2]int{st.m, st.n} }

// vec allocates a backend vector holding data.
func (st *selfTest) vec(data []float64) (tensorops.Vector, error) {
	v, err := st.b.NewVector(len(data))
	if err != nil {
		return nil, err
	}
	st.owned = append(st.owned, v)
	if err := st.b.Load(v, data); err != nil {
		return nil, err
	}
	return v, nil
}

// nanVec allocates a backend vector of length n filled with NaN.
func (st *selfTest) nanVec(n int) (tensorops.Vector, error) { return st.vec(nans(n)) }

// vecs allocates one backend vector for each of data.
func (st *selfTest) vecs(data ...[]float64) ([]tensorops.Vector, error) {
	vs := make([]tensorops.Vector, len(data))
	for i, d := range data {
		var err error
		if vs[i], err = st.vec(d); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// store brings v to the host.
func (st *selfTest) store(v tensorops.Vector) ([]float64, error) {
	h := make([]float64, v.Len())
	if err := st.b.Store(h, v); err != nil {
		return nil, err
	}
	return h, nil
}

// check brings v to the host and records it in e against want with the
// scales of addVec.
func (st *selfTest) check(e *errAccum, v tensorops.Vector, want, scale []float64) error {
	got, err := st.store(v)
	if err != nil {
		return err
	}
	e.addVec(got, want, scale)
	return nil
}

// checkBits brings v to the host and records it in e against want bit for
// bit.
func (st *selfTest) checkBits(e *errAccum, v tensorops.Vector, want []float64) error {
	got, err := st.store(v)
	if err != nil {
		return err
	}
	e.addBits(got, want)
	return nil
}

func nans(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// uniform returns n values uniform in [lo, hi).
func (st *selfTest) uniform(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*st.rng.Float64()
	}
	return v
}

// simplex returns a random point of the probability simplex of dimension
// n with about a fraction zero of its entries exactly 0 (never all).
func (st *selfTest) simplex(n int, zero float64) []float64 {
	v := make([]float64, n)
	var s float64
	for i := range v {
		if st.rng.Float64() >= zero {
			v[i] = st.rng.Float64() + 1e-3
			s += v[i]
		}
	}
	if s == 0 {
		k := st.rng.IntN(n)
		v[k], s = 1, 1
	}
	for i := range v {
		v[i] /= s
	}
	return v
}

// logPoint returns normalized log-weights with entries spread over about
// [−spread, spread] before normalization, and their probabilities
// (materialized as the contract says).
func (st *selfTest) logPoint(n int, spread float64) (logw, prob []float64) {
	raw := st.uniform(n, -spread, spread)
	lse := refLogSumExp(raw)
	logw, prob = make([]float64, n), make([]float64, n)
	for i, r := range raw {
		logw[i] = r - lse
		prob[i] = refProb(logw[i])
	}
	return logw, prob
}

// wild returns n values of random sign and magnitude 2^±100, with a
// subnormal and a negative zero when n allows: data that must survive a
// copy bit for bit.
func (st *selfTest) wild(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Ldexp(2*st.rng.Float64()-1, st.rng.IntN(201)-100)
	}
	if n >= 2 {
		v[n-1] = 5e-324
		v[0] = math.Copysign(0, -1)
	}
	return v
}
