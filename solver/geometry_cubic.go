package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

var _ Sampler = (*Cubic)(nil)

// Cubic is the whole space R^N with the distance-generating function
//
//	R(x) = ⅓‖x‖³ + (Sigma/2)‖x‖²        (‖·‖ the l2 norm)
//
// of relative continuity (Lu 2019; the paper's section 5 on Bregman
// boundedness uses R = ⅓‖x‖³, Sigma = 0). It is the setup for
// operators that grow without bound on an unbounded domain: since
//
//	D(y, x) = (‖y‖ − ‖x‖)²(2‖y‖ + ‖x‖)/6 + (‖x‖ + Sigma)‖y − x‖²/2
//	        ≥ (‖x‖ + Sigma)/2 · ‖y − x‖²,
//
// an operator with ‖F(x)‖₂ ≤ M √((‖x‖ + Sigma)/2) is M-Bregman bounded
// (paper, assumption C1: ‖F(x)‖_* ≤ M √D(y, x)/‖x − y‖ for all x, y), which
// admits square-root growth of F at infinity. With Sigma = 0 the bound
// vanishes at x = 0, so F(0) must be 0; Sigma > 0 (R is then Sigma-strongly
// convex in l2, the paper's μ = 1 for Sigma = 1) lifts that.
//
// States are points. The prox-mapping has no constraint: it solves ∇R(z) =
// ∇R(c) − eta g exactly, in closed form (∇R(x) = (‖x‖ + Sigma) x, see Prox).
// Norm and dual norm are l2; Start is argmin R = 0.
//
// # Unbounded domain: the certification ball
//
// On R^N the strong gap max_z ⟨F(x), x − z⟩ and sup R − inf R are infinite.
// A Cubic with Radius ρ > 0 certifies instead the restricted gap of Nesterov
// (2007), the same maximum over the ball ‖z‖ ≤ ρ: Support(g) = ρ‖g‖₂ and
// DiameterSq = R(ρ) − R(0) = ρ³/3 + Sigma ρ²/2, sup R − inf R over that ball.
// When a solution x* lies in the ball, the restricted gap of a point (and
// Solve's regret bound for the average) is an upper bound of f(x) − f* for a
// convex objective f with F = ∂f, and D² ≥ D(x*, y₀) = R(x*), the paper's
// assumption (A1) at the start point — the constant its bounded-setting rule
// (ga-bounded, eq. (3.4)–(3.5)) needs in place of the diameter of the
// domain. The iterates themselves are not confined to the ball. With Radius
// = 0, Support (of a non-zero g) and DiameterSq are +Inf: Solve then needs
// MirrorProx.Diameter and every certified gap is +Inf.
type Cubic struct {
	// N is the dimension.
	N int
	// Sigma is the weight of the quadratic term (≥ 0).
	Sigma float64
	// Radius is the radius of the certification ball around 0 (≥ 0; 0 for
	// none).
	Radius float64
}

// Dim returns N.
func (c *Cubic) Dim() int { return c.N }

// Validate checks N ≥ 1 and finite Sigma ≥ 0 and Radius ≥ 0.
func (c *Cubic) Validate() error {
	if c.N < 1 || !(c.Sigma >= 0) || math.IsInf(c.Sigma, 0) || !(c.Radius >= 0) || math.IsInf(c.Radius, 0) {
		return fmt.Errorf("solver: invalid cubic setup (dimension %d, sigma %g, radius %g)", c.N, c.Sigma, c.Radius)
	}
	return nil
}

// Start sets 0, the minimizer of R.
func (c *Cubic) Start(state []float64) { clear(state) }

// StartAt copies point (any finite point: the domain is the whole space).
func (c *Cubic) StartAt(state, point []float64) error {
	if !finite(point) {
		return fmt.Errorf("solver: start point has a non-finite entry")
	}
	copy(state, point)
	return nil
}

// Point copies the state.
func (c *Cubic) Point(dst, state []float64) { copy(dst, state) }

