package solver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// truncateAt truncates a file when iteration at is recorded.
type truncateAt struct {
	path string
	at   int
}

func (r *truncateAt) Init(*solver.Info) error { return nil }
func (r *truncateAt) Record(rec *solver.Record) error {
	if rec.Iteration == r.at {
		return os.Truncate(r.path, 128)
	}
	return nil
}

// TestMatrixFault: a memory-mapped payoff file truncated during the solve
// makes the next pass over A fault, on the caller's share or on a worker's;
// the solve ends with ErrMatrixFault and the best point of the iterations
// before, on one thread and on two, instead of killing the process.
func TestMatrixFault(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory-mapped files are read on Linux")
	}
	for _, c := range []struct {
		threads int
		method  string
	}{{1, "ga-stochastic"}, {2, "ga-stochastic"}, {2, "rm+"}} {
		path := filepath.Join(t.TempDir(), "a.npy")
		if err := datasets.WriteNPY(path, uniformGame(71, 600, 500, -1, 1)); err != nil {
			t.Fatal(err)
		}
		mp, err := datasets.MapNPY(path)
		if err != nil {
			t.Fatal(err)
		}
		g := mustGame(t, mp.Dense())
		cpu := tensorops.NewCPU(c.threads)
		if err := g.Place(cpu); err != nil {
			t.Fatal(err)
		}
		res, err := solver.Solve(context.Background(), g, &solver.Settings{MaxIterations: 1000, Recorder: &truncateAt{path, 5}}, method(t, c.method))
		if !errors.Is(err, solver.ErrMatrixFault) || res == nil {
			t.Fatalf("%d threads, %s: %v, result %v", c.threads, c.method, err, res != nil)
		}
		if res.Iterations != 5 || len(res.Row) != 600 || len(res.Column) != 500 || !(res.Gap > 0) || res.Status != solver.Canceled {
			t.Errorf("%d threads, %s: %d iterations, %d+%d strategies, gap %g, %v", c.threads, c.method, res.Iterations, len(res.Row), len(res.Column), res.Gap, res.Status)
		}
		g.Close()
		cpu.Close()
		mp.Close()
	}
}
