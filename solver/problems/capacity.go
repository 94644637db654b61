package problems

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpump/gpump/solver"
)

// Capacity is the Bregman-smooth problem of the registry ("capacity"):
// Kleinrock's capacity assignment (Kleinrock 1964, "Communication Nets:
// Stochastic Message Flow and Delay"; 1976, "Queueing Systems, Volume II:
// Computer Applications"). Link i of a network of M/M/1 links carries
// traffic λ_i and has capacity C_i; the mean delay is Σ_i (λ_i/γ) / (μ C_i −
// λ_i), and the budget Σ C_i is fixed. In the excess capacities x_i = C_i −
// λ_i/μ, normalized to sum to 1, and with w_i ∝ λ_i, this is
//
//	min_{x∈Δ_n} f(x) = Σ_i w_i / x_i,      F(x) = ∇f(x) = (−w_i / x_i²)_i.
//
// It is of the kind that motivates Antonakopoulos, Belmega and Mertikopoulos
// (2019, "An adaptive mirror-prox method for variational inequalities with
// singular operators"), who introduced Bregman smoothness for resource
// allocation problems: the operator is singular at the boundary of the
// simplex — unbounded there, so it has no Lipschitz constant and no bound on
// the set, and the Lipschitz theory does not apply — while the entropic
// setup's multiplicative updates keep the iterates away from the boundary (a
// small x_i has a large −F_i and is pushed up), where F varies smoothly
// relative to the entropy. It is solved in the entropic setup with
// ga-smooth, the paper's rule for the Bregman smooth setting (Theorem 4.1,
// rate O(1/T)).
//
// Known optimum in closed form (Kleinrock's square-root assignment): the KKT
// conditions w_i/x_i² = ν (ν the multiplier of Σ x_i = 1) give
//
//	x*_i = √w_i / Σ_j √w_j,   f* = (Σ_i √w_i)².
//
// Data (seeded): w_i = exp(3 U_i) with U_i uniform in [−1, 1], so the
// weights span e⁶ ≈ 400 and the smallest x*_i are near the boundary.
type Capacity struct {
	W []float64
}

// Apply sets dst_i = −w_i / x_i² (−Inf where x_i = 0).
func (c *Capacity) Apply(dst, x []float64) {
	for i, w := range c.W {
		dst[i] = -w / (x[i] * x[i])
	}
}

// Objective returns f(x) = Σ w_i / x_i (+Inf if some x_i = 0).
func (c *Capacity) Objective(x []float64) float64 {
	var s float64
	for i, w := range c.W {
		s += w / x[i]
	}
	return s
}

// Solution returns x* and f*.
func (c *Capacity) Solution() ([]float64, float64) {
	x := make([]float64, len(c.W))
	var s float64
	for i, w := range c.W {
		x[i] = math.Sqrt(w)
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
	return x, s * s
}

// NewCapacity builds the registry's "capacity" problem with n = size links
// (see Capacity) on the entropic simplex. No bound of ‖F‖_∞ exists on the
// simplex, and the solver's G0 recipe (solver.EstimateG0) (random points of the simplex) would
// meet coordinates near 0 and make G0, hence the first step, arbitrarily bad;
// Bound is instead twice ‖F(y₀)‖_∞ = 2 n² max w_i at the uniform start y₀,
// the scale of the operator along the iterates (the paper's (A3)), which the
// universal rules use only for their first step D/G0. Scale is the
// certified gap of the start point; there is no Lipschitz constant.
func NewCapacity(size int, seed uint64) (*solver.Monotone, Info, error) {
	if size < 2 {
		return nil, Info{}, fmt.Errorf("problems: capacity size %d (want ≥ 2)", size)
	}
	rng := newRNG(seed, 0xca9ac17)
	c := &Capacity{W: make([]float64, size)}
	for i := range c.W {
		c.W[i] = math.Exp(3 * (2*rng.Float64() - 1))
	}
	xs, fs := c.Solution()
	m := &solver.Monotone{F: c, Set: solver.EntropicSimplex{N: size}}
	n := float64(size)
	m.Bound = 2 * n * n * slices.Max(c.W)
	m.Scale = startGap(m)
	info := minimization(c.Objective, fs, xs)
	info.Name, info.Setting, info.Rule = "capacity", BregmanSmooth, "ga-smooth"
	info.Summary = fmt.Sprintf("min_{x∈Δ_%d} Σ w_i/x_i (square-root capacity assignment), entropic setup", size)
	info.Source = "Kleinrock (1964), square-root capacity assignment; singular resource-allocation operators: Antonakopoulos, " +
		"Belmega and Mertikopoulos (2019); the paper's Bregman smooth setting (B1), Theorem 4.1"
	info.Size, info.Dim = size, size
	info.GapKind = "strong gap / regret bound over the simplex, an upper bound of f(x) − f*"
	return m, info, nil
}
