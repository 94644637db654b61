//go:build cuda

// The device path's test. It runs only where a device is usable (on CI,
// the fake driver of tensorops/testdata/fakecuda): on a machine without one,
// the tensorops preflight ends the test binary before any test, printing
// "SKIP: no usable CUDA device (...)".

package gan_test

import (
	"context"
	"math"
	"testing"

	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/tensorops"
)

// TestCUDATrain: a training run whose games and payoff matrices live on
// the device, and then one whose gradients are the device's too
// (CUDALayers), weight and place their particles as the CPU's run does,
// within float32 rounding amplified by 8 rounds of training: the same
// draws, the same games up to the payoff's rounding.
func TestCUDATrain(t *testing.T) {
	be, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	cfg := func() *gan.Config {
		return &gan.Config{Generators: 4, Discriminators: 2, Rounds: 8, Batch: 32, Hidden: 8, Seed: 3, Threads: 1}
	}
	cpu, err := gan.Train(context.Background(), gan.Ring8U(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	dc := cfg()
	dc.Backend = be
	dc.Payoff = func(s payoff.Shape) (gan.PayoffEvaluator, error) { return payoff.NewCUDA(be, s) }
	dev, err := gan.Train(context.Background(), gan.Ring8U(), dc)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "the games on the device", dev, cpu)
	// And the gradient steps too: every layer of every network by the
	// device's batched layers.
	layers := be.NewLayers()
	defer layers.Free()
	dc = cfg()
	dc.Backend = be
	dc.Payoff = func(s payoff.Shape) (gan.PayoffEvaluator, error) { return payoff.NewCUDA(be, s) }
	dc.Layers = layers
	all, err := gan.Train(context.Background(), gan.Ring8U(), dc)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "the games and the gradients on the device", all, cpu)
}

// near checks that a device's run weights its particles and places its
// generators as the CPU's run does within 1e-4.
func near(t *testing.T, what string, dev, cpu *gan.Mixture) {
	t.Helper()
	worst := 0.0
	for i, p := range cpu.P {
		worst = max(worst, math.Abs(p-dev.P[i]))
	}
	for k, th := range cpu.Generators {
		for i, v := range th {
			worst = max(worst, math.Abs(v-dev.Generators[k][i]))
		}
	}
	t.Logf("%s: within %.3g of the CPU's run", what, worst)
	if worst > 1e-4 {
		t.Errorf("%s: %.3g from the CPU's run (weights %v against %v)", what, worst, dev.P, cpu.P)
	}
}
