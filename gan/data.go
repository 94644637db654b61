package gan

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// Dataset is a distribution to learn: a mixture of isotropic Gaussians
// (the built-in sets, whose modes the metrics count) or the empirical
// distribution of a file's points.
type Dataset struct {
	// Name is ring8, grid25 or the file's path.
	Name string
	// Dim is the dimension of a point.
	Dim int
	// Centers are the means of a Gaussian mixture (each of length Dim),
	// and Std the standard deviation of every coordinate of each
	// component; nil for points.
	Centers [][]float64
	Std     float64
	// Weights are the components' probabilities (summing to 1), nil for
	// equal ones.
	Weights []float64
	// Points holds the N points of an empirical distribution, row-major
	// N×Dim; nil for a mixture.
	Points []float64
}

// Ring8 is 8 Gaussians of standard deviation 0.02 centred on the circle of
// radius 2 at the angles 2πk/8, with equal weights.
func Ring8() *Dataset {
	d := &Dataset{Name: "ring8", Dim: 2, Std: 0.02}
	for k := range 8 {
		a := 2 * math.Pi * float64(k) / 8
		d.Centers = append(d.Centers, []float64{2 * math.Cos(a), 2 * math.Sin(a)})
	}
	return d
}

// Grid25 is 25 Gaussians of standard deviation 0.05 centred at (2i, 2j)
// for i, j in −2..2, with equal weights.
func Grid25() *Dataset {
	d := &Dataset{Name: "grid25", Dim: 2, Std: 0.05}
	for i := -2; i <= 2; i++ {
		for j := -2; j <= 2; j++ {
			d.Centers = append(d.Centers, []float64{2 * float64(i), 2 * float64(j)})
		}
	}
	return d
}

// Ring8U is Ring8 with unequal weights, from 0.30 down to 0.01, heavy
// and light modes side by side: going round from the angle 0, 0.30, 0.01,
// 0.15, 0.07, 0.20, 0.05, 0.12, 0.10. A mixture of equal weights is off
// by a total-variation distance of 0.33 in its mode frequencies, and the
// lightest mode, 1% of the data, is the test of a method that must not
// drop it.
func Ring8U() *Dataset {
	d := Ring8()
	d.Name = "ring8u"
	d.Weights = []float64{0.30, 0.01, 0.15, 0.07, 0.20, 0.05, 0.12, 0.10}
	return d
}

// Grid25U is Grid25 with unequal weights between 0.01 and 0.098: the i-th
// lightest of the 25 modes has weight 0.01 + c·(i/24)², c = 0.75·576/4900
// (so that they sum to 1), and the weights are dealt to the grid's cells,
// in Grid25's order, by the permutation of rand.New(rand.NewPCG(25, 1)).
func Grid25U() *Dataset {
	d := Grid25()
	d.Name = "grid25u"
	c := 0.75 * 576 / 4900
	rng := rand.New(rand.NewPCG(25, 1))
	d.Weights = make([]float64, 25)
	for i, cell := range rng.Perm(25) {
		x := float64(i) / 24
		d.Weights[cell] = 0.01 + c*x*x
	}
	return d
}

// Builtin returns the built-in data set of a name (ring8, grid25, ring8u
// or grid25u), or nil.
func Builtin(name string) *Dataset {
	switch name {
	case "ring8":
		return Ring8()
	case "grid25":
		return Grid25()
	case "ring8u":
		return Ring8U()
	case "grid25u":
		return Grid25U()
	}
	return nil
}

// weight is the probability of component c.
func (d *Dataset) weight(c int) float64 {
	if d.Weights == nil {
		return 1 / float64(len(d.Centers))
	}
	return d.Weights[c]
}

// ErrData is matched by the errors of a data set that cannot be learned.
var ErrData = errors.New("gan: bad data")

