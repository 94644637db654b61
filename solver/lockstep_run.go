package solver

import "github.com/gpump/gpump/tensorops"

// Running the queued operations: a group of lanes at the same operation
// runs as one batched call (batched) or game by game on the lanes' views
// (runOne).

// op is the operation at the lane's cursor.
func (l *lane) op() *laneOp { return &l.queue[l.cursor] }

// batchable reports whether op has a batched form: its operands are all
// slots (or absent) and its sets simplices without linear terms.
func (d *lockstep) batchable(op *laneOp) bool {
	for _, s := range op.key[1:] {
		if s == -2 {
			return false
		}
	}
	switch op.kind {
	case lkOperator, lkMulVec, lkMulTVec:
		return op.mat.batched
	case lkCopy, lkAxpby, lkRegret:
		return true
	case lkProx:
		return simplex(op.set.Setup)
	case lkProxStats:
		for i := range op.pb {
			if !simplex(op.pb[i].Set.Setup) || op.pb[i].Lin != nil {
				return false
			}
		}
		return true
	case lkAverage:
		for i := range op.ab {
			if !simplex(op.ab[i].Set.Setup) || op.ab[i].Lin != nil {
				return false
			}
		}
		return true
	case lkStore:
		// One transfer of the whole batch vector pays off only for more
		// than one game.
		return len(d.group) > 1
	}
	return false
}

func simplex(s tensorops.Setup) bool { return s == tensorops.Entropic || s == tensorops.Euclidean }

// slot returns the batch vector of a lane vector (nil for nil).
func (d *lockstep) slot(v tensorops.Vector) tensorops.Vector {
	if v == nil {
		return nil
	}
	return d.slots[v.(*laneVec).slot]
}

// batched runs the operation op of d.group with one batched call on
// d.sel.
func (d *lockstep) batched(op *laneOp) {
	bb, sel, v := d.bb, d.sel, &op.v
	sl := func(k int) tensorops.Vector {
		if v[k] == nil {
			return nil
		}
		return d.slots[v[k].slot]
	}
	switch op.kind {
	case lkOperator:
		bb.BatchOperator(sl(0), sl(1), d.bm, sl(2), sl(3), sel)
	case lkMulVec:
		bb.BatchMulVec(sl(0), d.bm, sl(1), sel)
	case lkMulTVec:
		bb.BatchMulTVec(sl(0), d.bm, sl(1), sel)
	case lkCopy:
		bb.BatchCopy(sl(0), sl(1), sel)
	case lkAxpby:
		bb.BatchAxpby(sl(0), d.s1, sl(1), d.s2, sl(2), sel)
	case lkProx:
		bb.BatchProx(tensorops.Point{State: sl(0), Value: sl(1)}, tensorops.Point{State: sl(2), Value: sl(3)},
			sl(4), d.s1, op.set.Setup, sel)
	case lkRegret:
		bb.BatchRegretMatch(sl(0), sl(1), sl(2), d.s2, d.s1, op.pred, sel)
	case lkProxStats:
		nb := len(op.pb)
		d.pb = d.pb[:0]
		for i := range op.pb {
			b := &op.pb[i]
			d.pb = append(d.pb, tensorops.ProxBlock{
				Set:  tensorops.Set{Setup: b.Set.Setup},
				Y:    tensorops.Point{State: d.slot(b.Y.State), Value: d.slot(b.Y.Value)},
				X:    tensorops.Point{State: d.slot(b.X.State), Value: d.slot(b.X.Value)},
				YNew: tensorops.Point{State: d.slot(b.YNew.State), Value: d.slot(b.YNew.Value)},
				M:    d.slot(b.M), G: d.slot(b.G),
				AvgX: d.slot(b.AvgX), AvgG: d.slot(b.AvgG),
				NewAvgX: d.slot(b.NewAvgX), NewAvgG: d.slot(b.NewAvgG),
			})
		}
		d.pdst = grow(d.pdst, nb*len(d.group))
		hand(d.group, d.pdst, nb, bb.BatchProxStats(d.pdst, d.s1, d.pb, sel), func(op *laneOp) []tensorops.BlockStats { return op.pdst })
		clear(d.pb)
	case lkAverage:
		nb := len(op.ab)
		d.ab = d.ab[:0]
		for i := range op.ab {
			b := &op.ab[i]
			d.ab = append(d.ab, tensorops.AvgBlock{Set: tensorops.Set{Setup: b.Set.Setup},
				X: d.slot(b.X), G: d.slot(b.G), AvgX: d.slot(b.AvgX), AvgG: d.slot(b.AvgG)})
		}
		d.adst = grow(d.adst, nb*len(d.group))
		hand(d.group, d.adst, nb, bb.BatchAverage(d.adst, d.s1, d.ab, sel), func(op *laneOp) []tensorops.GapStats { return op.adst })
		clear(d.ab)
	case lkStore:
		// One copy of the whole batch vector to the host, then each game's
		// part: one transfer instead of one per game on a device.
		n := op.v[0].n
		d.host = grow(d.host, n*d.bt.b)
		err := bb.Store(d.host, sl(0))
		for _, l := range d.group {
			copy(l.op().host, d.host[l.k*n:(l.k+1)*n])
			l.fail(err)
		}
	}
}

