package solver

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
