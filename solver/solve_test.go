package solver_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// dense builds an m×n float64 tensor from f(i, j).
func dense(m, n int, f func(i, j int) float64) *tensor.Dense {
	d := make([]float64, m*n)
	for i := range m {
		for j := range n {
			d[i*n+j] = f(i, j)
		}
	}
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
}

func uniformGame(seed uint64, m, n int, lo, hi float64) *tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	return dense(m, n, func(int, int) float64 { return lo + (hi-lo)*rng.Float64() })
}

// gaussianGame is an m×n game with standard normal entries.
func gaussianGame(seed uint64, m, n int) *tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 13))
	return dense(m, n, func(int, int) float64 { return rng.NormFloat64() })
}

// saddleGame has a pure saddle entry v at (i0, j0): the minimum of its row
// and the maximum of its column, so v* = v.
func saddleGame(seed uint64, m, n, i0, j0 int, v float64) *tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 11))
	return dense(m, n, func(i, j int) float64 {
		switch {
		case i == i0 && j == j0:
			return v
		case i == i0:
			return v + 0.05 + 0.5*rng.Float64()
		case j == j0:
			return v - 0.05 - 0.5*rng.Float64()
		}
		return rng.Float64()
	})
}

// skewGame is B − Bᵀ for a random B: skew-symmetric, so v* = 0.
func skewGame(seed uint64, n int) *tensor.Dense {
	b := uniformGame(seed, n, n, -1, 1).Data().([]float64)
	return dense(n, n, func(i, j int) float64 { return b[i*n+j] - b[j*n+i] })
}

// nemirovski2 is family 2 with alpha = 1: A_ij = (|i − j| + 1)/(2n − 1),
// v* = (n + 1)/(2(2n − 1)) .
func nemirovski2(n int) *tensor.Dense {
	return dense(n, n, func(i, j int) float64 { return (math.Abs(float64(i-j)) + 1) / float64(2*n-1) })
}

type knownGame struct {
	name  string
	a     *tensor.Dense
	value float64
	// target relative gap and the iteration budget every method meets it in
	target  float64
	maxIter int
}

