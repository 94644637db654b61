package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

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

// ErrNonFinite is the error Solve returns, possibly wrapped, when a
// Monotone problem's operator returns a NaN or an infinity: a singular
// operator (Bregman smooth problems) evaluated at a point the floating-point
// iterates pushed onto the boundary, or a bug in the operator.
var ErrNonFinite = errors.New("solver: the operator returned a non-finite value")

// Monotone is a general monotone variational inequality given through Go
// values: convex minimization (F = ∇f), convex-concave saddle points
// (F = (∇_u f, −∇_w f)) or any monotone map, over the set of Geometry. It runs
// in Go on the host; only MirrorProx solves it.
//
// The certified gap of a point x is the strong gap ⟨F(x), x⟩ + Support(−F(x))
// = max_z ⟨F(x), x − z⟩, an upper bound of the VI gap and, for F = ∇f, of
// f(x) − min f; the gap of the average is the regret bound
// Σ w_t⟨g_t, x_t⟩/W + Support(−ḡ), valid for any monotone F and equal to the
// saddle gap for bilinear problems. Both are +Inf on unbounded sets. A
// warm start (Settings.Init) needs a Set that implements WarmStarter.
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
	// exists, otherwise the operator's scale near the start (as for
	// singular operators and unbounded domains, where no bound exists and
	// the universal rules need only a scale); 0 means EstimateG0 with Seed.
	Bound float64
	// Seed seeds the random points of EstimateG0 when Bound is 0.
	Seed uint64
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

// EstimateG0 is the default G0 of a general operator: twice the largest
// ‖F‖_* seen at the start point argmin R and at four random points of the
// set drawn with rng (when the geometry is a Sampler). Never ‖F(y_0)‖_*
// alone: on a Gaussian game A y_0 is near 0 and the first steps would be
// huge.
func EstimateG0(f Operator, geo Geometry, rng *rand.Rand) float64 {
	d := geo.Dim()
	s, z, g := make([]float64, d), make([]float64, d), make([]float64, d)
	geo.Start(s)
	geo.Point(z, s)
	f.Apply(g, z)
	b := geo.DualNorm(g)
	smp, ok := geo.(Sampler)
	if p, isProd := geo.(*Product); isProd && !p.CanSample() {
		ok = false
	}
	if ok {
		for range 4 {
			smp.Sample(z, rng)
			f.Apply(g, z)
			b = math.Max(b, geo.DualNorm(g))
		}
	}
	return 2 * b
}

// estimateStream is the PCG stream constant of Monotone.Seed's draws.
const estimateStream = 0x9e3779b97f4a7c15

// counted counts the evaluations of an operator.
type counted struct {
	op Operator
	n  *int
}

func (c counted) Apply(dst, z []float64) {
	c.op.Apply(dst, z)
	*c.n++
}

func diff(dst, a, b []float64) []float64 {
	for i, v := range a {
		dst[i] = v - b[i]
	}
	return dst
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
