//go:build cuda

package shard_test

import (
	"fmt"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// TestCUDAStaged solves over 2 and 3 in-process ranks, each rank's block
// on a CUDA device of its own (a context per rank, as one process per GPU
// has), and matches one process holding the whole game on one device
// (shardtest.Matches: the same status and route, the relative gap within
// 1e-12, the iterations within 1%); every rank holds the same bits. CI runs
// it on the fake driver, whose kernels are gpump.cu run by a CPU emulator,
// so the game is small: 61 rows split unevenly over both counts.
func TestCUDAStaged(t *testing.T) {
	probe, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	probe.Close()
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		a, err := datasets.Uniform(dt, 61, 47, -1, 1, 11)
		if err != nil {
			t.Fatal(err)
		}
		runs := []shardtest.Run{{Method: "rm+", Gap: 1e-3}, {Method: "auto", Gap: 1e-9}}
		if dt == tensor.Float64 { // a mirror-prox rule too, to a loose target (the emulator is slow)
			runs = append(runs, shardtest.Run{Method: "ga-smooth", Gap: 1e-2})
		}
		for _, r := range runs {
			t.Run(fmt.Sprintf("%v/%v", dt, r), func(t *testing.T) {
				want := wholeOnCUDA(t, a, r)
				for _, size := range []int{2, 3} {
					got, errs := solveStaged(t, a, size, r, func(int) tensorops.Backend {
						d, err := tensorops.NewCUDA(0)
						if err != nil {
							t.Error(err)
							return &device{Backend: tensorops.NewCPU(1)}
						}
						return d
					})
					for k, err := range errs {
						if err != nil {
							t.Fatalf("%d ranks, rank %d: %v", size, k, err)
						}
						if !shardtest.Same(shardtest.Digest(got[k]), shardtest.Digest(got[0])) {
							t.Errorf("%d ranks: rank %d's result differs from rank 0's", size, k)
						}
					}
					t.Logf("%d ranks: %v after %d iterations, route %q, relative gap %.17g (one device: %v, %d, %.17g)",
						size, got[0].Status, got[0].Iterations, got[0].Route, got[0].RelGap, want.Status, want.Iterations, want.RelGap)
					if err := shardtest.Matches(got[0], want); err != nil {
						t.Errorf("%d ranks against one device: %v", size, err)
					}
				}
			})
		}
	}
}

// wholeOnCUDA solves all of a on one device.
func wholeOnCUDA(t *testing.T, a *tensor.Dense, r shardtest.Run) *solver.Result {
	t.Helper()
	d, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Place(d); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := shardtest.Solve(g, r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
