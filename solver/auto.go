package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpump/gpump/solver/polish"
)

// Auto is the default method: the fastest certified route to the asked gap
// that gpump knows, with the route it took in Result.Route.
//
// A problem that is not a matrix game (a SampledGame, a bilinear game with a
// box, a ball or linear terms, a Monotone problem) runs the paper's rule,
// mirror-prox with GAStochastic. A matrix game runs RM+ (alternating,
// quadratic averaging); on games of 160×160 and more it restarts once, warm
// from the best pair of its first 10 iterations, because a cold start's
// regret sums carry the uniform start's payoffs for thousands of
// iterations. When the relative target is at most PolishBelow, RM+ runs to
// the handover gap (Handover) and the support crossover of package polish
// takes over whenever its predicted time is below that of RM+ going on;
// else RM+ goes on from where it stopped, as the same run.
//
// The predictions come from sizes and from RM+'s own measured decay, never
// from clocks, so that a solve's route does not depend on the machine's
// load. They are renewed as RM+ runs: a phase that a crossover may follow
// stops as soon as its decay prices it above the crossover, and the route
// may hand over a decade early (small supports) or go half a decade past
// the handover (a sharper support guess). A crossover that misses the
// target is followed by more watched RM+, with its price doubled each time;
// after 4 crossovers RM+ goes on alone. DESIGN.md gives the rules in full
// and the measurements behind them.
//
// The limits of Settings hold for the whole route, whose iterations are
// RM+'s and the crossover's rounds (a subgame solve and a pass each); the
// certificate is always that of the full game. The paper's rules stay one NewMethod away.
type Auto struct {
	// PolishBelow is the relative target at or below which a matrix game
	// considers the crossover; 0 means 1e-4, a negative value never.
	PolishBelow float64
	// Handover is the relative gap RM+ reaches before the crossover may
	// start; 0 means DefaultHandover(m, n).
	Handover float64
	// Polish holds the crossover's options (nil: its defaults); its
	// RelGap and Scale are set from the solve's target.
	Polish *polish.Options

	// ph is the route's state, kept so that a repeated solve allocates
	// nothing: like a step rule, an Auto serves one solve at a time.
	ph  phases
	rm  RegretMatching
	mp  MirrorProx
	gas GAStochastic
}

// Name returns "auto".
func (m *Auto) Name() string { return "auto" }

// Uses accepts every problem some method solves.
func (m *Auto) Uses(p Problem) error {
	if !(m.PolishBelow <= 1) {
		return fmt.Errorf("solver: auto's polish-below (PolishBelow) must be at most 1, got %g", m.PolishBelow)
	}
	if !(m.Handover >= 0 && m.Handover < 1) {
		return fmt.Errorf("solver: auto's handover (Handover) must be in [0, 1), got %g", m.Handover)
	}
	return m.route(p).Uses(p)
}

// Knobs lists the handover and the polish threshold.
func (m *Auto) Knobs() []Knob {
	return []Knob{
		{Name: "polish", Usage: "support crossover of a matrix game: auto (when it is predicted to pay, for relative targets ≤ polish-below) or off", Default: "auto",
			Set: func(v string) error {
				switch v {
				case "auto":
					m.PolishBelow = max(m.PolishBelow, 0)
				case "off":
					m.PolishBelow = -1
				default:
					return fmt.Errorf("solver: polish is auto or off, got %q", v)
				}
				return nil
			}},
		positiveKnob("polish-below", "relative target at or below which a matrix game may finish by support crossover", "1e-4", &m.PolishBelow),
		positiveKnob("handover", "relative gap RM+ reaches before the support crossover", "0.16/sqrt(m·n) in [1e-3, 1e-2]", &m.Handover),
	}
}

// route returns the first-order method for p.
func (m *Auto) route(p Problem) Method {
	if g, ok := p.(*MatrixGame); ok && g.matrixGame() {
		m.rm = RegretMatching{Averaging: Quadratic}
		return &m.rm
	}
	m.gas = GAStochastic{}
	m.mp = MirrorProx{Rule: &m.gas}
	return &m.mp
}

// engine is never called: SolveInto runs Auto's phases (solveRoute).
func (m *Auto) engine(Problem, *Settings) (engine, error) {
	return nil, errors.New("solver: auto has no engine of its own")
}

// DefaultHandover is Auto's handover gap for an m×n game: 0.16/√(mn),
// clamped to [1e-3, 1e-2], so 1e-3 from 160×160 up. On small games a pass
// costs little beside an iteration's fixed work and the subgame is small,
// so handing over earlier pays (measured in DESIGN.md).
func DefaultHandover(m, n int) float64 {
	return min(1e-2, max(1e-3, 0.16/math.Sqrt(float64(m)*float64(n))))
}

