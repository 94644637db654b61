package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"time"
)

// Problem is a monotone variational inequality: find z* ∈ Z with
// ⟨F(z*), z − z*⟩ ≥ 0 for all z ∈ Z. Solve accepts a *MatrixGame, a
// *SampledGame or a *Monotone.
type Problem interface {
	// Dim returns the dimension of z.
	Dim() int
}

// ErrMatrixFault is the error, wrapped, of a solve stopped by a memory
// fault while reading the payoff matrix: a memory-mapped file truncated
// under the solve (or, far less likely, memory corruption). Solve returns it
// with a result that holds the best point so far and its certificate from
// before the fault, not certified again (the matrix cannot be read).
var ErrMatrixFault = errors.New("solver: reading the payoff matrix faulted")

// Solve computes an approximate solution of p with method m (nil: the
// default, DefaultMethodName) under settings s (nil: DefaultSettings()).
//
// Errors are for invalid problems, settings or methods, for a Recorder's
// error and for a backend's failure; only with ErrMatrixFault is the result
// not nil as well. A canceled context is not an error: Solve returns the
// best certified point so far with Status Canceled, within one iteration.
func Solve(ctx context.Context, p Problem, s *Settings, m Method) (*Result, error) {
	res := new(Result)
	if err := SolveInto(ctx, res, p, s, m); err != nil {
		if errors.Is(err, ErrMatrixFault) {
			return res, err
		}
		return nil, err
	}
	return res, nil
}

// SolveInto is Solve writing its result into dst, whose X it reuses when it
// is long enough. A game placed on a backend (MatrixGame.Place) keeps each
// method's workspace, so that solving it again with the same kind of method
// allocates nothing, even when its entries were replaced in between
// (MatrixGame.SetPayoff).
func SolveInto(ctx context.Context, dst *Result, p Problem, s *Settings, m Method) error {
	if s == nil {
		s = &defaultSettings
	}
	if err := s.validate(); err != nil {
		return err
	}
	if p == nil {
		return errors.New("solver: nil problem")
	}
	if m == nil {
		m, _ = NewMethod(DefaultMethodName)
	}
	if err := m.Uses(p); err != nil {
		return err
	}
	if a, ok := m.(*Auto); ok {
		return a.solveRoute(ctx, dst, p, s)
	}
	e, err := m.engine(p, s)
	if err != nil {
		return err
	}
	defer e.release()
	return e.loop().run(ctx, dst, e, s, m.Name())
}

// certificate is a certified duality gap, with the value bracket of a game
// (NaN otherwise).
type certificate struct {
	gap, lower, upper float64
}

var noCertificate = certificate{gap: math.Inf(1), lower: math.NaN(), upper: math.NaN()}

// engine is one method running on one problem, as the driver sees it. The
// driver owns everything every method shares (stopping, budgets, the best
// certified point, recorders, cancellation, restarts, the final
// certificate); an engine owns its iterates and says what one step is.
// Engines work in internal units: a game's payoffs scaled by a power of two
// (see MatrixGame), reported back in the problem's units by the driver.
type engine interface {
	// loop returns the engine's driver state, kept with the engine so that
	// a repeated solve allocates none.
	loop() *tracker
	// shape describes the problem to the driver.
	shape() shape
	// start sets the start point (init when not nil, already checked by
	// nothing: the engine validates it), evaluates what the first step
	// needs and returns the start point's certificate.
	start(init []float64) (certificate, error)
	// nextCost is the number of operator evaluations the next step needs
	// at most.
	nextCost() int
	// step performs one step; accepted false means the step was rejected
	// and will be redone (a backtracking trial).
	step() (avg, last certificate, accepted bool, err error)
	// keep copies part of point k into the best point: the row (0) or
	// column (1) strategy of a game, the whole point (0) of other problems.
	keep(k PointKind, part int)
	// restartPolicy returns the method's restart policy (nil: none), and
	// restart starts afresh from the best point.
	restartPolicy() *Restart
	restart() error
	// finish writes the best point into dst (X, and Row and Column for a
	// game) and returns its final certificate, recomputed where the problem
	// allows; export writes it without certifying it.
	finish(dst *Result, best certificate) (certificate, error)
	export(dst *Result) error
	// work fills the work counters of st and the last step size.
	work(st *Stats)
	// release returns what the solve borrowed (a temporary backend).
	release()
}

// lateCertifier is an engine whose average is certified only now and then
// (the sampled oracle): before a run ends, it certifies the current average
// (ok false when it already is, or there is none).
type lateCertifier interface {
	certifyAverage() (c certificate, ok bool, err error)
}

// shape is what the driver needs to know of a problem.
type shape struct {
	dim int
	// scale divides the gap in the relative-gap test (internal units).
	scale float64
	// unit is the number of internal units per problem unit (a power of
	// two for games, 1 otherwise).
	unit float64
	// game: the certificate is a value bracket whose ends belong to the
	// two players' strategies separately.
	game bool
}

