package tensorops_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
	"github.com/gpump/gpump/tensorops/backendtest"
)

// TestCPUConformance runs the shared backend suite on the CPU backend with
// four workers, so that every kind of pass takes part whatever the machine
// (by rows, by columns for 5×20000 and 1×70001, column-blocked for
// 100×32800), and on the small shapes with one worker. Every result must
// pass, and the table must be complete: the same operations, in the same
// order, for every shape. The two storage types run in parallel.
func TestCPUConformance(t *testing.T) {
	small := [][2]int{{1, 1}, {1, 300}, {300, 1}, {7, 13}, {33, 65}, {257, 129}}
	for _, c := range []struct {
		threads int
		shapes  [][2]int
	}{{4, backendtest.DefaultShapes}, {1, small}} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			t.Run(fmt.Sprintf("threads=%d/%v", c.threads, dt), func(t *testing.T) {
				t.Parallel()
				cpu := tensorops.NewCPU(c.threads)
				defer cpu.Close()
				res, err := backendtest.Run(context.Background(), cpu, &backendtest.Options{Seed: 1, Shapes: c.shapes, Dtypes: []tensor.Dtype{dt}})
				if err != nil {
					t.Fatal(err)
				}
				checkResults(t, res, len(c.shapes))
			})
		}
	}
}

// checkResults fails t unless every result passes and the table holds the
// same operations, in the same order, for each of its shapes.
func checkResults(t *testing.T, res []backendtest.Result, shapes int) {
	t.Helper()
	if len(res) == 0 || len(res)%shapes != 0 {
		t.Fatalf("%d results for %d shapes", len(res), shapes)
	}
	per := len(res) / shapes
	for i, r := range res {
		if want := res[i%per].Op; r.Op != want {
			t.Fatalf("result %d is %q, want %q", i, r.Op, want)
		}
		if !r.Pass || math.IsNaN(r.MaxRelErr) {
			t.Errorf("%s %s %s: error %.3g > tolerance %.3g", r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
		}
	}
	for _, r := range backendtest.Worst(res) {
		t.Logf("%-20s worst %.3g (tol %.3g) at %s %s", r.Op, r.MaxRelErr, r.Tol, r.Shape, r.Dtype)
	}
}
