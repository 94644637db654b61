package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/solver"
)

// gameOperator is a matrix game written as a plain Go operator.
type gameOperator struct {
	a    []float64
	m, n int
}

func (g *gameOperator) Apply(dst, z []float64) {
	p, q := z[:g.m], z[g.m:]
	fp, fq := dst[:g.m], dst[g.m:]
	clear(fq)
	for i := range g.m {
		var s float64
		row := g.a[i*g.n : (i+1)*g.n]
		for j, v := range row {
			s += v * q[j]
			fq[j] += v * p[i]
		}
		fp[i] = -s
	}
}

// gapTrace records the certified gaps of the average and of the last
// iterate at every iteration.
type gapTrace struct{ avg, last []float64 }

func (g *gapTrace) Init(*solver.Info) error { return nil }
func (g *gapTrace) Record(r *solver.Record) error {
	g.avg, g.last = append(g.avg, r.GapAverage), append(g.last, r.GapLast)
	return nil
}

// TestMonotoneMatchesGame: the same game solved through the Go operator
// interface with a product of entropic simplices follows the backend path's
// iterates: both run the same loop and rules, so the certified gaps of the
// average and of the last iterate agree at every iteration up to rounding.
// (The returned points may differ: a game keeps each player's best
// strategy separately, a general problem the best whole point.)
func TestMonotoneMatchesGame(t *testing.T) {
	m, n := 30, 45
	a := uniformGame(77, m, n, -1, 1)
	g, _ := solver.NewMatrixGame(a)
	for _, name := range []string{"ga-smooth", "ga-bounded", "bach-levy", "constant", "amp", "adaprox", "backtracking"} {
		var want, got gapTrace
		meth, _ := solver.NewMethod(name)
		if _, err := solver.Solve(context.Background(), g, &solver.Settings{MaxIterations: 200, Recorder: &want}, meth); err != nil {
			t.Fatal(err)
		}
		p := &solver.Monotone{
			F:         &gameOperator{a: a.Data().([]float64), m: m, n: n},
			Set:       solver.NewProduct(solver.EntropicSimplex{N: m}, solver.EntropicSimplex{N: n}),
			Bound:     g.MaxAbs(), // the game's G0 and L
			Lipschitz: g.MaxAbs(),
		}
		meth, _ = solver.NewMethod(name)
		if _, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: 200, Recorder: &got}, meth); err != nil {
			t.Fatal(err)
		}
		if len(got.avg) != len(want.avg) {
			t.Fatalf("%s: %d records, game path %d", name, len(got.avg), len(want.avg))
		}
		for i := 1; i < len(got.avg); i++ {
			if math.Abs(got.avg[i]-want.avg[i]) > 1e-9 || math.Abs(got.last[i]-want.last[i]) > 1e-9 {
				t.Fatalf("%s: iteration %d: gaps %.12g, %.12g; game path %.12g, %.12g",
					name, i, got.avg[i], got.last[i], want.avg[i], want.last[i])
			}
		}
	}
}

// boxBallOperator is F(u, w) = (B w + b, −(Bᵀu − c)), the operator of
// min_u max_w uᵀBw + bᵀu − cᵀw with B k×l row-major.
func boxBallOperator(B, b, c []float64, k, l int) solver.Operator {
	return solver.OperatorFunc(func(dst, z []float64) {
		u, w := z[:k], z[k:]
		for i := range k {
			s := b[i]
			for j := range l {
				s += B[i*l+j] * w[j]
			}
			dst[i] = s
		}
		for j := range l {
			s := -c[j]
			for i := range k {
				s += B[i*l+j] * u[i]
			}
			dst[k+j] = -s
		}
	})
}