// FromPoints is the empirical distribution of the rows of a 2-D float
// tensor (N×d), which must hold finite numbers.
func FromPoints(name string, t *tensor.Dense) (*Dataset, error) {
	if t.Dims() != 2 {
		return nil, fmt.Errorf("%w: %s holds a %d-D array, want N×d points", ErrData, name, t.Dims())
	}
	n, d := t.Shape()[0], t.Shape()[1]
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("%w: %s holds no points", ErrData, name)
	}
	pts := make([]float64, n*d)
	switch v := t.Data().(type) {
	case []float64:
		copy(pts, v)
	case []float32:
		for i, x := range v {
			pts[i] = float64(x)
		}
	default:
		return nil, fmt.Errorf("%w: %s holds %v, want floats", ErrData, name, t.Dtype())
	}
	for i, x := range pts {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %s: point %d, coordinate %d is %v", ErrData, name, i/d, i%d, x)
		}
	}
	return &Dataset{Name: name, Dim: d, Points: pts}, nil
}

// ReadNPY reads an N×d .npy file of points (float or integer).
func ReadNPY(path string) (*Dataset, error) {
	t, err := datasets.ReadNPY(path, &datasets.ReadOptions{DType: tensor.Float64})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrData, err)
	}
	return FromPoints(path, t)
}

// Len is the number of points of an empirical distribution, 0 for a
// mixture.
func (d *Dataset) Len() int {
	if d.Points == nil {
		return 0
	}
	return len(d.Points) / d.Dim
}

// check reports whether d is a data set Train can learn with minibatches
// of the given size.
func (d *Dataset) check(batch int) error {
	switch {
	case d == nil:
		return fmt.Errorf("%w: no data set", ErrData)
	case d.Dim < 1:
		return fmt.Errorf("%w: %s: dimension %d", ErrData, d.Name, d.Dim)
	case d.Points == nil && (len(d.Centers) == 0 || !(d.Std >= 0)):
		return fmt.Errorf("%w: %s: neither points nor a mixture", ErrData, d.Name)
	case d.Points != nil && d.Len() < batch:
		return fmt.Errorf("%w: %s has %d points, fewer than the batch of %d", ErrData, d.Name, d.Len(), batch)
	}
	for _, c := range d.Centers {
		if len(c) != d.Dim {
			return fmt.Errorf("%w: %s: a centre of dimension %d, want %d", ErrData, d.Name, len(c), d.Dim)
		}
	}
	if d.Weights != nil {
		sum := 0.0
		for _, w := range d.Weights {
			if !(w > 0) {
				return fmt.Errorf("%w: %s: a component of weight %v", ErrData, d.Name, w)
			}
			sum += w
		}
		if len(d.Weights) != len(d.Centers) || math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("%w: %s: %d weights summing to %v for %d components", ErrData, d.Name, len(d.Weights), sum, len(d.Centers))
		}
	}
	// The discriminators' first layer is scaled by the data's spread: a
	// distribution with none leaves nothing to learn and would divide by 0.
	if d.Points != nil && d.identical() {
		return fmt.Errorf("%w: %s: all %d points are the same", ErrData, d.Name, d.Len())
	}
	return nil
}

// identical reports whether every point equals the first.
func (d *Dataset) identical() bool {
	for i := d.Dim; i < len(d.Points); i++ {
		if d.Points[i] != d.Points[i%d.Dim] {
			return false
		}
	}
	return true
}

// Sample fills dst (n×Dim, row-major) with n points drawn from d: from a
// mixture, a component by the weights and then the Gaussian; from
// points, uniformly with replacement.
func (d *Dataset) Sample(dst []float64, rng *rand.Rand) {
	n := len(dst) / d.Dim
	for r := range n {
		row := dst[r*d.Dim : (r+1)*d.Dim]
		if d.Points != nil {
			i := rng.IntN(d.Len())
			copy(row, d.Points[i*d.Dim:(i+1)*d.Dim])
			continue
		}
		var c []float64
		if d.Weights == nil {
			c = d.Centers[rng.IntN(len(d.Centers))]
		} else {
			c = d.Centers[d.component(rng.Float64())]
		}
		for i := range row {
			row[i] = c[i] + d.Std*rng.NormFloat64()
		}
	}
}

// component is the component whose interval of the weights' cumulative
// sums holds u in [0, 1); the last one past rounding.
func (d *Dataset) component(u float64) int {
	for c, w := range d.Weights {
		if u < w {
			return c
		}
		u -= w
	}
	return len(d.Weights) - 1
}
