package solver

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// Lockstep: a batch on a tensorops.Batched backend. Every game runs the
// ordinary driver loop and engine (the step logic exists once), each as a
// coroutine on a lane: a tensorops.Backend that queues the game's
// operations instead of running them. A lane runs until its game needs a
// result from the backend (ProxStats, Average, Store: the synchronization
// points of the contract), then waits. When every running game waits, the
// dispatcher runs the queued operations, each lane's in its own order
// (flush says which goes first), grouping the same operation on the same
// vectors across games into one batched call (one launch on a device); an
// operation without a batched form runs per game on the game's views. Then
// it resumes the games. A game that
// meets its target simply stops queueing: it leaves the selection of the
// next calls, so finished games cost nothing.
//
// A game's vectors are its parts of batch vectors (slots): a lane's j-th
// allocation of length n is its part of slot (j, n), shared by every lane
// that allocates in the same order, which every game of one method does.

// laneVec is a lane's vector: its game's part of slot's batch vector, or a
// vector of the lane's own (slot −1).
type laneVec struct {
	slot int
	n    int
	v    tensorops.Vector // the game's view of the slot, or its own vector
}

func (v *laneVec) Len() int { return v.n }

// laneMat is a lane's matrix: its game's part of the batch matrix, or a
// matrix of its own (a transpose).
type laneMat struct {
	batched bool
	v       tensorops.Matrix
}

func (a *laneMat) Dims() (m, n int)               { return a.v.Dims() }
func (a *laneMat) Precision() tensorops.Precision { return a.v.Precision() }

// laneKind is the kind of a queued operation.
type laneKind uint8

const (
	lkOperator laneKind = iota
	lkMulVec
	lkMulTVec
	lkCopy
	lkAxpby
	lkProx
	lkRegret
	lkProxStats
	lkAverage
	lkStart
	lkLoad
	lkStore
	lkSampled
)

// keyLen bounds the operands of an operation: two ProxStats blocks of 13
// vectors.
const keyLen = 28

// laneOp is one queued operation. key identifies it for grouping: its kind,
// its options and the slot of every operand (−1 for none, −2 for a vector
// of the lane's own, which makes it run per game).
type laneOp struct {
	kind   laneKind
	key    [keyLen]int32
	hash   uint64 // of key, set when the lane stops for the flush
	v      [5]*laneVec
	mat    *laneMat
	at     tensorops.Matrix
	s1, s2 float64
	set    tensorops.Set
	pred   bool
	draw   tensorops.Draw
	host   []float64
	pb     []tensorops.ProxBlock
	ab     []tensorops.AvgBlock
	pdst   []tensorops.BlockStats
	adst   []tensorops.GapStats
}

// lane is one game's backend in a lockstep batch.
type lane struct {
	d      *lockstep
	k      int // the game's index in the batch
	nvec   int // vectors allocated so far
	queue  []laneOp
	cursor int   // the next operation of the queue to run, during a flush
	err    error // the error of the synchronization point that woke the lane
	yield  func(struct{}) bool
	next   func() (struct{}, bool)
	stop   func()
	done   bool
}

var _ tensorops.Backend = (*lane)(nil)

// slotKey names a slot: the ordinal of the allocation and its length.
type slotKey struct{ j, n int }

// lockstep is the dispatcher of a batch: the backend, the batch on it, the
// slots and the lanes.
type lockstep struct {
	bb    tensorops.Batched
	bt    *Batch
	bm    tensorops.BatchMatrix
	sel   tensorops.Selection
	mu    sync.Mutex // guards the backend and the slots while lanes run
	slots []tensorops.Vector
	index map[slotKey]int
	owned []any
	lanes []*lane
	// group scratch: the lanes of the group being run, the games, the
	// per-game scalars, the results.
	group  []*lane
	keys   []keyCount
	games  []int
	s1, s2 []float64
	pb     []tensorops.ProxBlock
	ab     []tensorops.AvgBlock
	pdst   []tensorops.BlockStats
	adst   []tensorops.GapStats
	host   []float64
	// err is a failure of the backend outside a synchronization point
	// (allocation, selection): every lane's next wait returns it.
	err   error
	stats BatchStats
}

