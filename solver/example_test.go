package solver_test

import (
	"context"
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
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
