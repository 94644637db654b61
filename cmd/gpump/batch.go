package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/internal/progress"
)

// batchOptions are gpump batch's flags but the log's (newLogger).
type batchOptions struct {
	*jobOptions      // every instance's, under its manifest line's own
	manifest, output string
	jobs, batchSize  int
	json, resume     bool
	logOptions
	strategies string
	shard      string // --shard K/N
}

func batchCommand() *cli.Command {
	o := &batchOptions{jobOptions: newJobOptions()}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "manifest", Destination: &o.manifest, Usage: "read instances from this file, one per line (see above)"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Destination: &o.jobs, Value: 1, Usage: "instances solved at once; the threads are split between them"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.output, Usage: "write the JSON lines to this file (- for standard output)", DefaultText: "a line per instance on a terminal, else JSON lines, on standard output"},
		&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "write JSON lines to standard output even when it is a terminal"},
		&cli.BoolFlag{Name: "resume", Destination: &o.resume, Usage: "append to --output, skipping the instances it already holds a result for"},
	}
	flags = append(flags, logFlags(&o.logOptions, "no log lines and no summary table on stderr", true)...)
	flags = append(flags, []cli.Flag{
		shardFlag(&o.shard),
		&cli.IntFlag{Name: "batch-size", Destination: &o.batchSize, Value: defaultBatchSize, Usage: "at most this many small same-shape .npy files solved together as one batch (1: each on its own)"},
		&cli.StringFlag{Name: "strategies", Destination: &o.strategies, Usage: "write every instance's strategies to this .npz archive, written whole when the batch ends (see above)"},
	}...)
	for _, f := range inputFlags(o.jobOptions) {
		if f.Names()[0] != "key" { // a key is per archive: give it per line
			flags = append(flags, f)
		}
	}
	flags = append(flags, solverFlags(o.jobOptions)...)
	return &cli.Command{
		Name:      "batch",
		Usage:     "solve many games: files, directories, globs or a manifest",
		ArgsUsage: "[FILE|DIR|GLOB...]",
		Description: `Each argument is a payoff file, a directory (its .npy, .npz, .csv, .tsv,
.txt and .mtx files, in name order, not recursively) or a glob pattern
("games/*.npy", quoted so that the shell leaves it alone). A manifest
(--manifest FILE) lists one instance per line: a payoff file (relative to
the manifest's directory) or a generator written gen:NAME[:key=value,...],
followed by solve flags for that instance only, for example

   # comment lines and blank lines are skipped
   games/a.npy --algo rm+
   games/b.npz --key payoff --eps 1e-5
   gen:police:n=400,layout=grid --algo prm+
   gen:uniform --m 3000 --n 2000 --seed 3

The solver flags given to batch apply to every instance; a manifest line's
own flags override them.

A file that holds many games of one shape, a 3-D .npy array (B, m, n) or an
.npz archive of several arrays (given without --key), is solved as a batch:
its games are dealt to --threads cores, one game per core from its first
iteration to its certificate, each with the result it would have alone.
With --device cuda they run in lockstep on the GPU instead: each operation
of an iteration is one kernel launch for every game still running. It
gives a line per game, with "index" (the game's position in the 3-D array or
in the archive), "key" (its archive member) and "games" (how many the file
holds); a game with a NaN or an infinite entry fails alone, and an archive's
arrays of different shapes are solved as separate batches, never padded.
gpump gen NAME --count B writes such an array.

Small .npy files of one shape (up to 256×256 entries), given as arguments,
directories or globs without flags of their own, are likewise read and
solved together, up to --batch-size at a time, each with its own line as if
solved alone (not with --oracle sampled, --init, --mmap or --format; with
--device cuda each group runs in lockstep on the GPU).

--strategies FILE.npz writes the strategies: members row and column (B×m
and B×n, a row per game) when the batch is one such file; otherwise members
row_K and column_K for instance K (2-D for a file of many games, 1-D for a
single game), named in each line ("row_member", "column_member" and
"member_row", the game's row in them). Rows of games without a result are
NaN. It is refused with --resume (the archive is written whole at the end).

Output: one JSON line per instance, in the order they finish, to --output
or stdout (on a terminal, one readable line each, with the value, the
middle of the certified bracket, and the bracket, unless --json): the fields
of gpump solve without the strategies, plus "instance" (the argument or the
manifest line) and "index" (its position), or "status": "error" and "error"
for an instance that failed. One failing instance never stops the others.
When stderr is a terminal each instance is shown once, by that readable
line (on stderr when stdout is not the terminal), not by log lines as
well, unless --verbose. A summary table goes to stderr at the end.
--output may not be an input.
With --resume the output file is appended to, and instances it already
holds a result for (any status but error and canceled) are skipped; a file
that is not this program's results is refused.
` + shardHelp + `
Exit status: 1 if any instance failed, else 3 if interrupted, else 2 if a
limit stopped any solve, else 0.

Examples:
   gpump batch games/ --algo rm+ --eps 1e-5 -o results.jsonl
   gpump batch 'games/*.npy' --jobs 2 --time-limit 1m -o results.jsonl --resume
   gpump batch --manifest runs.txt --jobs 2
   gpump gen uniform --m 64 --n 64 --count 4000 -o games.npy
   gpump batch games.npy --eps 1e-6 --strategies strategies.npz -o results.jsonl
   gpump batch games/ --shard 3/8 -o results.3.jsonl --resume
   mpirun -np 4 gpump batch games/ -o results.jsonl --resume   (docs/mpi.md)`,
		Flags: flags,
		Action: func(c *cli.Context) error {
			o.bind(c)
			return batchAction(c, o)
		},
	}
}

