package polish

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// Matrix is a game's payoff matrix lent to Polish in place: entry (i, j) of
// A is Scale·Data[i·Stride+j], for the N columns of each of its rows.
type Matrix struct {
	Data      []float64
	N, Stride int
	Scale     float64
}

// A Lender is a Game that can lend its matrix: Polish's subgames then read
// A[R, C] in place instead of copying it (see Polish for when they do).
// Lend reports false when the matrix is not in host memory as float64.
type Lender interface {
	Lend() (Matrix, bool)
}

// matB is a subgame's matrix B (k×l): either dense, row-major in a, or read
// in place through row and column indices from a lent matrix,
// B[i, j] = src(rows[i], cols[j]).
//
// In place, every product reads whole rows of the lent matrix against
// vectors scattered to its full width (zeros outside the subgame's
// columns) rather than gathering each row's subgame columns: the rows stay
// contiguous for the SIMD kernels, at the cost of reading n/l times the
// entries a dense copy would. Polish lends only when the subgame is a
// sizable share of A (there the copy is what costs memory, and n/l is
// small).
type matB struct {
	k, l int
	a    []float64 // dense B, or nil in place

	src        Matrix
	rows, cols []int
	yw, cw     []float64 // scratch of the lent matrix's width
}

// dense makes b the dense k×l matrix a.
func (b *matB) dense(a []float64, k, l int) {
	b.k, b.l, b.a = k, l, a
	b.rows, b.cols = nil, nil
}

// inPlace makes b the submatrix src[rows, cols].
func (b *matB) inPlace(src Matrix, rows, cols []int) {
	b.k, b.l, b.a = len(rows), len(cols), nil
	b.src, b.rows, b.cols = src, rows, cols
	b.yw = grow(b.yw, src.N)
	b.cw = grow(b.cw, src.N)
}

// release drops b's references to the caller's matrices, which a Subgame
// kept for later solves must not keep alive.
func (b *matB) release() {
	b.a, b.src, b.rows, b.cols = nil, Matrix{}, nil, nil
}

// row returns row i of the lent matrix, full width (in place only).
func (b *matB) row(i int) []float64 {
	o := b.rows[i] * b.src.Stride
	return b.src.Data[o : o+b.src.N]
}

// at returns B[i, j].
func (b *matB) at(i, j int) float64 {
	if b.a != nil {
		return b.a[i*b.l+j]
	}
	return b.src.Scale * b.src.Data[b.rows[i]*b.src.Stride+b.cols[j]]
}

// bounds are a matrix's largest magnitude, smallest and largest entry.
type bounds struct{ scale, lo, hi float64 }

// times returns the bounds of the matrix scaled by f > 0.
func (bd bounds) times(f float64) bounds { return bounds{f * bd.scale, f * bd.lo, f * bd.hi} }

// bounds checks that every entry is finite and returns b's bounds.
func (b *matB) bounds() (bounds, error) {
	var err error
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			err = fmt.Errorf("polish: subgame entry %v is not finite", v)
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		return true
	}
	if b.a != nil {
		for _, v := range b.a {
			if !see(v) {
				return bounds{}, err
			}
		}
	} else {
		for i := range b.k {
			row := b.row(i)
			for _, j := range b.cols {
				if !see(b.src.Scale * row[j]) {
					return bounds{}, err
				}
			}
		}
	}
	return bounds{math.Max(math.Abs(lo), math.Abs(hi)), lo, hi}, nil
}

// mulBoth computes r = B y and c = Bᵀx in one sweep.
func (b *matB) mulBoth(x, y, r, c []float64) {
	if b.a != nil {
		mulBoth(b.a, b.k, b.l, x, y, r, c)
		return
	}
	yw, cw := b.scatter(y)
	for i := range b.k {
		row := b.row(i)
		if x[i] != 0 {
			r[i] = b.src.Scale * tensorops.FusedRow(row, yw, cw, x[i])
		} else {
			r[i] = b.src.Scale * dot(row, yw)
		}
	}
	b.gatherTo(c, cw, 1)
}

// mulT computes dst = alpha·Bᵀv.
func (b *matB) mulT(alpha float64, v, dst []float64) {
	if b.a != nil {
		mulT(b.a, b.k, b.l, alpha, v, dst)
		return
	}
	cw := b.cw
	clear(cw)
	for i, vi := range v[:b.k] {
		if vi != 0 {
			axpy(cw, vi, b.row(i))
		}
	}
	b.gatherTo(dst, cw, alpha)
}

// mulT computes dst = alpha·aᵀv for the k×l matrix a: by blocks of 8
// rows with tensorops' 8-row update in AVX-512 or AVX2, where gonum's Gemv
// takes 4 rows at a time in 128-bit SSE2. Blocks of zero weights (the
// simplex's duals are zero on the loose rows) are skipped.
func mulT(a []float64, k, l int, alpha float64, v, dst []float64) {
	dst = dst[:l]
	clear(dst)
	nz := 0
	for _, vi := range v[:k] {
		if vi != 0 {
			nz++
		}
	}
	i := 0
	if 2*nz > k {
		for ; i+8 <= k; i += 8 {
			// v serves as the kernel's 8-entry array in place; alpha is
			// applied at the end.
			if vb := (*[8]float64)(v[i : i+8]); *vb != ([8]float64{}) {
				tensorops.AxpyRows8(a[i*l:], l, l, dst, vb)
			}
		}
	}
	// The rows left, one by one; all of them when the weights are mostly
	// zero (a row of the simplex's basis inverse: the kernel's rows and a
	// few more), so that only the rows that count are read, which
	// streaming the whole matrix through the 8-row kernel would read too.
	for ; i < k; i++ {
		if v[i] != 0 {
			axpy(dst, v[i], a[i*l:(i+1)*l])
		}
	}
	if alpha != 1 {
		for j := range dst {
			dst[j] *= alpha
		}
	}
}

// scatter spreads y over the lent matrix's columns in b.yw (zeros
// elsewhere) and clears b.cw. A column listed twice gets both weights, as
// the duplicated columns of a dense B would.
func (b *matB) scatter(y []float64) (yw, cw []float64) {
	yw, cw = b.yw, b.cw
	clear(yw)
	clear(cw)
	for t, j := range b.cols {
		yw[j] += y[t]
	}
	return yw, cw
}

// gatherTo writes alpha·Scale·full[cols[t]] into dst[t].
func (b *matB) gatherTo(dst, full []float64, alpha float64) {
	s := alpha * b.src.Scale
	for t, j := range b.cols {
		dst[t] = s * full[j]
	}
}

// column writes B[:, j] into dst[:k].
func (b *matB) column(j int, dst []float64) {
	if b.a != nil {
		for t := range b.k {
			dst[t] = b.a[t*b.l+j]
		}
		return
	}
	o, s := b.cols[j], b.src.Scale
	for t, i := range b.rows {
		dst[t] = s * b.src.Data[i*b.src.Stride+o]
	}
}

// sub writes B[I, J] into dst, row r at dst[r·ld:].
func (b *matB) sub(I, J []int, dst []float64, ld int) {
	for r, i := range I {
		out := dst[r*ld : r*ld+len(J)]
		if b.a != nil {
			row := b.a[i*b.l : (i+1)*b.l]
			for t, j := range J {
				out[t] = row[j]
			}
			continue
		}
		row, s := b.row(i), b.src.Scale
		for t, j := range J {
			out[t] = s * row[b.cols[j]]
		}
	}
}
