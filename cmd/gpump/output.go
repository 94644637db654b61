package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/internal/gapplot"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/solver"
)

// outputs are the files of --output, --strategies, --trace and --plot,
// shared by every kind of solve. They are checked before the work (against
// the inputs and each other, and that they can be written), so that a bad
// path fails at once instead of after hours; each is created only when its
// content is ready (the trace when the solve starts) and appears complete
// or not at all.
type outputs struct {
	result     string // --output; "" for standard output
	human      bool   // a summary on standard output, a terminal
	strategies string
	trace      *traceRecorder
	plot       *gapplot.Recorder
	prog       solver.Recorder // the progress bar or log lines, or nil
}

// outputOptions are the flags of a solve's results: where they go, and
// the log lines on stderr.
type outputOptions struct {
	logOptions
	output, strategies, trace, plot string
	traceEvery                      int
	json                            bool
}

// outputFlags say where the results of gpump solve go.
func outputFlags(o *outputOptions) []cli.Flag {
	f := []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.output, Usage: "write the JSON result to this file, atomically (- for standard output)", DefaultText: "a summary on a terminal, else JSON, on standard output"},
		&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "write the JSON result to standard output even when it is a terminal"},
		&cli.StringFlag{Name: "strategies", Destination: &o.strategies, Usage: "write the strategies to this .npz file (members row and column, float64) instead of into the JSON"},
		&cli.StringFlag{Name: "trace", Destination: &o.trace, Usage: "write a CSV trace of the iterations to this file"},
		&cli.IntFlag{Name: "trace-every", Destination: &o.traceEvery, Value: 1, Usage: "trace every K-th iteration (and the last)"},
		&cli.StringFlag{Name: "plot", Destination: &o.plot, Usage: "plot the gap against operator evaluations (log-log) to this .png or .svg file"},
	}
	return append(f, logFlags(&o.logOptions, "no progress bar and no log lines on stderr (errors are still printed)", true)...)
}

// planOutputs checks the outputs opt asks for; stdout is the command's
// standard output and inputs the files it reads. prog, when not nil,
// shows the progress; recorder includes it.
func planOutputs(ctx context.Context, stdout io.Writer, opt *outputOptions, prog solver.Recorder, inputs fileList) (*outputs, error) {
	if opt.traceEvery < 1 {
		return nil, fmt.Errorf("--trace-every must be at least 1, got %d", opt.traceEvery)
	}
	o := &outputs{prog: prog, result: opt.output, strategies: opt.strategies}
	// JSON for programs, a summary for people: on a terminal, unless
	// --json or -o - asks for the JSON there.
	o.human = isTerminal(stdout) && !opt.json && o.result != "-"
	if o.result == "-" {
		o.result = ""
	}
	if o.strategies != "" && !strings.EqualFold(filepath.Ext(o.strategies), ".npz") {
		return nil, fmt.Errorf("--strategies writes an .npz file, not %q", o.strategies)
	}
	plot := opt.plot
	if ext := strings.ToLower(filepath.Ext(plot)); plot != "" && ext != ".png" && ext != ".svg" {
		return nil, fmt.Errorf("--plot draws a .png or .svg file, not %q", plot)
	}
	files := inputs
	files.add("--output", o.result, false)
	if o.result == "" {
		files.addWriter("standard output", stdout)
	}
	files.add("--strategies", o.strategies, false)
	files.add("--trace", opt.trace, false)
	files.add("--plot", plot, false)
	if err := files.check(); err != nil {
		return nil, err
	}
	for _, f := range files[len(inputs):] {
		if f.what == "standard output" {
			continue
		}
		if err := atomicfile.Check(f.path); err != nil {
			return nil, outputErr(f.what, err)
		}
	}
	if opt.trace != "" {
		o.trace = newTrace(ctx, opt.trace, opt.traceEvery)
	}
	if plot != "" {
		o.plot = &gapplot.Recorder{Path: plot}
	}
	return o, nil
}

// withForce gives a command that writes files (one with --output) the
// flag --force, which lets it replace an output file that is read-only or
// owned by another user: without it such a file is refused (see package
// atomicfile), whatever the process's privileges, root's included, since
// a mode or an owner says "keep this". The replacement keeps the file's
// mode (and, for root, its owner).
func withForce(cmd *cli.Command) {
	has := false
	for _, f := range cmd.Flags {
		has = has || slices.Contains(f.Names(), "output")
	}
	if !has {
		return
	}
	var force bool
	cmd.Flags = append(cmd.Flags, &cli.BoolFlag{Name: "force", Destination: &force, Usage: "replace output files that are read-only or another user's (their mode and owner are kept)"})
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		atomicfile.SetReplaceProtected(force)
		return action(c)
	}
}

