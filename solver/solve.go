package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpump/gpump/tensorops"
)

// certificate is a certified duality gap, with the value bracket of a game
// (NaN otherwise).
type certificate struct {
	gap, lower, upper float64
}

var noCertificate = certificate{gap: math.Inf(1), lower: math.NaN(), upper: math.NaN()}

// Solve computes an approximate solution of p with method m (nil: the
// default, DefaultMethodName) under settings s (nil: DefaultSettings()).
//
// Errors are for invalid problems, settings or methods, for a Recorder's
// error and for a backend's failure. A canceled context is not an error: Solve
// returns the best certified point so far with Status Canceled, within one
// iteration.
func Solve(ctx context.Context, p Problem, s *Settings, m Method) (*Result, error) {
	if s == nil {
		s = DefaultSettings()
	}
	if !s.hasStop() {
		return nil, errors.New("solver: no stopping criterion set")
	}
	if s.RelGap < 0 || s.AbsGap < 0 || s.MaxIterations < 0 || s.MaxEvaluations < 0 || s.TimeLimit < 0 ||
		s.G0 < 0 || s.Diameter < 0 || math.IsNaN(s.G0) || math.IsNaN(s.Diameter) {
		return nil, errors.New("solver: negative or NaN setting")
	}
	if m == nil {
		m = &MirrorProx{}
	}
	if mp, ok := m.(*MirrorProx); ok && mp.Rule == nil {
		def, _ := NewMethod(DefaultMethodName, Params{})
		m = def
	}
	if err := checkOracle(p, s, m); err != nil {
		return nil, err
	}
	switch p := p.(type) {
	case *MatrixGame:
		return solveGame(ctx, p, s, m)
	case *Monotone:
		mp, ok := m.(*MirrorProx)
		if !ok {
			return nil, fmt.Errorf("solver: method %s solves matrix games only", m.Name())
		}
		if err := p.validate(); err != nil {
			return nil, err
		}
		return solveMonotone(ctx, p, s, mp)
	case nil:
		return nil, errors.New("solver: nil problem")
	default:
		return nil, fmt.Errorf("solver: unsupported problem type %T", p)
	}
}

func solveGame(ctx context.Context, g *MatrixGame, s *Settings, m Method) (*Result, error) {
	be := s.Backend
	if be == nil {
		cpu := tensorops.NewCPU(s.Threads)
		defer cpu.Close()
		be = cpu
	}
	base, err := newGameBase(be, g)
	if err != nil {
		return nil, err
	}
	defer base.free()
	scale := g.maxAbs
	if scale == 0 {
		scale = 1
	}
	tr := newTracker(ctx, s, scale, true)
	var res *Result
	switch m := m.(type) {
	case *MirrorProx:
		var eng engine
		if s.Oracle == Sampled {
			se, err := newSampledGame(base, s)
			if err != nil {
				return nil, err
			}
			eng = se
		} else {
			mp, err := newMPGame(base)
			if err != nil {
				return nil, err
			}
			eng = mp
		}
		constants := func() (Constants, error) {
			k := g.constants()
			if s.Diameter > 0 {
				k.D = s.Diameter
			}
			if s.G0 > 0 {
				k.G0 = s.G0
			}
			return k, nil
		}
		res, err = runMirrorProx(tr, eng, m.Rule, constants)
		if err != nil {
			return nil, err
		}
	case *RegretMatching:
		res, err = runRegretMatching(tr, base, m.Predictive)
		if err != nil {
			return nil, err
		}
	case *OMWU:
		eta := m.Eta
		if eta <= 0 {
			eta = 1 / scale
		}
		res, err = runOMWU(tr, base, eta)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("solver: unsupported method %T", m)
	}
	res.Method = m.Name()
	res.Row, res.Column = res.X[:g.m:g.m], res.X[g.m:]
	return res, nil
}

