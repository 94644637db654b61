package polish

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// TestRcond compares spxWork.rcond, the condition estimate of factor, with
// gonum's Dgecon on random kernels and on ill-conditioned ones (a near
// duplicate row, graded rows or columns, low rank plus noise): the two
// estimates must be within a factor 10 of each other, and factor's
// decision (rcond < 1e-13 rejects) must be Dgecon's except where Dgecon's
// estimate is within that factor of the threshold.
func TestRcond(t *testing.T) {
	const thresh = 1e-13
	r := rand.New(rand.NewPCG(11, 12))
	var impl gonum.Implementation
	type kernel struct {
		name string
		a    []float64
		n    int
	}
	var ks []kernel
	gauss := func(n int) []float64 {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		return a
	}
	for _, n := range []int{1, 2, 3, 8, 9, 50, 201} {
		ks = append(ks, kernel{"gaussian", gauss(n), n})
		// The simplex's kernel [B −1; 1ᵀ 0] of a uniform B.
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				switch {
				case i < n-1 && j < n-1:
					a[i*n+j] = r.Float64()
				case i < n-1:
					a[i*n+j] = -1
				case j < n-1:
					a[i*n+j] = 1
				}
			}
		}
		ks = append(ks, kernel{"equalizer", a, n})
		if n < 3 {
			continue
		}
		for _, d := range []float64{1e-4, 1e-8, 1e-10, 1e-11, 1e-12, 3e-13, 1e-13, 3e-14, 1e-14, 1e-15, 1e-16, 0} {
			// Row n−1 a copy of row 0 up to d.
			a := gauss(n)
			for j := range n {
				a[(n-1)*n+j] = a[j] + d*r.NormFloat64()
			}
			ks = append(ks, kernel{fmt.Sprintf("duplicate %g", d), a, n})
		}
		for _, g := range []float64{4, 8, 11, 12, 13, 14, 16, 20} {
			rows, cols := gauss(n), gauss(n)
			for i := range n {
				s := math.Pow(10, -g*float64(i)/float64(n-1))
				for j := range n {
					rows[i*n+j] *= s
					cols[j*n+i] *= s
				}
			}
			ks = append(ks, kernel{fmt.Sprintf("graded rows 1e-%g", g), rows, n})
			ks = append(ks, kernel{fmt.Sprintf("graded columns 1e-%g", g), cols, n})
		}
		for _, d := range []float64{1e-100, 1e-170} {
			// A diagonal of d under ones: the inverse's entries grow as
			// d^−k and the solves overflow, which Dgecon's Dlatrs guards
			// against and rcond must reject.
			a := make([]float64, n*n)
			for i := range n {
				a[i*n+i] = d
				for j := i + 1; j < n; j++ {
					a[i*n+j] = 1
				}
			}
			ks = append(ks, kernel{fmt.Sprintf("overflow %g", d), a, n})
		}
		for _, e := range []float64{1e-6, 1e-10, 1e-12, 1e-13, 1e-14, 1e-16} {
			// Rank n/2 plus noise e.
			u, v := gauss(n), gauss(n)
			a := make([]float64, n*n)
			for i := range n {
				for j := range n {
					for k := range n / 2 {
						a[i*n+j] += u[i*n+k] * v[j*n+k]
					}
					a[i*n+j] += e * r.NormFloat64()
				}
			}
			ks = append(ks, kernel{fmt.Sprintf("low rank + %g", e), a, n})
		}
	}
	var sw spxWork
	for _, k := range ks {
		n := k.n
		lu := append([]float64(nil), k.a...)
		sw.ipiv = growInt(sw.ipiv, n)
		sw.work = grow(sw.work, 4*n)
		sw.iwork = growInt(sw.iwork, n)
		anorm := impl.Dlange(lapack.MaxColumnSum, n, n, lu, n, sw.work)
		if !impl.Dgetrf(n, n, lu, n, sw.ipiv) {
			continue // exactly singular: factor rejects it before either estimate
		}
		sw.lu = lu
		got := sw.rcond(n, anorm)
		want := impl.Dgecon(lapack.MaxColumnSum, n, lu, n, anorm, sw.work, sw.iwork)
		if (got >= thresh) != (want >= thresh) && !(want >= thresh/10 && want <= thresh*10) {
			t.Errorf("n=%d %s: rcond %.3g, Dgecon %.3g: decisions differ", n, k.name, got, want)
		}
		if want > 0 && !(got >= want/10 && got <= want*10) {
			t.Errorf("n=%d %s: rcond %.3g, Dgecon %.3g: more than a factor 10 apart", n, k.name, got, want)
		}
		if testing.Verbose() {
			fmt.Printf("n=%3d %-24s rcond %.3e  Dgecon %.3e  ratio %.4f\n", n, k.name, got, want, got/want)
		}
	}
}

