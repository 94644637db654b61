package polish

import (
	"math"
	"runtime"
	"sync"

	"github.com/gpump/gpump/tensorops"
	"gonum.org/v1/gonum/lapack/gonum"
)

// luBlock is the panel width of getrf.
const luBlock = 32

// luMin is the smallest matrix getrf factors itself: below it gonum's
// Dgetrf is as fast or faster (0.02 ms against 0.03 at 64; at 96, 0.079
// against 0.070; DESIGN.md).
const luMin = 96

// luParallelMin is the smallest trailing update (rows × columns) that
// getrf splits between goroutines.
const luParallelMin = 128 * 128

// luWork is getrf's scratch: the row kernels' coefficients, one set per
// goroutine of the trailing update, in long-lived memory (see tensorops).
type luWork struct {
	p8 [][8]float64
	p4 [][4]float64
	wg sync.WaitGroup
}

// getrf computes the LU factorization with partial pivoting of the n×n
// row-major matrix a (row stride lda) in place, in Dgetrf's format: a
// unit lower triangular L below the diagonal, U on and above it, and
// ipiv[j] the row swapped with row j at step j (rows are swapped whole).
// It reports false if U has a zero on its diagonal (the factorization is
// then complete but singular), as Dgetrf does.
//
// Below luMin rows it calls gonum's Dgetrf. Above, it is the
// right-looking blocked algorithm: a panel of luBlock columns
// is factored column by column, the block row to its right is solved with
// the panel's unit lower triangle, and the trailing matrix is updated by
// the panel's product, row by row with tensorops' 8-row axpy over the
// block row (which stays in cache): the update, nearly all of the flops,
// runs at the row kernels' speed: 1.2–2.2 times gonum's Dgetrf at
// 128–1000 (DESIGN.md). Both pick the same pivots (the first largest
// magnitude); the factors differ by rounding.
func (lw *luWork) getrf(n int, a []float64, lda int, ipiv []int) bool {
	if n < luMin {
		return gonum.Implementation{}.Dgetrf(n, n, a, lda, ipiv)
	}
	ok := true
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	if len(lw.p8) < workers {
		lw.p8 = make([][8]float64, workers)
		lw.p4 = make([][4]float64, workers)
	}
	for k0 := 0; k0 < n; k0 += luBlock {
		kb := min(luBlock, n-k0)
		k1 := k0 + kb
		// The panel: columns k0..k1 of rows k0..n, unblocked.
		for j := k0; j < k1; j++ {
			p, mx := j, math.Abs(a[j*lda+j])
			for i := j + 1; i < n; i++ {
				if v := math.Abs(a[i*lda+j]); v > mx {
					p, mx = i, v
				}
			}
			ipiv[j] = p
			if p != j {
				rj, rp := a[j*lda:j*lda+n], a[p*lda:p*lda+n]
				for c := range rj {
					rj[c], rp[c] = rp[c], rj[c]
				}
			}
			d := a[j*lda+j]
			if d == 0 {
				ok = false
				continue
			}
			inv := 1 / d
			tiny := math.Abs(d) < 0x1p-1022 // 1/d overflows: divide
			urow := a[j*lda+j+1 : j*lda+k1]
			for i := j + 1; i < n; i++ {
				l := a[i*lda+j] * inv
				if tiny {
					l = a[i*lda+j] / d
				}
				a[i*lda+j] = l
				if l != 0 {
					row := a[i*lda+j+1 : i*lda+k1]
					for c, u := range urow {
						row[c] -= l * u
					}
				}
			}
		}
		if k1 == n {
			break
		}
		w := n - k1
		// The block row: U12 = L11⁻¹ A12, row by row.
		for r := k0 + 1; r < k1; r++ {
			lw.axpyRows(0, a[k0*lda+k1:], lda, r-k0, w, a[r*lda+k1:r*lda+n], a[r*lda+k0:r*lda+r])
		}
		// The trailing matrix: A22 −= L21 U12, split by rows.
		rows := n - k1
		parts := 1
		if rows*w >= luParallelMin {
			parts = min(workers, rows/16)
		}
		if parts <= 1 {
			lw.trailing(0, a, lda, k0, k1, n, k1, n)
			continue
		}
		// Parts 1… on goroutines, part 0 on this one; the bounds go as
		// arguments, so that no loop variable moves to the heap.
		lw.wg.Add(parts - 1)
		for t := 1; t < parts; t++ {
			go lw.trailingDone(t, a, lda, k0, k1, n, k1+rows*t/parts, k1+rows*(t+1)/parts)
		}
		lw.trailing(0, a, lda, k0, k1, n, k1, k1+rows/parts)
		lw.wg.Wait()
	}
	return ok
}

// trailing updates rows lo..hi of the trailing matrix after the panel
// k0..k1: A[i, k1:n] −= L[i, k0:k1] · U[k0:k1, k1:n]. t picks the
// goroutine's coefficient arrays.
func (lw *luWork) trailing(t int, a []float64, lda, k0, k1, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		lw.axpyRows(t, a[k0*lda+k1:], lda, k1-k0, n-k1, a[i*lda+k1:i*lda+n], a[i*lda+k0:i*lda+k1])
	}
}

// trailingDone is trailing on a goroutine of getrf's update.
func (lw *luWork) trailingDone(t int, a []float64, lda, k0, k1, n, lo, hi int) {
	defer lw.wg.Done()
	lw.trailing(t, a, lda, k0, k1, n, lo, hi)
}

// axpyRows subtracts Σ_r l[r]·u[r*lda : r*lda+w] over the rows r < nr from
// s, 8 and 4 rows at a time.
func (lw *luWork) axpyRows(t int, u []float64, lda, nr, w int, s, l []float64) {
	p8, p4 := &lw.p8[t], &lw.p4[t]
	r := 0
	for ; r+8 <= nr; r += 8 {
		for q := range 8 {
			p8[q] = -l[r+q]
		}
		tensorops.AxpyRows8(u[r*lda:], lda, w, s, p8)
	}
	for ; r+4 <= nr; r += 4 {
		for q := range 4 {
			p4[q] = -l[r+q]
		}
		tensorops.AxpyRows4(u[r*lda:], lda, w, s, p4)
	}
	for ; r < nr; r++ {
		if l[r] != 0 {
			tensorops.Axpy(s, -l[r], u[r*lda:r*lda+w])
		}
	}
}