func knownGames() []knownGame {
	w := []float64{1, 2, 4, 0.5, 3, 1.5, 8}
	var inv float64
	for _, x := range w {
		inv += 1 / x
	}
	return []knownGame{
		{"identity", dense(7, 7, func(i, j int) float64 { return b2f(i == j) }), 1.0 / 7, 1e-4, 10},
		{"rock-paper-scissors", dense(3, 3, func(i, j int) float64 { return [3][3]float64{{0, -1, 1}, {1, 0, -1}, {-1, 1, 0}}[i][j] }), 0, 1e-4, 10},
		// diag(w): the equilibrium is p ∝ 1/w, far from the uniform start.
		{"weighted-identity", dense(7, 7, func(i, j int) float64 { return b2f(i == j) * w[i] }), 1 / inv, 1e-4, 100000},
		{"skew-symmetric", skewGame(3, 40), 0, 1e-4, 100000},
		{"saddle-entry", saddleGame(5, 30, 40, 7, 21, 0.37), 0.37, 1e-4, 100000},
		{"nemirovski-2-n500", nemirovski2(500), 501.0 / 1998, 1e-4, 20000},
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func solve(t testing.TB, a *tensor.Dense, name string, s *solver.Settings) *solver.Result {
	t.Helper()
	return solveWith(t, a, method(t, name), s)
}

// solveWith solves the game a with method m.
func solveWith(t testing.TB, a *tensor.Dense, m solver.Method, s *solver.Settings) *solver.Result {
	t.Helper()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	res, err := solver.Solve(context.Background(), g, s, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// newMethod returns the named method with its knobs set from name, value
// pairs, as the command line sets them.
func newMethod(name string, kv ...string) (solver.Method, error) {
	m, err := solver.NewMethod(name)
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if err := setKnob(m, kv[i], kv[i+1]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// setKnob sets the knob called name of m.
func setKnob(m solver.Method, name, value string) error {
	if tm, ok := m.(solver.Tunable); ok {
		for _, k := range tm.Knobs() {
			if k.Name == name {
				return k.Set(value)
			}
		}
	}
	return fmt.Errorf("%s has no knob %s", m.Name(), name)
}

// method is newMethod failing the test on an error.
func method(t testing.TB, name string, kv ...string) solver.Method {
	t.Helper()
	m, err := newMethod(name, kv...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestKnownValues checks, for every method, that the value bracket contains
// v* and that the gap target is met .
func TestKnownValues(t *testing.T) {
	for _, kg := range knownGames() {
		for _, name := range solver.MethodNames() {
			t.Run(kg.name+"/"+name, func(t *testing.T) {
				if testing.Short() && kg.name == "nemirovski-2-n500" {
					t.Skip("long in -short mode")
				}
				t.Parallel()
				res := solve(t, kg.a, name, &solver.Settings{RelGap: kg.target, MaxIterations: kg.maxIter})
				if res.Status != solver.Converged {
					t.Fatalf("status %v after %d iterations, relative gap %g", res.Status, res.Iterations, res.RelGap)
				}
				if res.RelGap > kg.target*(1+1e-9) {
					t.Errorf("relative gap %g above target %g", res.RelGap, kg.target)
				}
				const tol = 1e-12 // rounding of the bracket's ends
				if !(res.ValueLower <= kg.value+tol && kg.value <= res.ValueUpper+tol) {
					t.Errorf("bracket [%.15g, %.15g] misses v* = %.15g", res.ValueLower, res.ValueUpper, kg.value)
				}
			})
		}
	}
}

// TestStartAtEquilibrium: the uniform pair solves identity and cyclic games,
// and every method must notice before iterating.
func TestStartAtEquilibrium(t *testing.T) {
	rps := dense(5, 5, func(i, j int) float64 {
		switch (j - i + 5) % 5 {
		case 1, 3:
			return -1
		case 2, 4:
			return 1
		}
		return 0
	})
	for _, name := range solver.MethodNames() {
		res := solve(t, rps, name, &solver.Settings{RelGap: 1e-12, MaxIterations: 5})
		if res.Iterations != 0 || res.Status != solver.Converged || res.Gap != 0 || res.Point != solver.StartPoint {
			t.Errorf("%s: %d iterations, status %v, gap %g, point %v; want 0, converged, 0, start",
				name, res.Iterations, res.Status, res.Gap, res.Point)
		}
	}
}

// TestInvariants checks the output of every method on random games:
// strategies on the simplex, gap ≥ 0 up to rounding, bracket width = gap.
func TestInvariants(t *testing.T) {
	shapes := [][2]int{{1, 9}, {9, 1}, {13, 29}, {80, 50}, {300, 301}}
	for si, sh := range shapes {
		a := uniformGame(uint64(si), sh[0], sh[1], -1, 1)
		for _, name := range solver.MethodNames() {
			t.Run(fmt.Sprintf("%dx%d/%s", sh[0], sh[1], name), func(t *testing.T) {
				res := solve(t, a, name, &solver.Settings{MaxIterations: 300})
				for _, s := range [][]float64{res.Row, res.Column} {
					var sum float64
					// Entropic methods keep every probability positive, but
					// the returned strategies are rid of rounding debris:
					// the smallest entries, n·2⁻⁵⁴ in all, are 0.
					for _, v := range s {
						sum += v
						if v < 0 {
							t.Fatalf("negative probability %g", v)
						}
					}
					if math.Abs(sum-1) > 1e-12 {
						t.Errorf("strategy sums to 1%+.3g", sum-1)
					}
				}
				if res.Gap < -1e-12 {
					t.Errorf("gap %g < 0", res.Gap)
				}
				if w := res.ValueUpper - res.ValueLower; math.Abs(w-res.Gap) > 1e-14*math.Max(1, math.Abs(res.ValueUpper)) {
					t.Errorf("bracket width %g != gap %g", w, res.Gap)
				}
				if len(res.Row) != sh[0] || len(res.Column) != sh[1] || len(res.X) != sh[0]+sh[1] {
					t.Errorf("strategy lengths %d, %d, %d", len(res.Row), len(res.Column), len(res.X))
				}
				checkGap(t, a, res)
			})
		}
	}
}

// checkGap recomputes the result's gap and bracket with a naive double loop.
func checkGap(t *testing.T, a *tensor.Dense, res *solver.Result) {
	t.Helper()
	sh := a.Shape()
	m, n := sh[0], sh[1]
	d := a.Data().([]float64)
	hi, lo := math.Inf(-1), math.Inf(1)
	for i := range m {
		var s float64
		for j := range n {
			s += d[i*n+j] * res.Column[j]
		}
		hi = math.Max(hi, s)
	}
	for j := range n {
		var s float64
		for i := range m {
			s += d[i*n+j] * res.Row[i]
		}
		lo = math.Min(lo, s)
	}
	if math.Abs(hi-res.ValueUpper) > 1e-13 || math.Abs(lo-res.ValueLower) > 1e-13 {
		t.Errorf("bracket [%.16g, %.16g], naive [%.16g, %.16g]", res.ValueLower, res.ValueUpper, lo, hi)
	}
}

// gapRecorder keeps the gap of the average at chosen iterations.
type gapRecorder struct {
	at  map[int]float64
	all []float64
}

func (r *gapRecorder) Init(*solver.Info) error { return nil }

func (r *gapRecorder) Record(rec *solver.Record) error {
	if _, ok := r.at[rec.Iteration]; ok {
		r.at[rec.Iteration] = rec.GapAverage
	}
	return nil
}

// TestRateSmooth: on a deterministic game the gap of ga-smooth's average
// falls like 1/T ; over the decade T = 300 … 3000 the log-log
// slope must lie in [−1.25, −0.75].
func TestRateSmooth(t *testing.T) {
	if testing.Short() {
		t.Skip("long in -short mode")
	}
	for seed := range uint64(3) {
		a := uniformGame(100+seed, 60, 80, 0, 1)
		rec := &gapRecorder{at: map[int]float64{300: 0, 3000: 0}}
		g, _ := solver.NewMatrixGame(a)
		_, err := solver.Solve(context.Background(), g, &solver.Settings{MaxIterations: 3000, Recorder: rec}, &solver.MirrorProx{Rule: &solver.GASmooth{}})
		if err != nil {
			t.Fatal(err)
		}
		slope := math.Log10(rec.at[3000] / rec.at[300])
		t.Logf("seed %d: gap %.3g at 300, %.3g at 3000, slope %.3f", seed, rec.at[300], rec.at[3000], slope)
		if slope < -1.25 || slope > -0.75 {
			t.Errorf("seed %d: slope %.3f outside [-1.25, -0.75]", seed, slope)
		}
	}
}

// TestScaleInvariance: scaling A by 1000 scales the gap by 1000 and leaves
// the strategies unchanged for the universal rules with the default G0
// .
func TestScaleInvariance(t *testing.T) {
	a := uniformGame(42, 70, 90, -1, 1)
	d := a.Data().([]float64)
	b := dense(70, 90, func(i, j int) float64 { return 1000 * d[i*90+j] })
	for _, name := range []string{"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy"} {
		s := &solver.Settings{MaxIterations: 400}
		r1, r2 := solve(t, a, name, s), solve(t, b, name, s)
		if r1.Iterations != r2.Iterations || r1.Point != r2.Point {
			t.Fatalf("%s: %d iterations (%v) vs %d (%v)", name, r1.Iterations, r1.Point, r2.Iterations, r2.Point)
		}
		if math.Abs(r2.Gap/r1.Gap-1000) > 1000*1e-9 {
			t.Errorf("%s: gap ratio %.12g, want 1000", name, r2.Gap/r1.Gap)
		}
		for i := range r1.X {
			if math.Abs(r1.X[i]-r2.X[i]) > 1e-9 {
				t.Fatalf("%s: strategy entry %d differs by %g", name, i, r1.X[i]-r2.X[i])
			}
		}
	}
}

// TestFloat32Storage: a game stored in float32 is the float64 game rounded to
// float32 (entries change by at most 2⁻²⁴ relative); after 500 iterations the
// strategies agree within 1e-6 (l∞) and the gaps within 1e-6 · max |A|.
func TestFloat32Storage(t *testing.T) {
	a := uniformGame(9, 150, 120, -1, 1)
	d := a.Data().([]float64)
	f := make([]float32, len(d))
	for i, v := range d {
		f[i] = float32(v)
	}
	a32 := tensor.New(tensor.WithShape(150, 120), tensor.WithBacking(f))
	for _, name := range solver.MethodNames() {
		s := &solver.Settings{MaxIterations: 500}
		r64, r32 := solve(t, a, name, s), solve(t, a32, name, s)
		if math.Abs(r64.Gap-r32.Gap) > 1e-6 {
			t.Errorf("%s: gap %.9g (f64) vs %.9g (f32)", name, r64.Gap, r32.Gap)
		}
		var worst float64
		for i := range r64.X {
			worst = math.Max(worst, math.Abs(r64.X[i]-r32.X[i]))
		}
		if worst > 1e-6 {
			t.Errorf("%s: strategies differ by %g", name, worst)
		}
	}
}

// TestStopping covers each stopping rule and cancellation.
func TestStopping(t *testing.T) {
	a := uniformGame(1, 200, 200, -1, 1)
	g, _ := solver.NewMatrixGame(a)
	run := func(s *solver.Settings, m solver.Method) *solver.Result {
		res, err := solver.Solve(context.Background(), g, s, m)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mp := &solver.MirrorProx{Rule: &solver.GABounded{}}
	if r := run(&solver.Settings{MaxIterations: 17}, mp); r.Status != solver.IterationLimit || r.Iterations != 17 || r.Evaluations != 34 || r.MatrixPasses != 35 {
		t.Errorf("iteration limit: %v, %d iterations, %d evaluations, %d passes", r.Status, r.Iterations, r.Evaluations, r.MatrixPasses)
	}
	if r := run(&solver.Settings{MaxEvaluations: 40}, mp); r.Status != solver.EvaluationLimit || r.Evaluations > 40 || r.Evaluations < 39 {
		t.Errorf("evaluation limit: %v, %d evaluations", r.Status, r.Evaluations)
	}
	if r := run(&solver.Settings{AbsGap: 0.01, MaxIterations: 100000}, mp); r.Status != solver.Converged || r.Gap > 0.01 {
		t.Errorf("absolute gap: %v, gap %g", r.Status, r.Gap)
	}
	if r := run(&solver.Settings{TimeLimit: 1}, mp); r.Status != solver.TimeLimit || r.Iterations > 1 {
		t.Errorf("time limit: %v after %d iterations", r.Status, r.Iterations)
	}
	if r := run(&solver.Settings{MaxIterations: 10}, &solver.RegretMatching{}); r.Evaluations != 11 || r.MatrixPasses != 22 {
		t.Errorf("rm+: %d evaluations, %d passes; want 11, 22", r.Evaluations, r.MatrixPasses)
	}
	if _, err := solver.Solve(context.Background(), g, &solver.Settings{}, mp); err == nil {
		t.Error("no stopping criterion: no error")
	}

	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelAt{at: 25, cancel: cancel}
	res, err := solver.Solve(ctx, g, &solver.Settings{MaxIterations: 100000, Recorder: stop}, mp)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Canceled || res.Iterations != 25 || math.IsInf(res.Gap, 0) {
		t.Errorf("cancel: %v after %d iterations, gap %g", res.Status, res.Iterations, res.Gap)
	}
}

type cancelAt struct {
	at     int
	cancel func()
}

func (c *cancelAt) Init(*solver.Info) error { return nil }
func (c *cancelAt) Record(r *solver.Record) error {
	if r.Iteration == c.at {
		c.cancel()
	}
	return nil
}

// TestBadInput: invalid games are errors, not panics.
func TestBadInput(t *testing.T) {
	nan := dense(3, 4, func(i, j int) float64 {
		if i == 1 && j == 2 {
			return math.NaN()
		}
		return 1
	})
	cases := map[string]*tensor.Dense{
		"nil":    nil,
		"1-D":    tensor.New(tensor.WithShape(5), tensor.WithBacking(make([]float64, 5))),
		"3-D":    tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking(make([]float64, 8))),
		"int":    tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]int{1, 2, 3, 4})),
		"NaN":    nan,
		"+Inf32": tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]float32{1, float32(math.Inf(1))})),
	}
	for name, a := range cases {
		if _, err := solver.NewMatrixGame(a); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "NaN" && err.Error() != "solver: payoff matrix entry (1, 2) is NaN" {
			t.Errorf("NaN: error %q does not name the entry", err)
		}
	}
}

// TestZeroGame: every pair solves the zero game.
func TestZeroGame(t *testing.T) {
	res := solve(t, dense(4, 6, func(int, int) float64 { return 0 }), "ga-bounded", nil)
	if res.Status != solver.Converged || res.Gap != 0 || res.Iterations != 0 {
		t.Errorf("zero game: %v, gap %g, %d iterations", res.Status, res.Gap, res.Iterations)
	}
}

// TestEuclideanSetup solves a game with both players in the Euclidean
// setup.
func TestEuclideanSetup(t *testing.T) {
	g, _ := solver.NewMatrixGame(saddleGame(5, 30, 40, 7, 21, 0.37))
	res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: 1e-6, MaxIterations: 20000}, &solver.MirrorProx{Setup: tensorops.Euclidean})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged || res.ValueLower > 0.37+1e-12 || res.ValueUpper < 0.37-1e-12 {
		t.Errorf("%v, bracket [%g, %g]", res.Status, res.ValueLower, res.ValueUpper)
	}
}