// TestBilinearBoxes solves min_{u∈[-1,1]^k} max_{w∈ball} uᵀBw + bᵀu − cᵀw,
// a bilinear saddle point with Euclidean sets, and checks the certified gap
// against a brute-force evaluation of the saddle gap at the returned point.
func TestBilinearBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	k, l := 8, 6
	B := make([]float64, k*l)
	b, c := make([]float64, k), make([]float64, l)
	for i := range B {
		B[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for i := range c {
		c[i] = rng.NormFloat64()
	}
	F := boxBallOperator(B, b, c, k, l)
	box, err := solver.NewBox(k, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ball := &solver.Ball{Center: make([]float64, l), Radius: 2}
	p := &solver.Monotone{F: F, Set: solver.NewProduct(box, ball)}
	res, err := solver.Solve(context.Background(), p, &solver.Settings{AbsGap: 1e-6, MaxIterations: 200000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged {
		t.Fatalf("%v, gap %g after %d iterations", res.Status, res.Gap, res.Iterations)
	}
	// Saddle gap max_w f(u, w) − min_u f(u, w): linear in each block.
	u, w := res.X[:k], res.X[k:]
	bu := 0.0
	for i := range k {
		bu += b[i] * u[i]
	}
	cw := 0.0
	for j := range l {
		cw += c[j] * w[j]
	}
	var hiW, loU float64
	var norm float64
	for j := range l { // max over the ball of ⟨Bᵀu − c, w'⟩ = 2‖Bᵀu − c‖
		s := -c[j]
		for i := range k {
			s += B[i*l+j] * u[i]
		}
		norm += s * s
	}
	hiW = bu + 2*math.Sqrt(norm)
	for i := range k { // min over the box of ⟨B w + b, u'⟩ = −Σ|·|
		s := b[i]
		for j := range l {
			s += B[i*l+j] * w[j]
		}
		loU -= math.Abs(s)
	}
	loU -= cw
	gap := hiW - loU
	if math.Abs(gap-res.Gap) > 1e-9 || gap > 1e-6+1e-12 {
		t.Errorf("certified gap %.12g, brute force %.12g", res.Gap, gap)
	}
}

// TestConvexMinimization minimizes ½‖x − x0‖² over the simplex (F = x − x0),
// whose solution is the projection of x0; the gap bounds f(x) − f*.
func TestConvexMinimization(t *testing.T) {
	x0 := []float64{0.9, 0.5, -0.2, 0.3, 0.05}
	F := solver.OperatorFunc(func(dst, z []float64) {
		for i := range z {
			dst[i] = z[i] - x0[i]
		}
	})
	for _, geo := range []solver.Geometry{solver.EuclideanSimplex{N: 5}, solver.EntropicSimplex{N: 5}} {
		res, err := solver.Solve(context.Background(), &solver.Monotone{F: F, Set: geo}, &solver.Settings{AbsGap: 1e-7, MaxIterations: 100000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The projection of x0 onto the simplex: τ = 0.7/3 gives
		// (2/3, 4/15, 0, 1/15, 0).
		want := []float64{2.0 / 3, 4.0 / 15, 0, 1.0 / 15, 0}
		f := func(x []float64) float64 {
			var s float64
			for i := range x {
				s += (x[i] - x0[i]) * (x[i] - x0[i]) / 2
			}
			return s
		}
		if res.Status != solver.Converged {
			t.Fatalf("%T: %v, gap %g", geo, res.Status, res.Gap)
		}
		if d := f(res.X) - f(want); d < -1e-12 || d > res.Gap+1e-12 {
			t.Errorf("%T: f(x) − f* = %g, certified gap %g", geo, d, res.Gap)
		}
		for i := range want {
			if math.Abs(res.X[i]-want[i]) > 1e-3 {
				t.Errorf("%T: x = %v, want %v", geo, res.X, want)
				break
			}
		}
	}
}

// TestMonotoneErrors: invalid problems and settings are errors.
func TestMonotoneErrors(t *testing.T) {
	// F = ∇½‖z − e₁‖²: the uniform start is not the solution.
	F := solver.OperatorFunc(func(dst, z []float64) {
		copy(dst, z)
		dst[0]--
	})
	nan := solver.OperatorFunc(func(dst, z []float64) { dst[0] = math.NaN() })
	box := &solver.Box{Lo: []float64{0, 0}, Hi: []float64{1}}
	badBall := &solver.Ball{Center: []float64{0, 0}, Radius: -1}
	unbounded := &solver.Monotone{F: F, Set: &solver.Ball{Center: []float64{0}, Radius: math.Inf(1)}}
	cases := map[string]struct {
		p solver.Problem
		m solver.Method
	}{
		"no operator":     {&solver.Monotone{Set: solver.EuclideanSimplex{N: 2}}, nil},
		"no set":          {&solver.Monotone{F: F}, nil},
		"rm+ on operator": {&solver.Monotone{F: F, Set: solver.EuclideanSimplex{N: 2}}, &solver.RegretMatching{}},
		"constant, no L":  {&solver.Monotone{F: F, Set: solver.EuclideanSimplex{N: 2}}, &solver.MirrorProx{Rule: &solver.Constant{}}},
		"NaN operator":    {&solver.Monotone{F: nan, Set: solver.EuclideanSimplex{N: 2}}, nil},
		"unbounded, no D": {unbounded, nil},
		"nil problem":     {nil, nil},
		"box lengths":     {&solver.Monotone{F: F, Set: box}, nil},
		"negative radius": {&solver.Monotone{F: F, Set: badBall}, nil},
		"empty simplex":   {&solver.Monotone{F: F, Set: solver.NewProduct(solver.EuclideanSimplex{N: 2}, solver.EntropicSimplex{N: 0})}, nil},
		"nil block":       {&solver.Monotone{F: F, Set: solver.NewProduct(solver.EuclideanSimplex{N: 2}, nil)}, nil},
		"negative bound":  {&solver.Monotone{F: F, Set: solver.EuclideanSimplex{N: 2}, Bound: -1}, nil},
	}
	for name, c := range cases {
		if _, err := solver.Solve(context.Background(), c.p, nil, c.m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
