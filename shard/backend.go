package shard

import (
	"fmt"
	"math"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Backend is a rank's part of a game held over a group of ranks: a local
// backend holding this rank's block of rows and the vectors, held whole,
// and the group's Comm (see the package documentation). It implements
// solver.Shard; like every backend it is used by one goroutine at a time.
//
// The local backend is the CPU's, whose vectors are the host slices the
// collectives send, or a device's (a GPU's: each rank its own), whose
// passes are staged through host buffers: a pass stores this rank's rows
// of A q and its partial Aᵀp from the device, gathers them from every rank
// on the host, and loads the whole results back, 8(k + n) bytes out and
// 8(m + n) in for a block of k rows; every other operation (prox-mappings,
// statistics, averages) runs on the device with no copy.
type Backend struct {
	local tensorops.Backend
	// host is true when local's vectors are host slices (the CPU backend).
	host bool
	comm Comm
	m    int
	lo   int
	hi   int
	// rows[r] is rank r's number of rows, the counts of the gathers of A q.
	rows []int
	// Scratch of the passes: this rank's rows of A q, its partial Aᵀp, the
	// ranks' partials gathered, and the counts of that gather.
	aq, part, parts      []float64
	partCounts, opCounts []int
	// Host scratch of a device's passes: the whole results before they
	// are loaded (fp, fq), and p for the sampled rows' draw.
	hfp, hfq, hp []float64
	// views and nextView are hostVector's cache, replaced round robin.
	views    [8]hostView
	nextView int
	// draw scratch of SampledOperator's rows.
	prefix []float64
	draws  []int
	// first is a device's first failed copy in a pass since the last agree,
	// flag that check's scratch.
	first error
	flag  [1]float64
	// commTime is the time spent in the Comm's collectives.
	commTime time.Duration
}

var _ solver.Shard = (*Backend)(nil)

// subber is what a device backend needs besides tensorops.Backend: a view
// of a vector's part (this rank's rows of p).
type subber interface {
	Sub(v tensorops.Vector, lo, hi int) tensorops.Vector
}

// New returns rank c.Rank()'s backend for a game of m rows, its block
// (Split) and the vectors to be held by local: the CPU backend
// (*tensorops.CPU), or a device's that can view part of a vector (a Sub
// method, as *tensorops.CUDA has). Every rank calls it with the same m.
func New(local tensorops.Backend, c Comm, m int) *Backend {
	if local == nil || c == nil {
		panic("shard: New with a nil backend or Comm")
	}
	_, host := local.(*tensorops.CPU)
	b := &Backend{local: local, host: host, comm: c, m: m, rows: make([]int, c.Size())}
	for r := range b.rows {
		lo, hi := Split(m, c.Size(), r)
		b.rows[r] = hi - lo
	}
	b.lo, b.hi = Split(m, c.Size(), c.Rank())
	return b
}

// Rows returns this rank's rows [lo, hi) of the game's m.
func (b *Backend) Rows() (lo, hi, m int) { return b.lo, b.hi, b.m }

// CommTime returns the wall time this rank spent in the group's
// collectives since New: the transfers and the waits for slower ranks.
func (b *Backend) CommTime() time.Duration { return b.commTime }

// allgather is the Comm's Allgather, timed.
func (b *Backend) allgather(send, recv []float64, counts []int) {
	t := time.Now()
	b.comm.Allgather(send, recv, counts)
	b.commTime += time.Since(t)
}

// Comm returns the group's Comm.
func (b *Backend) Comm() Comm { return b.comm }

// Name is the local backend's name ("cpu", "cuda"): the ranks are counted
// apart.
func (b *Backend) Name() string { return b.local.Name() }

// Kernels names the local backend's kernels (the CPU's "avx512", "avx2" or
// "generic", or the device's).
func (b *Backend) Kernels() string { return kernelsOf(b.local) }

// kernelsOf names a backend's kernels, where it says, else the backend.
func kernelsOf(be tensorops.Backend) string {
	if k, ok := be.(interface{ Kernels() string }); ok {
		return k.Kernels()
	}
	return be.Name()
}

// AllMax sets each x[i] to its maximum over the ranks.
func (b *Backend) AllMax(x []float64) {
	all := b.gatherAll(x)
	for i := range x {
		for r := range b.comm.Size() {
			x[i] = math.Max(x[i], all[r*len(x)+i])
		}
	}
}

// AllSum sets each x[i] to its sum over the ranks, added in rank order.
func (b *Backend) AllSum(x []float64) {
	all := b.gatherAll(x)
	b.sumParts(x, all)
}

// gatherAll gathers every rank's x (the same length on every rank).
func (b *Backend) gatherAll(x []float64) []float64 {
	size := b.comm.Size()
	if cap(b.partCounts) < size {
		b.partCounts = make([]int, size)
	}
	counts := b.partCounts[:size]
	for r := range counts {
		counts[r] = len(x)
	}
	b.parts = grow(b.parts, size*len(x))
	b.allgather(x, b.parts, counts)
	return b.parts
}

// sumParts sets dst_j = Σ_r all[r·n + j], r = 0, 1, …: the one place the
// ranks' partial sums are added, in a fixed order.
func (b *Backend) sumParts(dst, all []float64) {
	n := len(dst)
	copy(dst, all[:n])
	for r := 1; r < b.comm.Size(); r++ {
		for j, v := range all[r*n : (r+1)*n] {
			dst[j] += v
		}
	}
}

// matrix is a game's matrix on a Backend: this rank's block, with the
// whole game's shape; t marks Aᵀ (made by Transpose), held as the block's
// transpose beside the block.
type matrix struct {
	block, blockT tensorops.Matrix
	data          *tensor.Dense // the block, for the sampled rows
	m, n          int
	t             bool
	// rowsOut and colsOut are a device's outputs of the block's passes
	// (its k rows of A q, its partial Aᵀp), nil on the CPU.
	rowsOut, colsOut tensorops.Vector
}

func (a *matrix) Dims() (m, n int) {
	if a.t {
		return a.n, a.m
	}
	return a.m, a.n
}

func (a *matrix) Precision() tensorops.Precision { return a.block.Precision() }

func (b *Backend) mat(a tensorops.Matrix) *matrix {
	am, ok := a.(*matrix)
	if !ok {
		panic(fmt.Sprintf("shard: a %T is not a sharded matrix", a))
	}
	return am
}

// NewMatrix places this rank's block of rows, a tensor of hi − lo rows (see
// Rows), as the game's m×n matrix.
func (b *Backend) NewMatrix(t *tensor.Dense) (tensorops.Matrix, error) {
	rows, n, err := tensorops.CheckMatrix(t)
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	if rows != b.hi-b.lo {
		return nil, fmt.Errorf("shard: rank %d holds rows [%d, %d) of %d, not a block of %d rows", b.comm.Rank(), b.lo, b.hi, b.m, rows)
	}
	if _, ok := b.local.(subber); !b.host && !ok {
		return nil, fmt.Errorf("shard: the %s backend cannot view part of a vector (no Sub method)", b.local.Name())
	}
	blk, err := b.local.NewMatrix(t)
	if err != nil {
		return nil, err
	}
	a := &matrix{block: blk, data: t, m: b.m, n: n}
	if !b.host {
		a.rowsOut, err = b.local.NewVector(rows)
		if err == nil {
			a.colsOut, err = b.local.NewVector(n)
		}
		if err != nil {
			b.Free(a)
			return nil, fmt.Errorf("shard: the block's outputs: %w", err)
		}
	}
	return a, nil
}

// SetMatrix replaces the block's entries with src's (this rank's rows).
func (b *Backend) SetMatrix(dst tensorops.Matrix, src *tensor.Dense) error {
	a := b.mat(dst)
	if a.t {
		panic("shard: SetMatrix on a transpose")
	}
	if err := b.agree(b.local.SetMatrix(a.block, src)); err != nil {
		return err
	}
	a.data = src
	return nil
}

// Transpose returns Aᵀ: this rank's block transposed, n × (hi − lo).
func (b *Backend) Transpose(am tensorops.Matrix) (tensorops.Matrix, error) {
	a := b.mat(am)
	if a.t {
		return nil, fmt.Errorf("shard: the transpose of a transpose")
	}
	bt, err := b.local.Transpose(a.block)
	if err = b.agree(err); err != nil {
		if bt != nil {
			b.local.Free(bt)
		}
		return nil, err
	}
	return &matrix{block: a.block, blockT: bt, data: a.data, m: a.m, n: a.n, t: true, rowsOut: a.rowsOut, colsOut: a.colsOut}, nil
}

func (b *Backend) NewVector(n int) (tensorops.Vector, error) {
	v, err := b.local.NewVector(n)
	if err = b.agree(err); err != nil && v != nil {
		b.local.Free(v)
		v = nil
	}
	return v, err
}

func (b *Backend) Free(x ...any) {
	for _, v := range x {
		if a, ok := v.(*matrix); ok {
			if a.t {
				b.local.Free(a.blockT)
			} else {
				b.local.Free(a.block, a.rowsOut, a.colsOut)
			}
			continue
		}
		b.local.Free(v)
	}
}

// Load and Store are the local backend's; on a device, whose copies can
// fail on one rank alone, the ranks agree on the outcome (agree), as every
// rank makes the same calls at the same point of a solve.
func (b *Backend) Load(dst tensorops.Vector, src []float64) error {
	return b.agree(b.local.Load(dst, src))
}
func (b *Backend) Store(dst []float64, src tensorops.Vector) error {
	return b.agree(b.local.Store(dst, src))
}
func (b *Backend) Copy(dst, src tensorops.Vector) { b.local.Copy(dst, src) }
func (b *Backend) Axpby(dst tensorops.Vector, alpha float64, x tensorops.Vector, beta float64, y tensorops.Vector) {
	b.local.Axpby(dst, alpha, x, beta, y)
}
func (b *Backend) Start(dst tensorops.Point, s tensorops.Set) { b.local.Start(dst, s) }
func (b *Backend) Prox(dst, center tensorops.Point, g tensorops.Vector, eta float64, s tensorops.Set) {
	b.local.Prox(dst, center, g, eta, s)
}
func (b *Backend) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	return b.agree(b.local.ProxStats(dst, w, blocks))
}
func (b *Backend) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	return b.agree(b.local.Average(dst, w, blocks))
}

