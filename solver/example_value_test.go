package solver_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gpump/gpump/solver"
)

// A game from a row-major slice: the value, the supports and how the
// result was certified. The strategies carry no rounding debris, so the
// supports are those of the equilibrium the solver found.
func ExampleNewMatrixGameRows() {
	game, err := solver.NewMatrixGameRows(2, 3, []float64{
		3, -1, 2,
		-2, 4, 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.Solve(context.Background(), game, &solver.Settings{RelGap: 1e-9, MaxIterations: 100000}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("value %.6f, gap at most 1e-9: %v\n", res.Value(), res.RelGap <= 1e-9)
	fmt.Printf("row %.4f (support %d), column %.4f (support %d)\n", res.Row, res.RowSupport, res.Column, res.ColumnSupport)
	// Output:
	// value 1.000000, gap at most 1e-9: true
	// row [0.6000 0.4000] (support 2), column [0.5000 0.5000 0.0000] (support 2)
}

// Stats print as one line; counters that are 0 are left out.
func ExampleStats_String() {
	st := solver.Stats{Iterations: 43, Evaluations: 54, MatrixPasses: 110, GapPasses: 4, Restarts: 1,
		Step: 0.125, SubgameSolves: 1, SubgameSize: 105, SubgameTime: 342101 * time.Nanosecond,
		Runtime: 4209564 * time.Nanosecond}
	fmt.Println(st)
	// Output:
	// 43 iterations, 54 evaluations, 110 matrix passes (4 to certify), 1 restart, 1 subgame solve (at most 105, 342µs), step 0.125, 4.21ms
}

// A result prints as its status, value, gap, supports and how it was
// certified, then the method and the work.
func ExampleResult_String() {
	res := solver.Result{
		X:          []float64{0.6, 0.4, 0.4, 0.6, 0},
		ValueLower: 0.99995, ValueUpper: 1.00005, Gap: 1e-4, RelGap: 2.5e-5,
		RowSupport: 2, ColumnSupport: 2,
		Point: solver.AveragePoint, ColumnPoint: solver.AveragePoint,
		Method: "auto", Route: "rm+", Status: solver.Converged,
		Stats: solver.Stats{Iterations: 40, Evaluations: 41, MatrixPasses: 42, GapPasses: 1, Runtime: 1500 * time.Microsecond},
	}
	res.Row, res.Column = res.X[:2], res.X[2:]
	fmt.Println(res)
	fmt.Println(res.Value(), res.CertifiedBy())
	// Output:
	// converged: value 1 in [0.99995, 1.00005], gap 0.0001 (relative 2.5e-05), support 2 of 2 rows and 2 of 3 columns, first-order; auto (rm+); 40 iterations, 41 evaluations, 42 matrix passes (1 to certify), 1.5ms
	// 1 first-order
}

// Statuses print as their names in JSON results.
func ExampleStatus_String() {
	fmt.Println(solver.Converged, solver.TimeLimit, solver.Canceled)
	// Output:
	// converged time_limit canceled
}
