package polish

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// rmPlusTo runs RM+ in rounds of 10 iterations until the average's relative
// gap is at most target and returns it with the iterations used.
func rmPlusTo(a []float64, m, n int, target float64) (p, q []float64, iters int) {
	for iters = 10; ; iters += 10 {
		p, q = rmPlus(a, m, n, iters)
		lo, hi := gameGap(a, m, n, p, q)
		if hi-lo <= target {
			return p, q, iters
		}
	}
}

// TestMeasure prints the polish of uniform games of the sizes in
// $POLISH_MEASURE (e.g. "1000,2000") from an RM+ point at relative gap
// 1e-3, and writes each matrix as raw little-endian float64 to
// /tmp/polish_uniform_<n>.f64 for scripts/polish_vs_highs.sh.
func TestMeasure(t *testing.T) {
	sizes := os.Getenv("POLISH_MEASURE")
	if sizes == "" {
		t.Skip("set POLISH_MEASURE=1000,2000 to measure")
	}
	for _, f := range splitComma(sizes) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		a := uniformGame(n, n, 1)
		buf := make([]byte, 8*len(a))
		for i, v := range a {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
		if err := os.WriteFile(fmt.Sprintf("/tmp/polish_uniform_%d.f64", n), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		p, q, iters := rmPlusTo(a, n, n, 1e-3)
		lo, hi := gameGap(a, n, n, p, q)
		res, err := Polish(context.Background(), &Dense{M: n, N: n, A: a}, p, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("uniform %d×%d seed 1: RM+ %d iterations to relative gap %.2e; polish: %v, relative gap %.2e, value in [%.15f, %.15f], passes %d, subgame solves %d (interior %d) sizes %v, pivots %d, equalizer solves %d, subgame time %.3fs, polish time %.3fs\n",
			n, n, iters, hi-lo, res.Status, res.RelGap, res.Lower, res.Upper, res.Stats.Passes, res.Stats.Solves, res.Stats.Interior, res.Stats.Sizes, res.Stats.Pivots, res.Stats.Rounds, res.Stats.SolveTime.Seconds(), res.Stats.Time.Seconds())
		if n == 1000 {
			// One subgame solve of the whole 1000² game from the RM+ point.
			x, y := append([]float64(nil), p...), append([]float64(nil), q...)
			var s Subgame
			t0 := time.Now()
			sr, err := s.Solve(x, y, a, n, n)
			fmt.Printf("one 1000×1000 subgame solve from the RM+ point: %.3fs, gap %.2e, pivots %d, interior %v, supports %d×%d, err %v\n", time.Since(t0).Seconds(), sr.Gap, sr.Pivots, sr.Interior, sr.Rows, sr.Cols, err)
		}
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func BenchmarkSubgame(b *testing.B) {
	for _, n := range []int{100, 300} {
		a := uniformGame(n, n, 2)
		p, q := rmPlus(a, n, n, 200)
		x, y := make([]float64, n), make([]float64, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var s Subgame
			b.ReportAllocs()
			b.SetBytes(int64(8 * n * n))
			for b.Loop() {
				copy(x, p)
				copy(y, q)
				if _, err := s.Solve(x, y, a, n, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPolish(b *testing.B) {
	const n = 500
	a := uniformGame(n, n, 2)
	p, q, _ := rmPlusTo(a, n, n, 1e-3)
	g := &Dense{M: n, N: n, A: a}
	b.ReportAllocs()
	b.SetBytes(int64(8 * n * n))
	for b.Loop() {
		if _, err := Polish(context.Background(), g, p, q, nil); err != nil {
			b.Fatal(err)
		}
	}
}
