package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpump/gpump/games"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// A batched instance is one file holding many games of one shape: a 3-D
// .npy array (B, m, n), or an .npz archive of several arrays given without
// --key. Its games are solved together by solver.SolveBatch (a game per
// core, each placed once and re-filled) and give a line each, with "index"
// (the position in the 3-D array, or in the archive) and, for an archive,
// "key", and "games" (how many the instance holds).

// group is a stack of same-shape games of one instance, ready to solve.
type group struct {
	*games.Stack
	// members, for games read from separate files (groupFiles), are their
	// instances: each game's line is its instance's.
	members []*instance
}

// batchedKind says whether the job's file holds many games, from its
// header or its member list alone: "stack" for a 3-D .npy array, "archive"
// for an .npz of several arrays given without --key, "" otherwise.
func batchedKind(j *job) string {
	if j.path == "" {
		return ""
	}
	src := j.src
	if src == nil || !src.Regular() {
		return "" // a pipe is read once: as a matrix
	}
	switch {
	case src.Format == "npy":
		if src.Dims == 3 {
			return "stack"
		}
	case src.Format == "npz" && j.read.Key == "":
		if keys, err := datasets.NPZMembers(j.path); err == nil && len(keys) > 1 {
			return "archive"
		}
	}
	return ""
}

// batchedInput reads the games of a job whose file holds many: the groups
// of same-shape games, the lines of games that could not be read, and the
// number of games in the file.
func batchedInput(j *job) (groups []group, bad []*games.Line, total int, err error) {
	if err := batchable(j); err != nil {
		return nil, nil, 0, err
	}
	stacks, bad, total, err := games.ReadStacks(j.src, &j.read)
	for _, s := range stacks {
		groups = append(groups, group{Stack: s})
	}
	return groups, bad, total, err
}

// batchable checks the flags of a job whose file holds many games.
func batchable(j *job) error {
	switch {
	case j.sampled != nil:
		return fmt.Errorf("%s holds many games: --oracle sampled is for one large game", j.path)
	case j.initPath != "":
		return fmt.Errorf("%s holds many games: --init warm-starts one game", j.path)
	case j.mmap:
		return fmt.Errorf("%s holds many games: --mmap maps one matrix", j.path)
	}
	return nil
}

// solveGames solves the groups of a batched instance, skipping with
// resume the games r.done holds (it decrements their counts), and emits a
// line per game as it finishes.
func (r *instanceRun) solveGames(ctx context.Context, in *instance, j *job, groups []group, bad []*games.Line, total int, resume bool) {
	for _, l := range bad {
		l.Instance, l.Games = in.Name, total
		r.log.Error("game failed", "instance", in.Name, "index", l.Index, "key", l.Key, "error", l.Error)
		r.emit(l)
	}
	// own is the instance of game k of g, whose name its line carries.
	own := func(g group, k int) *instance {
		if g.members != nil {
			return g.members[k]
		}
		return in
	}
	for _, g := range groups {
		if resume {
			g.Stack = r.skipDone(g.Stack, in.Name)
		}
		if g.Stack == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			// Not a failure: --resume runs them.
			for k := range g.Index {
				r.emit(&games.Line{Instance: own(g, k).Name, Index: g.Index[k], Key: g.Key(k), Games: total, Status: "canceled", Error: "not started: " + err.Error()})
			}
			continue
		}
		b, m, n := g.A.Shape()[0], g.A.Shape()[1], g.A.Shape()[2]
		size := float64(m*n) * float64(g.A.Dtype().Size())
		var sink *games.StackStrategies
		if g.members == nil {
			sink = r.strat.Reserve(in.Index, g.Index, total, m, n)
		}
		t0 := time.Now()
		dev, closeDev, err := batchDevice(j.device, r.threads)
		if err == nil {
			err = games.SolveStack(ctx, g.Stack, &games.StackOptions{Settings: j.s, Method: j.method, Workers: r.threads, Backend: dev},
				func(k int, line *games.Line, res *solver.BatchResult) {
					o := own(g, k)
					line.Instance, line.Games = o.Name, total
					if line.Report == nil && line.Status == "error" {
						r.log.Error("game failed", "instance", in.Name, "index", line.Index, "key", line.Key, "error", line.Error)
					}
					if out := line.Report; out != nil {
						out.Source, out.Format = games.DisplayName(o.File), formatOf(o.File, j)
						if dev != nil {
							out.Threads = j.threads // as gpump solve reports a device's run: --threads, the host's
						}
						if g.members != nil {
							r.strat.PutSingle(o.Index, line, res.Row, res.Column)
						} else {
							sink.Put(line, k, res.Row, res.Column)
						}
					}
					r.emit(line)
				})
			if cerr := closeDev(); err == nil {
				err = cerr
			}
		}
		if err != nil { // a device that failed; the job's checks accept what SolveBatch takes
			for k := range b {
				r.emit(&games.Line{Instance: own(g, k).Name, Index: g.Index[k], Key: g.Key(k), Games: total, Status: "error", Error: err.Error()})
			}
			continue
		}
		el := time.Since(t0)
		r.log.Info("solved games", "instance", in.Name, "games", b, "m", m, "n", n, "seconds", round3(el.Seconds()),
			"games/s", round3(float64(b)/el.Seconds()), "MB", round3(float64(b)*size/1e6))
	}
}

