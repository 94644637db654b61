package polish

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

func TestPolishFamilies(t *testing.T) {
	cases := []struct {
		name string
		m, n int
		gen  func(m, n int, seed uint64) []float64
		rm   int // RM+ iterations for the start; 0: uniform start
	}{
		{"uniform", 200, 200, uniformGame, 100},
		{"uniform from uniform point", 200, 250, uniformGame, 0},
		{"gaussian", 200, 180, gaussianGame, 100},
		{"rank-1 plus noise", 200, 200, rank1Game, 100},
		{"cyclic", 200, 200, cyclicGame, 100},
	}
	for _, c := range cases {
		if testing.Short() {
			// A third of each side: the reference LP solve of the full
			// size takes most of a minute natively, an hour under CI's
			// arm64 emulator.
			c.m, c.n = c.m/3, c.n/3
		}
		t.Run(c.name, func(t *testing.T) {
			a := c.gen(c.m, c.n, 5)
			var p, q []float64
			if c.rm > 0 {
				p, q = rmPlus(a, c.m, c.n, c.rm)
			}
			g := &Dense{M: c.m, N: c.n, A: a}
			res, err := Polish(context.Background(), g, p, q, &Options{RelGap: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Converged || !(res.RelGap <= 1e-12) {
				t.Fatalf("status %v, relative gap %.3g", res.Status, res.RelGap)
			}
			// The certificate is the full game's, recomputed here.
			lo, hi := gameGap(a, c.m, c.n, res.P, res.Q)
			if hi-lo > 1e-12*g.MaxAbs() || lo != res.Lower || hi != res.Upper {
				t.Errorf("recomputed bracket [%.17g, %.17g], reported [%.17g, %.17g]", lo, hi, res.Lower, res.Upper)
			}
			v := lpValue(t, a, c.m, c.n)
			if v < lo-1e-9 || v > hi+1e-9 {
				t.Errorf("bracket [%.15g, %.15g] misses the LP value %.15g", lo, hi, v)
			}
			if res.Stats.Passes != res.Stats.Solves+1 || len(res.Stats.Sizes) != res.Stats.Solves {
				t.Errorf("stats %+v", res.Stats)
			}
		})
	}
}

// TestPolishWrongStart starts from pure strategies off the equilibrium's
// supports: the first restriction is then mostly best responses, and the
// loop must grow it.
func TestPolishWrongStart(t *testing.T) {
	const n = 150
	a := uniformGame(n, n, 9)
	var s Subgame
	x, y := make([]float64, n), make([]float64, n)
	if _, err := s.Solve(x, y, a, n, n); err != nil {
		t.Fatal(err)
	}
	p, q := make([]float64, n), make([]float64, n)
	for i := range x {
		if x[i] == 0 {
			p[i] = 1
			break
		}
	}
	for j := range y {
		if y[j] == 0 {
			q[j] = 1
			break
		}
	}
	res, err := Polish(context.Background(), &Dense{M: n, N: n, A: a}, p, q, &Options{Support: 0.5})
	if err != nil || res.Status != Converged || res.RelGap > 1e-12 {
		t.Fatalf("status %v, relative gap %.3g, err %v, stats %+v", res.Status, res.RelGap, err, res.Stats)
	}
}

func TestPolishCanceled(t *testing.T) {
	const n = 100
	a := uniformGame(n, n, 3)
	p, q := rmPlus(a, n, n, 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Polish(ctx, &Dense{M: n, N: n, A: a}, p, q, nil)
	if !errors.Is(err, context.Canceled) || res.Status != Canceled {
		t.Fatalf("status %v, err %v", res.Status, err)
	}
}

// TestPolishDeadline lets a deadline pass during a subgame solve of
// seconds (a game of rank 2 plus noise 1e-6, whose crossover runs the
// dual simplex to numerical trouble, then the interior point): Polish must
// return at once, canceled, with its best certified pair. Before the
// subgame solves watched the context, a 20 s time limit ended after 35 s.
func TestPolishDeadline(t *testing.T) {
	m, n := 800, 600
	a := lowRankGame(m, n, 2, 1e-6, 11)
	p, q := rmPlus(a, m, n, 30)
	const d = 100 * time.Millisecond // in the simplex's pivots (they run for seconds)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	res, err := Polish(ctx, &Dense{M: m, N: n, A: a}, p, q, &Options{RelGap: 1e-9})
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || res.Status != Canceled {
		t.Fatalf("status %v, err %v after %v", res.Status, err, took)
	}
	if !testing.Short() && took > d+300*time.Millisecond {
		t.Errorf("deadline %v: returned after %v", d, took)
	}
	lo, hi := gameGap(a, m, n, res.P, res.Q)
	if !(res.Gap < math.Inf(1)) || math.Abs(hi-lo-res.Gap) > 1e-12*res.Gap+1e-15 {
		t.Errorf("reported gap %.17g, the pair's %.17g", res.Gap, hi-lo)
	}
}

// TestSubgameCanceled solves with the context already done: no pivot, no
// active-set round and no interior point runs, and the guess comes back,
// inexact.
func TestSubgameCanceled(t *testing.T) {
	const k, l = 300, 200
	a := lowRankGame(k, l, 2, 1e-6, 12)
	x, y := rmPlus(a, k, l, 30)
	done := make(chan struct{})
	close(done)
	var s Subgame
	s.w.done = done
	res, err := s.Solve(slices.Clone(x), slices.Clone(y), a, k, l)
	if !errors.Is(err, ErrInexact) || res.Pivots != 0 || res.Rounds != 0 || res.Interior {
		t.Errorf("canceled: err %v, %+v", err, res)
	}
	// Not canceled, the same solve pivots.
	s.w.done = nil
	if res, _ := s.Solve(x, y, a, k, l); res.Pivots == 0 {
		t.Errorf("not canceled: %+v", res)
	}
}

func TestPolishRoundLimit(t *testing.T) {
	const n = 200
	a := uniformGame(n, n, 4)
	p, q := rmPlus(a, n, n, 50)
	lo, hi := gameGap(a, n, n, p, q)
	// Support 1 keeps only the best responses, so one round cannot finish.
	res, err := Polish(context.Background(), &Dense{M: n, N: n, A: a}, p, q, &Options{MaxRounds: 1, Support: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Polish certifies the start after normalizing it, which moves it by
	// rounding: its gap may be the start's plus a few ulps.
	if res.Status == RoundLimit && res.Gap > (hi-lo)*(1+1e-12) {
		t.Errorf("best certified gap %.17g worse than the start's %.17g", res.Gap, hi-lo)
	}
	if res.Stats.Solves > 1 {
		t.Errorf("%d solves with MaxRounds 1", res.Stats.Solves)
	}
}

func TestPolishErrors(t *testing.T) {
	g := &Dense{M: 2, N: 2, A: []float64{1, 0, 0, 1}}
	if _, err := Polish(context.Background(), g, make([]float64, 3), nil, nil); err == nil {
		t.Error("wrong length: no error")
	}
	if _, err := Polish(context.Background(), &Dense{}, nil, nil, nil); err == nil {
		t.Error("empty game: no error")
	}
}

func ExamplePolish() {
	g := &Dense{M: 3, N: 3, A: []float64{0, -1, 2, 1, 0, -1, -1, 1, 0}}
	res, err := Polish(context.Background(), g, nil, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: value in [%.4f, %.4f], p = %.4f\n", res.Status, res.Lower, res.Upper, res.P)
	// Output: converged: value in [0.0833, 0.0833], p = [0.2500 0.4167 0.3333]
}

// TestGrowFill checks grow's quota: a side with violations gets its
// violated strategies first, then the closest to violation up to growFill
// (within the size limit); a side without violations gets none.
func TestGrowFill(t *testing.T) {
	const m, n = 60, 40
	for _, c := range []struct {
		name              string
		violRows, size    int
		wantRows, wantCol int
	}{
		{"one violated row", 1, 100, growFill, 0},
		{"many violated rows (the quarter-or-16 limit)", 30, 100, 16, 0},
		{"size limit", 1, 13, 3, 0},
		{"none violated", 0, 100, 0, 0},
	} {
		w := newWork(m, n)
		for i := range 10 {
			w.addRow(i)
		}
		for j := range 10 {
			w.addCol(j)
		}
		// Row payoffs: the value is 0; rows 10… are below it by 1e-3·i,
		// except the last violRows rows, above it.
		for i := range m {
			w.aq[i] = -1e-3 * float64(i)
			if i >= m-c.violRows {
				w.aq[i] = 1e-3 * float64(i)
			}
		}
		for j := range n {
			w.atp[j] = 1 // no column is violated
		}
		added, _ := w.grow(0, c.size)
		gotRows := len(w.R) - 10
		if gotRows != c.wantRows || len(w.C) != 10 || added != c.wantRows {
			t.Errorf("%s: added %d rows and %d columns (reported %d), want %d and 0", c.name, gotRows, len(w.C)-10, added, c.wantRows)
			continue
		}
		// The violated rows first, then the closest below the value.
		for t2, i := range w.R[10:] {
			want := m - 1 - t2
			if t2 >= min(c.violRows, gotRows) {
				want = 10 + t2 - min(c.violRows, gotRows)
			}
			if i != want {
				t.Errorf("%s: row %d added %d-th, want %d", c.name, i, t2, want)
				break
			}
		}
	}
}
