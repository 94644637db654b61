package solver_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gpump/gpump/solver"
)

// TestValueAndCertifiedBy: Value is the middle of the bracket, NaN for a
// problem that is not a game; CertifiedBy names the crossover exactly when
// the returned pair is its solution.
func TestValueAndCertifiedBy(t *testing.T) {
	a := uniformGame(5, 60, 90, -1, 1)
	for _, tc := range []struct {
		method string
		s      *solver.Settings
		want   string
	}{
		{"rm+", nil, solver.CertifiedFirstOrder},
		{"auto", &solver.Settings{RelGap: 1e-2, MaxIterations: 100000}, solver.CertifiedFirstOrder},
		{"auto", nil, solver.CertifiedCrossover},
	} {
		res := solve(t, a, tc.method, tc.s)
		if got := res.CertifiedBy(); got != tc.want {
			t.Errorf("%s %+v: certified by %q (route %q, points %v, %v), want %q", tc.method, tc.s, got, res.Route, res.Point, res.ColumnPoint, tc.want)
		}
		if v := res.Value(); !(v == (res.ValueLower+res.ValueUpper)/2) {
			t.Errorf("%s: value %v, bracket [%v, %v]", tc.method, v, res.ValueLower, res.ValueUpper)
		}
	}
	for _, r := range []solver.Result{
		{ValueLower: math.NaN(), ValueUpper: math.NaN()},
		{ValueLower: math.Inf(-1), ValueUpper: math.Inf(1)},
	} {
		if v := r.Value(); !math.IsNaN(v) {
			t.Errorf("value of [%v, %v] is %v, want NaN", r.ValueLower, r.ValueUpper, v)
		}
		if r.CertifiedBy() != "" {
			t.Errorf("a result without strategies certified by %q", r.CertifiedBy())
		}
	}
	if v := (solver.Result{ValueLower: math.MaxFloat64, ValueUpper: math.MaxFloat64}).Value(); v != math.MaxFloat64 {
		t.Errorf("value of [max, max] is %v", v)
	}
}

// TestStrings: the one-line summaries of a result that is not a game's, of
// a batch game that failed, and of Stats at their extremes.
func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		got  fmt.Stringer
		want string
	}{
		{solver.Result{Gap: 1e-9, RelGap: 1e-9, ValueLower: math.NaN(), ValueUpper: math.NaN(), Status: solver.IterationLimit, Method: "ga-smooth",
			Stats: solver.Stats{Iterations: 1, Evaluations: 2, MatrixPasses: 0, Step: math.Inf(1), Runtime: 1234567891 * time.Nanosecond}},
			"iteration_limit: gap 1e-09 (relative 1e-09); ga-smooth; 1 iteration, 2 evaluations, 0 matrix passes, step +Inf (overflowed), 1.23s"},
		{solver.BatchResult{Err: errors.New("solver: payoff matrix entry (0, 1) is NaN")}, "error: solver: payoff matrix entry (0, 1) is NaN"},
		{solver.Stats{ExactEvaluations: 3, Rejections: 1, Restarts: 2, Runtime: 999 * time.Nanosecond},
			"0 iterations, 0 evaluations, 0 matrix passes, 3 exact evaluations, 1 rejection, 2 restarts, 999ns"},
		{solver.Stats{Iterations: 2, Runtime: 123456 * time.Second}, "2 iterations, 0 evaluations, 0 matrix passes, 34h17m36s"},
	} {
		if got := tc.got.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
