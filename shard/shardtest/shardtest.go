// Package shardtest holds the checks of a sharded solve that both the
// in-process group (package shard's tests, every CI run) and MPI (package
// mpi's tests under mpirun) run: every method on a game whose rows do not
// split evenly, against the single process's solve.
package shardtest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Game returns the 1001×777 test game, uniform on [−1, 1), seed 7: 1001
// rows split unevenly over 2 and 3 ranks. Under -short (the arm64 stage
// runs under an emulator) it is the 101×77 game of the same seed, whose
// rows split unevenly too.
func Game(tb testing.TB) *tensor.Dense {
	tb.Helper()
	m, n := Shape()
	a, err := datasets.Uniform(tensor.Float64, m, n, -1, 1, 7)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// Shape is the test game's shape: 1001×777, or 101×77 under -short.
func Shape() (m, n int) {
	if testing.Short() {
		return 101, 77
	}
	return 1001, 777
}

// Run is one solve of the checks: a method and a relative gap target.
type Run struct {
	Method string
	Gap    float64
}

// Settings returns the run's settings.
func (r Run) Settings() *solver.Settings {
	return &solver.Settings{RelGap: r.Gap, MaxIterations: 6000}
}

func (r Run) String() string { return fmt.Sprintf("%s/%g", r.Method, r.Gap) }

// Runs returns every method to 1e-3, and Auto to 1e-9, where its route ends
// in the support crossover (the subgame gathered from the ranks).
func Runs() []Run {
	var runs []Run
	for _, m := range solver.MethodNames() {
		runs = append(runs, Run{m, 1e-3})
	}
	return append(runs, Run{"auto", 1e-9})
}

// RowsOf returns rows [lo, hi) of the row-major a as a tensor of their own.
func RowsOf(a *tensor.Dense, lo, hi int) *tensor.Dense {
	n := a.Shape()[1]
	if a.Dtype() == tensor.Float32 {
		return tensor.New(tensor.WithShape(hi-lo, n), tensor.WithBacking(slices.Clone(a.Float32s()[lo*n:hi*n])))
	}
	return tensor.New(tensor.WithShape(hi-lo, n), tensor.WithBacking(slices.Clone(a.Float64s()[lo*n:hi*n])))
}

// Whole solves a in one process on one thread.
func Whole(tb testing.TB, a *tensor.Dense, r Run) *solver.Result {
	tb.Helper()
	g, done, err := PlaceWhole(a)
	if err != nil {
		tb.Fatal(err)
	}
	defer done()
	res, err := Solve(g, r)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// PlaceWhole places all of a on a one-thread CPU backend, the single
// process a sharded solve is checked against; done frees both.
func PlaceWhole(a *tensor.Dense) (g *solver.MatrixGame, done func(), err error) {
	if g, err = solver.NewMatrixGame(a); err != nil {
		return nil, nil, err
	}
	cpu := tensorops.NewCPU(1)
	if err := g.Place(cpu); err != nil {
		cpu.Close()
		return nil, nil, err
	}
	return g, func() { g.Close(); cpu.Close() }, nil
}

// Rank solves a as rank c.Rank() of c's group, holding only its block of
// rows of a, on one thread. Every rank of the group calls it alike.
func Rank(c shard.Comm, a *tensor.Dense, r Run) (*solver.Result, error) {
	g, done, err := Place(c, a)
	if err != nil {
		return nil, err
	}
	defer done()
	return Solve(g, r)
}

// Place places rank c.Rank()'s block of rows of a on a one-thread CPU
// backend, sharded over c's group; done frees the game and the backend.
// Every rank of the group calls it alike.
func Place(c shard.Comm, a *tensor.Dense) (g *solver.MatrixGame, done func(), err error) {
	return place(c, a, nil)
}

// PlaceOn is Place with the block and the vectors held by dev (a device's
// backend: the passes staged through host buffers). The caller closes dev
// after done.
func PlaceOn(c shard.Comm, a *tensor.Dense, dev tensorops.Backend) (g *solver.MatrixGame, done func(), err error) {
	return place(c, a, dev)
}

func place(c shard.Comm, a *tensor.Dense, dev tensorops.Backend) (g *solver.MatrixGame, done func(), err error) {
	cpu := tensorops.NewCPU(1)
	local := tensorops.Backend(cpu)
	if dev != nil {
		local = dev
	}
	be := shard.New(local, c, a.Shape()[0])
	lo, hi, _ := be.Rows()
	if g, err = solver.NewShardedMatrixGame(RowsOf(a, lo, hi), be); err != nil {
		cpu.Close()
		return nil, nil, err
	}
	return g, func() { g.Close(); cpu.Close() }, nil
}

// Solve solves g by r's method and settings.
func Solve(g *solver.MatrixGame, r Run) (*solver.Result, error) {
	m, err := solver.NewMethod(r.Method)
	if err != nil {
		return nil, err
	}
	return solver.Solve(context.Background(), g, r.Settings(), m)
}

// Digest is a result's numbers that must agree bit for bit between ranks
// and runs: the gap, the bracket, the status, the iterations and the point.
func Digest(r *solver.Result) []float64 {
	d := []float64{r.Gap, r.ValueLower, r.ValueUpper, float64(r.Status), float64(r.Iterations)}
	return append(d, r.X...)
}

// Same reports whether two digests are the same bits.
func Same(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// Matches checks a sharded solve's result got against the single
// process's want: certified, the same status and route, the relative gap
// within 1e-12 (the gaps, relative to max |A_ij|, differ by at most that),
// the iterations within 1%.
func Matches(got, want *solver.Result) error {
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
