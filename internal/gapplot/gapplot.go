// Package gapplot draws a solve's duality gaps against its operator
// evaluations on log-log axes (gpump solve --plot): a solver.Recorder that
// keeps log-spaced points, and Draw.
package gapplot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gpump/gpump/solver"
)

// plotStep is the smallest ratio between the evaluation counts of two kept
// points: a plot of a million iterations keeps a few thousand points,
// evenly spread on its logarithmic axis, whatever the run's length.
const plotStep = 1.002

// Recorder keeps log-spaced points of the gaps against operator
// evaluations and draws them on log-log axes.
type Recorder struct {
	Path          string // the file to be drawn: its extension is the format
	method        string
	best, avg, lt plotter.XYs
	lastEvals     float64
	final         solver.Record
}

var _ solver.Recorder = (*Recorder)(nil)

// Init implements solver.Recorder.
func (p *Recorder) Init(info *solver.Info) error {
	p.method = info.Method
	return nil
}

// Record implements solver.Recorder.
func (p *Recorder) Record(r *solver.Record) error {
	p.final = *r
	e := float64(max(r.Evaluations, 1))
	if len(p.best) > 0 && e < p.lastEvals*plotStep {
		return nil
	}
	p.lastEvals = e
	p.add(r, e)
	return nil
}

func (p *Recorder) add(r *solver.Record, e float64) {
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	if pos(r.Gap) {
		p.best = append(p.best, plotter.XY{X: e, Y: r.Gap})
	}
	if pos(r.GapAverage) {
		p.avg = append(p.avg, plotter.XY{X: e, Y: r.GapAverage})
	}
	if pos(r.GapLast) {
		p.lt = append(p.lt, plotter.XY{X: e, Y: r.GapLast})
	}
}

// Draw draws the plot, titled by the method and title, to w in the format
// of Path's extension (png, svg, and gonum/plot's others).
func (p *Recorder) Draw(w io.Writer, title string) error {
	if e := float64(max(p.final.Evaluations, 1)); e != p.lastEvals {
		p.add(&p.final, e)
	}
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s on %s", p.method, title)
	pl.X.Label.Text = "operator evaluations"
	pl.Y.Label.Text = "duality gap"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	pl.Add(plotter.NewGrid())
	// Gaps fall from the top left: the bottom left corner is free.
	pl.Legend.Left = true
	lines := []struct {
		name  string
		xys   plotter.XYs
		color color.RGBA
		dash  []vg.Length
		width vg.Length
	}{
		{"last iterate", p.lt, color.RGBA{R: 150, G: 150, B: 150, A: 255}, nil, 1},
		{"best certified", p.best, color.RGBA{R: 20, G: 80, B: 200, A: 255}, nil, 2.5},
		// Dashed over the best: where they coincide both stay visible.
		{"average", p.avg, color.RGBA{R: 230, G: 120, B: 20, A: 255}, []vg.Length{vg.Points(4), vg.Points(3)}, 1.2},
	}
	drawn := 0
	for _, l := range lines {
		if len(l.xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(l.xys)
		if err != nil {
			return err
		}
		line.Color, line.Dashes, line.Width = l.color, l.dash, vg.Points(float64(l.width))
		pl.Add(line)
		pl.Legend.Add(l.name, line)
		if len(l.xys) < 3 { // too short a line to see: mark its points
			sc, err := plotter.NewScatter(l.xys)
			if err != nil {
				return err
			}
			sc.Color = l.color
			pl.Add(sc)
		}
		drawn++
	}
	if drawn == 0 {
		// A game solved at its start point has no positive gap to draw on
		// a logarithmic axis: say so rather than fail.
		pl.Title.Text += " (gap 0 at the start)"
		pl.X.Scale, pl.Y.Scale = plot.LinearScale{}, plot.LinearScale{}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.DefaultTicks{}, plot.DefaultTicks{}
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, 1, 0, 1
	}
	if drawn > 0 {
		widen(&pl.X, false, p.best, p.avg, p.lt)
		widen(&pl.Y, true, p.best, p.avg, p.lt)
	}
	wt, err := pl.WriterTo(7*vg.Inch, 4.5*vg.Inch, strings.TrimPrefix(strings.ToLower(filepath.Ext(p.Path)), "."))
	if err == nil {
		_, err = wt.WriteTo(w)
	}
	return err
}

// decadeTicks marks a logarithmic axis at the powers of ten, labelled as
// people write them (1e-4, 1, 10, 100, 1000, 1e4), where plot.LogTicks
// multiplies its way from decade to decade and labels 1e-4
// 9.999999999999999e-05. Between two powers it marks 2 to 9 times the
// lower one, unlabelled unless the axis holds fewer than two powers (then
// 2e-5, 5e-5 are labelled too). Of more than 10 powers only every k-th is
// labelled, so that the labels never crowd.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-12) && v <= hi*(1+1e-12) }
	powers := 0
	for e := e0; e <= e1; e++ {
		if in(math.Pow10(e)) {
			powers++
		}
	}
	every := max(1, (powers+9)/10)
	var ticks []plot.Tick
	k := 0 // powers so far
	for e := e0; e <= e1; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(e)
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if powers < 2 || m == 1 && k%every == 0 {
				t.Label = tickLabel(m, e)
			}
			if m == 1 {
				k++
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// tickLabel is m×10^e as people write it: 1e-4, 5e-5, 1, 20, 500, 1000,
// 1e4, 2e5.
func tickLabel(m, e int) string {
	if e >= 0 && e <= 3 {
		return strconv.Itoa(m * int(math.Pow10(e)))
	}
	return fmt.Sprintf("%de%d", m, e)
}

// widen gives a logarithmic axis whose points all share one coordinate (a
// solve of one evaluation, say) the decade around it: an empty range has no
// ticks to draw.
func widen(ax *plot.Axis, y bool, sets ...plotter.XYs) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xys := range sets {
		for _, q := range xys {
			v := q.X
			if y {
				v = q.Y
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo == hi {
		d := math.Pow(10, math.Floor(math.Log10(lo)))
		ax.Min, ax.Max = d, 10*d
	}
}
