package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gpump/gpump/solver"
)

// newLogger returns the logger of --log-format writing to w, or one that
// drops everything with --quiet. Flags that a command lacks read as their
// zero values, which mean text logs.
func newLogger(c flagGetter, w io.Writer) (*slog.Logger, error) {
	if c.Bool("quiet") {
		return slog.New(slog.DiscardHandler), nil
	}
	switch f := c.String("log-format"); f {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	default:
		return nil, fmt.Errorf("unknown --log-format %q (want text or json)", f)
	}
}

// logWriter returns w, or with a progress bar a writer that erases the
// bar's line before each log line.
func logWriter(w io.Writer, p *progress) io.Writer {
	if p == nil {
		return w
	}
	return clearingWriter{w, p}
}

type clearingWriter struct {
	w io.Writer
	p *progress
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.p.clear()
	return c.w.Write(b)
}

// isTerminal reports whether w is a terminal: the progress bar is drawn
// only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressEvery is the least time between two redraws of the progress bar.
const progressEvery = 100 * time.Millisecond

// progress draws a one-line progress bar: iteration, gap against its
// target, iterations per second, and the time left, estimated from the
// limits and from the recent rate of decrease of the gap.
type progress struct {
	w    io.Writer
	s    *solver.Settings
	last time.Time
	line strings.Builder
	// The gap at iteration mark, about half the current iteration, gives
	// the exponent of its recent decrease: gap ∝ t^-slope.
	mark    int
	markGap float64
	drawn   bool
	width   int // of the terminal: a longer line would wrap and scroll
}

var _ solver.Recorder = (*progress)(nil)

// newProgress draws on w, a terminal, within its width.
func newProgress(w io.Writer) *progress {
	p := &progress{w: w, width: 80}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			p.width = cols
		}
	}
	return p
}

// Init implements solver.Recorder.
func (p *progress) Init(info *solver.Info) error {
	p.s = info.Settings
	return nil
}

// Record implements solver.Recorder.
func (p *progress) Record(r *solver.Record) error {
	if r.Iteration >= 2*p.mark && r.RelGap > 0 && !math.IsInf(r.RelGap, 0) {
		p.mark, p.markGap = max(r.Iteration, 1), r.RelGap
	}
	now := time.Now()
	if now.Sub(p.last) < progressEvery {
		return nil
	}
	p.last = now
	p.draw(r)
	return nil
}

func (p *progress) draw(r *solver.Record) {
	b := &p.line
	b.Reset()
	b.WriteString("\r")
	fmt.Fprintf(b, "iter %d  evals %d  rel gap %.3g", r.Iteration, r.Evaluations, r.RelGap)
	if p.s != nil && p.s.RelGap > 0 {
		fmt.Fprintf(b, " (target %.3g)", p.s.RelGap)
	}
	secs := r.Elapsed.Seconds()
	if secs > 0 && r.Iteration > 0 {
		fmt.Fprintf(b, "  %.4g it/s", float64(r.Iteration)/secs)
	}
	// The share of the nearest limit used so far.
	frac := 0.0
	if p.s != nil {
		if p.s.MaxIterations > 0 {
			frac = max(frac, float64(r.Iteration)/float64(p.s.MaxIterations))
		}
		if p.s.MaxEvaluations > 0 {
			frac = max(frac, float64(r.Evaluations)/float64(p.s.MaxEvaluations))
		}
		if p.s.TimeLimit > 0 {
			frac = max(frac, secs/p.s.TimeLimit.Seconds())
		}
	}
	left := math.Inf(1)
	if frac > 0 {
		left = secs * (1 - frac) / frac
	}
	// Extrapolate gap ∝ t^-slope to the target.
	if p.s != nil && p.s.RelGap > 0 && r.Iteration > p.mark && p.mark > 0 && r.RelGap > p.s.RelGap {
		slope := math.Log(p.markGap/r.RelGap) / math.Log(float64(r.Iteration)/float64(p.mark))
		if slope > 0.05 {
			iters := float64(r.Iteration) * math.Pow(r.RelGap/p.s.RelGap, 1/slope)
			left = min(left, secs*(iters/float64(r.Iteration)-1))
		}
	}
	const width = 20
	bar := int(frac * width)
	bar = min(max(bar, 0), width)
	fmt.Fprintf(b, "  [%s%s]", strings.Repeat("=", bar), strings.Repeat(" ", width-bar))
	if !math.IsInf(left, 0) && left >= 0 {
		fmt.Fprintf(b, " ~%s left", (time.Duration(left * 1e9)).Round(time.Second))
	}
	line := b.String()
	if len(line) > p.width { // "\r" plus width-1 columns (the line is ASCII)
		line = line[:p.width]
	}
	io.WriteString(p.w, line+"\x1b[K")
	p.drawn = true
}

// clear erases the progress line, so that what follows starts clean.
func (p *progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