// outputErr names the output (a flag) in an error of the atomic writer.
func outputErr(what string, err error) error {
	var ae *atomicfile.Error
	if errors.As(err, &ae) {
		if errors.Is(err, atomicfile.ErrProtected) {
			return fmt.Errorf("%s %s: the file is read-only or another user's: not replaced (--force replaces it, keeping its mode)", what, ae.Path)
		}
		if ae.Err != nil {
			return fmt.Errorf("%s %s: %s: %w", what, ae.Path, ae.Msg, ae.Err)
		}
		return fmt.Errorf("%s %s: %s", what, ae.Path, ae.Msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// writeFile writes the output named what at path through write: the file
// is created now, as late as possible, and committed only when complete,
// so that a failure leaves what was at path as it was.
func writeFile(what, path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return outputErr(what, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		f.Abort()
		var pe *fs.PathError // names the temporary file
		if errors.As(err, &pe) {
			return fmt.Errorf("%s %s: writing: %w", what, path, pe.Err)
		}
		return outputErr(what, err)
	}
	return nil
}

// joinErrors joins errs, nils dropped, into one error of one line, for
// main to print once.
func joinErrors(errs ...error) error {
	var msgs []string
	var kept []any
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, "%w")
			kept = append(kept, err)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return fmt.Errorf(strings.Join(msgs, "; "), kept...)
}

// recorder returns the recorders of the trace, the plot and the progress
// bar, or nil.
func (o *outputs) recorder() solver.Recorder {
	var recs []solver.Recorder
	if o.trace != nil {
		recs = append(recs, o.trace)
	}
	if o.plot != nil {
		recs = append(recs, o.plot)
	}
	if o.prog != nil {
		recs = append(recs, o.prog)
	}
	return solver.Recorders(recs...)
}

// abort removes the trace's temporary file if the solve did not finish; it
// can be deferred.
func (o *outputs) abort() {
	if o.trace != nil {
		o.trace.abort()
	}
}

// finish writes the trace and the plot (titled title), then the JSON
// result v to --output or standard output. The result is written whatever
// happened to the other outputs: their failures, with those in failed, are
// returned after it, joined, for exit status 1.
func (o *outputs) finish(c *cli.Context, log *slog.Logger, title string, v any, failed ...error) error {
	if o.trace != nil {
		if err := o.trace.finish(); err != nil {
			failed = append(failed, err)
		} else {
			log.Info("wrote trace", "file", o.trace.path, "rows", o.trace.rows)
		}
	}
	if o.plot != nil {
		if err := writeFile("--plot", o.plot.Path, func(w io.Writer) error { return o.plot.Draw(w, title) }); err != nil {
			failed = append(failed, err)
		} else {
			log.Info("wrote plot", "file", o.plot.Path)
		}
	}
	if o.result == "" {
		write := writeJSON
		if o.human {
			write = func(w io.Writer, v any) error { return writeSummary(w, v, "") }
		}
		if err := write(c.App.Writer, v); err != nil {
			return fmt.Errorf("writing the result: %w", err)
		}
		return joinErrors(failed...)
	}
	if err := writeFile("--output", o.result, func(w io.Writer) error { return writeJSON(w, v) }); err != nil {
		return joinErrors(append([]error{err}, failed...)...)
	}
	log.Info("wrote result", "file", o.result)
	if o.human {
		writeSummary(c.App.Writer, v, o.result)
	}
	return joinErrors(failed...)
}

// writeStrategies puts res's strategies in out, or writes them to
// --strategies and names the file in out instead; it returns the error of
// that file, which leaves them in out.
func (o *outputs) writeStrategies(out *games.Report, res *solver.Result, log *slog.Logger) error {
	out.RowStrategy, out.ColumnStrategy = res.Row, res.Column
	if o.strategies == "" {
		return nil
	}
	if err := writeFile("--strategies", o.strategies, func(w io.Writer) error { return writeStrategies(w, res) }); err != nil {
		return err
	}
	out.Strategies = o.strategies
	out.RowStrategy, out.ColumnStrategy = nil, nil
	log.Info("wrote strategies", "file", o.strategies)
	return nil
}
