package solver

import (
	"errors"
	"fmt"

	"github.com/gpump/gpump/tensorops"
)

// SampledGame is a matrix game whose operator mirror-prox evaluates with the
// stochastic oracle of Juditsky, Nemirovski and Tauvel (2011): at (p, q) it
// draws Batch column indices j ~ q and Batch row indices i ~ p,
// independently and with replacement, and returns
//
//	(−(1/b) Σ_k A e_{j_k}, (1/b) Σ_k Aᵀe_{i_k}),
//
// an unbiased estimate of F(p, q) = (−A q, Aᵀp) read from b columns and b
// rows of A, O(b (m + n)) instead of O(mn), fresh for each of the two
// evaluations of an iteration. The step rules see these noisy values
// (GAStochastic is the paper's rule for them).
//
// The running averages of the estimates are not A q̄ and Aᵀp̄, so nothing is
// certified for free: the gap of the average is computed with a full pass
// over A every GapEvery iterations and at the end (Stats.GapPasses), and
// only those gaps are reported, kept and tested against the target, which
// is therefore noticed up to GapEvery iterations late. Nothing certifies the
// last iterate.
//
// The backend draws and sums (tensorops.Backend.SampledOperator), next to
// the matrix and the vectors, so nothing crosses to the host per
// evaluation. Its uniforms are a pure function of Seed, the number of the
// evaluation and the index, so the iterates depend on Seed alone, not on
// the thread count or the backend (up to the summation order).
type SampledGame struct {
	// Game is the game (required); its placement and backend are used.
	Game *MatrixGame
	// Batch is b, the number of columns and of rows drawn per evaluation;
	// 0 means DefaultBatch. The variance of each entry of the estimate
	// falls like 1/b.
	Batch int
	// GapEvery is K, the period of the gap passes; 0 means automatic: the
	// smallest K with K·b·(m + n) ≥ 2·m·n, so that the gap passes read at
	// most a fifth of the entries the run reads (an iteration's two
	// evaluations read 2·b·(m + n)). For a run of about T iterations, K near
	// √(T·m·n / (b·(m + n))) balances the passes against the delay.
	GapEvery int
	// Seed seeds the draws.
	Seed uint64
	// Transposed makes the oracle read its sampled columns from a
	// transposed copy of A, made on the first solve (not counted in
	// Stats.Runtime), again on the first solve after each SetPayoff, and
	// taking as much memory as A. A sampled column is
	// then a contiguous row of Aᵀ; without the copy it is gathered from
	// every row of A, one cache line (often one page) per entry, which on a
	// large game costs about as much as a full pass (DESIGN.md, *Measurements
	// behind the doc comments*).
	Transposed bool
}

// DefaultBatch is SampledGame.Batch's default: below a few hundred the noise
// costs far more iterations than 1/b predicts, above it an iteration costs
// more (DESIGN.md, *Measurements behind the doc comments*).
const DefaultBatch = 256

// Dim returns m + n.
func (s *SampledGame) Dim() int {
	if s.Game == nil {
		return 0
	}
	return s.Game.Dim()
}

func (s *SampledGame) validate() error {
	if s.Game == nil {
		return errors.New("solver: SampledGame needs a Game")
	}
	if s.Batch < 0 || s.GapEvery < 0 {
		return errors.New("solver: negative Batch or GapEvery")
	}
	if err := s.Game.validate(); err != nil {
		return err
	}
	if !s.Game.matrixGame() {
		return errors.New("solver: the sampled oracle draws strategies: it needs a matrix game (both players on the simplex, no linear terms)")
	}
	return nil
}

