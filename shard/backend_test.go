package shard_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// rowsOf returns rows [lo, hi) of the row-major a as a tensor of their own.
func rowsOf(a *tensor.Dense, lo, hi int) *tensor.Dense {
	n := a.Shape()[1]
	if a.Dtype() == tensor.Float32 {
		return tensor.New(tensor.WithShape(hi-lo, n), tensor.WithBacking(slices.Clone(a.Float32s()[lo*n:hi*n])))
	}
	return tensor.New(tensor.WithShape(hi-lo, n), tensor.WithBacking(slices.Clone(a.Float64s()[lo*n:hi*n])))
}

// solveSharded solves a over size in-process ranks, each holding only its
// block of rows, and returns every rank's result.
func solveSharded(t *testing.T, a *tensor.Dense, size int, s *solver.Settings, method string) []*solver.Result {
	t.Helper()
	m := a.Shape()[0]
	grp := shard.NewGroup(size)
	res := make([]*solver.Result, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			cpu := tensorops.NewCPU(1)
			defer cpu.Close()
			be := shard.New(cpu, grp.Comm(r), m)
			lo, hi, _ := be.Rows()
			g, err := solver.NewShardedMatrixGame(rowsOf(a, lo, hi), be)
			if err != nil {
				errs[r] = err
				return
			}
			defer g.Close()
			meth, err := solver.NewMethod(method)
			if err != nil {
				errs[r] = err
				return
			}
			res[r], errs[r] = solver.Solve(context.Background(), g, s, meth)
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("%s on %d ranks, rank %d: %v", method, size, r, err)
		}
	}
	return res
}

// solveWhole solves a in one process on one thread.
func solveWhole(t *testing.T, a *tensor.Dense, s *solver.Settings, method string) *solver.Result {
	t.Helper()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	if err := g.Place(cpu); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	meth, err := solver.NewMethod(method)
	if err != nil {
		t.Fatal(err)
	}
	r, err := solver.Solve(context.Background(), g, s, meth)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// same reports whether two results are the same bits.
func same(a, b *solver.Result) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	if !eq(a.Gap, b.Gap) || !eq(a.ValueLower, b.ValueLower) || !eq(a.ValueUpper, b.ValueUpper) ||
		a.Status != b.Status || a.Iterations != b.Iterations || a.Route != b.Route || len(a.X) != len(b.X) {
		return false
	}
	for i := range a.X {
		if !eq(a.X[i], b.X[i]) {
			return false
		}
	}
	return true
}

// TestEveryMethodSharded solves a game whose rows do not split evenly with
// every method on 2 and 3 ranks: every rank returns the same result, bit
// for bit, and so does a second run; it matches the single process's:
// certified, the same status and route, the relative gap within 1e-12, the
// iterations within 1%. Auto runs a second time to 1e-9, where its route
// ends in the support crossover (the subgame gathered from the ranks).
func TestEveryMethodSharded(t *testing.T) {
	const m, n = 1001, 777
	a, err := datasets.Uniform(tensor.Float64, m, n, -1, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		method string
		gap    float64
	}
	var runs []run
	for _, method := range solver.MethodNames() {
		runs = append(runs, run{method, 1e-3})
	}
	runs = append(runs, run{"auto", 1e-9})
	for _, c := range runs {
		t.Run(fmt.Sprintf("%s/%g", c.method, c.gap), func(t *testing.T) {
			t.Parallel()
			s := &solver.Settings{RelGap: c.gap, MaxIterations: 6000}
			want := solveWhole(t, a, s, c.method)
			if c.gap < 1e-6 && !strings.HasSuffix(want.Route, "polish") {
				t.Fatalf("route %q does not reach the crossover", want.Route)
			}
			for _, size := range []int{2, 3} {
				first := solveSharded(t, a, size, s, c.method)
				again := solveSharded(t, a, size, s, c.method)
				for r := range size {
					if !same(first[r], first[0]) || !same(again[r], first[0]) {
						t.Errorf("%d ranks: rank %d's result differs from rank 0's or from the first run's", size, r)
					}
				}
				got := first[0]
				t.Logf("%d ranks: %v after %d iterations, route %q, relative gap %.17g (one process: %v, %d, %.17g)", size, got.Status, got.Iterations, got.Route, got.RelGap, want.Status, want.Iterations, want.RelGap)
				if err := matches(got, want); err != nil {
					t.Errorf("%d ranks against one process: %v", size, err)
				}
			}
		})
	}
}

// matches checks got against the single process's want.
func matches(got, want *solver.Result) error {
	if got.Status != solver.Converged {
		return fmt.Errorf("status %v: not certified", got.Status)
	}
	if got.Status != want.Status {
		return fmt.Errorf("status %v, want %v", got.Status, want.Status)
	}
	if d := math.Abs(got.RelGap - want.RelGap); !(d <= 1e-12) {
		return fmt.Errorf("relative gap %.17g, want %.17g", got.RelGap, want.RelGap)
	}
	if d := math.Abs(float64(got.Iterations - want.Iterations)); d > 0.01*float64(want.Iterations) {
		return fmt.Errorf("%d iterations, want %d", got.Iterations, want.Iterations)
	}
	if got.Route != want.Route {
		return fmt.Errorf("route %q, want %q", got.Route, want.Route)
	}
	return nil
}
