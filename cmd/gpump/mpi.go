package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/mpi"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// The command line over MPI ranks (docs/mpi.md). Built with the tag mpi
// and started by a launcher (mpirun, srun) with more than one rank,
// gpump solve runs one game over the ranks (package shard) and gpump batch
// deals the instances to the ranks as they free up (mpiBatch); with one
// rank, or without the tag, both run as in a single process.
//
// One line per failure: the ranks combine their errors (shard.Agree,
// shard.Fail) and only rank 0 prints, for the job; the others exit with the
// same status, silently. A rank that dies (kill -9) is MPI's to handle: its
// default error handler ends every rank within seconds, and mpirun says
// which rank died; a solve's outputs, written atomically and only at the
// end, are then left as they were, and a batch's output holds the lines
// finished, whole.

// mpiWorld is what the command needs of the job's ranks: *mpi.World.
type mpiWorld interface {
	shard.Comm
	Abort(code int)
	Send(b []byte, dest, tag int)
	Recv(tag int) (b []byte, source int)
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

// rankDevice opens the device that holds this rank's block: none for cpu
// (the CPU backend holds it); for cuda, the device of the rank's place
// among the ranks of its node (its local rank, modulo the node's devices),
// so that the ranks of a node spread over its GPUs; cuda:N pins every rank
// to device N. It returns the device, the function that closes it and its
// name as opened, and an error on every rank if any rank failed.
func rankDevice(w *mpi.World, name string, threads int) (tensorops.Backend, func() error, string, error) {
	if name == "cpu" {
		return nil, func() error { return nil }, "cpu", shard.Fail(w, nil)
	}
	if name == "cuda" {
		name = localDevice(w.LocalRank())
	}
	be, closeDev, err := openDevice(name, threads)
	if err != nil {
		err = fmt.Errorf("--device %s: %w", name, err)
	}
	if err = shard.Fail(w, err); err != nil {
		if be != nil {
			closeDev()
		}
		return nil, nil, "", err
	}
	return be, closeDev, name, nil
}

// checkDistributedSolve refuses what a solve over ranks cannot do.
func checkDistributedSolve(o *solveOptions, j *job) error {
	switch {
	case o.problem != "":
		return errors.New("--problem solves on one process: run it without mpirun")
	case j.device != "cpu" && j.device != "cuda" && !strings.HasPrefix(j.device, "cuda:"):
		return fmt.Errorf("a solve over MPI ranks holds each rank's block on its CPU or a CUDA device: --device %s is not supported there", j.device)
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
// The ranks read one clock (shard.Clock): rank 0's time and its
// interrupt. So --time-limit, and a Ctrl-C or a scheduler's SIGTERM (which
// mpirun and srun pass to every rank, each at its own moment), stop every
// rank at the same iteration, and rank 0 writes the best certified point as
// one process does; each rank's own context is not the solve's.
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
	dev, closeDev, device, err := rankDevice(w, j.device, threads)
	if err != nil {
		return quietRanks(w, err)
	}
	defer closeDev()
	sg, err := shard.Open(w, src, &shard.Options{Threads: threads, Device: dev})
	if err != nil {
		return quietRanks(w, err)
	}
	defer sg.Close()
	game := sg.Game
	m, n := game.Dims()
	log.Info("loaded matrix", "source", src.String(), "m", m, "n", n, "ranks", w.Size(), "threads per rank", threads, "block on", device)

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
	log.Info("solving", "algorithm", j.method.Name(), "ranks", w.Size(), "device", sg.Backend.Name(), "threads per rank", threads, "target_relative_gap", s.RelGap)
	s.Clock = shard.Clock(w, c.Context)
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
		out.Device, out.Threads, out.Kernels = sg.Backend.Name(), threads, kernelsOf(sg.Backend)
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

// Message tags of a distributed batch: a rank asks rank 0 for work,
// sending the lines it finished; rank 0 deals an instance or says stop.
const (
	tagAsk  = 1
	tagDeal = 2
)

// mpiBatch is gpump batch over the ranks of w. Rank 0 lists the
// instances, reads --resume's results, and deals the instances one at a
// time to whichever rank asks, itself included (its workers take them from
// the same queue); a rank asks when one of its --jobs workers is free,
// sending the lines of what it finished, and rank 0 alone appends every
// line to --output as a single-process batch does. So a rank that dies
// leaves --output with whole lines, and --resume, on any number of ranks,
// goes on from them. Lines are in the order they reach rank 0, which
// varies from run to run; each names its instance.
func mpiBatch(c *cli.Context, o *batchOptions, w *mpi.World) error {
	if err := shard.Agree(w, commandSetup(c)); err != nil {
		return quietRanks(w, fmt.Errorf("the ranks were started with different command lines: %w", err))
	}
	var err error
	switch path := o.output; {
	case path == "" || path == "-":
		err = errors.New("a batch over MPI ranks writes one file: give --output FILE")
	case o.strategies != "":
		err = errors.New("--strategies is written by one process: run the batch without mpirun, or as an array with --shard")
	}
	if err = shard.Fail(w, err); err != nil {
		return quietRanks(w, err)
	}
	batchWorld = w
	if w.Rank() != 0 {
		o.quiet = true // rank 0 logs and tells the whole batch
	}
	berr := batchAction(c, o)
	// The ranks' outcomes: an error (rank 0 says the first, for the job),
	// else each an exit status, the worst of which the job returns.
	var st exitStatus
	code, real := 0.0, berr
	if errors.As(berr, &st) {
		code, real = float64(st), nil
	}
	if err := shard.Fail(w, real); err != nil {
		return quietRanks(w, fmt.Errorf("%w (--output %s holds the lines finished; --resume continues the batch)", err, o.output))
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
	if worst != 0 {
		return exitStatus(worst)
	}
	return nil
}

// joinRanks is where the ranks of a distributed batch meet after its
// setup: every rank's err (nil for none), the first of which every rank
// returns.
func joinRanks(err error) error { return shard.Fail(batchWorld, err) }

// shareBatch ends the setup of a distributed batch: the ranks agree that
// they listed the same instances (they deal them by position) and rank 0
// gives every rank the results --resume found (done), by which a rank
// skips the finished games of a file of many.
func shareBatch(insts []*instance, done map[string]int) (map[string]int, error) {
	w := batchWorld
	if err := joinRanks(nil); err != nil {
		return nil, err
	}
	names := make([]string, len(insts))
	for k, in := range insts {
		names[k] = in.Name
	}
	if err := shard.Agree(w, strings.Join(names, "\n")); err != nil {
		return nil, joinRanks(fmt.Errorf("the ranks listed different instances (a file system that differs between nodes?): %w", err))
	}
	var b []byte
	if w.Rank() == 0 {
		b, _ = json.Marshal(done)
	}
	n := binary.LittleEndian.AppendUint64(nil, uint64(len(b)))
	w.Bcast(n, 0)
	if w.Rank() != 0 {
		b = make([]byte, binary.LittleEndian.Uint64(n))
	}
	w.Bcast(b, 0)
	if err := json.Unmarshal(b, &done); err != nil {
		return nil, joinRanks(fmt.Errorf("the results to resume from rank 0: %w", err))
	}
	return done, joinRanks(nil)
}

// rankLines holds the lines a rank finished until it next asks rank 0
// for work.
type rankLines struct {
	mu sync.Mutex
	b  []byte
}

func (p *rankLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.b = append(p.b, b...)
	return len(b), nil
}

// take returns the lines held and forgets them.
func (p *rankLines) take() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.b
	p.b = nil
	return b
}

// askRank0 returns the next function of a rank's workers: it sends rank 0
// the lines finished so far and returns the instance rank 0 deals, false
// when none is left. One worker asks at a time.
func askRank0(insts []*instance, lines *rankLines) func() (*instance, bool) {
	var mu sync.Mutex
	listed := byIndex(insts)
	return func() (*instance, bool) {
		mu.Lock()
		defer mu.Unlock()
		batchWorld.Send(lines.take(), 0, tagAsk)
		b, _ := batchWorld.Recv(tagDeal)
		return dealt(listed, b)
	}
}

// byIndex maps each instance's Index to it: what rank 0 deals names.
func byIndex(insts []*instance) map[int]*instance {
	m := make(map[int]*instance, len(insts))
	for _, in := range insts {
		m[in.Index] = in
	}
	return m
}

// dealRanks is rank 0's dealer: it answers every other rank's asks, until
// each of their workers (workers a rank) was told to stop, passing the
// lines they carry to emitted and dealing the instances of work, which
// rank 0's own workers also take.
func dealRanks(work <-chan *instance, insts []*instance, workers int, emitted func(*games.Line, []byte)) {
	for left := (batchWorld.Size() - 1) * workers; left > 0; {
		b, from := batchWorld.Recv(tagAsk)
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n') + 1
			if i == 0 {
				i = len(b)
			}
			line := b[:i]
			b = b[i:]
			l, err := games.ParseLine(line)
			if err != nil { // a rank's own marshalling: cannot happen
				l = &games.Line{Status: "error", Error: fmt.Sprintf("rank %d sent a line that is not a result: %v", from, err)}
				line, _ = marshalLine(l)
			}
			emitted(l, line)
		}
		in, ok := <-work
		if !ok {
			left--
		}
		batchWorld.Send(deal(in, ok), from, tagDeal)
	}
}

// deal encodes instance in for a rank: its position in the listing, then,
// for a group of files, the positions of the members still to solve
// (--resume may have taken some); nothing when ok is false (stop).
func deal(in *instance, ok bool) []byte {
	if !ok {
		return nil
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(in.Index))
	for _, m := range in.Members {
		b = binary.LittleEndian.AppendUint64(b, uint64(m.Index))
	}
	return b
}

// dealt decodes what deal encoded, against this rank's listing (byIndex).
func dealt(listed map[int]*instance, b []byte) (*instance, bool) {
	if len(b) < 8 {
		return nil, false
	}
	k := int(binary.LittleEndian.Uint64(b))
	in, ok := listed[k]
	if !ok {
		panic(fmt.Sprintf("gpump: rank 0 dealt instance %d, which this rank did not list", k))
	}
	if in.Members == nil {
		return in, true
	}
	keep := map[int]bool{}
	for b = b[8:]; len(b) >= 8; b = b[8:] {
		keep[int(binary.LittleEndian.Uint64(b))] = true
	}
	g := *in
	g.Members = slices.DeleteFunc(slices.Clone(in.Members), func(m *instance) bool { return !keep[m.Index] })
	return &g, true
}
