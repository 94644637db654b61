package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Product is the product of blocks: R is the sum of the
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

// StartAt starts every block at its part of point; every block must be a
// WarmStarter.
func (p *Product) StartAt(state, point []float64) error {
	for k, b := range p.blocks {
		ws, ok := b.(WarmStarter)
		if !ok {
			return fmt.Errorf("solver: product block %d (%T) cannot start from a given point", k, b)
		}
		if err := ws.StartAt(p.part(state, k), p.part(point, k)); err != nil {
			return fmt.Errorf("solver: product block %d: %w", k, err)
		}
	}
	return nil
}

// restartAt restarts every block, as its restartAt or StartAt does.
func (p *Product) restartAt(state, point []float64) error {
	for k, b := range p.blocks {
		var err error
		switch b := b.(type) {
		case restarter:
			err = b.restartAt(p.part(state, k), p.part(point, k))
		case WarmStarter:
			err = b.StartAt(p.part(state, k), p.part(point, k))
		default:
			err = fmt.Errorf("%T cannot start from a given point", b)
		}
		if err != nil {
			return fmt.Errorf("solver: product block %d: %w", k, err)
		}
	}
	return nil
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
func (p *Product) Norm(v []float64) float64 { return p.rootSumSq(v, Geometry.Norm) }

// DualNorm returns √(Σ_k ‖g_k‖_*²).
func (p *Product) DualNorm(g []float64) float64 { return p.rootSumSq(g, Geometry.DualNorm) }

// rootSumSq returns √(Σ_k norm(block k, v_k)²).
func (p *Product) rootSumSq(v []float64, norm func(Geometry, []float64) float64) float64 {
	var s float64
	for k, b := range p.blocks {
		n := norm(b, p.part(v, k))
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
