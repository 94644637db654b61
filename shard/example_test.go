package shard_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
)

// Three ranks, here goroutines of one process (under mpirun, processes
// with mpi.Init's World as the Comm), each generate their block of rows of
// one game and solve it together; rank 0 writes the result.
func ExampleOpen() {
	spec, err := datasets.ParseGenSpec("uniform:m=500,n=400,lo=-1,hi=1,seed=1")
	if err != nil {
		panic(err)
	}
	grp := shard.NewGroup(3)
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Go(func() {
			c := grp.Comm(r)
			g, err := shard.Open(c, shard.Source{Gen: &spec}, &shard.Options{Threads: 1})
			if err != nil {
				fmt.Fprintln(shard.Output(c, os.Stdout), err)
				return
			}
			defer g.Close()
			res, err := solver.Solve(context.Background(), g.Game, &solver.Settings{RelGap: 1e-9, MaxIterations: 100000}, nil)
			if err != nil {
				fmt.Fprintln(shard.Output(c, os.Stdout), err)
				return
			}
			fmt.Fprintf(shard.Output(c, os.Stdout), "%v, relative gap below 1e-9: %v\n", res.Status, res.RelGap <= 1e-9)
		})
	}
	wg.Wait()
	// Output:
	// converged, relative gap below 1e-9: true
}

// Ranks stop together on rank 0's interrupt: here rank 0's context is
// canceled before the solve, the others' never are, and every rank ends
// canceled at the same iteration with the same certified bracket.
func ExampleClock() {
	spec, err := datasets.ParseGenSpec("uniform:m=300,n=200,seed=2")
	if err != nil {
		panic(err)
	}
	grp := shard.NewGroup(2)
	iters := make([]int, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			c := grp.Comm(r)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if r == 0 {
				cancel() // Ctrl-C, as rank 0 sees it
			}
			g, err := shard.Open(c, shard.Source{Gen: &spec}, &shard.Options{Threads: 1})
			if err != nil {
				fmt.Fprintln(shard.Output(c, os.Stdout), err)
				return
			}
			defer g.Close()
			s := &solver.Settings{RelGap: 1e-12, TimeLimit: time.Hour, Clock: shard.Clock(c, ctx)}
			res, err := solver.Solve(context.Background(), g.Game, s, &solver.RegretMatching{})
			if err != nil {
				fmt.Fprintln(shard.Output(c, os.Stdout), err)
				return
			}
			iters[r] = res.Iterations
			fmt.Fprintf(shard.Output(c, os.Stdout), "%v, gap certified: %v\n", res.Status, res.Gap < math.Inf(1))
		})
	}
	wg.Wait()
	fmt.Println("same iteration on both ranks:", iters[0] == iters[1])
	// Output:
	// canceled, gap certified: true
	// same iteration on both ranks: true
}