// autoRestartAfter is the number of iterations after which Auto restarts
// RM+ warm from its best pair (see Auto).
const autoRestartAfter = 10

// solveRoute runs Auto's route on p into dst.
func (m *Auto) solveRoute(ctx context.Context, dst *Result, p Problem, s *Settings) error {
	first := m.route(p)
	g, game := p.(*MatrixGame)
	below := defaultC(m.PolishBelow, 1e-4)
	target := math.Inf(1)
	if game {
		target = relTarget(g, s)
	}
	polishing := m.PolishBelow >= 0 && target <= below
	restarting := game && g.matrixGame() && g.m*g.n >= decadeMinEntries && !math.IsInf(target, 1)
	if !polishing && !restarting || !game || !g.matrixGame() {
		err := SolveInto(ctx, dst, p, s, first)
		dst.Method, dst.Route = m.Name(), first.Name()
		return err
	}
	ph := &m.ph
	ph.reset(s)
	// RM+ phases that go on from where the last one stopped carry its
	// regrets; the restart and a phase after the crossover calibrate.
	m.rm.carry, m.rm.carried = true, [2]float64{}
	defer func() { m.rm.carry, m.rm.carried = false, [2]float64{} }()
	handover := m.Handover
	if handover == 0 {
		handover = DefaultHandover(g.Dims())
	}
	handover = max(target, handover)
	if !polishing {
		handover = target
	}
	route := first.Name()
	// The early look (see Auto): the first run stops a decade before the
	// handover, where a small support hands over at once.
	looking := polishing && restarting && handover*10 < 1e-1 && handover*10 > target
	stop := handover
	if looking {
		stop = handover * 10
	}
	s1 := ph.settings(stop)
	s1.Init = s.Init
	if restarting {
		// The restart: a few iterations from the start, then RM+ again
		// warm-started from their best pair (see Auto), unless those
		// few already reached the handover or a limit.
		s1 = ph.settings(handover)
		s1.Init = s.Init
		if s1.MaxIterations == 0 || s1.MaxIterations > autoRestartAfter {
			s1.MaxIterations = autoRestartAfter
		}
		if err := SolveInto(ctx, dst, p, s1, first); err != nil {
			return err
		}
		ph.add(dst)
		s1 = nil
		switch {
		case dst.Status != IterationLimit || ph.met(dst):
		case !ph.left():
			// The few iterations' own limit is not the route's: report
			// the limit the route reached (evaluations, time).
			dst.Status = ph.limit()
		default:
			route += " → " + first.Name()
			ph.gaps, ph.decayBase = ph.gaps[:0], ph.stats.MatrixPasses
			m.recalibrate(ph)
			s1 = ph.settings(stop)
			s1.Init = append([]float64(nil), dst.X...)
		}
	}
	polishNow := false
	if s1 != nil {
		run := func(ctx context.Context) error {
			if err := SolveInto(ctx, dst, p, s1, first); err != nil {
				return err
			}
			ph.add(dst)
			return nil
		}
		// Watched when a crossover may follow: should RM+'s own decay
		// come to predict passes to its stop above twice a crossover of
		// the support so far (the whole game without a restart), the
		// crossover starts from where it is.
		limit := 2 * polishSeconds(g, nil)
		if restarting {
			limit = 2 * polishSeconds(g, dst)
		}
		if !polishing {
			limit = math.Inf(1)
		}
		fired, err := m.watched(ctx, dst, g, stop, ph, run, limit)
		if err != nil {
			return err
		}
		if fired {
			polishNow, dst.Status = true, Converged
		}
	}
	// goOn runs RM+ again to the relative gap rel, warm-started from the
	// best pair: a new run after the crossover (fresh, and in the route),
	// else the same run going on with its regrets.
	goOn := func(ctx context.Context, rel float64) error {
		if m.rm.carried == ([2]float64{}) {
			route += " → " + first.Name()
		}
		s3 := ph.settings(rel)
		s3.Init = append([]float64(nil), dst.X...)
		if err := SolveInto(ctx, dst, p, s3, first); err != nil {
			return err
		}
		ph.add(dst)
		return nil
	}
	if looking && !polishNow && dst.Status == Converged && !ph.met(dst) && dst.RelGap > handover {
		if polishNow = ph.earlyPays(g, dst, handover); !polishNow {
			// Watched as above.
			fired, err := m.watched(ctx, dst, g, handover, ph, to(goOn, handover), 2*polishSeconds(g, dst))
			if err != nil {
				return err
			}
			if fired {
				polishNow, dst.Status = true, Converged
			}
		}
	}
	switch {
	case dst.Status != Converged || ph.met(dst) || !polishing:
	case polishNow:
		if err := m.finish(ctx, dst, g, target, ph, &route, goOn, true); err != nil {
			return err
		}
	case ph.polishPays(g, dst, target):
		if next := handover / sqrt10; g.m*g.n >= decadeMinEntries && next > target && ph.decadePays(g, dst) {
			// Half a decade more of RM+ first: its passes cost less than
			// what a better support guess saves the crossover. Watched:
			// should its own progress put those passes above the whole
			// crossover, the crossover starts at once.
			fired, err := m.watched(ctx, dst, g, next, ph, to(goOn, next), polishSeconds(g, dst))
			if err != nil {
				return err
			}
			if !fired && (dst.Status != Converged || ph.met(dst)) {
				break
			}
		}
		if err := m.finish(ctx, dst, g, target, ph, &route, goOn, true); err != nil {
			return err
		}
	default:
		// From its handover pair, warm-started with the handover
		// phase's regret level (carried, see Auto), watched.
		if err := m.finish(ctx, dst, g, target, ph, &route, goOn, false); err != nil {
			return err
		}
	}
	ph.fill(dst)
	dst.Method, dst.Route = m.Name(), route
	return nil
}