// maxRejections bounds the consecutive rejected trials of one iteration:
// past it the trial is accepted, since the acceptance test compares numbers
// that rounding dominates once the step is that small.
const maxRejections = 60

// tracker is the driver's state for one solve: the best certified point,
// the stopping rules, the clock, the restart bookkeeping and the recorder.
type tracker struct {
	s    *Settings
	done <-chan struct{}
	sh   shape
	t0   time.Time
	c0   time.Duration // Settings.Clock at t0
	best certificate
	// bestKind[0] is the kind of the best point (of the row strategy for a
	// game), bestKind[1] that of the best column strategy.
	bestKind [2]PointKind
	info     Info
	settings Settings // the copy info points to
	rec      Record
	stats    Stats
	// margin is added to the running certificate in the convergence test
	// once a fresh certificate has disagreed with it (see run).
	margin float64
	// restartGap is the gap of the point the method last (re)started from,
	// sinceRestart the iterations since.
	restartGap   float64
	sinceRestart int
}

// run drives e from its start to a final, certified result in dst. A
// memory fault reading the matrix (see ErrMatrixFault) ends it with the
// best point so far: the goroutine asks for faults as panics, and the CPU
// backend raises its workers' faults here.
func (t *tracker) run(ctx context.Context, dst *Result, e engine, s *Settings, method string) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = t.fault(r, dst, e, method)
		}
	}()
	*t = tracker{s: s, done: ctx.Done(), sh: e.shape(), best: noCertificate}
	if t.sh.game {
		t.best.lower, t.best.upper = math.Inf(-1), math.Inf(1)
	}
	t.t0, t.c0 = time.Now(), s.clockStart()
	if s.Recorder != nil {
		// The recorder sees a copy: s may be the package's defaults.
		t.settings = *s
		t.info = Info{Method: method, Dim: t.sh.dim, Scale: t.sh.scale / t.sh.unit, Settings: &t.settings}
		if err := s.Recorder.Init(&t.info); err != nil {
			return fmt.Errorf("solver: recorder: %w", err)
		}
	}
	c0, err := e.start(s.Init)
	if err != nil {
		return err
	}
	t.keepBest(e, c0, c0, StartPoint)
	t.restartGap = t.best.gap
	st, err := t.after(e, math.Inf(1), c0.gap)
	pol := e.restartPolicy()
	for err == nil {
		for st == NotTerminated && err == nil {
			if !t.budget(e.nextCost()) {
				st = EvaluationLimit
				break
			}
			avg, last, accepted, serr := e.step()
			if serr != nil {
				return serr
			}
			e.work(&t.stats)
			if !accepted {
				t.stats.Rejections++
				continue
			}
			t.stats.Iterations++
			t.sinceRestart++
			t.keepBest(e, avg, last, AveragePoint)
			st, err = t.after(e, avg.gap, last.gap)
			// A restart evaluates its start point: it is made only when
			// that and one more step fit the evaluation limit.
			if st == NotTerminated && err == nil && pol.due(t.sinceRestart, avg.gap, t.restartGap) && t.budget(1+e.nextCost()) {
				err = t.restart(e)
			}
		}
		if err != nil {
			break
		}
		if st, err = t.certifyLate(e, st); err != nil {
			break
		}
		final, ferr := e.finish(dst, t.best)
		if ferr != nil {
			return ferr
		}
		e.work(&t.stats)
		if st == Converged && !t.met(final.gap) {
			// The running certificate met the target but the fresh one
			// does not (rounding in the running averages, visible only
			// at targets near machine precision): iterate on with the
			// test tightened by the difference, so that Converged always
			// describes the reported gap. The limits still hold: one
			// reached already ends the run with the fresh certificate.
			t.margin += final.gap - t.best.gap
			if st = t.status(); st == NotTerminated && t.budget(e.nextCost()) {
				continue
			}
			if st == NotTerminated {
				st = EvaluationLimit
			}
		}
		if td, ok := e.(tidier); ok && t.sh.game {
			// The pair returned without its rounding debris (see
			// tidy.go), certified as returned.
			test := tidyTest{c0: final, tol: tidyTolerance(t.sh.dim) * t.sh.scale, limit: t.limit()}
			if final, err = td.tidy(dst, final, test); err != nil {
				return err
			}
			e.work(&t.stats)
		}
		t.fill(dst, st, final, method)
		return nil
	}
	return err
}

// fault turns a panic r into ErrMatrixFault with the best point so far in
// dst, if r is a memory fault; any other panic goes on.
func (t *tracker) fault(r any, dst *Result, e engine, method string) error {
	f, ok := r.(interface{ Addr() uintptr })
	if _, rt := r.(runtime.Error); !ok || !rt {
		panic(r)
	}
	err := fmt.Errorf("%w at address %#x (was a memory-mapped payoff file truncated?)", ErrMatrixFault, f.Addr())
	if xerr := e.export(dst); xerr != nil {
		return errors.Join(err, xerr)
	}
	e.work(&t.stats)
	t.fill(dst, Canceled, t.best, method)
	return err
}

