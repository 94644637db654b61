package shard_test

import (
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/tensorops"
)

// oneRank places a on a backend of one rank whose local backend is the
// CPU's, or with dev the CPU's behind the device path; load makes a vector
// of length k holding fill(i) at i. Everything is freed at the test's end.
func oneRank(t *testing.T, a *tensor.Dense, dev bool) (be *shard.Backend, am tensorops.Matrix, load func(k int, fill func(i int) float64) tensorops.Vector) {
	cpu := tensorops.NewCPU(1)
	t.Cleanup(func() { cpu.Close() })
	var local tensorops.Backend = cpu
	if dev {
		local = &device{Backend: cpu}
	}
	be = shard.New(local, shard.NewGroup(1).Comm(0), a.Shape()[0])
	am, err := be.NewMatrix(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Free(am) })
	load = func(k int, fill func(i int) float64) tensorops.Vector {
		v, err := be.NewVector(k)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, k)
		for i := range x {
			x[i] = fill(i)
		}
		if err := be.Load(v, x); err != nil {
			t.Fatal(err)
		}
		return v
	}
	return be, am, load
}

// TestPassesAllocateNothing: after a first call, the passes of a sharded
// backend (the operator, both products) allocate nothing, with the block on
// the CPU and behind the staged device path alike (one rank, so that
// testing.AllocsPerRun counts this goroutine's work alone; the code is the
// same for any number).
func TestPassesAllocateNothing(t *testing.T) {
	a := shardtest.Game(t)
	m, n := a.Shape()[0], a.Shape()[1]
	for _, dev := range []bool{false, true} {
		be, am, load := oneRank(t, a, dev)
		uniform := func(k int) tensorops.Vector { return load(k, func(int) float64 { return 1 / float64(k) }) }
		p, q, fp, fq := uniform(m), uniform(n), uniform(m), uniform(n)
		pass := func() {
			be.Operator(fp, fq, am, p, q)
			be.MulVec(fp, am, q)
			be.MulTVec(fq, am, p)
		}
		pass()
		if allocs := testing.AllocsPerRun(5, pass); allocs != 0 {
			t.Errorf("device path %v: %v allocations a pass", dev, allocs)
		}
	}
}

// TestStagedTranspose: the products with Aᵀ (MulVec, MulTVec on a
// transpose) give on the device path the CPU path's bits.
func TestStagedTranspose(t *testing.T) {
	a := shardtest.Game(t)
	m, n := a.Shape()[0], a.Shape()[1]
	var got [2][2][]float64
	for d, dev := range []bool{false, true} {
		be, am, load := oneRank(t, a, dev)
		at, err := be.Transpose(am)
		if err != nil {
			t.Fatal(err)
		}
		defer be.Free(at)
		mod7 := func(i int) float64 { return float64(i%7) - 3 }
		p, q, dm, dn := load(m, mod7), load(n, mod7), load(m, mod7), load(n, mod7)
		be.MulVec(dn, at, p)  // Aᵀp
		be.MulTVec(dm, at, q) // A q
		for i, v := range []tensorops.Vector{dn, dm} {
			got[d][i] = make([]float64, v.Len())
			if err := be.Store(got[d][i], v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 2 {
		if !shardtest.Same(got[0][i], got[1][i]) {
			t.Errorf("product %d with the transpose: the device path differs from the CPU's", i)
		}
	}
}