// TestNoAllocsInLoop: a longer solve allocates exactly as much as a shorter
// one, so the iteration loop allocates nothing, for every method, on a matrix
// large enough to use the CPU workers (MinAllocs says why the fewest over 5
// solves are compared); and a repeated SolveInto of a placed game allocates
// nothing at all.
func TestNoAllocsInLoop(t *testing.T) {
	if solver.RaceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	a := uniformGame(3, 300, 400, -1, 1)
	g, _ := solver.NewMatrixGame(a)
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	if err := g.Place(cpu); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var res solver.Result
	for _, name := range solver.MethodNames() {
		m := method(t, name)
		allocs := func(iters int) float64 {
			s := &solver.Settings{MaxIterations: iters}
			return solver.MinAllocs(5, func() {
				if err := solver.SolveInto(context.Background(), &res, g, s, m); err != nil {
					t.Fatal(err)
				}
			})
		}
		if short, long := allocs(5), allocs(105); long != short || short != 0 {
			t.Errorf("%s: %v allocations for 5 iterations, %v for 105; want 0", name, short, long)
		}
	}
}

// TestOneByOne: a 1×1 game is solved by its start point, for every method,
// although its diameter D is 0.
func TestOneByOne(t *testing.T) {
	for _, name := range solver.MethodNames() {
		res := solve(t, dense(1, 1, func(int, int) float64 { return -2.5 }), name, nil)
		if res.Status != solver.Converged || res.Gap != 0 || res.ValueLower != -2.5 || res.Iterations != 0 {
			t.Errorf("%s: %v, gap %g, value %g, %d iterations", name, res.Status, res.Gap, res.ValueLower, res.Iterations)
		}
	}
}