// instance is one line of work of a batch.
type instance = games.Instance

func batchAction(c *cli.Context, o *batchOptions) error {
	if w, err := distributedWorld(); err != nil { // mpi.go
		return err
	} else if w != nil && batchWorld == nil {
		return mpiBatch(c, o, w)
	}
	// Over MPI ranks, a rank whose setup fails meets the others at the
	// one point where they agree on it (joinRanks): none is left waiting.
	fail, remote := func(err error) error { return err }, false
	if batchWorld != nil {
		fail, remote = joinRanks, batchWorld.Rank() != 0
	}
	log, err := o.logger(c.App.ErrWriter)
	if err != nil {
		return fail(err)
	}
	jobs := o.jobs
	if jobs < 1 {
		return fail(fmt.Errorf("--jobs must be at least 1, got %d", jobs))
	}
	path := o.output
	if path == "-" {
		path = ""
	}
	if path == "" && o.resume {
		return fail(errors.New("--resume needs --output FILE"))
	}
	var strat *games.StrategyArchive
	if sp := o.strategies; sp != "" {
		if o.resume {
			return fail(errors.New("--strategies is written whole when the batch ends: it cannot be resumed; give it without --resume"))
		}
		if f, err := datasets.FormatOf(sp); err != nil || f != "npz" {
			return fail(fmt.Errorf("--strategies %s: want an .npz file", sp))
		}
		strat = &games.StrategyArchive{Path: sp}
	}
	l, err := games.List(c.Args().Slice(), o.manifest, path)
	if err != nil {
		return fail(err)
	}
	insts := l.Instances
	if len(insts) == 0 {
		return fail(errors.New("no instances: give files, directories, globs or --manifest FILE (see gpump batch --help)"))
	}
	if insts, err = shardInstances(o.shard, insts, log); err != nil { // shard.go
		return fail(err)
	}
	// Check the batch-wide flags once, so that a typo fails the batch
	// rather than every instance.
	lenient := *o.jobOptions
	lenient.own = nil // no flag is an instance's own yet
	if err := new(job).configure(&lenient); err != nil {
		return fail(err)
	}
	// The output must not be an input: writing it would destroy it.
	files := listedFiles(l, o.manifest)
	files.add("--output", path, false)
	if strat != nil {
		files.add("--strategies", strat.Path, false)
		strat.Single = len(insts) == 1
	}
	if path == "" {
		files.addWriter("standard output", c.App.Writer)
	}
	if err := files.check(); err != nil {
		return fail(err)
	}
	for _, note := range l.Notes {
		log.Log(c.Context, levelNote, note)
	}

	var done map[string]int
	out := c.App.Writer
	human := path == "" && o.output != "-" && !o.json && isTerminal(out)
	// On a terminal each instance is one readable line, not a log line as
	// well: on standard output when it is the terminal (human), else on
	// stderr; the instances' log lines (solved, failed, progress) go only
	// to a log, or with --verbose.
	instLog, readable := log, io.Writer(nil)
	if o.quietTerminal(c.App.ErrWriter) {
		instLog = slog.New(slog.DiscardHandler)
		if !human {
			readable = c.App.ErrWriter
		}
	}
	var pending *rankLines // a rank's lines for rank 0, which writes them
	switch {
	case remote:
		pending = new(rankLines)
		out, human, readable = pending, false, nil
	case path != "":
		f, d, err := openResults(c.Context, path, o.resume)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		out, done = f, d
	}
	if batchWorld != nil {
		if done, err = shareBatch(insts, done); err != nil { // mpi.go
			return err
		}
	}

	var (
		mu      sync.Mutex
		counts  = map[string]int{}
		outErr  error
		started = time.Now()
		doneMu  sync.Mutex
		skipped atomic.Int64
	)
	// emitted writes l, marshalled as b.
	emitted := func(l *games.Line, b []byte) {
		if human {
			b = []byte(summaryLine(l))
		}
		mu.Lock()
		defer mu.Unlock()
		counts[l.Status]++
		if readable != nil {
			io.WriteString(readable, summaryLine(l))
		}
		// One Write per line: a crash leaves at most the last line cut,
		// which --resume ignores.
		if _, err := out.Write(b); err != nil && outErr == nil {
			outErr = err
		}
	}
	emit := func(l *games.Line) {
		b, err := marshalLine(l)
		if err != nil { // only NaN could do this, and gaps are never NaN
			l = &games.Line{Instance: l.Instance, Index: l.Index, Key: l.Key, Games: l.Games, Status: "error", Error: err.Error()}
			b, _ = marshalLine(l)
		}
		emitted(l, b)
	}

	// Small same-shape files are solved as batches.
	if size := o.batchSize; size < 1 {
		return fmt.Errorf("--batch-size must be at least 1, got %d", size)
	} else if size > 1 && groupable(o.jobOptions) {
		insts = games.GroupFiles(insts, size)
	}
	// The threads are dealt to the workers, at least one each.
	threads := o.threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	workers := min(jobs, len(insts))
	work := make(chan *instance)
	next := func() (*instance, bool) { in, ok := <-work; return in, ok }
	var wg sync.WaitGroup
	switch {
	case remote:
		next = askRank0(insts, pending) // mpi.go
	case batchWorld != nil:
		wg.Go(func() { dealRanks(work, insts, workers, emitted) }) // mpi.go
	}
	for w := range workers {
		own := max(1, threads/workers+btoi(w < threads%workers))
		wg.Go(func() {
			for in, ok := next(); ok; in, ok = next() {
				run := &instanceRun{opts: o.jobOptions, threads: own, log: instLog, emit: emit, done: done, doneMu: &doneMu, skipped: &skipped, strat: strat}
				run.solve(c.Context, in)
				// The next matrix may be as large as this one: give the
				// memory back before reading it, or two would be held.
				// A small one is not worth the collection (a few ms,
				// more than a small game's solve).
				if run.held >= freeAbove {
					debug.FreeOSMemory()
				}
			}
		})
	}
	notRun := 0
	if remote {
		insts = nil // rank 0 deals them
	}
	for k, in := range insts {
		doneMu.Lock()
		skip := false
		if in.Members != nil {
			left := in.Members[:0:0]
			for _, mem := range in.Members {
				if done[mem.Name] > 0 {
					done[mem.Name]--
					skipped.Add(1)
					continue
				}
				left = append(left, mem)
			}
			in.Members, skip = left, len(left) == 0
		} else if skip = done[in.Name] > 0; skip {
			done[in.Name]-- // identical instances: skip as many as are done
			skipped.Add(1)
		}
		doneMu.Unlock()
		if skip {
			continue
		}
		select {
		case work <- in:
			continue
		case <-c.Context.Done():
		}
		for _, in := range insts[k:] {
			notRun += max(1, len(in.Members))
		}
		break
	}
	close(work)
	// A write blocked on a pipe nobody reads holds the workers: the next
	// signal stops the wait.
	if _, err := interruptible(nextInterrupt(c.Context), "writing the results", func() (any, error) { wg.Wait(); return nil, nil }); err != nil {
		return err
	}
	if outErr != nil {
		return fmt.Errorf("writing the results: %w", outErr)
	}
	if err := strat.Write(); err != nil {
		return fmt.Errorf("--strategies: %w", err)
	}

	lines, limit := 0, 0
	for st, k := range counts {
		lines += k
		if st != "converged" && st != "canceled" && st != "error" {
			limit += k
		}
	}
	if !o.quiet {
		tw := tabwriter.NewWriter(c.App.ErrWriter, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "instances\tresults\tconverged\tlimit\tcanceled\tfailed\tskipped\tnot run\tseconds\t")
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t\n", len(l.Instances), lines, counts["converged"], limit, counts["canceled"], counts["error"], skipped.Load(), notRun, time.Since(started).Seconds())
		tw.Flush()
	}
	switch {
	case counts["error"] > 0:
		return exitStatus(exitError)
	case counts["canceled"] > 0 || notRun > 0 || c.Context.Err() != nil:
		return exitStatus(exitCanceled)
	case limit > 0:
		return exitStatus(exitLimit)
	}
	return nil
}

