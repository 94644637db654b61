package solver_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpump/gpump/solver"
)

var compareRules = flag.Bool("compare", false, "run TestCompareRules, the step-rule comparison on the registry's problems (also GPUMP_COMPARE=1)")

// gapHistory records, at every iteration, the evaluations, the certified gap
// of the average and the best certified relative gap so far.
type gapHistory struct {
	evals  []int
	avg    []float64
	relGap []float64
}

func (h *gapHistory) Init(*solver.Info) error { return nil }
func (h *gapHistory) Record(r *solver.Record) error {
	h.evals = append(h.evals, r.Evaluations)
	h.avg = append(h.avg, r.GapAverage)
	h.relGap = append(h.relGap, r.RelGap)
	return nil
}

func newProblem(t testing.TB, name string, size int, seed uint64) (*solver.Monotone, solver.ProblemInfo) {
	t.Helper()
	p, info, err := solver.NewProblem(name, size, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p, info
}

func solveProblem(t testing.TB, p *solver.Monotone, rule string, prm solver.Params, s solver.Settings) *solver.Result {
	t.Helper()
	m, err := solver.NewMethod(rule, prm)
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
	specs := solver.Problems()
	if got, want := solver.ProblemNames(), []string{"lad-lasso", "capacity", "center"}; !slices.Equal(got, want) {
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
	if len(settings) != 3 || settings[solver.SettingLipschitzSmooth] {
		t.Errorf("settings covered: %v", settings)
	}
	if _, _, err := solver.NewProblem("nope", 0, 1); err == nil {
		t.Error("unknown problem: no error")
	}
	for _, c := range []struct {
		name string
		size int
	}{{"capacity", 1}} {
		if _, _, err := solver.NewProblem(c.name, c.size, 1); err == nil {
			t.Errorf("%s size %d: no error", c.name, c.size)
		}
	}
	for _, f := range []func(int, uint64) (*solver.Monotone, solver.ProblemInfo, error){solver.NewLADLasso, solver.NewCapacity, solver.NewCenter} {
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
	res := solveProblem(t, p, "ga-bounded", solver.Params{}, solver.Settings{MaxIterations: 20000})
	lad := p.F.(*solver.LADLasso)
	u, w := res.X[:lad.D], res.X[lad.D:]
	tol := 1e-9 * p.Scale
	primal, dual := lad.Primal(u), lad.Dual(w)
	if dual > info.Optimum+tol || primal < info.Optimum-tol {
		t.Errorf("weak duality violated: Δ(w) = %.10g, v* = %.10g, P(u) = %.10g", dual, info.Optimum, primal)
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
	if v != info.Optimum || math.Abs(lad.Primal(uLP)-v) > tol {
		t.Errorf("LP value %g, P(u_LP) %g, info %g", v, lad.Primal(uLP), info.Optimum)
	}
	t.Logf("v* = %.8g, P(u) − v* = %.3g, v* − Δ(w) = %.3g, certified %.3g (relative %.3g)",
		info.Optimum, primal-info.Optimum, info.Optimum-dual, res.Gap, res.RelGap)
}

// TestCapacityConverges (Bregman smooth): ga-smooth to relative gap 1e-10.
// The returned point matches the closed-form square-root assignment, and the
// objective error is between 0 and the certified gap.
func TestCapacityConverges(t *testing.T) {
	p, info := newProblem(t, "capacity", 0, 1)
	res := solveProblem(t, p, "ga-smooth", solver.Params{}, solver.Settings{RelGap: 1e-10, MaxIterations: 5000})
	if res.Status != solver.Converged {
		t.Fatalf("%v: relative gap %g after %d iterations", res.Status, res.RelGap, res.Iterations)
	}
	e := info.Error(res.X)
	if e < -1e-12*info.Optimum || e > res.Gap+1e-12*info.Optimum {
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
	res := solveProblem(t, p, "ga-bounded", solver.Params{}, solver.Settings{MaxIterations: 20000})
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
// has no diameter, and Solve asks for Settings.Diameter. Given one, nothing
// is certified (gap +Inf), and the returned point is the average, as the
// paper's method returns, not the start point: its error is less than half
// the start's after 10 iterations.
func TestCenterNeedsDiameter(t *testing.T) {
	p, _ := newProblem(t, "center", 4, 1)
	p.Set = &solver.Cubic{N: 4, Sigma: 1}
	m, _ := solver.NewMethod("ga-bounded", solver.Params{})
	if _, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 10}, m); err == nil {
		t.Error("no error without a diameter")
	}
	res, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 10, Diameter: 3}, m)
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

// logLogSlope fits log g = a + s log T by least squares and returns s.
func logLogSlope(ts []int, g []float64) float64 {
	xs, ys := make([]float64, len(ts)), make([]float64, len(ts))
	for i, t := range ts {
		xs[i], ys[i] = math.Log(float64(t)), math.Log(g[i])
	}
	return solver.FitSlope(xs, ys)
}

// rateSlope runs the rule on the problem for seeds 1–3 and fits the log-log
// slope of the certified gap of the average (the quantity the paper's
// regret bounds control) against the iteration count at six points
// T0·10^(i/5), i = 0..5, a decade; the gaps are averaged over the seeds in
// log space (geometric mean).
func rateSlope(t *testing.T, name, rule string, t0 int) float64 {
	t.Helper()
	ts := make([]int, 6)
	for i := range ts {
		ts[i] = int(math.Round(float64(t0) * math.Pow(10, float64(i)/5)))
	}
	logs := make([]float64, len(ts))
	const seeds = 3
	for seed := uint64(1); seed <= seeds; seed++ {
		p, _ := newProblem(t, name, 0, seed)
		var h gapHistory
		solveProblem(t, p, rule, solver.Params{}, solver.Settings{MaxIterations: ts[len(ts)-1], Recorder: &h})
		for i, T := range ts {
			logs[i] += math.Log(h.avg[T]) / seeds
		}
	}
	g := make([]float64, len(ts))
	for i, l := range logs {
		g[i] = math.Exp(l)
	}
	s := logLogSlope(ts, g)
	t.Logf("%s, %s: gap of the average at T = %v: %.3g; slope %.3f", name, rule, ts, g, s)
	return s
}

// TestProblemRates checks the paper's rates on the certified gap of the
// average, over T = 1000…10000 (bounded settings) and 100…1000 (smooth):
//
//   - lad-lasso, ga-bounded (Lipschitz bounded, Theorem 3.2, O(√(log T/T))):
//     slope −0.5 ± 0.12; measured −0.54.
//   - capacity, ga-smooth (Bregman smooth, Theorem 4.1, O(1/T)): slope
//     −1 ± 0.1; measured −1.000 (the regret stays constant once the last
//     iterate has converged, which it does linearly here).
//   - center, ga-bounded (Bregman bounded, Theorem 5.1, O(√(log T/T))):
//     slope −0.5 ± 0.12; measured −0.50.
//
// The bounded settings are checked on both sides: a slope far below −0.5
// would mean the problem does not exercise the bounded regime (no better
// rate than the worst case was measured on them, unlike the objective error
// of the returned point, which converges faster than the certificate).
func TestProblemRates(t *testing.T) {
	for _, c := range []struct {
		name, rule     string
		t0             int
		want, tolerace float64
	}{
		{"lad-lasso", "ga-bounded", 1000, -0.5, 0.12},
		{"capacity", "ga-smooth", 100, -1, 0.1},
		{"center", "ga-bounded", 1000, -0.5, 0.12},
	} {
		if s := rateSlope(t, c.name, c.rule, c.t0); math.Abs(s-c.want) > c.tolerace {
			t.Errorf("%s, %s: slope %.3f, want %.2f ± %.2f", c.name, c.rule, s, c.want, c.tolerace)
		}
	}
}

// compareRow is one line of the step-rule comparison.
type compareRow struct {
	rule         string
	to2, to3     int // evaluations to relative gap 1e-2, 1e-3 (0: not reached)
	gap          float64
	evals, iters int
	failed       string // why the run stopped early, if it did
}

// compareBudget is the evaluation budget of every run of TestCompareRules on
// the registry's problems.
const compareBudget = 1_000_000

// The matrix game of the comparison is issue 2's reference game, uniform
// [0, 1] 500×500. Its deterministic runs get compareGameBudget exact
// evaluations; its sampled runs get compareGameBatch columns and rows per
// evaluation and ten times the evaluations, so that both read the same
// number of entries of A for the operator (b (m + n) = mn / 10), and the
// gap passes (automatic K = 10) come on top.
const (
	compareGameBudget = 10_000
	compareGameBatch  = 25
)

// compareNoise is the noise of the registry problems' stochastic runs, as a
// fraction of their G0: Noisy's σ is chosen so that the dual norm of one
// draw of σξ is compareNoise·Bound.
var compareNoise = flag.Float64("compare-noise", 0.1, "TestCompareRules: the noise of the stochastic runs on the registry's problems, as a fraction of G0")

// compareOnly restricts TestCompareRules to one case.
var compareOnly = flag.String("compare-only", "", "TestCompareRules: run only the named case (the game is \"game\")")

// compareCase is one problem of the comparison: its name, its setting, the
// paper's rule for it, and how to build it for the deterministic or the
// stochastic oracle with the settings of its runs.
type compareCase struct {
	name, setting, rule string
	build               func(t *testing.T, stochastic bool) (solver.Problem, solver.Settings)
}

// compareCases returns the matrix game and the registry's problems. The
// stochastic registry problems are F + σξ (Noisy, seed 1) with Monotone.Exact
// = F, so that every gap in the table is certified.
func compareCases() []compareCase {
	cases := []compareCase{{
		name: "uniform 500×500 game", setting: solver.SettingLipschitzSmooth, rule: "ga-smooth",
		build: func(t *testing.T, stochastic bool) (solver.Problem, solver.Settings) {
			g, err := solver.NewMatrixGame(referenceGames(t)["uniform[0,1] 500x500"])
			if err != nil {
				t.Fatal(err)
			}
			if !stochastic {
				return g, solver.Settings{MaxEvaluations: compareGameBudget}
			}
			return g, solver.Settings{MaxEvaluations: 10 * compareGameBudget, Oracle: solver.Sampled, Batch: compareGameBatch, Seed: 1}
		},
	}}
	for _, spec := range solver.Problems() {
		cases = append(cases, compareCase{
			name: spec.Name, setting: spec.Setting, rule: spec.Rule,
			build: func(t *testing.T, stochastic bool) (solver.Problem, solver.Settings) {
				p, _ := newProblem(t, spec.Name, 0, 1)
				if stochastic {
					xi := make([]float64, p.Dim())
					solver.Noisy(constOperator(make([]float64, p.Dim())), 1, 2).Apply(xi, nil)
					sigma := *compareNoise * p.Bound / p.Set.DualNorm(xi)
					p.F, p.Exact = solver.Noisy(p.F, sigma, 1), p.F
				}
				return p, solver.Settings{MaxEvaluations: compareBudget}
			},
		})
	}
	return cases
}

// compareRuns runs every mirror-prox rule on the case, in parallel (each
// run builds its own problem: a Noisy operator holds a random stream).
func compareRuns(t *testing.T, c compareCase, stochastic bool) []compareRow {
	type run struct {
		label, rule string
		prm         func(solver.Problem) solver.Params
	}
	none := func(solver.Problem) solver.Params { return solver.Params{} }
	runs := []run{
		{"ga-smooth", "ga-smooth", none},
		{"ga-bounded (c = 1)", "ga-bounded", none},
		{"ga-stochastic (c = 5)", "ga-stochastic", none},
		{"bach-levy", "bach-levy", none},
		{"amp", "amp", none},
		{"adaprox", "adaprox", none},
		{"constant", "constant", func(p solver.Problem) solver.Params {
			// A game has its 1/L. The registry's problems have no
			// Lipschitz constant: their constant rule runs with the
			// universal rules' first step D/G0.
			if m, ok := p.(*solver.Monotone); ok {
				return solver.Params{Eta: math.Sqrt(m.Set.DiameterSq()) / m.Bound}
			}
			return solver.Params{}
		}},
		{"backtracking", "backtracking", none},
	}
	rows := make([]compareRow, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for k, r := range runs {
		p, s := c.build(t, stochastic)
		wg.Go(func() {
			var h gapHistory
			s.Recorder = &h
			m, err := solver.NewMethod(r.rule, r.prm(p))
			if err != nil {
				errs[k] = err
				return
			}
			row := compareRow{rule: r.label}
			res, err := solver.Solve(context.Background(), p, &s, m)
			switch {
			case errors.Is(err, solver.ErrNonFinite) && len(h.evals) > 0:
				// A singular operator under noise can be driven to
				// the boundary, where F overflows: a result of the run.
				row.failed = fmt.Sprintf("F overflowed after %d evaluations", h.evals[len(h.evals)-1])
				row.gap = h.relGap[len(h.relGap)-1]
			case err != nil:
				errs[k] = err
				return
			default:
				row.gap, row.evals, row.iters = res.RelGap, res.Evaluations, res.Iterations
			}
			for i, g := range h.relGap {
				if row.to2 == 0 && g <= 1e-2 {
					row.to2 = h.evals[i]
				}
				if row.to3 == 0 && g <= 1e-3 {
					row.to3 = h.evals[i]
					break
				}
			}
			rows[k] = row
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("%s, %s: %v", c.name, runs[k].label, err)
		}
	}
	return rows
}

// TestCompareRules prints, as a markdown table, every mirror-prox step rule
// on the reference matrix game and on each problem of the registry (default
// size, seed 1), with the deterministic and with a stochastic oracle: the
// evaluations to relative gap 1e-2 and 1e-3 (best certified point) and the
// final relative gap, all certified (see compareCases). It runs only with
// -compare or GPUMP_COMPARE=1, not in -short:
//
//	go test ./solver -run TestCompareRules -v -compare
func TestCompareRules(t *testing.T) {
	if testing.Short() || !*compareRules && os.Getenv("GPUMP_COMPARE") != "1" {
		t.Skip("the step-rule comparison runs with -compare or GPUMP_COMPARE=1")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nBudgets: registry problems %d evaluations, the game %d exact or %d sampled (b = %d); seed 1; noise %.2g·G0.\n\n",
		compareBudget, compareGameBudget, 10*compareGameBudget, compareGameBatch, *compareNoise)
	b.WriteString("| problem (setting) | rule | exact: to 1e-2 | to 1e-3 | final rel. gap | stochastic: to 1e-2 | to 1e-3 | final rel. gap |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	fmtEvals := func(n int) string {
		if n == 0 {
			return "—"
		}
		return fmt.Sprint(n)
	}
	for _, c := range compareCases() {
		if *compareOnly != "" && !strings.Contains(c.name, *compareOnly) {
			continue
		}
		start := time.Now()
		det, sto := compareRuns(t, c, false), compareRuns(t, c, true)
		fmtGap := func(r compareRow) string {
			if r.failed != "" {
				return fmt.Sprintf("%.2e (%s)", r.gap, r.failed)
			}
			return fmt.Sprintf("%.2e", r.gap)
		}
		for k, r := range det {
			mark := ""
			if strings.HasPrefix(r.rule, c.rule) {
				mark = " ★"
			}
			fmt.Fprintf(&b, "| %s (%s) | %s%s | %s | %s | %s | %s | %s | %s |\n", c.name, c.setting, r.rule, mark,
				fmtEvals(r.to2), fmtEvals(r.to3), fmtGap(r), fmtEvals(sto[k].to2), fmtEvals(sto[k].to3), fmtGap(sto[k]))
		}
		t.Logf("%s: %s", c.name, time.Since(start).Round(time.Second))
	}
	b.WriteString("\n★ the paper's rule for the setting.\n")
	t.Log(b.String())
}
