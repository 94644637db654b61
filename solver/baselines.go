package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// baseline holds the vectors the regret-matching and OMWU loops share: the
// current strategies (f holds F at them), the running averages of the
// strategies and of F, and the per-iteration certification.
type baseline struct {
	*gameBase
	t          *tracker
	z          [2]tensorops.Point
	f          [2]tensorops.Vector
	avgX, avgF [2]tensorops.Vector
}

func newBaseline(t *tracker, b *gameBase, s tensorops.Setup) (*baseline, error) {
	l := &baseline{gameBase: b, t: t}
	var err error
	for k := range 2 {
		if l.z[k], err = b.point(k, s); err != nil {
			return nil, err
		}
		for _, v := range []*tensorops.Vector{&l.f[k], &l.avgX[k], &l.avgF[k]} {
			if *v, err = b.vec(k); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// start evaluates the uniform pair and makes it the first average (weight
// fraction 1).
func (l *baseline) start(s tensorops.Setup, method string) (Status, error) {
	if err := l.t.init(method, l.size[0]+l.size[1]); err != nil {
		return NotTerminated, err
	}
	for k := range 2 {
		l.be.Start(l.z[k], tensorops.Set{Setup: s})
	}
	l.operator(l.f, l.z[0].Value, l.z[1].Value)
	return l.observe(1, StartPoint)
}

// observe averages the current pair with weight fraction w, certifies it and
// the average, keeps the better, records and applies the stopping rules.
func (l *baseline) observe(w float64, first PointKind) (Status, error) {
	for k := range 2 {
		l.ab[k] = tensorops.AvgBlock{X: l.z[k].Value, G: l.f[k], AvgX: l.avgX[k], AvgG: l.avgF[k]}
	}
	if err := l.be.Average(l.gs[:], w, l.ab[:]); err != nil {
		return NotTerminated, fmt.Errorf("solver: %w", err)
	}
	last := gameCertificate(l.gs[0].MinG, l.gs[1].MinG)
	avg := gameCertificate(l.gs[0].MinAvgG, l.gs[1].MinAvgG)
	l.t.keepBest(l, avg, last, first)
	l.t.sync(l)
	return l.t.after(avg.gap, last.gap)
}

// keep copies block b of the average or of the current pair (the start
// point is both) into the best point.
func (l *baseline) keep(k PointKind, b int) {
	if k == LastPoint {
		l.be.Copy(l.best[b], l.z[b].Value)
	} else {
		l.be.Copy(l.best[b], l.avgX[b])
	}
}

// run iterates from status st: step(t) performs iteration t, leaving the
// new pair in z and F at it in f, and returns the pair's weight fraction in
// the averages; each iteration costs one operator evaluation.
func (l *baseline) run(st Status, step func(it int) float64) (*Result, error) {
	t := l.t
	var err error
	for {
		for err == nil && st == NotTerminated {
			if !t.budget(1) {
				st = EvaluationLimit
				break
			}
			t.stats.Iterations++
			st, err = l.observe(step(t.stats.Iterations), AveragePoint)
		}
		if err != nil {
			return nil, err
		}
		res, again, err := t.finish(l, st)
		if err != nil || !again {
			return res, err
		}
		st = NotTerminated
	}
}

func (l *baseline) finish(certificate) ([]float64, certificate, error) { return l.gameBase.finish() }

func (l *baseline) work() (int, int) { return l.evals, l.passes }

// runRegretMatching runs alternating RM+ or PRM+ (SPEC section 3,
// baselines). Iteration t turns the pair (p_t, q_t) into (p_{t+1}, q_{t+1}):
// p from the utilities A q_t, then q from −Aᵀ p_{t+1}, reading A twice; the
// pair k enters the averages with weight k.
func runRegretMatching(t *tracker, b *gameBase, predictive bool) (*Result, error) {
	l, err := newBaseline(t, b, tensorops.Euclidean)
	if err != nil {
		return nil, err
	}
	var r [2]tensorops.Vector
	for k := range 2 {
		if r[k], err = b.vec(k); err != nil {
			return nil, err
		}
	}
	// Utilities enter the regrets divided by max |A_ij| (RM+ is invariant
	// to the scale of A, and regrets of a game with entries near 1e308 would
	// overflow). Regrets below a few roundings of one utility evaluation are
	// noise (SPEC section 5): such a vector must not be normalized into a
	// strategy.
	sign := -1 / b.g.maxAbs
	if b.g.maxAbs == 0 {
		sign = -1
	}
	tiny := [2]float64{4 * float64(b.size[1]) * 0x1p-52, 4 * float64(b.size[0]) * 0x1p-52}
	name := (&RegretMatching{Predictive: predictive}).Name()
	st, err := l.start(tensorops.Euclidean, name)
	if err != nil {
		return nil, err
	}
	return l.run(st, func(it int) float64 {
		// f[0] = −A q_t: the row player's utility A q_t with sign −1.
		l.be.RegretMatch(l.z[0].Value, r[0], l.f[0], sign, tiny[0], predictive)
		l.be.MulTVec(l.f[1], l.a, l.z[0].Value)
		// f[1] = Aᵀ p_{t+1}: the column player's loss, a utility with
		// sign −1.
		l.be.RegretMatch(l.z[1].Value, r[1], l.f[1], sign, tiny[1], predictive)
		l.be.MulVec(l.f[0], l.a, l.z[1].Value)
		l.be.Axpby(l.f[0], -1, l.f[0], 0, l.f[0])
		l.evals++
		l.passes += 2
		return 2 / float64(it+2)
	})
}

// runOMWU runs optimistic multiplicative weights with step eta: z_{t+1} =
// P_{z_t}(eta (2 g_t − g_{t−1})) in the entropic setup with g_0 = g_1, the
// pair k entering the uniform average.
func runOMWU(t *tracker, b *gameBase, eta float64) (*Result, error) {
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("solver: omwu needs a finite step > 0, got %g", eta)
	}
	l, err := newBaseline(t, b, tensorops.Entropic)
	if err != nil {
		return nil, err
	}
	var prev, h [2]tensorops.Vector
	var next [2]tensorops.Point
	for k := range 2 {
		if prev[k], err = b.vec(k); err != nil {
			return nil, err
		}
		if h[k], err = b.vec(k); err != nil {
			return nil, err
		}
		if next[k], err = b.point(k, tensorops.Entropic); err != nil {
			return nil, err
		}
	}
	st, err := l.start(tensorops.Entropic, "omwu")
	if err != nil {
		return nil, err
	}
	for k := range 2 {
		l.be.Copy(prev[k], l.f[k])
	}
	t.stats.Step = eta
	return l.run(st, func(it int) float64 {
		for k := range 2 {
			l.be.Axpby(h[k], 2, l.f[k], -1, prev[k])
			l.be.Copy(prev[k], l.f[k])
			l.be.Prox(next[k], l.z[k], h[k], eta, tensorops.Set{Setup: tensorops.Entropic})
		}
		l.z, next = next, l.z
		l.operator(l.f, l.z[0].Value, l.z[1].Value)
		return 1 / float64(it+1)
	})
}
