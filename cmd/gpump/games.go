package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpump/gpump/games"
	"slices"
	"strings"
	"time"

	"gorgonia.org/tensor"

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
		l.Instance, l.Games = in.name, total
		r.log.Error("game failed", "instance", in.name, "index", l.Index, "key", l.Key, "error", l.Error)
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
			g.Stack = r.skipDone(g.Stack, in.name)
		}
		if g.Stack == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			// Not a failure: --resume runs them.
			for k := range g.Index {
				r.emit(&games.Line{Instance: own(g, k).name, Index: g.Index[k], Key: g.Key(k), Games: total, Status: "canceled", Error: "not started: " + err.Error()})
			}
			continue
		}
		b, m, n := g.A.Shape()[0], g.A.Shape()[1], g.A.Shape()[2]
		size := float64(m*n) * float64(g.A.Dtype().Size())
		var sink *games.StackStrategies
		if g.members == nil {
			sink = r.strat.Reserve(in.index, g.Index, total, m, n)
		}
		t0 := time.Now()
		dev, closeDev, err := batchDevice(j.device, r.threads)
		if err == nil {
			err = games.SolveStack(ctx, g.Stack, &games.StackOptions{Settings: j.s, Method: j.method, Workers: r.threads, Backend: dev},
				func(k int, line *games.Line, res *solver.BatchResult) {
					o := own(g, k)
					line.Instance, line.Games = o.name, total
					if line.Report == nil && line.Status == "error" {
						r.log.Error("game failed", "instance", in.name, "index", line.Index, "key", line.Key, "error", line.Error)
					}
					if out := line.Report; out != nil {
						out.Source, out.Format = displayName(o.file), formatOf(o.file, j)
						if dev != nil {
							out.Threads = j.threads // as gpump solve reports a device's run: --threads, the host's
						}
						if g.members != nil {
							r.strat.PutSingle(o.index, line, res.Row, res.Column)
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
				r.emit(&games.Line{Instance: own(g, k).name, Index: g.Index[k], Key: g.Key(k), Games: total, Status: "error", Error: err.Error()})
			}
			continue
		}
		el := time.Since(t0)
		r.log.Info("solved games", "instance", in.name, "games", b, "m", m, "n", n, "seconds", round3(el.Seconds()),
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

// maxGroupEntries bounds the games grouped from separate files: beyond
// it a game's solve outweighs its file's overhead, and a batch of files,
// read before any is solved, starts later than the first file alone (100
// files of 512×512 took 3.1 s grouped, 2.1 s alone, scripts/bench_batch.sh).
const maxGroupEntries = 256 * 256

// groupable reports whether the batch's own flags let files be grouped.
func groupable(o *jobOptions) bool {
	return o.oracle == "exact" && o.init == "" && !o.mmap && o.format == ""
}

// groupFiles replaces the small same-shape .npy files among insts, those
// without flags of their own, by instances that solve up to size of them
// as a batch, each placed where its first member was.
func groupFiles(insts []*instance, size int) []*instance {
	if len(insts) < 2 {
		return insts // a group has two files at least
	}
	type shapeKey struct {
		m, n int
		f32  bool
	}
	byShape := map[shapeKey][]*instance{}
	var order []shapeKey
	out := make([]*instance, 0, len(insts))
	for _, in := range insts {
		info, ok := smallNPY(in)
		if !ok {
			out = append(out, in)
			continue
		}
		k := shapeKey{info.Rows, info.Cols, strings.HasSuffix(info.Descr, "f4")}
		if _, seen := byShape[k]; !seen {
			order = append(order, k)
		}
		byShape[k] = append(byShape[k], in)
	}
	for _, k := range order {
		members := byShape[k]
		if len(members) == 1 {
			out = append(out, members[0])
			continue
		}
		for len(members) > 0 {
			chunk := members[:min(size, len(members))]
			members = members[len(chunk):]
			out = append(out, &instance{index: chunk[0].index, name: fmt.Sprintf("%d files of %d×%d", len(chunk), k.m, k.n), members: chunk, shape: [2]int{k.m, k.n}})
		}
	}
	slices.SortStableFunc(out, func(a, b *instance) int { return a.index - b.index })
	return out
}

// smallNPY returns the header of an instance that is a plain small .npy
// file, a matrix of at most maxGroupEntries entries.
func smallNPY(in *instance) (datasets.NPYInfo, bool) {
	if in.err != nil || in.file == "" || len(in.args) != 2 || in.args[0] != "--" {
		return datasets.NPYInfo{}, false
	}
	if f, err := datasets.FormatOf(in.file); err != nil || f != "npy" {
		return datasets.NPYInfo{}, false
	}
	if in.info == nil || !in.info.Mode().IsRegular() {
		return datasets.NPYInfo{}, false
	}
	info, err := datasets.StatNPY(in.file)
	if err != nil || info.Rows*info.Cols > maxGroupEntries {
		return datasets.NPYInfo{}, false
	}
	return info, true
}

// solveFiles reads the member files of a group instance and solves them as
// one batch, a line each as if solved alone.
func (r *instanceRun) solveFiles(ctx context.Context, grp *instance) {
	fail := func(in *instance, err error) {
		r.log.Error("instance failed", "instance", in.name, "error", err)
		r.emit(&games.Line{Instance: in.name, Index: in.index, Status: "error", Error: err.Error()})
	}
	// The members have no flags of their own: one job serves them all.
	j, err := instanceJob(r.opts, grp.members[0], r.threads)
	if err != nil {
		for _, in := range grp.members {
			fail(in, err)
		}
		return
	}
	j.close() // the members are read by name
	// Each file is copied into the batch as it is read, so that the
	// batch, not the files, holds the games.
	var (
		a    *tensor.Dense
		g    = group{Stack: &games.Stack{}}
		m, n = grp.shape[0], grp.shape[1]
	)
	t0 := time.Now()
	for _, in := range grp.members {
		if ctx.Err() != nil {
			r.emit(&games.Line{Instance: in.name, Index: in.index, Status: "canceled", Error: "not started: " + ctx.Err().Error()})
			continue
		}
		t, err := datasets.Read(in.file, &j.read)
		var re *datasets.RangeError
		if errors.As(err, &re) {
			// Entries float32 cannot hold as they are: a lone solve
			// stores them scaled and certifies them.
			r.solveAlone(ctx, in)
			continue
		}
		if err == nil && (t.Shape()[0] != m || t.Shape()[1] != n || a != nil && t.Dtype() != a.Dtype()) {
			err = fmt.Errorf("%s changed shape or dtype since it was listed", in.file)
		}
		rounding := 0.0
		if err == nil && j.read.DType == tensor.Float32 {
			// As a lone solve of the file reports it (job.load).
			info, serr := datasets.StatNPY(in.file)
			if err = serr; err == nil && !info.Exact32 {
				rounding = f32Rounding
			}
		}
		if err != nil {
			fail(in, err)
			continue
		}
		if a == nil {
			a = tensor.New(tensor.Of(t.Dtype()), tensor.WithShape(len(grp.members), m, n))
		}
		games.CopyGame(a, len(g.members), t, 0)
		g.members = append(g.members, in)
		g.Index = append(g.Index, in.index)
		g.Rounding = append(g.Rounding, rounding)
	}
	if a == nil {
		return
	}
	count := len(g.members)
	if count < len(grp.members) {
		if a.Dtype() == tensor.Float64 {
			a = tensor.New(tensor.WithShape(count, m, n), tensor.WithBacking(a.Float64s()[:count*m*n]))
		} else {
			a = tensor.New(tensor.WithShape(count, m, n), tensor.WithBacking(a.Float32s()[:count*m*n]))
		}
	}
	g.A, g.Load = a, time.Since(t0)/time.Duration(count)
	r.solveGames(ctx, grp, j, []group{g}, nil, 0, false)
}
