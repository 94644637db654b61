package solver_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/solver"
)

// cubicR returns R(x) = ⅓‖x‖³ + (σ/2)‖x‖² and ∇R(x) = (‖x‖ + σ) x, the naive
// formulas the geometry's closed forms are checked against.
func cubicR(x []float64, sigma float64) (float64, []float64) {
	n := math.Sqrt(dotf(x, x))
	g := make([]float64, len(x))
	for i, v := range x {
		g[i] = (n + sigma) * v
	}
	return n*n*n/3 + sigma*n*n/2, g
}

// randVec draws a vector with a random direction and a norm spanning
// 1e-6 … 1e6.
func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	s := math.Pow(10, 12*rng.Float64()-6)
	for i := range v {
		v[i] = s * rng.NormFloat64()
	}
	return v
}

// checkCubicProx checks one prox-mapping: ∇R(z) = ∇R(c) − eta g to
// rounding, and D(z, c) ≥ 0.
func checkCubicProx(t *testing.T, geo *solver.Cubic, c, g []float64, eta float64) {
	t.Helper()
	n := len(c)
	z, zp := make([]float64, n), make([]float64, n)
	geo.Prox(z, zp, c, g, eta)
	_, gz := cubicR(z, geo.Sigma)
	_, gc := cubicR(c, geo.Sigma)
	var errSq, scaleSq float64
	for i := range z {
		want := gc[i] - eta*g[i]
		errSq += (gz[i] - want) * (gz[i] - want)
		scaleSq += gc[i]*gc[i] + eta*g[i]*eta*g[i]
	}
	if math.Sqrt(errSq) > 1e-13*math.Sqrt(scaleSq) {
		t.Fatalf("σ=%g: ‖∇R(z) − (∇R(c) − ηg)‖ = %g, scale %g", geo.Sigma, math.Sqrt(errSq), math.Sqrt(scaleSq))
	}
	for i := range z {
		if z[i] != zp[i] {
			t.Fatalf("point %v differs from state %v", zp, z)
		}
	}
	if d := geo.Divergence(z, zp, c); !(d >= 0) {
		t.Fatalf("D(z, c) = %g", d)
	}
}

// TestCubicProxExact: the prox-mapping solves ∇R(z) = ∇R(c) − eta g to
// rounding, for norms of c and eta g from 1e-6 to 1e6 and sigma 0, ½ and 1,
// and the zero cases (c = 0 and g = 0 give 0; g = 0 gives c back).
func TestCubicProxExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, sigma := range []float64{0, 0.5, 1} {
		geo := &solver.Cubic{N: 7, Sigma: sigma, Radius: 2}
		for range 2000 {
			checkCubicProx(t, geo, randVec(rng, 7), randVec(rng, 7), math.Pow(10, 4*rng.Float64()-2))
		}
		zero := make([]float64, 7)
		z, zp := make([]float64, 7), make([]float64, 7)
		geo.Prox(z, zp, zero, zero, 1)
		for _, v := range z {
			if v != 0 {
				t.Fatalf("σ=%g: prox of 0 at 0 is %v", sigma, z)
			}
		}
		c := randVec(rng, 7)
		geo.Prox(z, zp, c, zero, 1)
		for i := range c {
			if math.Abs(z[i]-c[i]) > 1e-14*math.Sqrt(dotf(c, c)) {
				t.Fatalf("σ=%g: prox with g = 0 moved %v to %v", sigma, c, z)
			}
		}
		// dst may alias center.
		g := randVec(rng, 7)
		want := make([]float64, 7)
		geo.Prox(want, zp, c, g, 0.3)
		geo.Prox(c, zp, c, g, 0.3)
		for i := range c {
			if c[i] != want[i] {
				t.Fatalf("σ=%g: aliased prox %v, want %v", sigma, c, want)
			}
		}
	}
}

