package shard_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/shard/shardtest"
	"github.com/gpump/gpump/solver"
)

// onRanks runs f on size in-process ranks and returns their errors.
func onRanks(size int, f func(c shard.Comm) error) []error {
	grp := shard.NewGroup(size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() { errs[r] = f(grp.Comm(r)) })
	}
	wg.Wait()
	return errs
}

// TestOpen solves a game opened from a .npy file and from a generator on 3
// ranks: both give the single process's result, bit for bit alike.
func TestOpen(t *testing.T) {
	spec, err := datasets.ParseGenSpec("uniform:m=301,n=257,lo=-1,hi=1,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	a, err := datasets.Generate(tensor.Float64, spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a.npy")
	if err := datasets.WriteNPY(path, a); err != nil {
		t.Fatal(err)
	}
	run := shardtest.Run{Method: "auto", Gap: 1e-9}
	want := shardtest.Whole(t, a, run)
	for _, src := range []shard.Source{{Path: path}, {Gen: &spec}} {
		res := make([]*solver.Result, 3)
		errs := onRanks(3, func(c shard.Comm) error {
			g, err := shard.Open(c, src, &shard.Options{Threads: 1})
			if err != nil {
				return err
			}
			defer g.Close()
			if lo, hi, m := g.Backend.Rows(); g.Game.Payoff().Shape()[0] != hi-lo || m != 301 {
				t.Errorf("rank %d holds %v of rows [%d, %d) of %d", c.Rank(), g.Game.Payoff().Shape(), lo, hi, m)
			}
			res[c.Rank()], err = solver.Solve(context.Background(), g.Game, run.Settings(), &solver.Auto{})
			return err
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("%v: %v", src, err)
		}
		for r := range res {
			if !shardtest.Same(shardtest.Digest(res[r]), shardtest.Digest(res[0])) {
				t.Errorf("%v: rank %d's result differs from rank 0's", src, r)
			}
		}
		if err := shardtest.Matches(res[0], want); err != nil {
			t.Errorf("%v: %v", src, err)
		}
	}
}

// TestOpenFails: ranks that disagree on their setup, or one rank that cannot
// read its block, fail on every rank, before any work, each with one error.
func TestOpenFails(t *testing.T) {
	a, err := datasets.Uniform(tensor.Float64, 30, 5, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	a.Float64s()[25*5+1] = math.Inf(1) // in the last of 3 ranks' blocks
	path := filepath.Join(t.TempDir(), "inf.npy")
	if err := datasets.WriteNPY(path, a); err != nil {
		t.Fatal(err)
	}
	errs := onRanks(3, func(c shard.Comm) error {
		_, err := shard.Open(c, shard.Source{Path: path}, &shard.Options{Threads: 1})
		return err
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "(25, 1)") {
			t.Errorf("rank %d: %v, want the error of rank 2's entry (25, 1)", r, err)
		}
	}
	spec, _ := datasets.ParseGenSpec("uniform:m=30,n=5")
	errs = onRanks(3, func(c shard.Comm) error {
		opt := &shard.Options{Threads: 1}
		if c.Rank() == 1 {
			opt.Threads = 2
		}
		_, err := shard.Open(c, shard.Source{Gen: &spec}, opt)
		return err
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 1 differs") {
			t.Errorf("rank %d: %v, want rank 1's threads refused", r, err)
		}
	}
}

// TestOutput: rank 0 alone writes.
func TestOutput(t *testing.T) {
	var bufs [3]bytes.Buffer
	onRanks(3, func(c shard.Comm) error {
		_, err := shard.Output(c, &bufs[c.Rank()]).Write([]byte("result\n"))
		return err
	})
	if bufs[0].String() != "result\n" || bufs[1].Len() != 0 || bufs[2].Len() != 0 {
		t.Errorf("outputs %q, %q, %q", bufs[0].String(), bufs[1].String(), bufs[2].String())
	}
}