// hand gives each lane of group its nb results of a batched stats call
// (all: the group's, game after game) in the slice of its operation, and
// the call's error.
func hand[S any](group []*lane, all []S, nb int, err error, dst func(*laneOp) []S) {
	for i, l := range group {
		copy(dst(l.op()), all[i*nb:(i+1)*nb])
		l.fail(err)
	}
}

// fail records err (nil: none) as the lane's error for its next wait,
// unless an earlier operation of the same flush failed: Load queues
// without waiting, so its failure must outlive the synchronization point
// that follows it, whose own success would otherwise hide it. The error is
// the backend's own, as a Backend returns it: the game's code adds the
// package's prefix.
func (l *lane) fail(err error) {
	if l.err == nil && err != nil {
		l.err = err
	}
}

// grow returns s with length n, reallocated only when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// view is the backend's vector behind a lane vector (nil for nil).
func view(v tensorops.Vector) tensorops.Vector {
	if v == nil {
		return nil
	}
	return v.(*laneVec).v
}

func viewPoint(p tensorops.Point) tensorops.Point {
	return tensorops.Point{State: view(p.State), Value: view(p.Value)}
}

func viewSet(s tensorops.Set) tensorops.Set {
	s.Lo, s.Hi, s.Center = view(s.Lo), view(s.Hi), view(s.Center)
	return s
}

// runOne runs op on this lane's game alone, on its views.
func (l *lane) runOne(op *laneOp) {
	d := l.d
	be := d.bb
	if d.err != nil {
		l.fail(d.err)
		return
	}
	v := &op.v
	vw := func(k int) tensorops.Vector {
		if v[k] == nil {
			return nil
		}
		return v[k].v
	}
	switch op.kind {
	case lkOperator:
		be.Operator(vw(0), vw(1), op.mat.v, vw(2), vw(3))
	case lkMulVec:
		be.MulVec(vw(0), op.mat.v, vw(1))
	case lkMulTVec:
		be.MulTVec(vw(0), op.mat.v, vw(1))
	case lkCopy:
		be.Copy(vw(0), vw(1))
	case lkAxpby:
		be.Axpby(vw(0), op.s1, vw(1), op.s2, vw(2))
	case lkProx:
		be.Prox(tensorops.Point{State: vw(0), Value: vw(1)}, tensorops.Point{State: vw(2), Value: vw(3)}, vw(4), op.s1, viewSet(op.set))
	case lkRegret:
		be.RegretMatch(vw(0), vw(1), vw(2), op.s2, op.s1, op.pred)
	case lkStart:
		be.Start(tensorops.Point{State: vw(0), Value: vw(1)}, viewSet(op.set))
	case lkLoad:
		l.fail(be.Load(vw(0), op.host))
	case lkStore:
		l.fail(be.Store(op.host, vw(0)))
	case lkSampled:
		be.SampledOperator(vw(0), vw(1), op.mat.v, op.at, vw(2), vw(3), op.draw)
	case lkProxStats:
		d.pb = d.pb[:0]
		for _, b := range op.pb {
			d.pb = append(d.pb, tensorops.ProxBlock{Set: viewSet(b.Set), Y: viewPoint(b.Y), X: viewPoint(b.X), YNew: viewPoint(b.YNew),
				M: view(b.M), G: view(b.G), Lin: view(b.Lin), AvgX: view(b.AvgX), AvgG: view(b.AvgG),
				NewAvgX: view(b.NewAvgX), NewAvgG: view(b.NewAvgG)})
		}
		l.fail(be.ProxStats(op.pdst, op.s1, d.pb))
		clear(d.pb)
	case lkAverage:
		d.ab = d.ab[:0]
		for _, b := range op.ab {
			d.ab = append(d.ab, tensorops.AvgBlock{Set: viewSet(b.Set), X: view(b.X), G: view(b.G), Lin: view(b.Lin),
				AvgX: view(b.AvgX), AvgG: view(b.AvgG)})
		}
		l.fail(be.Average(op.adst, op.s1, d.ab))
		clear(d.ab)
	}
}
