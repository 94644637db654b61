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
		// The certificate alone: the gap of (x, y), recomputed, brackets
		// the value. gonum's simplex, the other tests' reference, cycles
		// on some of these degenerate games (testdata's 13312886b183a03c).
		checkSubgame(t, a, k, l, x, y, math.NaN(), 1e-13, 0)
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

// TestSubgameSimplexPaths checks that the simplex alone (no active set, no
// interior point) solves games of several families exactly, from no guess
// and from RM+ points, within a pivot budget, and that between them the
// cases take both paths from a crash that is not dual feasible: the
// parametric method alone, and the dual method from the pure basis after
// the parametric method's budget; and, from the game's own solution
// disturbed on its supports, the dual method from a dual feasible crash,
// with no pivot.
func TestSubgameSimplexPaths(t *testing.T) {
	type game struct {
		name string
		a    []float64
		k, l int
		want float64
	}
	var games []game
	for _, seed := range []uint64{21, 22} {
		games = append(games,
			game{"uniform", uniformGame(150, 120, seed), 150, 120, math.NaN()},
			game{"gaussian", gaussianGame(100, 170, seed), 100, 170, math.NaN()},
			game{"rank one", rank1Game(160, 140, seed), 160, 140, math.NaN()},
			game{"low rank", lowRankGame(180, 130, 3, 0.05, seed), 180, 130, math.NaN()},
			game{"low rank, wide", lowRankGame(90, 200, 2, 0.02, seed), 90, 200, math.NaN()},
		)
		// Repeated rows and columns leave the value as it was (and make
		// the reference LP singular).
		a, k, l := dupGame(100, 90, seed)
		games = append(games, game{"repeated rows and columns", a, k, l, lpValue(t, gaussianGame(100, 90, seed), 100, 90)})
	}
	seen := map[uint8]bool{}
	var s Subgame
	for n, g := range games {
		// The reference LP takes most of the test's time: the second
		// seed's games are checked by their certified gaps alone.
		want := g.want
		if math.IsNaN(want) && n < len(games)/2 {
			want = lpValue(t, g.a, g.k, g.l)
		}
		for _, iters := range []int{0, 30, 300} {
			x, y := make([]float64, g.k), make([]float64, g.l)
			if iters > 0 {
				x, y = rmPlus(g.a, g.k, g.l, iters)
			}
			res, err := s.Solve(x, y, g.a, g.k, g.l)
			if err != nil {
				t.Fatalf("%s %d×%d from RM+ %d: %v", g.name, g.k, g.l, iters, err)
			}
			seen[s.w.spx.ran] = true
			if budget := 10 * (g.k + g.l); res.Interior || res.Rounds > 0 || res.Pivots > budget {
				t.Errorf("%s %d×%d from RM+ %d: %+v, want the simplex alone within %d pivots", g.name, g.k, g.l, iters, res, budget)
			}
			checkSubgame(t, g.a, g.k, g.l, x, y, want, 1e-13, 1e-9*math.Max(1, math.Abs(want)))
			if iters == 300 && g.name != "repeated rows and columns" {
				// Once more from the solution just found, its weights
				// disturbed by 0.1 % on the same supports: the crash is
				// an optimal basis (a degenerate game's supports may
				// differ in size, and then it is not).
				for i := range x {
					x[i] *= 1 + 1e-3*float64(i%3-1)
				}
				for j := range y {
					y[j] *= 1 + 1e-3*float64(j%3-1)
				}
				res, err = s.Solve(x, y, g.a, g.k, g.l)
				if err != nil || res.Pivots > 0 || s.w.spx.ran != ranDual {
					t.Errorf("%s %d×%d from its solution: %+v, %v, methods %b; want the dual method from the crash without a pivot", g.name, g.k, g.l, res, err, s.w.spx.ran)
				}
				seen[s.w.spx.ran] = true
			}
		}
	}
	for _, p := range []struct {
		ran  uint8
		name string
	}{
		{ranParametric, "parametric method alone"},
		{ranDual, "dual method from the crash"},
		{ranParametric | ranPure | ranDual, "dual method from the pure basis"},
	} {
		if !seen[p.ran] {
			t.Errorf("no case took the path of the %s (paths taken: %v)", p.name, seen)
		}
	}
}

