package tensorops

import "sync"

// runner is a unit of parallel work; run(w) does worker w's share.
type runner interface{ run(w int) }

// pool is a fixed set of worker goroutines. Worker 0 is the caller, so a pass
// over A with two threads wakes one goroutine. Jobs travel as pointers in an
// interface and completions as empty structs: dispatching allocates nothing.
type pool struct {
	jobs []chan runner // jobs[w] feeds worker w ≥ 1
	done chan struct{}
	once sync.Once
}

func newPool(n int) *pool {
	p := &pool{jobs: make([]chan runner, n), done: make(chan struct{}, n)}
	for w := 1; w < n; w++ {
		ch := make(chan runner)
		p.jobs[w] = ch
		go func() {
			for r := range ch {
				r.run(w)
				p.done <- struct{}{}
			}
		}()
	}
	return p
}

// do runs r on workers 0..nw−1 and returns when all are done.
func (p *pool) do(r runner, nw int) {
	for w := 1; w < nw; w++ {
		p.jobs[w] <- r
	}
	r.run(0)
	for w := 1; w < nw; w++ {
		<-p.done
	}
}

// close stops the workers; it is idempotent.
func (p *pool) close() {
	p.once.Do(func() {
		for _, ch := range p.jobs[1:] {
			close(ch)
		}
	})
}
