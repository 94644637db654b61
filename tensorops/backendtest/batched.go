package backendtest

import (
	"math"
	"slices"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// batch is one shape's batch of games for the checks of the Batched
// operations: B games, the host copy of each game's matrix, and a selection
// that leaves out game 1 (when B ≥ 3) and lists the others in reverse
// order, so that an operation that ignores the selection or its order
// shows it.
type batch struct {
	bb    tensorops.Batched
	b     int
	a     [][]float64
	mat   tensorops.BatchMatrix
	games []int
	sel   tensorops.Selection
}

// batchEntries caps B·m·n of the batch of a shape, so that the large
// default shapes still get a batch of two.
const batchEntries = 1 << 20

// batched checks every operation of tensorops.Batched, when the backend has
// it, game by game against the references of the single-game operations,
// with the same tolerances. Destinations start as NaN and the games left
// out of the selection must come back bit for bit as they were.
func (st *selfTest) batched() error {
	bb, ok := st.b.(tensorops.Batched)
	if !ok {
		return nil
	}
	bt := &batch{bb: bb, b: min(max(batchEntries/(st.m*st.n), 2), 5)}
	var back []float64
	var back32 []float32
	saved := st.a
	for range bt.b {
		t := st.drawMatrix()
		bt.a = append(bt.a, st.a)
		if st.f32 {
			back32 = append(back32, t.Float32s()...)
		} else {
			back = append(back, t.Float64s()...)
		}
	}
	st.a = saved
	var t *tensor.Dense
	if st.f32 {
		t = tensor.New(tensor.WithShape(bt.b, st.m, st.n), tensor.WithBacking(back32))
	} else {
		t = tensor.New(tensor.WithShape(bt.b, st.m, st.n), tensor.WithBacking(back))
	}
	var err error
	if bt.mat, err = bb.NewBatchMatrix(t); err != nil {
		return err
	}
	st.owned = append(st.owned, bt.mat)
	for k := bt.b - 1; k >= 0; k-- {
		if k != 1 || bt.b < 3 {
			bt.games = append(bt.games, k)
		}
	}
	if bt.sel, err = bb.NewSelection(bt.b); err != nil {
		return err
	}
	st.owned = append(st.owned, bt.sel)
	if err := bb.Select(bt.sel, bt.games); err != nil {
		return err
	}
	for _, f := range []func(*batch) error{st.batchPasses, st.batchVectorOps, st.batchProx, st.batchProxStats, st.batchAverage, st.batchRegretMatch} {
		if err := st.ctx.Err(); err != nil {
			return err
		}
		if err := f(bt); err != nil {
			return err
		}
	}
	return nil
}

// selected reports whether game k is in the selection.
func (bt *batch) selected(k int) bool { return slices.Contains(bt.games, k) }

// bvec places the games' parts (each of the same length) as one batch
// vector.
func (st *selfTest) bvec(parts [][]float64) (tensorops.Vector, error) {
	return st.vec(slices.Concat(parts...))
}

// bvecs draws a batch vector whose game parts come from draw.
func (st *selfTest) bvecs(bt *batch, draw func() []float64) ([][]float64, tensorops.Vector, error) {
	parts := make([][]float64, bt.b)
	for k := range parts {
		parts[k] = draw()
	}
	v, err := st.bvec(parts)
	return parts, v, err
}

// bnans is a NaN-filled batch vector of block length n.
func (st *selfTest) bnans(bt *batch, n int) ([][]float64, tensorops.Vector, error) {
	return st.bvecs(bt, func() []float64 { return nans(n) })
}

// bstore brings a batch vector to the host, split into the games' parts,
// and records in e any change to the parts of games left out of the
// selection (was holds what they were).
func (st *selfTest) bstore(e *errAccum, bt *batch, v tensorops.Vector, was [][]float64) ([][]float64, error) {
	h, err := st.store(v)
	if err != nil {
		return nil, err
	}
	n := len(h) / bt.b
	parts := make([][]float64, bt.b)
	for k := range parts {
		parts[k] = h[k*n : (k+1)*n]
		if !bt.selected(k) {
			e.addBits(parts[k], was[k])
		}
	}
	return parts, nil
}

// batchPasses checks BatchOperator, BatchMulVec and BatchMulTVec.
func (st *selfTest) batchPasses(bt *batch) error {
	tol := reductionTol(max(st.m, st.n))
	for _, op := range []string{"Operator", "MulVec", "MulTVec"} {
		var e errAccum
		ph, p, err := st.bvecs(bt, func() []float64 { return st.uniform(st.m, -1, 1) })
		if err != nil {
			return err
		}
		qh, q, err := st.bvecs(bt, func() []float64 { return st.uniform(st.n, -1, 1) })
		if err != nil {
			return err
		}
		fph, fp, err := st.bnans(bt, st.m)
		if err != nil {
			return err
		}
		fqh, fq, err := st.bnans(bt, st.n)
		if err != nil {
			return err
		}
		switch op {
		case "Operator":
			bt.bb.BatchOperator(fp, fq, bt.mat, p, q, bt.sel)
		case "MulVec":
			bt.bb.BatchMulVec(fp, bt.mat, q, bt.sel)
		default:
			bt.bb.BatchMulTVec(fq, bt.mat, p, bt.sel)
		}
		gp, err := st.bstore(&e, bt, fp, fph)
		if err != nil {
			return err
		}
		gq, err := st.bstore(&e, bt, fq, fqh)
		if err != nil {
			return err
		}
		for _, k := range bt.games {
			if op != "MulTVec" {
				want, scale := refMulVec(bt.a[k], st.m, st.n, qh[k])
				if op == "Operator" {
					for i := range want {
						want[i] = -want[i]
					}
				}
				e.addVec(gp[k], want, scale)
			} else {
				e.addBits(gp[k], fph[k])
			}
			if op != "MulVec" {
				want, scale := refMulTVec(bt.a[k], st.m, st.n, ph[k])
				e.addVec(gq[k], want, scale)
			} else {
				e.addBits(gq[k], fqh[k])
			}
		}
		st.record("Batch"+op, tol, e)
	}
	return nil
}

// batchVectorOps checks BatchCopy (bit for bit) and BatchAxpby, on both
// block lengths.
func (st *selfTest) batchVectorOps(bt *batch) error {
	var ec, ea errAccum
	for _, n := range st.lens() {
		xh, x, err := st.bvecs(bt, func() []float64 { return st.wild(n) })
		if err != nil {
			return err
		}
		yh, y, err := st.bvecs(bt, func() []float64 { return st.uniform(n, -3, 3) })
		if err != nil {
			return err
		}
		dh, d, err := st.bnans(bt, n)
		if err != nil {
			return err
		}
		bt.bb.BatchCopy(d, x, bt.sel)
		got, err := st.bstore(&ec, bt, d, dh)
		if err != nil {
			return err
		}
		for _, k := range bt.games {
			ec.addBits(got[k], xh[k])
		}
		xh, x, err = st.bvecs(bt, func() []float64 { return st.uniform(n, -3, 3) })
		if err != nil {
			return err
		}
		alpha, beta := st.uniform(len(bt.games), -2, 2), st.uniform(len(bt.games), -2, 2)
		bt.bb.BatchAxpby(d, alpha, x, beta, y, bt.sel)
		if got, err = st.bstore(&ea, bt, d, dh); err != nil {
			return err
		}
		for i, k := range bt.games {
			want, scale := refAxpby(alpha[i], xh[k], beta[i], yh[k])
			ea.addVec(got[k], want, scale)
		}
	}
	st.record("BatchCopy", ExactTol, ec)
	st.record("BatchAxpby", ElementwiseTol, ea)
	return nil
}

// batchProx checks BatchProx on both simplex setups, each game with its own
// step: moderate ones and, for the entropic setup, one large enough to send
// probabilities below 1e-300.
func (st *selfTest) batchProx(bt *batch) error {
	tol := reductionTol(max(st.m, st.n))
	for _, setup := range []tensorops.Setup{tensorops.Entropic, tensorops.Euclidean} {
		var e errAccum
		for _, n := range st.lens() {
			cls := make([][]float64, bt.b)
			cps := make([][]float64, bt.b)
			for k := range cls {
				if setup == tensorops.Entropic {
					cls[k], cps[k] = st.logPoint(n, 3)
				} else {
					cps[k] = st.simplex(n, 0.2)
				}
			}
			var center, dst tensorops.Point
			var dlh, dvh [][]float64
			var err error
			if center.Value, err = st.bvec(cps); err != nil {
				return err
			}
			center.State = center.Value
			if dvh, dst.Value, err = st.bnans(bt, n); err != nil {
				return err
			}
			dst.State = dst.Value
			if setup == tensorops.Entropic {
				if center.State, err = st.bvec(cls); err != nil {
					return err
				}
				if dlh, dst.State, err = st.bnans(bt, n); err != nil {
					return err
				}
			}
			gh, g, err := st.bvecs(bt, func() []float64 { return st.uniform(n, -1, 1) })
			if err != nil {
				return err
			}
			eta := make([]float64, len(bt.games))
			for i := range eta {
				eta[i] = []float64{0.9, 800, 0.3, 50}[i%4]
			}
			bt.bb.BatchProx(dst, center, g, eta, setup, bt.sel)
			gv, err := st.bstore(&e, bt, dst.Value, dvh)
			if err != nil {
				return err
			}
			var gl [][]float64
			if setup == tensorops.Entropic {
				if gl, err = st.bstore(&e, bt, dst.State, dlh); err != nil {
					return err
				}
			}
			for i, k := range bt.games {
				if setup == tensorops.Entropic {
					e.addLogProx(tol, gl[k], gv[k], cls[k], gh[k], eta[i])
					continue
				}
				v, scale := stepped(cps[k], gh[k], eta[i])
				e.addVec(gv[k], refProjectSimplex(v), []float64{max(1, slices.Max(scale))})
			}
		}
		st.record("BatchProx/"+setup.String(), tol, e)
	}
	return nil
}

// batchBlock is one block of the batched statistics: the host inputs of
// every game and the block of batch vectors.
type batchBlock struct {
	ins  []*proxInputs
	pb   tensorops.ProxBlock
	nax  [][]float64 // NaN parts of NewAvgX and NewAvgG
	nag  [][]float64
	axh  [][]float64 // the games' AvgX and AvgG parts
	agh  [][]float64
	setc *setCase
}

// batchProxBlock draws a block of n elements per game in the setup, as
// proxBlock does for one game, and places it as batch vectors.
func (st *selfTest) batchProxBlock(bt *batch, n int, setup tensorops.Setup) (*batchBlock, error) {
	bk := &batchBlock{setc: &setCase{setup: setup, set: tensorops.Set{Setup: setup}}}
	bk.pb.Set = bk.setc.set
	parts := make([][10][]float64, bt.b) // yl, y, xl, x, nl, yn, m, g, ax, ag
	for k := range parts {
		in := &proxInputs{set: bk.setc}
		for _, pt := range []struct{ l, v *[]float64 }{{&in.yl, &in.y}, {&in.xl, &in.x}, {&in.nl, &in.yn}} {
			if setup == tensorops.Entropic {
				*pt.l, *pt.v = st.logPoint(n, 2)
			} else {
				*pt.v = st.simplex(n, 0.2)
			}
		}
		in.m, in.g = st.uniform(n, -2, 2), st.uniform(n, -2, 2)
		in.ax, in.ag = st.simplex(n, 0), st.uniform(n, -2, 2)
		bk.ins = append(bk.ins, in)
		bk.axh, bk.agh = append(bk.axh, in.ax), append(bk.agh, in.ag)
		parts[k] = [10][]float64{in.yl, in.y, in.xl, in.x, in.nl, in.yn, in.m, in.g, in.ax, in.ag}
	}
	dsts := []*tensorops.Vector{&bk.pb.Y.State, &bk.pb.Y.Value, &bk.pb.X.State, &bk.pb.X.Value,
		&bk.pb.YNew.State, &bk.pb.YNew.Value, &bk.pb.M, &bk.pb.G, &bk.pb.AvgX, &bk.pb.AvgG}
	for f, d := range dsts {
		if parts[0][f] == nil { // log-weights of a Euclidean block
			continue
		}
		col := make([][]float64, bt.b)
		for k := range col {
			col[k] = parts[k][f]
		}
		var err error
		if *d, err = st.bvec(col); err != nil {
			return nil, err
		}
	}
	if setup != tensorops.Entropic {
		bk.pb.Y.State, bk.pb.X.State, bk.pb.YNew.State = bk.pb.Y.Value, bk.pb.X.Value, bk.pb.YNew.Value
	}
	var err error
	if bk.nax, bk.pb.NewAvgX, err = st.bnans(bt, n); err != nil {
		return nil, err
	}
	bk.nag, bk.pb.NewAvgG, err = st.bnans(bt, n)
	return bk, err
}

// batchAverages records the averages updated into ax and ag (want from r
// of the i-th selected game k) and the untouched parts of the others.
func (st *selfTest) batchAverages(e *errAccum, bt *batch, ax, ag tensorops.Vector, wasX, wasG [][]float64, refs map[int]*refStats) error {
	gx, err := st.bstore(e, bt, ax, wasX)
	if err != nil {
		return err
	}
	gg, err := st.bstore(e, bt, ag, wasG)
	if err != nil {
		return err
	}
	for k, r := range refs {
		e.addVec(gx[k], r.nax, r.sax)
		e.addVec(gg[k], r.nag, r.sag)
	}
	return nil
}

// batchProxStats checks BatchProxStats on an entropic row block beside a
// Euclidean column block, each game with its own weight fraction.
func (st *selfTest) batchProxStats(bt *batch) error {
	var e errAccum
	lens := st.lens()
	var blocks [2]*batchBlock
	for k, setup := range []tensorops.Setup{tensorops.Entropic, tensorops.Euclidean} {
		var err error
		if blocks[k], err = st.batchProxBlock(bt, lens[k], setup); err != nil {
			return err
		}
	}
	w := st.uniform(len(bt.games), 0.05, 0.95)
	dst := make([]tensorops.BlockStats, 2*len(bt.games))
	for i := range dst {
		dst[i] = nanStats()
	}
	if err := bt.bb.BatchProxStats(dst, w, []tensorops.ProxBlock{blocks[0].pb, blocks[1].pb}, bt.sel); err != nil {
		return err
	}
	for b, bk := range blocks {
		refs := map[int]*refStats{}
		for i, k := range bt.games {
			r := refProxStats(bk.ins[k], w[i])
			e.addStats(dst[2*i+b], &r)
			refs[k] = &r
		}
		if err := st.batchAverages(&e, bt, bk.pb.NewAvgX, bk.pb.NewAvgG, bk.nax, bk.nag, refs); err != nil {
			return err
		}
		// The old averages are inputs: every game's must be untouched.
		for _, c := range []struct {
			v   tensorops.Vector
			was [][]float64
		}{{bk.pb.AvgX, bk.axh}, {bk.pb.AvgG, bk.agh}} {
			h, err := st.store(c.v)
			if err != nil {
				return err
			}
			e.addBits(h, slices.Concat(c.was...))
		}
	}
	st.record("BatchProxStats", reductionTol(max(st.m, st.n)), e)
	return nil
}

// batchAverage checks BatchAverage with running averages (the baselines'
// pattern) and without (certification, w = 0, MinAvgG NaN).
func (st *selfTest) batchAverage(bt *batch) error {
	var e errAccum
	lens := st.lens()
	for _, avg := range []bool{true, false} {
		var blocks [2]tensorops.AvgBlock
		var bks [2]*batchBlock
		for k := range 2 {
			bk, err := st.batchProxBlock(bt, lens[k], tensorops.Euclidean)
			if err != nil {
				return err
			}
			bks[k] = bk
			blocks[k] = tensorops.AvgBlock{Set: bk.pb.Set, X: bk.pb.X.Value, G: bk.pb.G}
			if avg {
				blocks[k].AvgX, blocks[k].AvgG = bk.pb.AvgX, bk.pb.AvgG
			} else {
				for _, in := range bk.ins {
					in.ax, in.ag = nil, nil
				}
			}
		}
		w := make([]float64, len(bt.games))
		if avg {
			w = st.uniform(len(bt.games), 0.05, 0.95)
		}
		nan := nanStats().GapStats
		dst := make([]tensorops.GapStats, 2*len(bt.games))
		for i := range dst {
			dst[i] = nan
		}
		if err := bt.bb.BatchAverage(dst, w, blocks[:], bt.sel); err != nil {
			return err
		}
		for b, bk := range bks {
			refs := map[int]*refStats{}
			for i, k := range bt.games {
				r := averageRef(bk.ins[k], w[i])
				addGap(&e, &e, dst[2*i+b], &r)
				refs[k] = &r
			}
			if avg {
				if err := st.batchAverages(&e, bt, blocks[b].AvgX, blocks[b].AvgG, bk.axh, bk.agh, refs); err != nil {
					return err
				}
			}
		}
	}
	st.record("BatchAverage", ElementwiseTol, e)
	return nil
}

// batchRegretMatch checks BatchRegretMatch, RM+ and PRM+, each game with
// its own sign (both signs, scaled as the solver scales utilities) and
// threshold: every other game's cannot be cleared, so its x must stay as it
// was.
func (st *selfTest) batchRegretMatch(bt *batch) error {
	var e errAccum
	for _, pred := range []bool{false, true} {
		for k, n := range st.lens() {
			sign := make([]float64, len(bt.games))
			for i := range sign {
				sign[i] = float64(1-2*((k+i)%2)) * []float64{1, 0.37, 5}[i%3]
			}
			xh, x, err := st.bvecs(bt, func() []float64 { return st.simplex(n, 0.2) })
			if err != nil {
				return err
			}
			rh, r, err := st.bvecs(bt, func() []float64 {
				v := st.uniform(n, -0.2, 1)
				for i := range v {
					v[i] = max(v[i], 0)
				}
				return v
			})
			if err != nil {
				return err
			}
			uh, u, err := st.bvecs(bt, func() []float64 { return st.uniform(n, -2, 2) })
			if err != nil {
				return err
			}
			tiny := make([]float64, len(bt.games))
			for i := range tiny {
				tiny[i] = []float64{1e-300, math.MaxFloat64}[i%2]
			}
			bt.bb.BatchRegretMatch(x, r, u, sign, tiny, pred, bt.sel)
			gx, err := st.bstore(&e, bt, x, xh)
			if err != nil {
				return err
			}
			gr, err := st.bstore(&e, bt, r, rh)
			if err != nil {
				return err
			}
			for i, g := range bt.games {
				wx, wr, sr, sx := refRegretMatch(xh[g], rh[g], uh[g], sign[i], tiny[i], pred)
				if tiny[i] == math.MaxFloat64 {
					e.addBits(gx[g], wx)
				} else {
					e.addVec(gx[g], wx, []float64{sx})
				}
				e.addVec(gr[g], wr, sr)
			}
		}
	}
	st.record("BatchRegretMatch", reductionTol(max(st.m, st.n)), e)
	return nil
}
