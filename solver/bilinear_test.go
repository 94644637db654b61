package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
)

// TestBilinearSimplexLinear: on simplices, xᵀAy + bᵀx + cᵀy is the matrix
// game A + b1ᵀ + 1cᵀ, so the bilinear problem must reach the same value
// bracket, certified: its reported bracket is recomputed naively on the
// augmented matrix.
func TestBilinearSimplexLinear(t *testing.T) {
	const m, n = 40, 30
	rng := rand.New(rand.NewPCG(51, 1))
	a := uniformGame(51, m, n, -1, 1)
	b, c := make([]float64, m), make([]float64, n)
	for i := range b {
		b[i] = 0.3 * rng.NormFloat64()
	}
	for j := range c {
		c[j] = 0.3 * rng.NormFloat64()
	}
	d := a.Data().([]float64)
	aug := dense(m, n, func(i, j int) float64 { return d[i*n+j] + b[i] + c[j] })
	bg, err := solver.NewBilinear(a, solver.Block{Lin: b}, solver.Block{Lin: c})
	if err != nil {
		t.Fatal(err)
	}
	ref := solve(t, aug, "ga-smooth", &solver.Settings{AbsGap: 1e-7, MaxIterations: 200000})
	for _, setup := range []string{"entropic", "euclidean"} {
		res, err := solver.Solve(context.Background(), bg, &solver.Settings{AbsGap: 1e-7, MaxIterations: 200000}, method(t, "ga-smooth", "setup", setup))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Converged {
			t.Fatalf("%s: %v, gap %g", setup, res.Status, res.Gap)
		}
		checkGap(t, aug, res)
		if res.ValueLower > ref.ValueUpper+1e-12 || ref.ValueLower > res.ValueUpper+1e-12 {
			t.Errorf("%s: bracket [%.12g, %.12g], the augmented game's [%.12g, %.12g]", setup, res.ValueLower, res.ValueUpper, ref.ValueLower, ref.ValueUpper)
		}
	}
	for _, m := range []solver.Method{&solver.RegretMatching{}, &solver.OMWU{}} {
		if _, err := solver.Solve(context.Background(), bg, nil, m); err == nil {
			t.Errorf("%s accepted a game with linear terms", m.Name())
		}
	}
}

