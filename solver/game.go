package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// gameBase is what every matrix-game method keeps on the backend: the
// matrix, the best point so far, and the scratch to certify it at the end.
type gameBase struct {
	be     tensorops.Backend
	g      *MatrixGame
	a      tensorops.Matrix
	set    [2]tensorops.Set
	size   [2]int
	best   [2]tensorops.Vector
	f      [2]tensorops.Vector // operator value of the best point, at the end
	gs     [2]tensorops.GapStats
	ab     [2]tensorops.AvgBlock
	owned  []any
	evals  int
	passes int
	// gapPasses counts the passes made only to certify (Stats.GapPasses).
	gapPasses int
}

func newGameBase(be tensorops.Backend, g *MatrixGame) (*gameBase, error) {
	a, err := be.NewMatrix(g.a)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	b := &gameBase{be: be, g: g, a: a, set: [2]tensorops.Set{{Setup: g.rowSet}, {Setup: g.colSet}}, size: [2]int{g.m, g.n}}
	b.owned = append(b.owned, a)
	for k := range 2 {
		if b.best[k], err = b.vec(k); err != nil {
			b.free()
			return nil, err
		}
		if b.f[k], err = b.vec(k); err != nil {
			b.free()
			return nil, err
		}
	}
	return b, nil
}

// vec allocates a vector the size of block k, freed with the base.
func (b *gameBase) vec(k int) (tensorops.Vector, error) {
	v, err := b.be.NewVector(b.size[k])
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	b.owned = append(b.owned, v)
	return v, nil
}

// point allocates one block's point: two vectors for the entropic setup
// (log-weights and probabilities), one for the Euclidean setup.
func (b *gameBase) point(k int, s tensorops.Setup) (tensorops.Point, error) {
	v, err := b.vec(k)
	if err != nil {
		return tensorops.Point{}, err
	}
	if s == tensorops.Euclidean {
		return tensorops.Point{State: v, Value: v}, nil
	}
	l, err := b.vec(k)
	if err != nil {
		return tensorops.Point{}, err
	}
	return tensorops.Point{State: l, Value: v}, nil
}

func (b *gameBase) free() { b.be.Free(b.owned...) }

// operator sets f = F(p, q) with one pass over A.
func (b *gameBase) operator(f [2]tensorops.Vector, p, q tensorops.Vector) {
	b.be.Operator(f[0], f[1], b.a, p, q)
	b.evals++
	b.passes++
}

// gameOracle evaluates the game's operator for mirror-prox: exactly
// (gameBase.evaluate) or by sampling (sampledOracle, sampled.go).
type gameOracle interface {
	// evaluate sets f = F(p, q) or an estimate of it, and counts the
	// evaluation.
	evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error
}

// evaluate is the exact oracle: one pass over A.
func (b *gameBase) evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error {
	b.operator(f, p, q)
	return nil
}

// gapWork returns the passes made only to certify (Stats.GapPasses).
func (b *gameBase) gapWork() int { return b.gapPasses }

// gameCertificate turns the blocks' extremes into the gap and value bracket
// (SPEC section 1): gap = max_i (A q)_i − min_j (Aᵀp)_j with −MinG of the row
// block = max_i (A q)_i.
func gameCertificate(rowMin, colMin float64) certificate {
	return certificate{gap: -rowMin - colMin, lower: colMin, upper: -rowMin}
}

func (b *gameBase) certifyCurrent(x [2]tensorops.Vector, f [2]tensorops.Vector) (certificate, error) {
	for k := range 2 {
		b.ab[k] = tensorops.AvgBlock{X: x[k], G: f[k]}
	}
	if err := b.be.Average(b.gs[:], 0, b.ab[:]); err != nil {
		return noCertificate, fmt.Errorf("solver: %w", err)
	}
	return gameCertificate(b.gs[0].MinG, b.gs[1].MinG), nil
}

// finish brings the best point to the host, renormalizes each strategy (a
// running average drifts off the simplex by rounding), and certifies exactly
// that point with a fresh pass over A, so the reported gap does not inherit
// the rounding of the running averages of A q and Aᵀp.
func (b *gameBase) finish() ([]float64, certificate, error) {
	m, n := b.size[0], b.size[1]
	x := make([]float64, m+n)
	parts := [2][]float64{x[:m], x[m:]}
	for k := range 2 {
		if err := b.be.Store(parts[k], b.best[k]); err != nil {
			return nil, noCertificate, fmt.Errorf("solver: %w", err)
		}
		var s float64
		for i, v := range parts[k] {
			v = math.Max(v, 0)
			parts[k][i] = v
			s += v
		}
		for i := range parts[k] {
			parts[k][i] /= s
		}
		if err := b.be.Load(b.best[k], parts[k]); err != nil {
			return nil, noCertificate, fmt.Errorf("solver: %w", err)
		}
	}
	b.be.Operator(b.f[0], b.f[1], b.a, b.best[0], b.best[1])
	b.passes++
	b.gapPasses++
	c, err := b.certifyCurrent(b.best, b.f)
	return x, c, err
}

