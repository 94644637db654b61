package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// vecSpace is mirror-prox's space on a Monotone problem, on host slices.
// States (what the prox-mapping updates) and points are kept apart: they
// differ for the entropic simplex.
type vecSpace struct {
	p   *Monotone
	f   Operator
	geo Geometry
	// exact is Monotone.Exact; when nil, c aliases g and certificates use
	// F's values.
	exact Operator
	// y, x, yn: states (…S) and points (…P) of y_{t−1}, x_t and y_t.
	yS, yP, xS, xP, ynS, ynP []float64
	// g = F(x_t) drives the step; c is the value certificates use:
	// Exact(x_t), or g itself.
	m, g, c                  []float64
	avgX, avgG, navgX, navgG []float64
	// avgGX is the running average of ⟨c_t, x_t⟩, the other half of the
	// regret bound of the average's gap.
	avgGX, navgGX float64
	best, tmp     []float64
	evals         int
	exactEvals    int
	// warm: the solve started from Settings.Init, which best holds.
	warm bool
}

func newVecSpace(p *Monotone) *vecSpace {
	d := p.Set.Dim()
	buf := make([]float64, 16*d)
	next := func() []float64 { s := buf[:d:d]; buf = buf[d:]; return s }
	e := &vecSpace{p: p, f: p.F, geo: p.Set, exact: p.Exact}
	for _, v := range []*[]float64{&e.yS, &e.yP, &e.xS, &e.xP, &e.ynS, &e.ynP, &e.m, &e.g,
		&e.avgX, &e.avgG, &e.navgX, &e.navgG, &e.best, &e.tmp} {
		*v = next()
	}
	e.c = e.g
	if e.exact != nil {
		e.c = next()
	}
	return e
}

func (e *vecSpace) shape() shape {
	scale := e.p.Scale
	if !(scale > 0) {
		scale = 1
	}
	return shape{dim: len(e.yS), scale: scale, unit: 1}
}

func (e *vecSpace) constants() (Constants, error) {
	k := Constants{D: math.Sqrt(e.geo.DiameterSq()), G0: e.p.Bound, L: e.p.Lipschitz}
	if k.G0 <= 0 {
		rng := rand.New(rand.NewPCG(e.p.Seed, estimateStream))
		k.G0 = EstimateG0(counted{e.f, &e.evals}, e.geo, rng)
	}
	return k, nil
}

func (e *vecSpace) apply(dst, z []float64) {
	e.f.Apply(dst, z)
	e.evals++
}

// certifyValue returns the value certificates use at x, whose F value is
// g: g itself, or Exact(x) computed into c.
func (e *vecSpace) certifyValue(c, x, g []float64) ([]float64, error) {
	if e.exact == nil {
		return g, nil
	}
	e.exact.Apply(c, x)
	e.exactEvals++
	if !finite(c) {
		return nil, fmt.Errorf("%w (Monotone.Exact)", ErrNonFinite)
	}
	return c, nil
}

// support returns Support(−g), using tmp.
func (e *vecSpace) support(g []float64) float64 {
	for i, v := range g {
		e.tmp[i] = -v
	}
	return e.geo.Support(e.tmp)
}

// start starts from argmin R or from init. A warm start is certified as
// given (one evaluation), kept as the best point, and then entered through
// the geometry's StartAt (which may mix it, see EntropicSimplex.StartAt),
// so that a solve never returns worse than its warm start.
func (e *vecSpace) start(init []float64) (certificate, error) {
	e.evals, e.exactEvals, e.avgGX, e.warm = 0, 0, 0, false
	if init == nil {
		e.geo.Start(e.yS)
		return e.evalY()
	}
	ws, ok := e.geo.(WarmStarter)
	if !ok {
		return noCertificate, fmt.Errorf("solver: the set %T cannot start from a given point (it is not a WarmStarter)", e.geo)
	}
	if len(init) != len(e.yS) {
		return noCertificate, fmt.Errorf("solver: warm start of length %d for a problem of dimension %d", len(init), len(e.yS))
	}
	if err := ws.StartAt(e.yS, init); err != nil {
		return noCertificate, err
	}
	e.apply(e.g, init)
	if !finite(e.g) {
		return noCertificate, fmt.Errorf("%w at the warm start", ErrNonFinite)
	}
	c, err := e.certifyValue(e.c, init, e.g)
	if err != nil {
		return noCertificate, err
	}
	copy(e.best, init)
	e.warm = true
	c0 := certificate{gap: dot(c, init) + e.support(c), lower: math.NaN(), upper: math.NaN()}
	_, err = e.evalY()
	return c0, err
}