// TestTransposedTensor: a transposed view shares its parent's data in
// another layout and must be refused, not read as row-major.
func TestTransposedTensor(t *testing.T) {
	a := dense(2, 3, func(i, j int) float64 { return float64(i*3 + j) })
	if err := a.T(); err != nil {
		t.Fatal(err)
	}
	if _, err := solver.NewMatrixGame(a); err == nil {
		t.Error("transposed view accepted")
	}
	if err := a.Transpose(); err != nil { // materialized: fine
		t.Fatal(err)
	}
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	if m, n := g.Dims(); m != 3 || n != 2 {
		t.Errorf("dims %d×%d", m, n)
	}
}

// TestEuclideanConstants: in the Euclidean setup the default constant step
// (1/‖A‖_F) and the universal rules' G0 (from the largest row and column
// norms) make every mirror-prox rule converge.
func TestEuclideanConstants(t *testing.T) {
	a := uniformGame(12, 60, 50, -1, 1)
	for _, name := range []string{"constant", "ga-stochastic", "backtracking", "amp"} {
		g, _ := solver.NewMatrixGame(a)
		m := method(t, name, "setup", "euclidean")
		res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: 1e-3, MaxIterations: 50000}, m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Errorf("%s: %v, relative gap %g after %d iterations", name, res.Status, res.RelGap, res.Iterations)
		}
		checkGap(t, a, res)
	}
	g, _ := solver.NewMatrixGame(a)
	if _, err := solver.Solve(context.Background(), g, nil, &solver.MirrorProx{Setup: tensorops.Setup(7)}); err == nil {
		t.Error("unknown setup accepted")
	}
}

