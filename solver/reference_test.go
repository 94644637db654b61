package solver_test

import (
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// firstBelow records the operator evaluations at which the best certified
// relative gap first reaches each target.
type firstBelow struct {
	targets []float64
	evals   []int
}

func (f *firstBelow) Init(*solver.Info) error {
	f.evals = make([]int, len(f.targets))
	return nil
}

func (f *firstBelow) Record(r *solver.Record) error {
	for k, tgt := range f.targets {
		if f.evals[k] == 0 && r.RelGap <= tgt {
			f.evals[k] = r.Evaluations
		}
	}
	return nil
}

// referenceGames are the games of the reference figures, entries
// scaled to max |A_ij| = 1 (uniform [0, 1) has max below 1 by 1e-7 or so).
func referenceGames(t testing.TB) map[string]*tensor.Dense {
	u, err := datasets.Uniform(tensor.Float64, 500, 500, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*tensor.Dense{"uniform[0,1] 500x500": u, "nemirovski-2 n=500": nemirovski2(500)}
}

// referenceEvals are this implementation's measured evaluations to relative
// gap 1e-3 and 1e-4 within 10^4 evaluations (0: not reached), from
//
//	go test -run TestReferenceEvaluations -v ./solver/
//
// They are the table of docs/benchmarks.md and guard against regressions: a method may
// not need more than 1.5 times its recorded evaluations, nor miss a target
// it reached. The tolerance is wide because the methods that accept or
// reject steps (backtracking) or that reach an exact zero regret (RM+,
// PRM+) follow the rounding of A q and Aᵀp, which the summation order of
// the kernels (AVX-512, AVX2 or generic) and the thread count change: moving
// from 4-row to 8-row kernels moved backtracking on Nemirovski-2 from 296
// to 212 evaluations to 1e-3.
var referenceEvals = map[string]map[string][2]int{
	"ga-smooth":     {"uniform[0,1] 500x500": {2136, 0}, "nemirovski-2 n=500": {314, 870}},
	"ga-bounded":    {"uniform[0,1] 500x500": {2140, 0}, "nemirovski-2 n=500": {318, 878}},
	"ga-stochastic": {"uniform[0,1] 500x500": {2132, 0}, "nemirovski-2 n=500": {312, 866}},
	"bach-levy":     {"uniform[0,1] 500x500": {2134, 0}, "nemirovski-2 n=500": {314, 868}},
	"constant":      {"uniform[0,1] 500x500": {7678, 0}, "nemirovski-2 n=500": {1100, 3046}},
	"amp":           {"uniform[0,1] 500x500": {2132, 0}, "nemirovski-2 n=500": {312, 864}},
	"adaprox":       {"uniform[0,1] 500x500": {2132, 0}, "nemirovski-2 n=500": {314, 866}},
	"backtracking":  {"uniform[0,1] 500x500": {440, 4412}, "nemirovski-2 n=500": {212, 879}},
	"rm+":           {"uniform[0,1] 500x500": {67, 277}, "nemirovski-2 n=500": {1029, 2441}},
	"prm+":          {"uniform[0,1] 500x500": {92, 379}, "nemirovski-2 n=500": {856, 2193}},
	"omwu":          {"uniform[0,1] 500x500": {3869, 0}, "nemirovski-2 n=500": {551, 1524}},
}

// TestReferenceEvaluations runs every method on the reference games of
// issue 2 and prints the evaluations each needed; see referenceEvals.
func TestReferenceEvaluations(t *testing.T) {
	if testing.Short() {
		t.Skip("long in -short mode")
	}
	games := referenceGames(t)
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "\n| method | uniform[0,1] 500x500: 1e-3 / 1e-4 | nemirovski-2 n=500: 1e-3 / 1e-4 |\n|---|---|---|\n")
	for _, name := range solver.MethodNames() {
		fmt.Fprintf(&b, "| %s |", name)
		for _, gname := range []string{"uniform[0,1] 500x500", "nemirovski-2 n=500"} {
			rec := &firstBelow{targets: []float64{1e-3, 1e-4}}
			// Two threads: the thread count changes the rounding of Aᵀp
			// and so, slightly, the iterates.
			res := solveOn(t, cpu, games[gname], name, solver.Settings{RelGap: 1e-4, MaxEvaluations: 10000, Recorder: rec})
			cell := ""
			for k, e := range rec.evals {
				if k > 0 {
					cell += " / "
				}
				if e == 0 {
					cell += fmt.Sprintf("gap %.2g at 10^4", res.RelGap)
				} else {
					cell += fmt.Sprint(e)
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
			if want, ok := referenceEvals[name][gname]; ok {
				for k := range 2 {
					w, g := want[k], rec.evals[k]
					switch {
					case w > 0 && (g == 0 || float64(g) > 1.5*float64(w)):
						t.Errorf("%s on %s: %d evaluations to %g (0: not reached), recorded %d", name, gname, g, []float64{1e-3, 1e-4}[k], w)
					case w == 0 && g > 0 || float64(g) < float64(w)/1.5:
						t.Logf("%s on %s: %d evaluations to %g, recorded %d: update the table", name, gname, g, []float64{1e-3, 1e-4}[k], w)
					}
				}
			}
		}
		fmt.Fprintln(&b)
	}
	t.Log(b.String())
}
