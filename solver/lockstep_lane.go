package solver

import (
	"errors"

	"github.com/gpump/gpump/tensorops"
	"gorgonia.org/tensor"
)

// The lane: one game's tensorops.Backend in a lockstep batch. It queues the
// game's operations for the dispatcher (lockstep.go) and waits at the
// synchronization points.

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

// blockKey records a stats block in the key from position p: its vectors,
// then its set's setup. A linear term or a set with vectors makes the
// operation run per game.
func (op *laneOp) blockKey(p int, s tensorops.Set, lin tensorops.Vector, vs ...tensorops.Vector) {
	for j, v := range vs {
		op.key[p+j] = keyOf(v)
	}
	op.key[p+len(vs)] = int32(s.Setup)
	if lin != nil || s.Lo != nil || s.Center != nil {
		op.key[1] = -2
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
		op.blockKey(2+13*i, b.Set, b.Lin, b.Y.State, b.Y.Value, b.X.State, b.X.Value, b.YNew.State, b.YNew.Value,
			b.M, b.G, b.AvgX, b.AvgG, b.NewAvgX, b.NewAvgG)
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
		op.blockKey(2+6*i, b.Set, b.Lin, b.X, b.G, b.AvgX, b.AvgG)
	}
	op.ab, op.adst, op.s1 = blocks, dst, w
	return l.wait()
}
