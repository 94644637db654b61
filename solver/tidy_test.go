package solver_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// checkTidy checks that a game's returned strategies carry no rounding
// debris (every entry at or below 2⁻⁵⁴ fits the budget n·2⁻⁵⁴ of the
// smallest entries dropped, so none is left), that the support counts are
// theirs, and that the certificate is that of exactly the returned pair.
func checkTidy(t *testing.T, a *tensor.Dense, res *solver.Result) {
	t.Helper()
	for k, s := range [][]float64{res.Row, res.Column} {
		pos := 0
		for i, v := range s {
			if v > 0 {
				pos++
			}
			if v > 0 && v <= 0x1p-54 {
				t.Errorf("%s strategy entry %d is %g: rounding debris", [2]string{"row", "column"}[k], i, v)
				break
			}
		}
		if got := [2]int{res.RowSupport, res.ColumnSupport}[k]; got != pos {
			t.Errorf("%s support %d, %d positive entries", [2]string{"row", "column"}[k], got, pos)
		}
	}
	checkGap(t, a, res)
}

// TestStrategiesWithoutDebris: every method, Auto's routes (restart and
// crossover) and both batch paths return strategies without rounding
// debris, certified as returned.
func TestStrategiesWithoutDebris(t *testing.T) {
	// 300 iterations leave the entropic methods' losing strategies at
	// exp(−large): positive, far below rounding.
	small := uniformGame(2, 13, 29, -1, 1)
	for _, name := range solver.MethodNames() {
		t.Run(name, func(t *testing.T) {
			checkTidy(t, small, solve(t, small, name, &solver.Settings{MaxIterations: 300}))
		})
	}
	// Auto's restart route leaves entries of 1e-20 from the start's few
	// iterations; the crossover's exact solutions, entries of 1e-17 and
	// below in some of these games (which depends on rounding).
	for seed := range uint64(12) {
		for _, sh := range [][2]int{{60, 90}, {200, 150}} {
			t.Run(fmt.Sprintf("auto/%dx%d/%d", sh[0], sh[1], seed), func(t *testing.T) {
				a := uniformGame(seed, sh[0], sh[1], -1, 1)
				checkTidy(t, a, solve(t, a, "auto", nil))
			})
		}
	}
	// Both batch paths, with an entropic method.
	const b, m, n = 3, 13, 29
	data := make([]float64, 0, b*m*n)
	for k := range b {
		data = append(data, uniformGame(uint64(10+k), m, n, -1, 1).Data().([]float64)...)
	}
	batch, err := solver.NewBatch(tensor.New(tensor.WithShape(b, m, n), tensor.WithBacking(data)))
	if err != nil {
		t.Fatal(err)
	}
	be := tensorops.NewCPU(1)
	defer be.Close()
	for _, lockstep := range []bool{false, true} {
		bs := &solver.BatchSettings{Settings: solver.Settings{MaxIterations: 300}, Workers: 1}
		if lockstep {
			bs = &solver.BatchSettings{Settings: bs.Settings, Backend: be}
		}
		res, err := solver.SolveBatch(context.Background(), batch, bs, method(t, "ga-smooth"))
		if err != nil {
			t.Fatal(err)
		}
		for k := range res {
			t.Run(fmt.Sprintf("batch/lockstep=%v/%d", lockstep, k), func(t *testing.T) {
				if res[k].Err != nil {
					t.Fatal(res[k].Err)
				}
				checkTidy(t, tensor.New(tensor.WithShape(m, n), tensor.WithBacking(data[k*m*n:(k+1)*m*n])), &res[k].Result)
			})
		}
	}
}

// TestTidyCountsItsPass: a solve whose strategies were rid of debris
// certified them with one more gap pass.
func TestTidyCountsItsPass(t *testing.T) {
	a := uniformGame(2, 13, 29, -1, 1)
	res := solve(t, a, "ga-smooth", &solver.Settings{MaxIterations: 300})
	if res.RowSupport == 13 && res.ColumnSupport == 29 {
		t.Fatal("nothing was dropped: pick another game")
	}
	if res.GapPasses != 2 {
		t.Errorf("%d gap passes, want 2 (the result's, then the tidied pair's)", res.GapPasses)
	}
	if math.IsNaN(res.Value()) {
		t.Error("no value")
	}
}