// TestCubicDivergence checks the divergence's closed form against the
// definition R(z) − R(c) − ⟨∇R(c), z − c⟩, its zero diagonal, its
// non-negativity, the lower bound D(y, x) ≥ (‖x‖ + σ)/2 ‖y − x‖² that makes
// square-root-growing operators Bregman bounded (see Cubic), and the
// three-point identity ⟨∇R(a) − ∇R(b), c − b⟩ = D(c, b) + D(b, a) − D(c, a).
func TestCubicDivergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, sigma := range []float64{0, 1, 3} {
		geo := &solver.Cubic{N: 5, Sigma: sigma}
		for range 2000 {
			x, y := randVec(rng, 5), randVec(rng, 5)
			if rng.IntN(4) == 0 { // y near x: the naive formula cancels
				for i := range y {
					y[i] = x[i] * (1 + 1e-3*rng.NormFloat64())
				}
			}
			if d := geo.Divergence(x, x, x); d != 0 {
				t.Fatalf("σ=%g: D(x, x) = %g", sigma, d)
			}
			d := geo.Divergence(y, y, x)
			ry, _ := cubicR(y, sigma)
			rx, gx := cubicR(x, sigma)
			var lin, dist2 float64
			for i := range x {
				lin += gx[i] * (y[i] - x[i])
				dist2 += (y[i] - x[i]) * (y[i] - x[i])
			}
			naive := ry - rx - lin
			if math.Abs(d-naive) > 1e-12*(ry+rx+math.Abs(lin)) {
				t.Fatalf("σ=%g: D = %.17g, definition %.17g", sigma, d, naive)
			}
			nx := math.Sqrt(dotf(x, x))
			if lower := (nx + sigma) / 2 * dist2; !(d >= lower*(1-1e-12)) {
				t.Fatalf("σ=%g: D(y, x) = %g below (‖x‖ + σ)/2 ‖y − x‖² = %g", sigma, d, lower)
			}
			// Three-point identity, at points of comparable size.
			a, b, c := randVec(rng, 5), randVec(rng, 5), randVec(rng, 5)
			for _, v := range [][]float64{a, b, c} {
				s := 1 / math.Sqrt(dotf(v, v))
				for i := range v {
					v[i] *= s * (0.5 + rng.Float64())
				}
			}
			_, ga := cubicR(a, sigma)
			_, gb := cubicR(b, sigma)
			var lhs float64
			for i := range a {
				lhs += (ga[i] - gb[i]) * (c[i] - b[i])
			}
			rhs := geo.Divergence(c, c, b) + geo.Divergence(b, b, a) - geo.Divergence(c, c, a)
			if math.Abs(lhs-rhs) > 1e-12 {
				t.Fatalf("σ=%g: three-point identity %.17g vs %.17g", sigma, lhs, rhs)
			}
		}
	}
}

// TestCubicProxMinimizes: the prox point minimizes ⟨eta g, z⟩ + D(z, c)
// (no random perturbation does better), the variational characterization the
// solver relies on.
func TestCubicProxMinimizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	geo := &solver.Cubic{N: 4, Sigma: 1}
	z, zp, w := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	for range 300 {
		c, g := make([]float64, 4), make([]float64, 4)
		for i := range c {
			c[i], g[i] = 3*rng.NormFloat64(), 3*rng.NormFloat64()
		}
		eta := rng.Float64()
		geo.Prox(z, zp, c, g, eta)
		phi := func(v []float64) float64 { return eta*dotf(g, v) + geo.Divergence(v, v, c) }
		best := phi(z)
		for range 20 {
			for i := range w {
				w[i] = z[i] + 1e-3*rng.NormFloat64()
			}
			if p := phi(w); p < best-1e-12*math.Abs(best) {
				t.Fatalf("φ(z + δ) = %.17g below φ(z) = %.17g", p, best)
			}
		}
	}
}