func newLockstep(bb tensorops.Batched, bt *Batch) (*lockstep, error) {
	d := &lockstep{bb: bb, bt: bt, index: map[slotKey]int{}}
	var err error
	if d.bm, err = bb.NewBatchMatrix(bt.a); err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	d.owned = append(d.owned, d.bm)
	if d.sel, err = bb.NewSelection(bt.b); err != nil {
		d.free()
		return nil, fmt.Errorf("solver: %w", err)
	}
	d.owned = append(d.owned, d.sel)
	return d, nil
}

func (d *lockstep) free() {
	for _, v := range d.slots {
		d.bb.Free(v)
	}
	d.bb.Free(d.owned...)
}

// run solves every lane's game: solve(l) is the game's whole solve, run as
// the lane's coroutine. Lanes are resumed by up to GOMAXPROCS goroutines;
// the queued operations run on the calling goroutine.
func (d *lockstep) run(solve func(l *lane)) {
	for k := range d.bt.b {
		l := &lane{d: d, k: k}
		l.next, l.stop = iter.Pull(func(yield func(struct{}) bool) {
			l.yield = yield
			solve(l)
		})
		d.lanes = append(d.lanes, l)
	}
	defer func() {
		for _, l := range d.lanes {
			l.stop()
		}
	}()
	active := append([]*lane(nil), d.lanes...)
	shards := min(runtime.GOMAXPROCS(0), len(active))
	var (
		wg       sync.WaitGroup
		gameTime atomic.Int64
	)
	resume := func(ls []*lane) {
		t0 := time.Now()
		for _, l := range ls {
			l.resume()
		}
		gameTime.Add(int64(time.Since(t0)))
	}
	for len(active) > 0 {
		if shards > 1 && len(active) >= 2*shards {
			for w := range shards {
				lo, hi := w*len(active)/shards, (w+1)*len(active)/shards
				wg.Go(func() { resume(active[lo:hi]) })
			}
			wg.Wait()
		} else {
			resume(active)
		}
		t0 := time.Now()
		d.flush(active) // the games that ended this round included: their last operations
		d.stats.DispatchTime += time.Since(t0)
		d.stats.Rounds++
		kept := active[:0]
		for _, l := range active {
			if !l.done {
				kept = append(kept, l)
			}
		}
		active = kept
	}
	d.stats.GameTime = time.Duration(gameTime.Load())
}

// resume runs the lane until it waits or its game ends.
func (l *lane) resume() {
	if _, ok := l.next(); !ok {
		l.done = true
	}
	for i := range l.queue {
		l.queue[i].hash = hashKey(&l.queue[i].key)
	}
}

// wait hands control back to the dispatcher until the queued operations
// have run, and returns the error of the synchronization point.
func (l *lane) wait() error {
	if !l.yield(struct{}{}) {
		return errors.New("solver: lockstep batch stopped")
	}
	err := l.err
	l.err = nil
	return err
}

// hashKey is FNV-1a over the key's words.
func hashKey(k *[keyLen]int32) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range k {
		h ^= uint64(uint32(w))
		h *= 1099511628211
	}
	return h
}

// flush runs the queues of lanes (the games running this round; finished
// games cost nothing). Each lane has a cursor at its next
// operation; each step takes one operation some cursors point at (the same
// kind on the same slots), runs it for those lanes as one group and
// advances their cursors. The step takes the operation of the lane with
// the most operations left (ties: the operation most cursors point at):
// a lane that queued an extra operation before the common ones (a copy of
// its best point, a restart) runs it alone first and then joins the
// others' groups, instead of trailing them by one call to the end.
func (d *lockstep) flush(lanes []*lane) {
	for _, l := range lanes {
		l.cursor = 0
	}
	for {
		d.keys = d.keys[:0]
		for _, l := range lanes {
			if l.cursor >= len(l.queue) {
				continue
			}
			h, left := l.queue[l.cursor].hash, len(l.queue)-l.cursor
			found := false
			for i := range d.keys {
				if d.keys[i].hash == h {
					d.keys[i].count++
					d.keys[i].left = max(d.keys[i].left, left)
					found = true
					break
				}
			}
			if !found && len(d.keys) < maxKeys {
				d.keys = append(d.keys, keyCount{hash: h, key: &l.queue[l.cursor].key, count: 1, left: left})
			}
		}
		if len(d.keys) == 0 {
			break
		}
		best := 0
		for i, k := range d.keys {
			if b := &d.keys[best]; k.left > b.left || (k.left == b.left && k.count > b.count) {
				best = i
			}
		}
		d.group = d.group[:0]
		for _, l := range lanes {
			if l.cursor < len(l.queue) && l.queue[l.cursor].hash == d.keys[best].hash && l.queue[l.cursor].key == *d.keys[best].key {
				d.group = append(d.group, l)
			}
		}
		d.runGroup()
		for _, l := range d.group {
			l.cursor++
		}
	}
	for _, l := range lanes {
		clear(l.queue) // drop the references to the engines' slices
		l.queue = l.queue[:0]
	}
}

