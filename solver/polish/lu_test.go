package polish

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/lapack/gonum"
)

// TestGetrf compares getrf with gonum's Dgetrf, which it replaces from
// luMin up: the same pivots on matrices without ties, factors within
// rounding of each other, P·A = L·U to rounding, and the same report on
// singular matrices; with a row stride wider than the matrix, whose
// padding it must not touch.
func TestGetrf(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 61))
	kinds := []string{"gaussian", "zero column", "rank deficient", "zero"}
	for _, n := range []int{1, 7, 95, 96, 97, 127, 128, 129, 200, 257} {
		for _, kind := range kinds {
			lda := n + r.IntN(3)
			a := make([]float64, n*lda)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			switch kind {
			case "zero column":
				c := r.IntN(n)
				for i := range n {
					a[i*lda+c] = 0
				}
			case "rank deficient":
				// The last row a combination of two others.
				if n > 2 {
					for j := range n {
						a[(n-1)*lda+j] = a[j] - 2*a[lda+j]
					}
				}
			case "zero":
				clear(a)
			}
			got, want := append([]float64(nil), a...), append([]float64(nil), a...)
			gp, wp := make([]int, n), make([]int, n)
			var lw luWork
			gok := lw.getrf(n, got, lda, gp)
			wok := gonum.Implementation{}.Dgetrf(n, n, want, lda, wp)
			// Rank deficiency is exact only in exact arithmetic: the
			// report may differ there, nowhere else.
			if gok != wok && kind != "rank deficient" {
				t.Errorf("%s %d×%d: ok %v, Dgetrf %v", kind, n, n, gok, wok)
			}
			if kind == "gaussian" {
				for j := range n {
					if gp[j] != wp[j] {
						t.Fatalf("%s %d×%d: pivot %d is row %d, Dgetrf's %d", kind, n, n, j, gp[j], wp[j])
					}
				}
				for i := range n {
					for j := range n {
						if d := math.Abs(got[i*lda+j] - want[i*lda+j]); d > 1e-10*math.Max(1, math.Abs(want[i*lda+j])) {
							t.Fatalf("%s %d×%d: factor (%d, %d) %.17g, Dgetrf's %.17g", kind, n, n, i, j, got[i*lda+j], want[i*lda+j])
						}
					}
				}
			}
			for i := range n {
				for j := n; j < lda; j++ {
					if got[i*lda+j] != a[i*lda+j] {
						t.Fatalf("%s %d×%d: padding (%d, %d) changed", kind, n, n, i, j)
					}
				}
			}
			// P·A = L·U: apply the swaps to a copy of A and compare.
			pa := append([]float64(nil), a...)
			for j, p := range gp {
				for c := range n {
					pa[j*lda+c], pa[p*lda+c] = pa[p*lda+c], pa[j*lda+c]
				}
			}
			scale := 0.0
			for _, v := range a {
				scale = math.Max(scale, math.Abs(v))
			}
			for i := range n {
				for j := range n {
					var s float64
					for q := range min(i, j) + 1 {
						l := 1.0
						if q < i {
							l = got[i*lda+q]
						}
						s += l * got[q*lda+j]
					}
					if d := math.Abs(s - pa[i*lda+j]); d > 1e-12*float64(n)*math.Max(scale, 1e-300) {
						t.Fatalf("%s %d×%d: (LU − PA)[%d, %d] = %.3g", kind, n, n, i, j, d)
					}
				}
			}
		}
	}
}

// BenchmarkGetrf factors Gaussian matrices with getrf and with gonum's
// Dgetrf (the figures of DESIGN.md).
func BenchmarkGetrf(b *testing.B) {
	for _, n := range []int{64, 128, 200, 400, 1000} {
		r := rand.New(rand.NewPCG(62, 62))
		a := make([]float64, n*n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		c := make([]float64, n*n)
		ipiv := make([]int, n)
		var lw luWork
		b.Run("getrf/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				copy(c, a)
				lw.getrf(n, c, n, ipiv)
			}
		})
		b.Run("Dgetrf/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				copy(c, a)
				gonum.Implementation{}.Dgetrf(n, n, c, n, ipiv)
			}
		})
	}
}
