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
	pl           *placement
	p, q, fp, fq tensorops.Vector
}

var (
	_ polish.Game   = (*polishGame)(nil)
	_ polish.Lender = (*polishGame)(nil)
)

// polishOf returns the placement's crossover view, made on first use.
func polishOf(pl *placement) (*polishGame, error) {
	if pl.polish != nil {
		return pl.polish, nil
	}
	g := pl.g
	pg := &polishGame{pl: pl}
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

func (pg *polishGame) Dims() (m, n int) { return pg.pl.g.Dims() }

// MaxAbs is max |A_ij| in internal units, Polish's default scale.
func (pg *polishGame) MaxAbs() float64 { return pg.pl.g.storedMax * pg.pl.stored }

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
	// Scaled in place: the vectors are the crossover's own copies.
	pl := pg.pl
	be.Operator(pg.fp, pg.fq, pl.a, pl.in(pg.p, pg.p), pl.in(pg.q, pg.q))
	pl.out(pg.fp)
	pl.out(pg.fq)
	be.Axpby(pg.fp, -1, pg.fp, 0, pg.fp) // −A q → A q
	if err := be.Store(aq, pg.fp); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if err := be.Store(atp, pg.fq); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}

// Lend lends the host copy of A in place with the unit as its scale, when
// A is float64: a float32 A would need a mixed-precision kernel for every
// product, and its subgame copy is still made. A sharded game lends
// nothing: no process holds the rows of the others.
func (pg *polishGame) Lend() (polish.Matrix, bool) {
	a, n := pg.pl.g.a, pg.pl.g.n
	if a.Dtype() != tensor.Float64 || pg.pl.g.shard != nil {
		return polish.Matrix{}, false
	}
	return polish.Matrix{Data: a.Float64s(), N: n, Stride: n, Scale: pg.pl.stored}, true
}

// Rows gathers A[rows, cols] times the unit from the host copy of A; on a
// sharded game, from every process's block (a collective call, made by
// every process in lockstep).
func (pg *polishGame) Rows(rows, cols []int, dst []float64) error {
	a, n, unit := pg.pl.g.a, pg.pl.g.n, pg.pl.stored
	if len(dst) < len(rows)*len(cols) {
		return fmt.Errorf("solver: a %d×%d submatrix in %d entries", len(rows), len(cols), len(dst))
	}
	if pg.pl.g.shard != nil {
		pg.shardRows(rows, cols, dst)
		return nil
	}
	if a.Dtype() == tensor.Float64 {
		gather(dst, a.Float64s(), n, rows, cols, unit)
	} else {
		gather(dst, a.Float32s(), n, rows, cols, unit)
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
