//go:build cuda

package tensorops

import (
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"gorgonia.org/cu"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/kernels"
	"github.com/gpump/gpump/tensorops/internal/cudainit"
)

// The Batched methods of CUDA. Every batched operation is one kernel launch
// for the whole selection (two for ProxStats and Average, one per strategy
// block), a block per selected game (kernels/gpump.cu, gpump_batch_*), plus
// one synchronous host-to-device copy of its per-game scalars into the
// selection's buffer when it has any. ProxStats and Average bring every
// selected game's results back in one device-to-host copy: the
// synchronization point.

var _ Batched = (*CUDA)(nil)

// cudaBatchMatrix is a batch of B payoff matrices of one shape, stored one
// after the other in device memory (base.a), with the partial buffers of
// one single-game pass for its GameMatrix views (which run one at a time,
// ordered on the device).
type cudaBatchMatrix struct {
	base  *cudaMatrix // game 0, with the partial buffers
	b     int
	views []*cudaMatrix // GameMatrix views, made on first use
	freed bool
}

func (a *cudaBatchMatrix) Dims() (b, m, n int) { return a.b, a.base.m, a.base.n }

func (a *cudaBatchMatrix) Precision() Precision { return a.base.Precision() }

// cudaSelection is a selection of games of a batch of b, with the device
// buffers its operations read: the game indices, the per-game scalars, and
// the batched stats' results.
type cudaSelection struct {
	w     *cudaWorker
	b     int
	games []int   // the selected games, in selection order
	idx   []int64 // the indices as uploaded (b of capacity)
	mark  []bool  // Select's check for repeated games
	// dGames holds b int64 (the selection), scal 2b float64 (the scalars of
	// one operation: eta, w or tiny in the first Len(), beta after alpha).
	dGames, scal cu.DevicePtr
	hscal        []float64
	// out holds outBlocks·b·kernels.StatsWords float64, hout its host copy.
	out       cu.DevicePtr
	outBlocks int
	hout      []float64
	freed     bool
}

func (s *cudaSelection) Games() int { return s.b }

func (s *cudaSelection) Len() int { return len(s.games) }

// NewBatchMatrix copies a (B, m, n) float64 or float32 tensor to the
// device. Synchronous: three cuMemAlloc (the B·m·n entries and the partial
// buffers of one single-game pass, for the GameMatrix views) and one
// cuMemcpyHtoD of B·m·n·4 or ·8 bytes; no kernel.
func (c *CUDA) NewBatchMatrix(t *tensor.Dense) (BatchMatrix, error) {
	b, m, n, err := CheckBatchMatrix(t)
	if err != nil {
		return nil, err
	}
	dt, host := kernels.F64, unsafe.Pointer(nil)
	if t.Dtype() == tensor.Float32 {
		dt, host = kernels.F32, unsafe.Pointer(&t.Float32s()[0])
	} else {
		host = unsafe.Pointer(&t.Float64s()[0])
	}
	if _, err := kernels.Batch(int64(b), 1, int64(m), int64(n), c.kdev); err != nil {
		return nil, fmt.Errorf("tensorops: cuda: %w", err)
	}
	base, err := c.newMatrices(b, m, n, dt, fmt.Sprintf("batch of %d payoff matrices", b))
	if err != nil {
		return nil, err
	}
	a := &cudaBatchMatrix{base: base, b: b}
	if err := c.htod(base.a, host, int64(b)*base.bytes(), false); err != nil {
		c.Free(a)
		return nil, err
	}
	runtime.KeepAlive(t)
	return a, nil
}

// bmat unwraps a batch matrix of this backend.
func (c *CUDA) bmat(a BatchMatrix) *cudaBatchMatrix {
	ba, ok := a.(*cudaBatchMatrix)
	if !ok || ba == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CUDA batch matrix", a))
	}
	if ba.base.w != c.w {
		panic("tensorops: cuda: batch matrix of another CUDA backend")
	}
	if ba.freed {
		panic("tensorops: cuda: use of a freed batch matrix")
	}
	return ba
}

