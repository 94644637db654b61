package polish

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkSubgame asserts that (x, y) are distributions whose gap on a is at
// most tol·max|a| and whose value bracket contains want within lpTol.
func checkSubgame(t *testing.T, a []float64, k, l int, x, y []float64, want, tol, lpTol float64) {
	t.Helper()
	scale := 0.0
	for _, v := range a {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, s := range [][]float64{x, y} {
		sum := 0.0
		for _, v := range s {
			if v < 0 || math.IsNaN(v) {
				t.Fatalf("strategy entry %v", v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Fatalf("strategy sums to %v", sum)
		}
	}
	lo, hi := gameGap(a, k, l, x, y)
	if hi-lo > tol*math.Max(scale, 1e-300) {
		t.Errorf("gap %.3g, want at most %.3g", hi-lo, tol*scale)
	}
	if want < lo-lpTol || want > hi+lpTol {
		t.Errorf("bracket [%.15g, %.15g] misses the LP value %.15g", lo, hi, want)
	}
}

func TestSubgameDegenerate(t *testing.T) {
	cases := []struct {
		name string
		k, l int
		a    []float64
	}{
		{"pure saddle", 3, 3, []float64{1, 2, 3, 4, 5, 6, 0, 1, 9}},
		{"rock-paper-scissors", 3, 3, []float64{0, -1, 1, 1, 0, -1, -1, 1, 0}},
		{"duplicated rows", 4, 3, []float64{0, -1, 1, 1, 0, -1, 1, 0, -1, -1, 1, 0}},
		{"duplicated columns", 3, 4, []float64{0, -1, -1, 1, 1, 0, 0, -1, -1, 1, 1, 0}},
		{"rank one", 3, 3, []float64{1, 2, 3, 2, 4, 6, 3, 6, 9}},
		{"rank two", 4, 4, []float64{1, 0, 1, 2, 0, 1, 1, -1, 1, 1, 2, 1, 2, -1, 1, 3}},
		{"all equal", 3, 4, []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		{"all zero", 2, 2, []float64{0, 0, 0, 0}},
		{"one row", 1, 5, []float64{3, -1, 4, -1, 5}},
		{"one column", 5, 1, []float64{3, -1, 4, -1, 5}},
		{"one entry", 1, 1, []float64{-7}},
		{"dominated rows", 3, 2, []float64{1, 0, 0, 1, 0.4, 0.4}},
		{"weakly dominated", 3, 3, []float64{1, 1, 0, 1, 0, 1, 0, 1, 1}},
		{"matching pennies twice", 4, 4, []float64{1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1, 1, -1, 1}},
		{"singular support", 3, 3, []float64{1, -1, 0, -1, 1, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := lpValue(t, c.a, c.k, c.l)
			for _, guess := range []string{"none", "pure wrong"} {
				x, y := make([]float64, c.k), make([]float64, c.l)
				if guess == "pure wrong" {
					x[c.k-1], y[c.l-1] = 1, 1
				}
				var s Subgame
				res, err := s.Solve(x, y, c.a, c.k, c.l)
				if err != nil {
					t.Fatalf("guess %s: %v", guess, err)
				}
				checkSubgame(t, c.a, c.k, c.l, x, y, want, 1e-13, 1e-9)
				if math.Abs(res.Value-want) > 1e-9 {
					t.Errorf("guess %s: value %.15g, LP %.15g", guess, res.Value, want)
				}
			}
		})
	}
}

func TestSubgameRandom(t *testing.T) {
	var s Subgame // reused: the work space must not leak between sizes
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 60 {
		a, k, l := randomSubgame(r, trial)
		x, y := make([]float64, k), make([]float64, l)
		if trial%2 == 1 {
			for i := range x {
				x[i] = r.Float64()
			}
		}
		if _, err := s.Solve(x, y, a, k, l); err != nil {
			t.Fatalf("trial %d (%d×%d): %v", trial, k, l, err)
		}
		checkSubgame(t, a, k, l, x, y, lpValue(t, a, k, l), 1e-13, 1e-9*math.Max(1, math.Abs(a[0])*100))
	}
}

// TestSubgameWrongGuess starts from a pair whose supports are disjoint from
// the equilibrium's.
func TestSubgameWrongGuess(t *testing.T) {
	const n = 60
	a := uniformGame(n, n, 11)
	x, y := make([]float64, n), make([]float64, n)
	var s Subgame
	if _, err := s.Solve(x, y, a, n, n); err != nil {
		t.Fatal(err)
	}
	// Put all weight where the equilibrium has none.
	for i := range x {
		if x[i] > 0 {
			x[i] = 0
		} else {
			x[i] = 1
		}
	}
	for j := range y {
		if y[j] > 0 {
			y[j] = 0
		} else {
			y[j] = 1
		}
	}
	if _, err := s.Solve(x, y, a, n, n); err != nil {
		t.Fatal(err)
	}
	checkSubgame(t, a, n, n, x, y, lpValue(t, a, n, n), 1e-13, 1e-9)
}

func TestSubgameErrors(t *testing.T) {
	var s Subgame
	if _, err := s.Solve(make([]float64, 2), make([]float64, 2), make([]float64, 3), 2, 2); err == nil {
		t.Error("wrong matrix length: no error")
	}
	if _, err := s.Solve(make([]float64, 1), make([]float64, 1), []float64{math.NaN()}, 1, 1); err == nil {
		t.Error("NaN entry: no error")
	}
}

// FuzzSubgame solves tiny games given as bytes and checks them against the LP.
func FuzzSubgame(f *testing.F) {
	f.Add(uint8(2), uint8(2), []byte{0, 1, 1, 0})
	f.Add(uint8(3), uint8(3), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add(uint8(1), uint8(4), []byte{3, 0, 9, 2})
	f.Fuzz(func(t *testing.T, k8, l8 uint8, data []byte) {
		k, l := 1+int(k8%6), 1+int(l8%6)
		if len(data) < k*l {
			return
		}
		a := make([]float64, k*l)
		for i := range a {
			a[i] = float64(data[i]%16) - 8
		}
		x, y := make([]float64, k), make([]float64, l)
		var s Subgame
		if _, err := s.Solve(x, y, a, k, l); err != nil {
			t.Fatal(err)
		}
		checkSubgame(t, a, k, l, x, y, lpValue(t, a, k, l), 1e-13, 1e-8)
	})
}

// TestSubgameSimplexWarm checks that the simplex finishes from warm starts
// without the fallbacks: from an RM+ point, and from the exact solution of
// the game without three of its support rows, to which they are added back
// (Polish's later rounds).
func TestSubgameSimplexWarm(t *testing.T) {
	const n = 150
	a := uniformGame(n, n, 13)
	want := lpValue(t, a, n, n)
	x, y := rmPlus(a, n, n, 100)
	var s Subgame
	res, err := s.Solve(x, y, a, n, n)
	if err != nil {
		t.Fatal(err)
	}
	if res.Interior || res.Rounds > 0 || res.Pivots == 0 {
		t.Errorf("from RM+: %+v, want the simplex alone", res)
	}
	checkSubgame(t, a, n, n, x, y, want, 1e-13, 1e-9)
	t.Logf("from RM+: %d pivots", res.Pivots)
	// Drop three support rows, solve, add them back.
	var drop []int
	for i := range x {
		if x[i] > 0 && len(drop) < 3 {
			drop = append(drop, i)
		}
	}
	var rows []int
	for i := range n {
		if !slices.Contains(drop, i) {
			rows = append(rows, i)
		}
	}
	sub := make([]float64, 0, len(rows)*n)
	for _, i := range rows {
		sub = append(sub, a[i*n:(i+1)*n]...)
	}
	xs, ys := make([]float64, len(rows)), slices.Clone(y)
	for r, i := range rows {
		xs[r] = x[i]
	}
	if _, err := s.Solve(xs, ys, sub, len(rows), n); err != nil {
		t.Fatal(err)
	}
	clear(x)
	for r, i := range rows {
		x[i] = xs[r]
	}
	copy(y, ys)
	res, err = s.Solve(x, y, a, n, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warm re-solve: %d pivots", res.Pivots)
	if res.Interior || res.Rounds > 0 || res.Pivots > n {
		t.Errorf("warm re-solve: %+v, want at most %d pivots of the simplex alone", res, n)
	}
	checkSubgame(t, a, n, n, x, y, want, 1e-13, 1e-9)
}