// TestStepWeighted: step-weighted averaging certifies its point like the
// uniform one.
func TestStepWeighted(t *testing.T) {
	a := uniformGame(13, 70, 40, -1, 1)
	for _, name := range []string{"ga-bounded", "adaprox", "backtracking"} {
		res := solveWith(t, a, method(t, name, "averaging", "step"), &solver.Settings{MaxIterations: 500})
		checkGap(t, a, res)
		if res.RelGap > 0.05 {
			t.Errorf("%s: relative gap %g after 500 iterations", name, res.RelGap)
		}
	}
}

// TestExtremeScales: payoffs near 1e-308 (subnormal), 1e-200, 1e200 and
// 1e308 give every method a finite, certified result, and every method but
// adaprox (whose rule is not invariant to the scale of F) the iterations,
// strategies and relative gap of the same game at scale 1: games far from
// scale 1 are solved in units a power of two away.
func TestExtremeScales(t *testing.T) {
	a := uniformGame(14, 40, 30, -1, 1)
	d := a.Data().([]float64)
	for _, name := range solver.MethodNames() {
		ref := solve(t, a, name, &solver.Settings{RelGap: 1e-3, MaxIterations: 20000})
		for _, s := range []float64{1e-308, 1e-200, 1e200, 1e308} {
			b := dense(40, 30, func(i, j int) float64 { return s * d[i*30+j] })
			res := solve(t, b, name, &solver.Settings{RelGap: 1e-3, MaxIterations: 20000})
			// The step of a game near 1e-308 is about 1e308 / max |A_ij|:
			// it can overflow in the game's units, and only there.
			if res.Status != solver.Converged || math.IsInf(res.Gap, 0) || math.IsNaN(res.Gap) || !(res.Step >= 0) || math.IsInf(res.Step, 0) && s > 1e-300 {
				t.Errorf("%s at scale %g: %v, gap %g, step %g", name, s, res.Status, res.Gap, res.Step)
				continue
			}
			if lo, hi := naiveBracketScaled(b, res); math.Abs(lo-res.ValueLower) > 1e-12*s || math.Abs(hi-res.ValueUpper) > 1e-12*s {
				t.Errorf("%s at scale %g: bracket [%g, %g], naive [%g, %g]", name, s, res.ValueLower, res.ValueUpper, lo, hi)
			}
			if name == "adaprox" {
				continue
			}
			if res.Iterations != ref.Iterations || math.Abs(res.RelGap-ref.RelGap) > 1e-9 {
				t.Errorf("%s at scale %g: %d iterations, relative gap %g; at scale 1: %d, %g",
					name, s, res.Iterations, res.RelGap, ref.Iterations, ref.RelGap)
			}
			for i := range res.X {
				if math.Abs(res.X[i]-ref.X[i]) > 1e-9 {
					t.Fatalf("%s at scale %g: strategy entry %d differs by %g", name, s, i, res.X[i]-ref.X[i])
				}
			}
		}
	}
}

