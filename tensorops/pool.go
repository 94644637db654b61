package tensorops

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// runner is a unit of parallel work; run(w) does worker w's share.
type runner interface{ run(w int) }

// pool is a fixed set of worker goroutines. Worker 0 is the caller, so a pass
// over A with two threads hands work to one goroutine. Dispatching allocates
// nothing.
//
// A worker that finishes a job spins for spinWindow, watching for the next,
// before it parks on its channel; the caller waits for the workers' shares
// the same way. An RM+ run's passes come back to back, microseconds apart,
// and a pass over a matrix that stays in the cache takes tens of
// microseconds: waking a parked goroutine (a futex, a few to tens of
// microseconds) made the second thread a loss there, a spinning one made
// RM+'s passes over 500² to 1200² float64 matrices 1.4–1.8× faster
// (DESIGN.md, *Measurements behind the doc comments*). On a machine with
// two hardware threads a core, a spinning worker takes issue slots from
// its sibling for at most spinWindow after a job. Workers spin only
// when there are as many Ps as workers (GOMAXPROCS at the pool's start):
// else a spinning worker could hold the P its caller needs.
//
// A memory fault in a worker's share (a memory-mapped matrix truncated
// under the pass) is caught there, the workers set debug.SetPanicOnFault,
// and raised again on the caller once every share is done, where the caller
// can recover it (the solver does): without this, a fault on any worker
// goroutine ends the process.
type pool struct {
	w      []poolWorker // w[k] is worker k ≥ 1's; w[0] is unused
	spin   bool
	closed atomic.Bool
	once   sync.Once
}

// poolWorker is the hand-off between the caller and one worker: the caller
// writes job, then raises seq; the worker runs job, writes fault, then
// sets fin to seq. A parked worker (state parked) is woken by a token on
// wake. The padding keeps two workers' counters off one cache line.
type poolWorker struct {
	job   runner
	fault any // the fault the last job raised, or nil
	seq   atomic.Uint64
	fin   atomic.Uint64
	state atomic.Int32 // running or parked
	wake  chan struct{}
	// waiting is whether the caller sleeps on done for this worker's
	// share (it spins for spinWindow first).
	waiting atomic.Bool
	done    chan struct{}
	_       [64]byte
}

// The states of a pool worker.
const (
	running = iota
	parked
)

// spinWindow is how long a worker watches for its next job before it
// parks: longer than the gaps between an RM+ run's passes (its updates,
// the gap's reductions), short enough that a worker of a backend gone idle
// (a crossover running, a solve done) stops burning its core at once.
const spinWindow = 50 * time.Microsecond

func newPool(n int) *pool { return newPoolSpin(n, runtime.GOMAXPROCS(0) >= n) }

// newPoolSpin is newPool with the choice to spin made by the caller.
func newPoolSpin(n int, spin bool) *pool {
	p := &pool{w: make([]poolWorker, n), spin: spin}
	for k := 1; k < n; k++ {
		p.w[k].wake = make(chan struct{}, 1)
		p.w[k].done = make(chan struct{}, 1)
		go p.work(k)
	}
	return p
}

// work is worker k's loop.
func (p *pool) work(k int) {
	debug.SetPanicOnFault(true)
	pw := &p.w[k]
	var done uint64
	for {
		// A job sent before the pool closed still runs: its caller waits
		// for it.
		s := pw.seq.Load()
		if s == done {
			if p.closed.Load() {
				return
			}
			if p.spin && p.spinFor(pw, done) {
				continue
			}
			// Park, unless a job came in meanwhile: the caller raises
			// seq before it reads state, the worker sets state before it
			// reads seq again, so one of them sees the other's write.
			// The sets are exchanges, not stores: Go's atomics are
			// sequentially consistent, but qemu-user running arm64 code
			// on x86 lets a load-acquire pass an earlier store-release,
			// and a wake-up was lost (TestPoolHandshakes); an exchange is
			// a full barrier on every CPU and emulator.
			pw.state.Swap(parked)
			if pw.seq.Load() == done && !p.closed.Load() {
				<-pw.wake
			}
			pw.state.Store(running)
			continue
		}
		done = s
		pw.fault = runCaught(pw.job, k)
		pw.job = nil
		pw.fin.Swap(s)
		if pw.waiting.Load() {
			signal(pw.done)
		}
	}
}

