package solver

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDropDebris: the entries dropped are the smallest, at most the budget
// in all, as many as fit (no further entry fits after them, ties alike),
// and what remains sums to 1.
func TestDropDebris(t *testing.T) {
	const b = 1e-15
	cases := []struct {
		name string
		x    []float64
		want []bool // kept
	}{
		{"nothing below", []float64{0.5, 0.5}, []bool{true, true}},
		{"zeros stay", []float64{0, 1, 0}, []bool{false, true, false}},
		{"all small fit", []float64{1e-17, 0.6, 3e-16, 0.4, 0}, []bool{false, true, false, true, false}},
		{"the smallest that fit", []float64{4e-16, 0.5, 3e-16, 5e-16, 0.5, 2e-16}, []bool{false, true, false, true, true, false}},
		{"ties all or none", []float64{4e-16, 4e-16, 4e-16, 1 - 1.2e-15}, []bool{true, true, true, true}},
		{"ties that fit", []float64{3e-16, 3e-16, 3e-16, 1 - 9e-16}, []bool{false, false, false, true}},
		{"one above the budget", []float64{2e-15, 1 - 2e-15}, []bool{true, true}},
	}
	for _, tc := range cases {
		x := append([]float64(nil), tc.x...)
		dropped := dropDebris(x, b)
		any := false
		for i, v := range x {
			if (v > 0) != tc.want[i] {
				t.Errorf("%s: entry %d is %g, from %g", tc.name, i, v, tc.x[i])
			}
			any = any || tc.x[i] > 0 && v == 0
		}
		if dropped != any {
			t.Errorf("%s: reported %v, dropped %v", tc.name, dropped, any)
		}
	}
}

// TestDropDebrisRandom checks the same properties on seeded strategies
// whose entries spread over 1e-20 to 1.
func TestDropDebrisRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 500 {
		n := 1 + rng.IntN(300)
		x := make([]float64, n)
		var sum float64
		for i := range x {
			if rng.IntN(8) > 0 {
				x[i] = math.Pow(10, -20*rng.Float64())
			}
			sum += x[i]
		}
		if sum == 0 {
			continue
		}
		for i := range x {
			x[i] /= sum
		}
		orig := append([]float64(nil), x...)
		budget := debrisBudget(n) * float64(1+rng.IntN(1000))
		dropDebris(x, budget)
		var gone, total float64
		smallestKept := math.Inf(1)
		for i, v := range x {
			total += v
			switch {
			case v < 0:
				t.Fatalf("trial %d: negative entry %g", trial, v)
			case orig[i] > 0 && v == 0:
				gone += orig[i]
			case v > 0:
				smallestKept = min(smallestKept, orig[i])
			}
		}
		if gone > budget {
			t.Errorf("trial %d: dropped %g, budget %g", trial, gone, budget)
		}
		// Every entry at or below the smallest kept one, dropped or not,
		// would overrun the budget.
		var upTo float64
		for i, v := range orig {
			if v > 0 && v <= smallestKept {
				upTo += orig[i]
				if x[i] == 0 && v == smallestKept {
					t.Errorf("trial %d: a tie of the smallest kept entry was dropped", trial)
				}
			}
		}
		if !math.IsInf(smallestKept, 1) && upTo <= budget {
			t.Errorf("trial %d: the entries up to %g total %g, within the budget %g, and were kept", trial, smallestKept, upTo, budget)
		}
		if math.Abs(total-1) > 4*float64(n)*0x1p-53 {
			t.Errorf("trial %d: sum 1%+g", trial, total-1)
		}
	}
}

// TestTidyTest: a tidied certificate is refused when it is worse beyond the
// tolerance, or misses a target the original met.
func TestTidyTest(t *testing.T) {
	c0 := certificate{gap: 1e-4}
	for _, tc := range []struct {
		gap, tol, limit float64
		want            bool
	}{
		{1e-4, 0, math.Inf(-1), true},
		{0.9e-4, 0, math.Inf(-1), true},
		{1e-4 + 1e-12, 1e-12, math.Inf(-1), true},
		{1e-4 + 2e-12, 1e-12, math.Inf(-1), false},
		{1e-4 + 1e-13, 1e-12, 1e-4, false},  // the original met 1e-4
		{1e-4 + 1e-13, 1e-12, 0.5e-4, true}, // it did not
	} {
		if got := (tidyTest{c0: c0, tol: tc.tol, limit: tc.limit}).accept(certificate{gap: tc.gap}); got != tc.want {
			t.Errorf("gap %g, tol %g, limit %g: accept %v", tc.gap, tc.tol, tc.limit, got)
		}
	}
}
