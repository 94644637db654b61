package solver_test

import (
	"context"
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// A game solved over and over with new entries (the rounds of a
// mixed-strategy GAN, a PSRO meta-game) is placed on a backend once; each
// round replaces its entries in place and starts from the last round's pair.
func ExampleMatrixGame_Place() {
	ctx := context.Background()
	next := func(round int) *tensor.Dense { // the payoffs of a round: value 0.1·round
		d := 0.1 * float64(round)
		return tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1 + d, -1 + d, -1 + d, 1 + d}))
	}
	game, err := solver.NewMatrixGame(next(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	cpu := tensorops.NewCPU(0) // or tensorops.NewCUDA(0) in a cuda build
	defer cpu.Close()
	if err := game.Place(cpu); err != nil { // A uploaded once; each method's workspace kept
		fmt.Println(err)
		return
	}
	method := &solver.RegretMatching{}
	var res solver.Result
	for round := range 3 {
		if err := game.SetPayoff(next(round)); err != nil { // same shape: entries replaced in place
			fmt.Println(err)
			return
		}
		s := &solver.Settings{RelGap: 1e-6, MaxIterations: 100000, Init: res.X}
		if err := solver.SolveInto(ctx, &res, game, s, method); err != nil { // warm-started from the last round
			fmt.Println(err)
			return
		}
		fmt.Printf("round %d: %v, value in [%.4f, %.4f]\n", round, res.Status, res.ValueLower, res.ValueUpper)
	}
	// Output:
	// round 0: converged, value in [0.0000, 0.0000]
	// round 1: converged, value in [0.1000, 0.1000]
	// round 2: converged, value in [0.2000, 0.2000]
}
