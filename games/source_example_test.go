package games_test

import (
	"context"
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/solver"
)

// Open a payoff file once, read it as float32 (scaled by a power of two,
// since float32 cannot hold entries of 1e-50), and solve it: the game
// carries the scale, so the report is in the file's units.
func ExampleOpen() {
	path, cleanup := scratch("tiny.npy")
	defer cleanup()
	a := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{3e-50, -1e-50, -2e-50, 2e-50}))
	if err := datasets.WriteNPY(path, a); err != nil {
		fmt.Println(err)
		return
	}

	src, err := games.Open(path, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	fmt.Println(src.Format, src.NPY.Rows, src.NPY.Cols, src.Dims)
	stored, exp, err := src.Read(context.Background(), &datasets.ReadOptions{DType: tensor.Float32})
	if err != nil {
		fmt.Println(err)
		return
	}
	game, err := solver.NewMatrixGame(stored)
	if err == nil {
		err = game.SetStorageExponent(exp)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &solver.Settings{RelGap: 1e-6}
	res, err := solver.Solve(context.Background(), game, s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := games.NewReport(res, s)
	fmt.Printf("stored times 2^%d; %s, value %.4g, max |A| %.3g\n", exp, r.Status, r.Value, game.MaxAbs())
	// Output:
	// npy 2 2 2
	// stored times 2^165; converged, value 5e-51, max |A| 3e-50
}

// Solve a game: the report carries the bracket in the matrix's units, the
// source and the shape; the result the strategies.
func ExampleSolve() {
	a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{
		4, -2, 1,
		-2, 4, 1,
	}))
	g := &games.Game{A: a, Source: "example"}
	r, res, err := games.Solve(context.Background(), g, &games.Options{Settings: solver.Settings{RelGap: 1e-6}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %d×%d %s: %s, value in [%.4f, %.4f]\n", r.Source, r.M, r.N, r.Precision, r.Status, r.ValueLower, r.ValueUpper)
	fmt.Printf("row strategy %.3f\n", res.Row)
	// Output:
	// example 2×3 f64: converged, value in [1.0000, 1.0000]
	// row strategy [0.500 0.500]
}

// Solve a stack of games, a line per game as it finishes (from the solving
// goroutines: here, one worker).
func ExampleSolveStack() {
	a := tensor.New(tensor.WithShape(3, 2, 2), tensor.WithBacking([]float64{
		1, -1, -1, 1, // matching pennies: value 0
		2, 0, 0, 2, // value 1
		3, 3, 3, 3, // constant: value 3
	}))
	s := &games.Stack{A: a, Index: []int{0, 1, 2}}
	values := make([]string, s.Len())
	err := games.SolveStack(context.Background(), s, &games.StackOptions{Settings: solver.Settings{RelGap: 1e-6}, Workers: 1},
		func(k int, l *games.Line, r *solver.BatchResult) {
			values[k] = fmt.Sprintf("game %d: %s, value %.4f", l.Index, l.Status, l.Report.Value)
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range values {
		fmt.Println(v)
	}
	// Output:
	// game 0: converged, value 0.0000
	// game 1: converged, value 1.0000
	// game 2: converged, value 3.0000
}

// Read the games of an archive of several members, grouped by shape.
func ExampleReadStacks() {
	path, cleanup := scratch("games.npz")
	defer cleanup()
	mat := func(m, n int, x ...float64) *tensor.Dense {
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(x))
	}
	err := datasets.WriteNPZ(path, []datasets.Array{
		{Name: "a", T: mat(2, 2, 1, -1, -1, 1)},
		{Name: "b", T: mat(1, 3, 1, 2, 3)},
		{Name: "c", T: mat(2, 2, 2, 0, 0, 2)},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	src, err := games.Open(path, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	stacks, bad, total, err := games.ReadStacks(src, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(total, "games,", len(bad), "unreadable")
	for _, s := range stacks {
		fmt.Println(s.A.Shape(), s.Keys, s.Index)
	}
	// Output:
	// 3 games, 0 unreadable
	// (2, 2, 2) [a c] [0 2]
	// (1, 1, 3) [b] [1]
}

// Collect the strategies of a stack's games into one archive, a row per
// game, each line naming its member and row.
func ExampleStrategyArchive() {
	path, cleanup := scratch("strategies.npz")
	defer cleanup()
	a := tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking([]float64{1, -1, -1, 1, 2, 0, 0, 3}))
	s := &games.Stack{A: a, Index: []int{0, 1}}
	archive := &games.StrategyArchive{Path: path, Single: true}
	place := archive.Reserve(0, s.Index, s.Len(), 2, 2)
	err := games.SolveStack(context.Background(), s, &games.StackOptions{Settings: solver.Settings{RelGap: 1e-9}, Workers: 1},
		func(k int, l *games.Line, r *solver.BatchResult) { place.Put(l, k, r.Row, r.Column) })
	if err == nil {
		err = archive.Write()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	err = datasets.ReadNPZEach(path, nil, func(key string, t *tensor.Dense, err error) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %v %.3f\n", key, t.Shape(), t.Float64s())
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// row (2, 2) [0.500 0.500 0.600 0.400]
	// column (2, 2) [0.500 0.500 0.600 0.400]
}
