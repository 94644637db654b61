package solver

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// Block is one player's feasible set in a bilinear game (NewBilinear), with
// the player's linear term: the probability simplex (the zero value), the
// box [Lo, Hi] (Lo and Hi set), or the Euclidean ball of radius Radius
// around Center (Center set).
type Block struct {
	Lo, Hi []float64
	Center []float64
	Radius float64
	// Lin is the player's linear term (nil: none): b for the row player,
	// c for the column player.
	Lin []float64
}

type blockKind int

const (
	simplexBlock blockKind = iota
	boxBlock
	ballBlock
)

func (b *Block) kind() blockKind {
	switch {
	case b.Lo != nil || b.Hi != nil:
		return boxBlock
	case b.Center != nil:
		return ballBlock
	}
	return simplexBlock
}

// validate checks the block for a player with n strategies.
func (b *Block) validate(n int, who string) error {
	if b.Lin != nil && (len(b.Lin) != n || !finite(b.Lin)) {
		return fmt.Errorf("solver: the %s player's linear term must have %d finite entries", who, n)
	}
	switch b.kind() {
	case boxBlock:
		if len(b.Lo) != n || len(b.Hi) != n || b.Center != nil {
			return fmt.Errorf("solver: the %s player's box needs bounds of length %d (and no centre)", who, n)
		}
		if err := (&Box{Lo: b.Lo, Hi: b.Hi}).Validate(); err != nil {
			return fmt.Errorf("solver: the %s player's box: %w", who, err)
		}
	case ballBlock:
		if len(b.Center) != n {
			return fmt.Errorf("solver: the %s player's ball needs a centre of length %d", who, n)
		}
		if err := (&Ball{Center: b.Center, Radius: b.Radius}).Validate(); err != nil {
			return fmt.Errorf("solver: the %s player's ball: %w", who, err)
		}
	}
	return nil
}

// diameterSq returns the block's D² in setup s (for a simplex), without
// boxing its geometry: constants runs at the start of every solve.
func (b *Block) diameterSq(n int, s tensorops.Setup) float64 {
	switch {
	case b.kind() == boxBlock:
		return (&Box{Lo: b.Lo, Hi: b.Hi}).DiameterSq()
	case b.kind() == ballBlock:
		return (&Ball{Center: b.Center, Radius: b.Radius}).DiameterSq()
	case s == tensorops.Euclidean:
		return EuclideanSimplex{N: n}.DiameterSq()
	}
	return EntropicSimplex{N: n}.DiameterSq()
}

// radius returns sup ‖z‖₂ over a box or a ball.
func (b *Block) radius() float64 {
	switch b.kind() {
	case boxBlock:
		var s float64
		for i, lo := range b.Lo {
			v := math.Max(math.Abs(lo), math.Abs(b.Hi[i]))
			s += v * v
		}
		return math.Sqrt(s)
	case ballBlock:
		return norm2(b.Center) + b.Radius
	}
	return 1
}

// fix checks that x, a point of the block up to rounding, lies in its set,
// and moves it onto the set exactly: a simplex block is renormalized, a ball
// block projected (within a relative 1e-12 of the radius).
func (b *Block) fix(x []float64, who string) error {
	switch b.kind() {
	case simplexBlock:
		if err := checkSimplex(x); err != nil {
			return fmt.Errorf("solver: the %s player's %w", who, err)
		}
		normalize(x)
	case boxBlock:
		for i, v := range x {
			if !(v >= b.Lo[i] && v <= b.Hi[i]) {
				return fmt.Errorf("solver: the %s player's coordinate %d is %g, outside [%g, %g]", who, i, v, b.Lo[i], b.Hi[i])
			}
		}
	case ballBlock:
		if !finite(x) {
			return fmt.Errorf("solver: the %s player's point has a non-finite entry", who)
		}
		if r := b.distance(x); r > b.Radius*(1+1e-12) {
			return fmt.Errorf("solver: the %s player's point is at distance %g from the centre of a ball of radius %g", who, r, b.Radius)
		}
		b.clean(x)
	}
	return nil
}

// clean moves x, a point of the block up to the rounding of a running
// average, onto the set: renormalized, clipped or projected.
func (b *Block) clean(x []float64) {
	switch b.kind() {
	case simplexBlock:
		normalize(x)
	case boxBlock:
		tensorops.ClipBox(x, x, b.Lo, b.Hi)
	case ballBlock:
		tensorops.ProjectBall(x, x, b.Center, b.Radius)
	}
}

