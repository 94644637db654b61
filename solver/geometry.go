package solver

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpump/gpump/tensorops"
)

// Geometry is a setup: a convex set Z with a distance-generating
// function R, its prox-mapping and divergence, a norm with its dual, and the
// Bregman diameter D² = sup R − inf R.
//
// A geometry works on two representations of a point of dimension Dim: the
// state, which the prox-mapping updates (log-weights for the entropic
// simplex), and the point itself (probabilities), obtained with Point. For the
// Euclidean geometries both are the same vector.
type Geometry interface {
	// Dim returns the dimension of the points.
	Dim() int
	// Start sets state to argmin R.
	Start(state []float64)
	// Point sets dst to the point a state represents.
	Point(dst, state []float64)
	// Prox sets the state dst = argmin_z ⟨eta g, z⟩ + D(z, center) and
	// dstPoint to its point. dst may alias center; dstPoint must not alias
	// dst, center or g.
	Prox(dst, dstPoint, center, g []float64, eta float64)
	// Divergence returns D(z, c) = R(z) − R(c) − ⟨∇R(c), z − c⟩ (states; the
	// first argument is the new point, the second the centre). zPoint is the
	// point of z, which some geometries use to avoid recomputing it.
	Divergence(z, zPoint, c []float64) float64
	// Norm returns ‖v‖ for a difference of points v.
	Norm(v []float64) float64
	// DualNorm returns ‖g‖_*.
	DualNorm(g []float64) float64
	// Support returns max_{z∈Z} ⟨g, z⟩ (+Inf on an unbounded set), or the
	// same maximum over a bounded subset of Z that holds a solution, which
	// certifies the restricted gap of Nesterov (2007) instead (Cubic with a
	// Radius).
	Support(g []float64) float64
	// DiameterSq returns D² = sup_Z R − inf_Z R (+Inf on an unbounded set).
	DiameterSq() float64
}

// Validator is implemented by geometries that can check their parameters;
// Solve calls it before using a geometry.
type Validator interface {
	// Validate returns an error describing invalid parameters.
	Validate() error
}

// WarmStarter is implemented by geometries that can start mirror-prox from a
// given point (Settings.Init) and restart it from its best point. Every
// geometry of this package is one.
type WarmStarter interface {
	// StartAt sets state to represent point, or returns an error if point
	// is not in the set (up to rounding).
	StartAt(state, point []float64) error
}

// Every geometry of the package validates its parameters and warm-starts.
type checkedGeometry interface {
	Geometry
	Validator
	WarmStarter
}

var (
	_ checkedGeometry = EntropicSimplex{}
	_ checkedGeometry = EuclideanSimplex{}
	_ checkedGeometry = (*Box)(nil)
	_ checkedGeometry = (*Ball)(nil)
	_ checkedGeometry = (*Product)(nil)
	_ checkedGeometry = (*Cubic)(nil)
)

// Sampler is implemented by geometries that can draw random points of their
// set; the default G0 of a general operator looks at a few of them.
type Sampler interface {
	// Sample sets dst to a random point of the set (a point, not a state).
	Sample(dst []float64, rng *rand.Rand)
}

// EntropicSimplex is the probability simplex of dimension N with R(z) =
// Σ z log z. Its states are normalized log-weights; probabilities below 1e-300
// are materialized as 0. Norm l1, dual norm l∞, D² = log N.
type EntropicSimplex struct{ N int }

// Dim returns N.
func (s EntropicSimplex) Dim() int { return s.N }

// Validate checks N ≥ 1.
func (s EntropicSimplex) Validate() error { return validateN(s.N) }

func validateN(n int) error {
	if n < 1 {
		return fmt.Errorf("solver: simplex of dimension %d", n)
	}
	return nil
}

// Start sets the log-weights of the uniform distribution.
func (s EntropicSimplex) Start(state []float64) {
	l := -math.Log(float64(s.N))
	for i := range state {
		state[i] = l
	}
}

// Point exponentiates the log-weights (values below 1e-300 become 0).
func (s EntropicSimplex) Point(dst, state []float64) {
	for i, l := range state {
		if l < tensorops.MinLogProb {
			dst[i] = 0
		} else {
			dst[i] = math.Exp(l)
		}
	}
}

// StartAt sets the log-weights of point, a probability vector up to
// rounding, mixed with a fraction 1/4 of the uniform distribution, as
// mirror-prox does for a game (see MirrorProx).
func (s EntropicSimplex) StartAt(state, point []float64) error {
	return s.startMixed(state, point, startMix)
}

