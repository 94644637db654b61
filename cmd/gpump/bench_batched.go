package main

import (
	"time"

	"github.com/gpump/gpump/tensorops"
)

// timedBatched counts the batched operations of a lockstep batch and times
// them: on a device the time of a call is its work (the batched statistics
// end at a synchronization point; a pass is counted when its launch
// returns, so its work shows in the next synchronizing call), and what is
// left of the run is the host's.
type timedBatched struct {
	tensorops.Batched
	calls, passes int
	spent         time.Duration
}

// time counts a batched call (a pass when pass is set) and returns the
// function that adds its time.
func (t *timedBatched) time(pass bool) func() {
	t.calls++
	if pass {
		t.passes++
	}
	return t.clock()
}

// clock returns the function that adds the time since now to spent.
func (t *timedBatched) clock() func() {
	t0 := time.Now()
	return func() { t.spent += time.Since(t0) }
}

func (t *timedBatched) BatchOperator(fp, fq tensorops.Vector, a tensorops.BatchMatrix, p, q tensorops.Vector, sel tensorops.Selection) {
	defer t.time(true)()
	t.Batched.BatchOperator(fp, fq, a, p, q, sel)
}

func (t *timedBatched) BatchMulVec(dst tensorops.Vector, a tensorops.BatchMatrix, q tensorops.Vector, sel tensorops.Selection) {
	defer t.time(true)()
	t.Batched.BatchMulVec(dst, a, q, sel)
}

func (t *timedBatched) BatchMulTVec(dst tensorops.Vector, a tensorops.BatchMatrix, p tensorops.Vector, sel tensorops.Selection) {
	defer t.time(true)()
	t.Batched.BatchMulTVec(dst, a, p, sel)
}

func (t *timedBatched) BatchCopy(dst, src tensorops.Vector, sel tensorops.Selection) {
	defer t.time(false)()
	t.Batched.BatchCopy(dst, src, sel)
}

func (t *timedBatched) BatchAxpby(dst tensorops.Vector, alpha []float64, x tensorops.Vector, beta []float64, y tensorops.Vector, sel tensorops.Selection) {
	defer t.time(false)()
	t.Batched.BatchAxpby(dst, alpha, x, beta, y, sel)
}

func (t *timedBatched) BatchProx(dst, center tensorops.Point, g tensorops.Vector, eta []float64, s tensorops.Setup, sel tensorops.Selection) {
	defer t.time(false)()
	t.Batched.BatchProx(dst, center, g, eta, s, sel)
}

func (t *timedBatched) BatchProxStats(dst []tensorops.BlockStats, w []float64, blocks []tensorops.ProxBlock, sel tensorops.Selection) error {
	defer t.time(false)()
	return t.Batched.BatchProxStats(dst, w, blocks, sel)
}

func (t *timedBatched) BatchAverage(dst []tensorops.GapStats, w []float64, blocks []tensorops.AvgBlock, sel tensorops.Selection) error {
	defer t.time(false)()
	return t.Batched.BatchAverage(dst, w, blocks, sel)
}

func (t *timedBatched) BatchRegretMatch(x, r, u tensorops.Vector, sign, tiny []float64, predictive bool, sel tensorops.Selection) {
	defer t.time(false)()
	t.Batched.BatchRegretMatch(x, r, u, sign, tiny, predictive, sel)
}

// Select is timed but not counted: it is part of the call it prepares.
func (t *timedBatched) Select(sel tensorops.Selection, games []int) error {
	defer t.clock()()
	return t.Batched.Select(sel, games)
}
