package solver

import (
	"fmt"
	"time"

	"github.com/gpump/gpump/tensorops"
)

// Averaging chooses the weights of the averaged iterate of mirror-prox.
type Averaging int

const (
	// RuleAveraging uses the step rule's preference (see AveragingPreferrer):
	// StepWeighted for backtracking, Uniform for every other rule.
	RuleAveraging Averaging = iota
	// Uniform averages x_1 … x_t with equal weights (the paper's output).
	Uniform
	// StepWeighted weights x_t by the step size eta_t, the average whose gap
	// Nemirovski (2004) bounds by D²/Σ eta_t when steps vary.
	StepWeighted
)

var averagingNames = [...]string{"auto", "uniform", "step"}

// String returns "auto", "uniform" or "step".
func (a Averaging) String() string {
	if int(a) < len(averagingNames) {
		return averagingNames[a]
	}
	return "unknown"
}

// ParseAveraging parses "auto", "uniform" or "step".
func ParseAveraging(s string) (Averaging, error) {
	for i, n := range averagingNames {
		if s == n {
			return Averaging(i), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown averaging %q (want auto, uniform or step)", s)
}

// AveragingPreferrer is implemented by step rules whose natural average is
// not the uniform one.
type AveragingPreferrer interface {
	// Averaging returns the rule's preferred averaging.
	Averaging() Averaging
}

// Settings control a solve. A nil *Settings means DefaultSettings(). In a
// non-nil Settings every zero field means "not set": no such limit, or the
// documented default of a constant. At least one stopping criterion must be
// set (a gap target, an iteration, evaluation or time limit).
type Settings struct {
	// RelGap stops when gap / scale ≤ RelGap, where scale is max |A_ij| for a
	// matrix game and Monotone.Scale (default 1) otherwise.
	RelGap float64
	// AbsGap stops when gap ≤ AbsGap.
	AbsGap float64
	// MaxIterations limits the iterations (mirror-prox trials accepted,
	// regret-matching rounds).
	MaxIterations int
	// MaxEvaluations limits the operator evaluations, counting the start
	// point's and those of rejected backtracking trials.
	MaxEvaluations int
	// TimeLimit limits the wall time of the iterations.
	TimeLimit time.Duration

	// G0 is the universal rules' G0 (the first step is D/G0). Default: max
	// |A_ij| for an entropic matrix game (see MatrixGame.SetSetups for the
	// Euclidean one); for a Monotone, Bound or else twice the largest ‖F‖_*
	// seen at y_0 and at four random points of the set.
	G0 float64
	// Diameter is D, with D² = sup R − inf R of the setup. Default: that
	// value (D = √(log m + log n) for an entropic matrix game). It is
	// required on unbounded sets.
	Diameter float64
	// Averaging chooses the averaging weights of mirror-prox (default: the
	// rule's preference, uniform except for backtracking). The
	// regret-matching baselines always use linear weights and OMWU uniform
	// weights.
	Averaging Averaging

	// Backend runs matrix games; nil means a CPU backend with Threads
	// workers, created and closed by Solve.
	Backend tensorops.Backend
	// Threads is the CPU worker count when Backend is nil; 0 means all cores.
	Threads int
	// Seed seeds the random points of the default G0 of a Monotone problem
	// and the draws of the sampled oracle: the same Seed gives the same
	// iterates (see Oracle).
	Seed uint64

	// Oracle chooses how mirror-prox evaluates a matrix game's operator:
	// Exact (the default, one pass over A) or Sampled (SPEC section 4: b
	// sampled columns and b sampled rows, unbiased, O(b (m + n))). Sampled
	// applies to MirrorProx on a *MatrixGame only; for a Monotone problem
	// wrap its operator with Noisy instead.
	Oracle Oracle
	// Batch is b, the number of columns (j ~ q) and of rows (i ~ p) the
	// sampled oracle draws per evaluation; 0 means DefaultBatch. The
	// variance of each entry of the estimate falls like 1/b. Set only with
	// the sampled oracle.
	Batch int
	// GapEvery is K: with the sampled oracle the exact gap of the average
	// is computed with a full pass over A every K iterations, and at the
	// end (Stats.GapPasses). Those passes alone certify the result and test
	// the gap target, so the target is noticed up to K iterations late. 0
	// means automatic: the smallest K with K·b·(m + n) ≥ 2·m·n, so that the
	// gap passes read at most a fifth of the entries the run reads (an
	// iteration's two evaluations read 2·b·(m + n)). For a run of about T
	// iterations, K near √(T·m·n / (b·(m + n))) balances the passes against
	// the delay. Set only with the sampled oracle.
	GapEvery int
	// SampleTransposed makes the sampled oracle read its sampled columns
	// from a transposed copy of A, made by Solve before the first iteration
	// (not counted in Stats.Runtime) and taking as much memory as A. A
	// sampled column is then a contiguous row of Aᵀ; without the copy it is
	// gathered from every row of A, one cache line (often one page) per
	// entry, several times slower (tensorops' BenchmarkSampledOperator
	// measures both). Set only with the sampled oracle.
	SampleTransposed bool
	// Recorder, if not nil, is told about the start and every iteration.
	Recorder Recorder
}

// DefaultSettings returns the settings a nil *Settings stands for: relative
// gap 1e-4 and at most 100000 iterations.
func DefaultSettings() *Settings {
	return &Settings{RelGap: 1e-4, MaxIterations: 100000}
}

// Oracle is how mirror-prox evaluates a matrix game's operator F(p, q) =
// (−A q, Aᵀp) (Settings.Oracle).
type Oracle int

const (
	// Exact computes F with one fused pass over A per evaluation; the gaps
	// of the average and of the last iterate then come for free (SPEC
	// section 5).
	Exact Oracle = iota
	// Sampled is the stochastic oracle of Juditsky, Nemirovski and Tauvel
	// (2011), SPEC section 4: at (p, q) it draws b column indices j ~ q and
	// b row indices i ~ p, independently and with replacement, and returns
	// (−(1/b) Σ A e_j, (1/b) Σ Aᵀe_i), an unbiased estimate of F read from b
	// columns and b rows of A, fresh for each of the two evaluations of an
	// iteration. The step rules see these noisy values (ga-stochastic is
	// the paper's rule for them). The running averages of the estimates are
	// not A q̄ and Aᵀp̄, so nothing is certified for free: the gap of the
	// average is computed with a full pass every Settings.GapEvery
	// iterations and at the end, and only those gaps are reported, kept
	// and tested against the target.
	Sampled
)

var oracleNames = [...]string{"exact", "sampled"}

// String returns "exact" or "sampled".
func (o Oracle) String() string {
	if o >= 0 && int(o) < len(oracleNames) {
		return oracleNames[o]
	}
	return "unknown"
}

// ParseOracle parses "exact" or "sampled".
func ParseOracle(s string) (Oracle, error) {
	for i, n := range oracleNames {
		if s == n {
			return Oracle(i), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown oracle %q (want exact or sampled)", s)
}

// DefaultBatch is the sampled oracle's batch size b when Settings.Batch is
// 0. On a 20000×20000 uniform game, ga-stochastic with the transposed copy
// reached relative gap 1e-2 in 27544, 1343 and 400 iterations (217, 26 and
// 27 s) with b = 64, 256 and 1024: below a few hundred the noise costs far
// more iterations than 1/b predicts, above it an iteration costs more.
const DefaultBatch = 256

func (s *Settings) hasStop() bool {
	return s.RelGap > 0 || s.AbsGap > 0 || s.MaxIterations > 0 || s.MaxEvaluations > 0 || s.TimeLimit > 0
}

// Status says why a solve stopped.
type Status int

const (
	// NotTerminated is the status of a solve still running.
	NotTerminated Status = iota
	// Converged: the relative or absolute gap target was met.
	Converged
	// IterationLimit: Settings.MaxIterations was reached.
	IterationLimit
	// EvaluationLimit: Settings.MaxEvaluations was reached.
	EvaluationLimit
	// TimeLimit: Settings.TimeLimit was reached.
	TimeLimit
	// Canceled: the context was canceled; the result holds the best point so
	// far.
	Canceled
)

var statusNames = [...]string{"running", "converged", "iteration_limit", "evaluation_limit", "time_limit", "canceled"}

// String returns the status's name as written in JSON results:
// "converged", "iteration_limit", "evaluation_limit", "time_limit",
// "canceled".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// PointKind says which point a result or a certificate is about.
type PointKind int

const (
	// StartPoint is y_0 = argmin R.
	StartPoint PointKind = iota
	// AveragePoint is the averaged iterate.
	AveragePoint
	// LastPoint is the last iterate (the extrapolated point x_t of
	// mirror-prox, the current strategies of the baselines).
	LastPoint
)

var pointNames = [...]string{"start", "average", "last"}

// String returns "start", "average" or "last".
func (k PointKind) String() string {
	if int(k) < len(pointNames) {
		return pointNames[k]
	}
	return "unknown"
}

// Stats count the work of a solve.
type Stats struct {
	// Iterations is the number of iterations done.
	Iterations int
	// Evaluations counts the method's operator evaluations, including the
	// start point's, rejected trials' and, for a Monotone problem, those of
	// the default G0's random points; MaxEvaluations limits them. With the
	// sampled oracle they are sampled evaluations (the gap passes are not
	// evaluations).
	Evaluations int
	// MatrixPasses counts full reads of the payoff matrix (matrix games),
	// including the one that certifies the result at the end. The sampled
	// oracle's evaluations read b rows and b columns and are not passes.
	MatrixPasses int
	// GapPasses counts the passes of MatrixPasses made only to certify a
	// gap, not to evaluate the operator: the final certification of a
	// game's result (1), and with the sampled oracle also the start point's
	// certificate and the exact gaps of the average every Settings.GapEvery
	// iterations and at the end (then GapPasses = MatrixPasses).
	GapPasses int
	// ExactEvaluations counts the evaluations of Monotone.Exact made to
	// certify gaps under a stochastic operator (0 without Exact).
	ExactEvaluations int
	// Rejections counts rejected backtracking trials.
	Rejections int
	// Step is the last step size used (0 for the regret-matching methods).
	Step float64
	// Runtime is the wall time of the solve.
	Runtime time.Duration
}

// Result is the outcome of a solve.
type Result struct {
	// X is the returned point z. For a matrix game it is p followed by q.
	X []float64
	// Row and Column alias X[:m] and X[m:] for a matrix game; nil otherwise.
	Row, Column []float64
	// Point says which iterate X is: the better certified of the average and
	// the last iterate over the whole run (SPEC section 5). For a matrix game
	// it is the kind of the row strategy and ColumnPoint that of the column
	// strategy: the gap is a sum of a part that depends on p alone and a part
	// that depends on q alone, so each player's best certified strategy is
	// kept separately.
	Point, ColumnPoint PointKind
	// Gap is the certified duality gap of X (for a matrix game recomputed
	// with a fresh pass over A at the end).
	Gap float64
	// RelGap is Gap divided by the problem's scale (max |A_ij| for a game).
	RelGap float64
	// ValueLower and ValueUpper bracket the value of a matrix game:
	// min_j (Aᵀp)_j ≤ v* ≤ max_i (A q)_i; NaN for other problems.
	ValueLower, ValueUpper float64
	// Method names the method and step rule.
	Method string
	// Status says why the solve stopped.
	Status Status
	Stats
}

// Recorder observes a solve; progress bars, traces and plots are Recorders.
// Its methods are called from the solving goroutine; an error stops the solve
// and is returned by Solve.
type Recorder interface {
	// Init is called once before the first iteration.
	Init(info *Info) error
	// Record is called after the start point is evaluated (Iteration 0) and
	// after every iteration. With the sampled oracle, a solve that stops
	// (on its time limit or by cancellation) at an iteration without a gap
	// pass certifies its average with one more pass and then calls Record
	// again for the same iteration, with the new certificate. The Record is
	// reused: copy what you keep.
	Record(r *Record) error
}

// Info describes a solve to a Recorder.
type Info struct {
	Method   string
	Dim      int
	Scale    float64 // the relative gap's divisor
	Settings *Settings
}

// Record is one row of a solve's history.
type Record struct {
	Iteration    int
	Evaluations  int
	MatrixPasses int
	Step         float64 // eta_t (0 for the regret-matching methods)
	// GapAverage and GapLast are the certified gaps of the average and of
	// the last iterate at this iteration (+Inf when unavailable: with the
	// sampled oracle GapLast always, GapAverage between gap passes).
	GapAverage, GapLast float64
	// Gap, RelGap and the value bracket are those of the best certified
	// point so far, whose kind is Point (ColumnPoint for a game's column
	// strategy, see Result).
	Gap, RelGap            float64
	ValueLower, ValueUpper float64
	Point, ColumnPoint     PointKind
	Elapsed                time.Duration
}

// Recorders returns a Recorder that passes every call to each of rs in
// order, stopping at the first error. Nil entries are skipped; with no
// non-nil entry it returns nil, so that Settings.Recorder stays unset.
func Recorders(rs ...Recorder) Recorder {
	var list multiRecorder
	for _, r := range rs {
		if r != nil {
			list = append(list, r)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

type multiRecorder []Recorder

func (m multiRecorder) Init(info *Info) error {
	for _, r := range m {
		if err := r.Init(info); err != nil {
			return err
		}
	}
	return nil
}

func (m multiRecorder) Record(rec *Record) error {
	for _, r := range m {
		if err := r.Record(rec); err != nil {
			return err
		}
	}
	return nil
}
