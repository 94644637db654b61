package solver

import (
	"fmt"
	"strconv"

	"github.com/gpump/gpump/tensorops"
)

// RegretMatching is regret matching+ (Tammelin 2014) on a matrix game: each
// player keeps cumulative regrets r ← max(r + ρ, 0), with ρ the
// instantaneous regret of its last strategy, and plays x = r / Σ r. With
// Predictive it is predictive regret matching+ (Farina, Kroer and Sandholm
// 2021), which plays normalize(max(r + ρ, 0)), the last instantaneous regret
// as the prediction.
//
// By default the updates alternate: the row player moves against A q_t,
// then the column player against Aᵀ p_{t+1}, reading A twice per iteration
// (one operator evaluation, two passes); with Simultaneous both move against
// the same pair, one fused pass per iteration. Utilities enter the regrets
// divided by max |A_ij| (RM+ is invariant to the scale of A).
//
// A warm start (Settings.Init) plays the start itself first and seeds each
// player's regrets as a multiple of its strategy, so that the regrets have
// the weight they have in a run that has been near the start for a while:
// RM+'s regret sums level off within a few tens of iterations (on random
// games at about 5 to 25 times max |A_ij|, depending on the payoffs'
// spread and the size of the support), and a warm start seeded far below
// that level forgets the start at once, far above it crawls. Unless
// WarmRegret sets the sum, the start is calibrated: warmCalibration
// iterations from the start with zero regrets measure each player's level,
// and the regrets are seeded at a fraction of it (warmFraction). A restart
// seeds the best point with the current regret sums.
type RegretMatching struct {
	// Predictive selects PRM+.
	Predictive bool
	// Simultaneous updates both players against the same pair instead of
	// alternating.
	Simultaneous bool
	// Averaging chooses the weights of the average: Linear (the default),
	// Quadratic or Uniform.
	Averaging Averaging
	// WarmRegret is the sum each player's regrets are seeded with at a warm
	// start, in units of max |A_ij|; 0 means calibrated (see above).
	WarmRegret float64
	// Restart, when not nil, restarts the method on its schedule.
	Restart *Restart

	// carry, set by Auto, makes each solve keep its final regret sums in
	// carried, and a warm start seed carried (when not zero) instead of
	// calibrating: a phase that goes on from the pair where the last one
	// stopped then continues its run instead of restarting it.
	carry   bool
	carried [2]float64
}

// Warm starts of regret matching: the calibration's iterations, and the
// fraction of the measured regret sums seeded (RM+, PRM+), from the tuning
// sweep of docs/methods.md (BenchmarkTuneWarmStart): for RM+ fractions of 1/4
// and 1/3 were erratic and 1 and more slower; PRM+ gains little at any
// fraction.
const warmCalibration = 10

var warmFraction = [2]float64{0.5, 1}

// Name returns "rm+" or "prm+".
func (m *RegretMatching) Name() string {
	if m.Predictive {
		return "prm+"
	}
	return "rm+"
}

// Knobs lists averaging, simultaneous, warm-regret and the restart policy.
func (m *RegretMatching) Knobs() []Knob {
	ks := []Knob{
		averagingKnob(m.Name(), "linear", &m.Averaging, Uniform, Linear, Quadratic),
		{Name: "simultaneous", Usage: "update both players against the same pair (one pass per iteration) instead of alternating", Default: "alternating", Bool: true,
			Set: func(v string) error {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return fmt.Errorf("solver: simultaneous must be true or false, got %q", v)
				}
				m.Simultaneous = b
				return nil
			}},
		positiveKnob("warm-regret", "regret sum of each player at a warm start, in units of max|A_ij|", "calibrated", &m.WarmRegret),
	}
	return append(ks, restartKnobs(&m.Restart)...)
}

// Uses accepts matrix games.
func (m *RegretMatching) Uses(p Problem) error {
	if !(m.WarmRegret >= 0) || m.WarmRegret > 1e300 {
		return fmt.Errorf("solver: WarmRegret must be finite and ≥ 0, got %g", m.WarmRegret)
	}
	return usesGame(m.Name(), p, m.Averaging, m.Restart)
}

// usesGame accepts exactly the matrix games, for a method that averages
// uniformly, linearly or quadratically and restarts on r.
func usesGame(method string, p Problem, a Averaging, r *Restart) error {
	if err := a.check(method, Uniform, Linear, Quadratic); err != nil {
		return err
	}
	if err := r.validate(); err != nil {
		return err
	}
	g, ok := p.(*MatrixGame)
	if !ok {
		return fmt.Errorf("solver: %s solves matrix games (with the exact oracle) only, not %T", method, p)
	}
	if err := g.validate(); err != nil {
		return err
	}
	if !g.matrixGame() {
		return fmt.Errorf("solver: %s solves matrix games only: both players on the simplex, without linear terms", method)
	}
	return nil
}

