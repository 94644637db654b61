package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// placement is a game on a backend: the placed matrix and the engines of
// the methods that solved it, each with its vectors.
type placement struct {
	g   *MatrixGame
	be  tensorops.Backend
	own *tensorops.CPU // the temporary backend of an unplaced game's solve
	a   tensorops.Matrix
	// unit is the internal units per payoff unit, stored per unit of the
	// stored matrix (MatrixGame.units): the same but with a storage
	// exponent.
	unit, stored float64
	// sets are the box and ball blocks' sets on the backend (a simplex
	// block's Setup is the method's), lin the linear terms (nil: none).
	sets [2]tensorops.Set
	lin  [2]tensorops.Vector
	// at is Aᵀ for the sampled oracle, made for payoff version atVersion.
	at        tensorops.Matrix
	atVersion int
	owned     []any
	mp        [2]*mpEngine // by setup
	sampled   [2]*mpEngine
	rm        *rmEngine
	omwu      *omwuEngine
	polish    *polishGame
}

func newPlacement(g *MatrixGame, be tensorops.Backend) (*placement, error) {
	a, err := be.NewMatrix(g.a)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	pl := &placement{g: g, be: be, a: a, owned: []any{a}}
	pl.stored, pl.unit = g.units()
	for k := range 2 {
		if err := pl.placeBlock(k); err != nil {
			pl.free()
			return nil, err
		}
	}
	return pl, nil
}

