package polish

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sparseVec returns n random entries of which about the share zero are 0,
// as the simplex's duals (zero off the tight rows) and a strategy's
// weights (zero off its support) are.
func sparseVec(r *rand.Rand, n int, zero float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		if r.Float64() >= zero {
			v[i] = 2*r.Float64() - 1
		}
	}
	return v
}

// TestMatBProducts compares matB's products, dense and in place, with
// naive loops, for row counts around the 8-row blocks and sparse vectors.
func TestMatBProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, k := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 101} {
		for _, l := range []int{1, 5, 8, 33} {
			a := uniformGame(k, l, uint64(k*100+l))
			src, rows, cols := embed(a, k, l, r)
			var dense, lent matB
			dense.dense(a, k, l)
			lent.inPlace(src, rows, cols)
			for _, zero := range []float64{0, 0.5, 1} {
				x, y := sparseVec(r, k, zero), sparseVec(r, l, zero)
				wantR, wantC := make([]float64, k), make([]float64, l)
				for i := range k {
					for j := range l {
						wantR[i] += a[i*l+j] * y[j]
						wantC[j] += a[i*l+j] * x[i]
					}
				}
				for name, b := range map[string]*matB{"dense": &dense, "in place": &lent} {
					what := fmt.Sprintf("%s %d×%d zero share %g", name, k, l, zero)
					gotR, gotC := make([]float64, k), make([]float64, l)
					for j := range gotC {
						gotC[j] = math.NaN() // mulBoth must overwrite c
					}
					b.mulBoth(x, y, gotR, gotC)
					checkClose(t, what+" mulBoth B y", gotR, wantR)
					checkClose(t, what+" mulBoth Bᵀx", gotC, wantC)
					gotT := make([]float64, l)
					for j := range gotT {
						gotT[j] = math.NaN() // and mulT dst
					}
					b.mulT(-2, x, gotT)
					for j := range gotT {
						gotT[j] /= -2
					}
					checkClose(t, what+" mulT", gotT, wantC)
				}
			}
		}
	}
}

func checkClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-13*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: entry %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// BenchmarkMatB measures matB's products on a 1000×1000 subgame, dense and
// read in place from a 2000×2000 matrix (every other row and column, as a
// uniform game's support), with the vectors' sparsity of the simplex:
// mulT's duals nonzero on 95% of the rows, mulBoth's x on half.
func BenchmarkMatB(b *testing.B) {
	const k, n = 1000, 2000
	r := rand.New(rand.NewPCG(13, 14))
	big := uniformGame(n, n, 3)
	src := Matrix{Data: big, N: n, Stride: n, Scale: 1}
	rows, cols := make([]int, k), make([]int, k)
	for t := range rows {
		rows[t], cols[t] = 2*t+r.IntN(2), 2*t+r.IntN(2)
	}
	a := make([]float64, k*k)
	for t, i := range rows {
		for u, j := range cols {
			a[t*k+u] = big[i*n+j]
		}
	}
	var dense, lent matB
	dense.dense(a, k, k)
	lent.inPlace(src, rows, cols)
	v, x, y := sparseVec(r, k, 0.05), sparseVec(r, k, 0.5), sparseVec(r, k, 0.5)
	out, c := make([]float64, k), make([]float64, k)
	for _, m := range []struct {
		name string
		b    *matB
	}{{"dense", &dense}, {"inplace", &lent}} {
		b.Run("mulT/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * k * k))
			for b.Loop() {
				m.b.mulT(1, v, out)
			}
		})
		b.Run("mulBoth/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * k * k))
			for b.Loop() {
				m.b.mulBoth(x, y, out, c)
			}
		})
	}
}
