//go:build cuda

package tensorops

import (
	"math"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
)

// The Backend operations of CUDA (its memory: cuda_memory.go). Each
// method's comment lists the kernels it launches with their launch shapes
// (from package kernels, for the device's attributes) and its host-device
// synchronizations. "Async" means the method
// only enqueues work and returns at once.
//
// Per mirror-prox iteration (solver/game.go: trial, accept, advance; the
// same sequence as Bench's iteration), with both blocks entropic:
//
//	Prox ×2 (x = P_y(ηm))        4 launches
//	Operator (g = F(x))          2 launches
//	Prox ×2 (y' = P_y(ηg))       4 launches
//	ProxStats (both blocks)      3 launches, 1 device-to-host copy of 160 bytes
//	Operator (m = F(y'), advance) 2 launches
//	total                        15 launches, 1 synchronization, no other copy
//
// with both blocks on the Euclidean simplex or on boxes: 11 launches (the
// prox is one launch); on balls: 15 (two per prox, as entropic); 1
// synchronization in every setup. An iteration of RM+ / PRM+ (solver/baselines.go): 2 ×
// RegretMatch (3 launches each), MulTVec and MulVec (2 each), Axpby (1),
// Average (3 launches, 1 copy): 14 launches, 1 synchronization. The Copy of
// an improved certified point (solver: keep) adds a device-to-device copy on
// the iterations that improve it. With the sampled oracle each operator
// evaluation is SampledOperator (5 launches, no copy): 21 launches per
// entropic iteration, 1 synchronization.

// Copy sets dst = src. Async: one cuMemcpyDtoDAsync of 8n bytes on the
// default stream; no kernel, no synchronization.
func (c *CUDA) Copy(dst, src Vector) {
	d := c.vec(dst)
	s := c.vecN(src, d.n, "Copy")
	if d.n == 0 || d.ptr == s.ptr {
		return
	}
	c.check()
	c.w.ch <- cudaCmd{kind: cmdDtoD, dst: d.ptr, src: s.ptr, bytes: 8 * int64(d.n)}
}

// Axpby sets dst = alpha x + beta y. Async: gpump_axpby, Elementwise(n)
// (block 256, grid min(⌈n/256⌉, 32·SMs)).
func (c *CUDA) Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector) {
	d := c.vec(dst)
	xs, ys := c.vecN(x, d.n, "Axpby"), c.vecN(y, d.n, "Axpby")
	if d.n == 0 {
		return
	}
	l := c.newLaunch(c.w.k.axpby, d.el)
	l.ptr(d.ptr).f64(alpha).ptr(xs.ptr).f64(beta).ptr(ys.ptr).i64(int64(d.n))
	c.submit(&l)
}

// Operator sets fp = −A q and fq = Aᵀ p in one pass over A. Async, two
// launches: gpump_op_fused_{f32,f64} with OpShape.Pass (block 256, grid
// min(GX·GY, 32·SMs)) writing both partial buffers, then gpump_op_finish
// with OpShape.Finish (block 256, grid min(⌈m/32⌉ + ⌈n/32⌉, 32·SMs)) and
// sign −1.
func (c *CUDA) Operator(fp, fq Vector, a Matrix, p, q Vector) {
	am := c.mat(a)
	fpv, fqv := c.vecN(fp, am.m, "Operator"), c.vecN(fq, am.n, "Operator")
	pv, qv := c.vecN(p, am.m, "Operator"), c.vecN(q, am.n, "Operator")
	c.pass(kernels.Fused, am, fpv.ptr, fqv.ptr, pv.ptr, qv.ptr, -1)
}

// MulVec sets dst = A q. Async, two launches: gpump_op_mulvec_{f32,f64}
// with OpShape.Pass (row partials only), then gpump_op_finish with
// OpShape.Finish, sign +1 and no fq.
func (c *CUDA) MulVec(dst Vector, a Matrix, q Vector) {
	am := c.mat(a)
	d, qv := c.vecN(dst, am.m, "MulVec"), c.vecN(q, am.n, "MulVec")
	c.pass(kernels.MulVec, am, d.ptr, 0, 0, qv.ptr, 1)
}