// restartAt is StartAt for a restart: the mix is 1e-4.
func (s EntropicSimplex) restartAt(state, point []float64) error {
	return s.startMixed(state, point, restartMix)
}

func (s EntropicSimplex) startMixed(state, point []float64, mix float64) error {
	if err := checkSimplex(point); err != nil {
		return err
	}
	copy(state, point)
	normalize(state)
	u := mix / float64(len(state))
	for i, v := range state {
		state[i] = math.Log((1-mix)*v + u)
	}
	return nil
}

// restarter is implemented by geometries whose restart from a point of the
// run differs from a warm start (the entropic simplex mixes less).
type restarter interface {
	restartAt(state, point []float64) error
}

// checkSimplex returns an error unless x has finite entries ≥ 0 summing to
// 1 within InitTolerance.
func checkSimplex(x []float64) error {
	var s float64
	for i, v := range x {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("solver: start point entry %d is %g, not a probability", i, v)
		}
		s += v
	}
	if math.Abs(s-1) > InitTolerance(len(x)) {
		return fmt.Errorf("solver: start point sums to %.17g, not 1", s)
	}
	return nil
}

// Prox computes the prox-mapping in log space (tensorops.LogProx).
func (s EntropicSimplex) Prox(dst, dstPoint, center, g []float64, eta float64) {
	tensorops.LogProx(dst, dstPoint, center, g, eta)
}

// Divergence returns KL(z ‖ c) = Σ z_i (log z_i − log c_i).
func (s EntropicSimplex) Divergence(z, zPoint, c []float64) float64 {
	var d float64
	for i, p := range zPoint {
		d += p * (z[i] - c[i])
	}
	return math.Max(d, 0)
}

// Norm returns the l1 norm.
func (s EntropicSimplex) Norm(v []float64) float64 {
	var n float64
	for _, x := range v {
		n += math.Abs(x)
	}
	return n
}

// DualNorm returns the l∞ norm.
func (s EntropicSimplex) DualNorm(g []float64) float64 { return maxAbs(g) }

// Support returns max_i g_i.
func (s EntropicSimplex) Support(g []float64) float64 { return maxOf(g) }

// DiameterSq returns log N.
func (s EntropicSimplex) DiameterSq() float64 { return math.Log(float64(s.N)) }

// Sample draws a point uniformly from the simplex.
func (s EntropicSimplex) Sample(dst []float64, rng *rand.Rand) { sampleSimplex(dst, rng) }

// EuclideanSimplex is the probability simplex of dimension N with R(z) =
// ½‖z‖². Norm and dual norm l2, D² = (1 − 1/N)/2.
type EuclideanSimplex struct {
	N int
	l2
}

// Dim returns N.
func (s EuclideanSimplex) Dim() int { return s.N }

// Validate checks N ≥ 1.
func (s EuclideanSimplex) Validate() error { return validateN(s.N) }

// Start sets the uniform distribution.
func (s EuclideanSimplex) Start(state []float64) {
	for i := range state {
		state[i] = 1 / float64(s.N)
	}
}

// StartAt copies point, a probability vector up to rounding, normalized.
func (s EuclideanSimplex) StartAt(state, point []float64) error {
	if err := checkSimplex(point); err != nil {
		return err
	}
	copy(state, point)
	normalize(state)
	return nil
}

// Prox projects center − eta g onto the simplex.
func (s EuclideanSimplex) Prox(dst, dstPoint, center, g []float64, eta float64) {
	tensorops.ProjectSimplex(dst, gradientStep(dst, center, g, eta))
	copy(dstPoint, dst)
}

// Support returns max_i g_i.
func (s EuclideanSimplex) Support(g []float64) float64 { return maxOf(g) }

// DiameterSq returns (1 − 1/N)/2.
func (s EuclideanSimplex) DiameterSq() float64 { return (1 - 1/float64(s.N)) / 2 }

// Sample draws a point uniformly from the simplex.
func (s EuclideanSimplex) Sample(dst []float64, rng *rand.Rand) { sampleSimplex(dst, rng) }

func sampleSimplex(dst []float64, rng *rand.Rand) {
	var s float64
	for i := range dst {
		dst[i] = rng.ExpFloat64()
		s += dst[i]
	}
	for i := range dst {
		dst[i] /= s
	}
}

func clamp(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

func halfDistSq(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		d := x - b[i]
		s += d * d
	}
	return s / 2
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
