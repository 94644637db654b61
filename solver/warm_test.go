package solver_test

import (
	"context"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
)

// TestWarmStart: a solve warm-started from a 1e-3 answer reaches 1e-4 in
// fewer passes than a cold solve, for every method; for rm+ and ga-smooth,
// the methods docs/methods.md recommends warm-starting, in under 0.6 and 0.5
// of them (0.38–0.50 and 0.16–0.39 were measured on six other games when
// the warm starts were tuned). The warm run's passes include its calibration
// (regret matching) and the certification of the start (entropic methods).
func TestWarmStart(t *testing.T) {
	if testing.Short() {
		t.Skip("long in -short mode")
	}
	games := map[string]*tensor.Dense{
		"uniform 400×300":  uniformGame(31, 400, 300, -1, 1),
		"gaussian 300×350": gaussianGame(32, 300, 350),
	}
	limit := map[string]float64{"rm+": 0.6, "ga-smooth": 0.5}
	for gname, a := range games {
		for _, name := range solver.MethodNames() {
			t.Run(gname+"/"+name, func(t *testing.T) {
				t.Parallel()
				s := func(eps float64, init []float64) *solver.Settings {
					return &solver.Settings{RelGap: eps, MaxIterations: 400000, Init: init}
				}
				start := solve(t, a, name, s(1e-3, nil))
				cold := solve(t, a, name, s(1e-4, nil))
				warm := solve(t, a, name, s(1e-4, start.X))
				if warm.Status != solver.Converged || cold.Status != solver.Converged {
					t.Fatalf("cold %v, warm %v", cold.Status, warm.Status)
				}
				checkGap(t, a, warm)
				ratio := float64(warm.MatrixPasses) / float64(cold.MatrixPasses)
				t.Logf("%s, %s: 1e-3 in %d passes; to 1e-4: cold %d, warm %d passes (%.2f)", gname, name, start.MatrixPasses, cold.MatrixPasses, warm.MatrixPasses, ratio)
				want := 1.0
				if l, ok := limit[name]; ok {
					want = l
				}
				if ratio >= want {
					t.Errorf("warm start took %.2f of a cold start's passes, want < %.2f", ratio, want)
				}
			})
		}
	}
}

// TestWarmStartPoints: a warm start at an equilibrium stops at once, for
// every method, with the start itself; a warm start is never returned worse
// than it came in; invalid starts are errors.
func TestWarmStartPoints(t *testing.T) {
	rps := dense(3, 3, func(i, j int) float64 { return [3][3]float64{{0, -1, 1}, {1, 0, -1}, {-1, 1, 0}}[i][j] })
	eq := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3}
	a := uniformGame(33, 60, 40, -1, 1)
	rough := solve(t, a, "rm+", &solver.Settings{MaxIterations: 30})
	for _, name := range solver.MethodNames() {
		res := solve(t, rps, name, &solver.Settings{RelGap: 1e-12, MaxIterations: 5, Init: eq})
		if res.Status != solver.Converged || res.Iterations != 0 || res.Point != solver.StartPoint || res.Gap > 1e-15 {
			t.Errorf("%s at the equilibrium: %v after %d iterations, point %v, gap %g", name, res.Status, res.Iterations, res.Point, res.Gap)
		}
		res = solve(t, a, name, &solver.Settings{MaxIterations: 3, Init: rough.X})
		if res.Gap > rough.Gap*(1+1e-12) {
			t.Errorf("%s: 3 iterations from a start of gap %g returned gap %g", name, rough.Gap, res.Gap)
		}
		checkGap(t, a, res)
	}
	g, _ := solver.NewMatrixGame(rps)
	bad := map[string][]float64{
		"short":        eq[:5],
		"negative":     {1.5, -0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3},
		"NaN":          {math.NaN(), 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3},
		"not summed":   {0.5, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3},
		"infinite":     {math.Inf(1), 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3},
		"column unset": {1, 0, 0, 0, 0, 0},
	}
	for name, init := range bad {
		for _, m := range []solver.Method{&solver.MirrorProx{}, &solver.RegretMatching{}, &solver.OMWU{}} {
			if _, err := solver.Solve(context.Background(), g, &solver.Settings{MaxIterations: 5, Init: init}, m); err == nil {
				t.Errorf("%s start, %s: no error", name, m.Name())
			}
		}
	}
	// Rounding in the sums is accepted and removed.
	near := []float64{0.2, 0.3, 0.5 + 1e-15, 0.6, 0.4 - 1e-15, 0}
	res, err := solver.Solve(context.Background(), g, &solver.Settings{MaxIterations: 1, Init: near}, &solver.RegretMatching{})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Row[0] + res.Row[1] + res.Row[2]; math.Abs(s-1) > 1e-15 {
		t.Errorf("row strategy sums to %.17g", s)
	}
}

