package gan

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Metrics measure how well points drawn from a model match a data set.
type Metrics struct {
	// ModesCovered counts the modes of a built-in mixture that hold at
	// least a quarter of their fair share, N·w (N/ModesTotal for equal
	// weights), of the N points within 3 standard deviations (Euclidean
	// distance ≤ 3·Std) of their centre. ModesHit counts those that hold
	// at least one, the criterion of the published ring and grid results.
	// Zero for a file's data.
	ModesCovered, ModesHit, ModesTotal int
	// HighQuality is the fraction of the points within 3 standard
	// deviations of some centre (NaN for a file's data).
	HighQuality float64
	// ModeFrequencies are the shares of the high-quality points held by
	// each mode (nil for a file's data; zeros when no point is of high
	// quality). ModeTV is their total-variation distance to the data's
	// weights, ½Σ|f_c − w_c|, and ModeReverseKL the reverse Kullback–
	// Leibler divergence Σ f_c log(f_c/w_c) (NaN for a file's data, and
	// both NaN with no high-quality point).
	ModeFrequencies       []float64
	ModeTV, ModeReverseKL float64
	// MMD2 is the unbiased estimate of the squared maximum mean
	// discrepancy with the Gaussian kernel exp(−‖x−y‖²/(2h²)) between up
	// to MetricPoints of the points and as many data points, with h =
	// Bandwidth, the median distance between those data points.
	MMD2, Bandwidth float64
	// Energy is the energy distance 2E‖X−Y‖ − E‖X−X'‖ − E‖Y−Y'‖ between
	// the same two samples, for a file's data (NaN for a built-in set).
	Energy float64
}

// MetricPoints caps the points of each sample in the pairwise metrics
// (MMD², energy distance), which cost a number of kernel evaluations
// quadratic in it.
const MetricPoints = 2000

// Evaluate computes the metrics of the points (n×Dim, row-major) against
// d; rng draws the data points of the pairwise metrics.
func Evaluate(d *Dataset, points []float64, rng *rand.Rand) Metrics {
	var m Metrics
	n := len(points) / d.Dim
	m.HighQuality, m.Energy, m.ModeTV, m.ModeReverseKL = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if d.Points == nil {
		m.ModesTotal = len(d.Centers)
		counts := make([]int, len(d.Centers))
		good := 0
		r2 := 9 * d.Std * d.Std
		for i := range n {
			x := points[i*d.Dim : (i+1)*d.Dim]
			best, bd := -1, math.Inf(1)
			for c, ctr := range d.Centers {
				if s := sqdist(x, ctr); s < bd {
					best, bd = c, s
				}
			}
			if bd <= r2 {
				counts[best]++
				good++
			}
		}
		m.ModeFrequencies = make([]float64, len(d.Centers))
		if good > 0 {
			m.ModeTV, m.ModeReverseKL = 0, 0
		}
		for c, k := range counts {
			w := d.weight(c)
			if float64(k) >= float64(n)*w/4 {
				m.ModesCovered++
			}
			if k > 0 {
				m.ModesHit++
			}
			if good == 0 {
				continue
			}
			f := float64(k) / float64(good)
			m.ModeFrequencies[c] = f
			m.ModeTV += math.Abs(f-w) / 2
			if f > 0 {
				m.ModeReverseKL += f * math.Log(f/w)
			}
		}
		m.HighQuality = float64(good) / float64(n)
	}
	ns := min(n, MetricPoints)
	x := points[:ns*d.Dim]
	y := make([]float64, ns*d.Dim)
	if d.Points != nil && d.Len() <= ns {
		y = slices.Clone(d.Points)
	} else if d.Points != nil {
		for i, r := range rng.Perm(d.Len())[:ns] {
			copy(y[i*d.Dim:(i+1)*d.Dim], d.Points[r*d.Dim:(r+1)*d.Dim])
		}
	} else {
		d.Sample(y, rng)
	}
	var dists []float64
	ny := len(y) / d.Dim
	for i := range ny {
		for j := range i {
			dists = append(dists, math.Sqrt(sqdist(y[i*d.Dim:(i+1)*d.Dim], y[j*d.Dim:(j+1)*d.Dim])))
		}
	}
	if len(dists) == 0 {
		m.Bandwidth = 1
	} else {
		slices.Sort(dists)
		m.Bandwidth = dists[len(dists)/2]
	}
	m.MMD2 = mmd2(x, y, d.Dim, m.Bandwidth)
	if d.Points != nil {
		m.Energy = energy(x, y, d.Dim)
	}
	return m
}

func sqdist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// pairMean is the mean of k over the pairs of rows of a and b, the diagonal
// left out when a and b are the same sample.
func pairMean(a, b []float64, dim int, same bool, k func(sq float64) float64) float64 {
	na, nb := len(a)/dim, len(b)/dim
	s, cnt := 0.0, 0
	for i := range na {
		for j := range nb {
			if same && i == j {
				continue
			}
			s += k(sqdist(a[i*dim:(i+1)*dim], b[j*dim:(j+1)*dim]))
			cnt++
		}
	}
	if cnt == 0 {
		return 0
	}
	return s / float64(cnt)
}

// mmd2 is the unbiased MMD² estimate between the samples x and y with a
// Gaussian kernel of bandwidth h.
func mmd2(x, y []float64, dim int, h float64) float64 {
	k := func(sq float64) float64 { return math.Exp(-sq / (2 * h * h)) }
	return pairMean(x, x, dim, true, k) + pairMean(y, y, dim, true, k) - 2*pairMean(x, y, dim, false, k)
}

// energy is the energy distance between the samples x and y.
func energy(x, y []float64, dim int) float64 {
	k := math.Sqrt
	return 2*pairMean(x, y, dim, false, k) - pairMean(x, x, dim, true, k) - pairMean(y, y, dim, true, k)
}
