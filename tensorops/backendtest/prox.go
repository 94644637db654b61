package backendtest

import (
	"math"
	"slices"

	"github.com/gpump/gpump/tensorops"
)

// setups are the setups every prox operation is checked in, in the order
// of the results.
var setups = []tensorops.Setup{tensorops.Entropic, tensorops.Euclidean, tensorops.Box, tensorops.Ball}

// setCase is a set drawn for one block: its host vectors, for the
// references, and the tensorops.Set placed on the backend.
type setCase struct {
	setup          tensorops.Setup
	lo, hi, center []float64
	radius         float64
	set            tensorops.Set
}

// newSet draws a set of dimension n in the setup and places its vectors on
// the backend. A box's bounds lie in [−1.5, 2.5] with every fifth
// coordinate degenerate (Lo_i = Hi_i) and, when n ≥ 3, coordinate 1 above 0
// and coordinate 2 below, so that 0 is outside [Lo_i, Hi_i] there. A ball's
// centre is uniform in [−1, 1)ⁿ and its radius in [0.2, 1.2).
func (st *selfTest) newSet(s tensorops.Setup, n int) (*setCase, error) {
	c := &setCase{setup: s, set: tensorops.Set{Setup: s}}
	var err error
	switch s {
	case tensorops.Box:
		c.lo, c.hi = make([]float64, n), make([]float64, n)
		for i := range n {
			c.lo[i] = -1.5 + 2*st.rng.Float64()
			c.hi[i] = c.lo[i] + 2*st.rng.Float64()
			if i%5 == 0 {
				c.hi[i] = c.lo[i]
			}
		}
		if n >= 3 {
			c.lo[1], c.hi[1] = 0.25, 0.75
			c.lo[2], c.hi[2] = -0.75, -0.25
		}
		if c.set.Lo, err = st.vec(c.lo); err != nil {
			return nil, err
		}
		c.set.Hi, err = st.vec(c.hi)
	case tensorops.Ball:
		c.center = st.uniform(n, -1, 1)
		c.radius = 0.2 + st.rng.Float64()
		c.set.Radius = c.radius
		c.set.Center, err = st.vec(c.center)
	}
	return c, err
}

// withRadius returns the ball c with another radius.
func (c *setCase) withRadius(r float64) *setCase {
	d := *c
	d.radius, d.set.Radius = r, r
	return &d
}

// minInner returns min over the set of ⟨g, z⟩ and its scale, where gs_i
// bounds the magnitude of g_i and of its rounding error (|g_i| for an exact
// g): the largest gs_i on the simplex (the minimum is exact), the sum of the
// terms' magnitudes on a box or a ball.
func (c *setCase) minInner(g, gs []float64) (v, scale float64) {
	switch c.setup {
	case tensorops.Box:
		for i, x := range g {
			v += min(x*c.lo[i], x*c.hi[i])
			scale += gs[i] * max(math.Abs(c.lo[i]), math.Abs(c.hi[i]))
		}
	case tensorops.Ball:
		var t2, s2 float64
		for i, x := range g {
			v += x * c.center[i]
			t2 += x * x
			scale += gs[i] * math.Abs(c.center[i])
			s2 += gs[i] * gs[i]
		}
		v -= c.radius * math.Sqrt(t2)
		scale += c.radius * math.Sqrt(s2)
	default:
		v = math.Inf(1)
		for i, x := range g {
			v = min(v, x)
			scale = max(scale, gs[i])
		}
	}
	return v, scale
}

// point allocates a NaN-filled point of the setup: two vectors for the
// entropic setup, one shared vector for the others.
func (st *selfTest) point(n int, s tensorops.Setup) (tensorops.Point, error) {
	var logw []float64
	if s == tensorops.Entropic {
		logw = nans(n)
	}
	return st.loadPoint(logw, nans(n))
}

// loadPoint allocates a point holding the given log-weights (entropic; nil
// for the other setups) and values.
func (st *selfTest) loadPoint(logw, value []float64) (tensorops.Point, error) {
	v, err := st.vec(value)
	if err != nil {
		return tensorops.Point{}, err
	}
	if logw == nil {
		return tensorops.Point{State: v, Value: v}, nil
	}
	l, err := st.vec(logw)
	if err != nil {
		return tensorops.Point{}, err
	}
	return tensorops.Point{State: l, Value: v}, nil
}

