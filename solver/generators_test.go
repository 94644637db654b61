package solver_test

import (
	"context"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// bracketTol is the rounding allowed on each end of a value bracket: the
// solver computes A q and Aᵀp in float64 (about n·2⁻⁵³·max|A_ij| ≈ 1e-14
// here) and the known values are themselves rounded.
const bracketTol = 1e-12

// generatedGame generates the game of spec (see datasets.ParseGenSpec).
func generatedGame(t *testing.T, dt tensor.Dtype, spec string) (datasets.GenSpec, *tensor.Dense) {
	t.Helper()
	s, err := datasets.ParseGenSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	a, err := datasets.Generate(dt, s)
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

// solveOn solves a with the named method on the CPU backend be.
func solveOn(t *testing.T, be tensorops.Backend, a *tensor.Dense, method string, s solver.Settings) *solver.Result {
	t.Helper()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.NewMethod(method)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Place(be); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := solver.Solve(context.Background(), g, &s, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// naiveBracket recomputes min_j (Aᵀp)_j and max_i (A q)_i of a result with
// a plain double loop over the float64 or float32 entries of a.
func naiveBracket(a *tensor.Dense, res *solver.Result) (lo, hi float64) {
	m, n := a.Shape()[0], a.Shape()[1]
	at := func(i, j int) float64 {
		switch d := a.Data().(type) {
		case []float64:
			return d[i*n+j]
		default:
			return float64(d.([]float32)[i*n+j])
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range m {
		var s float64
		for j := range n {
			s += at(i, j) * res.Column[j]
		}
		hi = math.Max(hi, s)
	}
	for j := range n {
		var s float64
		for i := range m {
			s += at(i, j) * res.Row[i]
		}
		lo = math.Min(lo, s)
	}
	return lo, hi
}

// checkCertificate checks that a result reached its target and that its
// bracket is the one its strategies certify.
func checkCertificate(t *testing.T, a *tensor.Dense, res *solver.Result, target float64) {
	t.Helper()
	if res.Status != solver.Converged || !(res.RelGap <= target) {
		t.Errorf("status %v after %d iterations, relative gap %.3g (target %.3g)", res.Status, res.Iterations, res.RelGap, target)
	}
	if g := res.ValueUpper - res.ValueLower; math.Abs(g-res.Gap) > bracketTol {
		t.Errorf("gap %.17g, bracket width %.17g", res.Gap, g)
	}
	lo, hi := naiveBracket(a, res)
	if math.Abs(lo-res.ValueLower) > bracketTol || math.Abs(hi-res.ValueUpper) > bracketTol {
		t.Errorf("bracket [%.17g, %.17g], recomputed [%.17g, %.17g]", res.ValueLower, res.ValueUpper, lo, hi)
	}
}

// TestGeneratedKnownValues solves every generated game whose value is known
// in closed form (datasets.GenSpec.Value) and checks that the certified
// bracket contains it and that the gap target is met.
func TestGeneratedKnownValues(t *testing.T) {
	be := tensorops.NewCPU(2)
	defer be.Close()
	cases := []struct {
		spec   string
		method string
		target float64 // relative gap
		iters  int
	}{
		// The uniform start is optimal: every method stops at once.
		{"identity:n=7", "ga-stochastic", 1e-9, 10},
		{"cyclic:n=5", "ga-stochastic", 1e-9, 10},
		{"cyclic:n=9", "rm+", 1e-9, 10},
		// Pure saddle points.
		{"saddle:m=30,n=40,seed=1", "ga-stochastic", 1e-5, 20000},
		{"saddle:m=30,n=40,seed=1", "rm+", 1e-5, 20000},
		{"nemirovski:n=60,family=1,alpha=2", "rm+", 1e-5, 20000},
		{"rankone:m=5,n=7,sigma=0,seed=17", "ga-stochastic", 1e-5, 20000}, // value -0.477…
		// Mixed equilibria.
		{"nemirovski:n=50,family=2,alpha=1", "ga-stochastic", 1e-6, 20000},
		{"nemirovski:n=50,family=2,alpha=1", "rm+", 1e-5, 20000},
		{"rankone:m=200,n=300,sigma=0,seed=1", "ga-stochastic", 1e-5, 20000}, // value 0
		{"rankone:m=200,n=300,sigma=0,seed=1", "rm+", 1e-6, 20000},
	}
	for _, c := range cases {
		t.Run(c.spec+"/"+c.method, func(t *testing.T) {
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				if dt == tensor.Float32 && c.method != "rm+" {
					continue // one float32 run per game is enough
				}
				s, a := generatedGame(t, dt, c.spec)
				v, ok := s.Value()
				if !ok {
					t.Fatalf("%s: value not known", s)
				}
				res := solveOn(t, be, a, c.method, solver.Settings{RelGap: c.target, MaxIterations: c.iters})
				checkCertificate(t, a, res, c.target)
				// The float32 game's value is within the rounding of its
				// entries of the float64 game's, 2⁻²⁴ max|A_ij|.
				tol := bracketTol
				if dt == tensor.Float32 {
					tol += math.Ldexp(maxAbs(a), -24)
				}
				if !(res.ValueLower-tol <= v && v <= res.ValueUpper+tol) {
					t.Errorf("%v: bracket [%.15g, %.15g] misses the value %.15g (tolerance %.2g)", dt, res.ValueLower, res.ValueUpper, v, tol)
				}
				t.Logf("%v: %d iterations, %d passes, bracket [%.10g, %.10g], value %.10g, %v",
					dt, res.Iterations, res.MatrixPasses, res.ValueLower, res.ValueUpper, v, res.Runtime)
			}
		})
	}
}

func maxAbs(a *tensor.Dense) float64 {
	var mx float64
	switch d := a.Data().(type) {
	case []float64:
		for _, x := range d {
			mx = math.Max(mx, math.Abs(x))
		}
	case []float32:
		for _, x := range d {
			mx = math.Max(mx, math.Abs(float64(x)))
		}
	}
	return mx
}

// TestGeneratedPoliceGrid solves police-and-burglar games, whose value is
// not known in closed form, with two unrelated methods (regret matching+
// and mirror-prox with the ga-stochastic rule) to a small gap: both
// brackets contain the value, so they must overlap, and the two midpoints
// agree within the sum of the gaps.
func TestGeneratedPoliceGrid(t *testing.T) {
	be := tensorops.NewCPU(2)
	defer be.Close()
	for _, c := range []struct {
		spec   string
		target float64
	}{
		{"police:n=144,layout=grid,theta=0.1,seed=2", 1e-5},
		{"police:n=225,layout=grid,theta=0.5,seed=1", 1e-5},
		{"police:n=100,layout=line,theta=0.2,seed=3", 1e-5},
	} {
		t.Run(c.spec, func(t *testing.T) {
			s, a := generatedGame(t, tensor.Float64, c.spec)
			if _, ok := s.Value(); ok {
				t.Fatalf("%s: a closed-form value; the test expects none", s)
			}
			settings := solver.Settings{RelGap: c.target, MaxIterations: 50000}
			rm := solveOn(t, be, a, "rm+", settings)
			ga := solveOn(t, be, a, "ga-stochastic", settings)
			for _, res := range []*solver.Result{rm, ga} {
				checkCertificate(t, a, res, c.target)
				t.Logf("%s: %d iterations, %d passes, bracket [%.10g, %.10g], gap %.3g, %v",
					res.Method, res.Iterations, res.MatrixPasses, res.ValueLower, res.ValueUpper, res.Gap, res.Runtime)
			}
			if lo, hi := math.Max(rm.ValueLower, ga.ValueLower), math.Min(rm.ValueUpper, ga.ValueUpper); lo > hi+bracketTol {
				t.Errorf("brackets [%.15g, %.15g] (rm+) and [%.15g, %.15g] (ga-stochastic) do not overlap",
					rm.ValueLower, rm.ValueUpper, ga.ValueLower, ga.ValueUpper)
			}
			mid := func(r *solver.Result) float64 { return (r.ValueLower + r.ValueUpper) / 2 }
			if d := math.Abs(mid(rm) - mid(ga)); d > rm.Gap+ga.Gap+bracketTol {
				t.Errorf("midpoints differ by %.3g, more than the gaps %.3g + %.3g", d, rm.Gap, ga.Gap)
			}
		})
	}
}
