package solver

import (
	"errors"
	"math"
	"time"
)

// Settings control a solve, whatever the method and the problem. A nil
// *Settings means DefaultSettings(). In a non-nil Settings every zero field
// means "not set": no such limit, no warm start. At least one stopping
// criterion must be set (a gap target, an iteration, evaluation or time
// limit). What belongs to one method (step rules, averaging, restarts) lives
// on the method's type, and what belongs to one problem (the backend, the
// sampled oracle's batch) on the problem's.
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
	// point's and those of rejected backtracking trials. The start is made
	// whatever the limit (one evaluation; a warm start of regret matching
	// adds its 10 calibration rounds, and a Monotone problem's default G0
	// its random points), so a limit below that stops right after it; a
	// restart is made only when its evaluation and one more step fit.
	MaxEvaluations int
	// TimeLimit limits the wall time of the iterations.
	TimeLimit time.Duration

	// Init, when not nil, is the start point (a warm start) in the layout of
	// Result.X: for a game the row strategy p followed by the column
	// strategy q, each with finite entries ≥ 0 summing to 1 up to rounding
	// (within InitTolerance of the block's length; each block is
	// renormalized); for a Monotone problem a point of its set. Every method
	// starts from it (see the methods' docs for how each seeds its state);
	// nil means the method's own start, argmin R (the uniform pair for a
	// game).
	Init []float64

	// Recorder, if not nil, is told about the start and every iteration.
	Recorder Recorder

	// Clock, when not nil, is read by the stopping rules in place of the
	// wall clock: it returns the time since some fixed moment and whether
	// to stop now, as a canceled context stops a solve (ctx still does).
	// Processes that must take the same steps, the ranks of one sharded
	// solve, read one clock (shard.Clock), so that TimeLimit or an
	// interrupt stops every rank at the same iteration; the crossover,
	// which every rank runs alike, then has no deadline of its own.
	Clock func() (elapsed time.Duration, stop bool)
}

// clock returns the time since t0, or since c0 of s.Clock, and whether
// s.Clock says to stop.
func (s *Settings) clock(t0 time.Time, c0 time.Duration) (time.Duration, bool) {
	if s.Clock == nil {
		return time.Since(t0), false
	}
	el, stop := s.Clock()
	return el - c0, stop
}

// clockStart is the reading of s.Clock a solve's times count from.
func (s *Settings) clockStart() time.Duration {
	if s.Clock == nil {
		return 0
	}
	el, _ := s.Clock()
	return el
}

// DefaultSettings returns the settings a nil *Settings stands for: relative
// gap 1e-4 and at most 100000 iterations.
func DefaultSettings() *Settings {
	s := defaultSettings
	return &s
}

var defaultSettings = Settings{RelGap: 1e-4, MaxIterations: 100000}

// InitTolerance returns how far from 1 the sum of a warm start's strategy of
// length n may be: 16 roundings per entry, enough for strategies written as
// shortest decimals or summed in another order, far too little to pass an
// unnormalized vector.
func InitTolerance(n int) float64 { return 16 * float64(n) * 0x1p-53 }

func (s *Settings) validate() error {
	if !(s.RelGap > 0 || s.AbsGap > 0 || s.MaxIterations > 0 || s.MaxEvaluations > 0 || s.TimeLimit > 0) {
		return errors.New("solver: no stopping criterion set")
	}
	if !(s.RelGap >= 0) || !(s.AbsGap >= 0) || math.IsInf(s.RelGap, 0) || math.IsInf(s.AbsGap, 0) ||
		s.MaxIterations < 0 || s.MaxEvaluations < 0 || s.TimeLimit < 0 {
		return errors.New("solver: negative, infinite or NaN setting")
	}
	return nil
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
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// PointKind says which point a result or a certificate is about.
type PointKind int

const (
	// StartPoint is the start: argmin R, Settings.Init, or the point of the
	// last restart.
	StartPoint PointKind = iota
	// AveragePoint is the averaged iterate.
	AveragePoint
	// LastPoint is the last iterate (the extrapolated point x_t of
	// mirror-prox, the current strategies of the other methods).
	LastPoint
	// PolishedPoint is the support crossover's exact solution of a
	// subgame, lifted to the full game (Auto).
	PolishedPoint
)

var pointNames = [...]string{"start", "average", "last", "polished"}

// String returns "start", "average", "last" or "polished".
func (k PointKind) String() string {
	if k >= 0 && int(k) < len(pointNames) {
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
	// game's result (1, and 1 more when its strategies were rid of
	// rounding debris, see the package documentation), and with the sampled oracle also the start point's
	// certificate and the exact gaps of the average every
	// SampledGame.GapEvery iterations and at the end (then GapPasses =
	// MatrixPasses).
	GapPasses int
	// ExactEvaluations counts the evaluations of Monotone.Exact made to
	// certify gaps under a stochastic operator (0 without Exact).
	ExactEvaluations int
	// Rejections counts rejected backtracking trials.
	Rejections int
	// Restarts counts the restarts of the method's Restart policy.
	Restarts int
	// Step is the last step size used, in the problem's units (0 for the
	// regret-matching methods). It is about 1/max |A_ij| for a game, so it
	// overflows to +Inf for payoffs below about 1e-308.
	Step float64
	// SubgameSolves counts the exact subgame solves of Auto's support
	// crossover, SubgameSize the most rows or columns one had, and
	// SubgameTime their wall time (its passes are in MatrixPasses and
	// GapPasses).
	SubgameSolves int
	SubgameSize   int
	SubgameTime   time.Duration
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
	// the last iterate over the whole run. For a matrix game it is the kind
	// of the row strategy and ColumnPoint that of the column strategy: the
	// gap is a sum of a part that depends on p alone and a part that depends
	// on q alone, so each player's best certified strategy is kept
	// separately.
	Point, ColumnPoint PointKind
	// Gap is the certified duality gap of X (for a matrix game recomputed
	// with a fresh pass over A at the end).
	Gap float64
	// RelGap is Gap divided by the problem's scale (max |A_ij| for a game).
	RelGap float64
	// ValueLower and ValueUpper bracket the value of a matrix game:
	// min_j (Aᵀp)_j ≤ v* ≤ max_i (A q)_i; NaN for other problems. Value
	// is their middle.
	ValueLower, ValueUpper float64
	// RowSupport and ColumnSupport count the positive entries of Row and
	// Column (0 for other problems). The strategies carry no rounding
	// debris: entries whose removal changes the certificate by less than
	// its own rounding are set to 0 before the final certificate, which is
	// that of exactly the returned pair (see the package documentation).
	RowSupport, ColumnSupport int
	// Method names the method and step rule.
	Method string
	// Route is the route Auto took ("rm+", "rm+ → polish", ...); for
	// another method, empty.
	Route string
	// Status says why the solve stopped.
	Status Status
	Stats
}
