package tensorops

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// runner is a unit of parallel work; run(w) does worker w's share.
type runner interface{ run(w int) }

// pool is a fixed set of worker goroutines. Worker 0 is the caller, so a pass
// over A with two threads wakes one goroutine. Jobs travel as pointers in an
// interface and completions as nil interfaces: dispatching allocates
// nothing.
//
// A memory fault in a worker's share (a memory-mapped matrix truncated
// under the pass) is caught there, the workers set debug.SetPanicOnFault,
// and raised again on the caller once every share is done, where the caller
// can recover it (the solver does): without this, a fault on any worker
// goroutine ends the process.
type pool struct {
	jobs []chan runner // jobs[w] feeds worker w ≥ 1
	done chan any      // a worker's completion: nil, or the fault it caught
	once sync.Once
}

func newPool(n int) *pool {
	p := &pool{jobs: make([]chan runner, n), done: make(chan any, n)}
	for w := 1; w < n; w++ {
		ch := make(chan runner)
		p.jobs[w] = ch
		go func() {
			debug.SetPanicOnFault(true)
			for r := range ch {
				p.done <- runCaught(r, w)
			}
		}()
	}
	return p
}

// do runs r on workers 0..nw−1 and returns when all are done; a fault in
// any share panics on the caller then.
func (p *pool) do(r runner, nw int) {
	for w := 1; w < nw; w++ {
		p.jobs[w] <- r
	}
	fault := runCaught(r, 0)
	for w := 1; w < nw; w++ {
		if f := <-p.done; fault == nil {
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
		for _, ch := range p.jobs[1:] {
			close(ch)
		}
	})
}
