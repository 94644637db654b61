package shard_test

import (
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
)

// solveGroup solves a over size in-process ranks, each on its CPU, and
// returns every rank's result.
func solveGroup(t *testing.T, a *tensor.Dense, size int, r shardtest.Run) []*solver.Result {
	t.Helper()
	res, errs := solveStaged(t, a, size, r, nil)
	for k, err := range errs {
		if err != nil {
			t.Fatalf("%v on %d ranks, rank %d: %v", r, size, k, err)
		}
	}
	return res
}

// TestEveryMethodSharded solves a game whose rows do not split evenly with
// every method on 2 and 3 ranks: every rank returns the same result, bit
// for bit, and so does a second run; it matches the single process's
// (shardtest.Matches).
func TestEveryMethodSharded(t *testing.T) {
	a := shardtest.Game(t)
	for _, r := range shardtest.Runs() {
		t.Run(r.String(), func(t *testing.T) {
			t.Parallel()
			want := shardtest.Whole(t, a, r)
			if r.Gap < 1e-6 && !strings.HasSuffix(want.Route, "polish") {
				t.Fatalf("route %q does not reach the crossover", want.Route)
			}
			for _, size := range []int{2, 3} {
				first := solveGroup(t, a, size, r)
				again := solveGroup(t, a, size, r)
				d0 := shardtest.Digest(first[0])
				for k := range size {
					if !shardtest.Same(shardtest.Digest(first[k]), d0) || !shardtest.Same(shardtest.Digest(again[k]), d0) {
						t.Errorf("%d ranks: rank %d's result differs from rank 0's or from the first run's", size, k)
					}
				}
				got := first[0]
				t.Logf("%d ranks: %v after %d iterations, route %q, relative gap %.17g (one process: %v, %d, %.17g)", size, got.Status, got.Iterations, got.Route, got.RelGap, want.Status, want.Iterations, want.RelGap)
				if err := shardtest.Matches(got, want); err != nil {
					t.Errorf("%d ranks against one process: %v", size, err)
				}
			}
		})
	}
}
