package polish

import "github.com/gpump/gpump/tensorops"

// Triangular solves with the row-major LU factors of Dgetrf: a unit lower
// L below the diagonal and an upper U on and above it, in one n×n array a
// with row stride lda (n = len(z)).
//
// gonum's Dtrsv runs them as scalar loops with one dependent sum per row,
// bound by the latency of its additions. These are blocked by 8 rows: the
// product of a block of rows with the part of z already solved (or the
// update of the part still to solve by a block's solution) goes through
// tensorops' 8-row kernels, which read the eight rows in one pass with
// SIMD, and only the small triangle inside the block is scalar. Each entry
// of the triangle is still read once.
//
// The block boundaries are placed so that the one short block, of n mod 8
// rows, is the block that has no kernel work: the first block of a
// forward solve over the rows above it, the last block of the others. No
// 4- or 1-row kernel is needed.
//
// The sums are ordered differently from Dtrsv's, so the results differ
// from it by rounding.

// trsvLN solves L z = b in place, L unit lower triangular: forward, by
// blocks [r+8t, r+8t+8) after the first block [0, r), r = n mod 8. d is
// the kernels' scratch.
func trsvLN(a []float64, lda int, z []float64, d *[8]float64) {
	n := len(z)
	i0 := n % 8
	lowerBlock(a, lda, z, 0, i0)
	for ; i0 < n; i0 += 8 {
		if i0 > 0 {
			subDots(a[i0*lda:], lda, i0, z, z[i0:], d)
		}
		lowerBlock(a, lda, z, i0, i0+8)
	}
}

// subDots subtracts the dot products of the 8 rows of a (stride lda, n
// columns) with z from dst[:8]; d is the kernel's scratch.
func subDots(a []float64, lda, n int, z, dst []float64, d *[8]float64) {
	tensorops.DotRows8(a, lda, n, z, d)
	for k, dk := range d {
		dst[k] -= dk
	}
}

// lowerBlock finishes rows [i0, i1) of a forward solve with the unit lower
// triangle: the columns before i0 are done.
func lowerBlock(a []float64, lda int, z []float64, i0, i1 int) {
	zb := z[i0:i1]
	for k := 1; k < len(zb); k++ {
		i := i0 + k
		s := zb[k]
		for j, v := range a[i*lda+i0 : i*lda+i] {
			s -= v * zb[j]
		}
		zb[k] = s
	}
}

// trsvUN solves U z = b in place, U upper triangular with nonzero
// diagonal: backward, by blocks [8t, 8t+8) after the last block
// [n − n mod 8, n). d is the kernels' scratch.
func trsvUN(a []float64, lda int, z []float64, d *[8]float64) {
	n := len(z)
	i1 := n &^ 7
	upperBlock(a, lda, z, i1, n)
	for i0 := i1 - 8; i0 >= 0; i0 -= 8 {
		if c := i0 + 8; c < n {
			subDots(a[i0*lda+c:], lda, n-c, z[c:], z[i0:], d)
		}
		upperBlock(a, lda, z, i0, i0+8)
	}
}

// upperBlock finishes rows [i0, i1) of a backward solve with the upper
// triangle: the columns from i1 on are done.
func upperBlock(a []float64, lda int, z []float64, i0, i1 int) {
	for i := i1 - 1; i >= i0; i-- {
		s := z[i]
		zr := z[i+1 : i1]
		for j, v := range a[i*lda+i+1 : i*lda+i1] {
			s -= v * zr[j]
		}
		z[i] = s / a[i*lda+i]
	}
}

// trsvUT solves Uᵀz = b in place, U upper triangular with nonzero
// diagonal: forward, by blocks [8t, 8t+8), the last one short. Each
// solved block updates the rest of z with its rows of U (columns of Uᵀ):
// z[i1:] −= Σ_k z_k U[k, i1:]. p is the kernels' scratch.
func trsvUT(a []float64, lda int, z []float64, p *[8]float64) {
	n := len(z)
	for i0 := 0; i0 < n; i0 += 8 {
		i1 := min(i0+8, n)
		for i := i0; i < i1; i++ {
			zi := z[i] / a[i*lda+i]
			z[i] = zi
			zr := z[i+1 : i1]
			for j, v := range a[i*lda+i+1 : i*lda+i1] {
				zr[j] -= v * zi
			}
		}
		if i1 < n {
			// A block that ends before n is a full one.
			for k := range p {
				p[k] = -z[i0+k]
			}
			tensorops.AxpyRows8(a[i0*lda+i1:], lda, n-i1, z[i1:], p)
		}
	}
}

// trsvLT solves Lᵀz = b in place, L unit lower triangular: backward, by
// blocks [n−8t−8, n−8t), the last one [0, n mod 8). Each solved block
// updates the part of z above it with its rows of L (columns of Lᵀ):
// z[:i0] −= Σ_k z_k L[k, :i0]. p is the kernels' scratch.
func trsvLT(a []float64, lda int, z []float64, p *[8]float64) {
	for i1 := len(z); i1 > 0; i1 -= 8 {
		i0 := max(i1-8, 0)
		zb := z[i0:i1]
		for i := i1 - 1; i > i0; i-- {
			zi := z[i]
			for j, v := range a[i*lda+i0 : i*lda+i] {
				zb[j] -= v * zi
			}
		}
		if i0 > 0 {
			// A block that starts after 0 is a full one.
			for k := range p {
				p[k] = -z[i0+k]
			}
			tensorops.AxpyRows8(a[i0*lda:], lda, i0, z, p)
		}
	}
}

// trsvLN2 is trsvLN on z1 and z2, block by block: each block's rows are
// read for z1 and then, from cache, for z2; each vector gets trsvLN's
// operations in its order.
func trsvLN2(a []float64, lda int, z1, z2 []float64, d *[8]float64) {
	n := len(z1)
	i0 := n % 8
	lowerBlock(a, lda, z1, 0, i0)
	lowerBlock(a, lda, z2, 0, i0)
	for ; i0 < n; i0 += 8 {
		if i0 > 0 {
			subDots(a[i0*lda:], lda, i0, z1, z1[i0:], d)
			subDots(a[i0*lda:], lda, i0, z2, z2[i0:], d)
		}
		lowerBlock(a, lda, z1, i0, i0+8)
		lowerBlock(a, lda, z2, i0, i0+8)
	}
}

// trsvUN2 is trsvUN on z1 and z2, block by block (see trsvLN2).
func trsvUN2(a []float64, lda int, z1, z2 []float64, d *[8]float64) {
	n := len(z1)
	i1 := n &^ 7
	upperBlock(a, lda, z1, i1, n)
	upperBlock(a, lda, z2, i1, n)
	for i0 := i1 - 8; i0 >= 0; i0 -= 8 {
		if c := i0 + 8; c < n {
			subDots(a[i0*lda+c:], lda, n-c, z1[c:], z1[i0:], d)
			subDots(a[i0*lda+c:], lda, n-c, z2[c:], z2[i0:], d)
		}
		upperBlock(a, lda, z1, i0, i0+8)
		upperBlock(a, lda, z2, i0, i0+8)
	}
}
