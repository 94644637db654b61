package solver_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
)

// gen generates a float64 game from a generator spec.
func gen(t testing.TB, spec string) *tensor.Dense {
	t.Helper()
	s, err := datasets.ParseGenSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	a, err := datasets.Generate(tensor.Float64, s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAuto: the default route certifies every family at a loose and at a
// machine-precision target: at the loose one in no more than 1.25 times
// the passes of RM+ with quadratic averaging (its first phase); at 1e-12
// by support crossover, its bracket checked naively.
func TestAuto(t *testing.T) {
	families := []string{
		"uniform:m=180,n=150,seed=21", "gaussian:m=120,n=200,seed=22", "police:n=144,layout=grid,seed=23",
		"police:n=150,seed=24", "rankone:m=160,n=140,seed=25", "cyclic:n=101", "saddle:m=90,n=70,seed=26",
	}
	for _, spec := range families {
		a := gen(t, spec)
		loose := &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}
		res := solveWith(t, a, nil, loose)
		rm := solveWith(t, a, &solver.RegretMatching{Averaging: solver.Quadratic}, loose)
		t.Logf("%s at 1e-4: %q, %d passes, %d subgame solves; rm+ %d passes", spec, res.Route, res.MatrixPasses, res.SubgameSolves, rm.MatrixPasses)
		if res.Method != "auto" || res.Status != solver.Converged || res.MatrixPasses > rm.MatrixPasses+rm.MatrixPasses/4 {
			t.Errorf("%s at 1e-4: %s by %q, %v, %d passes; rm+: %d", spec, res.Method, res.Route, res.Status, res.MatrixPasses, rm.MatrixPasses)
		}
		checkGap(t, a, res)
		res = solveWith(t, a, nil, &solver.Settings{RelGap: 1e-12, MaxIterations: 100000})
		if res.Status != solver.Converged || res.RelGap > 1e-12 {
			t.Errorf("%s at 1e-12: %v by %q, relative gap %g", spec, res.Status, res.Route, res.RelGap)
		}
		if strings.Contains(res.Route, "polish") != (res.SubgameSolves > 0) {
			t.Errorf("%s: route %q with %d subgame solves", spec, res.Route, res.SubgameSolves)
		}
		checkGap(t, a, res)
	}
}

// TestAutoRestart: the route's restart after RM+'s first iterations, and
// its later phases going on with their regrets, beat one RM+ run with the
// same averaging by a wide margin on games whose cold start lingers
// (police, rank-one) and lose little elsewhere; polish off, so that only
// RM+ runs.
func TestAutoRestart(t *testing.T) {
	for _, c := range []struct {
		spec string
		gain float64 // the route's passes at most this share of RM+'s
	}{
		{"police:n=400,layout=line,seed=31", 0.5},
		{"rankone:m=300,n=300,seed=32", 0.5},
		{"uniform:m=300,n=300,seed=33", 1.1},
		{"gaussian:m=300,n=250,seed=34", 1.1},
	} {
		a := gen(t, c.spec)
		s := &solver.Settings{RelGap: 1e-4, MaxIterations: 200000}
		auto := solveWith(t, a, method(t, "auto", "polish", "off"), s)
		rm := solveWith(t, a, method(t, "rm+", "averaging", "quadratic"), s)
		t.Logf("%s: auto %q %d passes, rm+ %d", c.spec, auto.Route, auto.MatrixPasses, rm.MatrixPasses)
		if auto.Status != solver.Converged || float64(auto.MatrixPasses) > c.gain*float64(rm.MatrixPasses) {
			t.Errorf("%s: auto %v after %d passes, rm+ %d (want at most %.1f×)", c.spec, auto.Status, auto.MatrixPasses, rm.MatrixPasses, c.gain)
		}
	}
}

// TestAutoRoutes: what the route is made of, and that its limits, its
// recorder and its status describe the whole route. Both games restart RM+
// after its first 10 iterations. On this uniform game RM+ is fast and the
// support large, so RM+ goes half a decade past the handover before the
// crossover (Auto's decade rule, a phase that carries on the same run, not
// in the route); on a police game, where RM+ is slow and the support
// small, the crossover starts a decade before the handover (the early
// look).
func TestAutoRoutes(t *testing.T) {
	police := gen(t, "police:n=400,layout=grid,seed=3")
	if r := solveWith(t, police, nil, &solver.Settings{RelGap: 1e-10, MaxIterations: 100000}); r.Route != "rm+ → rm+ → polish" || r.Status != solver.Converged {
		t.Errorf("police game: route %q, %v", r.Route, r.Status)
	} else if rm := solveWith(t, police, method(t, "auto", "polish", "off"), &solver.Settings{RelGap: 1e-3, MaxIterations: 100000}); r.MatrixPasses >= rm.MatrixPasses {
		// The early look handed over before the handover gap.
		t.Errorf("police game: %d passes to 1e-10, RM+ alone %d to the handover", r.MatrixPasses, rm.MatrixPasses)
	}
	a := uniformGame(27, 300, 260, -1, 1)
	var rec countRecorder
	res := solveWith(t, a, nil, &solver.Settings{RelGap: 1e-10, MaxIterations: 100000, Recorder: &rec})
	if res.Route != "rm+ → rm+ → polish" || res.Status != solver.Converged || res.SubgameSolves == 0 || res.SubgameSize == 0 {
		t.Fatalf("route %q, %v, %d subgame solves of up to %d", res.Route, res.Status, res.SubgameSolves, res.SubgameSize)
	}
	if rec.inits != 1 || rec.last.Iteration != res.Iterations || rec.back {
		t.Errorf("recorder: %d inits, last iteration %d of %d, went back %v", rec.inits, rec.last.Iteration, res.Iterations, rec.back)
	}
	if res.Point != solver.PolishedPoint || res.MatrixPasses <= res.GapPasses-1 {
		t.Errorf("point %v, %d passes, %d gap passes", res.Point, res.MatrixPasses, res.GapPasses)
	}
	// A warm start from the answer itself is kept: nothing to do but RM+'s
	// warm-start calibration (10 iterations, 2 passes each) and the
	// certificates.
	warm := solveWith(t, a, nil, &solver.Settings{RelGap: 1e-10, MaxIterations: 100000, Init: res.X})
	if warm.Status != solver.Converged || warm.MatrixPasses > 23 || warm.SubgameSolves > 0 {
		t.Errorf("warm-started at the answer: %v after %d passes", warm.Status, warm.MatrixPasses)
	}
	// Polish off: RM+ alone, to the same target if it can.
	off := method(t, "auto", "polish", "off")
	res = solveWith(t, a, off, &solver.Settings{RelGap: 1e-6, MaxIterations: 100000})
	if res.Route != "rm+ → rm+" || res.SubgameSolves != 0 || res.Status != solver.Converged {
		t.Errorf("polish off: route %q, %d subgame solves, %v", res.Route, res.SubgameSolves, res.Status)
	}
	// An iteration limit before or after the restart ends the route there.
	for _, limit := range []int{7, 10, 15} {
		res = solveWith(t, a, nil, &solver.Settings{RelGap: 1e-10, MaxIterations: limit})
		if res.Status != solver.IterationLimit || res.Iterations != limit || res.SubgameSolves != 0 {
			t.Errorf("%d iterations: %v after %d, %d subgame solves", limit, res.Status, res.Iterations, res.SubgameSolves)
		}
	}
	// A canceled context returns the best certified pair.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := mustGame(t, a)
	r, err := solver.Solve(ctx, g, &solver.Settings{RelGap: 1e-10}, nil)
	if err != nil || r.Status != solver.Canceled || math.IsNaN(r.Gap) {
		t.Errorf("canceled: %v, %v, gap %g", err, r.Status, r.Gap)
	}
	// Not a matrix game: the paper's rule.
	p := &solver.Monotone{F: solver.OperatorFunc(func(dst, z []float64) { dst[0], dst[1] = z[1], -z[0] }), Set: mustBox(t, 2, -1, 1)}
	r, err = solver.Solve(context.Background(), p, &solver.Settings{AbsGap: 1e-3, MaxIterations: 100000}, nil)
	if err != nil || r.Route != "ga-stochastic" || r.Status != solver.Converged {
		t.Errorf("monotone: %v, route %q, %v", err, r.Route, r.Status)
	}
	// A time limit holds across the phases.
	big := uniformGame(28, 700, 700, -1, 1)
	t0 := time.Now()
	res = solveWith(t, big, nil, &solver.Settings{RelGap: 1e-12, TimeLimit: 30 * time.Millisecond})
	if el := time.Since(t0); el > 2*time.Second || res.Status != solver.TimeLimit && res.Status != solver.Converged {
		t.Errorf("30 ms time limit: %v after %v", res.Status, el)
	}
}

// TestAutoScales: the crossover works in the solver's internal units, so
// payoffs near the ends of float64's range polish to the same relative gap.
func TestAutoScales(t *testing.T) {
	d := uniformGame(29, 120, 100, -1, 1).Data().([]float64)
	for _, s := range []float64{1e-300, 1, 1e300} {
		a := dense(120, 100, func(i, j int) float64 { return s * d[i*100+j] })
		res := solveWith(t, a, nil, &solver.Settings{RelGap: 1e-11, MaxIterations: 100000})
		if res.Status != solver.Converged || res.RelGap > 1e-11 || res.SubgameSolves == 0 {
			t.Errorf("scale %g: %v by %q, relative gap %g", s, res.Status, res.Route, res.RelGap)
		}
		if lo, hi := naiveBracketScaled(a, res); math.Abs(lo-res.ValueLower) > 1e-12*s || math.Abs(hi-res.ValueUpper) > 1e-12*s {
			t.Errorf("scale %g: bracket [%g, %g], naive [%g, %g]", s, res.ValueLower, res.ValueUpper, lo, hi)
		}
	}
}

// countRecorder counts Init calls and checks that iterations never go
// back.
// TestAutoEvaluationLimit: an evaluation limit holds for the whole route
// and is the status it reports, also where it falls at or just after the
// restart after RM+'s first 10 iterations (whose warm start calibrates
// with evaluations of its own).
func TestAutoEvaluationLimit(t *testing.T) {
	a := uniformGame(27, 300, 260, -1, 1)
	for _, polish := range []string{"auto", "off"} {
		for _, limit := range []int{5, 11, 12, 15, 21, 22, 40} {
			res := solveWith(t, a, method(t, "auto", "polish", polish), &solver.Settings{RelGap: 1e-10, MaxEvaluations: limit})
			if res.Status != solver.EvaluationLimit || res.Evaluations > limit {
				t.Errorf("polish %s, %d evaluations: %v after %d (route %q)", polish, limit, res.Status, res.Evaluations, res.Route)
			}
		}
	}
}

type countRecorder struct {
	inits int
	last  solver.Record
	back  bool
}

func (c *countRecorder) Init(*solver.Info) error { c.inits++; return nil }

func (c *countRecorder) Record(r *solver.Record) error {
	c.back = c.back || r.Iteration < c.last.Iteration || r.MatrixPasses < c.last.MatrixPasses
	c.last = *r
	return nil
}

func mustBox(t *testing.T, n int, lo, hi float64) *solver.Box {
	t.Helper()
	b, err := solver.NewBox(n, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
