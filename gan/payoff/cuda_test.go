//go:build cuda

// The device evaluator's test. It runs only where a device is usable (on CI,
// the fake driver of tensorops/testdata/fakecuda): on a machine without one,
// the tensorops preflight ends the test binary before any test, printing
// "SKIP: no usable CUDA device (...)".

package payoff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/tensorops"
)

// TestCUDASameAsCPU: the device's payoff matrix equals the CPU's within
// float32 rounding, for both losses, shapes with ragged tiles and several
// networks, evaluated twice (buffers reused) with different parameters.
func TestCUDASameAsCPU(t *testing.T) {
	be, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, log := range []bool{true, false} {
		for _, sz := range []struct{ k, j, batch, hidden, noise, dim int }{{1, 1, 1, 4, 2, 2}, {3, 2, 37, 16, 2, 2}, {5, 3, 20, 33, 3, 1}} {
			s := payoff.Shape{Gen: payoff.Net{In: sz.noise, Hidden: sz.hidden, Out: sz.dim},
				Disc: payoff.Net{In: sz.dim, Hidden: sz.hidden, Out: 1}, K: sz.k, J: sz.j, Batch: sz.batch, Log: log}
			t.Run(fmt.Sprintf("log=%v/%+v", log, sz), func(t *testing.T) {
				cpu, err := payoff.NewCPU(s, 1)
				if err != nil {
					t.Fatal(err)
				}
				dev, err := payoff.NewCUDA(be, s)
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := dev.Close(); err != nil {
						t.Error(err)
					}
				}()
				rng := rand.New(rand.NewPCG(uint64(sz.k), uint64(sz.batch)))
				for range 2 {
					gens, discs := nets(s.Gen, s.K, rng), nets(s.Disc, s.J, rng)
					real, z := normals(s.Batch*s.Gen.Out, rng), normals(s.Batch*s.Gen.In, rng)
					want, got := make([]float64, s.K*s.J), make([]float64, s.K*s.J)
					if err := cpu.Eval(want, gens, discs, real, z); err != nil {
						t.Fatal(err)
					}
					if err := dev.Eval(got, gens, discs, real, z); err != nil {
						t.Fatal(err)
					}
					for i := range want {
						// Both sides sum in float32 in different orders
						// (and tanh and softplus differ by a few units in
						// the last place): float32's precision, relative
						// to the entry's size.
						if d := math.Abs(got[i] - want[i]); !(d <= 2e-5*(1+math.Abs(want[i]))) {
							t.Errorf("M[%d] = %.8g on the device, %.8g on the CPU", i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// nets returns n parameter vectors of a, scaled so that the tanh units
// are neither all linear nor all saturated.
func nets(a payoff.Net, n int, rng *rand.Rand) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = normals(a.NumParams(), rng)
		for q := range out[i] {
			out[i][q] *= 0.6
		}
	}
	return out
}

func normals(n int, rng *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}
