package gan

import (
	"context"
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

// closeGrads checks got against want particle by particle: every entry
// within tol of the particle's largest gradient entry (float32 products
// against float64 ones).
func closeGrads(t *testing.T, what string, got, want [][]float64, tol float64) {
	t.Helper()
	for k := range want {
		scale := 0.0
		for _, v := range want[k] {
			scale = max(scale, math.Abs(v))
		}
		if scale == 0 {
			t.Fatalf("%s %d: a zero reference gradient checks nothing", what, k)
		}
		for i, v := range want[k] {
			if d := math.Abs(got[k][i] - v); d > tol*scale {
				t.Errorf("%s %d, parameter %d: %.8g, want %.8g (largest entry %.3g)", what, k, i, got[k][i], v, scale)
			}
		}
	}
}

// TestBatchedGradients: the batched operator's gradients of both sides,
// under both losses and for the shapes of TestGradients, agree with the
// gorgonia graphs' (float64) and with central differences of the float64
// reference losses, within 2e-4 of each particle's largest gradient entry
// (the operator's float32 rounding is about 1e-6 relative).
func TestBatchedGradients(t *testing.T) {
	const tol = 2e-4
	gen, disc := Arch{In: 3, Hidden: 5, Out: 2}, Arch{In: 2, Hidden: 6, Out: 1}
	for _, loss := range []Loss{Log, WGAN} {
		for _, sz := range []struct{ k, j, batch int }{{1, 1, 1}, {1, 3, 7}, {3, 2, 5}, {4, 3, 13}, {8, 2, 64}, {16, 2, 4}} {
			t.Run(fmt.Sprintf("%v/K=%d,J=%d,B=%d", loss, sz.k, sz.j, sz.batch), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(sz.k*100+sz.j), uint64(sz.batch)+7))
				gens, discs := randomNets(gen, sz.k, rng), randomNets(disc, sz.j, rng)
				op := newBatched(NewCPULayers(), gen, disc, sz.k, sz.j, sz.batch, loss)

				// The generators' side.
				var z [][]float64
				c := make([]float64, sz.j)
				gg, err := newGenGraph(gen, disc, sz.k, sz.j, sz.batch, loss)
				if err != nil {
					t.Fatal(err)
				}
				for k := range sz.k {
					z = append(z, randn(sz.batch*gen.In, rng))
					copy(data(gg.vals[gg.inputIndex(gg.z[k])]), z[k])
				}
				for j := range sz.j {
					c[j] = rng.Float64()
					gg.setScalar(gg.c[j], c[j])
				}
				for k := range gens {
					gg.own[k].set(gens[k])
				}
				for j := range discs {
					gg.other[j].set(discs[j])
				}
				ref := zeros(sz.k, gen.NumParams())
				if _, err := gg.run(ref); err != nil {
					t.Fatal(err)
				}
				got := zeros(sz.k, gen.NumParams())
				op.genGrads(got, gens, discs, z, c)
				closeGrads(t, "generator (graph)", got, ref, tol)
				checkGradTol(t, gens, got, func() float64 { return genLossRef(gen, disc, gens, discs, z, c, sz.batch, loss) }, tol, rng)

				// The discriminators' side: the fakes of every generator
				// from one batch of noise, weighted by generator.
				x, zs := randn(sz.batch*disc.In, rng), randn(sz.batch*gen.In, rng)
				wk := make([]float64, sz.k)
				for k := range wk {
					wk[k] = rng.Float64()
				}
				fake := sz.k * sz.batch
				y, w := make([]float64, fake*disc.In), make([]float64, fake)
				for k := range sz.k {
					gen.forward(y[k*sz.batch*disc.In:], gens[k], zs, sz.batch)
					for r := range sz.batch {
						w[k*sz.batch+r] = wk[k] / float64(sz.batch)
					}
				}
				dg, err := newDiscGraph(disc, sz.j, sz.batch, fake, loss)
				if err != nil {
					t.Fatal(err)
				}
				copy(data(dg.vals[dg.inputIndex(dg.x)]), x)
				copy(data(dg.vals[dg.inputIndex(dg.y)]), y)
				copy(data(dg.vals[dg.inputIndex(dg.w)]), w)
				for j := range discs {
					dg.own[j].set(discs[j])
				}
				dref := zeros(sz.j, disc.NumParams())
				if _, err := dg.run(dref); err != nil {
					t.Fatal(err)
				}
				dgot := zeros(sz.j, disc.NumParams())
				op.discGrads(dgot, discs, gens, x, zs, wk)
				closeGrads(t, "discriminator (graph)", dgot, dref, tol)
				checkGradTol(t, discs, dgot, func() float64 { return discLossRef(disc, discs, x, y, w, sz.batch, fake, loss) }, tol, rng)
			})
		}
	}
}

// checkGradTol compares grads[k][i] with a central difference of f at a
// sample of coordinates of every particle, within tol of the particle's
// largest gradient entry.
func checkGradTol(t *testing.T, params, grads [][]float64, f func() float64, tol float64, rng *rand.Rand) {
	t.Helper()
	const h = 1e-5
	for k := range params {
		scale := 0.0
		for _, v := range grads[k] {
			scale = max(scale, math.Abs(v))
		}
		for range 12 {
			i := rng.IntN(len(params[k]))
			old := params[k][i]
			params[k][i] = old + h
			up := f()
			params[k][i] = old - h
			down := f()
			params[k][i] = old
			fd := (up - down) / (2 * h)
			if d := math.Abs(fd - grads[k][i]); d > tol*scale {
				t.Errorf("particle %d, parameter %d: gradient %.10g, finite difference %.10g (largest entry %.3g)", k, i, grads[k][i], fd, scale)
			}
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

// TestBatchedTrains: short runs by the batched operator and by the graphs
// from the same seed draw the same minibatches and noise, so their
// particles stay close over a few rounds (they part only by float32
// rounding, which training amplifies slowly at first).
func TestBatchedTrains(t *testing.T) {
	for _, loss := range []Loss{Log, WGAN} {
		cfg := &Config{Generators: 4, Discriminators: 2, Rounds: 5, Batch: 32, Hidden: 8, Seed: 9, Threads: 1, Loss: loss, Uniform: true}
		a, err := Train(context.Background(), Ring8(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		g := *cfg
		g.Graphs = true
		b, err := Train(context.Background(), Ring8(), &g)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for k := range a.Generators {
			for i, v := range a.Generators[k] {
				worst = max(worst, math.Abs(v-b.Generators[k][i]))
			}
		}
		for k := range a.Discriminators {
			for i, v := range a.Discriminators[k] {
				worst = max(worst, math.Abs(v-b.Discriminators[k][i]))
			}
		}
		// Adam's steps are 2e-3 at most: 5 rounds move a parameter by
		// 0.03 at most; the two paths stay within 2e-6 on AVX-512.
		t.Logf("%v: %g apart", loss, worst)
		if worst > 1e-4 {
			t.Errorf("%v: batched and graph particles %g apart after 5 rounds", loss, worst)
		}
	}
}
