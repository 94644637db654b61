package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// Problem is a monotone variational inequality: find z* ∈ Z with
// ⟨F(z*), z − z*⟩ ≥ 0 for all z ∈ Z. Solve accepts a *MatrixGame or a
// *Monotone.
type Problem interface {
	// Dim returns the dimension of z.
	Dim() int
}

// MatrixGame is the two-player zero-sum game with payoff matrix A (SPEC
// section 1): the row player picks p in the simplex of dimension m and
// maximizes pᵀAq, the column player picks q and minimizes it. As a variational
// inequality z = (p, q) and F(p, q) = (−A q, Aᵀ p). Its duality gap
//
//	gap(p, q) = max_i (A q)_i − min_j (Aᵀ p)_j ≥ 0
//
// brackets the value: min_j (Aᵀ p)_j ≤ v* ≤ max_i (A q)_i.
//
// Matrix games run on a tensorops.Backend (Settings.Backend; the CPU by
// default), which holds A and every iterate.
type MatrixGame struct {
	a      *tensor.Dense
	m, n   int
	maxAbs float64
	rowSet tensorops.Setup
	colSet tensorops.Setup

	// The l2 norms the Euclidean setups' default constants need, computed
	// on first use with one pass over A.
	normsOnce              sync.Once
	maxRowNorm, maxColNorm float64
	frobenius              float64
}

// NewMatrixGame returns the game with payoff matrix a, which must be a 2-D,
// non-empty, contiguous row-major float64 or float32 tensor
// (tensorops.CheckMatrix) with finite entries (the error names the first
// offending index). The game aliases a: it must not be
// modified while the game is in use. Both players use the entropic setup;
// see SetSetups.
func NewMatrixGame(a *tensor.Dense) (*MatrixGame, error) {
	m, n, err := tensorops.CheckMatrix(a)
	if err != nil {
		return nil, err
	}
	g := &MatrixGame{a: a, m: m, n: n}
	bad := -1
	switch d := a.Data().(type) {
	case []float64:
		g.maxAbs, bad = scanMatrix(d[:m*n])
	case []float32:
		g.maxAbs, bad = scanMatrix(d[:m*n])
	}
	if bad >= 0 {
		v, _ := a.At(bad/n, bad%n)
		return nil, fmt.Errorf("solver: payoff matrix entry (%d, %d) is %v", bad/n, bad%n, v)
	}
	return g, nil
}

// scanMatrix returns max |d_i| and the index of the first non-finite entry
// (−1 if none). It reads d once at memory speed, in parallel on GOMAXPROCS
// goroutines for large matrices: it is the only pass over A before the
// first iteration that the solver itself makes, and a plain loop with
// math.Max ran at 0.9 GB/s, 1.2 s for a 1 GB matrix.
func scanMatrix[T float32 | float64](d []T) (float64, int) {
	w := runtime.GOMAXPROCS(0)
	if len(d) < 1<<20 {
		w = 1
	}
	step := (len(d) + w - 1) / w
	mx, bad := make([]float64, w), make([]int, w)
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := min(k*step, len(d)), min((k+1)*step, len(d))
		scan := func() {
			mx[k], bad[k] = scanBlock(d[lo:hi])
			if bad[k] >= 0 {
				bad[k] += lo
			}
		}
		if w == 1 {
			scan()
		} else {
			wg.Go(scan)
		}
	}
	wg.Wait()
	for _, b := range bad {
		if b >= 0 {
			return 0, b
		}
	}
	return slices.Max(mx), -1
}

// scanBlock is scanMatrix on one goroutine. v*0 is ±0 for a finite v and
// NaN otherwise, so the sums z stay 0 exactly when every entry is finite;
// the comparisons that keep the maxima are rarely true, so their branches
// are predicted. Four independent chains keep the loop at memory speed.
func scanBlock[T float32 | float64](d []T) (float64, int) {
	var m0, m1, m2, m3 T
	var z T
	i := 0
	for ; i+4 <= len(d); i += 4 {
		b := d[i : i+4 : i+4]
		a0, a1, a2, a3 := abs(b[0]), abs(b[1]), abs(b[2]), abs(b[3])
		z += (b[0]*0 + b[1]*0) + (b[2]*0 + b[3]*0)
		if a0 > m0 {
			m0 = a0
		}
		if a1 > m1 {
			m1 = a1
		}
		if a2 > m2 {
			m2 = a2
		}
		if a3 > m3 {
			m3 = a3
		}
	}
	for ; i < len(d); i++ {
		z += d[i] * 0
		if a := abs(d[i]); a > m0 {
			m0 = a
		}
	}
	if z != 0 { // NaN: find the first offending entry
		for i, v := range d {
			if v-v != 0 {
				return 0, i
			}
		}
	}
	return float64(max(m0, m1, m2, m3)), -1
}

