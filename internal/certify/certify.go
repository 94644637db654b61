// Package certify recomputes the value bracket of a pair of mixed
// strategies of a matrix game with a rigorous bound on its own rounding,
// and decides exactly, where float64 cannot, whether a claimed duality gap
// holds.
//
// For the m×n payoff matrix A (the row player maximizes pᵀAq) and
// nonnegative vectors p, q with positive sums, the strategies are p̂ =
// p/Σp and q̂ = q/Σq, exactly, and
//
//	lower = min_j (Aᵀp̂)_j  ≤  v*  ≤  upper = max_i (A q̂)_i,
//
// whose difference is the pair's duality gap. Bracket encloses lower,
// upper and the gap in float64 intervals that contain the exact real
// numbers: each product of A with a strategy is summed by the compensated
// dot product Dot2 (Ogita, Rump and Oishi, "Accurate sum and dot
// product", 2005: TwoProduct by fused multiply-add, TwoSum), whose result
// r satisfies
//
//	|r − xᵀy| ≤ u|xᵀy| + γ_n² |x|ᵀ|y|,   u = 2⁻⁵³, γ_n = nu/(1 − nu),
//
// so that the bound, u|r|/(1−u) + γ_n²·S/(1−γ_n)/(1−u) with S = Σ|x_k|y_k
// computed in float64, is known from the computed quantities; it is then
// widened by 2⁻⁴⁹ of itself for the rounding of its own evaluation, and
// by 2n times float64's smallest subnormal for products that underflow.
// Sums of strategies use the same bound. Divisions and subtractions of
// intervals round outward (one ulp each way).
//
// Decide compares the gap with a claim: it holds when the interval's
// upper end is at most the claim, fails when its lower end exceeds it,
// and otherwise (both within the bound, as near machine precision) the
// rows and columns that can attain the maximum and the minimum are summed
// again exactly (math/big, with enough bits that no sum rounds) and the
// comparison is made in rational arithmetic.
package certify

import (
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Matrix is the payoff matrix as certify reads it: its size and its rows,
// each of n float64 entries (a float32 matrix's entries convert exactly).
type Matrix interface {
	Dims() (m, n int)
	Row(i int) []float64
}

// Dense is a row-major Matrix.
type Dense struct {
	M, N int
	Data []float64
}

// Dims implements Matrix.
func (d *Dense) Dims() (int, int) { return d.M, d.N }

// Row implements Matrix.
func (d *Dense) Row(i int) []float64 { return d.Data[i*d.N : (i+1)*d.N] }

// Interval is a closed interval [Lo, Hi] of reals.
type Interval struct{ Lo, Hi float64 }

// Bracket encloses the exact bracket of a pair (see the package comment).
type Bracket struct {
	Lower Interval // encloses min_j (Aᵀp̂)_j
	Upper Interval // encloses max_i (A q̂)_i
	Gap   Interval // encloses upper − lower
	// MaxAbs is max |A_ij|, exact.
	MaxAbs float64

	a    Matrix
	p, q []float64
	// The intervals of each row's (A q)_i and column's (Aᵀp)_j, not
	// normalized, and of the sums of p and q.
	rows, cols []Interval
	sp, sq     Interval
}

const (
	u   = 0x1p-53
	eta = 0x1p-1074 // float64's smallest subnormal
)

// Check computes the Bracket of the pair (p, q) of a. It fails on a size
// mismatch, a negative or non-finite strategy entry, a strategy summing
// to zero, a non-finite entry of a, and sums that overflow.
func Check(a Matrix, p, q []float64) (*Bracket, error) {
	m, n := a.Dims()
	if m < 1 || n < 1 {
		return nil, fmt.Errorf("certify: game of %d×%d", m, n)
	}
	if len(p) != m || len(q) != n {
		return nil, fmt.Errorf("certify: strategies of length %d and %d for a %d×%d game", len(p), len(q), m, n)
	}
	for k, x := range [2][]float64{p, q} {
		for i, v := range x {
			if !(v >= 0) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("certify: %s strategy entry %d is %v: want a finite number ≥ 0", [2]string{"row", "column"}[k], i, v)
			}
		}
	}
	b := &Bracket{a: a, p: p, q: q, rows: make([]Interval, m), cols: make([]Interval, n)}
	var err error
	if b.sp, err = sumInterval(p); err != nil {
		return nil, fmt.Errorf("certify: row strategy: %w", err)
	}
	if b.sq, err = sumInterval(q); err != nil {
		return nil, fmt.Errorf("certify: column strategy: %w", err)
	}
	// Rows: Dot2 of each row with q; columns: Dot2 of each column with
	// p, accumulated row by row.
	cs, cc, cabs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range m {
		row := a.Row(i)
		var s, c, abs float64
		pi := p[i]
		for j, aij := range row {
			if math.IsNaN(aij) || math.IsInf(aij, 0) {
				return nil, fmt.Errorf("certify: entry (%d, %d) of A is %v", i, j, aij)
			}
			b.MaxAbs = max(b.MaxAbs, math.Abs(aij))
			x, e := twoProduct(aij, q[j])
			var f float64
			s, f = twoSum(s, x)
			c += f + e
			abs += float64(math.Abs(aij) * q[j]) // rounded apart, as the bound assumes
			x, e = twoProduct(aij, pi)
			cs[j], f = twoSum(cs[j], x)
			cc[j] += f + e
			cabs[j] += float64(math.Abs(aij) * pi)
		}
		if b.rows[i], err = dotInterval(s+c, abs, n); err != nil {
			return nil, fmt.Errorf("certify: row %d: %w", i, err)
		}
	}
	for j := range n {
		if b.cols[j], err = dotInterval(cs[j]+cc[j], cabs[j], m); err != nil {
			return nil, fmt.Errorf("certify: column %d: %w", j, err)
		}
	}
	up := Interval{math.Inf(-1), math.Inf(-1)}
	for _, r := range b.rows {
		up.Lo, up.Hi = max(up.Lo, r.Lo), max(up.Hi, r.Hi)
	}
	lo := Interval{math.Inf(1), math.Inf(1)}
	for _, c := range b.cols {
		lo.Lo, lo.Hi = min(lo.Lo, c.Lo), min(lo.Hi, c.Hi)
	}
	b.Upper, b.Lower = div(up, b.sq), div(lo, b.sp)
	b.Gap = Interval{down(b.Upper.Lo - b.Lower.Hi), up1(b.Upper.Hi - b.Lower.Lo)}
	if b.Gap.Lo < 0 {
		// The exact gap is never negative.
		b.Gap.Lo = 0
	}
	return b, nil
}

