package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/mpi"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
)

// The command line over MPI ranks (docs/mpi.md). Built with the tag mpi
// and started by a launcher (mpirun, srun) with more than one rank,
// gpump solve runs one game over the ranks (package shard) and gpump batch
// deals the instances to the ranks (rankShard); with one rank, or without
// the tag, both run as in a single process.
//
// One line per failure: the ranks combine their errors (shard.Agree,
// shard.Fail) and only rank 0 prints, for the job; the others exit with the
// same status, silently. A rank that dies (kill -9) is MPI's to handle: its
// default error handler ends every rank within seconds, and mpirun says
// which rank died; the outputs, written atomically and only at the end,
// are then left as they were.

// mpiWorld is what the command needs of the job's ranks: *mpi.World.
type mpiWorld interface {
	shard.Comm
	Abort(code int)
}

var (
	worldOnce sync.Once
	theWorld  *mpi.World
	worldErr  error
	// mpiAgreed says that the error this rank returns was agreed by every
	// rank (no rank is left waiting in a collective): the process may
	// leave the job with MPI_Finalize rather than end it with MPI_Abort.
	mpiAgreed bool
)

// distributedWorld returns the job's ranks when this is an MPI build
// started with more than one rank, else nil.
func distributedWorld() (*mpi.World, error) {
	if !mpi.Enabled || !launched() {
		return nil, nil
	}
	worldOnce.Do(func() { theWorld, worldErr = mpi.Init() })
	if worldErr != nil {
		return nil, worldErr
	}
	if theWorld.Size() < 2 {
		return nil, nil
	}
	return theWorld, nil
}

// launched reports whether a launcher started this process: mpirun and
// mpiexec (Open MPI, MPICH's Hydra) and srun (PMI, PMIx) set one of these.
// Without one the MPI build is one process and does not call MPI_Init,
// whose singleton start costs Open MPI a second and a half.
func launched() bool {
	for _, name := range []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"} {
		if os.Getenv(name) != "" {
			return true
		}
	}
	return false
}

// finishMPI leaves the job before the process exits with code: with
// MPI_Finalize, or, when this rank failed alone (the others may wait for
// it in a collective), with MPI_Abort, which ends every rank at once.
func finishMPI(code int) {
	if theWorld == nil {
		return
	}
	if code == exitError && !mpiAgreed && theWorld.Size() > 1 {
		theWorld.Abort(code)
	}
	mpi.Finalize()
}

// mpiVersion is gpump version's line on MPI: the build and the library.
func mpiVersion() string {
	if !mpi.Enabled {
		return "mpi: not built in (build with CC=mpicc go build -tags mpi)\n"
	}
	return "mpi: " + mpi.Library() + "\n"
}

// quietRanks turns an error every rank agreed on into rank 0's line: the
// other ranks exit with status 1 and say nothing, so that the job prints
// its failure once.
func quietRanks(w shard.Comm, err error) error {
	if err == nil {
		return nil
	}
	mpiAgreed = true
	if w.Rank() == 0 {
		return err
	}
	return exitStatus(exitError)
}

// commandSetup is what the ranks must agree on before any work: the
// command line and the environment that changes the arithmetic.
func commandSetup(c *cli.Context) string {
	args, _ := c.App.Metadata["args"].([]string)
	if len(args) > 0 {
		args = args[1:]
	}
	return fmt.Sprintf("gpump %s (GPUMP_KERNELS=%q)", strings.Join(args, " "), os.Getenv("GPUMP_KERNELS"))
}

// localThreads is the threads per rank by default: this machine's cores
// shared by the ranks on it (the launcher's local rank count), at least 1.
func localThreads() int {
	local := 1
	for _, name := range []string{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MPI_LOCAL_NRANKS"} {
		if k, err := strconv.Atoi(os.Getenv(name)); err == nil && k > 0 {
			local = k
			break
		}
	}
	return max(1, runtime.GOMAXPROCS(0)/local)
}

