package ganplot

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGanPlot: the gan figure has titles, labelled axes and legends, and
// the game's weights are bars scaled to the largest: the heaviest
// generator's bar is over a hundred pixels tall, and a tenth as heavy one
// still over ten.
func TestGanPlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dim = 300, 2
	data, samples, labels := make([]float64, n*dim), make([]float64, n*dim), make([]int, n)
	for i := range n {
		a := 2 * math.Pi * float64(i%8) / 8
		data[2*i], data[2*i+1] = 2*math.Cos(a)+0.02*rng.NormFloat64(), 2*math.Sin(a)+0.02*rng.NormFloat64()
		samples[2*i], samples[2*i+1] = rng.NormFloat64(), rng.NormFloat64()
		labels[i] = i % 3
	}
	p := []float64{0.7, 0.2, 0.07, 0.03}
	sampled := make([]float64, len(p))
	for k := range p {
		sampled[k] = 0.5*p[k] + 0.5/float64(len(p))
	}
	fig := &Figure{Data: data, Samples: samples, Labels: labels, Dim: dim, Name: "ring8", Rounds: 50, P: p, Sampled: sampled, Explore: 0.5}
	dp, sp, wp, _, err := fig.plots()
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range []struct {
		name string
		t, x string
		y    string
	}{{"data", dp.Title.Text, dp.X.Label.Text, dp.Y.Label.Text}, {"samples", sp.Title.Text, sp.X.Label.Text, sp.Y.Label.Text}, {"weights", wp.Title.Text, wp.X.Label.Text, wp.Y.Label.Text}} {
		if pl.t == "" || pl.x == "" || pl.y == "" {
			t.Errorf("%s: title %q, axes %q and %q", pl.name, pl.t, pl.x, pl.y)
		}
	}
	if !strings.Contains(wp.Title.Text, "4 generators") || wp.Y.Min != 0 || !(wp.Y.Max >= 0.7 && wp.Y.Max <= 0.7/0.7) {
		t.Errorf("weights: %q on [%g, %g]", wp.Title.Text, wp.Y.Min, wp.Y.Max)
	}
	var buf bytes.Buffer
	if err := fig.Draw(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The tallest run of each generator's colour in a column is its
	// bar (the samples are drawn translucent, never in the pure colour).
	bar := func(k int) int {
		want := ganColor(k)
		b := img.Bounds()
		best := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			run := 0
			for y := b.Min.Y; y < b.Max.Y; y++ {
				if color.NRGBAModel.Convert(img.At(x, y)) == want {
					run++
					best = max(best, run)
				} else {
					run = 0
				}
			}
		}
		return best
	}
	h0, h2 := bar(0), bar(2)
	t.Logf("bars %d and %d pixels tall", h0, h2)
	if h0 < 100 || h2 < 10 || math.Abs(float64(h2)/float64(h0)-0.1) > 0.03 {
		t.Errorf("bars %d and %d pixels tall for weights 0.7 and 0.07 (%v)", h0, h2, img.Bounds().Size())
	}
}