// twoProduct returns x = fl(a·b) and its error e = a·b − x, exact unless
// the product underflows (then |e| ≤ η, counted in dotInterval). The
// explicit conversion rounds x: without it the compiler may fuse a·b into
// the sum that x enters once twoProduct is inlined (it does on arm64),
// and the error terms would no longer be those of the rounded product.
func twoProduct(a, b float64) (x, e float64) {
	x = float64(a * b)
	return x, math.FMA(a, b, -x)
}

// twoSum returns t = fl(s + x) and its error e = s + x − t, exactly
// (Knuth's TwoSum, exact also where it underflows).
func twoSum(s, x float64) (t, e float64) {
	t = s + x
	z := t - s
	return t, (s - (t - z)) + (x - z)
}

// gamma returns γ_n = nu/(1 − nu).
func gamma(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }

// FloatGapBound bounds how far a gap computed in plain float64 for a pair
// of an m×n game of entries up to maxAbs, max_i (Aq)_i − min_j (Aᵀp)_j
// with p and q normalized in float64, can lie from the normalized pair's
// exact gap: each product is a sum of n (or m) terms, off by at most
// γ_n·maxAbs in any order of summation, and a strategy that sums to 1
// only within γ_n moves it by as much again: 2(γ_m + γ_n)·maxAbs, rounded
// up.
func FloatGapBound(m, n int, maxAbs float64) float64 {
	return 2 * (gamma(m) + gamma(n)) * maxAbs * (1 + 4*u)
}

// dotInterval encloses the exact dot product whose Dot2 result is r, with
// abs = fl(Σ|x_k|y_k) over n terms (see the package comment).
func dotInterval(r, abs float64, n int) (Interval, error) {
	if math.IsInf(r, 0) || math.IsNaN(r) || math.IsInf(abs, 0) {
		return Interval{}, errors.New("sum overflows float64")
	}
	g := gamma(n)
	bound := (u*math.Abs(r) + g*g*abs/(1-g)) / (1 - u)
	bound = bound*(1+0x1p-49) + 2*float64(n)*eta
	return Interval{down(r - bound), up1(r + bound)}, nil
}

// sumInterval encloses the exact sum of the nonnegative x (Sum2's bound,
// Dot2's with y = 1), which must be positive.
func sumInterval(x []float64) (Interval, error) {
	var s, c, abs float64
	for _, v := range x {
		var e float64
		s, e = twoSum(s, v)
		c += e
		abs += v
	}
	if s+c == 0 {
		return Interval{}, errors.New("sums to 0")
	}
	iv, err := dotInterval(s+c, abs, len(x))
	if err == nil && iv.Lo <= 0 {
		// Positive entries sum to at least the largest.
		var mx float64
		for _, v := range x {
			mx = max(mx, v)
		}
		iv.Lo = mx
	}
	return iv, err
}