// keyCount counts the cursors at one operation during a flush (told apart
// by the hashes of their keys, and grouped only when the keys agree), and
// the most operations any of their lanes has left; maxKeys
// bounds the distinct operations looked at per step (the others wait for a
// later step).
type keyCount struct {
	hash        uint64
	key         *[keyLen]int32
	count, left int
}

const maxKeys = 16

// runGroup runs the operation at the cursors of the lanes of d.group (the
// same operation on the same slots) as one batched call where the
// operation has one, else game by game.
func (d *lockstep) runGroup() {
	first := d.group[0].op()
	if d.err == nil && d.batchable(first) {
		d.games, d.s1, d.s2 = d.games[:0], d.s1[:0], d.s2[:0]
		for _, l := range d.group {
			op := l.op()
			d.games = append(d.games, l.k)
			d.s1 = append(d.s1, op.s1)
			d.s2 = append(d.s2, op.s2)
		}
		if err := d.bb.Select(d.sel, d.games); err != nil {
			d.err = err
		} else {
			d.batched(first)
			return
		}
	}
	for _, l := range d.group {
		l.runOne(l.op())
	}
}

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
		err := bb.BatchProxStats(d.pdst, d.s1, d.pb, sel)
		for i, l := range d.group {
			copy(l.op().pdst, d.pdst[i*nb:(i+1)*nb])
			l.fail(err)
		}
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
		err := bb.BatchAverage(d.adst, d.s1, d.ab, sel)
		for i, l := range d.group {
			copy(l.op().adst, d.adst[i*nb:(i+1)*nb])
			l.fail(err)
		}
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

// The lane's Backend methods. Allocation and the matrix's placement run at
// once (under the dispatcher's lock: lanes run concurrently); every
// operation is queued, and the synchronization points wait for the flush.

// Name returns the underlying backend's name.
func (l *lane) Name() string { return l.d.bb.Name() }

// NewMatrix places the lane's own game as its part of the batch matrix;
// any other matrix goes on the backend as a matrix of the lane's own.
func (l *lane) NewMatrix(a *tensor.Dense) (tensorops.Matrix, error) {
	d := l.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if a == d.bt.games[l.k] {
		return &laneMat{batched: true, v: d.bb.GameMatrix(d.bm, l.k)}, nil
	}
	m, err := d.bb.NewMatrix(a)
	if err != nil {
		return nil, err
	}
	return &laneMat{v: m}, nil
}

// SetMatrix is refused: a batch's games are fixed while it is solved.
func (l *lane) SetMatrix(tensorops.Matrix, *tensor.Dense) error {
	return errors.New("solver: a game of a lockstep batch cannot change its payoffs")
}

// Transpose makes a transpose of the lane's own.
func (l *lane) Transpose(a tensorops.Matrix) (tensorops.Matrix, error) {
	d := l.d
	d.mu.Lock()
	defer d.mu.Unlock()
	t, err := d.bb.Transpose(a.(*laneMat).v)
	if err != nil {
		return nil, err
	}
	return &laneMat{v: t}, nil
}

