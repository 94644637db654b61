package polish

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// eqWork solves the equalizer systems of a support pair.
type eqWork struct {
	m, mc  []float64 // LU factors and a copy of the matrix
	ipiv   []int
	x, y   []float64 // solutions: weights then the value
	res    []float64
	work   []float64
	iwork  []int
	tau    []float64
	jpvt   []int
	qr     []float64
	impl   gonum.Implementation
	rowTmp []int
}

// solve solves the equalizer systems on rows I and columns J of the game a
// (l columns), |I| = |J|. If the system is singular it first reduces I and
// J to an independent square subsystem. It returns the sets used, the
// value, and false if no usable system was found; the weights are in e.x,
// e.y.
func (e *eqWork) solve(b *matB, I, J []int) ([]int, []int, float64, bool) {
	for attempt := 0; attempt < 2; attempt++ {
		n := len(I)
		N := n + 1
		e.build(b, I, J)
		e.ipiv = growInt(e.ipiv, N)
		e.work = grow(e.work, 4*N)
		e.iwork = growInt(e.iwork, N)
		anorm := e.impl.Dlange(lapack.MaxColumnSum, N, N, e.m, N, e.work)
		ok := e.impl.Dgetrf(N, N, e.m, N, e.ipiv)
		if ok && e.impl.Dgecon(lapack.MaxColumnSum, N, e.m, N, anorm, e.work, e.iwork) > 1e-12 {
			e.x = grow(e.x, N)
			e.y = grow(e.y, N)
			e.refined(e.y, blas.NoTrans, 1)
			e.refined(e.x, blas.Trans, -1)
			return I, J, e.y[n], true
		}
		if attempt == 1 || n == 0 {
			break
		}
		I, J = e.reduce(I, J)
	}
	return I, J, 0, false
}

// build writes the equalizer matrix [B[I,J] −1; 1ᵀ 0] into e.m and e.mc.
func (e *eqWork) build(b *matB, I, J []int) {
	n := len(I)
	N := n + 1
	e.m = grow(e.m, N*N)
	e.mc = grow(e.mc, N*N)
	b.sub(I, J, e.mc, N)
	for r := range I {
		e.mc[r*N+n] = -1
	}
	last := e.mc[n*N : N*N]
	for t := range n {
		last[t] = 1
	}
	last[n] = 0
	copy(e.m, e.mc)
}

// refined solves M sol = sgn·e_N (or Mᵀ) with the LU factors in e.m and
// two steps of iterative refinement against the copy e.mc: refinement in
// working precision makes the solve backward stable component by
// component, which the badly conditioned supports of random games need.
func (e *eqWork) refined(sol []float64, t blas.Transpose, sgn float64) {
	N := len(sol)
	clear(sol)
	sol[N-1] = sgn
	e.impl.Dgetrs(t, N, 1, e.m, N, e.ipiv, sol, 1)
	e.res = grow(e.res, N)
	M := blas64.General{Rows: N, Cols: N, Stride: N, Data: e.mc}
	for range 2 {
		clear(e.res)
		e.res[N-1] = sgn
		blas64.Gemv(t, -1, M, blas64.Vector{N: N, Inc: 1, Data: sol}, 1, blas64.Vector{N: N, Inc: 1, Data: e.res})
		e.impl.Dgetrs(t, N, 1, e.m, N, e.ipiv, e.res, 1)
		for i, d := range e.res {
			sol[i] += d
		}
	}
}

// reduce picks an independent square subsystem of a singular equalizer
// matrix (in e.mc): QR with column pivoting chooses independent columns,
// the value's column first, then QR with column pivoting of the transpose
// of those columns chooses as many independent rows, the normalization row
// first. The sets returned are the chosen rows and columns of the game.
func (e *eqWork) reduce(I, J []int) ([]int, []int) {
	n := len(I)
	N := n + 1
	// Columns: QR of e.mc with the value's column fixed in front.
	e.qr = grow(e.qr, N*N)
	copy(e.qr, e.mc)
	e.jpvt = growInt(e.jpvt, N)
	for i := range e.jpvt {
		e.jpvt[i] = -1
	}
	e.jpvt[n] = 0
	e.tau = grow(e.tau, N)
	r := e.qrRank(N, N)
	cols := slices.Clone(e.jpvt[:r])
	// Rows: QR of the transpose of the chosen columns, normalization row fixed.
	R := len(cols)
	for c, jc := range cols {
		for i := range N {
			e.qr[c*N+i] = e.mc[i*N+jc]
		}
	}
	for i := range N {
		e.jpvt[i] = -1
	}
	e.jpvt[n] = 0
	rr := e.qrRank(R, N)
	rows := e.jpvt[:rr]
	e.rowTmp = e.rowTmp[:0]
	for _, i := range rows {
		if i != n {
			e.rowTmp = append(e.rowTmp, I[i])
		}
	}
	var nJ []int
	for _, j := range cols {
		if j != n {
			nJ = append(nJ, J[j])
		}
	}
	m := min(len(e.rowTmp), len(nJ))
	I = append(I[:0], e.rowTmp[:m]...)
	J = append(J[:0], nJ[:m]...)
	slices.Sort(I)
	slices.Sort(J)
	return I, J
}

// qrRank factors the rows×cols matrix in e.qr by QR with column pivoting
// (pivots in e.jpvt) and returns its numerical rank.
func (e *eqWork) qrRank(rows, cols int) int {
	work := []float64{0}
	e.impl.Dgeqp3(rows, cols, e.qr, cols, e.jpvt, e.tau[:min(rows, cols)], work, -1)
	e.work = grow(e.work, int(work[0]))
	e.impl.Dgeqp3(rows, cols, e.qr, cols, e.jpvt, e.tau[:min(rows, cols)], e.work, len(e.work))
	r0 := math.Abs(e.qr[0])
	r := 0
	for r < min(rows, cols) && math.Abs(e.qr[r*cols+r]) > 1e-10*r0 {
		r++
	}
	return r
}
