// Package ganplot draws a trained mixture of generators beside its data:
// the figure that gpump gan --plot writes.
package ganplot

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure is what gpump gan --plot draws: the data and the samples side
// by side on the same axes (their first two coordinates), the samples
// coloured by generator, a legend of the generators' colours, and under
// them the weights of every generator in a bar chart scaled to the
// largest: the game's p and, when the samples were drawn from p mixed with
// uniform weights, those weights beside it.
type Figure struct {
	Data, Samples []float64 // row-major, Dim columns
	Labels        []int     // the generator of each sample
	Dim           int
	Name          string    // of the data set
	Rounds        int       // trained
	P, Sampled    []float64 // the game's weights; those the samples were drawn with
	Explore       float64   // the share of uniform weight in Sampled
}

// The figure's size, and its parts': the title band, the top row (data,
// samples, legend) and the weights under them.
const (
	ganWidth, ganHeight = 13 * vg.Inch, 9.5 * vg.Inch
	ganTitleBand        = 0.7 * vg.Inch
	ganTopRow           = 5.8 * vg.Inch
	ganLegendWidth      = 2.2 * vg.Inch
	// ganLegendMax is the most generators the legend names, the
	// heaviest.
	ganLegendMax = 24
)

// ganColor is generator k's colour: hues a golden angle apart, so that
// neighbours differ.
func ganColor(k int) color.NRGBA {
	h := float64(k) * 0.618034
	h -= math.Floor(h)
	r, g, b := hsv(h)
	return color.NRGBA{r, g, b, 255}
}

// hsv returns a saturated colour of hue h in [0, 1), dark enough to read
// on white.
func hsv(h float64) (r, g, b uint8) {
	i := int(h * 6)
	f := h*6 - float64(i)
	v := func(x float64) uint8 { return uint8(30 + 170*x) }
	switch i % 6 {
	case 0:
		return v(1), v(f), v(0)
	case 1:
		return v(1 - f), v(1), v(0)
	case 2:
		return v(0), v(1), v(f)
	case 3:
		return v(0), v(1 - f), v(1)
	case 4:
		return v(f), v(0), v(1)
	}
	return v(1), v(0), v(1 - f)
}

// axisRange is the square range of the first two coordinates of both
// point sets, with a margin of 5 %.
func (f *Figure) axisRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, set := range [][]float64{f.Data, f.Samples} {
		for i := 0; i+1 < len(set) && f.Dim >= 2; i += f.Dim {
			lo, hi = min(lo, set[i], set[i+1]), max(hi, set[i], set[i+1])
		}
	}
	if f.Dim < 2 || !(hi > lo) || math.IsInf(hi-lo, 0) {
		lo, hi = -1, 1
	}
	span := hi - lo
	return lo - 0.05*span, hi + 0.05*span
}

// points returns the first two coordinates of the rows of set.
func (f *Figure) points(set []float64) plotter.XYs {
	if f.Dim < 2 {
		return nil
	}
	xys := make(plotter.XYs, 0, len(set)/f.Dim)
	for i := 0; i+1 < len(set); i += f.Dim {
		xys = append(xys, plotter.XY{X: set[i], Y: set[i+1]})
	}
	return xys
}

// scatterPlot is a panel of points on the square range [lo, hi]².
func (f *Figure) scatterPlot(title string, lo, hi float64) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text, pl.Y.Label.Text = "x₁", "x₂"
	if f.Dim > 2 {
		pl.X.Label.Text = fmt.Sprintf("x₁ (the first two of %d coordinates)", f.Dim)
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = lo, hi, lo, hi
	pl.Add(plotter.NewGrid())
	return pl
}

// glyph is the mark of a point of colour c.
func glyph(c color.Color, r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Shape: draw.CircleGlyph{}, Radius: r, Color: c}
}

// plots returns the figure's panels: the data, the samples, and the
// weights, and the legend of the generators' colours.
func (f *Figure) plots() (data, samples, weights *plot.Plot, legend plot.Legend, err error) {
	lo, hi := f.axisRange()
	n, m := len(f.Data)/max(f.Dim, 1), len(f.Samples)/max(f.Dim, 1)
	data = f.scatterPlot(fmt.Sprintf("data: %d points of %s", n, f.Name), lo, hi)
	if xys := f.points(f.Data); len(xys) > 0 {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, nil, nil, legend, err
		}
		sc.GlyphStyle = glyph(color.NRGBA{40, 40, 40, 110}, 1.1)
		data.Add(sc)
		data.Legend.Add("data", sc)
		data.Legend.Top = true
	}
	samples = f.scatterPlot(fmt.Sprintf("samples: %d from the trained mixture, by generator", m), lo, hi)
	if xys := f.points(f.Samples); len(xys) > 0 {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, nil, nil, legend, err
		}
		sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			c := ganColor(f.Labels[i])
			c.A = 150
			return glyph(c, 1.1)
		}
		samples.Add(sc)
	}
	weights, err = f.weightsPlot()
	if err != nil {
		return nil, nil, nil, legend, err
	}
	legend, err = f.colorLegend()
	return data, samples, weights, legend, err
}