// marshalLine encodes l as one line of JSON, newline included, leaving
// '<', '>' and '&' (in dtypes and messages) as they are.
func marshalLine(l *games.Line) ([]byte, error) {
	return games.Marshal(l, false) // non-finite numbers as null (finite.go)
}

// instanceRun is what a batch worker needs to run an instance.
type instanceRun struct {
	opts    *jobOptions // the batch's
	threads int
	log     *slog.Logger
	emit    func(*games.Line)
	done    map[string]int // --resume: results already in the output
	doneMu  *sync.Mutex
	skipped *atomic.Int64
	strat   *games.StrategyArchive
	// held is the number of bytes of payoffs the instance held (unknown:
	// the most).
	held int64
}

// freeAbove is the least number of payoff bytes an instance held for the
// worker to return its memory to the system before the next one.
const freeAbove = 64 << 20

// solve runs one instance and emits its lines: one, or one per game of a
// file that holds many.
func (r *instanceRun) solve(ctx context.Context, in *instance) {
	r.held = math.MaxInt64
	if in.Members != nil {
		r.solveFiles(ctx, in)
		return
	}
	r.solveAlone(ctx, in)
}

// solveAlone runs an instance that is not a group of files.
func (r *instanceRun) solveAlone(ctx context.Context, in *instance) {
	line, j := solveInstance(ctx, r.opts, in, r.threads, r.log)
	if o := line.Report; o != nil && j == nil {
		size := int64(8)
		if o.Precision == "f32" {
			size = 4
		}
		r.held = int64(o.M) * int64(o.N) * size
	}
	if j == nil {
		if line.Report != nil {
			r.strat.PutSingle(in.Index, line, line.RowStrategy, line.ColumnStrategy)
			line.RowStrategy, line.ColumnStrategy = nil, nil
		}
		r.emit(line)
		return
	}
	groups, bad, total, err := batchedInput(j)
	j.close()
	if err != nil {
		line.Status, line.Error = "error", err.Error()
		r.log.Error("instance failed", "instance", in.Name, "error", err)
		r.emit(line)
		return
	}
	r.solveGames(ctx, in, j, groups, bad, total, true)
}