// agree returns, on every rank alike, err or the first error of the
// passes' device copies since the last agreement (b.first), whichever
// came first, of whichever rank failed first: a device's errors come on
// one rank alone, and a rank that stopped alone would leave the others
// waiting in the next collective. One small gather, and only on devices
// (the CPU's copies and reductions cannot fail; err is returned as it is).
func (b *Backend) agree(err error) error {
	if b.host {
		return err
	}
	if b.first != nil {
		err = b.first
	}
	b.first = nil
	b.flag[0] = 0
	if err != nil {
		b.flag[0] = 1
		err = fmt.Errorf("its device: %w", err)
	}
	for _, f := range b.gatherAll(b.flag[:]) { // timed by allgather
		if f != 0 { // every rank sees it: say which rank, and why
			ferr := Fail(b.comm, err)
			if err != nil { // Fail's own text on the other ranks
				return fmt.Errorf("shard: rank %d failed: %w", b.comm.Rank(), err)
			}
			return ferr
		}
	}
	return nil
}

func (b *Backend) RegretMatch(x, r, u tensorops.Vector, sign, tiny float64, predictive bool) {
	b.local.RegretMatch(x, r, u, sign, tiny, predictive)
}

// vec returns v's elements; v must be whole (the block's full length n).
func vec(v tensorops.Vector, n int) tensorops.CPUVector {
	x, ok := v.(tensorops.CPUVector)
	if !ok || len(x) != n {
		panic(fmt.Sprintf("shard: a vector of length %d expected, got a %T of %d", n, v, v.Len()))
	}
	return x
}

