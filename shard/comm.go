package shard

import (
	"fmt"
	"sync"
)

// Comm is what Backend needs of a group of ranks. Every rank calls each
// collective in the same order with consistent arguments; a Comm that
// fails (a rank died, the network broke) ends the job, as MPI's default
// error handler does, rather than return: a solve with a rank missing
// cannot go on.
type Comm interface {
	// Rank returns this rank, in [0, Size()).
	Rank() int
	// Size returns the number of ranks.
	Size() int
	// Allgather sets recv to the concatenation, in rank order, of every
	// rank's send: counts[r] is rank r's len(send), the same on every rank,
	// and len(recv) is their sum. send must not overlap recv.
	Allgather(send, recv []float64, counts []int)
	// Bcast sets buf on every rank to root's buf (the same length on
	// every rank).
	Bcast(buf []byte, root int)
}

// Split returns the rows [lo, hi) of m that rank holds of size ranks:
// contiguous blocks in rank order, the first m mod size one row longer.
func Split(m, size, rank int) (lo, hi int) {
	if size < 1 || rank < 0 || rank >= size || m < 0 {
		panic(fmt.Sprintf("shard: Split(%d, %d, %d)", m, size, rank))
	}
	q, r := m/size, m%size
	lo = rank*q + min(rank, r)
	hi = lo + q
	if rank < r {
		hi++
	}
	return lo, hi
}

// Group is size ranks in one process, each a goroutine: the in-process
// Comm that tests the sharded logic without MPI. Its collectives rendezvous
// every rank and copy, so they compute exactly what MPI's would.
type Group struct {
	size  int
	mu    sync.Mutex
	cond  *sync.Cond
	gen   int
	count int
	send  [][]float64
	bytes [][]byte
}

// NewGroup returns a group of size ranks; Comm(r) is rank r's end.
func NewGroup(size int) *Group {
	if size < 1 {
		panic(fmt.Sprintf("shard: NewGroup(%d)", size))
	}
	g := &Group{size: size, send: make([][]float64, size), bytes: make([][]byte, size)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Comm returns rank r's Comm; use each from one goroutine.
func (g *Group) Comm(r int) Comm {
	if r < 0 || r >= g.size {
		panic(fmt.Sprintf("shard: rank %d of %d", r, g.size))
	}
	return &member{g: g, rank: r}
}

// barrier waits for every rank to arrive.
func (g *Group) barrier() {
	g.mu.Lock()
	gen := g.gen
	g.count++
	if g.count == g.size {
		g.count = 0
		g.gen++
		g.cond.Broadcast()
	} else {
		for gen == g.gen {
			g.cond.Wait()
		}
	}
	g.mu.Unlock()
}

type member struct {
	g    *Group
	rank int
}

func (c *member) Rank() int { return c.rank }
func (c *member) Size() int { return c.g.size }

func (c *member) Allgather(send, recv []float64, counts []int) {
	g := c.g
	if len(counts) != g.size || len(send) != counts[c.rank] {
		panic(fmt.Sprintf("shard: Allgather of %d on rank %d with counts %v", len(send), c.rank, counts))
	}
	g.mu.Lock()
	g.send[c.rank] = send
	g.mu.Unlock()
	g.barrier() // every send is posted
	off := 0
	for r, k := range counts {
		if len(g.send[r]) != k {
			panic(fmt.Sprintf("shard: Allgather: rank %d sent %d, counts say %d", r, len(g.send[r]), k))
		}
		copy(recv[off:off+k], g.send[r])
		off += k
	}
	if off != len(recv) {
		panic(fmt.Sprintf("shard: Allgather of %d into %d", off, len(recv)))
	}
	g.barrier() // every rank has read every send
}

func (c *member) Bcast(buf []byte, root int) {
	g := c.g
	if c.rank == root {
		g.mu.Lock()
		g.bytes[root] = buf
		g.mu.Unlock()
	}
	g.barrier()
	if c.rank != root {
		if len(g.bytes[root]) != len(buf) {
			panic(fmt.Sprintf("shard: Bcast of %d bytes into %d", len(g.bytes[root]), len(buf)))
		}
		copy(buf, g.bytes[root])
	}
	g.barrier()
}