// TestCubicBall checks the certification ball: Support(g) = Radius ‖g‖
// bounds ⟨g, z⟩ for sampled z, with equality at z = Radius g/‖g‖; D² =
// Radius³/3 + σ Radius²/2 bounds R(z) − R(0) on the ball; without a radius
// both are +Inf (and Support(0) = 0); Validate refuses bad parameters.
func TestCubicBall(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	geo := &solver.Cubic{N: 6, Sigma: 1, Radius: 2.5}
	if err := geo.Validate(); err != nil {
		t.Fatal(err)
	}
	if d2, want := geo.DiameterSq(), 2.5*2.5*2.5/3+2.5*2.5/2; math.Abs(d2-want) > 1e-14 {
		t.Errorf("D² = %g, want %g", d2, want)
	}
	z, g := make([]float64, 6), make([]float64, 6)
	start := make([]float64, 6)
	geo.Start(start)
	for _, v := range start {
		if v != 0 {
			t.Fatalf("start %v, want 0", start)
		}
	}
	for range 500 {
		geo.Sample(z, rng)
		if n := math.Sqrt(dotf(z, z)); n > 2.5*(1+1e-15) {
			t.Fatalf("sample of norm %g outside the ball", n)
		}
		if r, _ := cubicR(z, 1); r > geo.DiameterSq() {
			t.Fatalf("R(z) = %g above D² = %g", r, geo.DiameterSq())
		}
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		if s := geo.Support(g); s < dotf(g, z)-1e-12 {
			t.Fatalf("support %g below ⟨g, z⟩ = %g", s, dotf(g, z))
		}
	}
	n := math.Sqrt(dotf(g, g))
	for i := range z {
		z[i] = 2.5 * g[i] / n
	}
	if s := geo.Support(g); math.Abs(s-dotf(g, z)) > 1e-12 {
		t.Errorf("support %g, ⟨g, z⟩ at the maximizer %g", s, dotf(g, z))
	}
	free := &solver.Cubic{N: 6, Sigma: 1}
	if !math.IsInf(free.Support(g), 1) || !math.IsInf(free.DiameterSq(), 1) {
		t.Errorf("no radius: support %g, D² %g, want +Inf", free.Support(g), free.DiameterSq())
	}
	if s := free.Support(make([]float64, 6)); s != 0 {
		t.Errorf("no radius: support of 0 is %g", s)
	}
	for _, bad := range []*solver.Cubic{
		{N: 0, Sigma: 1}, {N: 2, Sigma: -1}, {N: 2, Sigma: math.NaN()}, {N: 2, Sigma: math.Inf(1)},
		{N: 2, Radius: -1}, {N: 2, Radius: math.Inf(1)}, {N: 2, Radius: math.NaN()},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", *bad)
		}
	}
}

// FuzzCubicProx: for any finite centre, direction and step (within the
// range where ‖·‖³ is finite), the prox-mapping solves its equation and the
// divergences of the result are non-negative. The seed corpus runs with
// every go test.
func FuzzCubicProx(f *testing.F) {
	f.Add(1.0, -2.0, 0.5, 3.0, 0.0, -1.0, 0.7, 1.0)
	f.Add(0.0, 0.0, 0.0, 1e-9, 1e-9, 0.0, 1.0, 0.0)
	f.Add(1e6, -1e6, 3.0, -1e-6, 2e5, 7.0, 1e-3, 0.5)
	f.Add(-4.0, 4.0, 1e-8, 4.0, -4.0, 0.0, 1e3, 2.0)
	f.Fuzz(func(t *testing.T, c0, c1, c2, g0, g1, g2, eta, sigma float64) {
		vals := []float64{c0, c1, c2, g0, g1, g2, eta, sigma}
		for _, v := range vals {
			if math.IsNaN(v) || math.Abs(v) > 1e30 {
				t.Skip()
			}
		}
		if eta <= 0 || sigma < 0 || eta*math.Max(math.Max(math.Abs(g0), math.Abs(g1)), math.Abs(g2)) > 1e30 {
			t.Skip()
		}
		geo := &solver.Cubic{N: 3, Sigma: sigma}
		c, g := []float64{c0, c1, c2}, []float64{g0, g1, g2}
		checkCubicProx(t, geo, c, g, eta)
		z, zp := make([]float64, 3), make([]float64, 3)
		geo.Prox(z, zp, c, g, eta)
		if d := geo.Divergence(c, c, z); !(d >= 0) {
			t.Fatalf("D(c, z) = %g", d)
		}
	})
}
