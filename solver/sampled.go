package solver

import (
	"errors"
	"fmt"

	"github.com/gpump/gpump/tensorops"
)

// The sampled matrix-game oracle (SPEC section 4; Juditsky, Nemirovski and
// Tauvel 2011, "Solving variational inequalities with stochastic
// mirror-prox algorithm").
//
// At (p, q) it draws b column indices j_1 … j_b ~ q, then b row indices
// i_1 … i_b ~ p, independently and with replacement, and returns
//
//	(−(1/b) Σ_k A e_{j_k}, (1/b) Σ_k Aᵀe_{i_k}),
//
// whose expectation is F(p, q) = (−A q, Aᵀp). The backend does the work
// (tensorops.Backend.SampledOperator): the draws, from uniforms that are a
// pure function of Settings.Seed and the number of the evaluation, and the
// sums, next to the matrix and the vectors, so nothing crosses to the host.
// With Settings.SampleTransposed the solve first makes a transposed copy of
// A on the backend (tensorops.Backend.Transpose: as much memory as A again)
// and the sampled columns are read as contiguous rows of Aᵀ instead of one
// entry per row of A. The iterates depend on the seed alone, not on the
// thread count or GOMAXPROCS (each sum is formed in a fixed order); the
// certificates come from the backend's passes (their last bits depend on
// its thread count, as for the exact oracle).
type sampledOracle struct {
	base *gameBase
	at   tensorops.Matrix // Aᵀ with Settings.SampleTransposed, else nil
	draw tensorops.Draw   // Counter counts the evaluations
}

// newSampledOracle returns the oracle of batch size batch; with transposed
// it first makes Aᵀ on the backend.
func newSampledOracle(b *gameBase, batch int, seed uint64, transposed bool) (*sampledOracle, error) {
	o := &sampledOracle{base: b, draw: tensorops.Draw{Batch: batch, Seed: seed}}
	if transposed {
		at, err := b.be.Transpose(b.a)
		if err != nil {
			return nil, fmt.Errorf("solver: %w", err)
		}
		b.owned = append(b.owned, at)
		o.at = at
	}
	return o, nil
}

// evaluate sets f to the sampled estimate of F(p, q). A strategy with no
// positive finite total makes its part of the estimate NaN, which the
// trial's statistics report.
func (o *sampledOracle) evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error {
	o.base.be.SampledOperator(f[0], f[1], o.base.a, o.at, p, q, o.draw)
	o.draw.Counter++
	o.base.evals++
	return nil
}

// sampledGame is mirror-prox on a matrix game with the sampled oracle
// (Settings.Oracle = Sampled). It is mpGame with the oracle replaced and
// with certificates from full passes only: the extremes of the running
// averages of the estimates that mpGame.trial computes are discarded (they
// estimate the gap of the average, with a bias, and are never reported),
// and nothing certifies the last iterate. The start point is certified with
// a pass; then the candidate average of every K-th iteration is, and the
// average of the last iteration (a trial that the iteration or evaluation
// limit makes the last is certified at once; one that the clock or a
// cancellation ends, by certifyEnd).
type sampledGame struct {
	*mpGame
	smp   *sampledOracle
	s     *Settings
	every int
	iter  int // accepted iterations
	// due: the current trial's candidate average was certified;
	// certified: the accepted average is.
	due, certified bool
}

func newSampledGame(b *gameBase, s *Settings) (*sampledGame, error) {
	mp, err := newMPGame(b)
	if err != nil {
		return nil, err
	}
	batch := s.Batch
	if batch == 0 {
		batch = DefaultBatch
	}
	every := s.GapEvery
	if every == 0 {
		every = autoGapEvery(b.size[0], b.size[1], batch)
	}
	smp, err := newSampledOracle(b, batch, s.Seed, s.SampleTransposed)
	if err != nil {
		return nil, err
	}
	e := &sampledGame{mpGame: mp, s: s, every: every, smp: smp}
	mp.oracle = e.smp
	return e, nil
}

// autoGapEvery is the default K: the smallest K ≥ 1 with K·b·(m + n) ≥
// 2·m·n.
func autoGapEvery(m, n, b int) int {
	num, den := 2*float64(m)*float64(n), float64(b)*float64(m+n)
	k := int(num / den)
	if float64(k)*den < num {
		k++
	}
	return max(k, 1)
}

// certifyPass certifies the pair x with a full pass over A into the
// scratch vectors f of the base (which only the final certification uses
// otherwise); it is a gap pass, not an operator evaluation.
func (e *sampledGame) certifyPass(x [2]tensorops.Vector) (certificate, error) {
	e.be.Operator(e.f[0], e.f[1], e.a, x[0], x[1])
	e.passes++
	e.gapPasses++
	return e.certifyCurrent(x, e.f)
}

// start certifies y_0 with a pass, then draws the estimate m_1 of F(y_0).
func (e *sampledGame) start() (certificate, error) {
	for k := range 2 {
		e.be.Start(e.y[k], e.set[k])
	}
	y := [2]tensorops.Vector{e.y[0].Value, e.y[1].Value}
	c, err := e.certifyPass(y)
	if err != nil {
		return noCertificate, err
	}
	if err := e.smp.evaluate(e.m, y[0], y[1]); err != nil {
		return noCertificate, err
	}
	return c, nil
}

func (e *sampledGame) trial(eta, w float64, t *Trial) (last, avg certificate, err error) {
	if _, _, err := e.mpGame.trial(eta, w, t); err != nil {
		return noCertificate, noCertificate, err
	}
	it := e.iter + 1
	final := e.s.MaxIterations > 0 && it >= e.s.MaxIterations ||
		e.s.MaxEvaluations > 0 && e.evals+2 > e.s.MaxEvaluations
	e.due = it%e.every == 0 || final
	if !e.due {
		return noCertificate, noCertificate, nil
	}
	avg, err = e.certifyPass(e.navgX)
	return noCertificate, avg, err
}

func (e *sampledGame) accept() {
	e.mpGame.accept()
	e.iter++
	e.certified = e.due
}

func (e *sampledGame) certifyEnd() (certificate, bool, error) {
	if e.certified || e.iter == 0 {
		return noCertificate, false, nil
	}
	c, err := e.certifyPass(e.avgX)
	e.certified = err == nil
	return c, err == nil, err
}

// checkOracle validates the oracle settings against the problem and the
// method.
func checkOracle(p Problem, s *Settings, m Method) error {
	if s.Batch < 0 || s.GapEvery < 0 {
		return errors.New("solver: negative Batch or GapEvery")
	}
	switch s.Oracle {
	case Exact:
		if s.Batch != 0 || s.GapEvery != 0 || s.SampleTransposed {
			return errors.New("solver: Batch, GapEvery and SampleTransposed apply to the sampled oracle only")
		}
		return nil
	case Sampled:
	default:
		return fmt.Errorf("solver: unknown oracle %d", s.Oracle)
	}
	if _, ok := p.(*MatrixGame); !ok {
		return errors.New("solver: the sampled oracle applies to matrix games (wrap a Monotone problem's operator with Noisy)")
	}
	if _, ok := m.(*MirrorProx); !ok {
		return fmt.Errorf("solver: the sampled oracle applies to mirror-prox, not %s", m.Name())
	}
	return nil
}