// placeBlock puts block k's set vectors and linear term on the backend.
func (pl *placement) placeBlock(k int) error {
	b, n := &pl.g.blocks[k], pl.g.size(k)
	load := func(dst *tensorops.Vector, x []float64) error {
		if x == nil {
			return nil
		}
		v, err := pl.vec(n)
		if err == nil {
			err = pl.be.Load(v, x)
		}
		*dst = v
		return err
	}
	set := &pl.sets[k]
	switch b.kind() {
	case boxBlock:
		set.Setup = tensorops.Box
	case ballBlock:
		set.Setup, set.Radius = tensorops.Ball, b.Radius
	}
	for _, l := range []struct {
		dst *tensorops.Vector
		x   []float64
	}{{&set.Lo, b.Lo}, {&set.Hi, b.Hi}, {&set.Center, b.Center}, {&pl.lin[k], b.Lin}} {
		if err := load(l.dst, l.x); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	return nil
}

// engineOf returns g's engine of one kind for a solve, made by build on the
// first solve of its placement with that kind (slot picks where it is kept).
func engineOf[E any](g *MatrixGame, slot func(*placement) **E, build func(*placement) (*E, error)) (*E, *placement, error) {
	pl, err := g.acquire()
	if err != nil {
		return nil, nil, err
	}
	e, err := cached(pl, slot(pl), func() (*E, error) { return build(pl) })
	return e, pl, err
}

// cached returns the engine in *slot, built by build on the placement's
// first solve with that kind of method; a failed build releases the
// placement.
func cached[E any](pl *placement, slot **E, build func() (*E, error)) (*E, error) {
	if *slot == nil {
		e, err := build()
		if err != nil {
			pl.release()
			return nil, err
		}
		*slot = e
	}
	return *slot, nil
}

// release ends one solve: a temporary placement is freed with its backend,
// the game's own is unlocked.
func (pl *placement) release() {
	if pl.own != nil {
		pl.free()
		pl.own.Close()
		return
	}
	pl.g.mu.Unlock()
}

func (pl *placement) free() {
	pl.be.Free(pl.owned...)
	if pl.at != nil {
		pl.be.Free(pl.at)
	}
}

// vec allocates a vector of length n, freed with the placement.
func (pl *placement) vec(n int) (tensorops.Vector, error) {
	v, err := pl.be.NewVector(n)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	pl.owned = append(pl.owned, v)
	return v, nil
}

// gameBase is what every engine on a game keeps on the backend: the best
// point so far and the scratch to evaluate, scale and certify.
type gameBase struct {
	pl   *placement
	be   tensorops.Backend
	set  [2]tensorops.Set
	lin  [2]tensorops.Vector
	size [2]int
	best [2]tensorops.Vector
	f    [2]tensorops.Vector // the operator at the best point, at the end
	// scaled holds the strategies times the game's unit, when it is not 1.
	scaled [2]tensorops.Vector
	gs     [2]tensorops.GapStats
	ab     [2]tensorops.AvgBlock
	// host holds a point on its way to or from the backend (warm starts,
	// restarts, the result).
	host []float64
	// warm: the solve started from Settings.Init, which best holds.
	warm      bool
	evals     int
	passes    int
	gapPasses int
}

// newBase returns a base whose simplex blocks have setup s.
func (pl *placement) newBase(s tensorops.Setup) (gameBase, error) {
	m, n := pl.g.m, pl.g.n
	b := gameBase{pl: pl, be: pl.be, set: pl.sets, lin: pl.lin, size: [2]int{m, n}, host: make([]float64, m+n)}
	for k := range 2 {
		if pl.g.blocks[k].kind() == simplexBlock {
			b.set[k] = tensorops.Set{Setup: s}
		}
	}
	for k := range 2 {
		for _, v := range []*tensorops.Vector{&b.best[k], &b.f[k], &b.scaled[k]} {
			var err error
			if *v, err = pl.vec(b.size[k]); err != nil {
				return b, err
			}
		}
	}
	return b, nil
}

// vec allocates a vector the size of block k.
func (b *gameBase) vec(k int) (tensorops.Vector, error) { return b.pl.vec(b.size[k]) }

// point allocates one block's point: two vectors for the entropic setup
// (log-weights and probabilities), one for the others.
func (b *gameBase) point(k int, s tensorops.Setup) (tensorops.Point, error) {
	v, err := b.vec(k)
	if err != nil || s != tensorops.Entropic {
		return tensorops.Point{State: v, Value: v}, err
	}
	l, err := b.vec(k)
	return tensorops.Point{State: l, Value: v}, err
}

// begin resets the work counters for a new solve and zeroes the running
// averages avg, so that a solve of a placed game is bit for bit the solve
// of a new one (avg + 1·(x − avg) is x exactly only for avg = 0).
func (b *gameBase) begin(avg ...[2]tensorops.Vector) {
	b.evals, b.passes, b.gapPasses, b.warm = 0, 0, 0, false
	for _, v := range avg {
		for k := range 2 {
			b.be.Axpby(v[k], 0, v[k], 0, v[k])
		}
	}
}

func (b *gameBase) shape() shape {
	g := b.pl.g
	scale := g.storedMax * b.pl.stored
	if scale == 0 {
		scale = 1
	}
	return shape{dim: g.m + g.n, scale: scale, unit: b.pl.unit, game: true}
}

func (b *gameBase) work(st *Stats) {
	st.Evaluations, st.MatrixPasses, st.GapPasses = b.evals, b.passes, b.gapPasses
}

func (b *gameBase) release() { b.pl.release() }

// in returns the strategy v of block k as a pass over A needs it: times
// the game's unit when it is above 1 (tiny payoffs), else v itself.
func (b *gameBase) in(k int, v tensorops.Vector) tensorops.Vector {
	return b.pl.in(b.scaled[k], v)
}

// out brings the result f of a pass into internal units.
func (b *gameBase) out(f tensorops.Vector) { b.pl.out(f) }

// in returns v as a pass over the stored matrix needs it: v itself, or v
// times the stored unit in scratch when that is above 1 (tiny payoffs: no
// product underflows).
func (pl *placement) in(scratch, v tensorops.Vector) tensorops.Vector {
	if pl.stored <= 1 {
		return v
	}
	pl.be.Axpby(scratch, pl.stored, v, 0, v)
	return scratch
}

// out brings the result f of a pass into internal units: times the stored
// unit when it is below 1 (huge payoffs, whose products cannot overflow).
func (pl *placement) out(f tensorops.Vector) {
	if u := pl.stored; u < 1 {
		pl.be.Axpby(f, u, f, 0, f)
	}
}

// pass sets f = F(p, q) = (−(A q + b), Aᵀp + c) with one pass over A, in
// internal units.
func (b *gameBase) pass(f [2]tensorops.Vector, p, q tensorops.Vector) {
	b.be.Operator(f[0], f[1], b.pl.a, b.in(0, p), b.in(1, q))
	for k, sign := range [2]float64{-1, 1} {
		b.out(f[k])
		if l := b.lin[k]; l != nil {
			b.be.Axpby(f[k], 1, f[k], sign*b.pl.unit, l)
		}
	}
	b.passes++
}

// operator is pass counted as an operator evaluation.
func (b *gameBase) operator(f [2]tensorops.Vector, p, q tensorops.Vector) {
	b.pass(f, p, q)
	b.evals++
}

// certificates turns the blocks' gap quantities into the certificates of
// the current point and of the average: the saddle value lies between
// min_{y′} f(x, y′) = min_Y ⟨Aᵀx + c, y′⟩ + ⟨b, x⟩ (MinG of the column block
// plus LinX of the row block) and max_{x′} f(x′, y) = −min_X ⟨−(A y + b),
// x′⟩ + ⟨c, y⟩; for a matrix game, min_j (Aᵀp)_j and max_i (A q)_i.
func (b *gameBase) certificates(r, c *tensorops.GapStats) (last, avg certificate) {
	u := b.pl.unit
	last.lower, last.upper = c.MinG+u*r.LinX, -r.MinG+u*c.LinX
	avg.lower, avg.upper = c.MinAvgG+u*r.LinAvgX, -r.MinAvgG+u*c.LinAvgX
	last.gap, avg.gap = last.upper-last.lower, avg.upper-avg.lower
	return last, avg
}

// block returns the AvgBlock of block k at the point x with operator value
// f and the running averages avgX and avgF (nil: none).
func (b *gameBase) block(k int, x, f, avgX, avgF tensorops.Vector) tensorops.AvgBlock {
	return tensorops.AvgBlock{Set: b.set[k], X: x, G: f, Lin: b.lin[k], AvgX: avgX, AvgG: avgF}
}

// certify certifies the pair x whose operator value is f.
func (b *gameBase) certify(x, f [2]tensorops.Vector) (certificate, error) {
	for k := range 2 {
		b.ab[k] = b.block(k, x[k], f[k], nil, nil)
	}
	if err := b.be.Average(b.gs[:], 0, b.ab[:]); err != nil {
		return noCertificate, fmt.Errorf("solver: %w", err)
	}
	last, _ := b.certificates(&b.gs[0], &b.gs[1])
	return last, nil
}

// certifyPass certifies the pair x with a fresh pass over A into f: a gap
// pass, not an operator evaluation.
func (b *gameBase) certifyPass(x [2]tensorops.Vector) (certificate, error) {
	b.pass(b.f, x[0], x[1])
	b.gapPasses++
	return b.certify(x, b.f)
}

// finish brings the best point to the host, moves each block back onto its
// set (a running average drifts off the simplex by rounding), and certifies
// exactly that point with a fresh pass over A, so the reported gap does not
// inherit the rounding of the running averages of A q and Aᵀp.
func (b *gameBase) finish(dst *Result) (certificate, error) {
	if err := b.export(dst); err != nil {
		return noCertificate, err
	}
	return b.certifyPass(b.best)
}

// export brings the best point to dst.X on the host, each block moved back
// onto its set, and loads that point back as the best point.
func (b *gameBase) export(dst *Result) error {
	m, n := b.size[0], b.size[1]
	if cap(dst.X) < m+n {
		dst.X = make([]float64, m+n)
	}
	dst.X = dst.X[:m+n]
	dst.Row, dst.Column = dst.X[:m:m], dst.X[m:]
	parts := [2][]float64{dst.Row, dst.Column}
	for k := range 2 {
		if err := b.be.Store(parts[k], b.best[k]); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		b.pl.g.blocks[k].clean(parts[k])
		if err := b.be.Load(b.best[k], parts[k]); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	return nil
}

// normalize clips x at 0 and scales it to sum 1.
func normalize(x []float64) {
	var s float64
	for i, v := range x {
		v = math.Max(v, 0)
		x[i] = v
		s += v
	}
	for i := range x {
		x[i] /= s
	}
}
