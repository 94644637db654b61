package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gpump/gpump/gan/payoff"
)

// TestPayoffBatched: the batched float32 payoff matrix equals a naive loop
// over the pairs in float64 with the reference forward pass, to float32's
// precision, for both losses and several shapes.
func TestPayoffBatched(t *testing.T) {
	gen, disc := Arch{In: 3, Hidden: 16, Out: 2}, Arch{In: 2, Hidden: 12, Out: 1}
	for _, loss := range []Loss{Log, WGAN} {
		for _, sz := range []struct{ k, j, batch, threads int }{{1, 1, 1, 1}, {3, 5, 7, 2}, {6, 2, 33, 3}, {4, 4, 128, 1}, {4, 4, 128, 2}, {3, 2, 250, 2}} {
			t.Run(fmt.Sprintf("%v/%dx%d/B=%d/threads=%d", loss, sz.k, sz.j, sz.batch, sz.threads), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(sz.k), uint64(sz.j*1000+sz.batch)))
				gens, discs := randomNets(gen, sz.k, rng), randomNets(disc, sz.j, rng)
				real, z := randn(sz.batch*2, rng), randn(sz.batch*gen.In, rng)
				m := make([]float64, sz.k*sz.j)
				p, err := payoff.NewCPU(payoff.Shape{Gen: payoff.Net(gen), Disc: payoff.Net(disc), K: sz.k, J: sz.j, Batch: sz.batch, Log: loss == Log}, sz.threads)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Eval(m, gens, discs, real, z); err != nil {
					t.Fatal(err)
				}
				fake, out := make([]float64, sz.batch*2), make([]float64, sz.batch)
				for k := range sz.k {
					gen.forward(fake, gens[k], z, sz.batch)
					for j := range sz.j {
						want := 0.0
						disc.forward(out, discs[j], real, sz.batch)
						for _, o := range out {
							want += loss.realTerm(o) / float64(sz.batch)
						}
						disc.forward(out, discs[j], fake, sz.batch)
						for _, o := range out {
							want -= loss.fakeTerm(o) / float64(sz.batch)
						}
						if got := m[k*sz.j+j]; math.Abs(got-want) > 2e-5*(1+math.Abs(want)) {
							t.Errorf("M[%d][%d] = %.8g, naive loop %.8g", k, j, got, want)
						}
					}
				}
			})
		}
	}
}

// BenchmarkPayoff measures the batched payoff matrix at the default sizes
// and at larger ones, with GOMAXPROCS threads; its GFLOP/s count the matrix
// products' flops (the time includes the tanh, the loss and packing the
// weights), as testdata/payoff_numpy.py does for NumPy's float32 products
// of the same shapes. Its bytes are the float64 parameters and inputs an
// evaluation reads.
func BenchmarkPayoff(b *testing.B) {
	for _, sz := range []struct{ k, j, batch, hidden int }{{8, 8, 256, 32}, {16, 16, 512, 128}} {
		b.Run(fmt.Sprintf("K=%d,J=%d,B=%d,H=%d", sz.k, sz.j, sz.batch, sz.hidden), func(b *testing.B) {
			gen, disc := Arch{In: 2, Hidden: sz.hidden, Out: 2}, Arch{In: 2, Hidden: sz.hidden, Out: 1}
			rng := rand.New(rand.NewPCG(1, 2))
			gens, discs := randomNets(gen, sz.k, rng), randomNets(disc, sz.j, rng)
			real, z := randn(sz.batch*2, rng), randn(sz.batch*2, rng)
			m := make([]float64, sz.k*sz.j)
			s := payoff.Shape{Gen: payoff.Net(gen), Disc: payoff.Net(disc), K: sz.k, J: sz.j, Batch: sz.batch, Log: true}
			p, err := payoff.NewCPU(s, runtime.GOMAXPROCS(0))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(8 * (sz.k*gen.NumParams() + sz.j*disc.NumParams() + len(real) + len(z))))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.Eval(m, gens, discs, real, z)
			}
			b.ReportMetric(s.Flops()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestPayoffNoAllocs: an evaluation allocates nothing, with its threads.
func TestPayoffNoAllocs(t *testing.T) {
	gen, disc := Arch{In: 2, Hidden: 16, Out: 2}, Arch{In: 2, Hidden: 16, Out: 1}
	rng := rand.New(rand.NewPCG(1, 2))
	const k, j, batch = 3, 2, 300
	gens, discs := randomNets(gen, k, rng), randomNets(disc, j, rng)
	real, z := randn(batch*2, rng), randn(batch*2, rng)
	m := make([]float64, k*j)
	p, err := payoff.NewCPU(payoff.Shape{Gen: payoff.Net(gen), Disc: payoff.Net(disc), K: k, J: j, Batch: batch, Log: true}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(20, func() { p.Eval(m, gens, discs, real, z) }); allocs != 0 {
		t.Errorf("%g allocations per evaluation", allocs)
	}
}