// recalibrate makes the next RM+ phase calibrate its warm start, unless
// the calibration's warmCalibration evaluations would overrun the
// evaluations left: the phase then goes on at the last phase's regret
// level, which costs none.
func (m *Auto) recalibrate(ph *phases) {
	if s := ph.s.MaxEvaluations; s == 0 || s-ph.stats.Evaluations > warmCalibration {
		m.rm.carried = [2]float64{}
	}
}

// finish brings the route from a pair at or below the handover to the
// target: by the crossover at once when polishFirst, else by RM+ watched
// (see watched) until its own measured decay says the crossover is the
// faster finish. A crossover that misses the target (its subgame grew too
// large, its rounds ran out, rounding stalled it) is followed by a fresh,
// watched RM+ run from its best pair, with the crossover's predicted cost
// doubled for each miss so far: the next crossover starts from a better
// pair, and only when RM+ has fallen that much further behind. After
// maxCrossovers misses RM+ goes on alone.
func (m *Auto) finish(ctx context.Context, dst *Result, g *MatrixGame, target float64, ph *phases, route *string, goOn phaseFunc, polishFirst bool) error {
	penalty, crossovers, polishNow := 1.0, 0, polishFirst
	for {
		if polishNow {
			*route += " → polish"
			ok, err := m.polish(ctx, dst, g, target, ph)
			if err != nil || ok || !ph.left() {
				return err
			}
			crossovers++
			penalty *= 2
			m.recalibrate(ph)
			if m.rm.carried == ([2]float64{}) {
				// A fresh run: its decay is its own.
				ph.gaps, ph.decayBase = ph.gaps[:0], ph.stats.MatrixPasses
			}
			if crossovers == maxCrossovers {
				return goOn(ctx, target)
			}
		}
		fired, err := m.watched(ctx, dst, g, target, ph, to(goOn, target), 2*penalty*polishSeconds(g, dst))
		if err != nil || !fired {
			return err
		}
		polishNow = true
	}
}

// maxCrossovers is the number of crossovers after which a route that
// still misses its target leaves the rest to RM+.
const maxCrossovers = 4

// phaseFunc runs an RM+ phase of the route to a relative gap.
type phaseFunc func(ctx context.Context, rel float64) error

// to returns the phase goOn to the relative gap rel.
func to(goOn phaseFunc, rel float64) func(context.Context) error {
	return func(ctx context.Context) error { return goOn(ctx, rel) }
}

// watched runs the RM+ phase run, to the relative gap rel, and stops it
// early (fired) when, at one of the decay's samples, its passes so far
// and those its decay predicts to rel (see phases.decay) would take
// longer than limit seconds at autoBandwidth (see watch.check). The prediction is the one polishPays
// makes at the handover, renewed as the run goes: a run whose gap decays
// as predicted never fires, one that stagnates (low-rank games, whose
// RM+ gap can stall near 1e-7 for 10⁵ iterations) fires as soon as its
// measured decay says so. A fired phase's status is NotTerminated.
func (m *Auto) watched(ctx context.Context, dst *Result, g *MatrixGame, rel float64, ph *phases, run func(context.Context) error, limit float64) (fired bool, err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ph.watch = watch{g: g, target: rel, limit: limit, cancel: cancel, from: ph.stats.MatrixPasses - ph.decayBase}
	err = run(wctx)
	fired = ph.watch.fired
	ph.watch = watch{}
	if err == nil && fired && dst.Status == Canceled && ctx.Err() == nil {
		dst.Status = NotTerminated
		return true, nil
	}
	return false, err
}

// relTarget is the relative gap s asks for a game: the tighter of RelGap
// and AbsGap / max |A_ij| (+Inf with neither).
func relTarget(g *MatrixGame, s *Settings) float64 {
	t := math.Inf(1)
	if s.RelGap > 0 {
		t = s.RelGap
	}
	if s.AbsGap > 0 && g.maxAbs > 0 {
		t = min(t, s.AbsGap/g.maxAbs)
	}
	return t
}

