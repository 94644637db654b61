package polish

import (
	"gonum.org/v1/gonum/mat"
)

// project moves the pair (x, y) of the k×l game a onto the equalities of
// its own supports: with I, J the rows and columns scored in by
// selectSets (weight against slack, no trimming), it adds to (y_J, v) the
// minimum-norm correction that makes B[I,J] y = v·1, 1ᵀy = 1 hold, and to
// (x_I, w) the one for B[I,J]ᵀ x = w·1, 1ᵀx = 1, by least squares through
// the SVD (the systems may be rectangular and rank deficient). From an
// interior point near a degenerate game's optimal face, whose supports
// need not be of equal size nor give a nonsingular equalizer, the
// corrections are of the size of the interior point's residual and keep
// the weights positive: the exact point the square active set cannot
// reach there.
func (w *subWork) project(b *matB, x, y []float64, tol float64) {
	k, l := b.k, b.l
	copy(w.xr, x)
	copy(w.yr, y)
	b.mulBoth(x, y, w.r, w.c)
	clear(w.inI)
	v := dot(x, w.r)
	w.selectSets(k, l, v, tol, 1)
	// Undo the trimming: every positively scored row and column.
	w.I, w.J = w.I[:0], w.J[:0]
	for i := range k {
		if w.score[i] > 0 {
			w.I = append(w.I, i)
		}
	}
	for j := range l {
		if w.score[k+j] > 0 {
			w.J = append(w.J, j)
		}
	}
	correct := func(rows, cols []int, entry func(r, c int) float64, u []float64, val float64) {
		nr, nc := len(rows)+1, len(cols)+1
		m := mat.NewDense(nr, nc, nil)
		for r, i := range rows {
			for c, j := range cols {
				m.Set(r, c, entry(i, j))
			}
			m.Set(r, nc-1, -1)
		}
		for c := range cols {
			m.Set(nr-1, c, 1)
		}
		cur := mat.NewVecDense(nc, nil)
		for c, j := range cols {
			cur.SetVec(c, u[j])
		}
		cur.SetVec(nc-1, val)
		res := mat.NewVecDense(nr, nil)
		res.MulVec(m, cur)
		res.ScaleVec(-1, res)
		res.SetVec(nr-1, res.AtVec(nr-1)+1)
		var svd mat.SVD
		if !svd.Factorize(m, mat.SVDThin) {
			return
		}
		var d mat.VecDense
		svd.SolveVecTo(&d, res, svd.Rank(1e-12))
		clear(u)
		for c, j := range cols {
			u[j] = cur.AtVec(c) + d.AtVec(c)
		}
		normalize(u)
	}
	correct(w.I, w.J, b.at, y, v)
	if w.canceled() {
		return
	}
	correct(w.J, w.I, func(j, i int) float64 { return b.at(i, j) }, x, v)
}
