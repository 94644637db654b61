//go:build cuda

package solver_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// TestCUDASameAsCPU: every method, warm-started and restarted, and a
// bilinear game over a ball and a box, give on the CUDA backend the
// iterations and the gap they give on the CPU, up to the summation order of
// the reductions. CI runs it on the fake driver (tensorops/testdata/fakecuda);
// without a device it skips.
func TestCUDASameAsCPU(t *testing.T) {
	gpu, cpu := cudaAndCPU(t)
	var err error
	a := uniformGame(61, 50, 40, -1, 1)
	lo, hi := make([]float64, 40), make([]float64, 40)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	lin := make([]float64, 50)
	for i := range lin {
		lin[i] = 0.01 * float64(i%7)
	}
	run := func(be tensorops.Backend, bilinear bool, m solver.Method, s *solver.Settings) *solver.Result {
		g := mustGame(t, a)
		if bilinear {
			if g, err = solver.NewBilinear(a, solver.Block{Center: make([]float64, 50), Radius: 1.5, Lin: lin}, solver.Block{Lo: lo, Hi: hi}); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Place(be); err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		res, err := solver.Solve(context.Background(), g, s, m)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	start := run(cpu, false, method(t, "rm+"), &solver.Settings{MaxIterations: 20})
	for _, name := range solver.MethodNames() {
		for _, c := range []struct {
			label string
			knobs []string
			init  []float64
		}{{"cold", nil, nil}, {"warm", nil, start.X}, {"restarted", []string{"restart-every", "15"}, nil}} {
			if name == "auto" && c.knobs != nil {
				continue // auto has no restart knob
			}
			s := &solver.Settings{MaxIterations: 60, Init: c.init}
			r1 := run(cpu, false, method(t, name, c.knobs...), s)
			r2 := run(gpu, false, method(t, name, c.knobs...), s)
			same(t, name+" "+c.label, r1, r2)
		}
	}
	// The default route to machine precision: its crossover's passes run
	// on the device.
	s := &solver.Settings{RelGap: 1e-12, MaxIterations: 2000}
	r1, r2 := run(cpu, false, nil, s), run(gpu, false, nil, s)
	// The exact subgame leaves gaps at rounding level, where the two
	// backends' sums may differ: the routes must agree, and both meet the
	// target.
	if r2.Status != solver.Converged || r2.SubgameSolves == 0 || r1.Status != r2.Status || r1.Route != r2.Route || r2.RelGap > 1e-12 {
		t.Errorf("auto to 1e-12: cpu %v by %q, cuda %v by %q (relative gap %g)", r1.Status, r1.Route, r2.Status, r2.Route, r2.RelGap)
	}
	s = &solver.Settings{MaxIterations: 300}
	same(t, "bilinear", run(cpu, true, &solver.MirrorProx{}, s), run(gpu, true, &solver.MirrorProx{}, s))
}

// same compares a CPU and a GPU result.
// cudaAndCPU returns the CUDA backend (the test skips without a device)
// and a two-thread CPU backend, both closed when the test ends.
func cudaAndCPU(t *testing.T) (*tensorops.CUDA, *tensorops.CPU) {
	t.Helper()
	gpu, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu := tensorops.NewCPU(2)
	t.Cleanup(func() { cpu.Close() })
	return gpu, cpu
}

func same(t *testing.T, label string, r1, r2 *solver.Result) {
	t.Helper()
	if r1.Iterations != r2.Iterations || r1.Restarts != r2.Restarts || math.Abs(r1.Gap-r2.Gap) > 1e-9*math.Max(r1.Gap, 1e-300) {
		t.Errorf("%s: cpu %d iterations, %d restarts, gap %.17g; cuda %d, %d, %.17g",
			label, r1.Iterations, r1.Restarts, r1.Gap, r2.Iterations, r2.Restarts, r2.Gap)
	}
}

// TestCUDASolveBatch: a batch in lockstep on the CUDA backend (batched
// kernels, one launch per operation for the running games) gives every
// game the iterations and the gap it gets in lockstep on the CPU, up to the
// summation order of the reductions, for every method; the default route
// certifies every game to its target.
func TestCUDASolveBatch(t *testing.T) {
	gpu, cpu := cudaAndCPU(t)
	const b, m, n = 7, 19, 13
	stack := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(b, m, n))
	for k := range b {
		g := uniformGame(uint64(100+k), m, n, -1, 1)
		copy(stack.Float64s()[k*m*n:], g.Float64s())
	}
	batch, err := solver.NewBatch(stack)
	if err != nil {
		t.Fatal(err)
	}
	run := func(be tensorops.Batched, name string, s solver.Settings) []solver.BatchResult {
		res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s, Backend: be}, method(t, name))
		if err != nil {
			t.Fatal(err)
		}
		for k := range res {
			if res[k].Err != nil {
				t.Fatalf("%s game %d: %v", name, k, res[k].Err)
			}
		}
		return res
	}
	for _, name := range solver.MethodNames() {
		if name == "auto" {
			continue
		}
		s := solver.Settings{MaxIterations: 60}
		r1, r2 := run(cpu, name, s), run(gpu, name, s)
		for k := range r1 {
			same(t, fmt.Sprintf("%s game %d", name, k), &r1[k].Result, &r2[k].Result)
		}
	}
	for k, r := range run(gpu, "auto", solver.Settings{RelGap: 1e-9, MaxIterations: 5000}) {
		if r.Status != solver.Converged || r.RelGap > 1e-9 {
			t.Errorf("auto game %d: %v, relative gap %g", k, r.Status, r.RelGap)
		}
	}
}