// checkDistributedSolve refuses what a solve over ranks cannot do.
func checkDistributedSolve(o *solveOptions, j *job) error {
	switch {
	case o.problem != "":
		return errors.New("--problem solves on one process: run it without mpirun")
	case j.device != "cpu":
		return fmt.Errorf("a solve over MPI ranks runs on each rank's CPUs: --device %s is not supported there", j.device)
	case o.given["time-limit"]:
		// Each rank's clock would stop it at its own iteration, and the
		// ranks must take every step together.
		return errors.New("--time-limit cannot stop ranks at the same iteration: bound a solve over MPI ranks with --max-iter or --max-evals")
	}
	if j.path != "" {
		if f, err := inputFormat(j.path, j.read.Format); err != nil || f != "npy" {
			return fmt.Errorf("%s: a solve over MPI ranks reads each rank's rows of a C-order .npy file (or --gen), not a %s file", j.path, f)
		}
	}
	return nil
}

// mpiSolve is gpump solve over the ranks of w: every rank reads or
// generates its rows and solves, in lockstep; rank 0 writes the outputs.
// A Ctrl-C under mpirun ends the job (the launcher forwards it to every
// rank at its own moment, and ranks stopped at different iterations could
// not certify together): the solve ignores cancellation, and the outputs
// are then not written.
func mpiSolve(c *cli.Context, o *solveOptions, w *mpi.World, log *slog.Logger, shown solver.Recorder) error {
	rank0 := w.Rank() == 0
	if !rank0 {
		log, shown = slog.New(slog.DiscardHandler), nil
	}
	if err := shard.Agree(w, commandSetup(c)); err != nil {
		return quietRanks(w, fmt.Errorf("the ranks were started with different command lines: %w", err))
	}
	j, err := newJob(o.jobOptions, c.Args().Slice(), nil)
	if err == nil {
		defer j.close()
		err = checkDistributedSolve(o, j)
	}
	if err = shard.Fail(w, err); err != nil {
		return quietRanks(w, err)
	}
	var outs *outputs
	if rank0 {
		outs, err = planOutputs(c.Context, c.App.Writer, &o.outputOptions, shown, j.inputs())
		if err == nil {
			defer outs.abort()
		}
	}
	if err = shard.Fail(w, err); err != nil {
		return quietRanks(w, err)
	}
	threads := j.threads
	if !o.given["threads"] {
		threads = localThreads()
	}
	src := shard.Source{Path: j.path, Gen: j.gen, DType: j.read.DType}
	rounding := 0.0
	if src.DType == tensor.Float32 {
		rounding = f32Rounding // a float64 matrix rounded, unless the file's own type is float32
		if j.src != nil && j.src.Regular() && (j.src.NPY.Exact32 || strings.HasSuffix(j.src.NPY.Descr, "f4")) {
			rounding = 0
		}
	}
	sg, err := shard.Open(w, src, &shard.Options{Threads: threads})
	if err != nil {
		return quietRanks(w, err)
	}
	defer sg.Close()
	game := sg.Game
	m, n := game.Dims()
	log.Info("loaded matrix", "source", src.String(), "m", m, "n", n, "ranks", w.Size(), "threads per rank", threads)

	s := j.s
	if rank0 {
		s.Recorder = outs.recorder()
	}
	if j.initPath != "" {
		ws, err := games.ReadWarmStart(j.initPath)
		if err == nil {
			s.Init, err = ws.Pair(m, n)
		}
		if err != nil {
			err = fmt.Errorf("--init: %w", err)
		}
		if err = shard.Fail(w, err); err != nil {
			return quietRanks(w, err)
		}
	}
	var problem solver.Problem = game
	if j.sampled != nil {
		sgm := *j.sampled
		sgm.Game = game
		problem = &sgm
	}
	log.Info("solving", "algorithm", j.method.Name(), "ranks", w.Size(), "threads per rank", threads, "target_relative_gap", s.RelGap)
	res, err := solver.Solve(context.WithoutCancel(c.Context), problem, &s, j.method)
	if err = shard.Fail(w, err); err != nil {
		return quietRanks(w, err)
	}
	log.Info("finished", "status", res.Status.String(), "gap", res.Gap, "relative_gap", res.RelGap,
		"iterations", res.Iterations, "seconds", round3(res.Runtime.Seconds()), "comm_seconds", round3(sg.Backend.CommTime().Seconds()))

	var werr error
	if rank0 {
		out := games.NewReport(res, &s)
		if j.gen != nil {
			if v, ok := j.gen.Value(); ok {
				out.KnownValue = &v
			}
		}
		out.Source, out.M, out.N = games.DisplayName(src.String()), m, n
		if j.path != "" {
			out.Format = "npy"
		}
		out.Precision, out.MaxAbsEntry, out.RoundingBound = precisionName(game.Payoff().Dtype()), game.MaxAbs(), rounding*game.MaxAbs()
		out.Device, out.Threads, out.Kernels = "cpu", threads, kernelsOf(sg.Backend)
		out.Ranks, out.CommSeconds = w.Size(), sg.Backend.CommTime().Seconds()
		out.SetMethod(j.method, j.sampled)
		werr = outs.finish(c, log, out.Source, out, outs.writeStrategies(out, res, log))
	}
	if err := shard.Fail(w, werr); err != nil {
		return quietRanks(w, err)
	}
	return statusError(res.Status)
}

