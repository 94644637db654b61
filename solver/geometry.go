package solver

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpump/gpump/tensorops"
)

// Geometry is a setup (SPEC section 2): a convex set Z with a distance-generating
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

var (
	_ Validator = EntropicSimplex{}
	_ Validator = EuclideanSimplex{}
	_ Validator = (*Box)(nil)
	_ Validator = (*Ball)(nil)
	_ Validator = (*Product)(nil)
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

// Prox projects center − eta g onto the simplex.
func (s EuclideanSimplex) Prox(dst, dstPoint, center, g []float64, eta float64) {
	for i, c := range center {
		dst[i] = c - eta*g[i]
	}
	tensorops.ProjectSimplex(dst, dst)
	copy(dstPoint, dst)
}

// Support returns max_i g_i.
func (s EuclideanSimplex) Support(g []float64) float64 { return maxOf(g) }

// DiameterSq returns (1 − 1/N)/2.
func (s EuclideanSimplex) DiameterSq() float64 { return (1 - 1/float64(s.N)) / 2 }

// Sample draws a point uniformly from the simplex.
func (s EuclideanSimplex) Sample(dst []float64, rng *rand.Rand) { sampleSimplex(dst, rng) }

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

// Prox clips center − eta g to the box.
func (b *Box) Prox(dst, dstPoint, center, g []float64, eta float64) {
	for i, c := range center {
		dst[i] = clamp(c-eta*g[i], b.Lo[i], b.Hi[i])
	}
	copy(dstPoint, dst)
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

// Prox projects center − eta g onto the ball.
func (b *Ball) Prox(dst, dstPoint, center, g []float64, eta float64) {
	var r2 float64
	for i, c := range center {
		d := c - eta*g[i] - b.Center[i]
		dst[i] = d
		r2 += d * d
	}
	f := 1.0
	if r := math.Sqrt(r2); r > b.Radius {
		f = b.Radius / r
	}
	for i := range dst {
		dst[i] = b.Center[i] + f*dst[i]
	}
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

// Product is the product of blocks (SPEC section 2): R is the sum of the
// blocks' R, D² the sum of their D², the norm the root of the sum of the
// squared block norms (and likewise the dual norm). Points are the blocks'
// points concatenated in order.
type Product struct {
	blocks []Geometry
	offs   []int // offs[k] is where block k starts; offs[len(blocks)] = Dim
}

// NewProduct returns the product of the given geometries (Solve reports
// nil or invalid blocks).
func NewProduct(blocks ...Geometry) *Product {
	p := &Product{blocks: blocks, offs: make([]int, len(blocks)+1)}
	for k, b := range blocks {
		d := 0
		if b != nil {
			d = b.Dim()
		}
		p.offs[k+1] = p.offs[k] + d
	}
	return p
}

// Validate checks every block (none may be nil).
func (p *Product) Validate() error {
	if len(p.blocks) == 0 {
		return fmt.Errorf("solver: product of no blocks")
	}
	for k, b := range p.blocks {
		if b == nil {
			return fmt.Errorf("solver: product block %d is nil", k)
		}
		if v, ok := b.(Validator); ok {
			if err := v.Validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Blocks returns the blocks (aliased).
func (p *Product) Blocks() []Geometry { return p.blocks }

// Dim returns the sum of the blocks' dimensions.
func (p *Product) Dim() int { return p.offs[len(p.blocks)] }

func (p *Product) part(v []float64, k int) []float64 { return v[p.offs[k]:p.offs[k+1]] }

// Start starts every block.
func (p *Product) Start(state []float64) {
	for k, b := range p.blocks {
		b.Start(p.part(state, k))
	}
}

// Point maps every block.
func (p *Product) Point(dst, state []float64) {
	for k, b := range p.blocks {
		b.Point(p.part(dst, k), p.part(state, k))
	}
}

// Prox applies every block's prox-mapping.
func (p *Product) Prox(dst, dstPoint, center, g []float64, eta float64) {
	for k, b := range p.blocks {
		b.Prox(p.part(dst, k), p.part(dstPoint, k), p.part(center, k), p.part(g, k), eta)
	}
}

// Divergence sums the blocks' divergences.
func (p *Product) Divergence(z, zPoint, c []float64) float64 {
	var d float64
	for k, b := range p.blocks {
		d += b.Divergence(p.part(z, k), p.part(zPoint, k), p.part(c, k))
	}
	return d
}

// Norm returns √(Σ_k ‖v_k‖²).
func (p *Product) Norm(v []float64) float64 {
	var s float64
	for k, b := range p.blocks {
		n := b.Norm(p.part(v, k))
		s += n * n
	}
	return math.Sqrt(s)
}

// DualNorm returns √(Σ_k ‖g_k‖_*²).
func (p *Product) DualNorm(g []float64) float64 {
	var s float64
	for k, b := range p.blocks {
		n := b.DualNorm(p.part(g, k))
		s += n * n
	}
	return math.Sqrt(s)
}

// Support sums the blocks' support functions.
func (p *Product) Support(g []float64) float64 {
	var s float64
	for k, b := range p.blocks {
		s += b.Support(p.part(g, k))
	}
	return s
}

// DiameterSq sums the blocks' D².
func (p *Product) DiameterSq() float64 {
	var d float64
	for _, b := range p.blocks {
		d += b.DiameterSq()
	}
	return d
}

// Sample samples every block; it panics if a block is not a Sampler (check
// with CanSample).
func (p *Product) Sample(dst []float64, rng *rand.Rand) {
	for k, b := range p.blocks {
		b.(Sampler).Sample(p.part(dst, k), rng)
	}
}

// CanSample reports whether every block is a Sampler.
func (p *Product) CanSample() bool {
	for _, b := range p.blocks {
		if _, ok := b.(Sampler); !ok {
			return false
		}
	}
	return true
}

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