// solveInstance runs one instance of a single game; errors become error
// lines. For a file that holds many games (batchedKind) it returns the
// instance's job instead, unsolved.
func solveInstance(ctx context.Context, batch *jobOptions, in *instance, threads int, log *slog.Logger) (*games.Line, *job) {
	line := &games.Line{Instance: in.Name, Index: in.Index}
	fail := func(err error) (*games.Line, *job) {
		line.Status, line.Error = "error", err.Error()
		log.Error("instance failed", "instance", in.Name, "error", err)
		return line, nil
	}
	j, err := instanceJob(batch, in, threads)
	if err != nil {
		return fail(err)
	}
	if batchedKind(j) != "" {
		return line, j
	}
	defer j.close()
	out, res, err := j.run(ctx, progress.NewLog(log, "instance", in.Name), slog.New(slog.DiscardHandler))
	var ie *interruptedError
	if errors.As(err, &ie) {
		// Not a failure of the instance: --resume runs it again.
		line.Status, line.Error = "canceled", err.Error()
		return line, nil
	}
	if err != nil {
		return fail(err)
	}
	line.Status, line.Report = out.Status, out
	if res != nil {
		out.RowStrategy, out.ColumnStrategy = res.Row, res.Column // for --strategies, taken out before the line is written
	}
	log.Info("solved", "instance", in.Name, "status", out.Status, "gap", out.Gap, "relative_gap", out.RelativeGap,
		"iterations", out.Iterations, "seconds", round3(out.Seconds+out.LoadSeconds))
	return line, nil
}

