//go:build !cuda

package gan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

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
				checkGrad(t, gens, got, func() float64 { return genLossRef(gen, disc, gens, discs, z, c, sz.batch, loss) }, rng, relTo(tol))

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
				checkGrad(t, discs, dgot, func() float64 { return discLossRef(disc, discs, x, y, w, sz.batch, fake, loss) }, rng, relTo(tol))
			})
		}
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