// TestBilinearBoxBall: max over a ball of w, min over a box of u, of
// wᵀBᵀu − cᵀw + bᵀu, solved on the backend, agrees with the same saddle
// point given to the host solver as a Monotone problem (its value is
// within both certified brackets), and its reported bracket is the naive
// saddle gap computed from the sets' support functions.
func TestBilinearBoxBall(t *testing.T) {
	const k, l = 12, 9 // u in the box [−1, 1]^k, w in the ball of radius 2
	rng := rand.New(rand.NewPCG(52, 2))
	bmat := make([]float64, k*l)
	for i := range bmat {
		bmat[i] = rng.NormFloat64()
	}
	b, c := make([]float64, k), make([]float64, l)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for j := range c {
		c[j] = rng.NormFloat64()
	}
	// Rows are the maximizer w (l), columns the minimizer u (k): A = Bᵀ.
	a := dense(l, k, func(j, i int) float64 { return bmat[i*l+j] })
	negC := make([]float64, l)
	for j := range c {
		negC[j] = -c[j]
	}
	lo, hi := make([]float64, k), make([]float64, k)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	ball := solver.Block{Center: make([]float64, l), Radius: 2, Lin: negC}
	box := solver.Block{Lo: lo, Hi: hi, Lin: b}
	g, err := solver.NewBilinear(a, ball, box)
	if err != nil {
		t.Fatal(err)
	}
	res, err := solver.Solve(context.Background(), g, &solver.Settings{AbsGap: 1e-6, MaxIterations: 200000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Converged {
		t.Fatalf("%v, gap %g after %d iterations", res.Status, res.Gap, res.Iterations)
	}
	w, u := res.Row, res.Column
	// max over the ball of f(w′, u) = Σ_j w′_j ((A u)_j − c_j) + bᵀu is
	// 2‖A u − c‖ + bᵀu.
	au := make([]float64, l)
	for j := range l {
		s := -c[j]
		for i := range k {
			s += a.Data().([]float64)[j*k+i] * u[i]
		}
		au[j] = s
	}
	bu := 0.0
	for i := range k {
		bu += b[i] * u[i]
	}
	var nrm float64
	for _, v := range au {
		nrm += v * v
	}
	upper := 2*math.Sqrt(nrm) + bu
	// min_{u′} f(w, u′) = Σ_i min over [−1, 1] of u′_i ((Aᵀw)_i + b_i) − cᵀw.
	lower := 0.0
	for i := range k {
		s := b[i]
		for j := range l {
			s += a.Data().([]float64)[j*k+i] * w[j]
		}
		lower -= math.Abs(s)
	}
	for j := range l {
		lower -= c[j] * w[j]
	}
	if math.Abs(upper-res.ValueUpper) > 1e-10 || math.Abs(lower-res.ValueLower) > 1e-10 {
		t.Errorf("bracket [%.12g, %.12g], naive [%.12g, %.12g]", res.ValueLower, res.ValueUpper, lower, upper)
	}
	for i, v := range u {
		if v < -1 || v > 1 {
			t.Fatalf("u[%d] = %g outside the box", i, v)
		}
	}
	if r := math.Sqrt(dotSelf(w)); r > 2*(1+1e-15) {
		t.Fatalf("‖w‖ = %g outside the ball", r)
	}

	// The host solver on the same saddle point (F(u, w) = (Bw + b,
	// −(Bᵀu − c)) over box × ball) brackets the same value.
	host := &solver.Monotone{F: boxBallOperator(bmat, b, c, k, l)}
	boxGeo, _ := solver.NewBox(k, -1, 1)
	host.Set = solver.NewProduct(boxGeo, &solver.Ball{Center: make([]float64, l), Radius: 2})
	hres, err := solver.Solve(context.Background(), host, &solver.Settings{AbsGap: 1e-6, MaxIterations: 200000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The host's point (u, w) has saddle values in its own gap; the
	// backend's bracket and the host's f at its point must overlap.
	hu, hw := hres.X[:k], hres.X[k:]
	f := 0.0
	for i := range k {
		for j := range l {
			f += hu[i] * bmat[i*l+j] * hw[j]
		}
		f += b[i] * hu[i]
	}
	for j := range l {
		f -= c[j] * hw[j]
	}
	if f < res.ValueLower-hres.Gap-1e-9 || f > res.ValueUpper+hres.Gap+1e-9 {
		t.Errorf("host f = %.10g (gap %.3g) outside the backend's bracket [%.10g, %.10g]", f, hres.Gap, res.ValueLower, res.ValueUpper)
	}
}

func dotSelf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

// TestBilinearInvalid: blocks that do not fit the matrix are errors.
func TestBilinearInvalid(t *testing.T) {
	a := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	for name, bl := range map[string][2]solver.Block{
		"lin length":    {{Lin: []float64{1}}, {}},
		"lin NaN":       {{}, {Lin: []float64{0, math.NaN(), 0}}},
		"box length":    {{Lo: []float64{0}, Hi: []float64{1}}, {}},
		"box inverted":  {{}, {Lo: []float64{0, 2, 0}, Hi: []float64{1, 1, 1}}},
		"ball radius":   {{Center: []float64{0, 0}}, {}},
		"ball centre":   {{Center: []float64{0}, Radius: 1}, {}},
		"box with ball": {{Lo: []float64{0, 0}, Hi: []float64{1, 1}, Center: []float64{0, 0}, Radius: 1}, {}},
	} {
		if _, err := solver.NewBilinear(a, bl[0], bl[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestEuclideanScales: the Euclidean setup's constants (norms of A's rows
// and columns) and linear terms on simplices are scale-free like the
// entropic game: a problem scaled by a power of two, down to subnormal
// payoffs and up to near overflow, takes the same iterations to the same
// relative gap as at scale 1.
func TestEuclideanScales(t *testing.T) {
	const m, n = 30, 20
	rng := rand.New(rand.NewPCG(53, 1))
	// max |A_ij| in [1, 2), where the internal unit brings the copies.
	d := uniformGame(53, m, n, -1, 1).Data().([]float64)
	b, c := make([]float64, m), make([]float64, n)
	for i := range b {
		b[i] = 0.3 * rng.NormFloat64()
	}
	for j := range c {
		c[j] = 0.3 * rng.NormFloat64()
	}
	scaled := func(s float64, v []float64) []float64 {
		w := make([]float64, len(v))
		for i, x := range v {
			w[i] = s * x
		}
		return w
	}
	for _, lin := range []bool{false, true} {
		var ref *solver.Result
		for _, s := range []float64{1, math.Ldexp(1, -1060), math.Ldexp(1, -1000), math.Ldexp(1, 1000)} {
			a := dense(m, n, func(i, j int) float64 { return 2 * s * d[i*n+j] })
			var row, col solver.Block
			if lin {
				row.Lin, col.Lin = scaled(s, b), scaled(s, c)
			}
			g, err := solver.NewBilinear(a, row, col)
			if err != nil {
				t.Fatal(err)
			}
			res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: 1e-3, MaxIterations: 20000}, method(t, "ga-smooth", "setup", "euclidean"))
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				continue
			}
			// Subnormal payoffs keep fewer digits: at 2^−1060 the
			// entries have about 40 bits, so the runs agree closely but
			// not bit for bit.
			tol := 0
			if s < 0x1p-1022 {
				tol = ref.Iterations / 20
			}
			if res.Status != ref.Status || max(res.Iterations-ref.Iterations, ref.Iterations-res.Iterations) > tol || math.IsInf(res.Gap, 0) {
				t.Errorf("linear terms %v, scale %g: %v after %d iterations, relative gap %g; at scale 1: %v after %d, %g",
					lin, s, res.Status, res.Iterations, res.RelGap, ref.Status, ref.Iterations, ref.RelGap)
			}
		}
	}
}
