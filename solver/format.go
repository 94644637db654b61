package solver

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Value returns the middle of the certified bracket [ValueLower,
// ValueUpper] of a matrix game's value: within Gap/2 of the value. It is NaN
// for other problems.
func (r Result) Value() float64 {
	// Halved first: the sum of two bounds near the largest float overflows.
	return 0.5*r.ValueLower + 0.5*r.ValueUpper
}

// How a matrix game's result was reached, as CertifiedBy names it.
const (
	// CertifiedFirstOrder: the returned pair is a first-order method's
	// (RM+, mirror-prox, OMWU, ...), stopped at the target or a limit,
	// so that its relative gap is just below the target when it converged.
	CertifiedFirstOrder = "first-order"
	// CertifiedCrossover: the returned pair is the support crossover's
	// exact solution of a subgame (Auto, for targets at or below
	// Auto.PolishBelow), so that its gap is usually at the level of
	// rounding, far below the target.
	CertifiedCrossover = "crossover"
)

// CertifiedBy says how a matrix game's result was reached:
// CertifiedCrossover when both strategies are the support crossover's
// (Point and ColumnPoint PolishedPoint), else CertifiedFirstOrder; "" for
// other problems. Either way Gap is certified by a pass over A of exactly
// the returned pair.
func (r Result) CertifiedBy() string {
	switch {
	case r.Row == nil:
		return ""
	case r.Point == PolishedPoint && r.ColumnPoint == PolishedPoint:
		return CertifiedCrossover
	}
	return CertifiedFirstOrder
}

// String summarizes the result on one line: status, value bracket, gap,
// supports and how the result was certified (for a game), method and
// route, and the work (Stats.String). It never prints the strategies.
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(r.Status.String())
	if r.Row != nil {
		fmt.Fprintf(&b, ": value %.6g in [%.6g, %.6g]", r.Value(), r.ValueLower, r.ValueUpper)
		fmt.Fprintf(&b, ", gap %.3g (relative %.3g)", r.Gap, r.RelGap)
		fmt.Fprintf(&b, ", support %d of %d rows and %d of %d columns", r.RowSupport, len(r.Row), r.ColumnSupport, len(r.Column))
		fmt.Fprintf(&b, ", %s", r.CertifiedBy())
	} else {
		fmt.Fprintf(&b, ": gap %.3g (relative %.3g)", r.Gap, r.RelGap)
	}
	if r.Method != "" {
		fmt.Fprintf(&b, "; %s", r.Method)
		if r.Route != "" {
			fmt.Fprintf(&b, " (%s)", r.Route)
		}
	}
	fmt.Fprintf(&b, "; %v", r.Stats)
	return b.String()
}

// String is the result's summary (Result.String), or the game's error.
func (r BatchResult) String() string {
	if r.Err != nil {
		return "error: " + r.Err.Error()
	}
	return r.Result.String()
}

// String lists the counters on one line, those that are 0 left out (the
// iterations, evaluations and matrix passes always shown), the step and the
// run time to three significant digits.
func (s Stats) String() string {
	var b strings.Builder
	count := func(n int, one, many string) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if n == 1 {
			fmt.Fprintf(&b, "1 %s", one)
		} else {
			fmt.Fprintf(&b, "%d %s", n, many)
		}
	}
	count(s.Iterations, "iteration", "iterations")
	count(s.Evaluations, "evaluation", "evaluations")
	count(s.MatrixPasses, "matrix pass", "matrix passes")
	if s.GapPasses > 0 {
		fmt.Fprintf(&b, " (%d to certify)", s.GapPasses)
	}
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{s.ExactEvaluations, "exact evaluation", "exact evaluations"},
		{s.Rejections, "rejection", "rejections"},
		{s.Restarts, "restart", "restarts"},
	} {
		if c.n > 0 {
			count(c.n, c.one, c.many)
		}
	}
	if s.SubgameSolves > 0 {
		count(s.SubgameSolves, "subgame solve", "subgame solves")
		fmt.Fprintf(&b, " (at most %d, %v)", s.SubgameSize, roundDuration(s.SubgameTime))
	}
	if s.Step != 0 {
		fmt.Fprintf(&b, ", step %.3g", s.Step)
		if math.IsInf(s.Step, 1) {
			b.WriteString(" (overflowed)")
		}
	}
	fmt.Fprintf(&b, ", %v", roundDuration(s.Runtime))
	return b.String()
}

// roundDuration rounds d to three significant digits (at least to the
// nanosecond, at most to the second).
func roundDuration(d time.Duration) time.Duration {
	for r := time.Duration(1); r < time.Second; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
	return d.Round(time.Second)
}