// TestWarmStartMonotone: a Monotone problem starts from a point of its set
// (minimizing ½‖x − c‖² over the simplex, started at its solution, stops
// at once), and a point outside the set is an error.
func TestWarmStartMonotone(t *testing.T) {
	c := []float64{1.2, 0.4, -0.5}
	p := &solver.Monotone{F: solver.OperatorFunc(func(dst, x []float64) { diffInto(dst, x, c) }), Set: solver.EuclideanSimplex{N: 3}}
	res, err := solver.Solve(context.Background(), p, &solver.Settings{AbsGap: 1e-12, MaxIterations: 10, Init: []float64{0.9, 0.1, 0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged || res.Iterations != 0 {
		t.Errorf("from the solution: %v after %d iterations, gap %g", res.Status, res.Iterations, res.Gap)
	}
	for _, init := range [][]float64{{0.5, 0.6, 0}, {1, 0}, {-0.1, 0.6, 0.5}} {
		if _, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 10, Init: init}, nil); err == nil {
			t.Errorf("start %v: no error", init)
		}
	}
}

// TestRestart: every method restarts on its schedule, every K iterations
// or when the average's gap has fallen to a fraction of the best gap at the
// last restart, and returns a certified point: on the gap criterion it
// meets the target (restarting at a fixed period is not a convergent
// schedule for every method; see Restart).
func TestRestart(t *testing.T) {
	a := uniformGame(34, 150, 120, -1, 1)
	for _, name := range solver.MethodNames() {
		if name == "auto" {
			continue // it picks its own route, restarts included
		}
		res := solveWith(t, a, method(t, name, "restart-every", "40"), &solver.Settings{MaxIterations: 400})
		if res.Restarts != 9 {
			t.Errorf("%s: %d restarts in 400 iterations, want 9 (every 40, not after the last)", name, res.Restarts)
		}
		checkGap(t, a, res)
		res = solveWith(t, a, method(t, name, "restart-factor", "0.5"), &solver.Settings{RelGap: 1e-3, MaxIterations: 200000})
		if res.Status != solver.Converged || res.Restarts == 0 {
			t.Errorf("%s: %v after %d iterations, %d restarts", name, res.Status, res.Iterations, res.Restarts)
		}
		checkGap(t, a, res)
	}
	for _, r := range []*solver.Restart{{Every: -1}, {Factor: 1}, {Factor: math.NaN()}} {
		if _, err := solver.Solve(context.Background(), mustGame(t, a), nil, &solver.RegretMatching{Restart: r}); err == nil {
			t.Errorf("restart %+v: no error", *r)
		}
	}
}

// diffInto sets dst = a − b.
func diffInto(dst, a, b []float64) {
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

// TestRestartSaves measures what restarting on the gap (Restart.Factor
// 0.5) saves to relative gap 1e-4 on two random games, the figures of
// docs/methods.md; every run must converge, and rm+ and omwu must need fewer passes
// with the restarts than without.
func TestRestartSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("long in -short mode")
	}
	games := map[string]*tensor.Dense{"uniform 150×120": uniformGame(34, 150, 120, -1, 1), "gaussian 200×100": gaussianGame(35, 200, 100)}
	for gname, a := range games {
		for _, name := range []string{"rm+", "ga-smooth", "omwu"} {
			s := &solver.Settings{RelGap: 1e-4, MaxIterations: 400000}
			plain := solveWith(t, a, method(t, name), s)
			restarted := solveWith(t, a, method(t, name, "restart-factor", "0.5"), s)
			t.Logf("%s, %s: %d passes, %d with restarts (%d restarts, %.0f%% saved)", gname, name, plain.MatrixPasses,
				restarted.MatrixPasses, restarted.Restarts, 100*(1-float64(restarted.MatrixPasses)/float64(plain.MatrixPasses)))
			if plain.Status != solver.Converged || restarted.Status != solver.Converged {
				t.Errorf("%s, %s: %v without restarts, %v with", gname, name, plain.Status, restarted.Status)
			}
			if name != "ga-smooth" && restarted.MatrixPasses >= plain.MatrixPasses {
				t.Errorf("%s, %s: restarts took %d passes, none %d", gname, name, restarted.MatrixPasses, plain.MatrixPasses)
			}
		}
	}
}

func mustGame(t testing.TB, a *tensor.Dense) *solver.MatrixGame {
	t.Helper()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRestartEuclidean: the paper's rule in the Euclidean setup with
// gap-based restarts is competitive with RM+ on random games (the restart
// table of docs/auto.md: 1.2 times RM+'s passes on a uniform 2000² game, against
// 37 times without restarts in the entropic setup); here, on games
// docs/auto.md does not use, within 2.5 times RM+'s passes.
func TestRestartEuclidean(t *testing.T) {
	for _, a := range []*tensor.Dense{uniformGame(61, 400, 400, -1, 1), gen(t, "gaussian:m=300,n=500,seed=62")} {
		s := &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}
		rm := solveWith(t, a, &solver.RegretMatching{}, s)
		mp := solveWith(t, a, method(t, "ga-stochastic", "setup", "euclidean", "restart-factor", "0.2"), s)
		t.Logf("rm+ %d passes, ga-stochastic euclidean restarted %d (%d restarts)", rm.MatrixPasses, mp.MatrixPasses, mp.Restarts)
		if mp.Status != solver.Converged || mp.MatrixPasses > 5*rm.MatrixPasses/2 {
			t.Errorf("ga-stochastic, Euclidean, restarted: %v after %d passes; rm+ %d", mp.Status, mp.MatrixPasses, rm.MatrixPasses)
		}
	}
}
