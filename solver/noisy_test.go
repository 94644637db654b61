package solver_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gpump/gpump/solver"
)

// constOperator returns the same vector everywhere.
type constOperator []float64

func (c constOperator) Apply(dst, _ []float64) { copy(dst, c) }

// TestNoisyMoments: over N calls, each entry of Noisy(F, σ) has mean F
// within 5 standard errors (σ/√N), variance σ² within 4% (the standard
// error of a variance estimate is σ²·√(2/N) ≈ 0.7% here), and no
// correlation between entries or between consecutive calls beyond 5/√N.
// σ = 0 returns F exactly.
func TestNoisyMoments(t *testing.T) {
	const d, calls = 6, 40000
	c := constOperator{1, -2, 0, 3.5, 1e-3, -7}
	for _, sigma := range []float64{0, 0.1, 2.5} {
		op := solver.Noisy(c, sigma, 11)
		var sum, sum2 [d]float64
		var cross, lag float64 // Σ ξ_0 ξ_1 and Σ ξ_0(t) ξ_0(t−1)
		prev := 0.0
		dst, z := make([]float64, d), make([]float64, d)
		for range calls {
			op.Apply(dst, z)
			if sigma == 0 && !slices.Equal(dst, c) {
				t.Fatalf("σ = 0: %v, want %v", dst, c)
			}
			for i, v := range dst {
				sum[i] += v
				sum2[i] += (v - c[i]) * (v - c[i])
			}
			if sigma > 0 {
				e0, e1 := (dst[0]-c[0])/sigma, (dst[1]-c[1])/sigma
				cross += e0 * e1
				lag += e0 * prev
				prev = e0
			}
		}
		if sigma == 0 {
			continue
		}
		for i := range d {
			mean, v := sum[i]/calls, sum2[i]/calls
			if se := sigma / math.Sqrt(calls); math.Abs(mean-c[i]) > 5*se {
				t.Errorf("σ = %g, entry %d: mean %.6g, want %g ± %.3g", sigma, i, mean, c[i], 5*se)
			}
			if math.Abs(v/(sigma*sigma)-1) > 0.04 {
				t.Errorf("σ = %g, entry %d: variance %.6g, want %.6g", sigma, i, v, sigma*sigma)
			}
		}
		if lim := 5 / math.Sqrt(calls); math.Abs(cross/calls) > lim || math.Abs(lag/calls) > lim {
			t.Errorf("σ = %g: correlation between entries %.4f, between calls %.4f (limit %.4f)", sigma, cross/calls, lag/calls, lim)
		}
	}
}

// TestNoisyReproducible: the same seed gives the same noise, another seed
// other noise.
func TestNoisyReproducible(t *testing.T) {
	c := constOperator{1, 2, 3}
	draw := func(seed uint64) []float64 {
		op := solver.Noisy(c, 1, seed)
		var out []float64
		dst := make([]float64, 3)
		for range 5 {
			op.Apply(dst, nil)
			out = append(out, dst...)
		}
		return out
	}
	if !slices.Equal(draw(3), draw(3)) {
		t.Error("seed 3 gave two sequences")
	}
	if slices.Equal(draw(3), draw(4)) {
		t.Error("seeds 3 and 4 gave the same sequence")
	}
}

// TestNoisyBadSigma: a negative, NaN or infinite σ panics.
func TestNoisyBadSigma(t *testing.T) {
	for _, sigma := range []float64{-1, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("σ = %g: no panic", sigma)
				}
			}()
			solver.Noisy(constOperator{1}, sigma, 1)
		}()
	}
}

// averager wraps an operator and keeps the uniform average of the points
// x_1, x_2, … at which mirror-prox evaluates g_t: with a fixed G0 (no
// random points) and a rule that rejects nothing, the calls are F(y_0),
// then F(x_t), F(y_t) for t = 1, 2, …. At the iterations listed in at
// it stores the exact gap of that average.
type averager struct {
	f     *gameOperator
	inner solver.Operator
	calls int
	avg   []float64
	at    map[int]float64
}

func (a *averager) Apply(dst, z []float64) {
	if a.calls%2 == 1 {
		t := a.calls/2 + 1
		for i, v := range z {
			a.avg[i] += (v - a.avg[i]) / float64(t)
		}
		if _, ok := a.at[t]; ok {
			a.at[t] = a.f.gap(a.avg)
		}
	}
	a.calls++
	a.inner.Apply(dst, z)
}

// gap is max_i (A q)_i − min_j (Aᵀp)_j at z = (p, q).
func (g *gameOperator) gap(z []float64) float64 {
	f := make([]float64, g.m+g.n)
	g.Apply(f, z)
	return -slices.Min(f[:g.m]) - slices.Min(f[g.m:])
}

