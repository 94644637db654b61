package shard_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// variant is a problem and method built on a game, sharded or whole.
type variant struct {
	name string
	dt   tensor.Dtype
	make func(g *solver.MatrixGame) (solver.Problem, solver.Method)
}

// TestShardedVariants covers what the methods' default runs do not: the
// Euclidean setup (whose constants need the norms of A, reduced over the
// ranks), float32 blocks and the sampled oracle (rows drawn from the
// whole p, summed where they are held).
func TestShardedVariants(t *testing.T) {
	// Each solve, each rank's included, gets its own method: a step rule
	// holds the state of its solve.
	mirror := func(rule func() solver.StepRule, s tensorops.Setup) func(*solver.MatrixGame) (solver.Problem, solver.Method) {
		return func(g *solver.MatrixGame) (solver.Problem, solver.Method) {
			return g, &solver.MirrorProx{Rule: rule(), Setup: s}
		}
	}
	gaSmooth := func() solver.StepRule { return &solver.GASmooth{} }
	variants := []variant{
		{name: "ga-smooth euclidean", dt: tensor.Float64, make: mirror(gaSmooth, tensorops.Euclidean)},
		{name: "constant euclidean f32", dt: tensor.Float32, make: mirror(func() solver.StepRule { return &solver.Constant{} }, tensorops.Euclidean)},
		{name: "ga-smooth f32", dt: tensor.Float32, make: mirror(gaSmooth, tensorops.Entropic)},
		{name: "sampled ga-stochastic", dt: tensor.Float64, make: func(g *solver.MatrixGame) (solver.Problem, solver.Method) {
			return &solver.SampledGame{Game: g, Batch: 64, Seed: 5}, &solver.MirrorProx{Rule: &solver.GAStochastic{}}
		}},
		{name: "sampled transposed", dt: tensor.Float64, make: func(g *solver.MatrixGame) (solver.Problem, solver.Method) {
			return &solver.SampledGame{Game: g, Batch: 32, Seed: 6, Transposed: true}, &solver.MirrorProx{Rule: &solver.GAStochastic{}}
		}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(v.name, "sampled") {
				t.Skip("the sampled oracle's runs take thousands of iterations")
			}
			t.Parallel()
			s := &solver.Settings{RelGap: 1e-2, MaxIterations: 20000}
			m, n := shardtest.Shape()
			a, err := datasets.Uniform(v.dt, m, n, -1, 1, 7)
			if err != nil {
				t.Fatal(err)
			}
			want := solveVariant(t, a, 1, v, s)[0]
			for _, size := range []int{2, 3} {
				res := solveVariant(t, a, size, v, s)
				for r := range res {
					if !shardtest.Same(shardtest.Digest(res[r]), shardtest.Digest(res[0])) {
						t.Errorf("%d ranks: rank %d's result differs from rank 0's", size, r)
					}
				}
				t.Logf("%d ranks: %v after %d iterations, relative gap %.17g (one process: %d, %.17g)", size, res[0].Status, res[0].Iterations, res[0].RelGap, want.Iterations, want.RelGap)
				if err := shardtest.Matches(res[0], want); err != nil {
					t.Errorf("%d ranks: %v", size, err)
				}
			}
		})
	}
}

// solveVariant solves v on a over size ranks (size 1: the whole matrix on a
// plain CPU backend).
func solveVariant(t *testing.T, a *tensor.Dense, size int, v variant, s *solver.Settings) []*solver.Result {
	t.Helper()
	res := make([]*solver.Result, size)
	errs := make([]error, size)
	solve := func(g *solver.MatrixGame) (*solver.Result, error) {
		p, m := v.make(g)
		return solver.Solve(context.Background(), p, s, m)
	}
	if size == 1 {
		g, done, err := shardtest.PlaceWhole(a)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		res[0], errs[0] = solve(g)
	} else {
		grp := shard.NewGroup(size)
		var wg sync.WaitGroup
		for r := range size {
			wg.Go(func() {
				g, done, err := shardtest.Place(grp.Comm(r), a)
				if err != nil {
					errs[r] = err
					return
				}
				defer done()
				res[r], errs[r] = solve(g)
			})
		}
		wg.Wait()
	}
	for r, err := range errs {
		if err != nil {
			t.Fatal(fmt.Errorf("rank %d of %d: %w", r, size, err))
		}
	}
	return res
}