// colorLegend names the colours of the heaviest generators, by p.
func (f *Figure) colorLegend() (plot.Legend, error) {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	order := make([]int, len(f.P))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(f.P[b], f.P[a]) })
	for _, k := range order[:min(len(order), ganLegendMax)] {
		sc, err := plotter.NewScatter(plotter.XYs{{}})
		if err != nil {
			return l, err
		}
		sc.GlyphStyle = glyph(ganColor(k), 4)
		l.Add(fmt.Sprintf("generator %d   p %.3f", k, f.P[k]), sc)
	}
	if rest := len(order) - ganLegendMax; rest > 0 {
		l.Add(fmt.Sprintf("and %d lighter ones", rest))
	}
	return l, nil
}

// weightsPlot is the bar chart of the weights: p in each generator's
// colour and, when the samples were drawn from another mixture, those
// weights in grey beside it, on an axis scaled to the largest.
func (f *Figure) weightsPlot() (*plot.Plot, error) {
	K := len(f.P)
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("weights of the %d generators after %d rounds", K, f.Rounds)
	pl.X.Label.Text, pl.Y.Label.Text = "generator", "weight"
	both := f.Explore > 0 && len(f.Sampled) == K
	top := 0.0
	for k := range K {
		top = max(top, f.P[k])
		if both {
			top = max(top, f.Sampled[k])
		}
	}
	if !(top > 0) {
		top = 1
	}
	// The tallest bar takes three quarters of the height: the legend
	// fits above it.
	pl.Y.Min, pl.Y.Max = 0, top/0.75
	pl.Y.Tick.Marker = weightTicks{}
	pl.X.Min, pl.X.Max = -0.7, float64(K)-0.3
	every := max(1, (K+39)/40)
	var ticks plot.ConstantTicks
	for k := 0; k < K; k += every {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	pl.X.Tick.Marker = ticks
	pl.Add(plotter.NewGrid())
	// A unit of the axis is about 12 inches / (K+1).
	unit := 12 * vg.Inch / vg.Length(K+1)
	w := 0.8 * unit
	if both {
		w = 0.4 * unit
	}
	for k := range K {
		b, err := plotter.NewBarChart(plotter.Values{f.P[k]}, w)
		if err != nil {
			return nil, err
		}
		b.XMin, b.Color, b.LineStyle.Width = float64(k), ganColor(k), 0
		if both {
			b.Offset = -w / 2
		}
		pl.Add(b)
	}
	key, _ := plotter.NewBarChart(plotter.Values{0}, w)
	key.Color, key.LineStyle.Width = color.NRGBA{90, 90, 90, 255}, 0
	pl.Legend.Add("p: the game's weights (each in its generator's colour)", key)
	if both {
		b, err := plotter.NewBarChart(plotter.Values(f.Sampled), w)
		if err != nil {
			return nil, err
		}
		b.Color, b.Offset = color.NRGBA{200, 200, 200, 255}, w/2
		b.LineStyle.Width = vg.Points(0.5)
		pl.Add(b)
		pl.Legend.Add(fmt.Sprintf("the samples' weights: %.2g·p + %.2g/K", 1-f.Explore, f.Explore), b)
	}
	pl.Legend.Top = true
	if K <= 16 {
		xys := make(plotter.XYs, K)
		labels := make([]string, K)
		for k := range K {
			xys[k] = plotter.XY{X: float64(k), Y: f.P[k]}
			labels[k] = fmt.Sprintf("%.3f", f.P[k])
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = draw.XCenter
			lab.TextStyle[i].Font.Size = vg.Points(9)
		}
		if both {
			lab.Offset = vg.Point{X: -w / 2, Y: vg.Points(2)}
		} else {
			lab.Offset = vg.Point{Y: vg.Points(2)}
		}
		pl.Add(lab)
	}
	return pl, nil
}

// weightTicks labels a weight axis [0, max] at 4 to 10 round steps (1, 2
// or 5 times a power of ten), each label with the digits its step needs.
type weightTicks struct{}

func (weightTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	step := math.Pow10(int(math.Floor(math.Log10((hi - lo) / 4))))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= 10 {
			step *= m
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi*(1+1e-12); k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}

// draw writes the figure as a PNG.
func (f *Figure) Draw(w io.Writer) error {
	data, samples, weights, legend, err := f.plots()
	if err != nil {
		return err
	}
	img := vgimg.New(ganWidth, ganHeight)
	dc := draw.New(img)
	at := func(x0, y0, x1, y1 vg.Length) draw.Canvas {
		return draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}}
	}
	pad := 0.15 * vg.Inch
	rowTop := ganHeight - ganTitleBand
	rowBottom := rowTop - ganTopRow
	panel := (ganWidth - ganLegendWidth - 2*pad) / 2
	data.Draw(at(pad, rowBottom, pad+panel, rowTop))
	samples.Draw(at(pad+panel, rowBottom, pad+2*panel, rowTop))
	legend.Draw(at(pad+2*panel+pad, rowBottom, ganWidth-pad, rowTop-0.3*vg.Inch))
	weights.Draw(at(pad, pad, ganWidth-pad, rowBottom-pad))

	title := data.Title.TextStyle
	title.Font.Size = vg.Points(16)
	title.XAlign = draw.XCenter
	dc.FillText(title, vg.Point{X: ganWidth / 2, Y: ganHeight - 0.4*vg.Inch},
		fmt.Sprintf("gpump gan on %s: %d generators after %d rounds", f.Name, len(f.P), f.Rounds))
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
