//go:build !cuda

package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// genLossRef is the generators' graph loss computed with the reference
// forward pass.
func genLossRef(gen, disc Arch, gens, discs [][]float64, z [][]float64, c []float64, batch int, loss Loss) float64 {
	total := 0.0
	for k, th := range gens {
		fake := make([]float64, batch*gen.Out)
		gen.forward(fake, th, z[k], batch)
		out := make([]float64, batch)
		for j, ph := range discs {
			disc.forward(out, ph, fake, batch)
			s := 0.0
			for _, t := range out {
				if loss == Log {
					s += softplus(-t)
				} else {
					s -= t
				}
			}
			total += c[j] * s
		}
	}
	return total
}

// discLossRef is the discriminators' graph loss computed with the reference
// forward pass.
func discLossRef(disc Arch, discs [][]float64, x, y, w []float64, real, fake int, loss Loss) float64 {
	total := 0.0
	or, of := make([]float64, real), make([]float64, fake)
	for _, ph := range discs {
		disc.forward(or, ph, x, real)
		disc.forward(of, ph, y, fake)
		for _, t := range or {
			total -= loss.realTerm(t) / float64(real)
		}
		for r, t := range of {
			total += w[r] * loss.fakeTerm(t)
		}
	}
	return total
}

// checkGrad compares the gradient grads[k][i] with a central difference of
// f at a sample of coordinates of every particle: they must differ by at
// most bound(fd, scale), with fd the difference and scale the particle's
// largest gradient entry.
func checkGrad(t *testing.T, params, grads [][]float64, f func() float64, rng *rand.Rand, bound func(fd, scale float64) float64) {
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
			if d := math.Abs(fd - grads[k][i]); d > bound(fd, scale) {
				t.Errorf("particle %d, parameter %d: gradient %.10g, finite difference %.10g (largest entry %.3g)", k, i, grads[k][i], fd, scale)
			}
		}
	}
}

// nearFD is the bound of a float64 gradient against its central difference.
func nearFD(fd, _ float64) float64 { return 1e-6 * (1 + math.Abs(fd)) }

// relTo bounds a float32 gradient relative to its particle's largest entry.
func relTo(tol float64) func(fd, scale float64) float64 {
	return func(_, scale float64) float64 { return tol * scale }
}

// TestGradients: the gradient graphs of both sides, under both losses, for
// batch sizes that are not powers of two and for one and several particles
// per side, give the loss of the reference forward pass and its gradient
// by finite differences, run after run; the fakes of several generators are joined along
// the batch axis, whose row order the reference checks.
func TestGradients(t *testing.T) {
	gen, disc := Arch{In: 3, Hidden: 5, Out: 2}, Arch{In: 2, Hidden: 6, Out: 1}
	for _, loss := range []Loss{Log, WGAN} {
		for _, sz := range []struct{ k, j, batch int }{{1, 1, 1}, {1, 3, 7}, {3, 2, 5}, {4, 3, 13}, {2, 2, 64}, {8, 2, 9}, {16, 2, 4}, {8, 2, 64}} {
			t.Run(fmt.Sprintf("%v/K=%d,J=%d,B=%d", loss, sz.k, sz.j, sz.batch), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(sz.k*100+sz.j), uint64(sz.batch)))
				gens, discs := randomNets(gen, sz.k, rng), randomNets(disc, sz.j, rng)

				gg, err := newGenGraph(gen, disc, sz.k, sz.j, sz.batch, loss)
				if err != nil {
					t.Fatal(err)
				}
				var z [][]float64
				c := make([]float64, sz.j)
				for k := range sz.k {
					z = append(z, randn(sz.batch*gen.In, rng))
					copy(data(gg.vals[gg.inputIndex(gg.z[k])]), z[k])
				}
				for j := range sz.j {
					c[j] = rng.Float64()
					gg.setScalar(gg.c[j], c[j])
				}
				grads := zeros(sz.k, gen.NumParams())
				evalGen := func() float64 {
					for k := range gens {
						gg.own[k].set(gens[k])
					}
					for j := range discs {
						gg.other[j].set(discs[j])
					}
					l, err := gg.run(grads)
					if err != nil {
						t.Fatal(err)
					}
					return l
				}
				// The gradients checked are those of a third run: a graph
				// that kept state between runs would fail.
				evalGen()
				evalGen()
				got := evalGen()
				want := genLossRef(gen, disc, gens, discs, z, c, sz.batch, loss)
				if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
					t.Errorf("generators' loss %.15g, reference %.15g", got, want)
				}
				saved := zeros(sz.k, gen.NumParams())
				for k := range grads {
					copy(saved[k], grads[k])
				}
				checkGrad(t, gens, saved, evalGen, rng, nearFD)

				fake := sz.k * sz.batch
				dg, err := newDiscGraph(disc, sz.j, sz.batch, fake, loss)
				if err != nil {
					t.Fatal(err)
				}
				x, y := randn(sz.batch*2, rng), randn(fake*2, rng)
				w := make([]float64, fake)
				for r := range w {
					w[r] = rng.Float64() / float64(sz.batch)
				}
				copy(data(dg.vals[dg.inputIndex(dg.x)]), x)
				copy(data(dg.vals[dg.inputIndex(dg.y)]), y)
				copy(data(dg.vals[dg.inputIndex(dg.w)]), w)
				dgrads := zeros(sz.j, disc.NumParams())
				evalDisc := func() float64 {
					for j := range discs {
						dg.own[j].set(discs[j])
					}
					l, err := dg.run(dgrads)
					if err != nil {
						t.Fatal(err)
					}
					return l
				}
				evalDisc()
				evalDisc()
				got = evalDisc()
				want = discLossRef(disc, discs, x, y, w, sz.batch, fake, loss)
				if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
					t.Errorf("discriminators' loss %.15g, reference %.15g", got, want)
				}
				dsaved := zeros(sz.j, disc.NumParams())
				for j := range dgrads {
					copy(dsaved[j], dgrads[j])
				}
				checkGrad(t, discs, dsaved, evalDisc, rng, nearFD)
			})
		}
	}
}