// tracker holds what every method's loop shares: the best certified point,
// the stopping rules, the clock and the recorder.
type tracker struct {
	s     *Settings
	done  <-chan struct{}
	scale float64
	game  bool
	t0    time.Time
	best  certificate
	// bestKind[0] is the kind of the best point (of the row strategy for a
	// game), bestKind[1] that of the best column strategy.
	bestKind [2]PointKind
	rec      Record
	status   Status
	stats    Stats
	// margin is added to the running certificate in the convergence test
	// once a fresh certificate has disagreed with it (see finish).
	margin float64
}

func newTracker(ctx context.Context, s *Settings, scale float64, game bool) *tracker {
	t := &tracker{s: s, done: ctx.Done(), scale: scale, game: game, t0: time.Now(), best: noCertificate}
	if game {
		t.best.lower, t.best.upper = math.Inf(-1), math.Inf(1)
	}
	return t
}

func (t *tracker) init(method string, dim int) error {
	t.t0 = time.Now()
	if t.s.Recorder == nil {
		return nil
	}
	return t.s.Recorder.Init(&Info{Method: method, Dim: dim, Scale: t.scale, Settings: t.s})
}

// offer compares an iteration's certificates with the best so far and
// reports which parts of the best point must now be copied from which
// candidate: keep[k] is set when part k improved, to the candidate's kind.
// The average wins ties: it is the paper's output.
//
// A matrix game's gap max_i (A q)_i − min_j (Aᵀp)_j is a row part that
// depends on p alone and a column part that depends on q alone, so the best
// row strategy and the best column strategy are chosen separately among all
// candidates so far (part 0 and part 1); the pair they form is certified by
// the two extremes. Other problems have one part, the whole point.
func (t *tracker) offer(avg, last certificate, first PointKind) (keep [2]PointKind, ok [2]bool) {
	if !t.game {
		c, k := avg, first
		if last.gap < avg.gap || math.IsNaN(avg.gap) {
			c, k = last, LastPoint
		}
		// While nothing is certified (a set without a certification
		// ball gives +Inf gaps), the candidate still replaces the start
		// point: it is the average, the paper's output.
		if c.gap < t.best.gap || math.IsInf(t.best.gap, 1) && math.IsInf(c.gap, 1) {
			t.best, t.bestKind[0] = c, k
			keep[0], ok[0] = k, true
		}
		return keep, ok
	}
	// NaN-safe: a NaN candidate never wins (NaN compares false).
	lo, kl := avg.lower, first
	if last.lower > lo || math.IsNaN(lo) {
		lo, kl = last.lower, LastPoint
	}
	if lo > t.best.lower {
		t.best.lower, t.bestKind[0] = lo, kl
		keep[0], ok[0] = kl, true
	}
	up, ku := avg.upper, first
	if last.upper < up || math.IsNaN(up) {
		up, ku = last.upper, LastPoint
	}
	if up < t.best.upper {
		t.best.upper, t.bestKind[1] = up, ku
		keep[1], ok[1] = ku, true
	}
	t.best.gap = t.best.upper - t.best.lower
	return keep, ok
}

// after records an iteration and applies the stopping rules; it returns
// NotTerminated to go on.
func (t *tracker) after(gapAvg, gapLast float64) (Status, error) {
	if err := t.record(gapAvg, gapLast); err != nil {
		return NotTerminated, err
	}
	r := &t.rec
	switch s := t.s; {
	case t.met(t.best.gap + t.margin):
		return Converged, nil
	case s.MaxIterations > 0 && t.stats.Iterations >= s.MaxIterations:
		return IterationLimit, nil
	case s.TimeLimit > 0 && r.Elapsed >= s.TimeLimit:
		return TimeLimit, nil
	}
	select {
	case <-t.done:
		return Canceled, nil
	default:
	}
	return NotTerminated, nil
}