// spinFor watches pw's seq for a job after done, or the pool's closing,
// for spinWindow, and reports whether one came.
func (p *pool) spinFor(pw *poolWorker, done uint64) bool {
	start := time.Now()
	for i := 1; ; i++ {
		if pw.seq.Load() != done || p.closed.Load() {
			return true
		}
		if i%256 == 0 {
			if time.Since(start) > spinWindow {
				return false
			}
			// Give the P to any goroutine waiting for one (the garbage
			// collector's workers, a timer's): else it waits for the
			// scheduler to preempt the spin, up to 10 ms.
			runtime.Gosched()
		}
	}
}

// await returns once pw has finished job s: it spins for spinWindow
// (yielding the P now and then, in case the worker waits for one), then
// sleeps on pw.done, so that a caller whose worker has lost its core (more
// threads than cores) gives its own core up instead of spinning it away.
func (p *pool) await(pw *poolWorker, s uint64) {
	start := time.Now()
	for i := 1; pw.fin.Load() != s; i++ {
		if i%64 == 0 {
			runtime.Gosched()
		}
		if i%256 != 0 || time.Since(start) <= spinWindow {
			continue
		}
		// The worker raises fin before it reads waiting, the caller sets
		// waiting before it reads fin again: one sees the other's write
		// (both by exchanges, as in work).
		pw.waiting.Swap(true)
		for pw.fin.Load() != s {
			<-pw.done
		}
		pw.waiting.Store(false)
		// A token sent after the last check would wake a later wait
		// early; that wait rechecks fin, so drain it here only to save
		// that loop.
		select {
		case <-pw.done:
		default:
		}
		return
	}
}

// signal puts a token on ch unless one is waiting there already.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// do runs r on workers 0..nw−1 and returns when all are done; a fault in
// any share panics on the caller then.
func (p *pool) do(r runner, nw int) {
	if p.closed.Load() {
		panic("tensorops: pool used after close")
	}
	// A panic of share 0 that is not a fault goes on only once the
	// workers are done with r: the next do would otherwise hand a worker
	// a job while it still runs this one.
	defer func() {
		if e := recover(); e != nil {
			for k := 1; k < nw; k++ {
				p.await(&p.w[k], p.w[k].seq.Load())
			}
			panic(e)
		}
	}()
	for k := 1; k < nw; k++ {
		pw := &p.w[k]
		pw.job = r
		pw.seq.Add(1)
		if pw.state.Load() == parked {
			signal(pw.wake)
		}
	}
	fault := runCaught(r, 0)
	for k := 1; k < nw; k++ {
		pw := &p.w[k]
		p.await(pw, pw.seq.Load())
		if f := pw.fault; fault == nil {
			fault = f
		}
	}
	if fault != nil {
		panic(fault)
	}
}

// runCaught runs share w of r and returns the memory fault it raised, if
// any (a fault panics only on goroutines that set debug.SetPanicOnFault;
// other panics are bugs and go on).
func runCaught(r runner, w int) (fault any) {
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(interface{ Addr() uintptr }); !ok {
				panic(e)
			}
			if _, ok := e.(runtime.Error); !ok {
				panic(e)
			}
			fault = e
		}
	}()
	r.run(w)
	return nil
}

// close stops the workers; it is idempotent.
func (p *pool) close() {
	p.once.Do(func() {
		p.closed.Store(true)
		// Closed, not sent a token: a token could be lost beside a stale
		// one (a non-blocking send's check of a full buffer is not
		// ordered after the store on weakly ordered CPUs), a closed
		// channel wakes a parked worker whenever it reads it.
		for k := 1; k < len(p.w); k++ {
			close(p.w[k].wake)
		}
	})
}