// restart has e start afresh from its best point.
func (t *tracker) restart(e engine) error {
	if err := e.restart(); err != nil {
		return err
	}
	t.stats.Restarts++
	t.sinceRestart = 0
	t.restartGap = t.best.gap
	return nil
}

// keepBest offers an iteration's certificates and has e copy what improved.
func (t *tracker) keepBest(e engine, avg, last certificate, first PointKind) {
	keep, ok := t.offer(avg, last, first)
	for part := range 2 {
		if ok[part] {
			e.keep(keep[part], part)
		}
	}
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
	if !t.sh.game {
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
func (t *tracker) after(e engine, gapAvg, gapLast float64) (Status, error) {
	if err := t.record(e, gapAvg, gapLast); err != nil {
		return NotTerminated, err
	}
	return t.status(), nil
}

// status is the run's status after the last iteration recorded.
func (t *tracker) status() Status {
	s := t.s
	switch {
	case t.met(t.best.gap + t.margin):
		return Converged
	case s.MaxIterations > 0 && t.stats.Iterations >= s.MaxIterations:
		return IterationLimit
	}
	switch el, stop := s.clock(t.t0, t.c0); {
	case s.TimeLimit > 0 && el >= s.TimeLimit:
		return TimeLimit
	case stop:
		return Canceled
	}
	select {
	case <-t.done:
		return Canceled
	default:
	}
	return NotTerminated
}

// record passes the current iteration to the Recorder, in the problem's
// units.
func (t *tracker) record(e engine, gapAvg, gapLast float64) error {
	e.work(&t.stats)
	r, u := &t.rec, t.sh.unit
	r.Iteration, r.Evaluations, r.MatrixPasses = t.stats.Iterations, t.stats.Evaluations, t.stats.MatrixPasses
	r.Step = t.stats.Step * u
	r.GapAverage, r.GapLast = gapAvg/u, gapLast/u
	r.Gap, r.RelGap = t.best.gap/u, t.best.gap/t.sh.scale
	r.ValueLower, r.ValueUpper = t.best.lower/u, t.best.upper/u
	r.Point, r.ColumnPoint = t.bestKind[0], t.bestKind[1]
	r.Elapsed = time.Since(t.t0)
	if t.s.Recorder != nil {
		if err := t.s.Recorder.Record(r); err != nil {
			return fmt.Errorf("solver: recorder: %w", err)
		}
	}
	return nil
}

// certifyLate gives a lateCertifier's uncertified final average its
// certificate before a run that stopped with status st ends: it is offered
// like any other, recorded as the last iteration again, and turns the
// status into Converged if it meets the target.
func (t *tracker) certifyLate(e engine, st Status) (Status, error) {
	c, ok := e.(lateCertifier)
	if !ok || st == Converged {
		return st, nil
	}
	avg, done, err := c.certifyAverage()
	if err != nil || !done {
		return st, err
	}
	t.keepBest(e, avg, noCertificate, AveragePoint)
	if err := t.record(e, avg.gap, math.Inf(1)); err != nil {
		return st, err
	}
	if t.met(t.best.gap + t.margin) {
		st = Converged
	}
	return st, nil
}

// met reports whether a gap (internal units) meets the relative or absolute
// target.
func (t *tracker) met(gap float64) bool { return gap <= t.limit() }

// limit is the largest gap (internal units) that meets the target, −Inf
// without one. The unit is a power of two, so the absolute target converts
// exactly.
func (t *tracker) limit() float64 {
	l := math.Inf(-1)
	if t.s.RelGap > 0 {
		l = t.s.RelGap * t.sh.scale
	}
	if t.s.AbsGap > 0 {
		l = max(l, t.s.AbsGap*t.sh.unit)
	}
	return l
}

// budget reports whether another k operator evaluations fit the limit.
func (t *tracker) budget(k int) bool {
	return t.s.MaxEvaluations <= 0 || t.stats.Evaluations+k <= t.s.MaxEvaluations
}

// fill writes the result, in the problem's units.
func (t *tracker) fill(dst *Result, st Status, final certificate, method string) {
	t.stats.Runtime = time.Since(t.t0)
	u := t.sh.unit
	t.stats.Step *= u
	dst.Point, dst.ColumnPoint = t.bestKind[0], t.bestKind[1]
	dst.Gap, dst.RelGap = final.gap/u, final.gap/t.sh.scale
	dst.ValueLower, dst.ValueUpper = final.lower/u, final.upper/u
	dst.Method, dst.Status, dst.Stats, dst.Route = method, st, t.stats, ""
	dst.RowSupport, dst.ColumnSupport = positives(dst.Row), positives(dst.Column)
}
