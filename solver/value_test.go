package solver_test

import (
	"math"
	"testing"

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