// BenchmarkRcond times the condition estimate of factor against gonum's
// Dgecon on the LU factors of a kernel-sized matrix.
func BenchmarkRcond(b *testing.B) {
	var impl gonum.Implementation
	for _, n := range []int{500, 1000} {
		lu, ipiv := luFactors(n, 3)
		sw := spxWork{lu: lu, ipiv: ipiv, work: make([]float64, 4*n), iwork: make([]int, n)}
		b.Run(fmt.Sprintf("rcond/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sw.rcond(n, 1)
			}
		})
		b.Run(fmt.Sprintf("Dgecon/%d", n), func(b *testing.B) {
			for b.Loop() {
				impl.Dgecon(lapack.MaxColumnSum, n, lu, n, 1, sw.work, sw.iwork)
			}
		})
		b.Run(fmt.Sprintf("Dgetrf/%d", n), func(b *testing.B) {
			a, piv := make([]float64, n*n), make([]int, n)
			for b.Loop() {
				copy(a, lu)
				impl.Dgetrf(n, n, a, n, piv)
			}
		})
	}
}

// TestEtaLimit: the refactorization interval grows with the kernel within
// its bounds, and the updates never exceed maxEtaEntries beyond the
// smallest interval.
func TestEtaLimit(t *testing.T) {
	for _, c := range []struct{ S, N, want int }{
		{1, 2, minEta}, {100, 120, minEta}, {520, 575, 383}, {800, 830, 608}, {1020, 1050, maxEtaEntries / 1050}, {2000, 2080, maxEtaEntries / 2080},
	} {
		if got := etaLimit(c.S, c.N); got != c.want {
			t.Errorf("etaLimit(%d, %d) = %d, want %d", c.S, c.N, got, c.want)
		}
	}
	for S := 1; S <= 5000; S += 7 {
		N := S + S/8 + 1
		e := etaLimit(S, N)
		if e < minEta || e > maxEta || e > minEta && e*N > maxEtaEntries {
			t.Errorf("etaLimit(%d, %d) = %d out of bounds", S, N, e)
		}
	}
}

// TestDualShift solves dual-degenerate games cold (no guess: the dual
// simplex from a pure basis), where ties among the reduced costs make
// pivots degenerate by the hundred: block games with constant
// off-diagonal blocks and Colonel Blotto. Each must be exact, by the
// simplex, within 2(k+l) pivots. Without the cost shift the 600² block
// games took 3,297 and 5,968 pivots (and 800² ones stalled at the pivot
// limit, finished by the interior point); with it 1,146 and 1,241.
func TestDualShift(t *testing.T) {
	type game struct {
		name string
		a    []float64
		m, n int
	}
	var games []game
	for _, c := range []struct {
		sz   [4]int
		seed uint64
	}{
		{[4]int{100, 100, 100, 100}, 1}, {[4]int{100, 100, 100, 100}, 2}, {[4]int{60, 140, 90, 60}, 1},
		{[4]int{200, 500, 300, 100}, 2}, {[4]int{300, 300, 300, 300}, 1}, {[4]int{300, 300, 300, 300}, 3},
	} {
		a, m, n := blockGame(c.sz[0], c.sz[1], c.sz[2], c.sz[3], c.seed)
		games = append(games, game{fmt.Sprintf("block %v seed %d", c.sz, c.seed), a, m, n})
	}
	for _, sf := range [][3]int{{10, 9, 4}, {14, 13, 4}, {8, 8, 5}, {15, 13, 3}} {
		a, m, n := blottoGame(sf[0], sf[1], sf[2])
		games = append(games, game{fmt.Sprintf("blotto %v", sf), a, m, n})
	}
	for _, g := range games {
		t.Run(g.name, func(t *testing.T) {
			x, y := make([]float64, g.m), make([]float64, g.n)
			var s Subgame
			res, err := s.Solve(x, y, g.a, g.m, g.n)
			if err != nil {
				t.Fatal(err)
			}
			if res.Interior || res.Pivots > 2*(g.m+g.n) {
				t.Errorf("%d×%d: %d pivots, interior point %v: want at most %d pivots and no interior point", g.m, g.n, res.Pivots, res.Interior, 2*(g.m+g.n))
			}
			// The certificate: the gap recomputed from the strategies.
			if lo, hi := gameGap(g.a, g.m, g.n, x, y); hi-lo > 1e-12 || res.Value < lo-1e-12 || res.Value > hi+1e-12 {
				t.Errorf("value %.15g outside the bracket [%.15g, %.15g]", res.Value, lo, hi)
			}
		})
	}
}

// TestShiftReset solves a game on a Subgame left with its costs shifted,
// as a panic inside the dual method (a lent matrix's memory fault, which
// the solver's driver recovers) would leave it: the next solve must start
// from the true costs. It panicked (an index out of range) when the shift
// was cleared only after the crash basis's reduced costs were computed.
func TestShiftReset(t *testing.T) {
	var s Subgame
	a, m, n := blockGame(50, 50, 50, 50, 3)
	if _, err := s.Solve(make([]float64, m), make([]float64, n), a, m, n); err != nil {
		t.Fatal(err)
	}
	s.w.spx.shifted = true
	a, m, n = blockGame(80, 80, 80, 80, 4)
	x, y := make([]float64, m), make([]float64, n)
	if _, err := s.Solve(x, y, a, m, n); err != nil {
		t.Fatal(err)
	}
	if lo, hi := gameGap(a, m, n, x, y); hi-lo > 1e-12 {
		t.Errorf("gap %.3g", hi-lo)
	}
}