// orient returns the untransposed matrix behind a and whether a was Aᵀ.
func (b *Backend) orient(am tensorops.Matrix) (*matrix, bool) {
	a := b.mat(am)
	return a, a.t
}

// rowsOf returns this rank's rows of p, a whole vector of the game's m.
func (b *Backend) rowsOf(p tensorops.Vector) tensorops.Vector {
	if b.host {
		return b.hostVector(vec(p, b.m)[b.lo:b.hi])
	}
	return b.local.(subber).Sub(p, b.lo, b.hi)
}

// output returns where the local pass writes: the host scratch x itself on
// the CPU, a device's output vector dev otherwise (fetched into x).
func (b *Backend) output(dev tensorops.Vector, x []float64) tensorops.Vector {
	if b.host {
		return b.hostVector(x)
	}
	return dev
}

// hostVector returns x as a tensorops.Vector, made once per slice and kept
// (a slice made an interface value is allocated: a pass would allocate a
// few each time). The passes use a few slices each: the scratch parts and
// the rows of the p vectors the method keeps.
func (b *Backend) hostVector(x []float64) tensorops.Vector {
	if len(x) == 0 {
		return tensorops.CPUVector(x)
	}
	for _, h := range b.views {
		if h.n == len(x) && h.base == &x[0] {
			return h.v
		}
	}
	h := &b.views[b.nextView%len(b.views)]
	b.nextView++
	h.base, h.n, h.v = &x[0], len(x), tensorops.CPUVector(x)
	return h.v
}

