package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpump/gpump/games"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// group is a set of same-shape games of one instance, ready to solve.
type group struct {
	a     *tensor.Dense // (B, m, n)
	index []int         // each game's position in its file
	keys  []string      // each game's npz key, or nil
	// members, for games read from separate files (groupFiles), are their
	// instances: each game's line is its instance's.
	members []*instance
	load    time.Duration // reading time per game, of separate files
	// rounding is each game's rounding factor (loaded.rounding): its
	// rounding_bound is rounding times its largest entry, as a lone
	// solve of it reports. nil: all 0.
	rounding []float64
}

// roundingOf is the rounding factor of game k of g.
func (g *group) roundingOf(k int) float64 {
	if g.rounding == nil {
		return 0
	}
	return g.rounding[k]
}

// uniformRounding is a rounding factor r for each of b games (nil for 0).
func uniformRounding(b int, r float64) []float64 {
	if r == 0 {
		return nil
	}
	s := make([]float64, b)
	for k := range s {
		s[k] = r
	}
	return s
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

// batchedInput reads the games of a job whose file holds many, of kind
// batchedKind(j): the groups of same-shape games, the lines of members that
// could not be read, and the number of games in the file.
func batchedInput(j *job, kind string) (groups []group, bad []*games.Line, total int, err error) {
	if err := batchable(j); err != nil {
		return nil, nil, 0, err
	}
	if kind == "archive" {
		return readMembers(j)
	}
	a, err := j.src.ReadStack()
	if err != nil {
		return nil, nil, 0, err
	}
	b := a.Shape()[0]
	idx := make([]int, b)
	for k := range idx {
		idx[k] = k
	}
	g := group{a: a, index: idx}
	switch {
	case j.read.DType == tensor.Float64 && a.Dtype() == tensor.Float32:
		g.a = widenStack(a)
	case j.read.DType == tensor.Float32 && a.Dtype() == tensor.Float64:
		// As for a matrix: float32 storage of entries defined in float64
		// (not those of a type float32 holds exactly) moves the bracket
		// by up to rounding_bound.
		if !j.src.NPY.Exact32 {
			g.rounding = uniformRounding(b, f32Rounding)
		}
		var keep []int
		g.a, keep, bad = narrowStack(a)
		g = subset(g, keep)
	}
	if g.a == nil {
		return nil, bad, b, nil
	}
	return []group{g}, bad, b, nil
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

// narrowStack returns a float64 stack rounded to float32 (--precision f32),
// the games that float32 holds (keep), and an error line for each other
// game: one whose largest entry overflows float32, or lies below its normal
// range, where rounding is no longer relative to the largest entry (the
// rule of a matrix read as float32; a stack is not scaled, so a game that
// needs scaling fails alone and says to solve in f64).
func narrowStack(a *tensor.Dense) (*tensor.Dense, []int, []*games.Line) {
	sh := a.Shape()
	size := sh[1] * sh[2]
	src := a.Float64s()
	dst := make([]float32, len(src))
	var keep []int
	var bad []*games.Line
	for k := range sh[0] {
		mx := 0.0
		for i, v := range src[k*size : (k+1)*size] {
			dst[k*size+i] = float32(v)
			mx = max(mx, math.Abs(v))
		}
		why := ""
		switch {
		case math.IsNaN(mx) || math.IsInf(mx, 0):
			keep = append(keep, k) // the solver names the entry
			continue
		case mx > math.MaxFloat32:
			why = "entries overflow float32"
		case mx > 0 && mx < 0x1p-126:
			why = "entries all lie below float32's normal range"
		}
		if why != "" {
			bad = append(bad, &games.Line{Index: k, Status: "error", Error: fmt.Sprintf("game %d: %s: solve it with --precision f64", k, why)})
			continue
		}
		keep = append(keep, k)
	}
	return tensor.New(tensor.WithShape(sh...), tensor.WithBacking(dst)), keep, bad
}

// widenStack returns a float32 stack in float64 (--precision f64).
func widenStack(a *tensor.Dense) *tensor.Dense {
	src := a.Float32s()
	dst := make([]float64, len(src))
	for k, v := range src {
		dst[k] = float64(v)
	}
	return tensor.New(tensor.WithShape(a.Shape()...), tensor.WithBacking(dst))
}

// readMembers reads every member of the job's archive and groups them by
// shape and dtype, in the archive's order; a member that cannot be read
// (not a matrix, a NaN) gets an error line of its own.
func readMembers(j *job) ([]group, []*games.Line, int, error) {
	type shapeKey struct {
		m, n int
		dt   tensor.Dtype
	}
	var (
		order []shapeKey
		byKey = map[shapeKey][]int{}
		mats  []*tensor.Dense
		keys  []string
		bad   []*games.Line
	)
	err := datasets.ReadNPZEach(j.path, &j.read, func(key string, a *tensor.Dense, err error) {
		k := len(keys)
		keys, mats = append(keys, key), append(mats, a)
		if err != nil {
			bad = append(bad, &games.Line{Index: k, Key: key, Status: "error", Error: err.Error()})
			return
		}
		sk := shapeKey{a.Shape()[0], a.Shape()[1], a.Dtype()}
		if _, ok := byKey[sk]; !ok {
			order = append(order, sk)
		}
		byKey[sk] = append(byKey[sk], k)
	})
	if err != nil {
		return nil, nil, 0, err
	}
	groups := make([]group, 0, len(order))
	for _, sk := range order {
		members := byKey[sk]
		a := tensor.New(tensor.Of(sk.dt), tensor.WithShape(len(members), sk.m, sk.n))
		g := group{a: a, index: members, keys: make([]string, len(members))}
		if j.read.DType == tensor.Float32 {
			// As a lone solve of a member (--key) reports it.
			g.rounding = uniformRounding(len(members), f32Rounding)
		}
		for i, k := range members {
			copyGame(a, i, mats[k], 0)
			g.keys[i] = keys[k]
			mats[k] = nil
		}
		groups = append(groups, g)
	}
	return groups, bad, len(keys), nil
}

// solveGames solves the groups of a batched instance with threads workers,
// skipping the games done holds (it decrements their counts), and emits a
// line per game as it finishes.
func solveGames(ctx context.Context, in *instance, j *job, groups []group, bad []*games.Line, total, threads int,
	done map[string]int, doneMu *sync.Mutex, skipped *atomic.Int64, emit func(*games.Line), strat *strategySink, log *slog.Logger) {
	for _, l := range bad {
		l.Instance, l.Games = in.name, total
		log.Error("game failed", "instance", in.name, "index", l.Index, "key", l.Key, "error", l.Error)
		emit(l)
	}
	for _, g := range groups {
		g = skipDone(g, in.name, done, doneMu, skipped)
		if g.a == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			// Not a failure: --resume runs them.
			for k := range g.index {
				name := in.name
				if g.members != nil {
					name = g.members[k].name
				}
				emit(&games.Line{Instance: name, Index: g.index[k], Key: keyAt(g.keys, k), Games: total, Status: "canceled", Error: "not started: " + err.Error()})
			}
			continue
		}
		b, m, n := g.a.Shape()[0], g.a.Shape()[1], g.a.Shape()[2]
		batch, err := solver.NewBatch(g.a)
		if err != nil { // the reader gives what NewBatch takes
			panic(err)
		}
		size := float64(m*n) * float64(g.a.Dtype().Size())
		var sink *instanceSink
		if g.members == nil {
			sink = strat.reserve(in, g, total, m, n)
		}
		t0 := time.Now()
		s := j.s
		dev, closeDev, err := batchDevice(j.device, threads)
		if err == nil {
			_, err = solver.SolveBatch(ctx, batch, &solver.BatchSettings{
				Settings: s, Workers: min(threads, b), Threads: 1, Backend: dev,
				Done: func(k int, r *solver.BatchResult) {
					line := &games.Line{Instance: in.name, Index: g.index[k], Games: total}
					if g.keys != nil {
						line.Key = g.keys[k]
					}
					own := in
					if g.members != nil {
						own = g.members[k]
						line.Instance = own.name
					}
					switch {
					case r.Err != nil && errors.Is(r.Err, context.Canceled) && r.X == nil:
						line.Status, line.Error = "canceled", r.Err.Error()
					case r.Err != nil && r.X == nil:
						line.Status, line.Error = "error", r.Err.Error()
						log.Error("game failed", "instance", in.name, "index", line.Index, "key", line.Key, "error", r.Err)
					default:
						out := gameOutput(r, j, batch, k, own, dev)
						out.RoundingBound = g.roundingOf(k) * r.MaxAbs
						out.LoadSeconds = g.load.Seconds()
						line.Status, line.Report = out.Status, out
						if r.Err != nil {
							line.Status, line.Error = "error", r.Err.Error()
						}
						if g.members != nil {
							strat.putSingle(own, line, r.Row, r.Column)
						} else {
							sink.put(line, k, r.Row, r.Column)
						}
					}
					emit(line)
				},
			}, j.method)
			if cerr := closeDev(); err == nil {
				err = cerr
			}
		}
		if err != nil { // a device that failed; the job's checks accept what SolveBatch takes
			for k := range b {
				name := in.name
				if g.members != nil {
					name = g.members[k].name
				}
				emit(&games.Line{Instance: name, Index: g.index[k], Key: keyAt(g.keys, k), Games: total, Status: "error", Error: err.Error()})
			}
			continue
		}
		el := time.Since(t0)
		log.Info("solved games", "instance", in.name, "games", b, "m", m, "n", n, "seconds", round3(el.Seconds()),
			"games/s", round3(float64(b)/el.Seconds()), "MB", round3(float64(b)*size/1e6))
	}
}

func keyAt(keys []string, k int) string {
	if keys == nil {
		return ""
	}
	return keys[k]
}

// skipDone returns g without the games --resume found done (g.a nil when
// none is left).
func skipDone(g group, name string, done map[string]int, mu *sync.Mutex, skipped *atomic.Int64) group {
	if done == nil {
		return g
	}
	mu.Lock()
	defer mu.Unlock()
	var keep []int
	for k := range g.index {
		id := games.GameID(name, g.index[k], keyAt(g.keys, k))
		if done[id] > 0 {
			done[id]--
			skipped.Add(1)
			continue
		}
		keep = append(keep, k)
	}
	return subset(g, keep)
}

// subset returns the games keep (positions in g) of g, g itself when it
// keeps them all, and a group with a nil tensor when it keeps none.
func subset(g group, keep []int) group {
	if len(keep) == len(g.index) {
		return g
	}
	if len(keep) == 0 {
		return group{}
	}
	sh := g.a.Shape()
	out := group{a: tensor.New(tensor.Of(g.a.Dtype()), tensor.WithShape(len(keep), sh[1], sh[2])), index: make([]int, len(keep)), load: g.load}
	if g.keys != nil {
		out.keys = make([]string, len(keep))
	}
	if g.members != nil {
		out.members = make([]*instance, len(keep))
	}
	if g.rounding != nil {
		out.rounding = make([]float64, len(keep))
	}
	for i, k := range keep {
		if g.rounding != nil {
			out.rounding[i] = g.rounding[k]
		}
		copyGame(out.a, i, g.a, k)
		out.index[i] = g.index[k]
		if g.keys != nil {
			out.keys[i] = g.keys[k]
		}
		if g.members != nil {
			out.members[i] = g.members[k]
		}
	}
	return out
}

// copyGame copies game k of src, a (B, m, n) tensor or an m×n matrix (k
// 0), into game i of dst, of the same dtype.
func copyGame(dst *tensor.Dense, i int, src *tensor.Dense, k int) {
	sh := dst.Shape()
	size := sh[1] * sh[2]
	if dst.Dtype() == tensor.Float64 {
		copy(dst.Float64s()[i*size:(i+1)*size], src.Float64s()[k*size:])
	} else {
		copy(dst.Float32s()[i*size:(i+1)*size], src.Float32s()[k*size:])
	}
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

// gameOutput is the line of game k of a batch, the fields of gpump solve;
// dev is the batch's device (nil: the CPU's workers, one thread a game).
func gameOutput(res *solver.BatchResult, j *job, batch *solver.Batch, k int, in *instance, dev tensorops.Batched) *games.Report {
	m, n := batch.Dims()
	a := batch.Game(k)
	s := j.s
	out := games.NewReport(&res.Result, &s)
	out.Source, out.Format, out.M, out.N = displayName(in.file), formatOf(in.file, j), m, n
	out.Precision, out.MaxAbsEntry = precisionName(a.Dtype()), res.MaxAbs
	out.Device, out.Threads, out.Kernels = "cpu", 1, cpuKernels()
	if dev != nil {
		// As gpump solve reports a device's run: --threads, the host's.
		out.Device, out.Kernels, out.Threads = dev.Name(), kernelsOf(dev), j.threads
	}
	return out
}

func formatOf(path string, j *job) string {
	f, _ := inputFormat(path, j.read.Format)
	return f
}

// strategySink collects the strategies of a batch for --strategies FILE.npz:
// members row_K and column_K for instance K (row and column when the batch
// is one instance holding many games), 2-D (games × m) for an instance of
// many games, 1-D for a single game; rows of games without a result are
// NaN. Written whole, atomically, when the batch ends.
type strategySink struct {
	path   string
	single bool // the batch is one instance: members row and column
	mu     sync.Mutex
	arrays []datasets.Array
	names  map[string]int
}

// instanceSink is where one group's strategies go.
type instanceSink struct {
	s         *strategySink
	row, col  *tensor.Dense
	rowName   string
	colName   string
	positions []int // member row of each game of the group
}

// memberNames names instance in's members.
func (s *strategySink) memberNames(in *instance) (string, string) {
	if s.single {
		return "row", "column"
	}
	return "row_" + strconv.Itoa(in.index), "column_" + strconv.Itoa(in.index)
}

// reserve makes (or finds) instance in's members, games × m and games × n,
// and returns the sink of group g.
func (s *strategySink) reserve(in *instance, g group, games, m, n int) *instanceSink {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is := &instanceSink{s: s, positions: g.index}
	is.rowName, is.colName = s.memberNames(in)
	is.row, is.col = s.pair(is.rowName, is.colName, games, m, n)
	// A game's member row is its position in the file: in an archive of
	// several shapes each shape's members only fill their rows.
	if is.row.Shape()[1] != m || is.col.Shape()[1] != n {
		// Another shape of the same archive: members of their own,
		// shared by the groups of that shape (float64 and float32).
		shape := "_" + strconv.Itoa(m) + "x" + strconv.Itoa(n)
		is.rowName, is.colName = is.rowName+shape, is.colName+shape
		is.row, is.col = s.pair(is.rowName, is.colName, games, m, n)
	}
	return is
}

// pair returns the members named rn and cn, made games×m and games×n (NaN)
// if the archive has no member rn yet.
func (s *strategySink) pair(rn, cn string, games, m, n int) (row, col *tensor.Dense) {
	if k, ok := s.names[rn]; ok {
		return s.arrays[k].T, s.arrays[k+1].T
	}
	row, col = nanMatrix(games, m), nanMatrix(games, n)
	s.names[rn] = len(s.arrays)
	s.arrays = append(s.arrays, datasets.Array{Name: rn, T: row}, datasets.Array{Name: cn, T: col})
	return row, col
}

// put stores game k's strategies and names them in its line.
func (is *instanceSink) put(line *games.Line, k int, row, col []float64) {
	if is == nil || row == nil {
		return
	}
	at := is.positions[k]
	is.s.mu.Lock()
	copy(is.row.Float64s()[at*len(row):], row)
	copy(is.col.Float64s()[at*len(col):], col)
	is.s.mu.Unlock()
	line.RowMember, line.ColumnMember, line.MemberRow = is.rowName, is.colName, &at
}

// putSingle stores the strategies of an instance of one game.
func (s *strategySink) putSingle(in *instance, line *games.Line, row, col []float64) {
	if s == nil || row == nil {
		return
	}
	rn, cn := s.memberNames(in)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrays = append(s.arrays,
		datasets.Array{Name: rn, T: tensor.New(tensor.WithShape(len(row)), tensor.WithBacking(slices.Clone(row)))},
		datasets.Array{Name: cn, T: tensor.New(tensor.WithShape(len(col)), tensor.WithBacking(slices.Clone(col)))})
	line.RowMember, line.ColumnMember = rn, cn
}

// write writes the archive.
func (s *strategySink) write() error {
	if s == nil {
		return nil
	}
	if len(s.arrays) == 0 {
		return fmt.Errorf("--strategies %s: no game was solved", s.path)
	}
	return datasets.WriteNPZ(s.path, s.arrays, nil)
}

func nanMatrix(r, c int) *tensor.Dense {
	d := make([]float64, r*c)
	for k := range d {
		d[k] = math.NaN()
	}
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(d))
}

// cpuKernels names the CPU kernels in use.
var cpuKernels = sync.OnceValue(func() string {
	c := tensorops.NewCPU(1)
	defer c.Close()
	return c.Kernels()
})

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
		g    group
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
			// stores them scaled (see scale.go) and certifies them.
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
		k := len(g.members)
		copyGame(a, k, t, 0)
		g.members = append(g.members, in)
		g.index = append(g.index, in.index)
		g.rounding = append(g.rounding, rounding)
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
	g.a, g.load = a, time.Since(t0)/time.Duration(count)
	solveGames(ctx, grp, j, []group{g}, nil, 0, r.threads, nil, nil, nil, r.emit, r.strat, r.log)
}