// batchWorld is the job's ranks during a distributed gpump batch, else nil.
var batchWorld mpiWorld

// batchMain is the --output of a distributed batch, which its ranks' part
// files are merged into.
var batchMain string

// rankPart is the part file of rank r of a distributed batch writing
// path: hidden, beside it, so that a glob of the inputs does not take it.
func rankPart(path string, r int) string {
	dir, base := splitPath(path)
	return dir + "." + base + ".rank" + strconv.Itoa(r)
}

// rankParts lists the part files beside path, of any rank (a resumed
// batch may have run on more ranks), by rank.
func rankParts(path string) (map[int]string, error) {
	dir, base := splitPath(path)
	d := dir
	if d == "" {
		d = "."
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil, err
	}
	parts := map[int]string{}
	prefix := "." + base + ".rank"
	for _, e := range entries {
		if r, err := strconv.Atoi(strings.TrimPrefix(e.Name(), prefix)); err == nil && strings.HasPrefix(e.Name(), prefix) && r >= 0 {
			parts[r] = dir + e.Name()
		}
	}
	return parts, nil
}

// splitPath splits path after its last slash.
func splitPath(path string) (dir, base string) {
	i := strings.LastIndexByte(path, '/') + 1
	return path[:i], path[i:]
}

// rankDone adds to a distributed batch rank's done (the results of its
// own part file, for --resume) those of the batch's output and of every
// other rank's part file: a hook of gpump batch.
func rankDone(resume bool, done map[string]int) (map[string]int, error) {
	if batchWorld == nil || !resume {
		return done, nil
	}
	parts, err := rankParts(batchMain)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	files := []string{batchMain}
	for r, p := range parts {
		if r != batchWorld.Rank() {
			files = append(files, p)
		}
	}
	for _, f := range files {
		if err := readDone(f, done); err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
	}
	return done, nil
}

// readDone counts into done the finished results of the batch output at
// path, read only (games.ReadResults cuts a cut last line, and another
// rank may be appending to its part): a last line without its end, which
// a killed rank left, is not a result.
func readDone(path string, done map[string]int) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(b), "\n")
	for k, line := range lines {
		if !strings.HasSuffix(line, "\n") {
			break // the last: empty, or cut
		}
		l, err := games.ParseLine([]byte(line))
		if err != nil {
			return fmt.Errorf("%s is not the output of gpump batch (line %d is not a result)", path, k+1)
		}
		if l.Done() {
			done[l.ID()]++
		}
	}
	return nil
}