func (m *RegretMatching) engine(p Problem, _ *Settings) (engine, error) {
	g := p.(*MatrixGame)
	e, _, err := engineOf(g, func(pl *placement) **rmEngine { return &pl.rm }, func(pl *placement) (*rmEngine, error) {
		e := &rmEngine{sums: make([]float64, g.m+g.n)}
		var err error
		if e.pairEngine, err = newPairEngine(pl, tensorops.Euclidean); err != nil {
			return nil, err
		}
		for k := range 2 {
			if e.r[k], err = e.vec(k); err != nil {
				return nil, err
			}
		}
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	e.m, e.policy, e.kind = m, m.Restart, m.Averaging
	if e.kind == DefaultAveraging {
		e.kind = Linear
	}
	return e, nil
}

// rmEngine is RM+ or PRM+ on a game's backend.
type rmEngine struct {
	pairEngine
	m *RegretMatching
	r [2]tensorops.Vector
	// sums is host scratch for the regret sums.
	sums []float64
}

// regretSums returns each player's regret sum.
func (e *rmEngine) regretSums() ([2]float64, error) {
	var s [2]float64
	m := e.size[0]
	for k, x := range [2][]float64{e.sums[:m], e.sums[m:]} {
		if err := e.be.Store(x, e.r[k]); err != nil {
			return s, fmt.Errorf("solver: %w", err)
		}
		for _, v := range x {
			s[k] += v
		}
	}
	return s, nil
}

// seed sets each player's regrets to c_k times its strategy.
func (e *rmEngine) seed(c [2]float64) {
	for k := range 2 {
		e.be.Axpby(e.r[k], c[k], e.z[k].Value, 0, e.z[k].Value)
	}
}

// warmSums returns the regret sums a warm start seeds: WarmRegret, or a
// fraction of the sums that warmCalibration iterations from the start with
// zero regrets reach; the pair and its operator value are then restored
// from the host buffer and from avgF.
func (e *rmEngine) warmSums() ([2]float64, error) {
	if c := e.m.WarmRegret; c > 0 {
		return [2]float64{c, c}, nil
	}
	e.seed([2]float64{})
	for k := range 2 {
		e.be.Copy(e.avgF[k], e.f[k])
	}
	for range warmCalibration {
		e.update()
	}
	s, err := e.regretSums()
	if err != nil {
		return s, err
	}
	for k := range 2 {
		if err := e.loadPoint(e.z[k], k, tensorops.Euclidean, 0); err != nil {
			return s, err
		}
		e.be.Copy(e.f[k], e.avgF[k])
		s[k] *= e.fraction()
	}
	return s, nil
}

func (e *rmEngine) fraction() float64 {
	if e.m.Predictive {
		return warmFraction[1]
	}
	return warmFraction[0]
}

func (e *rmEngine) start(init []float64) (certificate, error) {
	e.begin(e.avgX, e.avgF)
	if _, _, err := e.place(init); err != nil {
		return noCertificate, err
	}
	var c [2]float64
	switch {
	case init != nil && e.m.carry && e.m.carried != [2]float64{}:
		c = e.m.carried
	case init != nil:
		var err error
		if c, err = e.warmSums(); err != nil {
			return noCertificate, err
		}
	}
	e.seed(c)
	return e.first()
}

// finish keeps the final regret sums for a carried warm start.
func (e *rmEngine) finish(dst *Result, best certificate) (certificate, error) {
	if e.m.carry {
		var err error
		if e.m.carried, err = e.regretSums(); err != nil {
			return noCertificate, err
		}
	}
	return e.pairEngine.finish(dst, best)
}

// restart seeds the best point with the current regret sums: the run's own
// level (half of it made gap-based restarts slower than none, the whole of
// it faster).
func (e *rmEngine) restart() error {
	c, err := e.regretSums()
	if err != nil {
		return err
	}
	if err := e.placeBest(); err != nil {
		return err
	}
	e.seed(c)
	_, err = e.first()
	return err
}

func (e *rmEngine) step() (avg, last certificate, accepted bool, err error) {
	e.update()
	avg, last, err = e.observe()
	return avg, last, err == nil, err
}

// update turns (p_t, q_t) into (p_{t+1}, q_{t+1}): alternating, p from the
// utilities A q_t, then q from −Aᵀ p_{t+1}; simultaneous, both from the pair
// t. Utilities are divided by max |A_ij| (regrets of a game with entries
// near 1e308 would overflow), and regrets below a few roundings of one
// utility evaluation are noise that must not be normalized into a strategy:
// a regret-matching run started at the cyclic game's equilibrium would turn
// its 1e-17 regrets into a pure strategy and never recover.
func (e *rmEngine) update() {
	g := e.pl.g
	sign := -1 / (g.storedMax * e.pl.stored)
	if g.maxAbs == 0 {
		sign = -1
	}
	m, n := e.size[0], e.size[1]
	tiny := [2]float64{4 * float64(n) * 0x1p-52, 4 * float64(m) * 0x1p-52}
	pred := e.m.Predictive
	if e.m.Simultaneous {
		for k := range 2 {
			e.be.RegretMatch(e.z[k].Value, e.r[k], e.f[k], sign, tiny[k], pred)
		}
		e.operator(e.f, e.z[0].Value, e.z[1].Value)
		return
	}
	// f[0] = −A q_t: the row player's utility A q_t with sign −1.
	e.be.RegretMatch(e.z[0].Value, e.r[0], e.f[0], sign, tiny[0], pred)
	e.be.MulTVec(e.f[1], e.pl.a, e.in(0, e.z[0].Value))
	e.out(e.f[1])
	// f[1] = Aᵀ p_{t+1}: the column player's loss, a utility with sign −1.
	e.be.RegretMatch(e.z[1].Value, e.r[1], e.f[1], sign, tiny[1], pred)
	e.be.MulVec(e.f[0], e.pl.a, e.in(1, e.z[1].Value))
	// −A q, scaled as out scales.
	e.be.Axpby(e.f[0], -min(e.pl.stored, 1), e.f[0], 0, e.f[0])
	e.evals++
	e.passes += 2
}

func (e *rmEngine) work(st *Stats) {
	e.gameBase.work(st)
	st.Step = 0
}