// TestSubgameScales solves games scaled by 1e-14 to 1e14 (and one shifted
// far from zero), copied (Solve) and in place (SolveIn): every solve must
// end exact. Before the power-of-two scaling, a low-rank game scaled by
// 1e8 or 1e-8 ended inexact, and uniform games at 1e-12 too: the simplex's
// tolerances are absolute, and its kernel [B −1; 1ᵀ 0] mixes B with ±1.
func TestSubgameScales(t *testing.T) {
	type game struct {
		name string
		a    []float64
		k, l int
	}
	var games []game
	for _, seed := range []uint64{31, 32} {
		games = append(games,
			game{"uniform", uniformGame(80, 70, seed), 80, 70},
			game{"low rank", lowRankGame(90, 80, 3, 0.05, seed), 90, 80},
			game{"low rank, tall", lowRankGame(120, 60, 2, 0.05, seed), 120, 60},
		)
	}
	var s Subgame
	for _, g := range games {
		for _, c := range []struct{ scale, shift float64 }{
			{1e-14, 0}, {1e-8, 0}, {1e-3, -50}, {1, 0}, {1e3, 0}, {1e8, 0}, {1e14, 0}, {1e300, 0}, {1, 1e7},
		} {
			a := make([]float64, len(g.a))
			for i, v := range g.a {
				a[i] = c.scale*v + c.shift
			}
			for _, inPlace := range []bool{false, true} {
				x, y := make([]float64, g.k), make([]float64, g.l)
				var res SubgameResult
				var err error
				if inPlace {
					rows, cols := make([]int, g.k), make([]int, g.l)
					for i := range rows {
						rows[i] = i
					}
					for j := range cols {
						cols[j] = j
					}
					res, err = s.SolveIn(x, y, Matrix{Data: a, N: g.l, Stride: g.l, Scale: 1}, rows, cols)
				} else {
					res, err = s.Solve(x, y, a, g.k, g.l)
				}
				if err != nil {
					t.Errorf("%s %d×%d scaled by %g, shifted by %g, in place %v: %v", g.name, g.k, g.l, c.scale, c.shift, inPlace, err)
					continue
				}
				checkSubgame(t, a, g.k, g.l, x, y, math.NaN(), 1e-13, 0)
				lo, hi := gameGap(a, g.k, g.l, x, y)
				if d := math.Max(math.Abs(res.Lower-lo), math.Abs(res.Upper-hi)); d > 1e-12*math.Max(c.scale, math.Abs(c.shift)) {
					t.Errorf("%s scaled by %g, in place %v: reported [%g, %g], recomputed [%g, %g]", g.name, c.scale, inPlace, res.Lower, res.Upper, lo, hi)
				}
			}
		}
	}
}

// TestSubgameWildGuesses starts from guesses whose sums overflow or that
// hold infinities and NaNs: they count as their finite part (or uniform),
// never as a pair returned without error that is not a distribution.
func TestSubgameWildGuesses(t *testing.T) {
	a := []float64{-1, -2, -3, -1} // value −5/3
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"overflowing sum", []float64{1e308, 1e308}, []float64{1, 0}},
		{"infinite weight", []float64{math.Inf(1), 0}, []float64{0, 1}},
		{"NaN weight", []float64{math.NaN(), 1}, []float64{math.NaN(), math.Inf(1)}},
		{"negative infinity", []float64{math.Inf(-1), 2}, []float64{1, 1}},
	} {
		var s Subgame
		res, err := s.Solve(c.x, c.y, a, 2, 2)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkSubgame(t, a, 2, 2, c.x, c.y, -5.0/3, 1e-13, 1e-12)
		if !(res.Gap >= 0 && res.Gap <= 1e-13*3) {
			t.Errorf("%s: gap %v", c.name, res.Gap)
		}
	}
	// The same guesses on a tall game, solved transposed.
	tall := []float64{-1, -2, -3, -1, -2, -2} // 3×2
	var s Subgame
	x, y := []float64{0, 1, 1}, []float64{1e308, 1e308}
	if _, err := s.Solve(x, y, tall, 3, 2); err != nil {
		t.Fatal(err)
	}
	checkSubgame(t, tall, 3, 2, x, y, lpValue(t, tall, 3, 2), 1e-13, 1e-12)
}

// TestSubgameTransposed solves tall games as they are and transposed: the
// same value, brackets that hold it, and supports counted on the right
// players.
func TestSubgameTransposed(t *testing.T) {
	defer func(t bool) { transposeTall = t }(transposeTall)
	for _, c := range []struct {
		name string
		a    []float64
		k, l int
	}{
		{"uniform", uniformGame(90, 40, 41), 90, 40},
		{"low rank", lowRankGame(140, 70, 3, 0.05, 42), 140, 70},
		{"rank one", rank1Game(80, 59, 43), 80, 59},
	} {
		var res [2]SubgameResult
		var xs, ys [2][]float64
		for v, tr := range []bool{false, true} {
			transposeTall = tr
			x, y := make([]float64, c.k), make([]float64, c.l)
			var s Subgame
			r, err := s.Solve(x, y, c.a, c.k, c.l)
			if err != nil {
				t.Fatalf("%s, transposed %v: %v", c.name, tr, err)
			}
			checkSubgame(t, c.a, c.k, c.l, x, y, math.NaN(), 1e-13, 0)
			lo, hi := gameGap(c.a, c.k, c.l, x, y)
			if math.Abs(r.Lower-lo) > 1e-13 || math.Abs(r.Upper-hi) > 1e-13 || r.Value < lo-1e-13 || r.Value > hi+1e-13 {
				t.Errorf("%s, transposed %v: reported [%.17g, %.17g] value %.17g, recomputed [%.17g, %.17g]", c.name, tr, r.Lower, r.Upper, r.Value, lo, hi)
			}
			if r.Rows != positives(x) || r.Cols != positives(y) {
				t.Errorf("%s, transposed %v: supports %d×%d reported, %d×%d in the strategies", c.name, tr, r.Rows, r.Cols, positives(x), positives(y))
			}
			res[v], xs[v], ys[v] = r, x, y
		}
		if math.Abs(res[0].Value-res[1].Value) > 1e-12 {
			t.Errorf("%s: value %.17g as it is, %.17g transposed", c.name, res[0].Value, res[1].Value)
		}
	}
}