// MulTVec sets dst = Aᵀ p. Async, two launches:
// gpump_op_multvec_{f32,f64} with OpShape.Pass (column partials only),
// then gpump_op_finish with OpShape.Finish and no fp.
func (c *CUDA) MulTVec(dst Vector, a Matrix, p Vector) {
	am := c.mat(a)
	d, pv := c.vecN(dst, am.n, "MulTVec"), c.vecN(p, am.m, "MulTVec")
	c.pass(kernels.MulTVec, am, 0, d.ptr, pv.ptr, 0, 1)
}

// pass launches one pass over A and its finish (fp or fq 0 to skip one).
func (c *CUDA) pass(kind kernels.OpKind, a *cudaMatrix, fp, fq, p, q cu.DevicePtr, sign float64) {
	s := &a.op
	rowPart, colPart := a.rowPart, a.colPart
	switch kind {
	case kernels.MulVec:
		colPart = 0 // not written; p is not read
	case kernels.MulTVec:
		rowPart = 0 // not written; q is not read
	}
	l := c.newLaunch(c.w.k.op[kind][a.dt], s.Pass)
	l.ptr(a.a).i64(s.M).i64(s.N).ptr(p).ptr(q).ptr(rowPart).ptr(colPart).
		i64(s.RowsPerBlock).i64(s.TilesPerSlice).i64(s.GX).i64(s.GY)
	c.submit(&l)
	// The finish reads only the partials of the outputs it writes; both
	// buffers exist, so both pointers are always valid.
	f := c.newLaunch(c.w.k.opFinish, s.Finish)
	f.ptr(fp).ptr(a.rowPart).i64(s.GX).i64(s.M).f64(sign).
		ptr(fq).ptr(a.colPart).i64(s.GY).i64(s.N)
	c.submit(&f)
}

// Start sets dst to argmin R over the set. Async.
//   - Entropic: gpump_fill of 1/n into Value and of −log n into State,
//     Elementwise(n) each (2 launches). The constants are computed on the
//     host, so they are the CPU backend's bits.
//   - Euclidean: gpump_fill of 1/n (1 launch).
//   - Box: gpump_box_prox with c = 0, Elementwise(n): clip(0, Lo, Hi) (1
//     launch).
//   - Ball: a cuMemcpyDtoDAsync of Center (no kernel).
func (c *CUDA) Start(dst Point, s Set) {
	v := c.vec(dst.Value)
	n := v.n
	checkSet(&s, n, "Start")
	switch s.Setup {
	case Entropic:
		l := c.vecN(dst.State, n, "Start")
		if n == 0 {
			return
		}
		c.fill(v, 1/float64(n))
		c.fill(l, -math.Log(float64(n)))
	case Euclidean:
		if n == 0 {
			return
		}
		c.fill(v, 1/float64(n))
	case Box:
		lo, hi := c.vecN(s.Lo, n, "Start"), c.vecN(s.Hi, n, "Start")
		if n == 0 {
			return
		}
		distinct("Start", []cu.DevicePtr{v.ptr}, lo.ptr, hi.ptr)
		l := c.newLaunch(c.w.k.box, v.el)
		l.ptr(v.ptr).ptr(0).ptr(0).f64(0).ptr(lo.ptr).ptr(hi.ptr).i64(int64(n))
		c.submit(&l)
	case Ball:
		c.Copy(v, c.vecN(s.Center, n, "Start"))
	}
}

func (c *CUDA) fill(v *cudaVector, value float64) {
	l := c.newLaunch(c.w.k.fill, v.el)
	l.ptr(v.ptr).f64(value).i64(int64(v.n))
	c.submit(&l)
}

