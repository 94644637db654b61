package tensorops

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// countJob counts each worker's runs of it; with slow set, the workers
// but the caller take longer than spinWindow (so that the caller sleeps).
type countJob struct {
	runs []atomic.Int64
	slow bool
}

func (j *countJob) run(w int) {
	if j.slow && w > 0 {
		time.Sleep(2 * spinWindow)
	}
	j.runs[w].Add(1)
}

// TestPoolHandOff dispatches jobs back to back and after pauses longer
// than spinWindow (so that the workers park and are woken), some of them
// slow on the workers (so that the caller sleeps too), with and without
// spinning, and checks that every worker ran every job exactly
// once, that do returns only after all shares ran, and that close stops
// the workers.
func TestPoolHandOff(t *testing.T) {
	for _, tc := range []struct {
		workers int
		spin    bool
	}{{2, true}, {3, true}, {4, true}, {2, false}, {3, false}} {
		before := runtime.NumGoroutine()
		p := newPoolSpin(tc.workers, tc.spin)
		r := rand.New(rand.NewPCG(uint64(tc.workers), 1))
		j := &countJob{runs: make([]atomic.Int64, tc.workers)}
		const jobs = 3000
		for i := 1; i <= jobs; i++ {
			nw := 1 + r.IntN(tc.workers)
			want := make([]int64, tc.workers)
			for w := range want {
				want[w] = j.runs[w].Load()
				if w < nw {
					want[w]++
				}
			}
			j.slow = r.IntN(50) == 0
			p.do(j, nw)
			for w := range want {
				if got := j.runs[w].Load(); got != want[w] {
					t.Fatalf("%d workers, spin %v, job %d on %d: worker %d ran %d times, want %d", tc.workers, tc.spin, i, nw, w, got, want[w])
				}
			}
			if r.IntN(100) == 0 {
				time.Sleep(2 * spinWindow) // the workers park
			}
		}
		p.close()
		p.close()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%d workers, spin %v: %d goroutines after close, %d before", tc.workers, tc.spin, n, before)
		}
	}
}

// faultJob raises a memory fault (as a truncated memory map would) on
// worker fw.
type faultJob struct{ fw int }

type fakeFault struct{}

func (fakeFault) Error() string { return "fake fault" }
func (fakeFault) RuntimeError() {}
func (fakeFault) Addr() uintptr { return 0 }

func (j *faultJob) run(w int) {
	if w == j.fw {
		panic(fakeFault{})
	}
}

// TestPoolFault checks that a fault on any share panics on the caller
// once all shares are done, and that the pool works on afterwards.
func TestPoolFault(t *testing.T) {
	p := newPool(3)
	defer p.close()
	for fw := range 3 {
		func() {
			defer func() {
				if e := recover(); e == nil {
					t.Errorf("fault on worker %d: no panic on the caller", fw)
				}
			}()
			p.do(&faultJob{fw}, 3)
		}()
		j := &countJob{runs: make([]atomic.Int64, 3)}
		p.do(j, 3)
		for w := range 3 {
			if j.runs[w].Load() != 1 {
				t.Errorf("after a fault on worker %d: worker %d ran %d times", fw, w, j.runs[w].Load())
			}
		}
	}
}

// closeJob closes its pool from share 0 and counts the shares run.
type closeJob struct {
	p    *pool
	runs [2]atomic.Int64
}

func (j *closeJob) run(w int) {
	if w == 0 {
		j.p.close()
	}
	j.runs[w].Add(1)
}

// TestPoolCloseInFlight closes the pool from inside a job, its worker
// parked or spinning when the job is sent: the job's other share must
// still run and do must return (a worker that honored close before its
// pending job left do waiting forever).
func TestPoolCloseInFlight(t *testing.T) {
	for _, spin := range []bool{false, true} {
		for trial := range 20 {
			p := newPoolSpin(2, spin)
			if trial%2 == 0 {
				time.Sleep(2 * spinWindow) // the worker parks
			}
			j := &closeJob{p: p}
			finished := make(chan struct{})
			go func() {
				p.do(j, 2)
				close(finished)
			}()
			select {
			case <-finished:
			case <-time.After(5 * time.Second):
				t.Fatalf("spin %v, trial %d: do did not return", spin, trial)
			}
			if j.runs[0].Load() != 1 || j.runs[1].Load() != 1 {
				t.Errorf("spin %v, trial %d: shares run %d and %d times", spin, trial, j.runs[0].Load(), j.runs[1].Load())
			}
		}
	}
}

// panicJob panics (not a fault) on share 0 while share 1 takes a while.
type panicJob struct{ runs [2]atomic.Int64 }

func (j *panicJob) run(w int) {
	if w == 0 {
		panic("share 0")
	}
	time.Sleep(4 * spinWindow)
	j.runs[w].Add(1)
}

// TestPoolPanicWaits recovers a panic of share 0 and reuses the pool at
// once: do must have waited for the other share (else the next job is
// handed to a worker still in this one).
func TestPoolPanicWaits(t *testing.T) {
	p := newPool(2)
	defer p.close()
	for trial := range 20 {
		j := &panicJob{}
		func() {
			defer func() {
				if e := recover(); e == nil {
					t.Fatal("no panic")
				}
			}()
			p.do(j, 2)
		}()
		if j.runs[1].Load() != 1 {
			t.Fatalf("trial %d: do returned before share 1 ran", trial)
		}
		c := &countJob{runs: make([]atomic.Int64, 2)}
		p.do(c, 2)
		if c.runs[0].Load() != 1 || c.runs[1].Load() != 1 {
			t.Fatalf("trial %d: the next job's shares ran %d and %d times", trial, c.runs[0].Load(), c.runs[1].Load())
		}
	}
}

// raceJob counts its runs; its worker shares busy-wait for about
// spinWindow, so that the caller's wait and the share's end race.
type raceJob struct {
	runs  atomic.Int64
	spins int
}

func (j *raceJob) run(w int) {
	if w > 0 && j.spins > 0 {
		start := time.Now()
		for time.Since(start) < time.Duration(j.spins)*time.Microsecond {
		}
	}
	j.runs.Add(1)
}

// TestPoolHandshakes runs the two park handshakes many times each: jobs
// back to back on a pool that does not spin (every job wakes a parked
// worker) and jobs whose worker share ends about when the caller stops
// spinning and sleeps. A store followed by a load on each side must not
// pass one another: under qemu-user on x86, arm64's store-release and
// load-acquire do, and with plain stores a wake-up was lost within
// 20,000–70,000 jobs (do never returned).
func TestPoolHandshakes(t *testing.T) {
	for _, tc := range []struct {
		name string
		spin bool
		jobs int
		slow bool
	}{
		{"parked", false, 100000, false},
		{"caller sleeps", true, 4000, true},
		{"both", false, 4000, true},
	} {
		p := newPoolSpin(2, tc.spin)
		j := &raceJob{}
		r := rand.New(rand.NewPCG(7, uint64(tc.jobs)))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range tc.jobs {
				if tc.slow {
					j.spins = int(spinWindow/time.Microsecond)/2 + r.IntN(int(spinWindow/time.Microsecond))
				}
				p.do(j, 2)
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: do did not return after %d shares", tc.name, j.runs.Load())
		}
		p.close()
		if got := j.runs.Load(); got != int64(2*tc.jobs) {
			t.Errorf("%s: %d shares ran, want %d", tc.name, got, 2*tc.jobs)
		}
	}
}