// start checks argmin R in every setup: the uniform distribution (and its
// log-weights), clip(0, Lo, Hi) on a box whose bounds exclude 0 in places,
// the centre of a ball.
func (st *selfTest) start() error {
	for _, s := range setups {
		var e errAccum
		for _, n := range st.lens() {
			sc, err := st.newSet(s, n)
			if err != nil {
				return err
			}
			pt, err := st.point(n, s)
			if err != nil {
				return err
			}
			st.b.Start(pt, sc.set)
			val, err := st.store(pt.Value)
			if err != nil {
				return err
			}
			for i, v := range val {
				want := 1 / float64(n)
				switch s {
				case tensorops.Box:
					want = min(max(0, sc.lo[i]), sc.hi[i])
				case tensorops.Ball:
					want = sc.center[i]
				}
				e.add(v, want, math.Abs(want))
			}
			if s == tensorops.Entropic {
				lw, err := st.store(pt.State)
				if err != nil {
					return err
				}
				lu := -math.Log(float64(n))
				for _, v := range lw {
					e.add(v, lu, max(1, -lu))
				}
			}
		}
		st.record("Start/"+s.String(), ElementwiseTol, e)
	}
	return nil
}

// runProx places the center (log-weights cl, nil but for the entropic
// setup, and values cv) and g on the backend and returns Prox's result,
// written into a NaN-filled point.
func (st *selfTest) runProx(cl, cv, gh []float64, eta float64, s tensorops.Set) (tensorops.Point, error) {
	center, err := st.loadPoint(cl, cv)
	if err != nil {
		return tensorops.Point{}, err
	}
	g, err := st.vec(gh)
	if err != nil {
		return tensorops.Point{}, err
	}
	dst, err := st.point(len(cv), s.Setup)
	if err != nil {
		return tensorops.Point{}, err
	}
	st.b.Prox(dst, center, g, eta, s)
	return dst, nil
}

// prox checks every setup. Entropic: a moderate step and a large one that
// spreads eta g over ±800, so most probabilities fall below 1e-300 and
// must be materialized as 0. Euclidean simplex and box: see below. Ball:
// c − eta g outside the ball, inside it, and a ball of radius 0.
func (st *selfTest) prox() error {
	tol := reductionTol(max(st.m, st.n))
	var e errAccum
	for _, n := range st.lens() {
		for _, eta := range []float64{0.9, 800} {
			cl, cp := st.logPoint(n, 3)
			gh := st.uniform(n, -1, 1)
			dst, err := st.runProx(cl, cp, gh, eta, tensorops.Set{Setup: tensorops.Entropic})
			if err != nil {
				return err
			}
			gl, err := st.store(dst.State)
			if err != nil {
				return err
			}
			gp, err := st.store(dst.Value)
			if err != nil {
				return err
			}
			e.addLogProx(tol, gl, gp, cl, gh, eta)
		}
	}
	st.record("Prox/entropic", tol, e)

	// The Euclidean simplex (a moderate step and one that makes the
	// projection sparse, from a point of the simplex) and a box (centres
	// inside and outside it, so that some coordinates clip and others do
	// not): the reference applied to c − eta g.
	for _, c := range []struct {
		setup tensorops.Setup
		tol   float64
		etas  []float64
	}{{tensorops.Euclidean, tol, []float64{0.5, 50}}, {tensorops.Box, ElementwiseTol, []float64{0.5, 5}}} {
		e = errAccum{}
		for _, n := range st.lens() {
			sc, err := st.newSet(c.setup, n)
			if err != nil {
				return err
			}
			for _, eta := range c.etas {
				var ch []float64
				if c.setup == tensorops.Box {
					ch = st.uniform(n, -2, 3)
				} else {
					ch = st.simplex(n, 0.2)
				}
				gh := st.uniform(n, -1, 1)
				v, scale := stepped(ch, gh, eta)
				want := v
				if c.setup == tensorops.Box {
					for i, x := range v {
						want[i] = min(max(x, sc.lo[i]), sc.hi[i])
					}
				} else {
					want, scale = refProjectSimplex(v), []float64{max(1, slices.Max(scale))}
				}
				if err := st.checkProx(&e, sc.set, ch, gh, eta, want, scale); err != nil {
					return err
				}
			}
		}
		st.record("Prox/"+c.setup.String(), c.tol, e)
	}

	e = errAccum{}
	for _, n := range st.lens() {
		sc, err := st.newSet(tensorops.Ball, n)
		if err != nil {
			return err
		}
		ch, gh := st.uniform(n, -1, 1), st.uniform(n, -1, 1)
		const eta = 0.5
		v, scale := stepped(ch, gh, eta)
		var d float64
		for i, x := range v {
			d += (x - sc.center[i]) * (x - sc.center[i])
			scale[i] += math.Abs(sc.center[i])
		}
		d = math.Sqrt(d)
		for _, r := range []float64{d / 2, 2 * d, 0} { // outside, inside, a point
			if err := st.checkProx(&e, sc.withRadius(r).set, ch, gh, eta, refBall(v, sc.center, r), scale); err != nil {
				return err
			}
		}
	}
	st.record("Prox/ball", tol, e)
	return nil
}

