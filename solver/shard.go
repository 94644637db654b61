package solver

import (
	"errors"
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// Shard is a backend on one of several processes that together hold one
// game's payoff matrix, each a contiguous block of its rows (package shard
// implements it, over MPI and in process). The processes run the same
// solve in lockstep: every call the solver makes on a Shard, it makes on
// every process with the same arguments, and a Shard answers every process
// with the same bits, so that the processes take the same branches.
//
// Besides the backend contract, where a Matrix has the whole game's shape
// and a Vector the whole block's length, the solver needs the reductions
// of the payoff scan and of the norms, and the submatrices of the support
// crossover.
type Shard interface {
	tensorops.Backend
	// Rows returns this process's rows [lo, hi) of the game's m.
	Rows() (lo, hi, m int)
	// AllMax sets each x[i] to its maximum over the processes.
	AllMax(x []float64)
	// AllSum sets each x[i] to its sum over the processes, added in an
	// order that does not depend on timing.
	AllSum(x []float64)
}

// NewShardedMatrixGame returns this process's part of the m×n game whose
// rows [lo, hi) (be.Rows) are block, a contiguous row-major float64 or
// float32 tensor of hi − lo rows, placed on be for good. Every process of
// the group calls it with its own block; max |A_ij| and the finiteness
// check cover the whole matrix, so every process gets the same game or the
// same error. Solve it on every process with the same problem, settings
// and method: each returns the same result.
//
// The game's Payoff is the block, and SetPayoff takes this process's new
// block, called by every process together (its scan is reduced over
// them). Close frees it from be; a closed sharded
// game cannot be solved (no process holds the whole matrix to fall back
// on).
func NewShardedMatrixGame(block *tensor.Dense, be Shard) (*MatrixGame, error) {
	if be == nil {
		return nil, errors.New("solver: NewShardedMatrixGame on a nil backend")
	}
	lo, hi, m := be.Rows()
	rows, n, err := tensorops.CheckMatrix(block)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	if rows != hi-lo {
		return nil, fmt.Errorf("solver: rows [%d, %d) of the game in a block of %d rows", lo, hi, rows)
	}
	g := &MatrixGame{m: m, n: n, shard: be, lo: lo}
	mx, err := g.check(block)
	if err != nil {
		return nil, err
	}
	g.commit(block, mx)
	if err := g.Place(be); err != nil {
		return nil, err
	}
	return g, nil
}

// rows is the number of rows of the payoff matrix this process holds.
func (g *MatrixGame) rows() int {
	if g.shard != nil {
		_, hi, _ := g.shard.Rows()
		return hi - g.lo
	}
	return g.m
}

// shardScan combines the processes' scans of their blocks: max |A_ij| over
// the whole matrix, or the error naming the first non-finite entry of it,
// the same on every process. bad is the block's first offending entry
// (−1: none) and v its value.
func (g *MatrixGame) shardScan(mx float64, bad int, v float64) (float64, error) {
	first := math.Inf(-1) // −(global index of the first bad entry)
	if bad >= 0 {
		first = -float64(g.lo*g.n + bad)
	}
	r := [2]float64{mx, first}
	g.shard.AllMax(r[:])
	if math.IsInf(r[1], -1) {
		return r[0], nil
	}
	at := int(-r[1])
	val := [1]float64{0}
	if bad >= 0 && g.lo*g.n+bad == at {
		val[0] = v
	}
	g.shard.AllSum(val[:]) // 0 from every other process: v exactly
	return 0, fmt.Errorf("solver: payoff matrix entry (%d, %d) is %v", at/g.n, at%g.n, val[0])
}

// shardNorms combines the processes' sums of squares (computeNorms): the
// column sums and the total are summed, the row maximum maximized.
func (g *MatrixGame) shardNorms(rowMax, total float64) (float64, float64, float64) {
	s := append(g.colSums, total)
	g.shard.AllSum(s)
	g.colSums = s[:g.n]
	r := [1]float64{rowMax}
	g.shard.AllMax(r[:])
	var colMax float64
	for _, c := range g.colSums {
		colMax = math.Max(colMax, c)
	}
	return r[0], colMax, s[g.n]
}

// shardRows gathers A[rows, cols] times unit into dst on every process:
// each fills the rows it holds, zeros elsewhere, and the sum over the
// processes adds each entry to zeros only, so it arrives exact.
func (pg *polishGame) shardRows(rows, cols []int, dst []float64) {
	g := pg.pl.g
	lo, hi := g.lo, g.lo+g.rows()
	dst = dst[:len(rows)*len(cols)]
	clear(dst)
	for r, i := range rows {
		if i < lo || i >= hi {
			continue
		}
		local := []int{i - lo}
		if g.a.Dtype() == tensor.Float64 {
			gather(dst[r*len(cols):], g.a.Float64s(), g.n, local, cols, pg.pl.unit)
		} else {
			gather(dst[r*len(cols):], g.a.Float32s(), g.n, local, cols, pg.pl.unit)
		}
	}
	g.shard.AllSum(dst)
}

// toFloat is an entry of a float64 or float32 tensor as a float64.
func toFloat(v any) float64 {
	if f, ok := v.(float32); ok {
		return float64(f)
	}
	f, _ := v.(float64)
	return f
}