// GameMatrix returns game k's matrix as a Matrix usable with every
// operation (it shares the batch's partial buffers). No copy; the views
// are made once per game and kept.
func (c *CUDA) GameMatrix(a BatchMatrix, k int) Matrix {
	ba := c.bmat(a)
	if k < 0 || k >= ba.b {
		panic(fmt.Sprintf("tensorops: GameMatrix: game %d of a batch of %d", k, ba.b))
	}
	if ba.views == nil {
		ba.views = make([]*cudaMatrix, ba.b)
	}
	if v := ba.views[k]; v != nil {
		return v
	}
	v := *ba.base
	v.a += cu.DevicePtr(int64(k) * ba.base.bytes())
	v.batch = ba
	ba.views[k] = &v
	return &v
}

// GameVector returns v's elements [k·n, (k+1)·n) as a Vector usable with
// every operation. No copy; the views are made once per (k, n) and kept.
func (c *CUDA) GameVector(v Vector, n, k int) Vector {
	cv := c.vec(v)
	if n < 0 || k < 0 || (k+1)*n > cv.n {
		panic(fmt.Sprintf("tensorops: GameVector: elements [%d·%d, %d·%d) of a vector of %d", k, n, k+1, n, cv.n))
	}
	return c.view(cv, k*n, n)
}

// Sub returns v's elements [lo, hi) as a Vector usable with every
// operation (a sharded game's rank holds p whole and multiplies its rows'
// part). No copy; the views are made once per (lo, hi) and kept.
func (c *CUDA) Sub(v Vector, lo, hi int) Vector {
	cv := c.vec(v)
	if lo < 0 || hi < lo || hi > cv.n {
		panic(fmt.Sprintf("tensorops: Sub: elements [%d, %d) of a vector of %d", lo, hi, cv.n))
	}
	return c.view(cv, lo, hi-lo)
}

// view returns the n elements of cv from its element k, a view of cv's
// root made once per (offset, n).
func (c *CUDA) view(cv *cudaVector, k, n int) *cudaVector {
	root := cv
	if cv.root != nil {
		root = cv.root
	}
	off := int(cv.ptr-root.ptr)/8 + k
	key := [2]int{off, n}
	if w := root.views[key]; w != nil {
		return w
	}
	w := &cudaVector{w: c.w, n: n, root: root}
	if n > 0 {
		w.ptr = root.ptr + cu.DevicePtr(8*off)
		if err := c.shapeVector(w); err != nil {
			panic(err) // n fits: the root's shapes were computed
		}
	}
	if root.views == nil {
		root.views = map[[2]int]*cudaVector{}
	}
	root.views[key] = w
	return w
}

