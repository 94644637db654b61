package solver

import (
	"context"
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver/polish"
	"github.com/gpump/gpump/tensorops"
)

// polishGame is a matrix game as the support crossover (package polish)
// sees it: passes over A on the game's backend and submatrices gathered from
// the host copy, both in the solver's internal units (A times the game's
// unit), so that subnormal and huge payoffs polish like moderate ones.
type polishGame struct {
	pl             *placement
	p, q, fp, fq   tensorops.Vector
	m, n           int
	unit, maxAbsIn float64
}

var _ polish.Game = (*polishGame)(nil)

// polishOf returns the placement's crossover view, made on first use.
func polishOf(pl *placement) (*polishGame, error) {
	if pl.polish != nil {
		return pl.polish, nil
	}
	g := pl.g
	pg := &polishGame{pl: pl, m: g.m, n: g.n}
	for _, v := range []struct {
		dst *tensorops.Vector
		n   int
	}{{&pg.p, g.m}, {&pg.q, g.n}, {&pg.fp, g.m}, {&pg.fq, g.n}} {
		var err error
		if *v.dst, err = pl.vec(v.n); err != nil {
			return nil, err
		}
	}
	pl.polish = pg
	return pg, nil
}

// reset follows the game's current payoffs (SetPayoff changes the unit).
func (pg *polishGame) reset() {
	pg.unit = pg.pl.unit
	pg.maxAbsIn = pg.pl.g.maxAbs * pg.unit
}

func (pg *polishGame) Dims() (m, n int) { return pg.m, pg.n }

// MaxAbs is max |A_ij| in internal units, Polish's default scale.
func (pg *polishGame) MaxAbs() float64 { return pg.maxAbsIn }

// Pass sets aq = A q and atp = Aᵀp (internal units) with one pass on the
// backend.
func (pg *polishGame) Pass(ctx context.Context, p, q, aq, atp []float64) error {
	be := pg.pl.be
	if err := be.Load(pg.p, p); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if err := be.Load(pg.q, q); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	// The unit scales the strategies before the pass (tiny payoffs: no
	// product underflows) or the products after it (huge ones), as the
	// methods' passes do.
	if pg.unit > 1 {
		be.Axpby(pg.p, pg.unit, pg.p, 0, pg.p)
		be.Axpby(pg.q, pg.unit, pg.q, 0, pg.q)
	}
	be.Operator(pg.fp, pg.fq, pg.pl.a, pg.p, pg.q)
	s := -1.0
	if pg.unit < 1 {
		s = -pg.unit
	}
	be.Axpby(pg.fp, s, pg.fp, 0, pg.fp)
	if pg.unit < 1 {
		be.Axpby(pg.fq, pg.unit, pg.fq, 0, pg.fq)
	}
	if err := be.Store(aq, pg.fp); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if err := be.Store(atp, pg.fq); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}

// Rows gathers A[rows, cols] times the unit from the host copy of A.
func (pg *polishGame) Rows(rows, cols []int, dst []float64) error {
	a := pg.pl.g.a
	if len(dst) < len(rows)*len(cols) {
		return fmt.Errorf("solver: a %d×%d submatrix in %d entries", len(rows), len(cols), len(dst))
	}
	if a.Dtype() == tensor.Float64 {
		gather(dst, a.Float64s(), pg.n, rows, cols, pg.unit)
	} else {
		gather(dst, a.Float32s(), pg.n, rows, cols, pg.unit)
	}
	return nil
}

func gather[T float32 | float64](dst []float64, a []T, n int, rows, cols []int, unit float64) {
	k := 0
	for _, i := range rows {
		row := a[i*n : (i+1)*n]
		for _, j := range cols {
			dst[k] = float64(row[j]) * unit
			k++
		}
	}
}
