package games

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Game is a payoff matrix read (or generated) and ready to solve, with
// what its report says of where it came from.
type Game struct {
	// A is the stored matrix: the file's times 2^Exp (see
	// solver.MatrixGame.SetStorageExponent), float64 or float32.
	A   *tensor.Dense
	Exp int
	// Source names the file or the generator in the report and in errors;
	// Format is the file's format, "" for a generator.
	Source, Format string
	// Rounding is the relative rounding of the storage: the report's
	// rounding_bound is Rounding times the largest entry (2⁻²⁴ for a
	// matrix defined in float64 and stored in float32, else 0).
	Rounding float64
	// KnownValue is the game's value when its generator knows it.
	KnownValue *float64
	// Changed, when not nil, is closed when the memory-mapped file under A
	// is about to change: the solve stops (Guard) and Solve returns its
	// best point with an *InputChangedError.
	Changed <-chan struct{}
}

// Options are how Solve solves a Game. Nil Options solve with the solver's
// defaults (zero Settings, the default Method) on a CPU backend of its own.
type Options struct {
	Settings solver.Settings // with Init and Recorder, when wanted
	Method   solver.Method   // nil: solver.Solve's default
	// Sampled, when not nil, gives the sampled oracle's settings (its
	// Game is set by Solve); nil is the exact operator.
	Sampled *solver.SampledGame
	// Backend is where the game is placed; nil: a CPU backend of
	// GOMAXPROCS threads for the solve alone.
	Backend tensorops.Backend
}

// Solve solves g and reports it in the payoff file's units: every field of
// the Report but Threads and LoadSeconds (the caller's), and the
// strategies (in the Result). A solve stopped by ctx returns its best
// point with status canceled, not an error. Two errors still come with a
// report and a result, both of the best point certified before them: an
// *InputChangedError (g.Changed closed) and solver.ErrMatrixFault (the
// mapped file faulted).
func Solve(ctx context.Context, g *Game, opt *Options) (*Report, *solver.Result, error) {
	if opt == nil {
		opt = &Options{}
	}
	ctx, stopGuard := Guard(ctx, g.Changed)
	defer stopGuard()
	game, err := solver.NewMatrixGame(g.A)
	if err != nil {
		return nil, nil, err
	}
	if err := game.SetStorageExponent(g.Exp); err != nil {
		return nil, nil, err
	}
	be := opt.Backend
	if be == nil {
		cpu := tensorops.NewCPU(runtime.GOMAXPROCS(0))
		defer cpu.Close()
		be = cpu
	}
	if err := game.Place(be); err != nil {
		return nil, nil, err
	}
	defer game.Close()
	var problem solver.Problem = game
	if opt.Sampled != nil {
		sg := *opt.Sampled
		sg.Game = game
		problem = &sg
	}
	s := opt.Settings
	res, err := solver.Solve(ctx, problem, &s, opt.Method)
	if err != nil && (res == nil || !errors.Is(err, solver.ErrMatrixFault)) {
		return nil, nil, err
	}
	fault := err
	m, n := g.A.Shape()[0], g.A.Shape()[1]
	out := NewReport(res, &s)
	out.KnownValue, out.Source, out.Format, out.M, out.N = g.KnownValue, g.Source, g.Format, m, n
	out.Precision, out.MaxAbsEntry, out.RoundingBound = "f64", game.MaxAbs(), g.Rounding*game.MaxAbs()
	if g.A.Dtype() == tensor.Float32 {
		out.Precision = "f32"
	}
	out.Device, out.Kernels = be.Name(), be.Name()
	if k, ok := be.(interface{ Kernels() string }); ok {
		out.Kernels = k.Kernels()
	}
	out.SetMethod(opt.Method, opt.Sampled)
	if fault != nil {
		return out, res, fmt.Errorf("%s: %w", g.Source, fault)
	}
	return out, res, Changed(ctx, g.Source)
}

func runtimeThreads() int { return runtime.GOMAXPROCS(0) }

// cpuKernels names the CPU kernels in use.
var cpuKernels = sync.OnceValue(func() string {
	c := tensorops.NewCPU(1)
	defer c.Close()
	return c.Kernels()
})

// SetMethod fills in what the report says of how the game was solved
// beyond the result: the sampled oracle and its batch (sampled nil: the
// exact operator) and a mirror-prox method's setup.
func (r *Report) SetMethod(m solver.Method, sampled *solver.SampledGame) {
	if sampled != nil {
		r.Oracle, r.Batch = "sampled", sampled.Batch
		if r.Batch == 0 {
			r.Batch = solver.DefaultBatch
		}
	}
	if mp, ok := m.(*solver.MirrorProx); ok {
		r.Setup = mp.Setup.String()
	}
}
