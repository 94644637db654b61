package polish

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// repeated returns the k×l game a with rows and columns repeated at random
// places: row t of the result is a's row rowOf[t] (every row of a at least
// once, the first copies in a's order), likewise for columns. Zero entries
// of the copies are written as −0 where a has +0, which are equal payoffs.
func repeated(a []float64, k, l, extraRows, extraCols int, r *rand.Rand) (b []float64, rowOf, colOf []int) {
	spread := func(n, extra int) []int {
		of := make([]int, 0, n+extra)
		for i := range n {
			of = append(of, i)
		}
		for range extra {
			of = append(of, r.IntN(n))
		}
		r.Shuffle(len(of), func(i, j int) { of[i], of[j] = of[j], of[i] })
		// Relabel so that the first copies come in a's order.
		label := make([]int, n)
		for i := range label {
			label[i] = -1
		}
		next := 0
		for t, i := range of {
			if label[i] < 0 {
				label[i] = next
				next++
			}
			of[t] = label[i]
		}
		return of
	}
	rowOf, colOf = spread(k, extraRows), spread(l, extraCols)
	kk, ll := len(rowOf), len(colOf)
	b = make([]float64, kk*ll)
	for t, i := range rowOf {
		for u, j := range colOf {
			v := a[i*l+j]
			if v == 0 && (t+u)%2 == 1 {
				v = math.Copysign(0, -1)
			}
			b[t*ll+u] = v
		}
	}
	return b, rowOf, colOf
}

// TestSubgameTwins solves games with repeated rows and columns, copied
// (transposed when tall, scaled when tiny) and in place, from no guess and
// from a first-order point spread over the copies: each is solved as the
// game of its first copies (the twin search finds them all), exactly, to
// that game's value, with no weight on a later copy.
func TestSubgameTwins(t *testing.T) {
	cases := []struct {
		name string
		a    []float64
		k, l int
	}{
		{"gaussian", gaussianGame(30, 20, 71), 30, 20},
		{"low rank", lowRankGame(40, 25, 2, 0.05, 72), 40, 25},
		{"tall uniform", uniformGame(60, 24, 73), 60, 24},
		{"tiny scale", scaled(gaussianGame(25, 25, 74), 1e-9), 25, 25},
		{"ternary", ternary(20, 30, 75), 20, 30},
	}
	for seed := uint64(1); seed <= 2; seed++ {
		for _, c := range cases {
			r := rand.New(rand.NewPCG(seed, 76))
			var base Subgame
			bx, by := make([]float64, c.k), make([]float64, c.l)
			bres, err := base.Solve(bx, by, c.a, c.k, c.l)
			if err != nil {
				t.Fatalf("%s: the game itself: %v", c.name, err)
			}
			b, rowOf, colOf := repeated(c.a, c.k, c.l, c.k/2+r.IntN(c.k), c.l/3+r.IntN(c.l), r)
			kk, ll := len(rowOf), len(colOf)
			p, q := rmPlus(b, kk, ll, 200)
			for _, from := range []string{"no guess", "rm+"} {
				for _, how := range []string{"copied", "in place"} {
					x, y := make([]float64, kk), make([]float64, ll)
					if from == "rm+" {
						copy(x, p)
						copy(y, q)
					}
					var s Subgame
					var res SubgameResult
					if how == "copied" {
						res, err = s.Solve(x, y, b, kk, ll)
					} else {
						lent, rows, cols := embed(b, kk, ll, r)
						res, err = s.SolveIn(x, y, lent, rows, cols)
					}
					name := c.name + ", " + from + ", " + how
					if err != nil {
						t.Fatalf("%s (seed %d): %v", name, seed, err)
					}
					scale := 0.0
					for _, v := range b {
						scale = math.Max(scale, math.Abs(v))
					}
					checkSubgame(t, b, kk, ll, x, y, bres.Value, 1e-13, 1e-12*scale)
					if got := [2]int{len(s.w.tw.keepR), len(s.w.tw.keepC)}; got != [2]int{c.k, c.l} && got != [2]int{c.l, c.k} {
						t.Errorf("%s (seed %d): solved as %d×%d, the game without copies is %d×%d", name, seed, got[0], got[1], c.k, c.l)
					}
					firsts := func(s []float64, of []int) {
						seen := make([]bool, len(of))
						for u, i := range of {
							if seen[i] && s[u] != 0 {
								t.Errorf("%s (seed %d): weight %g on a later copy (%d of %d)", name, seed, s[u], u, i)
							}
							seen[i] = true
						}
					}
					firsts(x, rowOf)
					firsts(y, colOf)
					if math.Abs(res.Value-bres.Value) > 1e-12*scale {
						t.Errorf("%s (seed %d): value %.17g, the game without copies %.17g", name, seed, res.Value, bres.Value)
					}
				}
			}
		}
	}
}

// TestTwinGroup groups indices whose hashes all collide: only equal ones
// (by same) may share a first copy, and every first copy comes first.
func TestTwinGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 77))
	for trial := range 50 {
		n := 1 + r.IntN(40)
		label := make([]int, n)
		h := make([]uint64, n)
		for i := range label {
			label[i] = r.IntN(1 + r.IntN(8))
			h[i] = uint64(r.IntN(2)) // collisions everywhere
		}
		var tw twinWork
		red, keep := tw.group(h, nil, nil, func(i, j int) bool { return label[i] == label[j] && h[i] == h[j] })
		if !slices.IsSorted(keep) {
			t.Fatalf("trial %d: first copies %v out of order", trial, keep)
		}
		for i := range n {
			f := keep[red[i]]
			if label[f] != label[i] || h[f] != h[i] || f > i {
				t.Fatalf("trial %d: %d (label %d) grouped with %d (label %d)", trial, i, label[i], f, label[f])
			}
			for j := range i {
				if label[j] == label[i] && h[j] == h[i] && red[j] != red[i] {
					t.Fatalf("trial %d: equal %d and %d apart", trial, j, i)
				}
			}
		}
	}
}

// TestFold folds guesses whose sums would overflow: the weights keep
// their proportions (a sum of +Inf would count as no weight at all).
func TestFold(t *testing.T) {
	big := math.MaxFloat64
	for _, c := range []struct {
		g    []float64
		red  []int
		want []float64 // proportions
	}{
		{[]float64{big, big, big / 2}, []int{0, 0, 1}, []float64{4, 1}},
		{[]float64{1, math.Inf(1), math.NaN(), -1, 3}, []int{0, 1, 1, 0, 1}, []float64{1, 3}},
		{[]float64{0, 0}, []int{0, 0}, []float64{0}},
	} {
		dst := make([]float64, len(c.want))
		fold(dst, c.g, c.red)
		var sd, sw float64
		for i := range dst {
			sd += dst[i]
			sw += c.want[i]
		}
		for i := range dst {
			if math.IsNaN(dst[i]) || math.IsInf(dst[i], 0) || sw > 0 && math.Abs(dst[i]/sd-c.want[i]/sw) > 1e-15 || sw == 0 && dst[i] != 0 {
				t.Errorf("fold(%v, %v) = %v, want proportions %v", c.g, c.red, dst, c.want)
				break
			}
		}
	}
}