// record passes the current iteration to the Recorder.
func (t *tracker) record(gapAvg, gapLast float64) error {
	r := &t.rec
	r.Iteration, r.Evaluations, r.MatrixPasses = t.stats.Iterations, t.stats.Evaluations, t.stats.MatrixPasses
	r.Step = t.stats.Step
	r.GapAverage, r.GapLast = gapAvg, gapLast
	r.Gap, r.RelGap = t.best.gap, t.best.gap/t.scale
	r.ValueLower, r.ValueUpper = t.best.lower, t.best.upper
	r.Point, r.ColumnPoint = t.bestKind[0], t.bestKind[1]
	r.Elapsed = time.Since(t.t0)
	if t.s.Recorder != nil {
		if err := t.s.Recorder.Record(r); err != nil {
			return fmt.Errorf("solver: recorder: %w", err)
		}
	}
	return nil
}

// met reports whether a gap meets the relative or absolute target.
func (t *tracker) met(gap float64) bool {
	s := t.s
	return s.RelGap > 0 && gap <= s.RelGap*t.scale || s.AbsGap > 0 && gap <= s.AbsGap
}

// sync copies the engine's work counters into the statistics.
func (t *tracker) sync(e interface{ work() (int, int) }) {
	t.stats.Evaluations, t.stats.MatrixPasses = e.work()
	if g, ok := e.(interface{ gapWork() int }); ok {
		t.stats.GapPasses = g.gapWork()
	}
}

// finish ends a run that stopped with status st: it asks the engine for the
// best point and its final certificate and builds the result. If the
// running certificate met the target but the final one, computed afresh,
// does not (rounding in the running averages, visible only at targets near
// machine precision), it returns again = true with the convergence test
// tightened by the difference: the caller iterates on, so that Converged
// always describes the reported gap.
func (t *tracker) finish(e interface {
	finish(certificate) ([]float64, certificate, error)
	work() (int, int)
}, st Status) (res *Result, again bool, err error) {
	x, final, err := e.finish(t.best)
	if err != nil {
		return nil, false, err
	}
	t.sync(e)
	if st == Converged && !t.met(final.gap) {
		t.margin += final.gap - t.best.gap
		return nil, true, nil
	}
	t.status = st
	return t.result(x, final), false, nil
}

// certifyEnd gives an endCertifier's uncertified final average its
// certificate before a run that stopped with status st ends: it is offered
// like any other, recorded as the last iteration again, and turns the status
// into Converged if it meets the target.
func (t *tracker) certifyEnd(e engine, st Status) (Status, error) {
	c, ok := e.(endCertifier)
	if !ok || st == Converged {
		return st, nil
	}
	avg, done, err := c.certifyEnd()
	if err != nil || !done {
		return st, err
	}
	t.keepBest(e, avg, noCertificate, AveragePoint)
	t.sync(e)
	if err := t.record(avg.gap, math.Inf(1)); err != nil {
		return st, err
	}
	if t.met(t.best.gap + t.margin) {
		st = Converged
	}
	return st, nil
}

// keepBest offers the certificates and has e copy what improved.
func (t *tracker) keepBest(e interface{ keep(PointKind, int) }, avg, last certificate, first PointKind) {
	keep, ok := t.offer(avg, last, first)
	for part := range 2 {
		if ok[part] {
			e.keep(keep[part], part)
		}
	}
}

// budget reports whether another k operator evaluations fit the limit.
func (t *tracker) budget(k int) bool {
	return t.s.MaxEvaluations <= 0 || t.stats.Evaluations+k <= t.s.MaxEvaluations
}

func (t *tracker) result(x []float64, final certificate) *Result {
	t.stats.Runtime = time.Since(t.t0)
	return &Result{
		X: x, Point: t.bestKind[0], ColumnPoint: t.bestKind[1], Gap: final.gap, RelGap: final.gap / t.scale,
		ValueLower: final.lower, ValueUpper: final.upper,
		Status: t.status, Stats: t.stats,
	}
}

