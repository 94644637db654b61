package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrNonFinite is the error Solve returns, possibly wrapped, when a
// Monotone problem's operator returns a NaN or an infinity: a singular
// operator (Bregman smooth problems) evaluated at a point the floating-point
// iterates pushed onto the boundary, or a bug in the operator.
var ErrNonFinite = errors.New("solver: the operator returned a non-finite value")

func solveMonotone(ctx context.Context, p *Monotone, s *Settings, m *MirrorProx) (*Result, error) {
	e := newVecEngine(p)
	scale := p.Scale
	if !(scale > 0) {
		scale = 1
	}
	constants := func() (Constants, error) {
		k := Constants{D: math.Sqrt(p.Set.DiameterSq()), G0: p.Bound, L: p.Lipschitz}
		if s.Diameter > 0 {
			k.D = s.Diameter
		}
		switch {
		case s.G0 > 0:
			k.G0 = s.G0
		case k.G0 <= 0:
			k.G0 = e.estimateG0(s.Seed)
		}
		return k, nil
	}
	res, err := runMirrorProx(newTracker(ctx, s, scale, false), e, m.Rule, constants)
	if err != nil {
		return nil, err
	}
	res.Method = m.Name()
	res.ExactEvaluations = e.exactEvals
	res.ValueLower, res.ValueUpper = math.NaN(), math.NaN()
	return res, nil
}

// vecEngine is mirror-prox for a Monotone problem on host slices. States
// (what the prox-mapping updates) and points are kept apart: they differ for
// the entropic simplex.
type vecEngine struct {
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
}

func newVecEngine(p *Monotone) *vecEngine {
	d := p.Set.Dim()
	buf := make([]float64, 16*d)
	next := func() []float64 { s := buf[:d:d]; buf = buf[d:]; return s }
	e := &vecEngine{f: p.F, geo: p.Set, exact: p.Exact}
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

// estimateG0 is SPEC section 3's default for a general operator: twice the
// largest ‖F‖_* at y_0 and at four random points of the set (when the
// geometry can draw them). It runs after start, so m holds F(y_0); the four
// evaluations count as operator evaluations.
func (e *vecEngine) estimateG0(seed uint64) float64 {
	g0 := e.geo.DualNorm(e.m)
	smp, ok := e.geo.(Sampler)
	if p, isProd := e.geo.(*Product); isProd && !p.CanSample() {
		ok = false
	}
	if ok {
		rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		for range 4 {
			smp.Sample(e.tmp, rng)
			e.apply(e.g, e.tmp)
			g0 = math.Max(g0, e.geo.DualNorm(e.g))
		}
	}
	return 2 * g0
}

func (e *vecEngine) apply(dst, z []float64) {
	e.f.Apply(dst, z)
	e.evals++
}

// certifyValue returns the value certificates use at x, whose F value is
// g: g itself, or Exact(x) computed into c.
func (e *vecEngine) certifyValue(c, x, g []float64) ([]float64, error) {
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

func (e *vecEngine) dim() int { return len(e.yS) }

func (e *vecEngine) work() (int, int) { return e.evals, 0 }

// pointCertificate is the strong gap ⟨g, x⟩ + Support(−g) of a point x with
// g = F(x).
func (e *vecEngine) pointCertificate(x, g []float64) certificate {
	gx := dot(g, x)
	return certificate{gap: gx + e.support(g), lower: math.NaN(), upper: math.NaN()}
}

// support returns Support(−g), using tmp.
func (e *vecEngine) support(g []float64) float64 {
	for i, v := range g {
		e.tmp[i] = -v
	}
	return e.geo.Support(e.tmp)
}

func (e *vecEngine) start() (certificate, error) {
	e.geo.Start(e.yS)
	e.geo.Point(e.yP, e.yS)
	e.apply(e.m, e.yP)
	if !finite(e.m) {
		return noCertificate, fmt.Errorf("%w at the start point", ErrNonFinite)
	}
	c, err := e.certifyValue(e.c, e.yP, e.m)
	if err != nil {
		return noCertificate, err
	}
	return e.pointCertificate(e.yP, c), nil
}

func (e *vecEngine) trial(eta, w float64, t *Trial) (last, avg certificate, err error) {
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

func (e *vecEngine) accept() {
	e.yS, e.ynS = e.ynS, e.yS
	e.yP, e.ynP = e.ynP, e.yP
	e.avgX, e.navgX = e.navgX, e.avgX
	e.avgG, e.navgG = e.navgG, e.avgG
	e.avgGX = e.navgGX
}

func (e *vecEngine) advance() error {
	e.apply(e.m, e.yP)
	if !finite(e.m) {
		return ErrNonFinite
	}
	return nil
}

func (e *vecEngine) keep(k PointKind, _ int) {
	switch k {
	case StartPoint:
		copy(e.best, e.yP)
	case AveragePoint:
		copy(e.best, e.avgX)
	case LastPoint:
		copy(e.best, e.xP)
	}
}

func (e *vecEngine) finish(best certificate) ([]float64, certificate, error) {
	return append([]float64(nil), e.best...), best, nil
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