// addLogProx records an entropic prox's log-weights gl and probabilities
// gp against the reference from the centre cl with step eta g. A
// probability's relative error is its log-weight's absolute error. One that
// is 0 where it should not be, or the reverse, counts as an error of 1,
// unless its log-weight is within the tolerance of the 1e-300 cut, where
// either is right.
func (e *errAccum) addLogProx(tol float64, gl, gp, cl, g []float64, eta float64) {
	wl, wp, scale := refLogProx(cl, g, eta)
	e.addVec(gl, wl, scale)
	for i := range wp {
		if (gp[i] == 0) != (wp[i] == 0) {
			if math.Abs(wl[i]-tensorops.MinLogProb) > 10*tol*scale[i] {
				e.max = max(e.max, 1)
			}
			continue
		}
		e.add(gp[i], wp[i], wp[i]*scale[i])
	}
}

// checkProx runs Prox from the centre ch (the value of a point of a set
// other than the entropic simplex) with step eta g in the set s and records
// the result against want.
func (st *selfTest) checkProx(e *errAccum, s tensorops.Set, ch, gh []float64, eta float64, want, scale []float64) error {
	dst, err := st.runProx(nil, ch, gh, eta, s)
	if err != nil {
		return err
	}
	return st.check(e, dst.Value, want, scale)
}

// addGap records the gap quantities of the set in e and those of the
// linear term in lin; a NaN expected MinAvgG must come back NaN.
func addGap(e, lin *errAccum, got tensorops.GapStats, r *refStats) {
	e.add(got.MinG, r.want.MinG, r.scale.MinG)
	if math.IsNaN(r.want.MinAvgG) {
		if !math.IsNaN(got.MinAvgG) {
			e.max = math.Inf(1)
		}
	} else {
		e.add(got.MinAvgG, r.want.MinAvgG, r.scale.MinAvgG)
	}
	lin.add(got.LinX, r.want.LinX, r.scale.LinX)
	lin.add(got.LinAvgX, r.want.LinAvgX, r.scale.LinAvgX)
}

// addStats records every field of got against the reference.
func (e *errAccum) addStats(got tensorops.BlockStats, r *refStats) {
	addGap(e, e, got.GapStats, r)
	w, s := &r.want, &r.scale
	e.add(got.DivXY, w.DivXY, s.DivXY)
	e.add(got.DivYX, w.DivYX, s.DivYX)
	e.add(got.DistXY, w.DistXY, s.DistXY)
	e.add(got.DistXYNew, w.DistXYNew, s.DistXYNew)
	e.add(got.DualGM, w.DualGM, s.DualGM)
	e.add(got.InnerGM, w.InnerGM, s.InnerGM)
}

