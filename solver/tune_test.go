package solver_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
)

var tune = flag.Bool("tune", false, "run TestTuneWarmStart, the sweep behind the warm-start and restart constants")

// tuneGames are the sweep's games: random, of several shapes and payoff
// distributions, none used by another test.
func tuneGames() map[string]*tensor.Dense {
	return map[string]*tensor.Dense{
		"uniform 300×200":  uniformGame(21, 300, 200, -1, 1),
		"gaussian 250×250": gaussianGame(22, 250, 250),
		"uniform 500×400":  uniformGame(23, 500, 400, -1, 1),
		"gaussian 100×600": gaussianGame(24, 100, 600),
		"uniform 400×400":  uniformGame(25, 400, 400, -1, 1),
		"uniform 1000×800": uniformGame(26, 1000, 800, -1, 1),
	}
}

// TestTuneWarmStart prints the sweep the warm-start constants were chosen
// from: for each game, the passes a warm start from the 1e-3 answer takes to
// 1e-4 as a fraction of a cold start's, for the entropic start's uniform
// weight (ga-smooth, omwu), RM+'s and PRM+'s seeding fractions, and the
// restart weight under gap-based restarts (ga-smooth, factor 0.5). It runs
// only with -tune (several minutes):
//
//	go test ./solver -run TestTuneWarmStart -v -tune
func TestTuneWarmStart(t *testing.T) {
	if !*tune {
		t.Skip("the warm-start sweep runs with -tune")
	}
	start0, restart0, frac0 := solver.WarmTuning()
	ratio := func(a *tensor.Dense, name string, knobs ...string) float64 {
		s := func(eps float64, init []float64) *solver.Settings {
			return &solver.Settings{RelGap: eps, MaxIterations: 400000, Init: init}
		}
		start := solveWith(t, a, method(t, name, knobs...), s(1e-3, nil))
		cold := solveWith(t, a, method(t, name, knobs...), s(1e-4, nil))
		warm := solveWith(t, a, method(t, name, knobs...), s(1e-4, start.X))
		return float64(warm.MatrixPasses) / float64(cold.MatrixPasses)
	}
	var b strings.Builder
	row := func(label string, f func(a *tensor.Dense) string) {
		fmt.Fprintf(&b, "| %s |", label)
		for _, name := range []string{"uniform 300×200", "gaussian 250×250", "uniform 500×400", "gaussian 100×600", "uniform 400×400", "uniform 1000×800"} {
			fmt.Fprintf(&b, " %s |", f(tuneGames()[name]))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| warm/cold passes to 1e-4 | uniform 300×200 | gaussian 250×250 | uniform 500×400 | gaussian 100×600 | uniform 400×400 | uniform 1000×800 |\n|---|---|---|---|---|---|---|\n")
	for _, mix := range []float64{1e-10, 1e-2, 0.1, 0.25, 0.5} {
		restore := solver.SetWarmTuning(mix, restart0, frac0)
		for _, name := range []string{"ga-smooth", "omwu"} {
			row(fmt.Sprintf("%s, start weight %g", name, mix), func(a *tensor.Dense) string { return fmt.Sprintf("%.2f", ratio(a, name)) })
		}
		restore()
	}
	for _, f := range []float64{0.25, 0.5, 1, 2} {
		restore := solver.SetWarmTuning(start0, restart0, [2]float64{f, f})
		for _, name := range []string{"rm+", "prm+"} {
			row(fmt.Sprintf("%s, seeding fraction %g", name, f), func(a *tensor.Dense) string { return fmt.Sprintf("%.2f", ratio(a, name)) })
		}
		restore()
	}
	for _, mix := range []float64{1e-10, 1e-4, 1e-2} {
		restore := solver.SetWarmTuning(start0, mix, frac0)
		row(fmt.Sprintf("ga-smooth, restarts (factor 0.5) at weight %g: passes to 1e-4 with/without", mix), func(a *tensor.Dense) string {
			s := &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}
			with := solveWith(t, a, method(t, "ga-smooth", "restart-factor", "0.5"), s)
			without := solveWith(t, a, method(t, "ga-smooth"), s)
			if with.Status != solver.Converged {
				return "not converged"
			}
			return fmt.Sprintf("%.2f", float64(with.MatrixPasses)/float64(without.MatrixPasses))
		})
		restore()
	}
	t.Log(b.String())
}
