package gan

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestCPULayers: each method of the CPU's Layers, for shapes below, at and
// above the kernels' tiles and with shared and separate inputs, agrees
// with the float64 products of its contract within float32 rounding
// (relative to the sum of the magnitudes of each entry's terms).
func TestCPULayers(t *testing.T) {
	checkLayers(t, NewCPULayers())
}

// checkLayers fails t for every check of CheckLayers over LayerTolerance.
func checkLayers(t *testing.T, ops Layers) {
	t.Helper()
	worst := 0.0
	for _, c := range CheckLayers(ops, 1) {
		worst = max(worst, c.MaxErr)
		if !(c.MaxErr <= LayerTolerance) {
			t.Errorf("%s on %s: error %.3g over %.0e", c.Op, c.Shape, c.MaxErr, LayerTolerance)
		}
	}
	t.Logf("largest error %.3g", worst)
}

// countingLayers counts the calls of a Layers.
type countingLayers struct {
	Layers
	calls int
}

func (c *countingLayers) Forward(n, rows, in, out int, x []float32, xs int, w, b []float32, tanh bool, y []float32) {
	c.calls++
	c.Layers.Forward(n, rows, in, out, x, xs, w, b, tanh, y)
}

func (c *countingLayers) Backward(n, rows, in, out int, dy, w, dx []float32) {
	c.calls++
	c.Layers.Backward(n, rows, in, out, dy, w, dx)
}

func (c *countingLayers) Grad(n, rows, in, out int, x []float32, xs int, dy, dw, db []float32) {
	c.calls++
	c.Layers.Grad(n, rows, in, out, x, xs, dy, dw, db)
}

// TestBatchedCalls: a step of each side makes one call per layer and pass
// for all networks, as many for 16 generators and 3 discriminators as for
// 2 and 1.
func TestBatchedCalls(t *testing.T) {
	gen, disc := Arch{In: 2, Hidden: 8, Out: 2}, Arch{In: 2, Hidden: 8, Out: 1}
	var counts [][2]int
	for _, sz := range []struct{ k, j int }{{2, 1}, {16, 3}} {
		rng := rand.New(rand.NewPCG(1, 2))
		ops := &countingLayers{Layers: NewCPULayers()}
		op := newBatched(ops, gen, disc, sz.k, sz.j, 16, Log)
		gens, discs := randomNets(gen, sz.k, rng), randomNets(disc, sz.j, rng)
		op.discGrads(zeros(sz.j, disc.NumParams()), discs, gens, randn(16*2, rng), randn(16*2, rng), randn(sz.k, rng))
		d := ops.calls
		ops.calls = 0
		op.genGrads(zeros(sz.k, gen.NumParams()), gens, discs, zeros(sz.k, 16*2), randn(sz.j, rng))
		counts = append(counts, [2]int{d, ops.calls})
	}
	// Discriminators: 3 forward of the generators, 3 forward, 3 gradients
	// and 2 backward of the discriminators. Generators: 3 + 3 forward, 3
	// backward of the discriminators (to their input), 3 gradients and 2
	// backward of the generators.
	want := [2]int{11, 14}
	for _, c := range counts {
		if c != want {
			t.Errorf("calls per step %v, want %v for every size", counts, want)
			break
		}
	}
}

// TestBatchedNoAllocs: the batched operator allocates nothing per step,
// and neither does a round of training by it past the first.
func TestBatchedNoAllocs(t *testing.T) {
	gen, disc := Arch{In: 2, Hidden: 32, Out: 2}, Arch{In: 2, Hidden: 32, Out: 1}
	k, j, b := 12, 2, 64
	rng := rand.New(rand.NewPCG(3, 4))
	op := newBatched(NewCPULayers(), gen, disc, k, j, b, Log)
	gens, discs := randomNets(gen, k, rng), randomNets(disc, j, rng)
	dg, gg := zeros(j, disc.NumParams()), zeros(k, gen.NumParams())
	x, z, w, zk, c := randn(b*2, rng), randn(b*2, rng), randn(k, rng), zeros(k, b*2), randn(j, rng)
	if n := testing.AllocsPerRun(5, func() {
		op.discGrads(dg, discs, gens, x, z, w)
		op.genGrads(gg, gens, discs, zk, c)
	}); n != 0 {
		t.Errorf("%v allocations per step", n)
	}

	tr, err := newTrainer(Ring8(), &Config{Generators: k, Discriminators: j, Batch: b, Rounds: 10, Seed: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	if err := tr.steps(1); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(5, func() {
		if err := tr.steps(1); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per round's steps", n)
	}
}

// randomNets returns n flat parameter vectors of a, scaled up so that the
// tanh units are not all near their linear range.
func randomNets(a Arch, n int, rng *rand.Rand) [][]float64 {
	var ps [][]float64
	for range n {
		p := make([]float64, a.NumParams())
		a.initParams(p, rng)
		for i := range p {
			p[i] = 1.5*p[i] + 0.1*rng.NormFloat64()
		}
		ps = append(ps, p)
	}
	return ps
}

func randn(n int, rng *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// lostLayers are Layers whose device is lost after a few steps: their Err
// reports it from its fourth call on.
type lostLayers struct {
	Layers
	checks int
}

var errLost = errors.New("device lost")

func (l *lostLayers) Err() error {
	if l.checks++; l.checks > 3 {
		return errLost
	}
	return nil
}

// TestLayersError: an error of the layers' device work stops the training
// with it, before a step is taken on the gradients it spoiled.
func TestLayersError(t *testing.T) {
	ops := &lostLayers{Layers: NewCPULayers()}
	cfg := &Config{Generators: 3, Discriminators: 2, Rounds: 20, Batch: 16, Hidden: 8, Seed: 1, Threads: 1, Layers: ops}
	_, err := Train(context.Background(), Ring8(), cfg)
	if !errors.Is(err, errLost) {
		t.Fatalf("Train returned %v, want the layers' error", err)
	}
	if ops.checks != 4 {
		t.Errorf("the layers were checked %d times, want 4 (stopped at the first error)", ops.checks)
	}
	t.Log(err)
}