// Prox sets dst = P_center(eta g). Async.
//   - Entropic: gpump_logprox_partial (State = center.State − eta g, and per
//     chunk the max and the sum of exponentials into workspace 0), then
//     gpump_logprox_finish (log-sum-exp of the chunk records, normalized
//     State and its probabilities in Value); both with VectorShape(n)
//     (block 256, grid min(chunks, 32·SMs), chunks ≤ 1024). 2 launches.
//   - Euclidean: gpump_simplex_prox (projection of center − eta g onto the
//     simplex), one block of 1024 threads. 1 launch.
//   - Box: gpump_box_prox, Elementwise(n). 1 launch.
//   - Ball: gpump_ball_partial (d = center − eta g − Center into dst, per
//     chunk Σ d² into workspace 0), then gpump_ball_finish (dst = Center +
//     min(1, Radius/‖d‖) d); both with VectorShape(n). 2 launches.
func (c *CUDA) Prox(dst, center Point, g Vector, eta float64, s Set) {
	if s.Setup == Entropic {
		dl := c.vec(dst.State)
		n := dl.n
		dp := c.vecN(dst.Value, n, "Prox")
		cl := c.vecN(center.State, n, "Prox")
		gv := c.vecN(g, n, "Prox")
		if n == 0 {
			return
		}
		if dl.ptr == dp.ptr {
			panic("tensorops: Prox: entropic point with State and Value the same vector")
		}
		ws := c.w.ws[0]
		l := c.newLaunch(c.w.k.logProxPartial, dl.vs.Launch)
		l.ptr(ws).ptr(dl.ptr).ptr(cl.ptr).ptr(gv.ptr).f64(eta).i64(int64(n)).i64(dl.vs.ChunkLen)
		c.submit(&l)
		f := c.newLaunch(c.w.k.logProxFinish, dl.vs.Launch)
		f.ptr(dl.ptr).ptr(dp.ptr).ptr(ws).i64(int64(n)).i64(dl.vs.ChunkLen)
		c.submit(&f)
		return
	}
	d := c.vec(dst.Value)
	n := d.n
	cv := c.vecN(center.Value, n, "Prox")
	gv := c.vecN(g, n, "Prox")
	checkSet(&s, n, "Prox")
	lo, hi, o, _ := c.setPtrs(&s, n, "Prox")
	if n == 0 {
		return
	}
	distinct("Prox", []cu.DevicePtr{d.ptr}, lo, hi, o)
	switch s.Setup {
	case Euclidean:
		l := c.newLaunch(c.w.k.simplex, d.sx)
		l.ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).f64(eta).i64(int64(n))
		c.submit(&l)
	case Box:
		l := c.newLaunch(c.w.k.box, d.el)
		l.ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).f64(eta).ptr(lo).ptr(hi).i64(int64(n))
		c.submit(&l)
	case Ball:
		ws := c.w.ws[0]
		l := c.newLaunch(c.w.k.ballPartial, d.vs.Launch)
		l.ptr(ws).ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).ptr(o).f64(eta).i64(int64(n)).i64(d.vs.ChunkLen)
		c.submit(&l)
		f := c.newLaunch(c.w.k.ballFinish, d.vs.Launch)
		f.ptr(d.ptr).ptr(o).ptr(ws).f64(s.Radius).i64(int64(n)).i64(d.vs.ChunkLen)
		c.submit(&f)
	}
}

// setPtrs returns the device pointers of a set's vectors (0 where the set
// has none, as the stats kernels take them) and its gpump_stats_finish mode
// bits. The set must have passed checkSet.
func (c *CUDA) setPtrs(s *Set, n int, op string) (lo, hi, o cu.DevicePtr, bits int64) {
	switch s.Setup {
	case Box:
		return c.vecN(s.Lo, n, op).ptr, c.vecN(s.Hi, n, op).ptr, 0, kernels.StatsSetBox
	case Ball:
		return 0, 0, c.vecN(s.Center, n, op).ptr, kernels.StatsSetBall
	}
	return 0, 0, 0, kernels.StatsSetSimplex
}

// statsBlocks prepares the device results for k strategy blocks: it grows
// the result buffer (outside the per-iteration path: only when a call has
// more blocks than any before) and returns the host copy to fill.
func (c *CUDA) statsBlocks(k int) ([]float64, error) {
	if k > c.w.outCap {
		if err := c.do(func() error { return c.w.growOut(k) }); err != nil {
			return nil, err
		}
	}
	return c.w.host[:k*kernels.StatsWords], nil
}