// proxBlock draws one block's inputs in the set, with a linear term when
// lin, and places them on the backend.
func (st *selfTest) proxBlock(n int, sc *setCase, lin bool) (*proxInputs, tensorops.ProxBlock, error) {
	in := &proxInputs{set: sc}
	pb := tensorops.ProxBlock{Set: sc.set}
	var err error
	pts := []struct {
		l, v *[]float64
		p    *tensorops.Point
	}{{&in.yl, &in.y, &pb.Y}, {&in.xl, &in.x, &pb.X}, {&in.nl, &in.yn, &pb.YNew}}
	for _, pt := range pts {
		switch sc.setup {
		case tensorops.Entropic:
			*pt.l, *pt.v = st.logPoint(n, 2)
		case tensorops.Euclidean:
			*pt.v = st.simplex(n, 0.2)
		default:
			*pt.v = st.uniform(n, -1.5, 1.5)
		}
		if *pt.p, err = st.loadPoint(*pt.l, *pt.v); err != nil {
			return nil, pb, err
		}
	}
	in.m, in.g = st.uniform(n, -2, 2), st.uniform(n, -2, 2)
	in.ax, in.ag = st.simplex(n, 0), st.uniform(n, -2, 2)
	vecs := []struct {
		h []float64
		d *tensorops.Vector
	}{{in.m, &pb.M}, {in.g, &pb.G}, {in.ax, &pb.AvgX}, {in.ag, &pb.AvgG}}
	if lin {
		in.lin = st.uniform(n, -1, 1)
		vecs = append(vecs, struct {
			h []float64
			d *tensorops.Vector
		}{in.lin, &pb.Lin})
	}
	for _, v := range vecs {
		if *v.d, err = st.vec(v.h); err != nil {
			return nil, pb, err
		}
	}
	if pb.NewAvgX, err = st.nanVec(n); err != nil {
		return nil, pb, err
	}
	if pb.NewAvgG, err = st.nanVec(n); err != nil {
		return nil, pb, err
	}
	return in, pb, nil
}

// checkAverages records the updated averages ax and ag against the
// reference (either may be nil).
func (st *selfTest) checkAverages(e *errAccum, ax, ag tensorops.Vector, r *refStats) error {
	if ax != nil {
		if err := st.check(e, ax, r.nax, r.sax); err != nil {
			return err
		}
	}
	if ag == nil {
		return nil
	}
	return st.check(e, ag, r.nag, r.sag)
}

// statsPairs are the setups of the two blocks of the ProxStats and Average
// calls, and which block has a linear term: every setup beside another,
// with and without a linear term.
var statsPairs = []struct {
	setups [2]tensorops.Setup
	lin    [2]bool
}{
	{[2]tensorops.Setup{tensorops.Entropic, tensorops.Euclidean}, [2]bool{true, false}},
	{[2]tensorops.Setup{tensorops.Euclidean, tensorops.Entropic}, [2]bool{true, false}},
	{[2]tensorops.Setup{tensorops.Box, tensorops.Ball}, [2]bool{true, false}},
	{[2]tensorops.Setup{tensorops.Ball, tensorops.Box}, [2]bool{true, false}},
}

// proxStats runs ProxStats on each pair of statsPairs and checks the
// scalars, the new averages, and that the old averages are untouched.
func (st *selfTest) proxStats() error {
	acc := make([]errAccum, len(setups))
	lens := st.lens()
	for _, pair := range statsPairs {
		var ins [2]*proxInputs
		var blocks [2]tensorops.ProxBlock
		for k := range 2 {
			sc, err := st.newSet(pair.setups[k], lens[k])
			if err != nil {
				return err
			}
			if ins[k], blocks[k], err = st.proxBlock(lens[k], sc, pair.lin[k]); err != nil {
				return err
			}
		}
		w := 0.05 + 0.9*st.rng.Float64()
		dst := make([]tensorops.BlockStats, 2)
		for k := range dst {
			dst[k] = nanStats()
		}
		if err := st.b.ProxStats(dst, w, blocks[:]); err != nil {
			return err
		}
		for k := range 2 {
			e := &acc[pair.setups[k]]
			r := refProxStats(ins[k], w)
			e.addStats(dst[k], &r)
			if err := st.checkAverages(e, blocks[k].NewAvgX, blocks[k].NewAvgG, &r); err != nil {
				return err
			}
			if err := st.checkBits(e, blocks[k].AvgX, ins[k].ax); err != nil {
				return err
			}
			if err := st.checkBits(e, blocks[k].AvgG, ins[k].ag); err != nil {
				return err
			}
		}
	}
	tol := reductionTol(max(st.m, st.n))
	for _, s := range setups {
		st.record("ProxStats/"+s.String(), tol, acc[s])
	}
	return nil
}

