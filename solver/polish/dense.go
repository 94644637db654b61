package polish

import (
	"context"
	"fmt"
	"math"
)

// Dense is a Game on a row-major float64 matrix in memory.
type Dense struct {
	M, N int
	A    []float64 // M·N entries, row-major
}

var (
	_ Game   = (*Dense)(nil)
	_ Lender = (*Dense)(nil)
)

// Dims returns the numbers of rows and columns.
func (d *Dense) Dims() (m, n int) { return d.M, d.N }

// Pass computes aq = A q and atp = Aᵀ p, row by row.
func (d *Dense) Pass(ctx context.Context, p, q, aq, atp []float64) error {
	if len(d.A) != d.M*d.N || len(p) != d.M || len(q) != d.N || len(aq) != d.M || len(atp) != d.N {
		return fmt.Errorf("polish: pass on a %d×%d game with %d entries and vectors of length %d, %d, %d, %d", d.M, d.N, len(d.A), len(p), len(q), len(aq), len(atp))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	mulBoth(d.A, d.M, d.N, p, q, aq, atp)
	return nil
}

// Rows gathers A[rows, cols] row-major into dst.
func (d *Dense) Rows(rows, cols []int, dst []float64) error {
	if len(dst) != len(rows)*len(cols) {
		return fmt.Errorf("polish: gather of %d×%d into %d entries", len(rows), len(cols), len(dst))
	}
	for r, i := range rows {
		if i < 0 || i >= d.M {
			return fmt.Errorf("polish: row %d of %d", i, d.M)
		}
		src, out := d.A[i*d.N:(i+1)*d.N], dst[r*len(cols):(r+1)*len(cols)]
		for t, j := range cols {
			if j < 0 || j >= d.N {
				return fmt.Errorf("polish: column %d of %d", j, d.N)
			}
			out[t] = src[j]
		}
	}
	return nil
}

// Lend lends A in place.
func (d *Dense) Lend() (Matrix, bool) {
	return Matrix{Data: d.A, N: d.N, Stride: d.N, Scale: 1}, len(d.A) == d.M*d.N
}

// MaxAbs returns max |A_ij|, the unit of Polish's relative gap.
func (d *Dense) MaxAbs() float64 {
	s := 0.0
	for _, v := range d.A {
		s = math.Max(s, math.Abs(v))
	}
	return s
}