// batch returns b with its default.
func (s *SampledGame) batch() int {
	if s.Batch == 0 {
		return DefaultBatch
	}
	return s.Batch
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

// mirrorProx returns the sampled game's mirror-prox engine in setup su,
// bound to this solve's parameters.
func (s *SampledGame) mirrorProx(su tensorops.Setup, st *Settings) (*mpEngine, error) {
	pl, err := s.Game.acquire()
	if err != nil {
		return nil, err
	}
	e, err := cached(pl, &pl.sampled[su], func() (*mpEngine, error) {
		mp, err := newMPGame(pl, su)
		if err != nil {
			return nil, err
		}
		return &mpEngine{sp: &sampledSpace{mpGame: mp}}, nil
	})
	if err != nil {
		return nil, err
	}
	sp := e.sp.(*sampledSpace)
	m, n := s.Game.Dims()
	sp.s, sp.every = st, s.GapEvery
	if sp.every == 0 {
		sp.every = autoGapEvery(m, n, s.batch())
	}
	sp.smp = sampledOracle{b: &sp.gameBase, draw: tensorops.Draw{Batch: s.batch(), Seed: s.Seed}}
	if s.Transposed {
		if sp.smp.at, err = pl.transposed(); err != nil {
			pl.release()
			return nil, err
		}
	}
	sp.oracle = &sp.smp
	return e, nil
}

// transposed returns Aᵀ on the backend, made again after SetPayoff.
func (pl *placement) transposed() (tensorops.Matrix, error) {
	if pl.at == nil || pl.atVersion != pl.g.version {
		if pl.at != nil {
			pl.be.Free(pl.at)
		}
		at, err := pl.be.Transpose(pl.a)
		if err != nil {
			pl.at = nil
			return nil, fmt.Errorf("solver: %w", err)
		}
		pl.at, pl.atVersion = at, pl.g.version
	}
	return pl.at, nil
}

// sampledOracle evaluates the sampled estimate of F on the game's backend.
type sampledOracle struct {
	b    *gameBase
	at   tensorops.Matrix // Aᵀ with SampledGame.Transposed, else nil
	draw tensorops.Draw   // Counter counts the solve's evaluations, from 0
}

func (o *sampledOracle) evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error {
	o.b.be.SampledOperator(f[0], f[1], o.b.pl.a, o.at, p, q, o.draw)
	o.draw.Counter++
	// The estimate sums entries of the stored matrix: it is in its units,
	// whatever the strategies' scale.
	if u := o.b.pl.stored; u != 1 {
		for k := range 2 {
			o.b.be.Axpby(f[k], u, f[k], 0, f[k])
		}
	}
	o.b.evals++
	return nil
}

// sampledSpace is mirror-prox's space on a sampled game: mpGame with the
// oracle replaced and with certificates from full passes only. The
// extremes of the running averages of the estimates that mpGame.trial
// computes are discarded (they estimate the gap of the average, with a
// bias, and are never reported), and nothing certifies the last iterate.
// The start point is certified with a pass; then the candidate average of
// every K-th iteration is, and the average of the last iteration (a trial
// that the iteration or evaluation limit makes the last is certified at
// once; one that the clock or a cancellation ends, by certifyAverage).
type sampledSpace struct {
	*mpGame
	smp   sampledOracle
	s     *Settings
	every int
	iter  int // accepted iterations
	// due: the current trial's candidate average was certified;
	// certified: the accepted average is.
	due, certified bool
}

// start certifies y_0 with a pass (a warm start as given), then draws the
// estimate m_1 of F(y_0).
func (e *sampledSpace) start(init []float64) (certificate, error) {
	e.begin(e.avgX, e.avgG)
	e.iter, e.due, e.certified = 0, false, false
	c0, warm, err := e.placeStart(init)
	if err != nil {
		return noCertificate, err
	}
	if warm {
		y := e.values(e.y)
		return c0, e.smp.evaluate(e.m, y[0], y[1])
	}
	return e.evalY()
}

// evalY certifies y with a pass and draws the estimate m of F(y).
func (e *sampledSpace) evalY() (certificate, error) {
	y := e.values(e.y)
	c, err := e.certifyPass(y)
	if err != nil {
		return noCertificate, err
	}
	if err := e.smp.evaluate(e.m, y[0], y[1]); err != nil {
		return noCertificate, err
	}
	return c, nil
}

func (e *sampledSpace) restart() error {
	if err := e.placeBest(); err != nil {
		return err
	}
	e.certified = false
	_, err := e.evalY()
	return err
}

func (e *sampledSpace) trial(eta, w float64, t *Trial) (last, avg certificate, err error) {
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

func (e *sampledSpace) accept() {
	e.mpGame.accept()
	e.iter++
	e.certified = e.due
}

// certifyAverage certifies the current average with a pass unless it
// already is or there is none.
func (e *sampledSpace) certifyAverage() (certificate, bool, error) {
	if e.certified || e.iter == 0 {
		return noCertificate, false, nil
	}
	c, err := e.certifyPass(e.avgX)
	e.certified = err == nil
	return c, err == nil, err
}
