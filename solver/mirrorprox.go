package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// MirrorProx is mirror-prox (paper Algorithm 1) with a step rule:
//
//	y_0 = argmin R (or Settings.Init)
//	for t = 1, 2, …
//	    eta_t = Rule.Step()                 (uses only trials 1 … t−1)
//	    m_t = F(y_{t−1});  x_t = P_{y_{t−1}}(eta_t m_t)
//	    g_t = F(x_t);      y_t = P_{y_{t−1}}(eta_t g_t)
//	    Rule.Observe(D(x_t, y_{t−1}), D(y_t, x_t), norms, …)
//
// with the prox-mapping P_c(g) = argmin_z ⟨g, z⟩ + D(z, c) and the
// divergence D(z, c) = R(z) − R(c) − ⟨∇R(c), z − c⟩ (the new point first,
// the centre second). It returns the better certified of the averaged x_t
// and the last x_t. It solves every problem kind: matrix games (on their
// backend), sampled games and Monotone problems.
//
// A warm start (Settings.Init) becomes y_0; an entropic block first mixes
// in a fraction 1/4 of the uniform distribution, so that no strategy starts
// at weight 0 (where it could never come back: the entropic prox-mapping
// multiplies weights) and none so low that the new average's certificate,
// which grows with −log of the start's weights, is slowed down. A restart
// sets y to the best point, mixed with only 1e-4 of the uniform distribution
// since it comes back to a point the run itself reached, evaluates F there
// and starts a new average; the step rule keeps its state.
type MirrorProx struct {
	// Rule is the step rule; nil means GAStochastic.
	// A rule holds state: give each concurrent solve its own.
	Rule StepRule
	// Setup is the geometry of a game's strategy blocks: tensorops.Entropic
	// (the default: R = Σ z log z, l1 norm) or tensorops.Euclidean (R =
	// ½‖z‖², l2 norm). A Monotone problem's geometry is its Set.
	Setup tensorops.Setup
	// Averaging chooses the weights of the average: Uniform (the default)
	// or StepWeighted (the default of the Backtracking rule, see
	// AveragingPreferrer), Linear or Quadratic.
	Averaging Averaging
	// G0 is the universal rules' G0, in the problem's units (the first step
	// is D/G0). Default: max |A_ij| for an entropic game (see MatrixGame
	// for the Euclidean one); for a Monotone, Bound or else twice the
	// largest ‖F‖_* seen at y_0 and at four random points of the set.
	G0 float64
	// Diameter is D, with D² = sup R − inf R of the setup. Default: that
	// value (D = √(log m + log n) for an entropic game). It is required on
	// unbounded sets.
	Diameter float64
	// Restart, when not nil, restarts the method on its schedule.
	Restart *Restart
}

// AveragingPreferrer is implemented by step rules whose natural average is
// not the uniform one.
type AveragingPreferrer interface {
	// Averaging returns the rule's preferred averaging.
	Averaging() Averaging
}

// Name returns the step rule's name.
func (m *MirrorProx) Name() string {
	if m.Rule == nil {
		return (&GAStochastic{}).Name()
	}
	return m.Rule.Name()
}

// Knobs lists g0, diameter, averaging, setup, the restart policy and the
// step rule's own knobs.
func (m *MirrorProx) Knobs() []Knob {
	var ks []Knob
	if !m.fixedStep() {
		ks = append(ks,
			positiveKnob("g0", "G0 of the step rule: the first step is D/G0", "max|A_ij|", &m.G0),
			positiveKnob("diameter", "D of the step rule, with D^2 = sup R - inf R", "sqrt(log m + log n) in the entropic setup", &m.Diameter))
	}
	ks = append(ks,
		averagingKnob(m.Name(), "uniform; step for backtracking", &m.Averaging, Uniform, StepWeighted, Linear, Quadratic),
		Knob{Name: "setup", Usage: "geometry of both players: entropic or euclidean", Default: "entropic", Set: func(v string) error {
			switch v {
			case "entropic":
				m.Setup = tensorops.Entropic
			case "euclidean":
				m.Setup = tensorops.Euclidean
			default:
				return fmt.Errorf("solver: unknown setup %q (want entropic or euclidean)", v)
			}
			return nil
		}})
	ks = append(ks, restartKnobs(&m.Restart)...)
	if t, ok := m.Rule.(Tunable); ok {
		ks = append(ks, t.Knobs()...)
	}
	return ks
}

