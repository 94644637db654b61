package problems_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/solver/problems"
)

func newProblem(t testing.TB, name string, size int, seed uint64) (*solver.Monotone, problems.Info) {
	t.Helper()
	p, info, err := problems.New(name, size, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p, info
}

func solveProblem(t testing.TB, p *solver.Monotone, rule string, s solver.Settings) *solver.Result {
	t.Helper()
	m, err := solver.NewMethod(rule)
	if err != nil {
		t.Fatal(err)
	}
	res, err := solver.Solve(context.Background(), p, &s, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestProblemRegistry: every registered problem builds at its default size,
// with the setting and rule of the spec, a valid, finite Scale and Bound,
// and deterministically from its seed; unknown names and bad sizes are
// errors.
func TestProblemRegistry(t *testing.T) {
	specs := problems.All()
	if got, want := problems.Names(), []string{"lad-lasso", "capacity", "center"}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	settings := map[string]bool{}
	for _, s := range specs {
		p, info := newProblem(t, s.Name, 0, 1)
		settings[s.Setting] = true
		if info.Name != s.Name || info.Setting != s.Setting || info.Rule != s.Rule || info.Size != s.DefaultSize {
			t.Errorf("%s: info %q %q %q size %d, spec %+v", s.Name, info.Name, info.Setting, info.Rule, info.Size, s)
		}
		if info.Dim != p.Dim() || info.Summary == "" || info.Source == "" || info.ErrorKind == "" || info.GapKind == "" || s.SizeParam == "" {
			t.Errorf("%s: incomplete info %+v", s.Name, info)
		}
		if !(p.Scale > 0) || !(p.Bound > 0) || math.IsInf(p.Scale, 0) || math.IsInf(p.Bound, 0) || p.Lipschitz != 0 {
			t.Errorf("%s: scale %g, bound %g, Lipschitz %g", s.Name, p.Scale, p.Bound, p.Lipschitz)
		}
		if d2 := p.Set.DiameterSq(); !(d2 > 0) || math.IsInf(d2, 0) {
			t.Errorf("%s: D² = %g", s.Name, d2)
		}
		if info.Solution != nil && math.Abs(info.Error(info.Solution)) > 1e-9*p.Scale {
			t.Errorf("%s: error %g at the known solution", s.Name, info.Error(info.Solution))
		}
		// Same seed, same problem; another seed, another one.
		x := make([]float64, p.Dim())
		for i := range x {
			x[i] = 0.01 * float64(i%7)
		}
		if s.Name == "capacity" {
			for i := range x {
				x[i] = float64(i+1) / float64(p.Dim()*(p.Dim()+1)/2)
			}
		}
		_, again := newProblem(t, strings.ToUpper(s.Name), s.DefaultSize, 1)
		_, other := newProblem(t, s.Name, s.DefaultSize, 2)
		if a, b := info.Objective(x), again.Objective(x); a != b {
			t.Errorf("%s: seed 1 gives objectives %v and %v", s.Name, a, b)
		}
		if a, b := info.Objective(x), other.Objective(x); a == b {
			t.Errorf("%s: seeds 1 and 2 give the same objective %v", s.Name, a)
		}
		small, sinfo := newProblem(t, s.Name, 3, 5)
		if sinfo.Size != 3 || small.Dim() == p.Dim() {
			t.Errorf("%s: size 3 gives dimension %d", s.Name, small.Dim())
		}
	}
	if len(settings) != 3 || settings[problems.LipschitzSmooth] {
		t.Errorf("settings covered: %v", settings)
	}
	if _, _, err := problems.New("nope", 0, 1); err == nil {
		t.Error("unknown problem: no error")
	}
	for _, c := range []struct {
		name string
		size int
	}{{"capacity", 1}} {
		if _, _, err := problems.New(c.name, c.size, 1); err == nil {
			t.Errorf("%s size %d: no error", c.name, c.size)
		}
	}
	for _, f := range []func(int, uint64) (*solver.Monotone, problems.Info, error){problems.NewLADLasso, problems.NewCapacity, problems.NewCenter} {
		if _, _, err := f(-1, 1); err == nil {
			t.Error("size −1: no error")
		}
	}
}

// TestLADLassoConverges (Lipschitz bounded): ga-bounded, 20000 iterations.
// The LP optimum v* is checked from both sides by weak duality, Δ(w) ≤ v* ≤
// P(u), at the solver's point; the exact saddle gap P(u) − Δ(w) is below the
// certified gap, which is below 1.5% of the start's (the O(1/√T) rate makes
// 1e-3 cost about 100 times more).
func TestLADLassoConverges(t *testing.T) {
	p, info := newProblem(t, "lad-lasso", 0, 1)
	res := solveProblem(t, p, "ga-bounded", solver.Settings{MaxIterations: 20000})
	lad := p.F.(*problems.LADLasso)
	u, w := res.X[:lad.D], res.X[lad.D:]
	opt, err := info.Optimum()
	if err != nil {
		t.Fatal(err)
	}
	tol := 1e-9 * p.Scale
	primal, dual := lad.Primal(u), lad.Dual(w)
	if dual > opt+tol || primal < opt-tol {
		t.Errorf("weak duality violated: Δ(w) = %.10g, v* = %.10g, P(u) = %.10g", dual, opt, primal)
	}
	if e := info.Error(res.X); e < -tol || e > res.Gap+tol {
		t.Errorf("exact saddle gap %g, certified %g", e, res.Gap)
	}
	if res.RelGap > 0.015 {
		t.Errorf("relative gap %g after %d iterations, want ≤ 0.015", res.RelGap, res.Iterations)
	}
	// The LP's minimizer attains v*.
	v, uLP, err := lad.OptimumLP()
	if err != nil {
		t.Fatal(err)
	}
	if v != opt || math.Abs(lad.Primal(uLP)-v) > tol {
		t.Errorf("LP value %g, P(u_LP) %g, info %g", v, lad.Primal(uLP), opt)
	}
	t.Logf("v* = %.8g, P(u) − v* = %.3g, v* − Δ(w) = %.3g, certified %.3g (relative %.3g)",
		opt, primal-opt, opt-dual, res.Gap, res.RelGap)
}

// TestCapacityConverges (Bregman smooth): ga-smooth to relative gap 1e-10.
// The returned point matches the closed-form square-root assignment, and the
// objective error is between 0 and the certified gap.
func TestCapacityConverges(t *testing.T) {
	p, info := newProblem(t, "capacity", 0, 1)
	res := solveProblem(t, p, "ga-smooth", solver.Settings{RelGap: 1e-10, MaxIterations: 5000})
	if res.Status != solver.Converged {
		t.Fatalf("%v: relative gap %g after %d iterations", res.Status, res.RelGap, res.Iterations)
	}
	e := info.Error(res.X)
	opt, _ := info.Optimum()
	if e < -1e-12*opt || e > res.Gap+1e-12*opt {
		t.Errorf("f(x) − f* = %g, certified gap %g", e, res.Gap)
	}
	var l1 float64
	for i, v := range res.X {
		l1 += math.Abs(v - info.Solution[i])
	}
	if l1 > 1e-5 {
		t.Errorf("‖x − x*‖₁ = %g", l1)
	}
	t.Logf("%d iterations, f(x) − f* = %.3g, certified %.3g, ‖x − x*‖₁ = %.3g, point %v", res.Iterations, e, res.Gap, l1, res.Point)
}

// TestCenterConverges (Bregman bounded, unbounded domain): ga-bounded,
// 20000 iterations. The restricted gap (x* lies in the certification ball)
// bounds the objective error, which bounds the distance to the planted x*
// (f(x) − f* ≥ ⅔((ρ² + ‖x − x*‖²)^{3/4} − ρ^{3/2}), ρ = 1).
func TestCenterConverges(t *testing.T) {
	p, info := newProblem(t, "center", 0, 1)
	res := solveProblem(t, p, "ga-bounded", solver.Settings{MaxIterations: 20000})
	e := info.Error(res.X)
	if e < -1e-12 || e > res.Gap+1e-12 {
		t.Errorf("f(x) − f* = %g, certified gap %g", e, res.Gap)
	}
	if res.RelGap > 0.004 {
		t.Errorf("relative gap %g after %d iterations, want ≤ 0.004", res.RelGap, res.Iterations)
	}
	var d2 float64
	for i, v := range res.X {
		d2 += (v - info.Solution[i]) * (v - info.Solution[i])
	}
	if lower := 2.0 / 3 * (math.Pow(1+d2, 0.75) - 1); lower > e+1e-12 {
		t.Errorf("‖x − x*‖² = %g, but f(x) − f* = %g < %g", d2, e, lower)
	}
	if d2 > 1e-3 {
		t.Errorf("‖x − x*‖ = %g", math.Sqrt(d2))
	}
	t.Logf("f(x) − f* = %.3g, certified %.3g (relative %.3g), ‖x − x*‖ = %.3g", e, res.Gap, res.RelGap, math.Sqrt(d2))
}

// TestCenterNeedsDiameter: without a certification radius the cubic setup
// has no diameter, and Solve asks for MirrorProx.Diameter. Given one, nothing
// is certified (gap +Inf), and the returned point is the average, as the
// paper's method returns, not the start point: its error is less than half
// the start's after 10 iterations.
func TestCenterNeedsDiameter(t *testing.T) {
	p, _ := newProblem(t, "center", 4, 1)
	p.Set = &solver.Cubic{N: 4, Sigma: 1}
	m := &solver.MirrorProx{Rule: &solver.GABounded{}}
	if _, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 10}, m); err == nil {
		t.Error("no error without a diameter")
	}
	m.Diameter = 3
	res, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 10}, m)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.Gap, 1) {
		t.Errorf("gap %g without a certification ball, want +Inf", res.Gap)
	}
	_, info := newProblem(t, "center", 4, 1)
	start := make([]float64, 4) // argmin R
	if res.Point != solver.AveragePoint || !(info.Error(res.X) < info.Error(start)/2) {
		t.Errorf("uncertified run returned the %v point with error %g; the start's is %g",
			res.Point, info.Error(res.X), info.Error(start))
	}
}
