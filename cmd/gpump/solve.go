package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/gpump/gpump/games"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/internal/progress"
	"github.com/gpump/gpump/solver"
)

// solveOptions are gpump solve's flags but the outputs' (planOutputs).
type solveOptions struct {
	*jobOptions
	outputOptions
	problem string // --problem
	size    int    // --size of a problem
}

func solveCommand() *cli.Command {
	o := &solveOptions{jobOptions: newJobOptions()}
	flags := append(inputFlags(o.jobOptions), genFlags(&o.gen, &o.g)...)
	flags = append(flags, problemFlags(o)...)
	flags = append(flags, solverFlags(o.jobOptions)...)
	flags = append(flags, outputFlags(&o.outputOptions)...)
	return &cli.Command{
		Name:      "solve",
		Usage:     "approximate an equilibrium of the game with a payoff matrix",
		ArgsUsage: "[PAYOFF.npy|.npz|.csv|.mtx]",
		Description: `The row player maximizes p'Aq, the column player minimizes it. The result
is a JSON object with the strategies, the certified duality gap and the value
bracket value_lower <= v* <= value_upper, written to --output, or to stdout:
there, on a terminal, a short summary instead (--json for the JSON).
Progress goes to stderr: a progress bar when it is a terminal, else a log
line every few seconds, and log lines (--quiet for none, --log-format json
for JSON; a terminal shows only notes, warnings and errors unless
--verbose).

Exit status: 0 when the gap target was reached, 1 on an error, 2 when a limit
stopped the solve first, 3 when interrupted (the result is still written).

Examples:
   gpump solve --gen uniform --m 2000 --n 2000 --seed 1
   gpump solve --gen police:n=400,layout=grid --algo rm+ --eps 1e-5
   gpump solve payoff.npy --algo ga-bounded --eps 1e-4 --output result.json
   gpump solve games.npz --key a --precision f32 --threads 2 --trace trace.csv --plot gap.svg
   gpump solve big.npy --mmap --strategies strategies.npz --quiet -o result.json
   gpump solve --problem lad-lasso --algo ga-bounded --eps 1e-2 --plot gap.svg
   gpump solve --gen uniform:m=20000,n=20000 --oracle sampled --batch 256 --eps 1e-2`,
		Flags: flags,
		Action: func(c *cli.Context) error {
			o.bind(c)
			return solveAction(c, o)
		},
	}
}

func solveAction(c *cli.Context, o *solveOptions) error {
	prog, log, err := o.progressLogger(c.App.ErrWriter)
	if err != nil {
		return err
	}
	defer prog.Clear()
	// Without a terminal for the bar, a log line every few seconds.
	var shown solver.Recorder = progress.NewLog(log)
	if prog != nil {
		shown = prog
	} else if o.quiet {
		shown = nil
	}
	if w, err := distributedWorld(); err != nil { // mpi.go
		return err
	} else if w != nil {
		return mpiSolve(c, o, w, log, shown)
	}
	if o.problem != "" {
		return problemAction(c, o, log, shown)
	}
	j, err := newJob(o.jobOptions, c.Args().Slice(), nil)
	if err != nil {
		return err
	}
	defer j.close()
	if batchedKind(j) == "stack" {
		return fmt.Errorf("%s holds a batch of games (a 3-D array): gpump batch %s solves them, a line per game", j.path, j.path)
	}
	// Check every output before the solve: a bad path, or one that would
	// overwrite an input, fails now, not after hours of work.
	outs, err := planOutputs(c.Context, c.App.Writer, &o.outputOptions, shown, j.inputs())
	if err != nil {
		return err
	}
	defer outs.abort()

	out, res, err := j.run(c.Context, outs.recorder(), log)
	// Two errors still have a result to write: the mapped payoff file
	// changed (the best point, certified before the change) or faulted
	// (the best point, with its certificate from before the fault).
	var changed error
	var ic *games.InputChangedError
	if err != nil {
		if !errors.As(err, &ic) && !errors.Is(err, solver.ErrMatrixFault) || out == nil {
			return err
		}
		changed = err
	}
	_, err = interruptible(nextInterrupt(c.Context), "writing the results", func() (any, error) {
		return nil, outs.finish(c, log, out.Source, out, outs.writeStrategies(out, res, log))
	})
	if err != nil {
		return err
	}
	if changed != nil {
		return changed
	}
	return statusError(res.Status)
}

// statusError is the exit status of a finished solve, as an error.
func statusError(st solver.Status) error {
	switch st {
	case solver.Converged:
		return nil
	case solver.Canceled:
		return exitStatus(exitCanceled)
	default:
		return exitStatus(exitLimit)
	}
}

// writeStrategies writes the strategies of res to w as an .npz archive
// with the members row and column (float64 vectors).
func writeStrategies(w io.Writer, res *solver.Result) error {
	vec := func(x []float64) *tensor.Dense {
		return tensor.New(tensor.WithShape(len(x)), tensor.WithBacking(x))
	}
	return datasets.EncodeNPZ(w, []datasets.Array{{Name: "row", T: vec(res.Row)}, {Name: "column", T: vec(res.Column)}}, nil)
}

// parsePrecision parses a --precision value: f64, f32, or with auto
// allowed "auto", which gives the zero Dtype (the input's own type).
func parsePrecision(p string, auto bool) (tensor.Dtype, error) {
	switch {
	case p == "f64":
		return tensor.Float64, nil
	case p == "f32":
		return tensor.Float32, nil
	case p == "auto" && auto:
		return tensor.Dtype{}, nil
	case auto:
		return tensor.Dtype{}, fmt.Errorf("unknown precision %q (want auto, f64 or f32)", p)
	}
	return tensor.Dtype{}, fmt.Errorf("unknown precision %q (want f64 or f32)", p)
}

// precisionName is the --precision name of a matrix's dtype.
func precisionName(dt tensor.Dtype) string {
	if dt == tensor.Float32 {
		return "f32"
	}
	return "f64"
}

// writeJSON writes v to w as indented JSON, leaving '<', '>' and '&' (in
// dtypes and messages) as they are.
func writeJSON(w io.Writer, v any) error {
	b, err := games.Marshal(v, true) // non-finite numbers as null (finite.go)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// problemAction is gpump solve --problem: a built-in problem of one of the
// paper's settings, solved in Go, with the same outputs as a game except
// the strategies (the point is in the JSON as "solution").
func problemAction(c *cli.Context, o *solveOptions, log *slog.Logger, prog solver.Recorder) error {
	if err := checkProblemFlags(o, c.Args().Slice()); err != nil {
		return err
	}
	j := &job{}
	if err := j.configure(o.jobOptions); err != nil {
		return err
	}
	outs, err := planOutputs(c.Context, c.App.Writer, &o.outputOptions, prog, nil)
	if err != nil {
		return err
	}
	defer outs.abort()
	out, st, err := runProblem(c.Context, o, j, outs.recorder(), log)
	if err != nil {
		return err
	}
	_, err = interruptible(nextInterrupt(c.Context), "writing the results", func() (any, error) {
		return nil, outs.finish(c, log, out.Problem, out)
	})
	if err != nil {
		return err
	}
	return statusError(st)
}
