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
// the device (the gradient steps stay on the CPU) weights its particles
// as the CPU's run does, within float32 rounding amplified by 8 rounds of
// training: the same draws, the same games up to the payoff's rounding.
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
	worst := 0.0
	for i, p := range cpu.P {
		worst = max(worst, math.Abs(p-dev.P[i]))
	}
	for k, th := range cpu.Generators {
		for i, v := range th {
			worst = max(worst, math.Abs(v-dev.Generators[k][i]))
		}
	}
	t.Logf("the device's run within %.3g of the CPU's", worst)
	if worst > 1e-4 {
		t.Errorf("the device's run %.3g from the CPU's (weights %v against %v)", worst, dev.P, cpu.P)
	}
}
