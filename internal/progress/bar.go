// Package progress draws a solve's progress on a terminal: one line,
// redrawn in place at most every tenth of a second, with the iteration,
// the gap against its target, the rate, and the time left estimated from
// the limits and from the recent decay of the gap. A Bar is a
// solver.Recorder.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gpump/gpump/solver"
)

// Every is the least time between two redraws of a new Bar.
const Every = 100 * time.Millisecond

// Bar draws a one-line Bar bar: iteration, gap against its
// target, iterations per second, and the time left, estimated from the
// limits and from the recent rate of decrease of the gap. The line is
// fitted to the terminal's width: the bar shrinks, then the least useful
// parts go. It keeps one layout between redraws: each part is padded to
// the widest it has been (numbers right-aligned), so that the bar keeps
// its width and place, until the terminal's width changes.
type Bar struct {
	w     io.Writer
	s     *solver.Settings
	last  time.Time
	est   estimator
	drawn bool
	// Width is the terminal's width: a longer line would wrap and scroll.
	Width func() int
	// Unit names what is counted: "iter" (a solver's iterations), or
	// "round" (gpump gan's rounds, shown out of the limit).
	Unit string
	// Every is the least time between two redraws.
	Every time.Duration
	// The layout of the last line: the terminal's width, each part's
	// width and the bar's.
	cols int
	pads []int
	bar  int
}

var _ solver.Recorder = (*Bar)(nil)

// New returns a Bar that draws on w, a terminal, within its width.
func New(w io.Writer) *Bar {
	p := &Bar{w: w, Width: func() int { return 80 }, Unit: "iter", Every: Every}
	if f, ok := w.(*os.File); ok {
		p.Width = func() int {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				return cols
			}
			return 80
		}
	}
	return p
}

// Init implements solver.Recorder.
func (p *Bar) Init(info *solver.Info) error {
	p.s = info.Settings
	p.cols = 0 // a new layout
	return nil
}

// Record implements solver.Recorder.
func (p *Bar) Record(r *solver.Record) error {
	p.est.observe(r)
	now := time.Now()
	if now.Sub(p.last) < p.Every {
		return nil
	}
	p.last = now
	io.WriteString(p.w, "\r"+p.line(r)+"\x1b[K")
	p.drawn = true
	return nil
}

// line returns the progress line of r in the layout of the last one.
func (p *Bar) line(r *solver.Record) string {
	w := p.Width() - 1
	parts := p.parts(r, w < 60)
	if w != p.cols || len(p.pads) != len(parts) {
		p.cols, p.bar = w, 0
		p.pads = p.reserve(parts, r)
	}
	for k, s := range parts {
		if strings.HasPrefix(s, barPart) {
			continue
		}
		p.pads[k] = max(p.pads[k], len(s))
		// Right-aligned numbers: the padding goes before the first
		// (the count, the gap, the evaluations) or before the part.
		at := 0
		if k <= 1 || k == 5 {
			if at = strings.IndexAny(s, "0123456789+-IN"); at < 0 {
				at = len(s)
			}
		}
		parts[k] = s[:at] + strings.Repeat(" ", p.pads[k]-len(s)) + s[at:]
	}
	line, bar := fitLayout(parts, w, p.bar)
	p.bar = bar
	return line
}

// reserve returns the least widths of the parts of a new layout, those
// of r: room for the counts up to their limits (or to a million), gaps
// such as 1.23e-05, the longest time left of an hour and five digits of
// rate, so that the bar rarely needs to shrink as they grow.
func (p *Bar) reserve(parts []string, r *solver.Record) []int {
	pads := make([]int, len(parts))
	if len(parts) != 6 {
		return pads
	}
	gap := fmt.Sprintf("%.3g", r.RelGap)
	pads[1] = len(parts[1]) - len(gap) + len("1.23e-05")
	digits := func(limit int) int {
		if limit <= 0 {
			limit = 999999
		}
		return len(strconv.Itoa(limit))
	}
	its, evals := 0, 0
	if p.s != nil {
		its, evals = p.s.MaxIterations, p.s.MaxEvaluations
	}
	pads[0] = len(p.Unit) + 1 + digits(its)
	if p.Unit == "round" {
		pads[0] += 1 + digits(its)
	}
	pads[3] = len("~59m59s left")
	pads[4] = len("12345 ") + len(p.rateUnit())
	pads[5] = len("evals ") + digits(evals)
	return pads
}