func abs[T float32 | float64](v T) T {
	if v < 0 {
		return -v
	}
	return v
}

// SetSetups chooses the players' geometries (tensorops.Entropic, the
// default, or tensorops.Euclidean). It returns an error for other values.
func (g *MatrixGame) SetSetups(row, col tensorops.Setup) error {
	for _, s := range []tensorops.Setup{row, col} {
		if s != tensorops.Entropic && s != tensorops.Euclidean {
			return fmt.Errorf("solver: unknown setup %d", s)
		}
	}
	g.rowSet, g.colSet = row, col
	return nil
}

// geometry returns the setup of a block as a Geometry.
func blockGeometry(s tensorops.Setup, n int) Geometry {
	if s == tensorops.Euclidean {
		return EuclideanSimplex{N: n}
	}
	return EntropicSimplex{N: n}
}

// constants returns the step-rule constants of the game in its setups:
// D² is the sum of the blocks' D². With both players entropic G0 = L = max
// |A_ij| (SPEC section 3: the exact bound of ‖F‖_* in the l∞ dual norm, and
// the l1 → l∞ norm of A). A Euclidean block's dual norm is l2: ‖A q‖₂ is at
// most the largest column norm of A and ‖Aᵀp‖₂ the largest row norm (A q is
// a convex combination of columns), which bound ‖F‖_*; L is the norm of A
// between the blocks' norms: the largest row (column) norm for an entropic
// row (column) block facing a Euclidean one, and the Frobenius norm, an
// upper bound of the spectral norm, when both are Euclidean.
func (g *MatrixGame) constants() Constants {
	d2 := blockGeometry(g.rowSet, g.m).DiameterSq() + blockGeometry(g.colSet, g.n).DiameterSq()
	k := Constants{D: math.Sqrt(d2), G0: g.maxAbs, L: g.maxAbs}
	if g.rowSet == tensorops.Entropic && g.colSet == tensorops.Entropic {
		if k.G0 == 0 { // the zero game: any positive step will do
			k.G0, k.L = 1, 1
		}
		return k
	}
	g.normsOnce.Do(g.computeNorms)
	bRow, bCol := g.maxAbs, g.maxAbs // bounds of ‖F_p‖_* and ‖F_q‖_*
	if g.rowSet == tensorops.Euclidean {
		bRow = g.maxColNorm
	}
	if g.colSet == tensorops.Euclidean {
		bCol = g.maxRowNorm
	}
	k.G0 = math.Hypot(bRow, bCol)
	switch {
	case g.rowSet == tensorops.Euclidean && g.colSet == tensorops.Euclidean:
		k.L = g.frobenius
	case g.rowSet == tensorops.Euclidean:
		k.L = g.maxColNorm
	default:
		k.L = g.maxRowNorm
	}
	if k.G0 == 0 {
		k.G0, k.L = 1, 1
	}
	return k
}

// computeNorms finds the largest row and column l2 norms and the Frobenius
// norm of A (squares formed after scaling by 1/max |A_ij|, so none
// overflows).
func (g *MatrixGame) computeNorms() {
	if g.maxAbs == 0 {
		return
	}
	var rowMax, colMax, fro float64
	switch d := g.a.Data().(type) {
	case []float64:
		rowMax, colMax, fro = sumSquares(d[:g.m*g.n], g.m, g.n, 1/g.maxAbs)
	case []float32:
		rowMax, colMax, fro = sumSquares(d[:g.m*g.n], g.m, g.n, 1/g.maxAbs)
	}
	g.maxRowNorm = g.maxAbs * math.Sqrt(rowMax)
	g.maxColNorm = g.maxAbs * math.Sqrt(colMax)
	g.frobenius = g.maxAbs * math.Sqrt(fro)
}

