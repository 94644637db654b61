package solver

import (
	"fmt"
	"math"
)

// Averaging chooses the weights of a method's averaged iterate.
type Averaging int

const (
	// DefaultAveraging is the method's own choice: uniform for mirror-prox
	// (step-weighted with the backtracking rule) and OMWU, linear for
	// regret matching.
	DefaultAveraging Averaging = iota
	// Uniform averages the points with equal weights (the paper's output).
	Uniform
	// StepWeighted weights x_t by the step size eta_t, the average whose gap
	// Nemirovski (2004) bounds by D²/Σ eta_t when steps vary (mirror-prox
	// only).
	StepWeighted
	// Linear weights the t-th point by t (Tammelin's RM+ average).
	Linear
	// Quadratic weights the t-th point by t².
	Quadratic
)

var averagingNames = [...]string{"auto", "uniform", "step", "linear", "quadratic"}

// String returns "auto", "uniform", "step", "linear" or "quadratic".
func (a Averaging) String() string {
	if a >= 0 && int(a) < len(averagingNames) {
		return averagingNames[a]
	}
	return "unknown"
}

// ParseAveraging parses the names String returns.
func ParseAveraging(s string) (Averaging, error) {
	for i, n := range averagingNames {
		if s == n {
			return Averaging(i), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown averaging %q (want auto, uniform, step, linear or quadratic)", s)
}

// check returns an error unless a is one of the values a method accepts
// (DefaultAveraging always is).
func (a Averaging) check(method string, accepted ...Averaging) error {
	if a == DefaultAveraging {
		return nil
	}
	for _, b := range accepted {
		if a == b {
			return nil
		}
	}
	return fmt.Errorf("solver: %s does not take %s averaging (%d)", method, a, int(a))
}

// averager forms the weight fractions of a running average avg ← avg +
// w (x − avg): the k-th point (k = 1, 2, …) enters with fraction w_k / Σ_{i≤k}
// w_i. The fractions of the fixed weights are closed forms (1/k, 2/(k+1),
// 6k/((k+1)(2k+1))), so that they do not depend on how the sums round.
type averager struct {
	kind Averaging
	k    float64 // points averaged so far
	sum  float64 // their weight sum (StepWeighted)
}

func (a *averager) reset(kind Averaging) { *a = averager{kind: kind} }

// fraction returns the fraction of the next point, of step eta; add makes it
// count (mirror-prox asks before it knows whether the trial is accepted).
func (a *averager) fraction(eta float64) float64 {
	k := a.k + 1
	switch a.kind {
	case StepWeighted:
		return eta / (a.sum + eta)
	case Linear:
		return 2 / (k + 1)
	case Quadratic:
		return 6 * k / ((k + 1) * (2*k + 1))
	}
	return 1 / k
}

func (a *averager) add(eta float64) {
	a.k++
	a.sum += eta
}

// Restart is a restart policy: when it fires, a method starts afresh from
// the best certified point so far (its averages restart from that point and
// its state is re-seeded from it as for Settings.Init), keeping its step
// sizes unless it says otherwise. Restarts help methods whose average
// converges more slowly than their iterates near the solution (restarted
// primal-dual methods, PDLP); the policy here is the mechanism, the method's
// documentation says what restarting does to its state.
type Restart struct {
	// Every restarts after every Every iterations since the last restart (0:
	// never on a schedule).
	Every int
	// Factor restarts when the certified gap of the average has fallen to
	// Factor times the gap of the point the method last (re)started from (0:
	// never on the gap); in (0, 1).
	Factor float64
}

func (r *Restart) validate() error {
	if r == nil {
		return nil
	}
	if r.Every < 0 || !(r.Factor >= 0 && r.Factor < 1) {
		return fmt.Errorf("solver: restart policy needs Every ≥ 0 and Factor in [0, 1), got %d and %g", r.Every, r.Factor)
	}
	return nil
}

// due reports whether the policy fires after iters iterations since the
// last restart, with the average certified at gapAvg and the restart point
// at gap0.
func (r *Restart) due(iters int, gapAvg, gap0 float64) bool {
	if r == nil {
		return false
	}
	return r.Every > 0 && iters >= r.Every ||
		r.Factor > 0 && !math.IsInf(gap0, 0) && gapAvg <= r.Factor*gap0
}