// skipDone returns s without the games --resume found done (nil when none
// is left).
func (r *instanceRun) skipDone(s *games.Stack, name string) *games.Stack {
	if r.done == nil {
		return s
	}
	r.doneMu.Lock()
	defer r.doneMu.Unlock()
	var keep []int
	for k := range s.Index {
		id := games.GameID(name, s.Index[k], s.Key(k))
		if r.done[id] > 0 {
			r.done[id]--
			r.skipped.Add(1)
			continue
		}
		keep = append(keep, k)
	}
	return s.Subset(keep)
}

// batchDevice opens the backend of a batch on --device: nil for the CPU,
// whose per-core workers solve a batch faster than a lockstep would; a
// device's backend otherwise, which must run batched operations.
func batchDevice(device string, threads int) (tensorops.Batched, func() error, error) {
	if device == "cpu" {
		return nil, func() error { return nil }, nil
	}
	be, closeBe, err := openDevice(device, threads)
	if err != nil {
		return nil, nil, err
	}
	bb, ok := be.(tensorops.Batched)
	if !ok {
		closeBe()
		return nil, nil, fmt.Errorf("--device %s runs no batched operations: solve many games on the CPU", device)
	}
	return bb, closeBe, nil
}

func formatOf(path string, j *job) string {
	f, _ := inputFormat(path, j.read.Format)
	return f
}

// defaultBatchSize is --batch-size: enough games to keep every core busy
// through the slow tail of a few, few enough to hold little memory (1000
// games of 512×512 are 2 GB: the entry bound below keeps them smaller).
const defaultBatchSize = 1000

// groupable reports whether the batch's own flags let files be grouped.
func groupable(o *jobOptions) bool {
	return o.oracle == "exact" && o.init == "" && !o.mmap && o.format == ""
}

// solveFiles reads the member files of a group instance and solves them as
// one batch, a line each as if solved alone.
func (r *instanceRun) solveFiles(ctx context.Context, grp *instance) {
	fail := func(in *instance, err error) {
		r.log.Error("instance failed", "instance", in.Name, "error", err)
		r.emit(&games.Line{Instance: in.Name, Index: in.Index, Status: "error", Error: err.Error()})
	}
	// The members have no flags of their own: one job serves them all.
	j, err := instanceJob(r.opts, grp.Members[0], r.threads)
	if err != nil {
		for _, in := range grp.Members {
			fail(in, err)
		}
		return
	}
	j.close() // the members are read by name
	s, own := games.ReadGroup(ctx, grp, &j.read, func(in *instance, err error) {
		var re *datasets.RangeError
		switch {
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			r.emit(&games.Line{Instance: in.Name, Index: in.Index, Status: "canceled", Error: "not started: " + err.Error()})
		case errors.As(err, &re):
			r.solveAlone(ctx, in) // stored scaled and certified alone
		default:
			fail(in, err)
		}
	})
	if s != nil {
		r.solveGames(ctx, grp, j, []group{{Stack: s, members: own}}, nil, 0, false)
	}
}
