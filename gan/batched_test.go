package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// denseRef is the float64 reference of one network's layer of the Layers
// contract: y = x·w + b for rows of x.
func denseRef(rows, in, out int, x, w, b []float32) []float64 {
	y := make([]float64, rows*out)
	for r := range rows {
		for s := range out {
			v := float64(b[s])
			for p := range in {
				v += float64(x[r*in+p]) * float64(w[p*out+s])
			}
			y[r*out+s] = v
		}
	}
	return y
}

func rand32(n int, rng *rand.Rand) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestCPULayers: each method of the CPU's Layers, for shapes below, at and
// above the kernels' tiles and with shared and separate inputs, agrees
// with the float64 products of its contract within float32 rounding
// (relative to the sum of the magnitudes of each entry's terms).
func TestCPULayers(t *testing.T) {
	ops := NewCPULayers()
	for _, sz := range []struct{ n, rows, in, out int }{{1, 1, 1, 1}, {3, 5, 2, 7}, {2, 64, 32, 32}, {12, 64, 2, 32}, {4, 13, 32, 1}, {2, 832, 32, 2}, {3, 33, 17, 19}} {
		for _, shared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%+v/shared=%v", sz, shared), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(sz.n*1000+sz.rows), uint64(sz.in*100+sz.out)))
				n, rows, in, out := sz.n, sz.rows, sz.in, sz.out
				xs := rows * in
				if shared {
					xs = 0
				}
				x := rand32((n-1)*xs+rows*in, rng)
				w, b := rand32(n*in*out, rng), rand32(n*out, rng)
				dy := rand32(n*rows*out, rng)
				y, dx := make([]float32, n*rows*out), make([]float32, n*rows*in)
				dw, db := make([]float32, n*in*out), make([]float32, n*out)
				ops.Forward(n, rows, in, out, x, xs, w, b, false, y)
				yt := make([]float32, n*rows*out)
				ops.Forward(n, rows, in, out, x, xs, w, b, true, yt)
				ops.Backward(n, rows, in, out, dy, w, dx)
				ops.Grad(n, rows, in, out, x, xs, dy, dw, db)
				abs := func(v []float32) []float32 {
					a := make([]float32, len(v))
					for i, u := range v {
						a[i] = float32(math.Abs(float64(u)))
					}
					return a
				}
				near := func(what string, got float32, want, scale float64) {
					t.Helper()
					if d := math.Abs(float64(got) - want); d > 1e-6*(scale+1) {
						t.Fatalf("%s: %g, want %g (scale %g)", what, got, want, scale)
					}
				}
				for i := range n {
					xi := x[i*xs:]
					wi, bi := w[i*in*out:(i+1)*in*out], b[i*out:(i+1)*out]
					want := denseRef(rows, in, out, xi, wi, bi)
					scale := denseRef(rows, in, out, abs(xi), abs(wi), abs(bi))
					for q := range want {
						near(fmt.Sprintf("Forward %d[%d]", i, q), y[i*rows*out+q], want[q], scale[q])
						near(fmt.Sprintf("Forward tanh %d[%d]", i, q), yt[i*rows*out+q], math.Tanh(want[q]), scale[q])
					}
					// dx = dy·wᵀ: the product with the transposed weights.
					dyi := dy[i*rows*out : (i+1)*rows*out]
					for r := range rows {
						for p := range in {
							v, s := 0.0, 0.0
							for q := range out {
								v += float64(dyi[r*out+q]) * float64(wi[p*out+q])
								s += math.Abs(float64(dyi[r*out+q]) * float64(wi[p*out+q]))
							}
							near(fmt.Sprintf("Backward %d[%d,%d]", i, r, p), dx[i*rows*in+r*in+p], v, s)
						}
					}
					for p := range in {
						for q := range out {
							v, s := 0.0, 0.0
							for r := range rows {
								v += float64(xi[r*in+p]) * float64(dyi[r*out+q])
								s += math.Abs(float64(xi[r*in+p]) * float64(dyi[r*out+q]))
							}
							near(fmt.Sprintf("Grad w %d[%d,%d]", i, p, q), dw[i*in*out+p*out+q], v, s)
						}
					}
					for q := range out {
						v, s := 0.0, 0.0
						for r := range rows {
							v += float64(dyi[r*out+q])
							s += math.Abs(float64(dyi[r*out+q]))
						}
						near(fmt.Sprintf("Grad b %d[%d]", i, q), db[i*out+q], v, s)
					}
				}
			})
		}
	}
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
