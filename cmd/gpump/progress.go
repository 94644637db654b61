package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/gpump/gpump/internal/progress"
)

// logOptions are a command's flags for its lines on stderr.
type logOptions struct {
	quiet, verbose bool
	format         string // --log-format; "" (a command without it) means text
}

// logFlags bind --quiet (described by quietUsage), --log-format when the
// command has it, and --verbose.
func logFlags(o *logOptions, quietUsage string, format bool) []cli.Flag {
	f := []cli.Flag{&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: quietUsage}}
	if format {
		f = append(f, &cli.StringFlag{Name: "log-format", Destination: &o.format, Value: "text", Usage: "log lines on stderr: text or json"})
	}
	return append(f, &cli.BoolFlag{Name: "verbose", Destination: &o.verbose, Usage: "log lines at INFO level on stderr even when it is a terminal (they always go to a log file or pipe)"})
}

// logger returns the logger of --log-format writing to w, or one that
// drops everything with --quiet. On a terminal it leaves out the INFO lines
// (the load, the start, the end, the files written: the summary says what
// matters of them) unless --verbose asks for them; it keeps the notes on
// how the input was read (levelNote), the warnings and the errors. Logs
// (stderr not a terminal) keep every line.
func (o *logOptions) logger(w io.Writer) (*slog.Logger, error) {
	if o.quiet && o.verbose {
		return nil, errors.New("--quiet and --verbose contradict each other: give one")
	}
	if o.quiet {
		return slog.New(slog.DiscardHandler), nil
	}
	// A note is written NOTE on a quiet terminal, which has no other INFO
	// line, and INFO in logs, as it always was.
	noteName := slog.LevelInfo.String()
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey && a.Value.Any() == levelNote {
			a.Value = slog.StringValue(noteName)
		}
		return a
	}}
	if o.quietTerminal(w) {
		opts.Level, noteName = levelNote, "NOTE"
	}
	switch o.format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("unknown --log-format %q (want text or json)", o.format)
	}
}

// levelNote is the level of the notes on how the input was read (a header
// row skipped, bool entries read as 0 and 1, files left out of a
// directory): between INFO and WARN, so that a terminal, which leaves out
// the INFO lines, still shows them (as NOTE); logs write them as INFO.
const levelNote = slog.LevelInfo + 2

// quietTerminal reports whether w, the standard error, is a terminal on
// which only notes, warnings and errors are shown: without --verbose or
// --quiet.
func (o *logOptions) quietTerminal(w io.Writer) bool {
	if cw, ok := w.(clearingWriter); ok {
		w = cw.w
	}
	return !o.verbose && !o.quiet && isTerminal(w)
}

// progressLogger returns a command's progress bar, drawn on stderr when
// that is a terminal and --quiet is unset (else nil), and its logger,
// whose lines erase the bar before they are written. The caller clears
// the bar when done; Clear does nothing on nil.
func (o *logOptions) progressLogger(stderr io.Writer) (*progress.Bar, *slog.Logger, error) {
	var prog *progress.Bar
	if !o.quiet && isTerminal(stderr) {
		prog = progress.New(stderr)
	}
	log, err := o.logger(logWriter(stderr, prog))
	if err != nil {
		return nil, nil, err
	}
	return prog, log, nil
}

// logWriter returns w, or with a progress bar a writer that erases the
// bar's line before each log line.
func logWriter(w io.Writer, p *progress.Bar) io.Writer {
	if p == nil {
		return w
	}
	return clearingWriter{w, p}
}

type clearingWriter struct {
	w io.Writer
	p *progress.Bar
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.p.Clear()
	return c.w.Write(b)
}

// isTerminal reports whether w is a terminal: the progress bar is drawn
// only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