// rateUnit is the unit of the rate part.
func (p *Bar) rateUnit() string {
	if p.Unit == "round" {
		return "rounds/s"
	}
	return "it/s"
}

// barPart stands for the bar in a line's parts: it takes the room left.
const barPart = "\x00bar"

// parts returns the pieces of the Bar line, most useful first, and
// the bar's filled fraction after barPart; short ones for a narrow
// terminal. There are always six; one not known yet is empty.
func (p *Bar) parts(r *solver.Record, short bool) []string {
	target := ""
	if p.s != nil && p.s.RelGap > 0 {
		target = fmt.Sprintf(" (target %.3g)", p.s.RelGap)
		if short {
			target = fmt.Sprintf("/%.3g", p.s.RelGap)
		}
	}
	unit := p.Unit
	if unit == "" {
		unit = "iter"
	}
	count := fmt.Sprintf("%s %d", unit, r.Iteration)
	if unit == "round" && p.s != nil && p.s.MaxIterations > 0 {
		count += "/" + strconv.Itoa(p.s.MaxIterations)
	}
	parts := []string{
		count,
		fmt.Sprintf("rel gap %.3g", r.RelGap) + target,
	}
	frac, left := p.est.estimate(r, p.s)
	parts = append(parts, barPart+strconv.FormatFloat(frac, 'g', -1, 64))
	leftPart, rate := "", ""
	if !math.IsInf(left, 0) && left >= 0 {
		leftPart = fmt.Sprintf("~%s left", (time.Duration(left * 1e9)).Round(time.Second))
	}
	if secs := r.Elapsed.Seconds(); secs > 0 && r.Iteration > 0 {
		rate = fmt.Sprintf("%.4g %s", float64(r.Iteration)/secs, p.rateUnit())
	}
	evals := "evals"
	if unit == "round" {
		evals = "passes"
	}
	return append(parts, leftPart, rate, fmt.Sprintf("%s %d", evals, r.Evaluations))
}

// fitLine joins the parts with two spaces within width columns (the parts
// are ASCII): the bar, between 10 and 30 columns wide, takes the room the
// others leave, and parts are dropped from the end until the line fits;
// empty parts are left out. A line too narrow for even the first part is
// cut.
func fitLine(parts []string, width int) string {
	line, _ := fitLayout(parts, width, 0)
	return line
}

// fitLayout is fitLine with the bar bar columns wide when the line has
// room for it (0: as wide as the room allows); it returns the line and the
// bar's width.
func fitLayout(parts []string, width, bar int) (string, int) {
	const minBar, maxBar = 10, 30
	kept := parts[:0:0]
	for _, s := range parts {
		if s != "" {
			kept = append(kept, s)
		}
	}
	parts = kept
	for n := len(parts); n >= 1; n-- {
		used, frac := 2*(n-1), -1.0
		for _, s := range parts[:n] {
			if f, ok := strings.CutPrefix(s, barPart); ok {
				frac, _ = strconv.ParseFloat(f, 64)
				used += 2 // the brackets
				continue
			}
			used += len(s)
		}
		room := width - used
		if frac >= 0 && room < minBar || room < 0 {
			continue
		}
		w := min(room, maxBar)
		if bar >= minBar && bar <= room {
			w = bar
		}
		var b strings.Builder
		for k, s := range parts[:n] {
			if k > 0 {
				b.WriteString("  ")
			}
			if _, ok := strings.CutPrefix(s, barPart); ok {
				fill := min(max(int(frac*float64(w)), 0), w)
				b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", w-fill) + "]")
				continue
			}
			b.WriteString(s)
		}
		if frac < 0 {
			w = bar
		}
		return b.String(), w
	}
	return parts[0][:min(len(parts[0]), max(width, 0))], bar
}