// hostView is a host slice kept as a tensorops.Vector (hostVector).
type hostView struct {
	base *float64
	n    int
	v    tensorops.Vector
}

// fetch copies a device's output v into the host scratch x (nothing on
// the CPU, where v is x).
func (b *Backend) fetch(x []float64, v tensorops.Vector) {
	if !b.host {
		if err := b.local.Store(x, v); err != nil && b.first == nil {
			b.first = err
		}
	}
}

// result returns the host slice a whole result of length n is assembled
// in: dst's own elements on the CPU, the scratch *x on a device (then
// deliver loads it into dst).
func (b *Backend) result(dst tensorops.Vector, n int, x *[]float64) []float64 {
	if b.host {
		return vec(dst, n)
	}
	*x = grow(*x, n)
	return *x
}

// deliver loads the assembled result x into dst on a device.
func (b *Backend) deliver(dst tensorops.Vector, x []float64) {
	if !b.host {
		if err := b.local.Load(dst, x); err != nil && b.first == nil {
			b.first = err
		}
	}
}

// Operator sets fp = −A q and fq = Aᵀp: one local pass over the block
// into [this rank's rows of −A q, its partial Aᵀp], one gather of those
// from every rank (one synchronization per pass: each is a point where a
// rank that the system delayed holds up the others), then the rows put in
// place and the partials summed in rank order.
func (b *Backend) Operator(fp, fq tensorops.Vector, am tensorops.Matrix, p, q tensorops.Vector) {
	a := b.mat(am)
	if a.t {
		panic("shard: Operator on a transpose")
	}
	k, size := b.hi-b.lo, b.comm.Size()
	b.aq = grow(b.aq, k+a.n)
	rows, cols := b.output(a.rowsOut, b.aq[:k]), b.output(a.colsOut, b.aq[k:])
	b.local.Operator(rows, cols, a.block, b.rowsOf(p), q)
	b.fetch(b.aq[:k], rows)
	b.fetch(b.aq[k:], cols)
	if cap(b.opCounts) < size {
		b.opCounts = make([]int, size)
	}
	counts := b.opCounts[:size]
	for r, rows := range b.rows {
		counts[r] = rows + a.n
	}
	b.parts = grow(b.parts, a.m+size*a.n)
	b.allgather(b.aq, b.parts, counts)
	fpv, fqv := b.result(fp, a.m, &b.hfp), b.result(fq, a.n, &b.hfq)
	off, lo := 0, 0
	for r, rows := range b.rows {
		copy(fpv[lo:lo+rows], b.parts[off:off+rows])
		lo += rows
		off += rows
		part := b.parts[off : off+a.n]
		if r == 0 {
			copy(fqv, part)
		} else {
			for j, v := range part { // the order of sumParts
				fqv[j] += v
			}
		}
		off += a.n
	}
	b.deliver(fp, fpv)
	b.deliver(fq, fqv)
}

// MulVec sets dst = A q (or Aᵀq for a transpose).
func (b *Backend) MulVec(dst tensorops.Vector, am tensorops.Matrix, q tensorops.Vector) {
	b.product(dst, am, q, false)
}

// MulTVec sets dst = Aᵀp (or A p for a transpose).
func (b *Backend) MulTVec(dst tensorops.Vector, am tensorops.Matrix, p tensorops.Vector) {
	b.product(dst, am, p, true)
}

// product sets dst = A x, or Aᵀx with trans; a transposed view swaps them.
func (b *Backend) product(dst tensorops.Vector, am tensorops.Matrix, x tensorops.Vector, trans bool) {
	if a, t := b.orient(am); t != trans {
		b.mulT(dst, a, x)
	} else {
		b.mul(dst, a, x)
	}
}