// Prox sets dst = argmin_z ⟨eta g, z⟩ + D(z, center), the solution of
// ∇R(z) = v with v = ∇R(center) − eta g. Since ∇R(z) = (‖z‖ + Sigma) z, z is
// parallel to v and r = ‖z‖ solves r² + Sigma r = ‖v‖:
//
//	r = 2‖v‖ / (Sigma + √(Sigma² + 4‖v‖)),   z = v / (Sigma + r),
//
// a form without cancellation. (With Sigma = 0 and v = 0, z = 0.)
func (c *Cubic) Prox(dst, dstPoint, center, g []float64, eta float64) {
	f := cubicNorm(center) + c.Sigma
	for i, x := range center {
		dst[i] = f*x - eta*g[i]
	}
	s := cubicNorm(dst)
	r := 2 * s / (c.Sigma + math.Sqrt(c.Sigma*c.Sigma+4*s))
	if d := c.Sigma + r; d > 0 {
		for i := range dst {
			dst[i] /= d
		}
	} else {
		clear(dst)
	}
	copy(dstPoint, dst)
}

// Divergence returns D(z, c) = R(z) − R(c) − ⟨∇R(c), z − c⟩ in the form
//
//	(a − b)² (2a + b)/6 + (b + Sigma) ‖z − c‖²/2,   a = ‖z‖, b = ‖c‖,
//
// a sum of two non-negative terms (so D ≥ 0 and D(c, c) = 0 exactly, with
// no cancellation when z is near c); a − b is computed as ⟨z − c, z + c⟩ /
// (a + b).
func (c *Cubic) Divergence(z, _, ctr []float64) float64 {
	a, b := cubicNorm(z), cubicNorm(ctr)
	var inner, d2 float64
	for i, x := range z {
		d := x - ctr[i]
		inner += d * (x + ctr[i])
		d2 += d * d
	}
	var ab float64
	if a+b > 0 {
		ab = inner / (a + b)
	}
	return ab*ab*(2*a+b)/6 + (b+c.Sigma)*d2/2
}

// Norm returns the l2 norm.
func (c *Cubic) Norm(v []float64) float64 { return cubicNorm(v) }

// DualNorm returns the l2 norm.
func (c *Cubic) DualNorm(g []float64) float64 { return cubicNorm(g) }

// Support returns Radius ‖g‖₂, the support function of the certification
// ball (see the type's comment): 0 for g = 0 and +Inf for g ≠ 0 when Radius
// is 0.
func (c *Cubic) Support(g []float64) float64 {
	n := cubicNorm(g)
	if n == 0 {
		return 0
	}
	if c.Radius == 0 {
		return math.Inf(1)
	}
	return c.Radius * n
}

// DiameterSq returns R(Radius) − R(0) = Radius³/3 + Sigma Radius²/2, or +Inf
// when Radius is 0.
func (c *Cubic) DiameterSq() float64 {
	if c.Radius == 0 {
		return math.Inf(1)
	}
	r := c.Radius
	return r*r*r/3 + c.Sigma*r*r/2
}

// Sample draws a point uniformly from the certification ball (the unit ball
// when Radius is 0); the default G0 of Solve looks at a few of them.
func (c *Cubic) Sample(dst []float64, rng *rand.Rand) {
	r := c.Radius
	if r == 0 {
		r = 1
	}
	var s float64
	for i := range dst {
		dst[i] = rng.NormFloat64()
		s += dst[i] * dst[i]
	}
	scale := r * math.Pow(rng.Float64(), 1/float64(len(dst))) / math.Sqrt(s)
	for i := range dst {
		dst[i] *= scale
	}
}

// cubicNorm returns the l2 norm of v without overflow or underflow of the
// squares (scaled by the largest magnitude).
func cubicNorm(v []float64) float64 {
	m := maxAbs(v)
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	var s float64
	for _, x := range v {
		y := x / m
		s += y * y
	}
	return m * math.Sqrt(s)
}
