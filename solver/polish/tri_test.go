package polish

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
)

// luFactors returns the LU factors (row-major, stride n) and pivots of a
// random well-conditioned n×n matrix: Gaussian entries plus 2√n on the
// diagonal, factored by Dgetrf with partial pivoting as spxWork.factor
// does.
func luFactors(n int, seed uint64) (lu []float64, ipiv []int) {
	r := rand.New(rand.NewPCG(seed, 9))
	lu = make([]float64, n*n)
	for i := range lu {
		lu[i] = r.NormFloat64()
	}
	for i := range n {
		lu[i*n+i] += 2 * math.Sqrt(float64(n))
	}
	ipiv = make([]int, n)
	var impl gonum.Implementation
	if !impl.Dgetrf(n, n, lu, n, ipiv) {
		panic("singular test matrix")
	}
	return lu, ipiv
}

// TestTrsv compares the blocked triangular solves with gonum's Dtrsv on
// the LU factors of random well-conditioned matrices, for every short
// block length and a large size, and luSolve with Dgetrs.
func TestTrsv(t *testing.T) {
	sizes := []int{1000}
	for n := 1; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var impl gonum.Implementation
	var k8 [8]float64
	for _, n := range sizes {
		lu, ipiv := luFactors(n, uint64(n))
		b := make([]float64, n)
		for i := range b {
			b[i] = 2*r.Float64() - 1
		}
		for _, tt := range []struct {
			name  string
			solve func(a []float64, lda int, z []float64, d *[8]float64)
			uplo  blas.Uplo
			trans blas.Transpose
			diag  blas.Diag
		}{
			{"LN", trsvLN, blas.Lower, blas.NoTrans, blas.Unit},
			{"UN", trsvUN, blas.Upper, blas.NoTrans, blas.NonUnit},
			{"UT", trsvUT, blas.Upper, blas.Trans, blas.NonUnit},
			{"LT", trsvLT, blas.Lower, blas.Trans, blas.Unit},
		} {
			// The factors again at a wider stride, NaN between rows,
			// which a read outside the triangle would spread.
			const pad = 3
			wide := make([]float64, n*(n+pad))
			for i := range wide {
				wide[i] = math.NaN()
			}
			for i := range n {
				copy(wide[i*(n+pad):], lu[i*n:(i+1)*n])
			}
			want := append([]float64(nil), b...)
			blas64.Trsv(tt.trans, blas64.Triangular{Uplo: tt.uplo, Diag: tt.diag, N: n, Stride: n, Data: lu}, vec(want))
			got := append([]float64(nil), b...)
			tt.solve(lu, n, got, &k8)
			if err := relErr(got, want); !(err <= 1e-12) {
				t.Errorf("n=%d %s: relative error %.3g from Dtrsv", n, tt.name, err)
			}
			copy(got, b)
			tt.solve(wide, n+pad, got, &k8)
			if err := relErr(got, want); !(err <= 1e-12) {
				t.Errorf("n=%d %s at stride n+%d: relative error %.3g from Dtrsv", n, tt.name, pad, err)
			}
		}
		sw := &spxWork{lu: lu, ipiv: ipiv}
		for _, trans := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			want := append([]float64(nil), b...)
			impl.Dgetrs(trans, n, 1, lu, n, ipiv, want, 1)
			got := append([]float64(nil), b...)
			sw.luSolve(trans, got)
			if err := relErr(got, want); !(err <= 1e-12) {
				t.Errorf("n=%d luSolve %c: relative error %.3g from Dgetrs", n, trans, err)
			}
		}
	}
}

// relErr returns max|got − want| / max|want|.
func relErr(got, want []float64) float64 {
	var d, m float64
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	return d / m
}

// BenchmarkLUSolve measures spxWork.luSolve, the two triangular solves of
// a simplex step, at kernel sizes of large subgames, both ways. The bytes
// are those of the factors, each read once per solve.
func BenchmarkLUSolve(b *testing.B) {
	for _, S := range []int{500, 1000, 2000} {
		lu, ipiv := luFactors(S, 1)
		sw := &spxWork{lu: lu, ipiv: ipiv}
		z, z0 := make([]float64, S), make([]float64, S)
		r := rand.New(rand.NewPCG(2, 3))
		for i := range z0 {
			z0[i] = 2*r.Float64() - 1
		}
		for _, t := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			name := "NoTrans"
			if t == blas.Trans {
				name = "Trans"
			}
			b.Run(fmt.Sprintf("%s/%d", name, S), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(8 * S * S))
				for b.Loop() {
					// A fresh right-hand side each time (the copy is a
					// thousandth of the solve): solving in place again
					// and again would drift toward overflow or zero.
					copy(z, z0)
					sw.luSolve(t, z)
				}
			})
		}
	}
}

// TestSolve2 checks that solve2 gives two solves' results to the bit, on
// the bases that cold solves of games of several sizes end with (kernels
// of every size mod 8, loose rows, product-form updates), under the
// kernel set in use.
func TestSolve2(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, sz := range [][2]int{{3, 2}, {17, 13}, {40, 37}, {90, 70}, {150, 151}} {
		for seed := uint64(1); seed <= 3; seed++ {
			m, n := sz[0], sz[1]
			a := gaussianGame(m, n, seed)
			var s Subgame
			if _, err := s.Solve(make([]float64, m), make([]float64, n), a, m, n); err != nil {
				t.Fatal(err)
			}
			sw := &s.w.spx
			N := sw.n
			b1, b2 := make([]float64, N), make([]float64, N)
			for i := range N {
				b1[i], b2[i] = r.NormFloat64(), r.NormFloat64()
			}
			want1, want2 := make([]float64, N), make([]float64, N)
			got1, got2 := make([]float64, N), make([]float64, N)
			sw.solve(b1, want1)
			sw.solve(b2, want2)
			sw.solve2(b1, b2, got1, got2)
			for i := range N {
				if math.Float64bits(got1[i]) != math.Float64bits(want1[i]) || math.Float64bits(got2[i]) != math.Float64bits(want2[i]) {
					t.Fatalf("%d×%d seed %d (kernel %d, %d loose rows, %d updates): position %d: solve2 %v, %v; solve %v, %v",
						m, n, seed, len(sw.kc), len(sw.lc), len(sw.etaR), i, got1[i], got2[i], want1[i], want2[i])
				}
			}
		}
	}
}
