package shard_test

import (
	"testing"

	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/tensorops"
)

// TestPassesAllocateNothing: after a first call, the passes of a sharded
// backend (the operator, both products) allocate nothing, with the block on
// the CPU and behind the staged device path alike (one rank, so that
// testing.AllocsPerRun counts this goroutine's work alone; the code is the
// same for any number).
func TestPassesAllocateNothing(t *testing.T) {
	a := shardtest.Game(t)
	m, n := a.Shape()[0], a.Shape()[1]
	for _, dev := range []bool{false, true} {
		cpu := tensorops.NewCPU(1)
		var local tensorops.Backend = cpu
		if dev {
			local = &device{Backend: cpu}
		}
		be := shard.New(local, shard.NewGroup(1).Comm(0), m)
		am, err := be.NewMatrix(a)
		if err != nil {
			t.Fatal(err)
		}
		vec := func(k int) tensorops.Vector {
			v, err := be.NewVector(k)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, k)
			for i := range x {
				x[i] = 1 / float64(k)
			}
			if err := be.Load(v, x); err != nil {
				t.Fatal(err)
			}
			return v
		}
		p, q, fp, fq := vec(m), vec(n), vec(m), vec(n)
		pass := func() {
			be.Operator(fp, fq, am, p, q)
			be.MulVec(fp, am, q)
			be.MulTVec(fq, am, p)
		}
		pass()
		if allocs := testing.AllocsPerRun(5, pass); allocs != 0 {
			t.Errorf("device path %v: %v allocations a pass", dev, allocs)
		}
		be.Free(am)
		cpu.Close()
	}
}

// TestStagedTranspose: the products with Aᵀ (MulVec, MulTVec on a
// transpose) give on the device path the CPU path's bits.
func TestStagedTranspose(t *testing.T) {
	a := shardtest.Game(t)
	m, n := a.Shape()[0], a.Shape()[1]
	var got [2][2][]float64
	for d, dev := range []bool{false, true} {
		cpu := tensorops.NewCPU(1)
		var local tensorops.Backend = cpu
		if dev {
			local = &device{Backend: cpu}
		}
		be := shard.New(local, shard.NewGroup(1).Comm(0), m)
		am, err := be.NewMatrix(a)
		if err != nil {
			t.Fatal(err)
		}
		at, err := be.Transpose(am)
		if err != nil {
			t.Fatal(err)
		}
		load := func(k int) tensorops.Vector {
			v, err := be.NewVector(k)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, k)
			for i := range x {
				x[i] = float64(i%7) - 3
			}
			if err := be.Load(v, x); err != nil {
				t.Fatal(err)
			}
			return v
		}
		p, q, dm, dn := load(m), load(n), load(m), load(n)
		be.MulVec(dn, at, p)  // Aᵀp
		be.MulTVec(dm, at, q) // A q
		for i, v := range []tensorops.Vector{dn, dm} {
			got[d][i] = make([]float64, v.Len())
			if err := be.Store(got[d][i], v); err != nil {
				t.Fatal(err)
			}
		}
		be.Free(at, am)
		cpu.Close()
	}
	for i := range 2 {
		if !shardtest.Same(got[0][i], got[1][i]) {
			t.Errorf("product %d with the transpose: the device path differs from the CPU's", i)
		}
	}
}