// fixedStep reports whether the rule ignores G0 and D (the constant rule).
func (m *MirrorProx) fixedStep() bool {
	_, ok := m.Rule.(*Constant)
	return ok
}

// Uses accepts every problem kind; it refuses invalid knobs.
func (m *MirrorProx) Uses(p Problem) error {
	if m.fixedStep() && (m.G0 != 0 || m.Diameter != 0) {
		return errors.New("solver: the constant rule uses neither G0 nor Diameter")
	}
	if err := m.Averaging.check(m.Name(), Uniform, StepWeighted, Linear, Quadratic); err != nil {
		return err
	}
	for _, c := range []float64{m.G0, m.Diameter} {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("solver: mirror-prox G0 and Diameter must be finite and ≥ 0, got %g", c)
		}
	}
	if m.Setup != tensorops.Entropic && m.Setup != tensorops.Euclidean {
		return fmt.Errorf("solver: unknown setup %d", m.Setup)
	}
	if err := m.Restart.validate(); err != nil {
		return err
	}
	switch p := p.(type) {
	case *MatrixGame:
		return p.validate()
	case *SampledGame:
		return p.validate()
	case *Monotone:
		if m.Setup != tensorops.Entropic {
			return errors.New("solver: MirrorProx.Setup applies to games: a Monotone problem's geometry is its Set")
		}
		if _, ok := p.Set.(WarmStarter); !ok && m.Restart != nil {
			return fmt.Errorf("solver: restarts need a set that can start from a point (a WarmStarter), not %T", p.Set)
		}
		return p.validate()
	}
	return fmt.Errorf("solver: unsupported problem type %T", p)
}

func (m *MirrorProx) engine(p Problem, s *Settings) (engine, error) {
	var (
		e   *mpEngine
		err error
	)
	switch p := p.(type) {
	case *MatrixGame:
		e, err = p.mirrorProx(m.Setup)
	case *SampledGame:
		e, err = p.mirrorProx(m.Setup, s)
	case *Monotone:
		e = &mpEngine{sp: newVecSpace(p)}
	}
	if err != nil {
		return nil, err
	}
	e.bind(m)
	return e, nil
}

// mpSpace is what mirror-prox needs of a problem: the primitives of one
// trial, written once per problem kind (games on a backend, sampled games,
// Monotone problems on the host) and driven by mpEngine with host scalars
// only.
type mpSpace interface {
	shape() shape
	// constants returns the problem's D, G0 and L (internal units).
	constants() (Constants, error)
	// start sets y_0 (init, or argmin R), evaluates m_1 = F(y_0) and
	// certifies y_0.
	start(init []float64) (certificate, error)
	// trial computes x = P_y(eta m), g = F(x), the candidate y' = P_y(eta
	// g) and the candidate average with weight fraction w, fills t and
	// certifies x and the candidate average.
	trial(eta, w float64, t *Trial) (last, avg certificate, err error)
	// accept makes the candidates current.
	accept()
	// advance evaluates m = F(y).
	advance() error
	keep(k PointKind, part int)
	// restart sets y to the best point and evaluates m = F(y); the next
	// accepted trial starts a new average.
	restart() error
	finish(dst *Result, best certificate) (certificate, error)
	export(dst *Result) error
	work(st *Stats)
	release()
}

// mpEngine is mirror-prox on any mpSpace: the step rule, the averaging
// weights and the rejected trials, written once.
type mpEngine struct {
	t        tracker
	sp       mpSpace
	m        *MirrorProx
	rule     StepRule
	defRule  GAStochastic
	avg      averager
	trial    Trial
	ready    bool // the rule is initialized
	stale    bool // m = F(y) must be evaluated before the next trial
	rejected int
	eta      float64
}

// bind makes e run m's rule and averaging.
func (e *mpEngine) bind(m *MirrorProx) {
	e.m, e.rule = m, m.Rule
	if e.rule == nil {
		e.defRule = GAStochastic{}
		e.rule = &e.defRule
	}
}

func (e *mpEngine) loop() *tracker          { return &e.t }
func (e *mpEngine) shape() shape            { return e.sp.shape() }
func (e *mpEngine) keep(k PointKind, p int) { e.sp.keep(k, p) }
func (e *mpEngine) restartPolicy() *Restart { return e.m.Restart }
func (e *mpEngine) release()                { e.sp.release() }