// statsFinish launches gpump_stats_finish for blocks j and j+1 (or j alone,
// when part[1].chunks is 0) into the result words of block j.
func (c *CUDA) statsFinish(j int, part [2]statsPart) {
	nb := 1
	if part[1].chunks > 0 {
		nb = 2
	}
	sl, _, err := kernels.Stats(nb)
	if err != nil {
		panic(err)
	}
	var ws1 cu.DevicePtr
	if nb == 2 {
		ws1 = c.w.ws[1]
	}
	out := c.w.out + cu.DevicePtr(j*kernels.StatsWords*8)
	l := c.newLaunch(c.w.k.statsFinish, sl)
	l.ptr(out).ptr(c.w.ws[0]).i64(part[0].chunks).i64(part[0].mode).f64(part[0].radius).
		ptr(ws1).i64(part[1].chunks).i64(part[1].mode).f64(part[1].radius)
	c.submit(&l)
}

// statsPart is what gpump_stats_finish needs of one block's first stage:
// its chunk count, its mode (record kind and set) and a ball's radius.
type statsPart struct {
	chunks, mode int64
	radius       float64
}

// runStats runs the launches and the synchronization point shared by
// ProxStats and Average on nb blocks, taken in pairs: partial(k, ws)
// launches the first stage of block k into workspace ws and returns what
// the finish needs of it, then gpump_stats_finish reduces the pair. It
// returns the host copy of the results, kernels.StatsWords per block. It
// does not keep partial, so the callers' closures stay on their stacks and
// the per-iteration path does not allocate.
func (c *CUDA) runStats(nb int, partial func(k int, ws cu.DevicePtr) statsPart) ([]float64, error) {
	h, err := c.statsBlocks(nb)
	if err != nil {
		return nil, err
	}
	for j := 0; j < nb; j += 2 {
		var part [2]statsPart
		for i := 0; i < 2 && j+i < nb; i++ {
			part[i] = partial(j+i, c.w.ws[i])
		}
		c.statsFinish(j, part)
	}
	if len(h) == 0 {
		return h, c.sync(nil, 0, 0)
	}
	if err := c.sync(unsafe.Pointer(&h[0]), c.w.out, 8*int64(len(h))); err != nil {
		return nil, err
	}
	return h, nil
}

// gapStats reads the GapStats words of one block's result.
func gapStats(r []float64) GapStats {
	return GapStats{MinG: r[kernels.StatMinG], MinAvgG: r[kernels.StatMinAvgG],
		LinX: r[kernels.StatLinX], LinAvgX: r[kernels.StatLinAvgX]}
}

// ProxStats computes the trial scalars and the candidate averages. Per
// pair of blocks (the solver has one pair): for each block,
// gpump_proxstats_entropic (Entropic) or gpump_proxstats_euclidean (the
// other setups, with the set's vectors) with VectorShape(n) (block 256,
// grid min(chunks, 32·SMs)), writing one record of 12 float64 per chunk
// into workspace 0 or 1 and the new averages; then gpump_stats_finish (grid
// = blocks of the pair, block 256) reducing the records into 10 float64 per
// block. Then the synchronization point: one cuMemcpyDtoH of 80 bytes per
// block. Two blocks: 3 launches, 1 copy.
func (c *CUDA) ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: ProxStats length mismatch")
	}
	// Check every block before launching anything.
	for k := range blocks {
		c.checkProxBlock(&blocks[k])
	}
	h, err := c.runStats(len(blocks), func(k int, ws cu.DevicePtr) statsPart {
		return c.proxStatsPartial(&blocks[k], w, ws)
	})
	if err != nil {
		return err
	}
	for k := range dst {
		dst[k] = blockStats(h[k*kernels.StatsWords:])
	}
	return nil
}

// blockStats reads the BlockStats words of one block's result.
func blockStats(r []float64) BlockStats {
	return BlockStats{
		GapStats: gapStats(r),
		DivXY:    r[kernels.StatDivXY], DivYX: r[kernels.StatDivYX],
		DistXY: r[kernels.StatDistXY], DistXYNew: r[kernels.StatDistXYNew],
		DualGM: r[kernels.StatDualGM], InnerGM: r[kernels.StatInnerGM],
	}
}