// estimator estimates the share of the nearest limit used and the time
// left, from the limits and from the recent rate of decrease of the gap.
type estimator struct {
	// The gap at iteration mark, about half the current iteration, gives
	// the exponent of its recent decrease: gap ∝ t^-slope.
	mark    int
	markGap float64
}

func (e *estimator) observe(r *solver.Record) {
	if r.Iteration >= 2*e.mark && r.RelGap > 0 && !math.IsInf(r.RelGap, 0) {
		e.mark, e.markGap = max(r.Iteration, 1), r.RelGap
	}
}

// estimate returns the share of the nearest limit used so far and the
// seconds left (+Inf when unknown).
func (e *estimator) estimate(r *solver.Record, s *solver.Settings) (frac, left float64) {
	secs := r.Elapsed.Seconds()
	if s != nil {
		if s.MaxIterations > 0 {
			frac = max(frac, float64(r.Iteration)/float64(s.MaxIterations))
		}
		if s.MaxEvaluations > 0 {
			frac = max(frac, float64(r.Evaluations)/float64(s.MaxEvaluations))
		}
		if s.TimeLimit > 0 {
			frac = max(frac, secs/s.TimeLimit.Seconds())
		}
	}
	left = math.Inf(1)
	if frac > 0 {
		left = secs * (1 - frac) / frac
	}
	defer func() {
		// The bar shows the share of the time to whichever ends the
		// solve first: a limit or the target.
		if !math.IsInf(left, 0) && left >= 0 && secs > 0 {
			frac = max(frac, secs/(secs+left))
		}
	}()
	// Extrapolate gap ∝ t^-slope to the target.
	if s != nil && s.RelGap > 0 && r.Iteration > e.mark && e.mark > 0 && r.RelGap > s.RelGap {
		slope := math.Log(e.markGap/r.RelGap) / math.Log(float64(r.Iteration)/float64(e.mark))
		if slope > 0.05 {
			iters := float64(r.Iteration) * math.Pow(r.RelGap/s.RelGap, 1/slope)
			left = min(left, secs*(iters/float64(r.Iteration)-1))
		}
	}
	return frac, left
}

// Clear erases the Bar line, so that what follows starts clean.
func (p *Bar) Clear() {
	if p != nil && p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// LogEvery is the time between two progress log lines when stderr is not
// a terminal.
const LogEvery = 5 * time.Second

// A Log logs a line every LogEvery: where the solve is, for logs
// and CI, which have no progress bar.
type Log struct {
	log   *slog.Logger
	attrs []any
	s     *solver.Settings
	next  time.Duration
	est   estimator
}

var _ solver.Recorder = (*Log)(nil)

// NewLog returns a Log that logs to log, with attrs (the instance of a batch) first.
func NewLog(log *slog.Logger, attrs ...any) *Log {
	return &Log{log: log, attrs: attrs, next: LogEvery}
}

// Init implements solver.Recorder.
func (p *Log) Init(info *solver.Info) error {
	p.s, p.next = info.Settings, LogEvery
	return nil
}

// Record implements solver.Recorder.
func (p *Log) Record(r *solver.Record) error {
	p.est.observe(r)
	if r.Elapsed < p.next {
		return nil
	}
	p.next = r.Elapsed + LogEvery
	attrs := append(slices.Clip(p.attrs), "iteration", r.Iteration, "evaluations", r.Evaluations, "relative_gap", r.RelGap,
		"seconds", math.Round(r.Elapsed.Seconds()*1000)/1000)
	if _, left := p.est.estimate(r, p.s); !math.IsInf(left, 0) && left >= 0 {
		attrs = append(attrs, "seconds_left", math.Round(left))
	}
	p.log.Info("progress", attrs...)
	return nil
}