// mpGame is mirror-prox on a matrix game, every vector on the backend.
// Its operator values come from oracle: the exact one (the gameBase) unless
// sampledGame replaced it.
type mpGame struct {
	*gameBase
	oracle                   gameOracle
	y, x, yn                 [2]tensorops.Point
	m, gv                    [2]tensorops.Vector
	avgX, avgG, navgX, navgG [2]tensorops.Vector
	blocks                   [2]tensorops.ProxBlock
	stats                    [2]tensorops.BlockStats
}

func newMPGame(b *gameBase) (*mpGame, error) {
	e := &mpGame{gameBase: b, oracle: b}
	for k := range 2 {
		var err error
		for _, p := range []*tensorops.Point{&e.y[k], &e.x[k], &e.yn[k]} {
			if *p, err = b.point(k, b.set[k].Setup); err != nil {
				return nil, err
			}
		}
		for _, v := range []*tensorops.Vector{&e.m[k], &e.gv[k], &e.avgX[k], &e.avgG[k], &e.navgX[k], &e.navgG[k]} {
			if *v, err = b.vec(k); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

func (e *mpGame) dim() int { return e.size[0] + e.size[1] }

func (e *mpGame) work() (int, int) { return e.evals, e.passes }

func (e *mpGame) start() (certificate, error) {
	for k := range 2 {
		e.be.Start(e.y[k], e.set[k])
	}
	if err := e.oracle.evaluate(e.m, e.y[0].Value, e.y[1].Value); err != nil {
		return noCertificate, err
	}
	return e.certifyCurrent([2]tensorops.Vector{e.y[0].Value, e.y[1].Value}, e.m)
}

func (e *mpGame) trial(eta, w float64, t *Trial) (last, avg certificate, err error) {
	for k := range 2 {
		e.be.Prox(e.x[k], e.y[k], e.m[k], eta, e.set[k])
	}
	if err := e.oracle.evaluate(e.gv, e.x[0].Value, e.x[1].Value); err != nil {
		return noCertificate, noCertificate, err
	}
	for k := range 2 {
		e.be.Prox(e.yn[k], e.y[k], e.gv[k], eta, e.set[k])
		e.blocks[k] = tensorops.ProxBlock{
			Set: e.set[k], Y: e.y[k], X: e.x[k], YNew: e.yn[k], M: e.m[k], G: e.gv[k],
			AvgX: e.avgX[k], AvgG: e.avgG[k], NewAvgX: e.navgX[k], NewAvgG: e.navgG[k],
		}
	}
	if err := e.be.ProxStats(e.stats[:], w, e.blocks[:]); err != nil {
		return noCertificate, noCertificate, fmt.Errorf("solver: %w", err)
	}
	combineStats(t, e.stats[:])
	r, c := &e.stats[0], &e.stats[1]
	return gameCertificate(r.MinG, c.MinG), gameCertificate(r.MinAvgG, c.MinAvgG), nil
}

// combineStats adds the blocks' scalars into t: divergences and inner
// products add, norms combine as the root of the sum of squares.
func combineStats(t *Trial, st []tensorops.BlockStats) {
	var dxy, dxn, dgm float64
	for i := range st {
		s := &st[i]
		t.DivXY += s.DivXY
		t.DivYX += s.DivYX
		t.InnerGM += s.InnerGM
		dxy += s.DistXY * s.DistXY
		dxn += s.DistXYNew * s.DistXYNew
		dgm += s.DualGM * s.DualGM
	}
	t.DistXY, t.DistXYNew, t.DualGM = math.Sqrt(dxy), math.Sqrt(dxn), math.Sqrt(dgm)
}

func (e *mpGame) accept() {
	e.y, e.yn = e.yn, e.y
	e.avgX, e.navgX = e.navgX, e.avgX
	e.avgG, e.navgG = e.navgG, e.avgG
}

func (e *mpGame) advance() error {
	return e.oracle.evaluate(e.m, e.y[0].Value, e.y[1].Value)
}

func (e *mpGame) keep(k PointKind, b int) {
	switch k {
	case StartPoint:
		e.be.Copy(e.best[b], e.y[b].Value)
	case AveragePoint:
		e.be.Copy(e.best[b], e.avgX[b])
	case LastPoint:
		e.be.Copy(e.best[b], e.x[b].Value)
	}
}

func (e *mpGame) finish(certificate) ([]float64, certificate, error) { return e.gameBase.finish() }
