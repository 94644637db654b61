package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/solver"
)

// outputs are the files of --output, --trace and --plot, shared by every
// kind of solve. They are opened before the work, so that a bad path fails
// at once instead of after hours, and each appears complete or not at all.
type outputs struct {
	result *atomicfile.File
	trace  *traceRecorder
	plot   *plotRecorder
	prog   *progress
}

// openOutputs opens the outputs the flags ask for. prog, when not nil, is
// the progress bar; recorder includes it.
func openOutputs(c *cli.Context, prog *progress) (*outputs, error) {
	if c.Int("trace-every") < 1 {
		return nil, fmt.Errorf("--trace-every must be at least 1, got %d", c.Int("trace-every"))
	}
	o := &outputs{prog: prog}
	var err error
	if path := c.String("output"); path != "" {
		if o.result, err = atomicfile.Create(path); err != nil {
			return nil, fmt.Errorf("--output: %w", err)
		}
	}
	if path := c.String("trace"); path != "" {
		if o.trace, err = newTrace(path, c.Int("trace-every")); err != nil {
			o.abort()
			return nil, err
		}
	}
	if path := c.String("plot"); path != "" {
		if o.plot, err = newPlot(path); err != nil {
			o.abort()
			return nil, err
		}
	}
	return o, nil
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

// abort removes every output not committed; it can be deferred.
func (o *outputs) abort() {
	o.result.Abort()
	if o.trace != nil {
		o.trace.abort()
	}
	if o.plot != nil {
		o.plot.abort()
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
		if err := o.plot.save(title); err != nil {
			failed = append(failed, err)
		} else {
			log.Info("wrote plot", "file", o.plot.path)
		}
	}
	w := c.App.Writer
	if o.result != nil {
		w = o.result
	}
	if err := writeJSON(w, v); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	if o.result != nil {
		if err := o.result.Commit(); err != nil {
			return fmt.Errorf("writing the result: %w", err)
		}
		log.Info("wrote result", "file", c.String("output"))
	}
	return errors.Join(failed...)
}
