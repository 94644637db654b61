package solver

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpump/gpump/tensorops"
)

// l2 holds what every Euclidean setup shares: states are points, the
// divergence is ½‖z − c‖², norm and dual norm are l2.
type l2 struct{}

// Point copies the state.
func (l2) Point(dst, state []float64) { copy(dst, state) }

// Divergence returns ½‖z − c‖².
func (l2) Divergence(z, _, c []float64) float64 { return halfDistSq(z, c) }

// Norm returns the l2 norm.
func (l2) Norm(v []float64) float64 { return norm2(v) }

// DualNorm returns the l2 norm.
func (l2) DualNorm(g []float64) float64 { return norm2(g) }

// Box is the box [Lo_i, Hi_i] with R(z) = ½‖z‖². Norm and dual norm l2. Lo and
// Hi must have the same length and Lo_i ≤ Hi_i (NewBox and Validate check
// this).
type Box struct {
	Lo, Hi []float64
	l2
}

// NewBox returns the box [lo, hi]^n, or an error for lo > hi, NaN or n < 1.
func NewBox(n int, lo, hi float64) (*Box, error) {
	if n < 1 || !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("solver: invalid box [%g, %g]^%d", lo, hi, n)
	}
	b := &Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		b.Lo[i], b.Hi[i] = lo, hi
	}
	return b, nil
}

// Dim returns len(Lo).
func (b *Box) Dim() int { return len(b.Lo) }

// Validate checks that Lo and Hi have the same positive length and finite
// entries with Lo_i ≤ Hi_i.
func (b *Box) Validate() error {
	if len(b.Lo) == 0 || len(b.Lo) != len(b.Hi) {
		return fmt.Errorf("solver: box bounds of lengths %d and %d", len(b.Lo), len(b.Hi))
	}
	for i, lo := range b.Lo {
		if hi := b.Hi[i]; !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return fmt.Errorf("solver: invalid box coordinate %d: [%g, %g]", i, lo, hi)
		}
	}
	return nil
}

// Start sets the projection of 0, the minimizer of R on the box.
func (b *Box) Start(state []float64) {
	for i := range state {
		state[i] = clamp(0, b.Lo[i], b.Hi[i])
	}
}

// StartAt copies point, which must lie in the box.
func (b *Box) StartAt(state, point []float64) error {
	for i, v := range point {
		if !(v >= b.Lo[i] && v <= b.Hi[i]) {
			return fmt.Errorf("solver: start point coordinate %d is %g, outside [%g, %g]", i, v, b.Lo[i], b.Hi[i])
		}
	}
	copy(state, point)
	return nil
}

// Prox clips center − eta g to the box (tensorops.ClipBox, the CPU
// backend's box prox).
func (b *Box) Prox(dst, dstPoint, center, g []float64, eta float64) {
	tensorops.ClipBox(dst, gradientStep(dst, center, g, eta), b.Lo, b.Hi)
	copy(dstPoint, dst)
}

// gradientStep sets dst = center − eta g and returns it: the Euclidean
// prox-mappings project it onto their sets.
func gradientStep(dst, center, g []float64, eta float64) []float64 {
	for i, c := range center {
		dst[i] = c - eta*g[i]
	}
	return dst
}

// Support returns Σ max(Lo_i g_i, Hi_i g_i).
func (b *Box) Support(g []float64) float64 {
	var s float64
	for i, v := range g {
		s += math.Max(b.Lo[i]*v, b.Hi[i]*v)
	}
	return s
}

// DiameterSq returns ½ Σ max(Lo_i², Hi_i²) − ½ Σ min over the box of z_i².
func (b *Box) DiameterSq() float64 {
	var d float64
	for i, lo := range b.Lo {
		hi := b.Hi[i]
		d += math.Max(lo*lo, hi*hi)
		if c := clamp(0, lo, hi); c != 0 {
			d -= c * c
		}
	}
	return d / 2
}

// Sample draws a point uniformly from the box.
func (b *Box) Sample(dst []float64, rng *rand.Rand) {
	for i := range dst {
		dst[i] = b.Lo[i] + rng.Float64()*(b.Hi[i]-b.Lo[i])
	}
}

// Ball is the Euclidean ball of radius Radius around Center with R(z) =
// ½‖z − Center‖². Norm and dual norm l2, D² = Radius²/2.
type Ball struct {
	Center []float64
	Radius float64
	l2
}

// Dim returns len(Center).
func (b *Ball) Dim() int { return len(b.Center) }

// Validate checks a finite centre of positive dimension and a radius in
// (0, ∞); an infinite radius would make the set unbounded, which the
// certificates and D² need not to be.
func (b *Ball) Validate() error {
	if len(b.Center) == 0 || !(b.Radius > 0) || math.IsInf(b.Radius, 0) || !finite(b.Center) {
		return fmt.Errorf("solver: invalid ball (dimension %d, radius %g)", len(b.Center), b.Radius)
	}
	return nil
}

// Start sets the centre.
func (b *Ball) Start(state []float64) { copy(state, b.Center) }

// StartAt copies point, which must lie in the ball up to rounding (it is
// projected onto it).
func (b *Ball) StartAt(state, point []float64) error {
	if !finite(point) {
		return fmt.Errorf("solver: start point has a non-finite entry")
	}
	if r := norm2(diff(state, point, b.Center)); r > b.Radius*(1+1e-12) {
		return fmt.Errorf("solver: start point at distance %g from the centre of a ball of radius %g", r, b.Radius)
	}
	tensorops.ProjectBall(state, point, b.Center, b.Radius)
	return nil
}

// Prox projects center − eta g onto the ball (tensorops.ProjectBall, the
// CPU backend's ball prox).
func (b *Ball) Prox(dst, dstPoint, center, g []float64, eta float64) {
	tensorops.ProjectBall(dst, gradientStep(dst, center, g, eta), b.Center, b.Radius)
	copy(dstPoint, dst)
}

// Support returns ⟨g, Center⟩ + Radius ‖g‖.
func (b *Ball) Support(g []float64) float64 {
	var s float64
	for i, v := range g {
		s += v * b.Center[i]
	}
	return s + b.Radius*norm2(g)
}

// DiameterSq returns Radius²/2.
func (b *Ball) DiameterSq() float64 { return b.Radius * b.Radius / 2 }

// Sample draws a point uniformly from the ball.
func (b *Ball) Sample(dst []float64, rng *rand.Rand) {
	var r2 float64
	for i := range dst {
		dst[i] = rng.NormFloat64()
		r2 += dst[i] * dst[i]
	}
	scale := b.Radius * math.Pow(rng.Float64(), 1/float64(len(dst))) / math.Sqrt(r2)
	for i := range dst {
		dst[i] = b.Center[i] + scale*dst[i]
	}
}
