//go:build cuda

package gan

import (
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/tensorops"
)

// TestCUDALayers checks the device's layers (one launch of
// gpump_payoff_layer per call) as TestCPULayers checks the CPU's: every
// operation against float64 products within float32 rounding, on the same
// shapes, shared input included.
func TestCUDALayers(t *testing.T) {
	l := cudaLayers(t)
	checkLayers(t, l)
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestCUDALayersNoAllocs: past its first, a step of the batched operator on
// the device's layers allocates nothing (the buffers are kept).
func TestCUDALayersNoAllocs(t *testing.T) {
	l := cudaLayers(t)
	gen, disc := Arch{In: 2, Hidden: 8, Out: 2}, Arch{In: 2, Hidden: 8, Out: 1}
	k, j, b := 3, 2, 16
	rng := rand.New(rand.NewPCG(3, 4))
	op := newBatched(l, gen, disc, k, j, b, Log)
	gens, discs := randomNets(gen, k, rng), randomNets(disc, j, rng)
	dg, gg := zeros(j, disc.NumParams()), zeros(k, gen.NumParams())
	x, z, w, zk, c := randn(b*2, rng), randn(b*2, rng), randn(k, rng), zeros(k, b*2), randn(j, rng)
	step := func() {
		op.discGrads(dg, discs, gens, x, z, w)
		op.genGrads(gg, gens, discs, zk, c)
	}
	step()
	if n := testing.AllocsPerRun(3, step); n != 0 {
		t.Errorf("%v allocations per step", n)
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
}

// cudaLayers returns device 0's layers, freed with the device at the
// test's end.
func cudaLayers(t *testing.T) *tensorops.CUDALayers {
	be, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	l := be.NewLayers()
	t.Cleanup(func() {
		l.Free()
		be.Close()
	})
	return l
}