// div encloses x/d for d > 0.
func div(x, d Interval) Interval {
	lo := min(x.Lo/d.Lo, x.Lo/d.Hi)
	hi := max(x.Hi/d.Lo, x.Hi/d.Hi)
	return Interval{down(lo), up1(hi)}
}

func down(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
func up1(x float64) float64  { return math.Nextafter(x, math.Inf(1)) }

// Verdict is Decide's answer.
type Verdict int

// The verdicts of Decide.
const (
	Holds Verdict = iota + 1 // the pair's exact gap is at most the claim
	Fails                    // the pair's exact gap exceeds the claim
)

func (v Verdict) String() string {
	switch v {
	case Holds:
		return "holds"
	case Fails:
		return "fails"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Decide says whether the pair's exact gap is at most claim (a finite
// number ≥ 0, taken exactly). exact reports whether the float64 intervals
// left it open and it was decided in rational arithmetic.
func (b *Bracket) Decide(claim float64) (v Verdict, exact bool, err error) {
	if !(claim >= 0) || math.IsInf(claim, 1) {
		return 0, false, fmt.Errorf("certify: claimed gap %v: want a finite number ≥ 0", claim)
	}
	return b.DecideRat(new(big.Rat).SetFloat64(claim))
}

// DecideRat is Decide for a rational claim, such as a relative gap times
// max |A_ij| taken exactly.
func (b *Bracket) DecideRat(claim *big.Rat) (v Verdict, exact bool, err error) {
	if claim.Sign() < 0 {
		return 0, false, fmt.Errorf("certify: claimed gap %s: want a number ≥ 0", claim.FloatString(20))
	}
	// The floats just below and above the claim.
	f, isExact := claim.Float64()
	lo, hi := f, f
	if !isExact {
		if new(big.Rat).SetFloat64(f).Cmp(claim) > 0 {
			lo = down(f)
		} else {
			hi = up1(f)
		}
	}
	switch {
	case b.Gap.Hi <= lo:
		return Holds, false, nil
	case b.Gap.Lo > hi:
		return Fails, false, nil
	}
	if b.ExactGap().Cmp(claim) <= 0 {
		return Holds, true, nil
	}
	return Fails, true, nil
}

// exactPrec is a precision at which sums of products of float64 numbers
// never round: products are multiples of 2⁻²¹⁴⁸ below 2²⁰⁴⁸, and sums of up
// to 2⁶⁴ of them span fewer than 4300 bits.
const exactPrec = 4400

// ExactGap returns the pair's exact gap, max_i (A q̂)_i − min_j (Aᵀp̂)_j,
// summing exactly the rows and columns whose intervals can attain the
// maximum and the minimum.
func (b *Bracket) ExactGap() *big.Rat {
	m, n := b.a.Dims()
	upLo, loHi := math.Inf(-1), math.Inf(1)
	for _, r := range b.rows {
		upLo = max(upLo, r.Lo)
	}
	for _, c := range b.cols {
		loHi = min(loHi, c.Hi)
	}
	var maxRow, minCol *big.Float
	acc, prod, x := newExact(), newExact(), newExact()
	for i := range m {
		if b.rows[i].Hi < upLo {
			continue
		}
		acc.SetInt64(0)
		for j, aij := range b.a.Row(i) {
			prod.SetFloat64(aij)
			acc.Add(acc, prod.Mul(prod, x.SetFloat64(b.q[j])))
		}
		if maxRow == nil {
			maxRow = newExact().Set(acc)
		} else if acc.Cmp(maxRow) > 0 {
			maxRow.Set(acc)
		}
	}
	cand := make([]int, 0, n)
	for j := range n {
		if b.cols[j].Lo <= loHi {
			cand = append(cand, j)
		}
	}
	sums := make([]*big.Float, len(cand))
	for k := range sums {
		sums[k] = newExact()
	}
	for i := range m {
		row := b.a.Row(i)
		x.SetFloat64(b.p[i])
		for k, j := range cand {
			prod.SetFloat64(row[j])
			sums[k].Add(sums[k], prod.Mul(prod, x))
		}
	}
	for _, s := range sums {
		if minCol == nil || s.Cmp(minCol) < 0 {
			minCol = s
		}
	}
	sp, sq := exactSum(b.p), exactSum(b.q)
	up, _ := maxRow.Rat(nil)
	lo, _ := minCol.Rat(nil)
	dq, _ := sq.Rat(nil)
	dp, _ := sp.Rat(nil)
	up.Quo(up, dq)
	lo.Quo(lo, dp)
	return up.Sub(up, lo)
}

func newExact() *big.Float { return new(big.Float).SetPrec(exactPrec) }

func exactSum(x []float64) *big.Float {
	s, t := newExact(), newExact()
	for _, v := range x {
		s.Add(s, t.SetFloat64(v))
	}
	return s
}
