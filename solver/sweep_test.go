package solver_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/solver/polish"
)

var sweepSeed = flag.Uint64("sweep.seed", 1, "TestAutoSweep: the seed that draws the sweep's shapes and games (another seed, another sweep)")

// The budget of TestAutoSweep for each game: the default route certifies
// relative gap 1e-9 within sweepPasses passes over A (RM+'s two per
// iteration, the crossover's certificates) and sweepSeconds of wall
// time. The passes are the route's own measure; the time is there to
// catch a crossover that grinds (a subgame solve is not a pass) and is
// loose, because the test machines are shared: the slowest game of the
// sweep takes a few hundred milliseconds alone.
const (
	sweepPasses  = 6000
	sweepSeconds = 20
)

// sweepFamily names a generator spec for an m×n game (a square family
// uses n) and a seed.
type sweepFamily struct {
	name string
	spec func(m, n int, seed uint64) string
}

var sweepFamilies = []sweepFamily{
	{"uniform", func(m, n int, s uint64) string { return fmt.Sprintf("uniform:m=%d,n=%d,seed=%d", m, n, s) }},
	{"gaussian", func(m, n int, s uint64) string { return fmt.Sprintf("gaussian:m=%d,n=%d,seed=%d", m, n, s) }},
	{"police line", func(_, n int, s uint64) string { return fmt.Sprintf("police:n=%d,seed=%d", n, s) }},
	{"police grid", func(_, n int, s uint64) string {
		r := max(2, isqrt(n))
		return fmt.Sprintf("police:n=%d,layout=grid,theta=0.3,seed=%d", r*r, s)
	}},
	{"rankone", func(m, n int, s uint64) string { return fmt.Sprintf("rankone:m=%d,n=%d,sigma=0.1,seed=%d", m, n, s) }},
	{"rankone 0.01", func(m, n int, s uint64) string { return fmt.Sprintf("rankone:m=%d,n=%d,sigma=0.01,seed=%d", m, n, s) }},
	{"saddle", func(m, n int, s uint64) string { return fmt.Sprintf("saddle:m=%d,n=%d,seed=%d", m, n, s) }},
	{"cyclic", func(_, n int, _ uint64) string { return fmt.Sprintf("cyclic:n=%d", n|1) }},
	{"nemirovski", func(_, n int, _ uint64) string { return fmt.Sprintf("nemirovski:n=%d,family=2,alpha=1", n) }},
	// Low-rank games, the route's former stall: ranks 1 to 5, noise
	// from a hundredth to a fifth of the entries' scale.
	{"lowrank", func(m, n int, s uint64) string {
		r := rand.New(rand.NewPCG(s, 3))
		rank := min(1+r.IntN(5), m, n)
		noise := []float64{0.01, 0.03, 0.05, 0.2}[r.IntN(4)]
		return fmt.Sprintf("lowrank:m=%d,n=%d,rank=%d,noise=%g,seed=%d", m, n, rank, noise, s)
	}},
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// TestAutoSweep: the default route certifies relative gap 1e-9 on every
// family, in shapes and seeds drawn at random (small games: 8 to 260 a
// side, on both sides of the route's 160×160 threshold, square, tall and
// wide), within the budget above, under the default settings' iteration
// limit; the bracket is checked naively. -sweep.seed draws another sweep.
func TestAutoSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(*sweepSeed, 25))
	draws := 3
	if testing.Short() {
		draws = 1
	}
	worst := map[string]int{}
	for _, f := range sweepFamilies {
		for range draws {
			m, n := 8+rng.IntN(253), 8+rng.IntN(253)
			if rng.IntN(3) == 0 {
				m = n
			}
			spec := f.spec(m, n, rng.Uint64N(1000))
			a := gen(t, spec)
			t0 := time.Now()
			res := solveWith(t, a, nil, &solver.Settings{RelGap: 1e-9, MaxIterations: 100000, TimeLimit: sweepSeconds * time.Second})
			el := time.Since(t0)
			t.Logf("%s: %v by %q, relative gap %.2g, %d passes, %d subgame solves, %v", spec, res.Status, res.Route, res.RelGap, res.MatrixPasses, res.SubgameSolves, el.Round(time.Millisecond))
			if res.Status != solver.Converged || res.RelGap > 1e-9 || res.MatrixPasses > sweepPasses {
				t.Errorf("%s: %v by %q at relative gap %g after %d passes (budget %d)", spec, res.Status, res.Route, res.RelGap, res.MatrixPasses, sweepPasses)
			}
			worst[f.name] = max(worst[f.name], res.MatrixPasses)
			checkGap(t, a, res)
		}
	}
	t.Logf("most passes by family: %v", worst)
}

// TestAutoNoStall: low-rank games on which RM+'s decay looked steep at the
// handover (gap ∝ T^−3 over its first 60 passes), so that the route chose
// RM+ to the target, and then stalled near relative gap 1.3e-4: the former
// route ended at its iteration limit (6028 passes at 3000 iterations,
// route "rm+ → rm+"). The watched route notices the stall from the decay
// and hands over to the crossover within a few hundred passes.
func TestAutoNoStall(t *testing.T) {
	if testing.Short() {
		t.Skip("two 900×600 games with crossovers of about a second each")
	}
	for _, seed := range []int{3, 5} {
		spec := fmt.Sprintf("lowrank:m=900,n=600,rank=3,noise=0.03,seed=%d", seed)
		a := gen(t, spec)
		res := solveWith(t, a, nil, &solver.Settings{RelGap: 1e-9, MaxIterations: 3000})
		t.Logf("%s: %v by %q, %d passes, %d subgame solves", spec, res.Status, res.Route, res.MatrixPasses, res.SubgameSolves)
		if res.Status != solver.Converged || res.MatrixPasses > 1000 || !strings.HasSuffix(res.Route, "polish") {
			t.Errorf("%s: %v by %q after %d passes", spec, res.Status, res.Route, res.MatrixPasses)
		}
		checkGap(t, a, res)
	}
}

// TestAutoMissedCrossovers: a crossover that cannot reach the target (its
// subgame held to 4×4 here) is followed by watched RM+ and another
// crossover from a better pair, each priced twice as high as the last, at
// most 4 in all; then RM+ goes on alone to the limit, which the route
// reports.
func TestAutoMissedCrossovers(t *testing.T) {
	a := gen(t, "uniform:m=200,n=170,seed=41")
	m := &solver.Auto{Polish: &polish.Options{MaxSize: 4}}
	res := solveWith(t, a, m, &solver.Settings{RelGap: 1e-10, MaxIterations: 30000})
	crossovers := strings.Count(res.Route, "polish")
	t.Logf("route %q, %v, %d subgame solves, %d passes", res.Route, res.Status, res.SubgameSolves, res.MatrixPasses)
	if res.Status != solver.IterationLimit || res.Iterations != 30000 || crossovers != 4 || res.SubgameSolves < 4 {
		t.Errorf("route %q: %v after %d iterations, %d subgame solves", res.Route, res.Status, res.Iterations, res.SubgameSolves)
	}
	checkGap(t, a, res)
}
