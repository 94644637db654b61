package polish

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// lpValue returns the value of the k×l game a by gonum's simplex on
// max 1ᵀz s.t. (a − min a + 1) z ≤ 1, z ≥ 0, whose optimum is 1/value of
// the shifted game.
func lpValue(t testing.TB, a []float64, k, l int) float64 {
	t.Helper()
	lo := math.Inf(1)
	for _, v := range a {
		lo = math.Min(lo, v)
	}
	A := mat.NewDense(k, l+k, nil)
	for i := range k {
		for j := range l {
			A.Set(i, j, a[i*l+j]-lo+1)
		}
		A.Set(i, l+i, 1)
	}
	c := make([]float64, l+k)
	for j := range l {
		c[j] = -1
	}
	b := make([]float64, k)
	for i := range b {
		b[i] = 1
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("reference LP: %v", err)
	}
	return 1/(-opt) + lo - 1
}

// Game generators, seeded with PCG.
func uniformGame(m, n int, seed uint64) []float64 {
	return randomGame(m, n, rand.New(rand.NewPCG(seed, 0)).Float64)
}

func gaussianGame(m, n int, seed uint64) []float64 {
	return randomGame(m, n, rand.New(rand.NewPCG(seed, 1)).NormFloat64)
}

func randomGame(m, n int, draw func() float64) []float64 {
	a := make([]float64, m*n)
	for i := range a {
		a[i] = draw()
	}
	return a
}

// rank1Game is u vᵀ plus 0.1 times uniform noise.
func rank1Game(m, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	u, v := make([]float64, m), make([]float64, n)
	for i := range u {
		u[i] = r.Float64()
	}
	for j := range v {
		v[j] = r.Float64()
	}
	a := make([]float64, m*n)
	for i := range m {
		for j := range n {
			a[i*n+j] = u[i]*v[j] + 0.1*r.Float64()
		}
	}
	return a
}

// cyclicGame generalizes rock-paper-scissors: row i beats the next n/2
// columns after i (mod n) and loses to the others, plus small noise so
// that the equilibrium is unique.
func cyclicGame(m, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	a := make([]float64, m*n)
	for i := range m {
		for j := range n {
			d := ((j-i*n/m)%n + n) % n
			switch {
			case d == 0:
			case d <= n/2:
				a[i*n+j] = 1
			default:
				a[i*n+j] = -1
			}
			a[i*n+j] += 0.01 * r.Float64()
		}
	}
	return a
}

// rmPlus runs alternating RM+ with linear averaging for iters iterations
// on the m×n game a and returns the average strategies.
func rmPlus(a []float64, m, n, iters int) (p, q []float64) {
	rp, rq := make([]float64, m), make([]float64, n)
	x, y := make([]float64, m), make([]float64, n)
	p, q = make([]float64, m), make([]float64, n)
	u, w := make([]float64, m), make([]float64, n)
	fill(x, 1/float64(m))
	fill(y, 1/float64(n))
	for t := 1; t <= iters; t++ {
		// Row player: regrets of A y.
		for i := range m {
			u[i] = dot(a[i*n:(i+1)*n], y)
		}
		ev := dot(u, x)
		for i := range m {
			rp[i] = math.Max(0, rp[i]+u[i]-ev)
		}
		copy(x, rp)
		normalize(x)
		clear(w)
		for i := range m {
			axpy(w, x[i], a[i*n:(i+1)*n])
		}
		ev = dot(w, y)
		for j := range n {
			rq[j] = math.Max(0, rq[j]+ev-w[j])
		}
		copy(y, rq)
		normalize(y)
		axpy(p, float64(t), x)
		axpy(q, float64(t), y)
	}
	normalize(p)
	normalize(q)
	return p, q
}

// gameGap returns max_i (a q)_i − min_j (aᵀp)_j.
func gameGap(a []float64, m, n int, p, q []float64) (lo, hi float64) {
	r, c := make([]float64, m), make([]float64, n)
	mulBoth(a, m, n, p, q, r, c)
	hi, lo = math.Inf(-1), math.Inf(1)
	for _, v := range r {
		hi = math.Max(hi, v)
	}
	for _, v := range c {
		lo = math.Min(lo, v)
	}
	return lo, hi
}

