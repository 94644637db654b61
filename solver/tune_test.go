package solver_test

import (
	"fmt"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
)

// tuneGame is one game of the warm-start sweep.
type tuneGame struct {
	name string
	a    *tensor.Dense
}

// tuneGames are the sweep's games: random, of several shapes and payoff
// distributions, none used by another test.
func tuneGames() []tuneGame {
	return []tuneGame{
		{"uniform 300×200", uniformGame(21, 300, 200, -1, 1)},
		{"gaussian 250×250", gaussianGame(22, 250, 250)},
		{"uniform 500×400", uniformGame(23, 500, 400, -1, 1)},
		{"gaussian 100×600", gaussianGame(24, 100, 600)},
		{"uniform 400×400", uniformGame(25, 400, 400, -1, 1)},
		{"uniform 1000×800", uniformGame(26, 1000, 800, -1, 1)},
	}
}

// warmColdRatio is the passes a warm start from the 1e-3 answer takes to
// 1e-4 as a fraction of a cold start's.
func warmColdRatio(b *testing.B, a *tensor.Dense, name string) float64 {
	s := func(eps float64, init []float64) *solver.Settings {
		return &solver.Settings{RelGap: eps, MaxIterations: 400000, Init: init}
	}
	start := solveWith(b, a, method(b, name), s(1e-3, nil))
	cold := solveWith(b, a, method(b, name), s(1e-4, nil))
	warm := solveWith(b, a, method(b, name), s(1e-4, start.X))
	return float64(warm.MatrixPasses) / float64(cold.MatrixPasses)
}

// BenchmarkTuneWarmStart is the sweep the warm-start constants were chosen
// from. For each game it reports, as warm/cold, the passes a warm start
// from the 1e-3 answer takes to 1e-4 as a fraction of a cold start's, for
// the entropic start's uniform weight (ga-smooth, omwu) and RM+'s and
// PRM+'s seeding fractions; and, as with/without, the passes to 1e-4 of
// ga-smooth with gap-based restarts (factor 0.5) at several restart weights
// over those without (left out when the restarted run does not converge).
// The runs are deterministic, so one iteration says all (several minutes):
//
//	go test ./solver -run '^$' -bench TuneWarmStart -benchtime 1x
func BenchmarkTuneWarmStart(b *testing.B) {
	start0, restart0, frac0 := solver.WarmTuning()
	// sweep runs one setting of the constants on every game.
	sweep := func(name string, set func() (restore func()), metric string, ratio func(b *testing.B, a *tensor.Dense) (float64, bool)) {
		for _, g := range tuneGames() {
			b.Run(name+"/"+g.name, func(b *testing.B) {
				defer set()()
				var (
					r  float64
					ok bool
				)
				for range b.N {
					r, ok = ratio(b, g.a)
				}
				if ok {
					b.ReportMetric(r, metric)
				} else {
					b.Log("not converged")
				}
			})
		}
	}
	warmCold := func(name string) func(b *testing.B, a *tensor.Dense) (float64, bool) {
		return func(b *testing.B, a *tensor.Dense) (float64, bool) { return warmColdRatio(b, a, name), true }
	}
	for _, mix := range []float64{1e-10, 1e-2, 0.1, 0.25, 0.5} {
		for _, name := range []string{"ga-smooth", "omwu"} {
			sweep(fmt.Sprintf("%s/start-weight=%g", name, mix),
				func() func() { return solver.SetWarmTuning(mix, restart0, frac0) }, "warm/cold", warmCold(name))
		}
	}
	for _, f := range []float64{0.25, 0.5, 1, 2} {
		for _, name := range []string{"rm+", "prm+"} {
			sweep(fmt.Sprintf("%s/seeding-fraction=%g", name, f),
				func() func() { return solver.SetWarmTuning(start0, restart0, [2]float64{f, f}) }, "warm/cold", warmCold(name))
		}
	}
	for _, mix := range []float64{1e-10, 1e-4, 1e-2} {
		sweep(fmt.Sprintf("ga-smooth/restart-weight=%g", mix),
			func() func() { return solver.SetWarmTuning(start0, mix, frac0) }, "with/without",
			func(b *testing.B, a *tensor.Dense) (float64, bool) {
				s := &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}
				with := solveWith(b, a, method(b, "ga-smooth", "restart-factor", "0.5"), s)
				without := solveWith(b, a, method(b, "ga-smooth"), s)
				return float64(with.MatrixPasses) / float64(without.MatrixPasses), with.Status == solver.Converged
			})
	}
}