// NewSelection allocates the buffers of a selection over b games
// (synchronous: two cuMemAlloc); it selects none.
func (c *CUDA) NewSelection(b int) (Selection, error) {
	if b < 1 {
		return nil, fmt.Errorf("tensorops: a selection over %d games", b)
	}
	c.check()
	s := &cudaSelection{w: c.w, b: b, idx: make([]int64, b), mark: make([]bool, b), hscal: make([]float64, 2*b)}
	err := c.do(func() error {
		var err error
		if s.dGames, err = cu.MemAlloc(8 * int64(b)); err != nil {
			return allocErr(err, 8*int64(b), "the indices of a selection")
		}
		if s.scal, err = cu.MemAlloc(16 * int64(b)); err != nil {
			cu.MemFree(s.dGames)
			return allocErr(err, 16*int64(b), "the per-game scalars of a selection")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// sel unwraps a selection of this backend.
func (c *CUDA) sel(sel Selection) *cudaSelection {
	s, ok := sel.(*cudaSelection)
	if !ok || s == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CUDA selection", sel))
	}
	if s.w != c.w {
		panic("tensorops: cuda: selection of another CUDA backend")
	}
	if s.freed {
		panic("tensorops: cuda: use of a freed selection")
	}
	return s
}

// Select makes games the selection: a synchronous cuMemcpyHtoD of the
// indices (which waits for the work in flight), skipped when they are
// those already selected. Indices out of range or repeated panic.
func (c *CUDA) Select(sel Selection, games []int) error {
	s := c.sel(sel)
	if len(games) > s.b {
		panic(fmt.Sprintf("tensorops: Select: %d games of a batch of %d", len(games), s.b))
	}
	if slices.Equal(s.games, games) {
		return nil
	}
	clear(s.mark)
	for i, g := range games {
		if g < 0 || g >= s.b || s.mark[g] {
			panic(fmt.Sprintf("tensorops: Select: game %d out of range or repeated (batch of %d)", g, s.b))
		}
		s.mark[g] = true
		s.idx[i] = int64(g)
	}
	if len(games) > 0 {
		if err := c.htod(s.dGames, unsafe.Pointer(&s.idx[0]), 8*int64(len(games)), false); err != nil {
			// The device keeps the old indices: so must s.games, or a
			// later Select of these games would be skipped as unchanged.
			return err
		}
	}
	s.games = append(s.games[:0], games...)
	return nil
}

// freeBatched adds the device memory of a batch matrix or a selection to
// ptrs (for Free) and marks it freed.
func (c *CUDA) freeBatched(ptrs []cu.DevicePtr, x any) []cu.DevicePtr {
	switch v := x.(type) {
	case *cudaBatchMatrix:
		if v == nil || v.freed {
			return ptrs
		}
		if v.base.w != c.w {
			panic("tensorops: cuda: Free of a batch matrix of another CUDA backend")
		}
		b := v.base
		ptrs = append(ptrs, b.a, b.rowPart, b.colPart)
		v.freed, b.freed, b.a, b.rowPart, b.colPart = true, true, 0, 0, 0
	case *cudaSelection:
		if v == nil || v.freed {
			return ptrs
		}
		if v.w != c.w {
			panic("tensorops: cuda: Free of a selection of another CUDA backend")
		}
		ptrs = append(ptrs, v.dGames, v.scal)
		if v.out != 0 {
			ptrs = append(ptrs, v.out)
		}
		v.freed, v.dGames, v.scal, v.out = true, 0, 0, 0
	}
	return ptrs
}

// scalars uploads one operation's per-game scalars (one or two slices of
// Len() values) into s.scal, slice i at s.scal + 8·i·Len(). They are
// written into the page-locked staging buffer and copied by
// cuMemcpyHtoDAsync on the legacy default stream: ordered after the
// kernels that read the previous scalars (every operation reuses s.scal)
// and before the operation's own launch, without the host waiting for the
// device. A staged region is not overwritten before the next
// synchronization point (its copy may still be queued): when the buffer
// is full, the caller waits for the device first. If the buffer cannot be
// had, the copy is synchronous from pageable memory, errors kept for the
// next synchronization point.
func (c *CUDA) scalars(s *cudaSelection, op string, vs ...[]float64) {
	k := len(s.games)
	for _, v := range vs {
		if len(v) != k {
			panic(fmt.Sprintf("tensorops: %s: %d per-game scalars for a selection of %d", op, len(v), k))
		}
	}
	if k == 0 {
		return
	}
	n := len(vs) * k
	if dst := c.stageFor(n); dst != nil {
		for i, v := range vs {
			copy(dst[i*k:], v)
		}
		c.check()
		c.w.ch <- cudaCmd{kind: cmdHtoDAsync, dst: s.scal, host: unsafe.Pointer(&dst[0]), bytes: 8 * int64(n)}
		return
	}
	for i, v := range vs {
		copy(s.hscal[i*k:], v)
	}
	c.htod(s.scal, unsafe.Pointer(&s.hscal[0]), 8*int64(n), true)
}

// stageWords is the size of the scalars' staging buffer: room for the
// scalars of many batched operations between two synchronization points
// (a lockstep round of 10 000 games needs about 50 000 words).
const stageWords = 1 << 17

// stageFor returns n free words of the staging buffer, making it on first
// use and waiting for the device when it is full; nil when n exceeds it or
// it cannot be made.
func (c *CUDA) stageFor(n int) []float64 {
	if c.stage == nil {
		w := c.w
		err := c.do(func() error {
			h, code := cudainit.HostAlloc(8 * stageWords)
			if code != 0 {
				return codeErr("cuMemAllocHost", code)
			}
			w.stageMem = h
			return nil
		})
		if err != nil {
			return nil
		}
		c.stage = unsafe.Slice((*float64)(w.stageMem), stageWords)
	}
	size := len(c.stage)
	if c.stageLimit > 0 {
		size = min(size, c.stageLimit)
	}
	if n > size {
		return nil
	}
	if c.staged+n > size {
		w, ok := c.w, false
		err := c.do(func() error {
			if e := cu.Synchronize(); e != nil && w.pending == nil {
				w.pending = cuErr("cuCtxSynchronize", e)
			}
			ok = w.pending == nil
			return nil
		})
		if err != nil || !ok {
			return nil // a failed device: the synchronous path reports it
		}
		c.staged = 0
	}
	dst := c.stage[c.staged : c.staged+n : c.staged+n]
	c.staged += n
	return dst
}

// scalar returns the device address of the i-th slice of scalars.
func (s *cudaSelection) scalar(i int) cu.DevicePtr { return s.scal + cu.DevicePtr(8*i*len(s.games)) }

// blockLen returns the block length n of a batch vector over s's batch
// (its length is B·n, n ≥ 1).
func (c *CUDA) blockLen(v Vector, s *cudaSelection, op string) (*cudaVector, int) {
	cv := c.vec(v)
	if cv.n == 0 || cv.n%s.b != 0 {
		panic(fmt.Sprintf("tensorops: %s: a vector of %d for a batch of %d games", op, cv.n, s.b))
	}
	return cv, cv.n / s.b
}

// batchLaunch starts a block-per-game launch of k over s's games of m×n.
func (c *CUDA) batchLaunch(k *cudaKernel, s *cudaSelection, m, n int) launch {
	l, err := kernels.Batch(int64(s.b), int64(len(s.games)), int64(m), int64(n), c.kdev)
	if err != nil {
		panic(err) // the sizes were checked when the memory was made
	}
	return c.newLaunch(k, l)
}

// games adds the selection's arguments (games, count) and submits.
func (c *CUDA) submitGames(l *launch, s *cudaSelection) {
	l.ptr(s.dGames).i64(int64(len(s.games)))
	c.submit(l)
}

// BatchOperator is Operator for every selected game. Async, one launch:
// gpump_batch_op_fused_{f32,f64} with kernels.Batch (block 256, a block
// per game up to 32·SMs), no partial buffers and no finish.
func (c *CUDA) BatchOperator(fp, fq Vector, a BatchMatrix, p, q Vector, sel Selection) {
	c.batchPass(kernels.Fused, fp, fq, a, p, q, sel, "BatchOperator")
}

// BatchMulVec is MulVec for every selected game. Async, one launch:
// gpump_batch_op_mulvec_{f32,f64} with kernels.Batch.
func (c *CUDA) BatchMulVec(dst Vector, a BatchMatrix, q Vector, sel Selection) {
	c.batchPass(kernels.MulVec, dst, nil, a, nil, q, sel, "BatchMulVec")
}

// BatchMulTVec is MulTVec for every selected game. Async, one launch:
// gpump_batch_op_multvec_{f32,f64} with kernels.Batch.
func (c *CUDA) BatchMulTVec(dst Vector, a BatchMatrix, p Vector, sel Selection) {
	c.batchPass(kernels.MulTVec, nil, dst, a, p, nil, sel, "BatchMulTVec")
}

// batchPass launches a batched pass of the given kind (the vectors a kind
// does not use are nil).
func (c *CUDA) batchPass(kind kernels.OpKind, fp, fq Vector, a BatchMatrix, p, q Vector, sel Selection, op string) {
	ba, s := c.bmat(a), c.sel(sel)
	if s.b != ba.b {
		panic(fmt.Sprintf("tensorops: %s: a selection over %d games for a batch of %d", op, s.b, ba.b))
	}
	m, n := ba.base.m, ba.base.n
	fpp, fqp := c.optVecN(fp, ba.b*m, op), c.optVecN(fq, ba.b*n, op)
	pp, qp := c.optVecN(p, ba.b*m, op), c.optVecN(q, ba.b*n, op)
	out, nout := nonNull(fpp, fqp)
	distinct(op, out[:nout], pp, qp)
	if len(s.games) == 0 {
		return
	}
	l := c.batchLaunch(c.w.k.batchOp[kind][ba.base.dt], s, m, n)
	l.ptr(ba.base.a).i64(int64(m)).i64(int64(n)).ptr(pp).ptr(qp).ptr(fpp).ptr(fqp)
	c.submitGames(&l, s)
}

// BatchProx is Prox for every selected game with its own eta[i]: one
// host-to-device copy of eta, then one launch with kernels.Batch:
// gpump_batch_logprox (Entropic: State = center.State − eta g normalized by
// its log-sum-exp, Value its probabilities) or gpump_batch_simplex_prox
// (Euclidean). Other setups panic.
func (c *CUDA) BatchProx(dst, center Point, g Vector, eta []float64, setup Setup, sel Selection) {
	s := c.sel(sel)
	switch setup {
	case Entropic:
		dl, n := c.blockLen(dst.State, s, "BatchProx")
		dp := c.vecN(dst.Value, dl.n, "BatchProx")
		cl, gv := c.vecN(center.State, dl.n, "BatchProx"), c.vecN(g, dl.n, "BatchProx")
		if dl.ptr == dp.ptr {
			panic("tensorops: BatchProx: entropic point with State and Value the same vector")
		}
		distinct("BatchProx", []cu.DevicePtr{dp.ptr}, cl.ptr, gv.ptr)
		c.scalars(s, "BatchProx", eta)
		if len(s.games) == 0 {
			return
		}
		l := c.batchLaunch(c.w.k.batchLogProx, s, 1, n)
		l.ptr(dl.ptr).ptr(dp.ptr).ptr(cl.ptr).ptr(gv.ptr).ptr(s.scalar(0)).i64(int64(n))
		c.submitGames(&l, s)
	case Euclidean:
		d, n := c.blockLen(dst.Value, s, "BatchProx")
		cv, gv := c.vecN(center.Value, d.n, "BatchProx"), c.vecN(g, d.n, "BatchProx")
		c.scalars(s, "BatchProx", eta)
		if len(s.games) == 0 {
			return
		}
		l := c.batchLaunch(c.w.k.batchSimplex, s, 1, n)
		l.ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).ptr(s.scalar(0)).i64(int64(n))
		c.submitGames(&l, s)
	default:
		panic(fmt.Sprintf("tensorops: BatchProx: setup %v is not a simplex setup", setup))
	}
}

// batchBlock checks a strategy block of the batched stats: a simplex
// setup, no linear term, batch vectors over s's batch; it returns the block
// length.
func (c *CUDA) batchBlock(set *Set, lin Vector, g Vector, s *cudaSelection, op string) int {
	if set.Setup != Entropic && set.Setup != Euclidean {
		panic(fmt.Sprintf("tensorops: %s: setup %v is not a simplex setup", op, set.Setup))
	}
	if lin != nil {
		panic("tensorops: " + op + ": a linear term (batched games are matrix games)")
	}
	_, n := c.blockLen(g, s, op)
	return n
}

// statsOut prepares s's result buffer for nb strategy blocks (growing it
// outside the per-iteration path: only when a call has more blocks than
// any before) and checks the lengths of dst and w.
func (c *CUDA) statsOut(s *cudaSelection, nb, ndst, nw int, op string) error {
	k := len(s.games)
	if ndst != k*nb || nw != k {
		panic(fmt.Sprintf("tensorops: %s: %d results and %d weights for %d games of %d blocks", op, ndst, nw, k, nb))
	}
	if nb <= s.outBlocks {
		return nil
	}
	words := int64(nb) * int64(s.b) * kernels.StatsWords
	err := c.do(func() error {
		p, err := cu.MemAlloc(8 * words)
		if err != nil {
			return allocErr(err, 8*words, "the results of a batch's statistics")
		}
		if s.out != 0 {
			if err := cu.MemFree(s.out); err != nil {
				cu.MemFree(p)
				return cuErr("cuMemFree", err)
			}
		}
		s.out = p
		return nil
	})
	if err != nil {
		return err
	}
	s.outBlocks, s.hout = nb, make([]float64, words)
	return nil
}

// statsLaunch starts the launch of a batched stats kernel for strategy
// block j of nb: its results go to out + j·StatsWords with a stride of
// nb·StatsWords words per game.
func (c *CUDA) statsLaunch(k *cudaKernel, s *cudaSelection, n, j, nb int) launch {
	l := c.batchLaunch(k, s, 1, n)
	l.ptr(s.out + cu.DevicePtr(8*j*kernels.StatsWords)).i64(int64(nb * kernels.StatsWords))
	return l
}

// runBatchStats runs what BatchProxStats and BatchAverage share: the
// result buffer for nb strategy blocks, the upload of the weights w, the
// launches of block(j) for every strategy block j (none for an empty
// selection), and the synchronization point. It returns the results of
// every selected game, StatsWords per block. It does not keep block, so
// the callers' closures stay on their stacks.
func (c *CUDA) runBatchStats(s *cudaSelection, nb, ndst int, w []float64, op string, block func(j int)) ([]float64, error) {
	if err := c.statsOut(s, nb, ndst, len(w), op); err != nil {
		return nil, err
	}
	c.scalars(s, op, w)
	for j := 0; j < nb && len(s.games) > 0; j++ {
		block(j)
	}
	return c.statsSync(s, nb)
}

// statsSync is the synchronization point of the batched stats: one
// device-to-host copy of every selected game's results.
func (c *CUDA) statsSync(s *cudaSelection, nb int) ([]float64, error) {
	words := len(s.games) * nb * kernels.StatsWords
	if words == 0 {
		return nil, c.sync(nil, 0, 0)
	}
	if err := c.sync(unsafe.Pointer(&s.hout[0]), s.out, 8*int64(words)); err != nil {
		return nil, err
	}
	return s.hout[:words], nil
}

// BatchProxStats is ProxStats for every selected game with its own weight
// fraction w[i]. One host-to-device copy of w; per strategy block one
// launch with kernels.Batch, gpump_batch_proxstats_entropic or
// _euclidean (the record and its result words per game in its block); then
// the synchronization point: one cuMemcpyDtoH of 80·blocks bytes per
// selected game. Sets other than the simplex setups and linear terms
// panic.
func (c *CUDA) BatchProxStats(dst []BlockStats, w []float64, blocks []ProxBlock, sel Selection) error {
	s := c.sel(sel)
	nb := len(blocks)
	for j := range blocks {
		b := &blocks[j]
		c.batchBlock(&b.Set, b.Lin, b.X.Value, s, "BatchProxStats")
		c.checkProxBlock(b)
	}
	h, err := c.runBatchStats(s, nb, len(dst), w, "BatchProxStats", func(j int) {
		b := &blocks[j]
		_, n := c.blockLen(b.X.Value, s, "BatchProxStats")
		var l launch
		if b.Set.Setup == Entropic {
			l = c.statsLaunch(c.w.k.batchProxStatsEnt, s, n, j, nb)
			l.ptr(c.vec(b.Y.Value).ptr).ptr(c.vec(b.X.Value).ptr).ptr(c.vec(b.YNew.Value).ptr).
				ptr(c.vec(b.Y.State).ptr).ptr(c.vec(b.X.State).ptr).ptr(c.vec(b.YNew.State).ptr)
		} else {
			l = c.statsLaunch(c.w.k.batchProxStatsEuc, s, n, j, nb)
			l.ptr(c.vec(b.Y.Value).ptr).ptr(c.vec(b.X.Value).ptr).ptr(c.vec(b.YNew.Value).ptr)
		}
		l.ptr(c.vec(b.M).ptr).ptr(c.vec(b.G).ptr).ptr(c.vec(b.AvgX).ptr).ptr(c.vec(b.AvgG).ptr).
			ptr(c.vec(b.NewAvgX).ptr).ptr(c.vec(b.NewAvgG).ptr).ptr(s.scalar(0)).i64(int64(n))
		c.submitGames(&l, s)
	})
	if err != nil {
		return err
	}
	for i := range dst {
		dst[i] = blockStats(h[i*kernels.StatsWords:])
	}
	return nil
}

// BatchAverage is Average for every selected game with its own weight
// fraction w[i]. One host-to-device copy of w; per strategy block one
// launch of gpump_batch_average with kernels.Batch (AvgX, AvgG skipped
// where nil; MinAvgG NaN without AvgG); then the synchronization point:
// one cuMemcpyDtoH of 80·blocks bytes per selected game. Sets other than
// the simplex setups and linear terms panic.
func (c *CUDA) BatchAverage(dst []GapStats, w []float64, blocks []AvgBlock, sel Selection) error {
	s := c.sel(sel)
	nb := len(blocks)
	for j := range blocks {
		b := &blocks[j]
		c.batchBlock(&b.Set, b.Lin, b.G, s, "BatchAverage")
		c.checkAvgBlock(b)
	}
	h, err := c.runBatchStats(s, nb, len(dst), w, "BatchAverage", func(j int) {
		b := &blocks[j]
		g, n := c.blockLen(b.G, s, "BatchAverage")
		l := c.statsLaunch(c.w.k.batchAverage, s, n, j, nb)
		l.ptr(c.optVecN(b.X, g.n, "BatchAverage")).ptr(g.ptr).ptr(c.optVecN(b.AvgX, g.n, "BatchAverage")).
			ptr(c.optVecN(b.AvgG, g.n, "BatchAverage")).ptr(s.scalar(0)).i64(int64(n))
		c.submitGames(&l, s)
	})
	if err != nil {
		return err
	}
	for i := range dst {
		dst[i] = gapStats(h[i*kernels.StatsWords:])
	}
	return nil
}

// BatchRegretMatch is RegretMatch for every selected game with its own
// sign[i] and tiny[i]: one host-to-device copy of both, then one launch of
// gpump_batch_rm with kernels.Batch (dot, update and normalization in the
// game's block; no synchronization).
func (c *CUDA) BatchRegretMatch(x, r, u Vector, sign, tiny []float64, predictive bool, sel Selection) {
	s := c.sel(sel)
	xv, n := c.blockLen(x, s, "BatchRegretMatch")
	rv, uv := c.vecN(r, xv.n, "BatchRegretMatch"), c.vecN(u, xv.n, "BatchRegretMatch")
	distinct("BatchRegretMatch", []cu.DevicePtr{xv.ptr, rv.ptr}, uv.ptr)
	c.scalars(s, "BatchRegretMatch", sign, tiny)
	if len(s.games) == 0 {
		return
	}
	pred := int64(0)
	if predictive {
		pred = 1
	}
	l := c.batchLaunch(c.w.k.batchRM, s, 1, n)
	l.ptr(xv.ptr).ptr(rv.ptr).ptr(uv.ptr).ptr(s.scalar(0)).ptr(s.scalar(1)).i64(pred).i64(int64(n))
	c.submitGames(&l, s)
}

// elemLaunch starts a launch of gpump_batch_copy or _axpby over the
// selected games' runs of length n.
func (c *CUDA) elemLaunch(k *cudaKernel, s *cudaSelection, n int) launch {
	l, err := kernels.BatchElementwise(int64(s.b), int64(len(s.games)), int64(n), c.kdev)
	if err != nil {
		panic(err) // the sizes were checked when the vectors were made
	}
	return c.newLaunch(k, l)
}

// BatchCopy is Copy for every selected game. Async, one launch of
// gpump_batch_copy with kernels.BatchElementwise (a thread per element).
func (c *CUDA) BatchCopy(dst, src Vector, sel Selection) {
	s := c.sel(sel)
	d, n := c.blockLen(dst, s, "BatchCopy")
	sv := c.vecN(src, d.n, "BatchCopy")
	if len(s.games) == 0 || d.ptr == sv.ptr {
		return
	}
	l := c.elemLaunch(c.w.k.batchCopy, s, n)
	l.ptr(d.ptr).ptr(sv.ptr).i64(int64(n))
	c.submitGames(&l, s)
}

// BatchAxpby is Axpby for every selected game with its own alpha[i] and
// beta[i]: one host-to-device copy of both, then one launch of
// gpump_batch_axpby with kernels.BatchElementwise.
func (c *CUDA) BatchAxpby(dst Vector, alpha []float64, x Vector, beta []float64, y Vector, sel Selection) {
	s := c.sel(sel)
	d, n := c.blockLen(dst, s, "BatchAxpby")
	xv, yv := c.vecN(x, d.n, "BatchAxpby"), c.vecN(y, d.n, "BatchAxpby")
	c.scalars(s, "BatchAxpby", alpha, beta)
	if len(s.games) == 0 {
		return
	}
	l := c.elemLaunch(c.w.k.batchAxpby, s, n)
	l.ptr(d.ptr).ptr(s.scalar(0)).ptr(xv.ptr).ptr(s.scalar(1)).ptr(yv.ptr).i64(int64(n))
	c.submitGames(&l, s)
}