// NewVector returns the lane's part of the slot of its next allocation.
func (l *lane) NewVector(n int) (tensorops.Vector, error) {
	d := l.d
	d.mu.Lock()
	defer d.mu.Unlock()
	key := slotKey{l.nvec, n}
	l.nvec++
	s, ok := d.index[key]
	if !ok {
		v, err := d.bb.NewVector(n * d.bt.b)
		if err != nil {
			return nil, err
		}
		s = len(d.slots)
		d.slots = append(d.slots, v)
		d.index[key] = s
	}
	return &laneVec{slot: s, n: n, v: d.bb.GameVector(d.slots[s], n, l.k)}, nil
}

// Free frees the lane's own matrices; slots live as long as the batch.
func (l *lane) Free(xs ...any) {
	d := l.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range xs {
		if m, ok := x.(*laneMat); ok && !m.batched {
			d.bb.Free(m.v)
		}
	}
}

// push queues an operation and returns it for its operands to be set.
func (l *lane) push(kind laneKind) *laneOp {
	l.queue = append(l.queue, laneOp{kind: kind})
	op := &l.queue[len(l.queue)-1]
	for i := range op.key {
		op.key[i] = -1
	}
	op.key[0] = int32(kind)
	return op
}

// operand records vector x as operand i of op (key position p).
func (op *laneOp) operand(i, p int, x tensorops.Vector) {
	if x == nil {
		return
	}
	v := x.(*laneVec)
	op.v[i] = v
	op.key[p] = keyOf(v)
}

func keyOf(v tensorops.Vector) int32 {
	if v == nil {
		return -1
	}
	lv := v.(*laneVec)
	if lv.slot < 0 {
		return -2
	}
	return int32(lv.slot)
}

// setKey records a set's vectors in the key from position p (a set with
// vectors makes the operation run per game).
func (op *laneOp) setKey(p int, s tensorops.Set) {
	op.key[p] = int32(s.Setup)
	if s.Lo != nil || s.Hi != nil || s.Center != nil {
		op.key[p+1] = -2
	}
}

// Load queues a copy of src (taken now: the caller may reuse it).
func (l *lane) Load(dst tensorops.Vector, src []float64) error {
	op := l.push(lkLoad)
	op.operand(0, 1, dst)
	op.key[2] = -2 // per game
	op.host = append([]float64(nil), src...)
	return nil
}

// Store waits for the value of src.
func (l *lane) Store(dst []float64, src tensorops.Vector) error {
	op := l.push(lkStore)
	op.operand(0, 1, src)
	op.host = dst
	return l.wait()
}

func (l *lane) Copy(dst, src tensorops.Vector) {
	op := l.push(lkCopy)
	op.operand(0, 1, dst)
	op.operand(1, 2, src)
}

func (l *lane) Axpby(dst tensorops.Vector, alpha float64, x tensorops.Vector, beta float64, y tensorops.Vector) {
	op := l.push(lkAxpby)
	op.operand(0, 1, dst)
	op.operand(1, 2, x)
	op.operand(2, 3, y)
	op.s1, op.s2 = alpha, beta
}

func (l *lane) pass(kind laneKind, fp, fq tensorops.Vector, a tensorops.Matrix, p, q tensorops.Vector) {
	op := l.push(kind)
	op.mat = a.(*laneMat)
	if !op.mat.batched {
		op.key[1] = -2
	}
	switch kind {
	case lkOperator:
		op.operand(0, 2, fp)
		op.operand(1, 3, fq)
		op.operand(2, 4, p)
		op.operand(3, 5, q)
	case lkMulVec:
		op.operand(0, 2, fp)
		op.operand(1, 3, q)
	case lkMulTVec:
		op.operand(0, 2, fq)
		op.operand(1, 3, p)
	}
}

func (l *lane) Operator(fp, fq tensorops.Vector, a tensorops.Matrix, p, q tensorops.Vector) {
	l.pass(lkOperator, fp, fq, a, p, q)
}

func (l *lane) MulVec(dst tensorops.Vector, a tensorops.Matrix, q tensorops.Vector) {
	l.pass(lkMulVec, dst, nil, a, nil, q)
}

func (l *lane) MulTVec(dst tensorops.Vector, a tensorops.Matrix, p tensorops.Vector) {
	l.pass(lkMulTVec, nil, dst, a, p, nil)
}