// randomSubgame returns a random game of at most 12×12, of one of three
// kinds by trial: uniform on [0, 1], integers in {0, 1, 2} (many ties:
// degenerate), or Gaussian with σ = 100.
func randomSubgame(r *rand.Rand, trial int) (a []float64, k, l int) {
	k, l = 1+r.IntN(12), 1+r.IntN(12)
	a = make([]float64, k*l)
	for i := range a {
		switch trial % 3 {
		case 0:
			a[i] = r.Float64()
		case 1:
			a[i] = float64(r.IntN(3))
		default:
			a[i] = r.NormFloat64() * 100
		}
	}
	return a, k, l
}

// lowRankGame is U Vᵀ + noise·G with U (m×rank), V (n×rank) and G standard
// normal: games on which first-order points misjudge most of the support.
func lowRankGame(m, n, rank int, noise float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 4))
	u, v := randomGame(m, rank, r.NormFloat64), randomGame(n, rank, r.NormFloat64)
	a := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for t := range rank {
				s += u[i*rank+t] * v[j*rank+t]
			}
			a[i*n+j] = s + noise*r.NormFloat64()
		}
	}
	return a
}

// dupGame is a Gaussian game with its first m/2 rows and n/3 columns
// repeated: degenerate, with many optimal bases.
func dupGame(m, n int, seed uint64) (a []float64, rows, cols int) {
	g := gaussianGame(m, n, seed)
	rows, cols = m+m/2, n+n/3
	a = make([]float64, 0, rows*cols)
	for i := range rows {
		row := g[(i%m)*n : (i%m+1)*n]
		a = append(a, row...)
		a = append(a, row[:n/3]...)
	}
	return a, rows, cols
}

// scaled multiplies the game a by f in place and returns it.
func scaled(a []float64, f float64) []float64 {
	for i := range a {
		a[i] *= f
	}
	return a
}

// ternary is a game with entries in {−1, 0, 1}: zeros whose copies are
// written −0 by repeated.
func ternary(m, n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 5))
	return randomGame(m, n, func() float64 { return float64(r.IntN(3) - 1) })
}

// blockGame has two standard normal blocks, m1×n1 and m2×n2, on its
// diagonal and −1 off it: the off-diagonal payoffs tie, so a pure basis's
// reduced costs are zero by the hundred (dual degenerate).
func blockGame(m1, n1, m2, n2 int, seed uint64) (a []float64, m, n int) {
	r := rand.New(rand.NewPCG(seed, 6))
	m, n = m1+m2, n1+n2
	a = make([]float64, m*n)
	for i := range m {
		for j := range n {
			a[i*n+j] = -1
			if i < m1 == (j < n1) {
				a[i*n+j] = r.NormFloat64()
			}
		}
	}
	return a, m, n
}

// blottoGame is Colonel Blotto: the row player spreads s soldiers over f
// fields, the column player t; each field won counts 1, lost −1, tied 0.
// Its payoffs are small integers with many ties: highly degenerate.
func blottoGame(s, t, f int) (a []float64, m, n int) {
	rows, cols := compositions(s, f), compositions(t, f)
	m, n = len(rows), len(cols)
	a = make([]float64, 0, m*n)
	for _, x := range rows {
		for _, y := range cols {
			var p float64
			for k := range f {
				switch {
				case x[k] > y[k]:
					p++
				case x[k] < y[k]:
					p--
				}
			}
			a = append(a, p)
		}
	}
	return a, m, n
}

// compositions lists the ways of writing s as f nonnegative parts.
func compositions(s, f int) [][]int {
	if f == 1 {
		return [][]int{{s}}
	}
	var out [][]int
	for first := s; first >= 0; first-- {
		for _, rest := range compositions(s-first, f-1) {
			out = append(out, append([]int{first}, rest...))
		}
	}
	return out
}