// TestNoisyRate: a matrix game written as a Monotone problem, its operator
// wrapped by Noisy with σ = 1 on every entry (a smooth problem with a
// stochastic oracle): the exact gap of ga-stochastic's uniform average
// falls like √(log T / T) (paper Theorem 6.1). The
// least-squares slope of log gap against log T at T = 300, 400, …, 3000,
// the log gaps averaged over 8 seeds, must lie in [−0.75, −0.3].
func TestNoisyRate(t *testing.T) {
	if testing.Short() {
		t.Skip("long in -short mode")
	}
	const m, n, seeds, first, last, step = 30, 40, 8, 300, 3000, 100
	a := uniformGame(21, m, n, -1, 1)
	game := &gameOperator{a: a.Data().([]float64), m: m, n: n}
	logGap := map[int]float64{}
	for seed := range uint64(seeds) {
		rec := &averager{f: game, inner: solver.Noisy(game, 1, seed), avg: make([]float64, m+n), at: map[int]float64{}}
		for it := first; it <= last; it += step {
			rec.at[it] = 0
		}
		p := &solver.Monotone{
			F:   rec,
			Set: solver.NewProduct(solver.EntropicSimplex{N: m}, solver.EntropicSimplex{N: n}),
			// G0: the noiseless bound max |A_ij| plus about 3σ (l∞ norm)
			Bound: 4,
		}
		res, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: last}, &solver.MirrorProx{Rule: &solver.GAStochastic{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations != last || rec.calls != 2*last {
			t.Fatalf("%d iterations, %d operator calls", res.Iterations, rec.calls)
		}
		for it, g := range rec.at {
			logGap[it] += math.Log(g) / seeds
		}
	}
	var xs, ys []float64
	for it := first; it <= last; it += step {
		xs, ys = append(xs, math.Log(float64(it))), append(ys, logGap[it])
	}
	slope := solver.FitSlope(xs, ys)
	t.Logf("slope %.3f (geometric mean gap %.3g at %d, %.3g at %d)", slope, math.Exp(logGap[first]), first, math.Exp(logGap[last]), last)
	if slope < -0.75 || slope > -0.3 {
		t.Errorf("slope %.3f outside [-0.75, -0.3]", slope)
	}
}

// TestNoisyExactCertifies: with Monotone.Exact, the gap Solve reports under
// a noisy operator is a certificate: on a 30×40 game written as a Monotone
// problem (σ = 1, 400 iterations of ga-stochastic, seeds 0–7) it is at least
// the exact gap of the returned point, while the noisy estimate without
// Exact falls below it on some seed (which is why Exact exists). With σ = 0
// and Exact = F the run is the run without Exact, to the bit. Every trial
// and the start cost one exact evaluation, and none counts as an Evaluation.
func TestNoisyExactCertifies(t *testing.T) {
	const m, n, iters = 30, 40, 400
	a := uniformGame(21, m, n, -1, 1)
	game := &gameOperator{a: a.Data().([]float64), m: m, n: n}
	set := func() solver.Geometry {
		return solver.NewProduct(solver.EntropicSimplex{N: m}, solver.EntropicSimplex{N: n})
	}
	solve := func(p *solver.Monotone) *solver.Result {
		t.Helper()
		res, err := solver.Solve(context.Background(), p, &solver.Settings{MaxIterations: iters}, &solver.MirrorProx{Rule: &solver.GAStochastic{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	plain := solve(&solver.Monotone{F: game, Set: set(), Bound: 1})
	same := solve(&solver.Monotone{F: solver.Noisy(game, 0, 1), Exact: game, Set: set(), Bound: 1})
	if plain.Gap != same.Gap || !slices.Equal(plain.X, same.X) {
		t.Errorf("σ = 0: gap %v with Exact, %v without", same.Gap, plain.Gap)
	}
	if same.ExactEvaluations != same.Iterations+1 || same.Evaluations != plain.Evaluations {
		t.Errorf("%d exact evaluations and %d evaluations for %d iterations, want %d and %d",
			same.ExactEvaluations, same.Evaluations, same.Iterations, same.Iterations+1, plain.Evaluations)
	}

	underestimates := 0
	for seed := range uint64(8) {
		certified := solve(&solver.Monotone{F: solver.Noisy(game, 1, seed), Exact: game, Set: set(), Bound: 4})
		if g := game.gap(certified.X); certified.Gap < g*(1-1e-12) {
			t.Errorf("seed %d: reported gap %.6g below the exact gap %.6g of the returned point", seed, certified.Gap, g)
		}
		estimate := solve(&solver.Monotone{F: solver.Noisy(game, 1, seed), Set: set(), Bound: 4})
		if estimate.Gap < game.gap(estimate.X) {
			underestimates++
		}
	}
	t.Logf("the noisy estimate fell below the exact gap on %d of 8 seeds", underestimates)
	if underestimates == 0 {
		t.Error("the noisy estimate never fell below the exact gap: the test no longer shows what Exact is for")
	}
}