// sumSquares returns the largest row and column sums of squares and the
// total sum of squares of the m×n row-major matrix d scaled by s.
func sumSquares[T float32 | float64](d []T, m, n int, s float64) (rowMax, colMax, total float64) {
	cols := make([]float64, n)
	for i := range m {
		var r float64
		for j, v := range d[i*n : (i+1)*n] {
			x := float64(v) * s
			r += x * x
			cols[j] += x * x
		}
		total += r
		rowMax = math.Max(rowMax, r)
	}
	for _, c := range cols {
		colMax = math.Max(colMax, c)
	}
	return rowMax, colMax, total
}

// Setups returns the players' geometries.
func (g *MatrixGame) Setups() (row, col tensorops.Setup) { return g.rowSet, g.colSet }

// Dims returns the payoff matrix's shape: m row strategies, n column
// strategies.
func (g *MatrixGame) Dims() (m, n int) { return g.m, g.n }

// Dim returns m + n.
func (g *MatrixGame) Dim() int { return g.m + g.n }

// MaxAbs returns max |A_ij|: the scale of the relative gap and, when both
// players use the entropic setup, the default G0 (the exact bound of ‖F‖_*)
// and the Lipschitz constant of F used by the constant rule.
func (g *MatrixGame) MaxAbs() float64 { return g.maxAbs }

// Payoff returns the payoff matrix (aliased).
func (g *MatrixGame) Payoff() *tensor.Dense { return g.a }

// Operator is a monotone operator F on R^d.
type Operator interface {
	// Apply sets dst = F(z) for a point z of the problem's set. It must not
	// retain dst or z.
	Apply(dst, z []float64)
}

// OperatorFunc adapts a function to the Operator interface.
type OperatorFunc func(dst, z []float64)

// Apply calls f(dst, z).
func (f OperatorFunc) Apply(dst, z []float64) { f(dst, z) }

// Monotone is a general monotone variational inequality given through Go
// values: convex minimization (F = ∇f), convex-concave saddle points
// (F = (∇_u f, −∇_w f)) or any monotone map, over the set of Geometry. It runs
// in Go on the host.
//
// The certified gap of a point x is the strong gap ⟨F(x), x⟩ + Support(−F(x))
// = max_z ⟨F(x), x − z⟩, an upper bound of the VI gap and, for F = ∇f, of
// f(x) − min f; the gap of the average is the regret bound
// Σ w_t⟨g_t, x_t⟩/W + Support(−ḡ), valid for any monotone F and equal to the
// saddle gap for bilinear problems. Both are +Inf on unbounded sets.
type Monotone struct {
	// F is the operator (required).
	F Operator
	// Set is the geometry of the feasible set (required).
	Set Geometry
	// Scale divides the gap in the relative-gap stopping test; 0 means 1.
	Scale float64
	// Lipschitz is a Lipschitz constant of F in the setup's norm, used by the
	// constant step rule (step 1/Lipschitz); 0 means unknown.
	Lipschitz float64
	// Bound is the default G0: an upper bound of ‖F‖_* on the set where one
	// exists, otherwise the operator's scale near the start (as for the
	// singular and the unbounded-domain problems of the registry, where no
	// bound exists and the universal rules need only a scale); 0 means
	// estimate it (SPEC section 3).
	Bound float64
	// Exact, when set, is the noiseless operator of a stochastic F (for
	// example the F given to Noisy). The step rules still see only F's
	// values, but every certificate is computed from Exact's: the start
	// point's, the last iterate's and the regret bound of the average,
	// Σ w_t ⟨Exact(x_t), x_t − z⟩ / Σ w_t maximized over the set, which
	// bounds the average's gap for a monotone Exact. So Result.Gap stays a
	// certificate under noise, at the price of one evaluation of Exact per
	// iteration (Stats.ExactEvaluations; they are not Evaluations and do not
	// count against MaxEvaluations). Nil: certificates use F's values,
	// which for a stochastic F are estimates, not certificates.
	Exact Operator
}

// Dim returns the geometry's dimension.
func (p *Monotone) Dim() int {
	if p.Set == nil {
		return 0
	}
	return p.Set.Dim()
}

func (p *Monotone) validate() error {
	if p.F == nil || p.Set == nil {
		return errors.New("solver: Monotone needs an operator and a set")
	}
	if v, ok := p.Set.(Validator); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if p.Set.Dim() < 1 {
		return errors.New("solver: empty set")
	}
	for _, c := range []float64{p.Scale, p.Lipschitz, p.Bound} {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("solver: Monotone constants must be finite and ≥ 0, got %g", c)
		}
	}
	return nil
}