func (b *Backend) mul(dst tensorops.Vector, a *matrix, q tensorops.Vector) {
	b.aq = grow(b.aq, b.hi-b.lo)
	rows := b.output(a.rowsOut, b.aq)
	b.local.MulVec(rows, a.block, q)
	b.fetch(b.aq, rows)
	dv := b.result(dst, a.m, &b.hfp)
	b.allgather(b.aq, dv, b.rows)
	b.deliver(dst, dv)
}

func (b *Backend) mulT(dst tensorops.Vector, a *matrix, p tensorops.Vector) {
	b.part = grow(b.part, a.n)
	cols := b.output(a.colsOut, b.part)
	b.local.MulTVec(cols, a.block, b.rowsOf(p))
	b.fetch(b.part, cols)
	dv := b.result(dst, a.n, &b.hfq)
	b.sumParts(dv, b.gatherAll(b.part))
	b.deliver(dst, dv)
}

// SampledOperator draws exactly the indices a single process draws (the
// draws read the whole p and q, which every rank holds). The sampled
// columns' rows of −(1/b) Σ A e_j are this rank's block's own (the local
// backend forms them, bit for bit as one process would on it) and are
// gathered; the sampled rows are drawn on the host by the CPU's rule,
// summed by the ranks that hold them, the partials added in rank order,
// then divided by b.
func (b *Backend) SampledOperator(fp, fq tensorops.Vector, am, at tensorops.Matrix, p, q tensorops.Vector, d tensorops.Draw) {
	a := b.mat(am)
	if a.t {
		panic("shard: SampledOperator on a transpose")
	}
	var blockT tensorops.Matrix
	if at != nil {
		blockT = b.mat(at).blockT
	}
	if d.Batch < 1 {
		panic(fmt.Sprintf("shard: SampledOperator: batch %d", d.Batch))
	}
	k := b.hi - b.lo
	b.aq, b.part = grow(b.aq, k), grow(b.part, a.n)
	// The local draw of rows from this rank's part of p is not the game's:
	// its row sum (b.part) is replaced below.
	rows, cols := b.output(a.rowsOut, b.aq), b.output(a.colsOut, b.part)
	b.local.SampledOperator(rows, cols, a.block, blockT, b.rowsOf(p), q, d)
	b.fetch(b.aq, rows)
	fpv := b.result(fp, a.m, &b.hfp)
	b.allgather(b.aq, fpv, b.rows)
	b.deliver(fp, fpv)
	var pv []float64
	if b.host {
		pv = vec(p, a.m)
	} else {
		b.hp = grow(b.hp, a.m)
		b.fetch(b.hp, p)
		pv = b.hp
	}
	ok := b.drawRows(pv, d)
	clear(b.part)
	if ok {
		if a.data.Dtype() == tensor.Float64 {
			sumRows(b.part, a.data.Float64s(), a.n, b.lo, b.hi, b.draws)
		} else {
			sumRows(b.part, a.data.Float32s(), a.n, b.lo, b.hi, b.draws)
		}
	}
	fqv := b.result(fq, a.n, &b.hfq)
	b.sumParts(fqv, b.gatherAll(b.part))
	div := float64(d.Batch)
	if !ok {
		div = math.NaN()
	}
	for j := range fqv {
		fqv[j] /= div
	}
	b.deliver(fq, fqv)
}

// drawRows draws the b row indices of d from the weights p by the rule of
// tensorops.Backend.SampledOperator (uniforms b … 2b−1), sorted into
// b.draws; false when p has no positive finite total.
func (b *Backend) drawRows(p []float64, d tensorops.Draw) bool {
	b.prefix = grow(b.prefix, len(p))
	if cap(b.draws) < d.Batch {
		b.draws = make([]int, d.Batch)
	}
	b.draws = b.draws[:d.Batch]
	return tensorops.DrawIndices(b.draws, b.prefix, p, d, d.Batch)
}

// sumRows adds to dst the rows of the drawn indices that lie in [lo, hi),
// a repeated index as often as it was drawn, in increasing index order.
func sumRows[T float32 | float64](dst []float64, a []T, n, lo, hi int, draws []int) {
	for _, i := range draws {
		if i < lo || i >= hi {
			continue
		}
		for j, v := range a[(i-lo)*n : (i-lo+1)*n] {
			dst[j] += float64(v)
		}
	}
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