// checkProxBlock panics on a block the kernels cannot take: vectors of
// another backend, lengths that differ, an empty block, an invalid set,
// new averages aliasing an input.
func (c *CUDA) checkProxBlock(b *ProxBlock) {
	x := c.vec(b.X.Value)
	n := x.n
	if n == 0 {
		panic("tensorops: ProxStats on an empty block")
	}
	checkSet(&b.Set, n, "ProxStats")
	lo, hi, o, _ := c.setPtrs(&b.Set, n, "ProxStats")
	// Fixed arrays: the per-iteration path does not allocate.
	in := [14]cu.DevicePtr{
		c.vecN(b.Y.Value, n, "ProxStats").ptr, x.ptr, c.vecN(b.YNew.Value, n, "ProxStats").ptr,
		c.vecN(b.M, n, "ProxStats").ptr, c.vecN(b.G, n, "ProxStats").ptr,
		c.vecN(b.AvgX, n, "ProxStats").ptr, c.vecN(b.AvgG, n, "ProxStats").ptr,
		c.optVecN(b.Lin, n, "ProxStats"), lo, hi, o,
	}
	nin := 11
	if b.Set.Setup == Entropic {
		in[11] = c.vecN(b.Y.State, n, "ProxStats").ptr
		in[12] = c.vecN(b.X.State, n, "ProxStats").ptr
		in[13] = c.vecN(b.YNew.State, n, "ProxStats").ptr
		nin = 14
	}
	out := [2]cu.DevicePtr{c.vecN(b.NewAvgX, n, "ProxStats").ptr, c.vecN(b.NewAvgG, n, "ProxStats").ptr}
	distinct("ProxStats", out[:], in[:nin]...)
}

// proxStatsPartial launches the first stage of ProxStats for one block
// into workspace ws.
func (c *CUDA) proxStatsPartial(b *ProxBlock, w float64, ws cu.DevicePtr) statsPart {
	x := c.vec(b.X.Value)
	vs := &x.vs
	lo, hi, o, set := c.setPtrs(&b.Set, x.n, "ProxStats")
	p := statsPart{chunks: vs.Chunks, mode: kernels.StatsModeEuclidean | set, radius: b.Set.Radius}
	var l launch
	if b.Set.Setup == Entropic {
		l = c.newLaunch(c.w.k.proxStatsEnt, vs.Launch)
		l.ptr(ws).ptr(c.vec(b.Y.Value).ptr).ptr(x.ptr).ptr(c.vec(b.YNew.Value).ptr).
			ptr(c.vec(b.Y.State).ptr).ptr(c.vec(b.X.State).ptr).ptr(c.vec(b.YNew.State).ptr)
		p.mode = kernels.StatsModeEntropic | set
	} else {
		l = c.newLaunch(c.w.k.proxStatsEuc, vs.Launch)
		l.ptr(ws).ptr(c.vec(b.Y.Value).ptr).ptr(x.ptr).ptr(c.vec(b.YNew.Value).ptr)
	}
	l.ptr(c.vec(b.M).ptr).ptr(c.vec(b.G).ptr).ptr(c.vec(b.AvgX).ptr).ptr(c.vec(b.AvgG).ptr).
		ptr(c.vec(b.NewAvgX).ptr).ptr(c.vec(b.NewAvgG).ptr)
	if b.Set.Setup != Entropic {
		l.ptr(lo).ptr(hi).ptr(o)
	}
	l.ptr(c.optVecN(b.Lin, x.n, "ProxStats")).f64(w).i64(int64(x.n)).i64(vs.ChunkLen)
	c.submit(&l)
	return p
}

// Average updates the running averages in place and returns the gap
// quantities. Per pair of blocks: gpump_average_partial per block with
// VectorShape(n) (block 256, grid min(chunks, 32·SMs); averages and the
// linear term skipped where nil), then gpump_stats_finish (grid = blocks of
// the pair, block 256; MinAvgG NaN for a block without AvgG, as on the CPU).
// Then the synchronization point: one cuMemcpyDtoH of 80 bytes per block.
// Two blocks: 3 launches, 1 copy.
func (c *CUDA) Average(dst []GapStats, w float64, blocks []AvgBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: Average length mismatch")
	}
	for k := range blocks {
		c.checkAvgBlock(&blocks[k])
	}
	h, err := c.runStats(len(blocks), func(k int, ws cu.DevicePtr) statsPart {
		return c.averagePartial(&blocks[k], w, ws)
	})
	if err != nil {
		return err
	}
	for k := range dst {
		dst[k] = gapStats(h[k*kernels.StatsWords:])
	}
	return nil
}