// mpiBatch is gpump batch over the ranks of w. Each rank solves its share
// of the instances (rankShard: a fixed partition by a hash of the names,
// so that a resume, on any number of ranks, finds each instance where it
// was) and appends its lines to its own part file beside --output, as a
// batch appends to its output; when every rank is done, rank 0 writes
// --output atomically: its earlier lines (with --resume), then the parts
// in rank order, and removes the parts. A batch whose rank died leaves
// --output as it was and the parts with every line finished; --resume,
// on any number of ranks, skips those and merges them at the end.
//
// The dealing is static, not as the ranks free up: it needs no
// coordinator and no message per instance, and over many instances the
// shares even out; a batch of a few very unequal instances is better run
// with --jobs on one machine, or as an array with --shard.
func mpiBatch(c *cli.Context, o *batchOptions, w *mpi.World) error {
	if err := shard.Agree(w, commandSetup(c)); err != nil {
		return quietRanks(w, fmt.Errorf("the ranks were started with different command lines: %w", err))
	}
	path := o.output
	var err error
	switch {
	case path == "" || path == "-":
		err = errors.New("a batch over MPI ranks writes one file: give --output FILE")
	case o.strategies != "":
		err = errors.New("--strategies is written by one process: run the batch without mpirun, or as an array with --shard")
	}
	if err == nil {
		_, _, err = batchShard(o.shard)
	}
	if err = shard.Fail(w, err); err != nil {
		return quietRanks(w, err)
	}
	batchWorld, batchMain = w, path
	part := rankPart(path, w.Rank())
	o.output = part
	// No rank's table of its own share: rank 0 tells the whole after the
	// merge.
	quiet := o.quiet
	o.quiet = true
	started := time.Now()
	berr := batchAction(c, o)
	// The ranks' outcomes: an error (rank 0 says the first, for the job),
	// else each an exit status, the worst of which the job returns.
	var st exitStatus
	code := 0.0
	real := berr
	if errors.As(berr, &st) {
		code, real = float64(st), nil
	}
	if err := shard.Fail(w, real); err != nil {
		// The parts keep what was solved: --resume goes on from there.
		return quietRanks(w, fmt.Errorf("%w (--output %s is unchanged; --resume continues the batch)", err, path))
	}
	codes := make([]float64, w.Size())
	counts := make([]int, w.Size())
	for r := range counts {
		counts[r] = 1
	}
	w.Allgather([]float64{code}, codes, counts)
	mpiAgreed = true // every rank returns the worst status
	worst := 0
	for _, k := range codes {
		switch {
		case k == exitError:
			worst = exitError
		case k == exitCanceled && worst != exitError:
			worst = exitCanceled
		case k == exitLimit && worst == 0:
			worst = exitLimit
		}
	}
	var merr error
	if w.Rank() == 0 {
		var counts map[string]int
		counts, merr = mergeParts(path, w.Size(), o.resume)
		if merr == nil && !quiet {
			tw := tabwriter.NewWriter(c.App.ErrWriter, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "ranks\tnew results\tconverged\tlimit\tcanceled\tfailed\tseconds\t")
			limit := counts[""] - counts["converged"] - counts["canceled"] - counts["error"]
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t\n", w.Size(), counts[""], counts["converged"], limit, counts["canceled"], counts["error"], time.Since(started).Seconds())
			tw.Flush()
		}
	}
	if err := shard.Fail(w, merr); err != nil {
		return quietRanks(w, err)
	}
	if worst != 0 {
		return exitStatus(worst)
	}
	return nil
}

// mergeParts writes a distributed batch's output at path, atomically:
// its lines so far (resume), then the part files of ranks 0..size-1 in
// rank order (and, resuming, those of any other rank, a run on more
// ranks left them), and removes the parts. It returns the parts' lines
// counted by status, and all of them under "".
func mergeParts(path string, size int, resume bool) (map[string]int, error) {
	counts := map[string]int{}
	parts, err := rankParts(path)
	if err != nil {
		return nil, err
	}
	var files []string
	if resume {
		if _, err := os.Stat(path); err == nil {
			files = append(files, path)
		}
	}
	top := size
	for r := range parts {
		top = max(top, r+1)
	}
	for r := range top {
		if p, ok := parts[r]; ok && (r < size || resume) {
			files = append(files, p)
		}
	}
	err = writeFile("--output", path, func(out io.Writer) error {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				// A line cut by a killed rank, which --resume ran again.
				b = b[:strings.LastIndexByte(string(b), '\n')+1]
			}
			if f != path {
				for _, line := range strings.SplitAfter(string(b), "\n") {
					if l, err := games.ParseLine([]byte(line)); err == nil {
						counts[l.Status]++
						counts[""]++
					}
				}
			}
			if _, err := out.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		os.Remove(p)
	}
	return counts, nil
}
