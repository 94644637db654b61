package problems

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/solver"
)

// Center is the Bregman-bounded problem of the registry ("center"): minimax
// location (the 1-center problem) with costs growing as the 3/2 power of the
// distance, on the unbounded domain R^d:
//
//	min_{x∈R^d} f(x) = max_k ⅔ ‖x − b_k‖^{3/2},   F(x) = (x − b_k)/√‖x − b_k‖
//
// for the farthest point b_k (a subgradient of f). F is neither Lipschitz
// (f is non-smooth where the farthest point changes) nor bounded (‖F(x)‖ =
// √max_k ‖x − b_k‖ grows without bound), so neither Lipschitz setting of
// the paper applies; it grows like √‖x‖, which is exactly what relative
// continuity with the cubic reference function admits (Lu 2019; the paper's
// section 5 with R(x) = ⅓‖x‖³): with R = ⅓‖x‖³ + ½‖x‖² (solver.Cubic, Sigma = 1),
// √D(y, x)/‖y − x‖ ≥ √((1 + ‖x‖)/2) and ‖F(x)‖ ≤ √(‖x‖ + β) with β =
// max_k ‖b_k‖, so F is M-Bregman bounded (C1) with M = √(2 max(1, β)), and
// ga-bounded has rate O(√(log T / T)) (Theorem 5.1). (The quadratic term is
// needed: with the pure cubic the bound vanishes at 0, where F does not. A
// maximum of convex quadratics, Lu's other example, has a gradient growing
// linearly, which relative continuity matches with a reference function of
// degree 4, not 3.)
//
// Known optimum, planted: the points are c* ± ρ v_j (j = 1..d, v_j random
// unit vectors spanning R^d) on the sphere of radius ρ around c*, and d more
// points inside it (at distance at most 0.9ρ). For any x = c* + δ, one of
// ±v_j has ⟨±v_j, δ⟩ ≤ 0, so max_k ‖x − b_k‖² ≥ ρ² + ‖δ‖²: the unique
// minimizer is x* = c*, with f* = ⅔ ρ^{3/2}. Here ρ = 1 and ‖c*‖ = 2, a random
// direction; the start point is 0.
//
// Unbounded domain: the setup's certification ball (solver.Cubic.Radius) has
// radius 3 = ‖c*‖ + ρ, which holds x* and every b_k; solver.Solve's certified gap is
// the restricted gap over that ball (an upper bound of f(x) − f*, since x*
// lies in it), and D² = 3³/3 + 3²/2 = 13.5 ≥ R(x*) = D(x*, y₀), the paper's
// (A1) at the start.
type Center struct {
	Points []float64 // K×d, row-major
	K, D   int
}

// farthest returns the index and the distance of the point farthest from x.
func (c *Center) farthest(x []float64) (int, float64) {
	best, bd := 0, -1.0
	for k := range c.K {
		b := c.Points[k*c.D : (k+1)*c.D]
		var s float64
		for i, v := range x {
			t := v - b[i]
			s += t * t
		}
		if s > bd {
			best, bd = k, s
		}
	}
	return best, math.Sqrt(bd)
}

// Apply sets dst = (x − b_k)/√‖x − b_k‖ for the farthest b_k.
func (c *Center) Apply(dst, x []float64) {
	k, r := c.farthest(x)
	b := c.Points[k*c.D : (k+1)*c.D]
	if r == 0 {
		clear(dst)
		return
	}
	s := 1 / math.Sqrt(r)
	for i, v := range x {
		dst[i] = (v - b[i]) * s
	}
}

// Objective returns f(x) = ⅔ max_k ‖x − b_k‖^{3/2}.
func (c *Center) Objective(x []float64) float64 {
	_, r := c.farthest(x)
	return 2.0 / 3 * r * math.Sqrt(r)
}

// NewCenter builds the registry's "center" problem in dimension d = size
// (3d points; see Center) with the cubic setup R = ⅓‖x‖³ + ½‖x‖² and
// certification radius 3. Bound is the solver's G0 recipe (solver.EstimateG0)
// evaluated once with the problem's generator, on the certification ball: F has no bound on R^d. Scale
// is the certified gap of the start point.
func NewCenter(size int, seed uint64) (*solver.Monotone, Info, error) {
	if size < 1 {
		return nil, Info{}, fmt.Errorf("problems: center size %d", size)
	}
	d := size
	const rho, dist = 1.0, 2.0
	rng := newRNG(seed, 0xce47e4)
	unit := func() []float64 {
		for {
			v := make([]float64, d)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			if n := math.Sqrt(dot(v, v)); n > 1e-3 {
				for i := range v {
					v[i] /= n
				}
				return v
			}
		}
	}
	cs := unit()
	for i := range cs {
		cs[i] *= dist
	}
	var pts [][]float64
	add := func(v []float64, r float64) {
		b := make([]float64, d)
		for i := range b {
			b[i] = cs[i] + r*v[i]
		}
		pts = append(pts, b)
	}
	for range d {
		v := unit()
		add(v, rho)
		add(v, -rho)
		add(unit(), 0.9*rho*rng.Float64())
	}
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	c := &Center{Points: make([]float64, 0, len(pts)*d), K: len(pts), D: d}
	for _, b := range pts {
		c.Points = append(c.Points, b...)
	}
	fs := 2.0 / 3 * rho * math.Sqrt(rho)
	geo := &solver.Cubic{N: d, Sigma: 1, Radius: dist + rho}
	m := &solver.Monotone{F: c, Set: geo}
	m.Bound = solver.EstimateG0(c, geo, rng)
	m.Scale = startGap(m)
	info := minimization(c.Objective, fs, cs)
	info.Name, info.Setting, info.Rule = "center", BregmanBounded, "ga-bounded"
	info.Summary = fmt.Sprintf("min_{x∈R^%d} max_k ⅔‖x − b_k‖^{3/2} over %d points (1-center, planted), cubic setup", d, c.K)
	info.Source = "relative continuity: Lu (2019), reference function ⅓‖x‖³ (+ ½‖x‖²); the paper's Bregman bounded " +
		"setting (C1), Theorem 5.1; restricted gap: Nesterov (2007)"
	info.Size, info.Dim = size, d
	info.GapKind = "restricted gap over the ball ‖z‖ ≤ 3 (holds x*), an upper bound of f(x) − f*"
	return m, info, nil
}