func (e *mpEngine) averaging() Averaging {
	if e.m.Averaging != DefaultAveraging {
		return e.m.Averaging
	}
	if ap, ok := e.rule.(AveragingPreferrer); ok {
		return ap.Averaging()
	}
	return Uniform
}

func (e *mpEngine) start(init []float64) (certificate, error) {
	e.ready, e.stale, e.rejected, e.eta = false, false, 0, 0
	e.avg.reset(e.averaging())
	return e.sp.start(init)
}

func (e *mpEngine) nextCost() int {
	if e.stale {
		return 2
	}
	return 1
}

// init initializes the rule at the first step, not at the start: a problem
// its start point solves (a 1×1 game, a zero operator) needs no constants.
func (e *mpEngine) init() error {
	k, err := e.sp.constants()
	if err != nil {
		return err
	}
	if e.m.Diameter > 0 {
		k.D = e.m.Diameter
	}
	k.Unit = e.sp.shape().unit
	if e.m.G0 > 0 {
		k.G0 = e.m.G0 * k.Unit
	}
	if err := e.rule.Init(k); err != nil {
		return err
	}
	e.ready = true
	return nil
}

func (e *mpEngine) step() (avg, last certificate, accepted bool, err error) {
	if !e.ready {
		if err := e.init(); err != nil {
			return avg, last, false, err
		}
	}
	if e.stale {
		if err := e.sp.advance(); err != nil {
			return avg, last, false, err
		}
		e.stale = false
	}
	eta := e.rule.Step()
	if !(eta > 0) || math.IsInf(eta, 0) {
		return avg, last, false, fmt.Errorf("solver: step rule %s gave step %g at iteration %d", e.rule.Name(), eta, e.t.stats.Iterations+1)
	}
	e.trial = Trial{Eta: eta}
	last, avg, err = e.sp.trial(eta, e.avg.fraction(eta), &e.trial)
	if err != nil {
		return avg, last, false, err
	}
	if !e.rule.Observe(&e.trial) && e.rejected < maxRejections {
		e.rejected++
		return avg, last, false, nil
	}
	e.rejected = 0
	e.avg.add(eta)
	e.sp.accept()
	e.stale, e.eta = true, eta
	return avg, last, true, nil
}

func (e *mpEngine) restart() error {
	e.stale = false
	e.avg.reset(e.averaging())
	return e.sp.restart()
}

func (e *mpEngine) finish(dst *Result, best certificate) (certificate, error) {
	return e.sp.finish(dst, best)
}

func (e *mpEngine) export(dst *Result) error { return e.sp.export(dst) }

// tidy passes a game's tidying (see tidy.go) through.
func (e *mpEngine) tidy(dst *Result, c certificate, test tidyTest) (certificate, error) {
	if t, ok := e.sp.(tidier); ok {
		return t.tidy(dst, c, test)
	}
	return c, nil
}

func (e *mpEngine) work(st *Stats) {
	e.sp.work(st)
	st.Step = e.eta
}

// certifyAverage passes the sampled oracle's late certification through.
func (e *mpEngine) certifyAverage() (certificate, bool, error) {
	if c, ok := e.sp.(lateCertifier); ok {
		return c.certifyAverage()
	}
	return noCertificate, false, nil
}

// Knobs of the step rules that have constants.

// Knobs lists c.
func (r *GABounded) Knobs() []Knob {
	return []Knob{positiveKnob("c", "constant c of the ga-bounded rule", "1", &r.C)}
}

// Knobs lists c.
func (r *GAStochastic) Knobs() []Knob {
	return []Knob{positiveKnob("c", "constant c of the ga-stochastic rule", "5", &r.C)}
}

// Knobs lists eta.
func (r *Constant) Knobs() []Knob {
	return []Knob{positiveKnob("eta", "step of the constant rule", "1/L: 1/max|A_ij| for an entropic game, 1/‖A‖_F for a Euclidean one", &r.Eta)}
}

// Knobs lists eta, the rule's gamma0.
func (r *AdaProx) Knobs() []Knob {
	return []Knob{positiveKnob("eta", "gamma0 of adaprox", "D/G0", &r.Gamma0)}
}
