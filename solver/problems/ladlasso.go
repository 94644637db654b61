package problems

import (
	"fmt"
	"math"
	"sync"

	"github.com/gpump/gpump/solver"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// LADLasso is the Lipschitz-bounded problem of the registry ("lad-lasso"):
// least-absolute-deviations regression with an l1 penalty (the LAD-lasso of
// Wang, Li and Jiang 2007) on the box U = [−1, 1]^d,
//
//	min_{u∈U} λ‖u‖₁ + ‖B u − c‖₁,
//
// written as the convex–concave saddle point
//
//	min_{u∈[−1,1]^d} max_{w∈[−1,1]^k} f(u, w) = λ‖u‖₁ + wᵀ(B u − c)
//
// (the l1-regression saddle point of Juditsky and Nemirovski 2011, "First
// order methods for nonsmooth convex large-scale optimization, II", with
// max_{w∈box} wᵀr = ‖r‖₁). Its operator
//
//	F(u, w) = (λ sign(u) + Bᵀw, c − B u)
//
// is bounded on the boxes but not Lipschitz: the subgradient λ sign(u) of the
// penalty jumps by 2λ wherever a coordinate of u crosses 0, and the solution
// is sparse, so the iterates keep crossing. This is the paper's Lipschitz
// bounded setting (A4), where ga-bounded has rate O(√(log T / T)) (Theorem
// 3.2); the bilinear part alone would be Lipschitz smooth.
//
// Data (seeded): B is k×d standard normal with k = 2d; u_true has d/4
// non-zeros of magnitude in [0.3, 0.9] and random sign; c = B u_true + e with
// Laplace noise of scale 0.1 and a gross error (±5) on one row in ten; λ =
// 0.3 ‖Bᵀ sign(c)‖_∞, 0.3 times the smallest λ for which u = 0 is optimal.
//
// Known optimum: the value min_u λ‖u‖₁ + ‖B u − c‖₁ by a linear program
// (gonum's simplex method), independent of the solver. The exact saddle gap
// of a point (u, w) is P(u) − Δ(w) with the primal P(u) = λ‖u‖₁ + ‖B u −
// c‖₁ and the dual Δ(w) = min_u f(u, w) = −cᵀw − Σ_j max(0, |(Bᵀw)_j| − λ).
type LADLasso struct {
	B      []float64 // k×d, row-major
	C      []float64
	Lambda float64
	K, D   int

	once sync.Once
	opt  float64
	err  error
}

// optimum returns OptimumLP's value, solving the program on first use: the
// registry's Info.Optimum.
func (p *LADLasso) optimum() (float64, error) {
	p.once.Do(func() { p.opt, _, p.err = p.OptimumLP() })
	return p.opt, p.err
}

// Apply sets dst = F(u, w) with sign(0) = 0.
func (p *LADLasso) Apply(dst, z []float64) {
	u, w := z[:p.D], z[p.D:]
	fu, fw := dst[:p.D], dst[p.D:]
	for j, v := range u {
		switch {
		case v > 0:
			fu[j] = p.Lambda
		case v < 0:
			fu[j] = -p.Lambda
		default:
			fu[j] = 0
		}
	}
	for i := range p.K {
		row := p.B[i*p.D : (i+1)*p.D]
		var r float64
		for j, b := range row {
			r += b * u[j]
			fu[j] += b * w[i]
		}
		fw[i] = p.C[i] - r
	}
}

// Primal returns P(u) = λ‖u‖₁ + ‖B u − c‖₁.
func (p *LADLasso) Primal(u []float64) float64 {
	var s float64
	for _, v := range u {
		s += p.Lambda * math.Abs(v)
	}
	for i := range p.K {
		s += math.Abs(dot(p.B[i*p.D:(i+1)*p.D], u) - p.C[i])
	}
	return s
}

// Dual returns Δ(w) = min_{u∈[−1,1]^d} f(u, w) = −cᵀw − Σ_j max(0, |(Bᵀw)_j| − λ).
func (p *LADLasso) Dual(w []float64) float64 {
	s := -dot(p.C, w)
	for j := range p.D {
		var bw float64
		for i := range p.K {
			bw += p.B[i*p.D+j] * w[i]
		}
		s -= math.Max(0, math.Abs(bw)-p.Lambda)
	}
	return s
}

// SaddleGap returns P(u) − Δ(w) for z = (u, w).
func (p *LADLasso) SaddleGap(z []float64) float64 { return p.Primal(z[:p.D]) - p.Dual(z[p.D:]) }

// OptimumLP returns min_{u∈[−1,1]^d} P(u) and a minimizer, by the linear
// program over u = u⁺ − u⁻, residual B u − c = e⁺ − e⁻ (all ≥ 0):
//
//	min λ Σ(u⁺ + u⁻) + Σ(e⁺ + e⁻)  s.t.  B(u⁺ − u⁻) − e⁺ + e⁻ = c,  u⁺ ≤ 1, u⁻ ≤ 1,
//
// with slacks for the bounds, solved by gonum's simplex method.
func (p *LADLasso) OptimumLP() (float64, []float64, error) {
	d, k := p.D, p.K
	// Variables: u⁺ (d), u⁻ (d), e⁺ (k), e⁻ (k), s⁺ (d), s⁻ (d).
	nv := 4*d + 2*k
	cost := make([]float64, nv)
	for j := range 2 * d {
		cost[j] = p.Lambda
	}
	for i := range 2 * k {
		cost[2*d+i] = 1
	}
	a := mat.NewDense(k+2*d, nv, nil)
	b := make([]float64, k+2*d)
	for i := range k {
		for j := range d {
			a.Set(i, j, p.B[i*d+j])
			a.Set(i, d+j, -p.B[i*d+j])
		}
		a.Set(i, 2*d+i, -1)
		a.Set(i, 2*d+k+i, 1)
		b[i] = p.C[i]
	}
	for j := range d {
		a.Set(k+j, j, 1) // u⁺_j + s⁺_j = 1
		a.Set(k+j, 2*d+2*k+j, 1)
		a.Set(k+d+j, d+j, 1) // u⁻_j + s⁻_j = 1
		a.Set(k+d+j, 3*d+2*k+j, 1)
		b[k+j], b[k+d+j] = 1, 1
	}
	_, x, err := lp.Simplex(cost, a, b, 1e-10, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("problems: lad-lasso linear program: %w", err)
	}
	u := make([]float64, d)
	for j := range d {
		u[j] = math.Min(math.Max(x[j]-x[d+j], -1), 1)
	}
	return p.Primal(u), u, nil
}

// NewLADLasso builds the registry's "lad-lasso" problem with d = size (k =
// 2d residuals; see LADLasso) on the product of the boxes [−1, 1]^d and
// [−1, 1]^k, Euclidean setup. Bound is the solver's G0 recipe
// (solver.EstimateG0) evaluated once with the problem's generator; Scale is the certified gap of the start point; there
// is no Lipschitz constant.
func NewLADLasso(size int, seed uint64) (*solver.Monotone, Info, error) {
	if size < 1 {
		return nil, Info{}, fmt.Errorf("problems: lad-lasso size %d", size)
	}
	d := size
	k := 2 * d
	rng := newRNG(seed, 0x1ad1a550)
	p := &LADLasso{B: make([]float64, k*d), C: make([]float64, k), K: k, D: d}
	for i := range p.B {
		p.B[i] = rng.NormFloat64()
	}
	uTrue := make([]float64, d)
	for _, j := range rng.Perm(d)[:max(1, d/4)] {
		v := 0.3 + 0.6*rng.Float64()
		if rng.IntN(2) == 0 {
			v = -v
		}
		uTrue[j] = v
	}
	for i := range k {
		e := 0.1 * rng.ExpFloat64()
		if rng.IntN(2) == 0 {
			e = -e
		}
		if rng.IntN(10) == 0 {
			e += 5 * float64(1-2*rng.IntN(2))
		}
		p.C[i] = dot(p.B[i*d:(i+1)*d], uTrue) + e
	}
	var lmax float64
	for j := range d {
		var s float64
		for i := range k {
			s += p.B[i*d+j] * ladSign(p.C[i])
		}
		lmax = math.Max(lmax, math.Abs(s))
	}
	p.Lambda = 0.3 * lmax
	boxU, _ := solver.NewBox(d, -1, 1)
	boxW, _ := solver.NewBox(k, -1, 1)
	m := &solver.Monotone{F: p, Set: solver.NewProduct(boxU, boxW)}
	m.Bound = solver.EstimateG0(p, m.Set, rng)
	m.Scale = startGap(m)
	info := Info{
		Name:    "lad-lasso",
		Setting: LipschitzBounded,
		Rule:    "ga-bounded",
		Summary: fmt.Sprintf("min_{u∈[−1,1]^%d} max_{w∈[−1,1]^%d} λ‖u‖₁ + wᵀ(Bu − c): LAD-lasso regression as a saddle point, λ = %.4g", d, k, p.Lambda),
		Source: "LAD-lasso: Wang, Li and Jiang (2007); l1-regression saddle point: Juditsky and Nemirovski (2011); " +
			"non-smooth bounded operator: the paper's Lipschitz bounded setting (A4), Theorem 3.2",
		Size: size, Dim: d + k,
		Optimum:   p.optimum,
		Objective: func(x []float64) float64 { return p.Primal(x[:d]) },
		Error:     p.SaddleGap,
		ErrorKind: "saddle gap P(u) − Δ(w) (P primal, Δ dual objective)",
		GapKind:   "strong gap / regret bound over the boxes, an upper bound of the saddle gap",
	}
	return m, info, nil
}

func ladSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
