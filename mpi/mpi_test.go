//go:build mpi

package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpump/gpump/mpi"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
)

// The tests run under a launcher, every rank the same binary:
//
//	CC=mpicc go test -tags mpi -c -o mpi.test ./mpi
//	mpirun --allow-run-as-root --oversubscribe -np 3 ./mpi.test
//
// (the CI script .ci/mpi runs them with 1, 2 and 3 ranks). Run alone, the
// binary is one rank.

var world *mpi.World

var _ shard.Comm = (*mpi.World)(nil)

func TestMain(m *testing.M) {
	w, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	world = w
	code := m.Run()
	if err := mpi.Finalize(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// gathered returns every rank's d, d of the same length on every rank.
func gathered(d []float64) [][]float64 {
	size := world.Size()
	counts := make([]int, size)
	for r := range counts {
		counts[r] = len(d)
	}
	all := make([]float64, size*len(d))
	world.Allgather(d, all, counts)
	out := make([][]float64, size)
	for r := range out {
		out[r] = all[r*len(d) : (r+1)*len(d)]
	}
	return out
}

// TestLocalRanks: the ranks of one node (the tests run on one machine)
// number themselves 0 … N−1 apart, each knowing that N ranks share it.
func TestLocalRanks(t *testing.T) {
	all := gathered([]float64{float64(world.LocalRank()), float64(world.LocalSize())})
	seen := make([]bool, world.Size())
	for r, d := range all {
		k, size := int(d[0]), int(d[1])
		if size != world.Size() || k < 0 || k >= size || seen[k] {
			t.Fatalf("rank %d: local rank %d of %d (local ranks so far %v), want a distinct one of %d", r, k, size, seen, world.Size())
		}
		seen[k] = true
	}
}

// TestWorld checks the collectives the sharded backend uses.
func TestWorld(t *testing.T) {
	rank, size := world.Rank(), world.Size()
	d := make([]float64, rank+1) // ranks send different lengths
	counts := make([]int, size)
	total := 0
	for r := range counts {
		counts[r] = r + 1
		total += r + 1
	}
	for i := range d {
		d[i] = float64(100*rank + i)
	}
	all := make([]float64, total)
	world.Allgather(d, all, counts)
	k := 0
	for r := range size {
		for i := range r + 1 {
			if all[k] != float64(100*r+i) {
				t.Errorf("rank %d: entry %d of the gather is %v, want %v", rank, k, all[k], 100*r+i)
			}
			k++
		}
	}
	buf := []byte{byte(rank), 0, 0}
	world.Bcast(buf, size-1)
	if buf[0] != byte(size-1) {
		t.Errorf("rank %d: broadcast from rank %d gave %d", rank, size-1, buf[0])
	}
	world.Barrier()
	if rank == 0 {
		t.Logf("%d ranks, %s", size, mpi.Library())
	}
}

// TestMessages: every rank but 0 sends rank 0 two messages of its own
// (an empty one, then one of rank+1 bytes); rank 0 receives them from any
// rank, in order per sender, and answers each sender with its rank.
func TestMessages(t *testing.T) {
	const tag, reply = 7, 8
	rank, size := world.Rank(), world.Size()
	if rank != 0 {
		world.Send(nil, 0, tag)
		msg := make([]byte, rank+1)
		for i := range msg {
			msg[i] = byte(rank)
		}
		world.Send(msg, 0, tag)
		b, src := world.Recv(reply)
		if src != 0 || len(b) != 1 || int(b[0]) != rank {
			t.Errorf("rank %d: reply %v from %d", rank, b, src)
		}
		world.Barrier()
		return
	}
	seen := make([]int, size)
	for range 2 * (size - 1) {
		b, src := world.Recv(tag)
		switch {
		case src < 1 || src >= size:
			t.Fatalf("a message from rank %d", src)
		case seen[src] == 0 && len(b) != 0:
			t.Errorf("rank %d's first message has %d bytes, want 0", src, len(b))
		case seen[src] == 1 && (len(b) != src+1 || b[0] != byte(src)):
			t.Errorf("rank %d's second message is %v", src, b)
		}
		seen[src]++
		if seen[src] == 2 {
			world.Send([]byte{byte(src)}, src, reply)
		}
	}
	world.Barrier()
}

// TestEveryMethod runs the checks of package shard's in-process test over
// MPI's ranks: every method on 1001×777, every rank the same result bit
// for bit, again the same in a second run, matching the single process's
// solve (which every rank also makes, on the whole matrix, for reference).
func TestEveryMethod(t *testing.T) {
	a := shardtest.Game(t)
	for _, r := range shardtest.Runs() {
		want := shardtest.Whole(t, a, r)
		first, err1 := shardtest.Rank(world, a, r)
		again, err2 := shardtest.Rank(world, a, r)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v, rank %d: %v, %v", r, world.Rank(), err1, err2)
		}
		d := shardtest.Digest(first)
		if !shardtest.Same(shardtest.Digest(again), d) {
			t.Errorf("%v, rank %d: the second run differs from the first", r, world.Rank())
		}
		for k, dk := range gathered(d) {
			if !shardtest.Same(dk, d) {
				t.Errorf("%v: rank %d's result differs from rank %d's", r, k, world.Rank())
			}
		}
		if err := shardtest.Matches(first, want); err != nil {
			t.Errorf("%v on %d ranks against one process: %v", r, world.Size(), err)
		}
		if world.Rank() == 0 {
			t.Logf("%v on %d ranks: %v after %d iterations, route %q, relative gap %.3g (one process: %d iterations, %.3g)", r, world.Size(), first.Status, first.Iterations, first.Route, first.RelGap, want.Iterations, want.RelGap)
		}
	}
}