// nanStats is a BlockStats of NaNs: a field the backend does not write
// fails.
func nanStats() tensorops.BlockStats {
	nan := math.NaN()
	return tensorops.BlockStats{
		GapStats: tensorops.GapStats{MinG: nan, MinAvgG: nan, LinX: nan, LinAvgX: nan},
		DivXY:    nan, DivYX: nan, DistXY: nan, DistXYNew: nan, DualGM: nan, InnerGM: nan,
	}
}

// averageRounds are the blocks of the Average calls: the set of each block,
// whether it has running averages (the pattern of the regret-matching
// baselines) or not (the solver's certification, w = 0), and whether it
// has a linear term.
var averageRounds = []struct {
	sets     [2]string
	avg, lin [2]bool
}{
	{[2]string{"simplex", "simplex"}, [2]bool{true, true}, [2]bool{false, false}},
	{[2]string{"simplex", "simplex"}, [2]bool{false, false}, [2]bool{false, false}},
	{[2]string{"box", "ball"}, [2]bool{true, false}, [2]bool{true, true}},
	{[2]string{"ball", "simplex"}, [2]bool{true, false}, [2]bool{false, true}},
	{[2]string{"simplex", "box"}, [2]bool{true, false}, [2]bool{true, false}},
}

// average runs Average on the blocks of averageRounds and checks the
// updated averages and the gap quantities: "Average/simplex" (exact minima
// and elementwise averages), "Average/box" and "Average/ball" (sums over
// the block), "Average/lin" (the linear terms of every set).
func (st *selfTest) average() error {
	sets := map[string]tensorops.Setup{"simplex": tensorops.Entropic, "box": tensorops.Box, "ball": tensorops.Ball}
	acc := map[string]*errAccum{"simplex": {}, "box": {}, "ball": {}, "lin": {}}
	lens := st.lens()
	for _, round := range averageRounds {
		var blocks [2]tensorops.AvgBlock
		var ins [2]proxInputs
		for k, n := range lens {
			sc, err := st.newSet(sets[round.sets[k]], n)
			if err != nil {
				return err
			}
			in := &ins[k]
			in.set = sc
			in.x, in.g = st.simplex(n, 0.2), st.uniform(n, -2, 2)
			if sc.setup != tensorops.Euclidean {
				in.x = st.uniform(n, -1.5, 1.5)
			}
			b := &blocks[k]
			b.Set = sc.set
			vs, err := st.vecs(in.x, in.g)
			if err != nil {
				return err
			}
			b.X, b.G = vs[0], vs[1]
			if round.avg[k] {
				in.ax, in.ag = st.simplex(n, 0), st.uniform(n, -2, 2)
				if vs, err = st.vecs(in.ax, in.ag); err != nil {
					return err
				}
				b.AvgX, b.AvgG = vs[0], vs[1]
			}
			if round.lin[k] {
				in.lin = st.uniform(n, -1, 1)
				if b.Lin, err = st.vec(in.lin); err != nil {
					return err
				}
			}
		}
		w := 0.0
		if round.avg[0] || round.avg[1] {
			w = 0.05 + 0.9*st.rng.Float64()
		}
		nan := nanStats().GapStats
		dst := []tensorops.GapStats{nan, nan}
		if err := st.b.Average(dst, w, blocks[:]); err != nil {
			return err
		}
		for k := range 2 {
			e := acc[round.sets[k]]
			r := averageRef(&ins[k], w)
			addGap(e, acc["lin"], dst[k], &r)
			if err := st.checkAverages(e, blocks[k].AvgX, blocks[k].AvgG, &r); err != nil {
				return err
			}
		}
	}
	tol := reductionTol(max(st.m, st.n))
	st.record("Average/simplex", ElementwiseTol, *acc["simplex"])
	st.record("Average/box", tol, *acc["box"])
	st.record("Average/ball", tol, *acc["ball"])
	st.record("Average/lin", tol, *acc["lin"])
	return nil
}