// TestUserStepScales: a step given by the user is in the payoffs' units,
// whatever unit the solver works in inside, so a game and its copy scaled by
// a power of two s (exactly: the solver's unit is a power of two), solved
// with steps scaled by 1/s, take the same iterations and steps.
func TestUserStepScales(t *testing.T) {
	// Entries in (−2, 2), max |A_ij| in [1, 2): the range unitOf brings
	// the scaled copies to.
	d := uniformGame(15, 30, 20, -1, 1).Data().([]float64)
	a := dense(30, 20, func(i, j int) float64 { return 2 * d[i*20+j] })
	rules := []struct {
		name string
		rule func(s float64) solver.StepRule
	}{
		{"constant", func(s float64) solver.StepRule { return &solver.Constant{Eta: 0.5 / s} }},
		{"adaprox", func(s float64) solver.StepRule { return &solver.AdaProx{Gamma0: 0.5 / s} }},
	}
	for _, r := range rules {
		ref := solveWith(t, a, &solver.MirrorProx{Rule: r.rule(1)}, &solver.Settings{RelGap: 1e-3, MaxIterations: 5000})
		for _, s := range []float64{math.Ldexp(1, -1000), math.Ldexp(1, 1000)} {
			b := dense(30, 20, func(i, j int) float64 { return 2 * s * d[i*20+j] })
			res := solveWith(t, b, &solver.MirrorProx{Rule: r.rule(s)}, &solver.Settings{RelGap: 1e-3, MaxIterations: 5000})
			if res.Status != ref.Status || res.Iterations != ref.Iterations || math.Abs(res.Step*s-ref.Step) > 1e-12*ref.Step {
				t.Errorf("%s at scale %g: %v after %d iterations, step %g; at scale 1: %v after %d, step %g",
					r.name, s, res.Status, res.Iterations, res.Step*s, ref.Status, ref.Iterations, ref.Step)
			}
		}
	}
}