func (l *lane) SampledOperator(fp, fq tensorops.Vector, a, at tensorops.Matrix, p, q tensorops.Vector, dr tensorops.Draw) {
	op := l.push(lkSampled)
	op.key[1] = -2 // per game
	op.operand(0, 2, fp)
	op.operand(1, 3, fq)
	op.operand(2, 4, p)
	op.operand(3, 5, q)
	op.mat, op.draw = a.(*laneMat), dr
	if at != nil {
		op.at = at.(*laneMat).v
	}
}

func (l *lane) Start(dst tensorops.Point, s tensorops.Set) {
	op := l.push(lkStart)
	op.key[1] = -2 // rare: per game
	op.operand(0, 2, dst.State)
	op.operand(1, 3, dst.Value)
	op.set = s
}

func (l *lane) Prox(dst, center tensorops.Point, g tensorops.Vector, eta float64, s tensorops.Set) {
	op := l.push(lkProx)
	op.operand(0, 1, dst.State)
	op.operand(1, 2, dst.Value)
	op.operand(2, 3, center.State)
	op.operand(3, 4, center.Value)
	op.operand(4, 5, g)
	op.setKey(6, s)
	op.set, op.s1 = s, eta
}

func (l *lane) RegretMatch(x, r, u tensorops.Vector, sign, tiny float64, predictive bool) {
	op := l.push(lkRegret)
	op.operand(0, 1, x)
	op.operand(1, 2, r)
	op.operand(2, 3, u)
	if predictive {
		op.key[4] = 1
	}
	op.s1, op.s2, op.pred = tiny, sign, predictive
}

func (l *lane) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	op := l.push(lkProxStats)
	if len(blocks) > 2 {
		op.key[1] = -2 // beyond the key: per game
	}
	for i := range min(len(blocks), 2) {
		b := &blocks[i]
		p := 2 + 13*i
		for j, v := range []tensorops.Vector{b.Y.State, b.Y.Value, b.X.State, b.X.Value, b.YNew.State, b.YNew.Value,
			b.M, b.G, b.AvgX, b.AvgG, b.NewAvgX, b.NewAvgG} {
			op.key[p+j] = keyOf(v)
		}
		op.key[p+12] = int32(b.Set.Setup)
		if b.Lin != nil || b.Set.Lo != nil || b.Set.Center != nil {
			op.key[1] = -2
		}
	}
	op.pb, op.pdst, op.s1 = blocks, dst, w
	return l.wait()
}

func (l *lane) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	op := l.push(lkAverage)
	if len(blocks) > 4 {
		op.key[1] = -2
	}
	for i := range min(len(blocks), 4) {
		b := &blocks[i]
		p := 2 + 6*i
		for j, v := range []tensorops.Vector{b.X, b.G, b.AvgX, b.AvgG} {
			op.key[p+j] = keyOf(v)
		}
		op.key[p+4] = int32(b.Set.Setup)
		if b.Lin != nil || b.Set.Lo != nil || b.Set.Center != nil {
			op.key[1] = -2
		}
	}
	op.ab, op.adst, op.s1 = blocks, dst, w
	return l.wait()
}

// solveLockstep is SolveBatch on a Batched backend.
func solveLockstep(ctx context.Context, bb tensorops.Batched, bt *Batch, bs *BatchSettings, m Method,
	res []BatchResult, report func(k int)) error {
	d, err := newLockstep(bb, bt)
	if err != nil {
		return err
	}
	defer d.free()
	methods := make([]Method, bt.b)
	for k := range methods {
		if methods[k], err = cloneMethod(m); err != nil {
			return err
		}
	}
	d.run(func(l *lane) {
		r := &res[l.k]
		var game *MatrixGame
		err := ctx.Err()
		if err == nil {
			if game, err = NewMatrixGame(bt.games[l.k]); err == nil {
				err = game.Place(l)
			}
		}
		settings := bs.Settings
		bs.solveGame(ctx, l.k, game, err, methods[l.k], r, &settings)
		if game != nil {
			game.Close()
		}
		report(l.k)
	})
	if bs.Stats != nil {
		*bs.Stats = d.stats
	}
	return nil
}