// instanceJob is the job of an instance: the batch's options, with the
// manifest line's own over them, and threads unless the line gives them.
func instanceJob(batch *jobOptions, in *instance, threads int) (*job, error) {
	if in.Err != nil {
		return nil, in.Err
	}
	o, args, err := lineOptions(batch, in.Name, in.Args)
	if err != nil {
		return nil, err
	}
	var known os.FileInfo
	if len(args) == 1 && args[0] == in.File {
		known = in.Info
	}
	j, err := newJob(o, args, known)
	if err != nil {
		return nil, err
	}
	if !o.own["threads"] {
		j.threads = threads
	}
	return j, nil
}

// lineOptions parses a manifest line's flags (args, the file after "--")
// over a copy of its batch's options; it returns them and the line's
// positional arguments.
func lineOptions(batch *jobOptions, name string, args []string) (*jobOptions, []string, error) {
	o := newJobOptions()
	flags := lineFlags(o)
	if err := checkFlags(flags, args); err != nil {
		msg := err.Error()
		if fe := (*flagError)(nil); errors.As(err, &fe) && fe.why == "" {
			flag := "--" + strings.TrimLeft(fe.typed, "-")
			msg = "no such flag for a manifest line: " + flag
			if flag == "--output" || flag == "--strategies" || flag == "--resume" {
				msg += " (outputs are the batch's own: give them to gpump batch)"
			}
		}
		return nil, nil, fmt.Errorf("manifest flags: %s", msg)
	}
	set := flag.NewFlagSet(name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			return nil, nil, err
		}
	}
	// The flags wrote their defaults; the batch's values replace them,
	// and the line's own replace those.
	o.copyFrom(batch)
	if err := set.Parse(args); err != nil {
		return nil, nil, fmt.Errorf("manifest flags: %w", err)
	}
	o.own = map[string]bool{}
	set.Visit(func(f *flag.Flag) { o.own[f.Name] = true })
	o.given = maps.Clone(batch.given)
	if o.given == nil {
		o.given = map[string]bool{}
	}
	maps.Copy(o.given, o.own)
	var pos []string
	for _, a := range set.Args() {
		if a != "--" {
			pos = append(pos, a)
		}
	}
	return o, pos, nil
}

// lineFlags are the flags a manifest line may give, bound to o.
func lineFlags(o *jobOptions) []cli.Flag {
	f := append(inputFlags(o), genFlags(&o.gen, &o.g)...)
	return append(f, solverFlags(o)...)
}

// openResults opens the batch's results file at path for writing (for
// --resume, after reading the results it holds, appending). A regular file
// is locked first (flock), so that two batches never write one file: the
// second fails, saying so; a file the command may not replace (read-only,
// another user's) is refused as gpump solve refuses it. A pipe, a device or
// a descriptor (/dev/stdout) is written in place, and opening a FIFO, which
// waits for a reader, stops at the first signal (ctx); it cannot be
// resumed: it holds no results to read.
func openResults(ctx context.Context, path string, resume bool) (*os.File, map[string]int, error) {
	if atomicfile.InPlace(path) {
		if resume {
			return nil, nil, fmt.Errorf("--resume: --output %s is not a regular file: it holds no results to resume", path)
		}
		o, err := atomicfile.CreateContext(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, &interruptedError{"opening --output " + path + ", waiting for a reader"}
			}
			return nil, nil, outputErr("--output", err)
		}
		return o.File, nil, nil
	}
	if err := atomicfile.CheckReplace(path); err != nil {
		return nil, nil, outputErr("--output", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--output: %w", err)
	}
	if err := lockOutput(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, nil, fmt.Errorf("--output %s: another gpump batch is writing it (it holds the file's lock): wait for it to end, or give another --output", path)
		}
		return nil, nil, fmt.Errorf("--output %s: locking: %w", path, err)
	}
	done := map[string]int(nil)
	if resume {
		if done, err = games.ReadResults(path); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("--resume: %w", err)
		}
	} else if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--output %s: %w", path, err)
	}
	return f, done, nil
}

// btoi is 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