// engine is one problem's mirror-prox state machine: the loop in
// runMirrorProx drives it with host scalars only.
type engine interface {
	dim() int
	// start sets y_0 = argmin R, evaluates m_1 = F(y_0) and certifies y_0.
	start() (certificate, error)
	// trial computes x = P_y(eta m), g = F(x), the candidate y' = P_y(eta
	// g) and the candidate average with weight fraction w, fills t and
	// certifies x and the candidate average.
	trial(eta, w float64, t *Trial) (last, avg certificate, err error)
	// accept makes the candidates current.
	accept()
	// advance evaluates m = F(y).
	advance() error
	// keep copies part of the given point into the best-point buffer: the
	// row (0) or column (1) strategy of a game, the whole point (0) of
	// other problems.
	keep(k PointKind, part int)
	// finish returns the best point and its final certificate (recomputed
	// where the problem allows).
	finish(best certificate) ([]float64, certificate, error)
	// work returns the evaluations and matrix passes so far.
	work() (evals, passes int)
}

// endCertifier is an engine whose running certificates are not exact (the
// sampled oracle, which certifies its average only every K iterations).
type endCertifier interface {
	// certifyEnd certifies the current average with a full pass, unless it
	// is already certified or there is none (ok = false).
	certifyEnd() (avg certificate, ok bool, err error)
}

// maxRejections bounds the consecutive rejected trials of one iteration:
// past it the trial is accepted, since the acceptance test compares numbers
// that rounding dominates once the step is that small.
const maxRejections = 60

// runMirrorProx certifies the start point, then iterates. constants is
// called only if the start point does not already meet the target, so a
// problem that its start solves (a 1×1 game, a zero operator) needs no step
// constants.
func runMirrorProx(t *tracker, e engine, rule StepRule, constants func() (Constants, error)) (*Result, error) {
	if err := t.init(rule.Name(), e.dim()); err != nil {
		return nil, err
	}
	c0, err := e.start()
	if err != nil {
		return nil, err
	}
	t.keepBest(e, c0, c0, StartPoint)
	t.sync(e)
	st, err := t.after(math.Inf(1), c0.gap)
	if err != nil {
		return nil, err
	}
	if st == NotTerminated {
		k, err := constants()
		if err != nil {
			return nil, err
		}
		if err := rule.Init(k); err != nil {
			return nil, err
		}
	}
	avgMode := t.s.Averaging
	if avgMode == RuleAveraging {
		avgMode = Uniform
		if ap, ok := rule.(AveragingPreferrer); ok {
			avgMode = ap.Averaging()
		}
	}
	var tr Trial
	var wsum float64
	rejected := 0
	stale := false // m = F(y) must be evaluated before the next trial
	for {
		for st == NotTerminated {
			if stale {
				if !t.budget(2) {
					st = EvaluationLimit
					break
				}
				if err := e.advance(); err != nil {
					return nil, err
				}
				stale = false
			}
			if !t.budget(1) {
				st = EvaluationLimit
				break
			}
			eta := rule.Step()
			if !(eta > 0) || math.IsInf(eta, 0) {
				return nil, fmt.Errorf("solver: step rule %s gave step %g at iteration %d", rule.Name(), eta, t.stats.Iterations+1)
			}
			wt := 1.0
			if avgMode == StepWeighted {
				wt = eta
			}
			tr = Trial{Eta: eta}
			last, avg, err := e.trial(eta, wt/(wsum+wt), &tr)
			if err != nil {
				return nil, err
			}
			t.sync(e)
			if !rule.Observe(&tr) && rejected < maxRejections {
				rejected++
				t.stats.Rejections++
				continue
			}
			rejected = 0
			wsum += wt
			e.accept()
			stale = true
			t.stats.Iterations++
			t.stats.Step = eta
			t.keepBest(e, avg, last, AveragePoint)
			if st, err = t.after(avg.gap, last.gap); err != nil {
				return nil, err
			}
		}
		if st, err = t.certifyEnd(e, st); err != nil {
			return nil, err
		}
		res, again, err := t.finish(e, st)
		if err != nil || !again {
			return res, err
		}
		st = NotTerminated
	}
}
