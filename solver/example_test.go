package solver_test

import (
	"context"
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Solve a matrix game: the row player maximizes pᵀAq. The result certifies
// min_j (Aᵀp)_j ≤ v* ≤ max_i (A q)_i.
func ExampleSolve() {
	a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{
		3, -1, 2,
		-2, 4, 1,
	}))
	game, err := solver.NewMatrixGame(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.Solve(context.Background(), game, &solver.Settings{RelGap: 1e-6, MaxIterations: 100000}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status)
	fmt.Printf("value in [%.4f, %.4f]\n", res.ValueLower, res.ValueUpper)
	fmt.Printf("row strategy %.3f\n", res.Row)
	// Output:
	// converged
	// value in [1.0000, 1.0000]
	// row strategy [0.600 0.400]
}

// Solve a convex problem through the Go operator interface: minimize
// ½‖x − x0‖² over the probability simplex (F = ∇f = x − x0).
func ExampleMonotone() {
	x0 := []float64{0.9, 0.5, -0.2}
	p := &solver.Monotone{
		F: solver.OperatorFunc(func(dst, x []float64) {
			for i := range x {
				dst[i] = x[i] - x0[i]
			}
		}),
		Set: solver.EuclideanSimplex{N: 3},
	}
	res, err := solver.Solve(context.Background(), p, &solver.Settings{AbsGap: 1e-9, MaxIterations: 100000}, &solver.MirrorProx{Rule: &solver.GASmooth{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v x = %.4f\n", res.Status, res.X)
	// Output:
	// converged x = [0.7000 0.3000 0.0000]
}

// Solve a batch of same-shape games, one (B, m, n) tensor: every game gets
// the result of solving it alone; a game with a NaN fails alone.
func ExampleSolveBatch() {
	a := tensor.New(tensor.WithShape(3, 2, 2), tensor.WithBacking([]float64{
		1, -1, -1, 1, // matching pennies: value 0
		2, 0, 0, 1, // value 2/3
		3, math.NaN(), 0, 1,
	}))
	batch, err := solver.NewBatch(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{
		Settings: solver.Settings{RelGap: 1e-9, MaxIterations: 100000},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, r := range res {
		if r.Err != nil {
			fmt.Printf("game %d: %v\n", k, r.Err)
			continue
		}
		fmt.Printf("game %d: %v, value in [%.4f, %.4f], row %.3f\n", k, r.Status, r.ValueLower, r.ValueUpper, r.Row)
	}
	// Output:
	// game 0: converged, value in [0.0000, 0.0000], row [0.500 0.500]
	// game 1: converged, value in [0.6667, 0.6667], row [0.333 0.667]
	// game 2: solver: payoff matrix entry (0, 1) is NaN
}

// A batch in lockstep on a batched backend: each operation of an iteration
// is one call for every game still running (one kernel launch on a GPU,
// tensorops.NewCUDA in a build with -tags cuda; here the CPU backend, which
// gives each game the result of solving it alone).
func ExampleSolveBatch_lockstep() {
	a := tensor.New(tensor.WithShape(2, 2, 3), tensor.WithBacking([]float64{
		1, -1, 0, -1, 1, 0, // value 0
		3, 1, 2, 0, 2, 1, // value 3/2, the rows mixed half and half
	}))
	batch, err := solver.NewBatch(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	be := tensorops.NewCPU(0)
	defer be.Close()
	var stats solver.BatchStats
	res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{
		Settings: solver.Settings{RelGap: 1e-9, MaxIterations: 100000},
		Backend:  be,
		Stats:    &stats,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, r := range res {
		fmt.Printf("game %d: %v, value in [%.4f, %.4f]\n", k, r.Status, r.ValueLower, r.ValueUpper)
	}
	fmt.Println("rounds:", stats.Rounds > 0)
	// Output:
	// game 0: converged, value in [0.0000, 0.0000]
	// game 1: converged, value in [1.5000, 1.5000]
	// rounds: true
}

// Solve a batch and act on each game as it finishes: Done hears of every
// game once, in the order they finish, its calls never overlapping.
func ExampleSolveBatch_done() {
	a := tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking([]float64{
		1, -1, -1, 1, // value 0
		2, 0, 0, 1, // value 2/3
	})) // (B, m, n) float64 or float32, contiguous
	batch, err := solver.NewBatch(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	finished := 0
	res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{
		Settings: solver.Settings{RelGap: 1e-6, MaxIterations: 100000},
		Done: func(k int, r *solver.BatchResult) { // as each game finishes
			finished++
		},
		// Backend: gpu, // a tensorops.Batched (tensorops.NewCUDA(0)): lockstep
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("finished:", finished)
	for k, r := range res { // res[k].Result, res[k].Err
		fmt.Printf("game %d: %v, value in [%.4f, %.4f]\n", k, r.Status, r.ValueLower, r.ValueUpper)
	}
	// Output:
	// finished: 2
	// game 0: converged, value in [0.0000, 0.0000]
	// game 1: converged, value in [0.6667, 0.6667]
}
