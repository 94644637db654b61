package solver

import (
	"math"
	"testing"
)

// MinAllocs returns the fewest heap allocations of one call of f over runs
// measured calls (each after a warm-up call). The whole-solve allocation
// tests compare it between a short and a long solve: the runtime itself now
// and then allocates while the CPU backend's workers block on their channels
// (a sudog when the caches are empty, seen even with GOGC=off), so a mean
// over runs can differ by a fraction between two identical workloads, while
// an allocation per iteration shows in every run. It is exported for the
// external tests.
func MinAllocs(runs int, f func()) float64 {
	best := math.Inf(1)
	for range runs {
		best = math.Min(best, testing.AllocsPerRun(1, f))
	}
	return best
}