// polish runs the crossover from dst's pair and, if it certifies a better
// one, puts it in dst; ok reports whether it met the target.
func (m *Auto) polish(ctx context.Context, dst *Result, g *MatrixGame, target float64, ph *phases) (ok bool, err error) {
	pl, err := g.acquire()
	if err != nil {
		return false, err
	}
	defer pl.release()
	pg, err := polishOf(pl)
	if err != nil {
		return false, err
	}
	var o polish.Options
	if m.Polish != nil {
		o = *m.Polish
	}
	o.RelGap, o.Scale = target, pg.MaxAbs()
	if ph.s.TimeLimit > 0 && ph.s.Clock == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ph.s.TimeLimit-time.Since(ph.t0))
		defer cancel()
	}
	res, err := polish.Polish(ctx, pg, dst.Row, dst.Column, &o)
	if err != nil && res.Status != polish.Canceled {
		return false, err
	}
	st := res.Stats
	// A crossover round (a subgame solve and a pass) counts as an
	// iteration, so that records and traces stay in order.
	ph.stats.Iterations += st.Solves
	ph.stats.MatrixPasses += st.Passes
	ph.stats.GapPasses += st.Passes
	ph.stats.SubgameSolves += st.Solves
	ph.stats.SubgameTime += st.SolveTime
	for _, sz := range st.Sizes {
		ph.stats.SubgameSize = max(ph.stats.SubgameSize, max(sz[0], sz[1]))
	}
	u := pl.unit
	if res.Gap/u < dst.Gap {
		copy(dst.Row, res.P)
		copy(dst.Column, res.Q)
		dst.Gap, dst.RelGap = res.Gap/u, res.RelGap
		dst.ValueLower, dst.ValueUpper = res.Lower/u, res.Upper/u
		dst.Point, dst.ColumnPoint = PolishedPoint, PolishedPoint
		if err := tidyPolished(ctx, pg, dst, target, &ph.stats); err != nil {
			return false, err
		}
		dst.RowSupport, dst.ColumnSupport = positives(dst.Row), positives(dst.Column)
	}
	if r := ph.rec.r; r != nil {
		// The crossover's outcome is the route's latest record.
		rec := &ph.rec.rec
		*rec = Record{Iteration: ph.stats.Iterations, Evaluations: ph.stats.Evaluations, MatrixPasses: ph.stats.MatrixPasses,
			Gap: dst.Gap, RelGap: dst.RelGap, GapAverage: math.Inf(1), GapLast: dst.Gap,
			ValueLower: dst.ValueLower, ValueUpper: dst.ValueUpper, Point: dst.Point, ColumnPoint: dst.ColumnPoint,
			Elapsed: time.Since(ph.t0)}
		if err := r.Record(rec); err != nil {
			return false, fmt.Errorf("solver: recorder: %w", err)
		}
	}
	if res.Status == polish.Canceled {
		dst.Status = Canceled
		if ctx.Err() == context.DeadlineExceeded {
			dst.Status = TimeLimit
		}
		return true, nil
	}
	return res.Status == polish.Converged && dst.RelGap <= target, nil
}

// tidyPolished drops the rounding debris of the crossover's pair in dst
// and certifies what remains with a pass over A, as the driver does for a
// method's pair (see tidy.go), to the relative target.
func tidyPolished(ctx context.Context, pg *polishGame, dst *Result, target float64, st *Stats) error {
	m, n := pg.Dims()
	u, scale := pg.pl.unit, pg.MaxAbs()
	scratch := make([]float64, 2*(m+n))
	aq, atp, save := scratch[:m], scratch[m:m+n], scratch[m+n:]
	if !dropPairDebris(dst.Row, dst.Column, save) {
		return nil
	}
	if err := pg.Pass(ctx, dst.Row, dst.Column, aq, atp); err != nil {
		return err
	}
	st.MatrixPasses++
	st.GapPasses++
	c := certificate{lower: math.Inf(1), upper: math.Inf(-1)}
	for _, v := range atp {
		c.lower = min(c.lower, v)
	}
	for _, v := range aq {
		c.upper = max(c.upper, v)
	}
	c.gap = c.upper - c.lower
	c0 := certificate{gap: dst.Gap * u, lower: dst.ValueLower * u, upper: dst.ValueUpper * u}
	if !(tidyTest{c0: c0, tol: tidyTolerance(m+n) * scale, limit: target * scale}).accept(c) {
		restorePair(dst.Row, dst.Column, save)
		return nil
	}
	dst.Gap, dst.RelGap = c.gap/u, c.gap/scale
	dst.ValueLower, dst.ValueUpper = c.lower/u, c.upper/u
	return nil
}
