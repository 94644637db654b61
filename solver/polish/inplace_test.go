package polish

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// embed places the k×l game a at rows and cols of a larger lent matrix
// with a stride wider than its rows and a scale, its other entries
// random: SolveIn must read exactly a.
func embed(a []float64, k, l int, r *rand.Rand) (Matrix, []int, []int) {
	m, n := k+1+r.IntN(5), l+1+r.IntN(5)
	stride := n + r.IntN(3)
	scale := 0.5
	data := make([]float64, (m-1)*stride+n)
	for i := range data {
		data[i] = 1e6 * r.NormFloat64() // wrong entries, loud if read
	}
	rows, cols := r.Perm(m)[:k], r.Perm(n)[:l]
	for t, i := range rows {
		for u, j := range cols {
			data[i*stride+j] = a[t*l+u] / scale
		}
	}
	return Matrix{Data: data, N: n, Stride: stride, Scale: scale}, rows, cols
}

// TestSubgameInPlace solves random and degenerate subgames read in place
// from a larger matrix, through unsorted row and column indices.
func TestSubgameInPlace(t *testing.T) {
	var s, d Subgame
	r := rand.New(rand.NewPCG(8, 8))
	for trial := range 60 {
		a, k, l := randomSubgame(r, trial)
		lent, rows, cols := embed(a, k, l, r)
		x, y := make([]float64, k), make([]float64, l)
		res, err := s.SolveIn(x, y, lent, rows, cols)
		if err != nil {
			t.Fatalf("trial %d (%d×%d): %v", trial, k, l, err)
		}
		checkSubgame(t, a, k, l, x, y, lpValue(t, a, k, l), 1e-13, 1e-9*math.Max(1, math.Abs(a[0])*100))
		dx, dy := make([]float64, k), make([]float64, l)
		dres, err := d.Solve(dx, dy, a, k, l)
		if err != nil {
			t.Fatal(err)
		}
		if tol := 1e-12 * math.Max(1, math.Abs(dres.Value)); math.Abs(res.Value-dres.Value) > tol {
			t.Errorf("trial %d: value %.17g in place, %.17g from the copy", trial, res.Value, dres.Value)
		}
	}
	// Bad lent matrices are refused, not read out of bounds.
	lent := Matrix{Data: make([]float64, 6), N: 3, Stride: 3, Scale: 1}
	for _, c := range []struct{ rows, cols []int }{{[]int{2}, []int{0}}, {[]int{0}, []int{3}}, {[]int{-1}, []int{0}}, {nil, []int{0}}, {[]int{1 << 62}, []int{0}}, {[]int{0}, []int{-1 << 62}}} {
		if _, err := s.SolveIn(make([]float64, len(c.rows)), make([]float64, len(c.cols)), lent, c.rows, c.cols); err == nil {
			t.Errorf("rows %v, cols %v of a 2×3 matrix: no error", c.rows, c.cols)
		}
	}
}

// copied hides Dense's Lend, so Polish copies every subgame.
type copied struct{ *Dense }

func (c copied) Lend() {}

// TestPolishInPlace polishes the same games with every subgame lent and
// with every subgame copied: both certify the target, and lending does not
// allocate the copies.
func TestPolishInPlace(t *testing.T) {
	defer func(m, s int) { lendMin, lendShare = m, s }(lendMin, lendShare)
	lendMin, lendShare = 0, 1<<30
	// A copied subgame with more rows than columns would be solved
	// transposed, with another LP and other allocations than lent.
	defer func(t bool) { transposeTall = t }(transposeTall)
	transposeTall = false
	for _, c := range []struct {
		name string
		gen  func(m, n int, seed uint64) []float64
	}{{"uniform", uniformGame}, {"gaussian", gaussianGame}, {"rank-1 plus noise", rank1Game}, {"cyclic", cyclicGame}} {
		t.Run(c.name, func(t *testing.T) {
			const m, n = 300, 260
			a := c.gen(m, n, 6)
			p, q := rmPlus(a, m, n, 100)
			var brackets [2][2]float64
			var bytes [2]uint64
			for v, g := range []Game{&Dense{M: m, N: n, A: a}, copied{&Dense{M: m, N: n, A: a}}} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				res, err := Polish(context.Background(), g, p, q, &Options{RelGap: 1e-12})
				runtime.ReadMemStats(&after)
				if err != nil || res.Status != Converged {
					t.Fatalf("variant %d: %v, %v", v, res.Status, err)
				}
				lo, hi := gameGap(a, m, n, res.P, res.Q)
				if hi-lo > 1e-12*g.(interface{ MaxAbs() float64 }).MaxAbs() || lo != res.Lower || hi != res.Upper {
					t.Errorf("variant %d: recomputed bracket [%.17g, %.17g], reported [%.17g, %.17g]", v, lo, hi, res.Lower, res.Upper)
				}
				brackets[v] = [2]float64{lo, hi}
				bytes[v] = after.TotalAlloc - before.TotalAlloc
				if v == 1 {
					// The copies the lent solve did without.
					copies := 0
					for _, sz := range res.Stats.Sizes {
						copies += 8 * sz[0] * sz[1]
					}
					if bytes[0]+uint64(copies)/2 > bytes[1] {
						t.Errorf("allocated %d bytes lent, %d copied, whose copies alone take %d", bytes[0], bytes[1], copies)
					}
				}
			}
			if brackets[0][0] > brackets[1][1]+1e-12 || brackets[1][0] > brackets[0][1]+1e-12 {
				t.Errorf("brackets %v (lent) and %v (copied) are disjoint", brackets[0], brackets[1])
			}
		})
	}
}

// TestSubgameInPlaceRepeated reads subgames through index lists that
// repeat rows and columns, which Solve's dense B allows (as duplicated
// rows and columns): the in-place products must add a repeated column's
// weights, not keep the last.
func TestSubgameInPlaceRepeated(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 40 {
		m, n := 1+r.IntN(4), 1+r.IntN(4)
		src := Matrix{Data: make([]float64, m*n), N: n, Stride: n, Scale: 2}
		for i := range src.Data {
			src.Data[i] = float64(r.IntN(5)) - 2
		}
		k, l := 1+r.IntN(6), 2+r.IntN(6)
		rows, cols := make([]int, k), make([]int, l)
		for t := range rows {
			rows[t] = r.IntN(m)
		}
		for t := range cols {
			cols[t] = r.IntN(n)
		}
		cols[l-1] = cols[0] // at least one repeat
		a := make([]float64, k*l)
		for t, i := range rows {
			for u, j := range cols {
				a[t*l+u] = src.Scale * src.Data[i*n+j]
			}
		}
		var s Subgame
		x, y := make([]float64, k), make([]float64, l)
		if _, err := s.SolveIn(x, y, src, rows, cols); err != nil {
			t.Fatalf("trial %d: rows %v, cols %v: %v", trial, rows, cols, err)
		}
		checkSubgame(t, a, k, l, x, y, lpValue(t, a, k, l), 1e-13, 1e-9)
	}
}
