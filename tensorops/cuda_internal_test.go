//go:build cuda

package tensorops

import (
	"runtime"
	"testing"
	"time"

	"gorgonia.org/cu"
)

// CUDACounts is what a CUDA backend's worker has done: kernel launches and
// copies.
type CUDACounts struct {
	Launches, DtoH, HtoD, DtoD int64
}

// WorkerCounts returns what the worker has done up to now, every command sent
// before included (it asks the worker, after them). It exists for the
// external tests, which count the launches and copies of an iteration.
func (c *CUDA) WorkerCounts() CUDACounts {
	var n cudaCounts
	if err := c.do(func() error { n = c.w.counts; return nil }); err != nil {
		panic(err)
	}
	return CUDACounts{Launches: n.launches, DtoH: n.dtoh, HtoD: n.htod, DtoD: n.dtod}
}

// MemFree returns the device memory free (cuMemGetInfo).
func (c *CUDA) MemFree() int64 {
	var free int64
	if err := c.do(func() error {
		f, _, err := cu.MemInfo()
		free = f
		return err
	}); err != nil {
		panic(err)
	}
	return free
}

// KernelLaunches returns how many times each kernel of the module has
// been launched.
func (c *CUDA) KernelLaunches() map[string]int64 {
	n := map[string]int64{}
	if err := c.do(func() error {
		for name, k := range c.w.k.byName {
			n[name] = k.launches
		}
		return nil
	}); err != nil {
		panic(err)
	}
	return n
}

// A backend that becomes unreachable without Close stops its worker and
// destroys its context.
func TestCUDACleanup(t *testing.T) {
	before := cudaWorkers.Load()
	func() {
		c, err := NewCUDA(0)
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.NewVector(10)
		if err != nil {
			t.Fatal(err)
		}
		c.Start(Point{State: v, Value: v}, Set{Setup: Euclidean})
		if err := c.Store(make([]float64, 10), v); err != nil {
			t.Fatal(err)
		}
	}()
	for range 100 {
		runtime.GC()
		if cudaWorkers.Load() == before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d workers running, %d before the backend was made and dropped", cudaWorkers.Load(), before)
}

// SetStageLimit caps the words of the scalars' staging buffer in use
// between two synchronization points, so that a test reaches the full
// buffer and the oversized copy.
func (c *CUDA) SetStageLimit(words int) { c.stageLimit = words }
