package solver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// errInjected is the failure faultyBackend injects.
var errInjected = errors.New("injected fault")

// faultyBackend is a CPU backend whose Load fails from call failLoad on
// (0: never), as a device's copy to it can.
type faultyBackend struct {
	*tensorops.CPU
	loads, failLoad int
}

func (f *faultyBackend) Load(dst tensorops.Vector, src []float64) error {
	if f.loads++; f.failLoad > 0 && f.loads >= f.failLoad {
		return errInjected
	}
	return f.CPU.Load(dst, src)
}

// A failed Load fails its game in lockstep as it does alone, with the same
// error, although Load queues without waiting and the synchronization point
// after it succeeds.
func TestSolveBatchLockstepLoadFault(t *testing.T) {
	const b, m, n = 4, 10, 9
	batch := float64Batch(t, b, m, n)
	s := solver.Settings{RelGap: 1e-6, MaxIterations: 3000}
	// Alone on the same backend the game fails: the lockstep must not be
	// the only one not to notice.
	g, err := solver.NewMatrixGame(batch.Game(0))
	if err != nil {
		t.Fatal(err)
	}
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	if err := g.Place(&faultyBackend{CPU: cpu, failLoad: 1}); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	meth, _ := solver.NewMethod("ga-smooth")
	_, alone := solver.Solve(context.Background(), g, &s, meth)
	if !errors.Is(alone, errInjected) {
		t.Fatalf("alone: error %v, want the failed Load", alone)
	}
	for _, name := range []string{"ga-smooth", "rm+", "omwu"} {
		cpu := tensorops.NewCPU(1)
		fb := &faultyBackend{CPU: cpu, failLoad: 1}
		meth, _ := solver.NewMethod(name)
		res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s, Backend: fb}, meth)
		cpu.Close()
		if err != nil {
			t.Fatal(err)
		}
		if fb.loads == 0 {
			t.Fatalf("%s: no Load: the test tests nothing", name)
		}
		for k := range res {
			if !errors.Is(res[k].Err, errInjected) || res[k].Err.Error() != alone.Error() {
				t.Errorf("%s game %d: error %v, status %v: want the failed Load (%q alone)", name, k, res[k].Err, res[k].Status, alone)
			}
		}
	}
}
