package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestUnequalSets: the unequal built-in sets have weights that sum to 1
// between 0.01 and 0.3, and their samples follow them: the mode
// frequencies of 200,000 points lie within 5 binomial standard deviations
// of the weights, every mode is hit and covered, and the total-variation
// distance and reverse KL to the weights are at the sampling noise.
func TestUnequalSets(t *testing.T) {
	for _, d := range []*Dataset{Ring8U(), Grid25U()} {
		t.Run(d.Name, func(t *testing.T) {
			if err := d.check(64); err != nil {
				t.Fatal(err)
			}
			lo, hi := math.Inf(1), 0.0
			for _, w := range d.Weights {
				lo, hi = min(lo, w), max(hi, w)
			}
			if lo < 0.01-1e-12 || hi > 0.3 || math.Abs(lo-0.01) > 1e-12 {
				t.Errorf("weights between %v and %v, want the lightest 0.01 and none above 0.3", lo, hi)
			}
			const n = 200000
			pts := make([]float64, n*d.Dim)
			d.Sample(pts, rand.New(rand.NewPCG(7, 8)))
			m := Evaluate(d, pts, rand.New(rand.NewPCG(7, 9)))
			for c, f := range m.ModeFrequencies {
				w := d.Weights[c]
				// The high-quality share is 0.989 of each mode: the
				// frequencies among them are the weights.
				if sd := math.Sqrt(w * (1 - w) / n); math.Abs(f-w) > 5*sd {
					t.Errorf("mode %d: frequency %.5f, weight %.5f (sd %.2g)", c, f, w, sd)
				}
			}
			if m.ModesHit != len(d.Centers) || m.ModesCovered != len(d.Centers) || m.ModeTV > 0.01 || m.ModeReverseKL > 1e-3 {
				t.Errorf("the data against itself: %d hit, %d covered of %d, TV %.4f, reverse KL %.2g", m.ModesHit, m.ModesCovered, len(d.Centers), m.ModeTV, m.ModeReverseKL)
			}
		})
	}
	// Equal weights draw the same points as before weights existed: the
	// component by IntN.
	a, b := make([]float64, 20), make([]float64, 20)
	Ring8().Sample(a, rand.New(rand.NewPCG(1, 1)))
	r := rand.New(rand.NewPCG(1, 1))
	d := Ring8()
	for i := range 10 {
		c := d.Centers[r.IntN(8)]
		for e := range 2 {
			b[2*i+e] = c[e] + d.Std*r.NormFloat64()
		}
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("ring8's draws changed: %v, want %v", a, b)
	}
}

// TestModeMetrics: points placed on the centres, or 4σ off them, give the
// mode metrics by hand: 6 points on mode 0, 2 on mode 1, none on mode 2 of
// three modes weighted 0.5, 0.3, 0.2, and 2 off every mode.
func TestModeMetrics(t *testing.T) {
	d := &Dataset{Name: "three", Dim: 2, Std: 0.1, Centers: [][]float64{{0, 0}, {5, 0}, {0, 5}}, Weights: []float64{0.5, 0.3, 0.2}}
	var pts []float64
	for range 6 {
		pts = append(pts, 0, 0)
	}
	for range 2 {
		pts = append(pts, 5, 0)
	}
	pts = append(pts, 0.4, 0, 5, 5)
	m := Evaluate(d, pts, rand.New(rand.NewPCG(1, 2)))
	f0, f1 := 0.75, 0.25
	tv := (math.Abs(f0-0.5) + math.Abs(f1-0.3) + 0.2) / 2
	kl := f0*math.Log(f0/0.5) + f1*math.Log(f1/0.3)
	// Covered: a quarter of N·w is 1.25, 0.75 and 0.5 points of 10.
	if m.ModesHit != 2 || m.ModesCovered != 2 || m.HighQuality != 0.8 || math.Abs(m.ModeTV-tv) > 1e-15 || math.Abs(m.ModeReverseKL-kl) > 1e-15 {
		t.Errorf("got %d hit, %d covered, quality %v, TV %v (want %v), reverse KL %v (want %v)", m.ModesHit, m.ModesCovered, m.HighQuality, m.ModeTV, tv, m.ModeReverseKL, kl)
	}
	none := Evaluate(d, []float64{9, 9, 9, 9}, rand.New(rand.NewPCG(1, 2)))
	if none.ModesHit != 0 || !math.IsNaN(none.ModeTV) || !math.IsNaN(none.ModeReverseKL) {
		t.Errorf("no high-quality point: %+v", none)
	}
}
