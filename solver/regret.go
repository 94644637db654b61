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
// A warm start (Settings.Init, or a restart from the best point) sets the
// strategies and seeds each player's regrets as WarmRegret times its
// strategy, so that the first strategy played is the start itself and the
// regrets have the weight of a run that has been near it for a while.
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
	// start or a restart, in units of max |A_ij|; 0 means DefaultWarmRegret.
	WarmRegret float64
	// Restart, when not nil, restarts the method on its schedule.
	Restart *Restart
}

// DefaultWarmRegret is RegretMatching.WarmRegret's default.
const DefaultWarmRegret = 1

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
		positiveKnob("warm-regret", "regret sum of each player at a warm start or restart, in units of max|A_ij|", "1", &m.WarmRegret),
	}
	return append(ks, restartKnobs(&m.Restart)...)
}

// Uses accepts matrix games.
func (m *RegretMatching) Uses(p Problem) error {
	if err := m.Averaging.check(m.Name(), Uniform, Linear, Quadratic); err != nil {
		return err
	}
	if !(m.WarmRegret >= 0) || m.WarmRegret > 1e300 {
		return fmt.Errorf("solver: WarmRegret must be finite and ≥ 0, got %g", m.WarmRegret)
	}
	if err := m.Restart.validate(); err != nil {
		return err
	}
	return usesGame(m.Name(), p)
}

// usesGame accepts exactly the matrix games.
func usesGame(method string, p Problem) error {
	g, ok := p.(*MatrixGame)
	if !ok {
		return fmt.Errorf("solver: %s solves matrix games (with the exact oracle) only, not %T", method, p)
	}
	return g.validate()
}

func (m *RegretMatching) engine(p Problem, _ *Settings) (engine, error) {
	g := p.(*MatrixGame)
	pl, err := g.acquire()
	if err != nil {
		return nil, err
	}
	if pl.rm == nil {
		e := &rmEngine{}
		if e.pairEngine, err = newPairEngine(pl, tensorops.Euclidean); err == nil {
			for k := range 2 {
				if e.r[k], err = e.vec(k); err != nil {
					break
				}
			}
		}
		if err != nil {
			pl.release()
			return nil, err
		}
		pl.rm = e
	}
	e := pl.rm
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
}

// seed sets each player's regrets to WarmRegret times its strategy (a warm
// start or a restart) or to 0 (a cold start).
func (e *rmEngine) seed(warm bool) {
	c := e.m.WarmRegret
	if c == 0 {
		c = DefaultWarmRegret
	}
	if !warm {
		c = 0
	}
	for k := range 2 {
		e.be.Axpby(e.r[k], c, e.z[k].Value, 0, e.z[k].Value)
	}
}

func (e *rmEngine) start(init []float64) (certificate, error) {
	e.begin()
	if err := e.place(init); err != nil {
		return noCertificate, err
	}
	e.seed(init != nil)
	return e.first()
}

func (e *rmEngine) restart() (certificate, error) {
	if err := e.hostBest(); err != nil {
		return noCertificate, err
	}
	if err := e.placeHost(true); err != nil {
		return noCertificate, err
	}
	e.seed(true)
	return e.first()
}

// step turns (p_t, q_t) into (p_{t+1}, q_{t+1}): alternating, p from the
// utilities A q_t, then q from −Aᵀ p_{t+1}; simultaneous, both from the pair
// t. Utilities are divided by max |A_ij| (regrets of a game with entries
// near 1e308 would overflow), and regrets below a few roundings of one
// utility evaluation are noise that must not be normalized into a strategy:
// a regret-matching run started at the cyclic game's equilibrium would turn
// its 1e-17 regrets into a pure strategy and never recover.
func (e *rmEngine) step() (avg, last certificate, accepted bool, err error) {
	g := e.pl.g
	sign := -1 / (g.maxAbs * e.pl.unit)
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
	} else {
		// f[0] = −A q_t: the row player's utility A q_t with sign −1.
		e.be.RegretMatch(e.z[0].Value, e.r[0], e.f[0], sign, tiny[0], pred)
		e.be.MulTVec(e.f[1], e.pl.a, e.scale(0, e.z[0].Value))
		// f[1] = Aᵀ p_{t+1}: the column player's loss, a utility with
		// sign −1.
		e.be.RegretMatch(e.z[1].Value, e.r[1], e.f[1], sign, tiny[1], pred)
		e.be.MulVec(e.f[0], e.pl.a, e.scale(1, e.z[1].Value))
		e.be.Axpby(e.f[0], -1, e.f[0], 0, e.f[0])
		e.evals++
		e.passes += 2
	}
	avg, last, err = e.observe()
	return avg, last, err == nil, err
}

func (e *rmEngine) work(st *Stats) {
	e.gameBase.work(st)
	st.Step = 0
}