func (b *Block) distance(x []float64) float64 {
	var s float64
	for i, v := range x {
		d := v - b.Center[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// NewBilinear returns the bilinear saddle-point problem
//
//	max_{x ∈ X} min_{y ∈ Y} xᵀA y + bᵀx + cᵀy
//
// with X and Y the row and column players' blocks (simplices, boxes or
// balls) and b, c their linear terms: a matrix game when both are simplices
// without linear terms. As a variational inequality F(x, y) = (−(A y + b),
// Aᵀx + c). The certificate is the saddle gap
//
//	max_{x′ ∈ X} f(x′, y) − min_{y′ ∈ Y} f(x, y′),
//
// which brackets the saddle value like a game's (ValueLower, ValueUpper);
// its two ends are support functions of the sets, computed by the backend
// with the prox-mappings. A box or ball block uses the Euclidean geometry;
// a simplex block the method's setup (MirrorProx.Setup). Only mirror-prox
// solves a bilinear problem that is not a matrix game. The relative gap
// divides by max |A_ij|.
//
// On simplices, payoffs and linear terms of any finite magnitude are
// solved alike, as for MatrixGame (the unit follows the larger of max
// |A_ij| and the linear terms' largest entry). A box or ball block's
// points are not bounded by 1, so such a problem is solved in its own
// units: A z, the sets' support values and the gaps must be finite there.
func NewBilinear(a *tensor.Dense, row, col Block) (*MatrixGame, error) {
	g, err := NewMatrixGame(a)
	if err != nil {
		return nil, err
	}
	if err := row.validate(g.m, "row"); err != nil {
		return nil, err
	}
	if err := col.validate(g.n, "column"); err != nil {
		return nil, err
	}
	g.blocks = [2]Block{row, col}
	return g, nil
}

// matrixGame reports whether both players are on the simplex without
// linear terms.
func (g *MatrixGame) matrixGame() bool {
	for k := range g.blocks {
		if b := &g.blocks[k]; b.kind() != simplexBlock || b.Lin != nil {
			return false
		}
	}
	return true
}

// constants returns the step-rule constants in setup s (of the simplex
// blocks), in internal units: D² is the sum of the blocks' D²; G0 bounds
// ‖F‖_* = √(‖F_x‖²_* + ‖F_y‖²_*) over the sets; L bounds the norm of A
// between the blocks' norms.
//
// With both players on entropic simplices G0 = L = max |A_ij| (the exact
// bound of ‖F‖_* in the l∞ dual norm, and the l1 → l∞ norm of A). Otherwise
// each block's bound is that of ‖A y‖ (or ‖Aᵀx‖) in its dual norm over the
// other player's set plus the norm of its linear term: on the simplex, max
// |A_ij| (l∞) or the largest column (row) norm (l2, since A q is a convex
// combination of columns); over a box or a ball, the largest row (column)
// norm (l∞) or the Frobenius norm (l2) times the set's largest ‖z‖₂. L is
// the Frobenius norm, which bounds ‖A‖ between any of these norms.
func (g *MatrixGame) constants(s tensorops.Setup, unit float64) Constants {
	var d2 float64
	for k := range g.blocks {
		d2 += g.blocks[k].diameterSq(g.size(k), s)
	}
	k := Constants{D: math.Sqrt(d2), G0: g.maxAbs * unit, L: g.maxAbs * unit}
	if s == tensorops.Entropic && g.matrixGame() {
		if k.G0 == 0 { // the zero game: any positive step will do
			k.G0, k.L = 1, 1
		}
		return k
	}
	g.normsMu.Lock()
	if !g.normsDone {
		g.computeNorms()
		g.normsDone = true
	}
	// vecNorm[k] is the largest l2 norm of the vectors of A that block k's
	// operator value combines: columns for the row player, rows for the
	// column player; facing[k] the largest of the other ones. All in
	// internal units, where the normalized norms are multiplied by
	// 2^normExp·unit, about 1 when the unit is not.
	f := math.Ldexp(unit, g.normExp)
	vecNorm := [2]float64{g.maxColNorm * f, g.maxRowNorm * f}
	facing := [2]float64{g.maxRowNorm * f, g.maxColNorm * f}
	fro := g.frobenius * f
	var bound [2]float64
	for p := range 2 {
		b, other := &g.blocks[p], &g.blocks[1-p]
		entropic := b.kind() == simplexBlock && s == tensorops.Entropic
		switch {
		case other.kind() == simplexBlock && entropic:
			bound[p] = g.maxAbs*unit + maxAbs(b.Lin)*unit
		case other.kind() == simplexBlock:
			bound[p] = vecNorm[p] + safeNorm2(b.Lin)*unit
		case entropic:
			bound[p] = facing[p]*other.radius() + maxAbs(b.Lin)*unit
		default:
			bound[p] = fro*other.radius() + safeNorm2(b.Lin)*unit
		}
	}
	k.G0 = math.Hypot(bound[0], bound[1])
	k.L = fro
	g.normsMu.Unlock()
	if k.G0 == 0 {
		k.G0, k.L = 1, 1
	}
	return k
}

// size returns the number of strategies of player k.
func (g *MatrixGame) size(k int) int {
	if k == 0 {
		return g.m
	}
	return g.n
}

// safeNorm2 is ‖v‖₂ without overflow or underflow in the squares, for
// linear terms of any magnitude.
func safeNorm2(v []float64) float64 {
	m := maxAbs(v)
	if m == 0 || math.IsInf(m, 0) {
		return m
	}
	var s float64
	for _, x := range v {
		s += (x / m) * (x / m)
	}
	return m * math.Sqrt(s)
}
