package shard_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
)

// cancelAt cancels rank 0's context once the solve reaches iteration at.
type cancelAt struct {
	at     int
	cancel context.CancelFunc
}

func (c cancelAt) Init(*solver.Info) error { return nil }
func (c cancelAt) Record(r *solver.Record) error {
	if r.Iteration >= c.at {
		c.cancel()
	}
	return nil
}

// TestClock: a time limit and an interrupt, which only rank 0's clock and
// context decide, stop every rank at the same iteration with the same
// result, by the route (auto) and by a plain method alike; each rank's
// own clock and context would stop them apart and leave one waiting at a
// pass.
func TestClock(t *testing.T) {
	a := shardtest.Game(t)
	for _, c := range []struct {
		name   string
		method string
		limit  time.Duration
		at     int
		want   solver.Status
	}{
		{"time limit rm+", "rm+", 100 * time.Millisecond, 0, solver.TimeLimit},
		{"time limit auto", "auto", 100 * time.Millisecond, 0, solver.TimeLimit},
		{"interrupt rm+", "rm+", 0, 25, solver.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			const size = 3
			grp := shard.NewGroup(size)
			res := make([]*solver.Result, size)
			errs := make([]error, size)
			var wg sync.WaitGroup
			for r := range size {
				wg.Go(func() {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					g, done, err := shardtest.Place(grp.Comm(r), a)
					if err != nil {
						errs[r] = err
						return
					}
					defer done()
					m, err := solver.NewMethod(c.method)
					if err != nil {
						errs[r] = err
						return
					}
					// A target no method reaches first: the limit or the
					// interrupt ends the solve.
					s := &solver.Settings{AbsGap: 1e-300, MaxIterations: 10_000_000, TimeLimit: c.limit, Clock: shard.Clock(grp.Comm(r), ctx)}
					if r == 0 && c.at > 0 {
						s.Recorder = cancelAt{c.at, cancel}
					}
					if r == 1 && c.limit > 0 {
						// Rank 1 starts late: its own clock would stop
						// it iterations after the others.
						time.Sleep(c.limit / 5)
					}
					res[r], errs[r] = solver.Solve(context.Background(), g, s, m)
				})
			}
			wg.Wait()
			for r := range size {
				if errs[r] != nil {
					t.Fatal(fmt.Errorf("rank %d: %w", r, errs[r]))
				}
				if res[r].Status != c.want || !shardtest.Same(shardtest.Digest(res[r]), shardtest.Digest(res[0])) {
					t.Errorf("rank %d: %v after %d iterations; rank 0: %v after %d", r, res[r].Status, res[r].Iterations, res[0].Status, res[0].Iterations)
				}
			}
			if c.at > 0 && (res[0].Iterations < c.at || res[0].Iterations > c.at+1) {
				t.Errorf("interrupted at iteration %d: stopped after %d", c.at, res[0].Iterations)
			}
			t.Logf("%v after %d iterations, relative gap %.3g", res[0].Status, res[0].Iterations, res[0].RelGap)
		})
	}
}
