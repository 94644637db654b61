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

// SetWarmTuning sets the warm-start constants (the entropic start's and
// restart's uniform weights, RM+'s and PRM+'s seeding fractions) for the
// tuning sweep, and returns a function that restores them.
func SetWarmTuning(start, restart float64, fraction [2]float64) (restore func()) {
	s, r, f := startMix, restartMix, warmFraction
	startMix, restartMix, warmFraction = start, restart, fraction
	return func() { startMix, restartMix, warmFraction = s, r, f }
}

// WarmTuning returns the warm-start constants SetWarmTuning sets.
func WarmTuning() (start, restart float64, fraction [2]float64) {
	return startMix, restartMix, warmFraction
}

// FitSlope is the least-squares slope of ys against xs: the rate tests fit
// log gap against log T with it. It is exported for the external tests.
func FitSlope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i] / float64(len(xs))
		my += ys[i] / float64(len(xs))
	}
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx
}