// naiveBracketScaled is the value bracket of a result by a double loop,
// with products formed after dividing A by its largest entry, so that
// subnormal entries keep their precision.
func naiveBracketScaled(a *tensor.Dense, res *solver.Result) (lo, hi float64) {
	sh := a.Shape()
	m, n := sh[0], sh[1]
	d := a.Data().([]float64)
	var mx float64
	for _, v := range d {
		mx = math.Max(mx, math.Abs(v))
	}
	s := math.Ldexp(1, -math.Ilogb(mx))
	hi, lo = math.Inf(-1), math.Inf(1)
	for i := range m {
		var u float64
		for j := range n {
			u += d[i*n+j] * s * res.Column[j]
		}
		hi = math.Max(hi, u/s)
	}
	for j := range n {
		var u float64
		for i := range m {
			u += d[i*n+j] * s * res.Row[i]
		}
		lo = math.Min(lo, u/s)
	}
	return lo, hi
}

// TestConvergedMeansCertified: at a target near machine precision the
// running certificate and the final fresh one can disagree by rounding;
// Converged must still mean that the reported gap meets the target. The
// games are perturbed weighted identities, whose interior equilibria OMWU
// approaches to full precision. Which of them make the two certificates
// disagree depends on the rounding of the kernel set in use (AVX-512, AVX2,
// generic, arm64), so the test searches the seeds for such games instead of
// naming them: every game checks the first property, and the games that
// disagree also check that the limits hold past a rejected fresh
// certificate. The test fails when too few of the seeds disagree to check
// that.
func TestConvergedMeansCertified(t *testing.T) {
	const target, want, maxSeeds = 1e-15, 2, 400
	w := []float64{1, 2, 4, 0.5, 3, 1.5, 8}
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	found := 0
	for seed := uint64(1); seed <= maxSeeds && found < want; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		a := dense(7, 7, func(i, j int) float64 {
			if i == j {
				return w[i] * (0.5 + rng.Float64())
			}
			return 1e-3 * rng.NormFloat64()
		})
		g, _ := solver.NewMatrixGame(a)
		if err := g.Place(cpu); err != nil {
			t.Fatal(err)
		}
		var first firstMet
		res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: target, MaxIterations: 60000, Recorder: &first}, &solver.OMWU{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status == solver.Converged && res.RelGap > target {
			t.Errorf("seed %d: converged with relative gap %g", seed, res.RelGap)
		}
		if first.rec.Iteration == 0 || first.rec.Iteration == res.Iterations {
			g.Close()
			continue // the certificates agreed: nothing more to check here
		}
		found++
		// Iterating on past a rejected fresh certificate respects the
		// limits: with them set at the iteration where the running
		// certificate first met the target, the run ends there.
		for _, lim := range []solver.Settings{{MaxIterations: first.rec.Iteration}, {MaxEvaluations: first.rec.Evaluations}} {
			lim.RelGap = target
			res, err := solver.Solve(context.Background(), g, &lim, &solver.OMWU{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status == solver.Converged || res.Iterations > first.rec.Iteration || res.Evaluations > first.rec.Evaluations {
				t.Errorf("seed %d, limits %d iterations, %d evaluations: %v after %d iterations, %d evaluations",
					seed, lim.MaxIterations, lim.MaxEvaluations, res.Status, res.Iterations, res.Evaluations)
			}
		}
		g.Close()
	}
	if found == 0 {
		t.Fatalf("none of %d games made the running and fresh certificates disagree: widen the search", maxSeeds)
	}
}

// firstMet keeps the first record whose certified relative gap is at most
// 1e-15.
type firstMet struct{ rec solver.Record }

func (f *firstMet) Init(*solver.Info) error { return nil }

func (f *firstMet) Record(r *solver.Record) error {
	if f.rec.Iteration == 0 && r.RelGap <= 1e-15 {
		f.rec = *r
	}
	return nil
}
