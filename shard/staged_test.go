package shard_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// device is a CPU backend seen only through tensorops.Backend, as the
// staged path sees a GPU's: its vectors are its own, loaded and stored.
// With fail set, Store fails from its fail-th call on (at that call only
// with once); with failProx set, ProxStats fails at its failProx-th call.
type device struct {
	tensorops.Backend
	stores, proxes atomic.Int64
	fail, failProx int64
	once           bool
	views          map[view]tensorops.Vector
}

var errDevice = errors.New("device lost")

func (d *device) Store(dst []float64, src tensorops.Vector) error {
	if n := d.stores.Add(1); d.fail > 0 && (n == d.fail || !d.once && n > d.fail) {
		clear(dst)
		return errDevice
	}
	return d.Backend.Store(dst, src)
}

func (d *device) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	if d.proxes.Add(1) == d.failProx {
		return errDevice
	}
	return d.Backend.ProxStats(dst, w, blocks)
}

func (d *device) Close() error { return d.Backend.(*tensorops.CPU).Close() }

// Sub returns a view made once per vector and range, as a device's are.
func (d *device) Sub(v tensorops.Vector, lo, hi int) tensorops.Vector {
	key := view{&v.(tensorops.CPUVector)[0], lo, hi}
	if s, ok := d.views[key]; ok {
		return s
	}
	if d.views == nil {
		d.views = map[view]tensorops.Vector{}
	}
	s := d.Backend.(*tensorops.CPU).Sub(v, lo, hi)
	d.views[key] = s
	return s
}

type view struct {
	base   *float64
	lo, hi int
}

// solveStaged solves a over size in-process ranks, each rank's block and
// vectors held by its own device (newDev(rank)); a nil newDev places them
// on the CPU. With sampled, the problem is the sampled oracle's.
func solveStaged(t *testing.T, a *tensor.Dense, size int, r shardtest.Run, newDev func(rank int) tensorops.Backend) ([]*solver.Result, []error) {
	return solveOn(t, a, size, newDev, func(g *solver.MatrixGame) (*solver.Result, error) { return shardtest.Solve(g, r) })
}

func solveOn(t *testing.T, a *tensor.Dense, size int, newDev func(rank int) tensorops.Backend, solve func(*solver.MatrixGame) (*solver.Result, error)) ([]*solver.Result, []error) {
	t.Helper()
	grp := shard.NewGroup(size)
	res := make([]*solver.Result, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for k := range size {
		wg.Go(func() {
			var dev tensorops.Backend
			if newDev != nil {
				dev = newDev(k)
				defer dev.(interface{ Close() error }).Close()
			}
			g, done, err := shardtest.PlaceOn(grp.Comm(k), a, dev)
			if err != nil {
				errs[k] = err
				return
			}
			defer done()
			res[k], errs[k] = solve(g)
		})
	}
	wg.Wait()
	return res, errs
}

// TestStaged solves with every rank's block behind a device that is the
// CPU backend in disguise: the staging (each pass's operands loaded, its
// results stored, on the rank's own slices) must change no bit of the
// sharded solve on the CPU, for the methods' runs and both precisions.
func TestStaged(t *testing.T) {
	a := shardtest.Game(t)
	runs := []shardtest.Run{{Method: "ga-smooth", Gap: 1e-3}, {Method: "rm+", Gap: 1e-3}, {Method: "auto", Gap: 1e-9}}
	for _, r := range runs {
		t.Run(r.String(), func(t *testing.T) {
			t.Parallel()
			for _, size := range []int{1, 2, 3} {
				want := solveGroup(t, a, size, r)
				got, errs := solveStaged(t, a, size, r, func(int) tensorops.Backend { return &device{Backend: tensorops.NewCPU(1)} })
				for k := range size {
					if errs[k] != nil {
						t.Fatalf("%d ranks, rank %d: %v", size, k, errs[k])
					}
					if !shardtest.Same(shardtest.Digest(got[k]), shardtest.Digest(want[k])) {
						t.Errorf("%d ranks, rank %d: staged %v after %d iterations, relative gap %.17g; direct %v, %d, %.17g",
							size, k, got[k].Status, got[k].Iterations, got[k].RelGap, want[k].Status, want[k].Iterations, want[k].RelGap)
					}
				}
				if got[0].Status != solver.Converged {
					t.Errorf("%d ranks: %v, not certified", size, got[0].Status)
				}
			}
		})
	}
}

// TestStagedSampled: the sampled oracle (columns drawn on the device,
// rows drawn on the host from p stored there) changes no bit either.
func TestStagedSampled(t *testing.T) {
	a := shardtest.Game(t)
	solve := func(g *solver.MatrixGame) (*solver.Result, error) {
		s := &solver.Settings{RelGap: 1e-2, MaxIterations: 300}
		return solver.Solve(context.Background(), &solver.SampledGame{Game: g, Batch: 64, Seed: 5}, s, &solver.MirrorProx{Rule: &solver.GAStochastic{}})
	}
	cpu := func(int) tensorops.Backend { return &device{Backend: tensorops.NewCPU(1)} }
	want, _ := solveOn(t, a, 2, nil, solve)
	got, errs := solveOn(t, a, 2, cpu, solve)
	for k := range 2 {
		if errs[k] != nil || want[k] == nil {
			t.Fatalf("rank %d: %v", k, errs[k])
		}
		if !shardtest.Same(shardtest.Digest(got[k]), shardtest.Digest(want[k])) {
			t.Errorf("rank %d: staged %v after %d iterations, gap %.17g; direct %v, %d, %.17g",
				k, got[k].Status, got[k].Iterations, got[k].Gap, want[k].Status, want[k].Iterations, want[k].Gap)
		}
	}
	t.Logf("%v after %d iterations, gap %.3g", got[0].Status, got[0].Iterations, got[0].Gap)
}

// TestStagedDeviceFails makes one rank's device fail in the middle of a
// solve: for good (every copy from then on), once in a copy (a pass's or
// the solver's own), once in a reduction. Every rank returns an error
// (none is left waiting in a collective), the failing rank its device's
// error, the others one that names that rank.
func TestStagedDeviceFails(t *testing.T) {
	a := shardtest.Game(t)
	const size, bad = 3, 1
	for _, c := range []struct {
		name string
		set  func(d *device)
	}{
		{"lost", func(d *device) { d.fail = 40 }},
		{"a pass's copy", func(d *device) { d.fail, d.once = 40, true }},
		{"the first copies", func(d *device) { d.fail, d.once = 1, true }},
		{"a reduction", func(d *device) { d.failProx = 7 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan []error)
			go func() {
				_, errs := solveStaged(t, a, size, shardtest.Run{Method: "ga-smooth", Gap: 1e-9}, func(rank int) tensorops.Backend {
					d := &device{Backend: tensorops.NewCPU(1)}
					if rank == bad {
						c.set(d)
					}
					return d
				})
				done <- errs
			}()
			var errs []error
			select {
			case errs = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the ranks hang: one stopped alone")
			}
			for k, err := range errs {
				switch {
				case err == nil:
					t.Errorf("rank %d: no error", k)
				case k == bad && !errors.Is(err, errDevice):
					t.Errorf("rank %d: %v, want its device's error", k, err)
				case k != bad && !strings.Contains(err.Error(), "shard: rank 1 failed: its device: device lost"):
					t.Errorf("rank %d: %v, want rank 1's failure", k, err)
				}
				t.Logf("rank %d: %v", k, err)
			}
		})
	}
}
