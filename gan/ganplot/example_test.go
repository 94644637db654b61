package ganplot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"

	"github.com/gpump/gpump/gan/ganplot"
)

// A figure of two generators on a four-point data set, drawn as a PNG.
func ExampleFigure_Draw() {
	data := []float64{1, 0, 0, 1, -1, 0, 0, -1}
	samples := make([]float64, 0, 16)
	labels := make([]int, 0, 8)
	for i := range 8 {
		a := 2 * math.Pi * float64(i) / 8
		samples = append(samples, math.Cos(a), math.Sin(a))
		labels = append(labels, i%2)
	}
	fig := &ganplot.Figure{Data: data, Samples: samples, Labels: labels, Dim: 2, Name: "square",
		Rounds: 10, P: []float64{0.75, 0.25}, Sampled: []float64{0.75, 0.25}}
	var buf bytes.Buffer
	if err := fig.Draw(&buf); err != nil {
		fmt.Println(err)
		return
	}
	img, err := png.Decode(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(img.Bounds().Dx() > 0 && img.Bounds().Dy() > 0)
	// Output: true
}