// averagePartial launches the first stage of Average for one block into
// workspace ws.
func (c *CUDA) averagePartial(b *AvgBlock, w float64, ws cu.DevicePtr) statsPart {
	g := c.vec(b.G)
	n := g.n
	x := c.optVecN(b.X, n, "Average")
	ax, ag := c.optVecN(b.AvgX, n, "Average"), c.optVecN(b.AvgG, n, "Average")
	lo, hi, o, set := c.setPtrs(&b.Set, n, "Average")
	p := statsPart{chunks: g.vs.Chunks, mode: kernels.StatsModeCurrent | set, radius: b.Set.Radius}
	if ag != 0 {
		p.mode = kernels.StatsModeAverage | set
	}
	l := c.newLaunch(c.w.k.avgPartial, g.vs.Launch)
	l.ptr(ws).ptr(x).ptr(g.ptr).ptr(ax).ptr(ag).ptr(lo).ptr(hi).ptr(o).ptr(c.optVecN(b.Lin, n, "Average")).
		f64(w).i64(int64(n)).i64(g.vs.ChunkLen)
	c.submit(&l)
	return p
}

// checkAvgBlock panics on a block the kernels cannot take.
func (c *CUDA) checkAvgBlock(b *AvgBlock) {
	g := c.vec(b.G)
	n := g.n
	if n == 0 {
		panic("tensorops: Average on an empty block")
	}
	if (b.AvgX != nil || b.Lin != nil) && b.X == nil {
		panic("tensorops: Average with AvgX or Lin and no X")
	}
	checkSet(&b.Set, n, "Average")
	lo, hi, o, _ := c.setPtrs(&b.Set, n, "Average")
	x, lin := c.optVecN(b.X, n, "Average"), c.optVecN(b.Lin, n, "Average")
	ax, ag := c.optVecN(b.AvgX, n, "Average"), c.optVecN(b.AvgG, n, "Average")
	out, nout := nonNull(ax, ag)
	distinct("Average", out[:nout], x, g.ptr, lin, lo, hi, o)
}

// nonNull returns the nonzero ones of two pointers, first first, and how
// many there are.
func nonNull(a, b cu.DevicePtr) ([2]cu.DevicePtr, int) {
	var out [2]cu.DevicePtr
	n := 0
	for _, p := range [2]cu.DevicePtr{a, b} {
		if p != 0 {
			out[n] = p
			n++
		}
	}
	return out, n
}

// RegretMatch performs one RM+ or PRM+ update. Async, three launches with
// VectorShape(n) (block 256, grid min(chunks, 32·SMs)): gpump_rm_dot
// (chunk sums of x·u into workspace 0), gpump_rm_update (v, the regrets r,
// and the chunk sums of the new numerators into workspace 1),
// gpump_rm_normalize (x = numerators / their sum, unless the sum is at
// most tiny). No synchronization: the "leave x unchanged" decision is taken
// on the device.
func (c *CUDA) RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool) {
	xv := c.vec(x)
	n := xv.n
	rv, uv := c.vecN(r, n, "RegretMatch"), c.vecN(u, n, "RegretMatch")
	if n == 0 {
		return
	}
	distinct("RegretMatch", []cu.DevicePtr{xv.ptr, rv.ptr}, uv.ptr)
	pred := int64(0)
	if predictive {
		pred = 1
	}
	vs := &xv.vs
	dot, sum := c.w.ws[0], c.w.ws[1]
	l := c.newLaunch(c.w.k.rmDot, vs.Launch)
	l.ptr(dot).ptr(xv.ptr).ptr(uv.ptr).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
	l = c.newLaunch(c.w.k.rmUpdate, vs.Launch)
	l.ptr(rv.ptr).ptr(uv.ptr).ptr(dot).ptr(sum).f64(sign).i64(pred).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
	l = c.newLaunch(c.w.k.rmNormalize, vs.Launch)
	l.ptr(xv.ptr).ptr(rv.ptr).ptr(uv.ptr).ptr(dot).ptr(sum).f64(sign).f64(tiny).i64(pred).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
}
