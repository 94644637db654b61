package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// gameOracle evaluates the game's operator for mirror-prox: exactly (a pass
// over A) or by sampling (SampledGame).
type gameOracle interface {
	// evaluate sets f = F(p, q), or an estimate of it, and counts the
	// evaluation.
	evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error
}

// exactOracle is the exact oracle: one pass over A.
type exactOracle struct{ b *gameBase }

func (o exactOracle) evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error {
	o.b.operator(f, p, q)
	return nil
}

// mpGame is mirror-prox's space on a matrix game, every vector on the
// backend.
type mpGame struct {
	gameBase
	setup                    tensorops.Setup // of the simplex blocks
	oracle                   gameOracle
	y, x, yn                 [2]tensorops.Point
	m, gv                    [2]tensorops.Vector
	avgX, avgG, navgX, navgG [2]tensorops.Vector
	blocks                   [2]tensorops.ProxBlock
	stats                    [2]tensorops.BlockStats
}

// mirrorProx returns the game's mirror-prox engine in setup s, made on the
// first solve of its placement.
func (g *MatrixGame) mirrorProx(s tensorops.Setup) (*mpEngine, error) {
	e, _, err := engineOf(g, func(pl *placement) **mpEngine { return &pl.mp[s] }, func(pl *placement) (*mpEngine, error) {
		sp, err := newMPGame(pl, s)
		if err != nil {
			return nil, err
		}
		sp.oracle = exactOracle{&sp.gameBase}
		return &mpEngine{sp: sp}, nil
	})
	return e, err
}

func newMPGame(pl *placement, s tensorops.Setup) (*mpGame, error) {
	b, err := pl.newBase(s)
	if err != nil {
		return nil, err
	}
	e := &mpGame{gameBase: b, setup: s}
	for k := range 2 {
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

func (e *mpGame) constants() (Constants, error) {
	return e.pl.g.constants(e.setup, e.pl.unit), nil
}

func (e *mpGame) values(z [2]tensorops.Point) [2]tensorops.Vector {
	return [2]tensorops.Vector{z[0].Value, z[1].Value}
}

// place sets y as placeAt does.
func (e *mpGame) place(mix float64) error { return e.placeAt(e.y, mix) }

func (e *mpGame) start(init []float64) (certificate, error) {
	e.begin(e.avgX, e.avgG)
	c0, warm, err := e.placeStart(init)
	if err != nil {
		return noCertificate, err
	}
	c, err := e.evalY()
	return startCertificate(c0, warm, c, err)
}

// placeStart sets y to argmin R or to init (checked), mixed as warm starts
// are; warm reports that init was certified as given (see certifyInit).
func (e *mpGame) placeStart(init []float64) (c0 certificate, warm bool, err error) {
	mix := -1.0
	if init != nil {
		if c0, warm, err = e.certifyInit(init); err != nil {
			return c0, warm, err
		}
		mix = startMix
	}
	return c0, warm, e.place(mix)
}

// evalY evaluates m = F(y) and certifies y.
func (e *mpGame) evalY() (certificate, error) {
	if err := e.oracle.evaluate(e.m, e.y[0].Value, e.y[1].Value); err != nil {
		return noCertificate, err
	}
	return e.certify(e.values(e.y), e.m)
}

func (e *mpGame) restart() error {
	if err := e.placeBest(); err != nil {
		return err
	}
	_, err := e.evalY()
	return err
}

// placeBest sets y to the best point, mixed as restarts are.
func (e *mpGame) placeBest() error {
	if err := e.hostBest(); err != nil {
		return err
	}
	return e.place(restartMix)
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
			Set: e.set[k], Y: e.y[k], X: e.x[k], YNew: e.yn[k], M: e.m[k], G: e.gv[k], Lin: e.lin[k],
			AvgX: e.avgX[k], AvgG: e.avgG[k], NewAvgX: e.navgX[k], NewAvgG: e.navgG[k],
		}
	}
	if err := e.be.ProxStats(e.stats[:], w, e.blocks[:]); err != nil {
		return noCertificate, noCertificate, fmt.Errorf("solver: %w", err)
	}
	combineStats(t, e.stats[:])
	last, avg = e.certificates(&e.stats[0].GapStats, &e.stats[1].GapStats)
	return last, avg, nil
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
		if !e.warm { // else best holds the warm start
			e.be.Copy(e.best[b], e.y[b].Value)
		}
	case AveragePoint:
		e.be.Copy(e.best[b], e.avgX[b])
	case LastPoint:
		e.be.Copy(e.best[b], e.x[b].Value)
	}
}

func (e *mpGame) finish(dst *Result, _ certificate) (certificate, error) {
	return e.gameBase.finish(dst)
}