// evalY evaluates m = F(y) and certifies y.
func (e *vecSpace) evalY() (certificate, error) {
	e.geo.Point(e.yP, e.yS)
	e.apply(e.m, e.yP)
	if !finite(e.m) {
		return noCertificate, fmt.Errorf("%w at the start point", ErrNonFinite)
	}
	c, err := e.certifyValue(e.c, e.yP, e.m)
	if err != nil {
		return noCertificate, err
	}
	return certificate{gap: dot(c, e.yP) + e.support(c), lower: math.NaN(), upper: math.NaN()}, nil
}

// restart starts from the best point; the new average starts empty.
func (e *vecSpace) restart() error {
	var err error
	if r, ok := e.geo.(restarter); ok {
		err = r.restartAt(e.yS, e.best)
	} else {
		err = e.geo.(WarmStarter).StartAt(e.yS, e.best) // MirrorProx.Uses checked it is one
	}
	if err != nil {
		return err
	}
	e.avgGX = 0
	_, err = e.evalY()
	return err
}

func (e *vecSpace) trial(eta, w float64, t *Trial) (last, avg certificate, err error) {
	geo := e.geo
	geo.Prox(e.xS, e.xP, e.yS, e.m, eta)
	e.apply(e.g, e.xP)
	if !finite(e.g) {
		return noCertificate, noCertificate, ErrNonFinite
	}
	geo.Prox(e.ynS, e.ynP, e.yS, e.g, eta)
	t.DivXY = geo.Divergence(e.xS, e.xP, e.yS)
	t.DivYX = geo.Divergence(e.ynS, e.ynP, e.xS)
	t.DistXY = geo.Norm(diff(e.tmp, e.xP, e.yP))
	t.DistXYNew = geo.Norm(diff(e.tmp, e.xP, e.ynP))
	t.DualGM = geo.DualNorm(diff(e.tmp, e.g, e.m))
	for i, d := range e.tmp {
		t.InnerGM += d * (e.xP[i] - e.ynP[i])
	}
	c, err := e.certifyValue(e.c, e.xP, e.g)
	if err != nil {
		return noCertificate, noCertificate, err
	}
	cx := dot(c, e.xP)
	for i := range e.navgX {
		e.navgX[i] = e.avgX[i] + w*(e.xP[i]-e.avgX[i])
		e.navgG[i] = e.avgG[i] + w*(c[i]-e.avgG[i])
	}
	e.navgGX = e.avgGX + w*(cx-e.avgGX)
	last = certificate{gap: cx + e.support(c), lower: math.NaN(), upper: math.NaN()}
	avg = certificate{gap: e.navgGX + e.support(e.navgG), lower: math.NaN(), upper: math.NaN()}
	return last, avg, nil
}

func (e *vecSpace) accept() {
	e.yS, e.ynS = e.ynS, e.yS
	e.yP, e.ynP = e.ynP, e.yP
	e.avgX, e.navgX = e.navgX, e.avgX
	e.avgG, e.navgG = e.navgG, e.avgG
	e.avgGX = e.navgGX
}

func (e *vecSpace) advance() error {
	e.apply(e.m, e.yP)
	if !finite(e.m) {
		return ErrNonFinite
	}
	return nil
}

func (e *vecSpace) keep(k PointKind, _ int) {
	switch k {
	case StartPoint:
		if !e.warm { // else best holds the warm start
			copy(e.best, e.yP)
		}
	case AveragePoint:
		copy(e.best, e.avgX)
	case LastPoint:
		copy(e.best, e.xP)
	}
}

// finish returns the best point with the certificate it was kept with: it
// was computed from the point's own operator values (or the regret bound
// of the average), with no running average of a matrix product to round.
func (e *vecSpace) finish(dst *Result, best certificate) (certificate, error) {
	return best, e.export(dst)
}

func (e *vecSpace) export(dst *Result) error {
	if cap(dst.X) < len(e.best) {
		dst.X = make([]float64, len(e.best))
	}
	dst.X = dst.X[:len(e.best)]
	copy(dst.X, e.best)
	dst.Row, dst.Column = nil, nil
	return nil
}

func (e *vecSpace) work(st *Stats) {
	st.Evaluations, st.ExactEvaluations = e.evals, e.exactEvals
	st.MatrixPasses, st.GapPasses = 0, 0
}

func (e *vecSpace) release() {}
