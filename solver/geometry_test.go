package solver_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/solver"
)

func geometries() map[string]solver.Geometry {
	box, _ := solver.NewBox(6, -0.5, 2)
	return map[string]solver.Geometry{
		"entropic":  solver.EntropicSimplex{N: 6},
		"euclidean": solver.EuclideanSimplex{N: 6},
		"box":       box,
		"ball":      &solver.Ball{Center: []float64{1, -1, 0, 2, 0, 0}, Radius: 1.5},
		"product":   solver.NewProduct(solver.EntropicSimplex{N: 3}, &solver.Ball{Center: []float64{0, 0, 0}, Radius: 1}),
	}
}

// TestProxOptimality checks the prox-mapping's variational inequality
// ⟨eta g + ∇R(z) − ∇R(c), z' − z⟩ ≥ 0 at random points z' of the set, the
// three-point identity behind it, and basic facts about each geometry.
func TestProxOptimality(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for name, geo := range geometries() {
		d := geo.Dim()
		c, cp := make([]float64, d), make([]float64, d)
		z, zp := make([]float64, d), make([]float64, d)
		g, other := make([]float64, d), make([]float64, d)
		geo.Start(c)
		geo.Point(cp, c)
		if dv := geo.Divergence(c, cp, c); math.Abs(dv) > 1e-15 {
			t.Errorf("%s: D(c, c) = %g", name, dv)
		}
		for trial := range 50 {
			for i := range g {
				g[i] = rng.NormFloat64()
			}
			eta := math.Pow(10, float64(trial%5-2))
			geo.Prox(z, zp, c, g, eta)
			// ∇R(z) − ∇R(c) is the difference of the states: of the
			// log-weights for an entropic block (∇R = log z + 1, and the
			// normalizing constants drop out against z' − z, which sums
			// to 0), of the points for a Euclidean one.
			diff := make([]float64, d)
			for i := range diff {
				diff[i] = z[i] - c[i]
			}
			smp := geo.(solver.Sampler)
			for range 20 {
				smp.Sample(other, rng)
				var v float64
				for i := range other {
					v += (eta*g[i] + diff[i]) * (other[i] - zp[i])
				}
				if v < -1e-9 {
					t.Fatalf("%s: prox optimality violated by %g", name, v)
				}
				if s := geo.Support(g); s < dotf(g, other)-1e-12 {
					t.Fatalf("%s: support %g below ⟨g, z⟩ = %g", name, s, dotf(g, other))
				}
			}
			if dv := geo.Divergence(z, zp, c); dv < 0 {
				t.Fatalf("%s: negative divergence %g", name, dv)
			}
		}
		if d2 := geo.DiameterSq(); !(d2 > 0) || math.IsInf(d2, 0) {
			t.Errorf("%s: D² = %g", name, d2)
		}
	}
}

func dotf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestDiameters checks D² = sup R − inf R of every geometry.
func TestDiameters(t *testing.T) {
	box, _ := solver.NewBox(3, -1, 2)
	box2, _ := solver.NewBox(2, 0.5, 1)
	cases := []struct {
		name string
		geo  solver.Geometry
		want float64
	}{
		{"entropic", solver.EntropicSimplex{N: 10}, math.Log(10)},
		{"euclidean simplex", solver.EuclideanSimplex{N: 4}, 0.375},
		{"box around 0", box, 3 * 4.0 / 2},
		{"box away from 0", box2, (2 - 2*0.25) / 2},
		{"ball", &solver.Ball{Center: []float64{3, 4}, Radius: 2}, 2},
		{"product", solver.NewProduct(solver.EntropicSimplex{N: 3}, solver.EntropicSimplex{N: 5}), math.Log(15)},
	}
	for _, c := range cases {
		if got := c.geo.DiameterSq(); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("%s: D² = %g, want %g", c.name, got, c.want)
		}
	}
	if _, err := solver.NewBox(2, 1, 0); err == nil {
		t.Error("NewBox(2, 1, 0): no error")
	}
}
