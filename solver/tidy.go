package solver

import (
	"fmt"
	"math"
)

// Returned strategies of a matrix game carry no rounding debris.
//
// A method's averaged strategies keep, besides their real support, entries
// that are rounding residue: 1e-17 on a 300×500 game, down to 1e-19 on
// larger ones, hundreds of them, so that a reader cannot tell the support.
// The policy: from each strategy, the smallest entries whose total is at
// most debrisBudget (n·2⁻⁵⁴ for a strategy of n entries) are set to 0 and
// the strategy is renormalized. Moving mass s within a strategy moves each
// payoff (Aᵀp)_j or (A q)_i by at most 2·s·max |A_ij|, so the removal changes
// the certified bounds by no more than the rounding bound n·2⁻⁵³·max |A_ij|
// of the sums that compute them. The pair that remains is then certified
// exactly as returned, by one more pass over A (counted in MatrixPasses and
// GapPasses); if that certificate is worse than the original one by more
// than rounding, or no longer meets a target the original met, the original
// pair and certificate are kept. Either way the returned certificate is that
// of exactly the returned strategies. Entries above the budget stay,
// however small: they are part of the strategy the certificate is about.

// tidier is an engine on a matrix game whose final pair can be rid of its
// rounding debris: tidy drops it from dst's strategies, certifies what
// remains and keeps that when test accepts it, else restores dst and the
// best point; it returns the certificate of the pair left in dst.
type tidier interface {
	tidy(dst *Result, c certificate, test tidyTest) (certificate, error)
}

// tidyTest accepts a tidied pair's certificate: no worse than the
// original's, c0, by more than tol, and meeting the target if c0 did
// (limit is the largest gap that meets it, −Inf for none); internal units.
type tidyTest struct {
	c0         certificate
	tol, limit float64
}

func (t tidyTest) accept(c1 certificate) bool {
	return c1.gap <= t.c0.gap+t.tol && (t.c0.gap > t.limit || c1.gap <= t.limit)
}

// debrisBudget is the mass the smallest entries of a strategy of n entries
// may have in all to be dropped as debris: moving it changes a certified
// payoff by at most n·2⁻⁵³ of max |A_ij|, the rounding bound of a sum of n
// products.
func debrisBudget(n int) float64 { return float64(n) * 0x1p-54 }

// tidyTolerance is how much worse than the original certificate, in units
// of max |A_ij|, the tidied pair's may be for an m×n game (dim = m + n):
// the bound (m + n)·2⁻⁵³ on what the removal changes, plus as much for the
// rounding of the two certificates compared.
func tidyTolerance(dim int) float64 { return 2 * float64(dim) * 0x1p-53 }

// dropDebris sets to 0 the smallest positive entries of the strategy x
// whose total is at most budget, renormalizes what remains to sum 1, and
// reports whether it dropped any. Entries equal to the largest one dropped
// are all dropped. It allocates nothing: the threshold is found by
// bisection on the bit patterns of positive floats, which order them.
func dropDebris(x []float64, budget float64) bool {
	below := func(t float64) (sum float64, k int) {
		for _, v := range x {
			if v > 0 && v <= t {
				sum += v
				k++
			}
		}
		return sum, k
	}
	sum, k := below(budget)
	if k == 0 {
		return false
	}
	t := budget
	if sum > budget {
		// The largest threshold whose entries below fit the budget: lo
		// always fits, hi never does.
		lo, hi := uint64(0), math.Float64bits(budget)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if s, _ := below(math.Float64frombits(mid)); s <= budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		t = math.Float64frombits(lo)
		if _, k = below(t); k == 0 {
			return false
		}
	}
	for i, v := range x {
		if v <= t {
			x[i] = 0
		}
	}
	normalize(x)
	return true
}

// dropPairDebris saves the strategies p and q in save (len(p)+len(q) of
// scratch) and drops their debris; it reports whether it dropped any.
func dropPairDebris(p, q, save []float64) bool {
	copy(save, p)
	copy(save[len(p):], q)
	dp := dropDebris(p, debrisBudget(len(p)))
	dq := dropDebris(q, debrisBudget(len(q)))
	return dp || dq
}

// restorePair copies back what dropPairDebris saved.
func restorePair(p, q, save []float64) {
	copy(p, save)
	copy(q, save[len(p):])
}

// tidy drops the debris of a matrix game's final pair in dst, certifies
// what remains with a pass and keeps it if test accepts, else restores the
// pair; the best point on the backend is the pair left in dst.
func (b *gameBase) tidy(dst *Result, c certificate, test tidyTest) (certificate, error) {
	if !b.pl.g.matrixGame() || !dropPairDebris(dst.Row, dst.Column, b.host) {
		return c, nil
	}
	if err := b.loadBest(dst); err != nil {
		return c, err
	}
	c1, err := b.certifyPass(b.best)
	if err != nil {
		return c, err
	}
	if test.accept(c1) {
		return c1, nil
	}
	restorePair(dst.Row, dst.Column, b.host)
	return c, b.loadBest(dst)
}

// loadBest loads dst's pair as the best point.
func (b *gameBase) loadBest(dst *Result) error {
	for k, x := range [2][]float64{dst.Row, dst.Column} {
		if err := b.be.Load(b.best[k], x); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	return nil
}

// positives counts the positive entries of x.
func positives(x []float64) int {
	k := 0
	for _, v := range x {
		if v > 0 {
			k++
		}
	}
	return k
}
