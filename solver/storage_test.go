package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/solver"
)

// lastRecord keeps the last record of a solve and the Info's scale.
type lastRecord struct {
	scale float64
	rec   solver.Record
}

func (l *lastRecord) Init(info *solver.Info) error  { l.scale = info.Scale; return nil }
func (l *lastRecord) Record(r *solver.Record) error { l.rec = *r; return nil }

// TestStorageExponent: a game whose stored matrix is A·2^e, declared with
// SetStorageExponent(e), solves as A does, for every method and for the
// knobs in payoff units (OMWU's and the constant rule's steps, AdaProx's
// γ₀, mirror-prox's G0) and an absolute target: a power of two scales
// exactly, so the iterates are A's and the results, records and MaxAbs
// come out in A's units. AdaProx is not invariant to F's scale (see
// AdaProx): it runs in the stored matrix's units, so its reference is the
// stored matrix solved without the exponent, its results and knob
// converted here by hand. Auto ends at gaps of a few roundings, compared
// to max |A_ij|. e = 300 keeps the stored matrix in the solver's
// own range (the conversion is all the game's), e = −700 takes it below.
func TestStorageExponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	const m, n = 12, 9
	a := make([]float64, m*n)
	for i := range a {
		a[i] = 2*rng.Float64() - 1
	}
	type tc struct {
		name   string
		method func() solver.Method
		abs    float64
		sample bool
		// stored: the reference is the stored matrix, gamma0 its knob.
		stored bool
		gamma0 float64
	}
	var cases []tc
	for _, name := range solver.MethodNames() {
		cases = append(cases, tc{name: name, method: func() solver.Method { m, _ := solver.NewMethod(name); return m }, stored: name == "adaprox"})
	}
	cases = append(cases,
		tc{name: "omwu eta", method: func() solver.Method { return &solver.OMWU{Eta: 0.7} }},
		tc{name: "constant eta", method: func() solver.Method { return &solver.MirrorProx{Rule: &solver.Constant{Eta: 0.4}} }},
		tc{name: "adaprox gamma0", method: func() solver.Method { return &solver.MirrorProx{Rule: &solver.AdaProx{Gamma0: 0.3}} }, stored: true, gamma0: 0.3},
		tc{name: "ga-smooth g0", method: func() solver.Method { return &solver.MirrorProx{Rule: &solver.GASmooth{}, G0: 3} }},
		tc{name: "auto abs", method: func() solver.Method { return &solver.Auto{} }, abs: 2e-5},
		tc{name: "ga-bounded abs", method: func() solver.Method { return &solver.MirrorProx{Rule: &solver.GABounded{}} }, abs: 1e-3},
		tc{name: "sampled", method: func() solver.Method { return &solver.MirrorProx{Rule: &solver.GAStochastic{}} }, sample: true},
	)
	// solve solves A·2^e, declared as such when declare, else taken as it
	// is, with its results converted to A's units here.
	solve := func(t *testing.T, c tc, e int, declare bool) (*solver.Result, *lastRecord, float64) {
		t.Helper()
		d := make([]float64, len(a))
		for i, v := range a {
			d[i] = math.Ldexp(v, e)
		}
		g, err := solver.NewMatrixGameRows(m, n, d)
		if err != nil {
			t.Fatal(err)
		}
		method, abs, u := c.method(), c.abs, 1.0
		if declare {
			if err := g.SetStorageExponent(e); err != nil {
				t.Fatal(err)
			}
		} else {
			u = math.Ldexp(1, -e)
			abs /= u
			if c.gamma0 > 0 {
				method = &solver.MirrorProx{Rule: &solver.AdaProx{Gamma0: c.gamma0 * u}}
			}
		}
		var p solver.Problem = g
		if c.sample {
			p = &solver.SampledGame{Game: g, Batch: 3, Seed: 1}
		}
		rec := &lastRecord{}
		s := &solver.Settings{RelGap: 1e-4, AbsGap: abs, MaxIterations: 3000, Recorder: rec}
		if c.abs > 0 {
			s.RelGap = 0
		}
		res, err := solver.Solve(context.Background(), p, s, method)
		if err != nil {
			t.Fatal(err)
		}
		res.Gap *= u
		res.ValueLower *= u
		res.ValueUpper *= u
		res.Step /= u
		rec.scale *= u
		rec.rec.Gap *= u
		rec.rec.GapLast *= u
		rec.rec.ValueLower *= u
		rec.rec.Step /= u
		return res, rec, g.MaxAbs() * u
	}
	// close: equal up to a few roundings (the scaled solve is exact, but
	// no test may hang on an accident of summation order).
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range []int{300, -700} {
				want, wrec, wmax := solve(t, c, 0, true)
				if c.stored {
					want, wrec, wmax = solve(t, c, e, false)
				}
				close := func(x, y float64) bool {
					tol := 1e-12 * math.Max(math.Abs(x), math.Abs(y))
					if c.name == "auto" || c.name == "auto abs" {
						tol = 1e-12 * wmax
					}
					return x == y || math.Abs(x-y) <= tol
				}
				got, grec, gmax := solve(t, c, e, true)
				if got.Status != want.Status || got.Iterations != want.Iterations {
					t.Fatalf("2^%d: %v after %d iterations, want %v after %d", e, got.Status, got.Iterations, want.Status, want.Iterations)
				}
				for _, f := range []struct {
					what      string
					got, want float64
				}{
					{"gap", got.Gap, want.Gap}, {"relative gap", got.RelGap, want.RelGap},
					{"lower", got.ValueLower, want.ValueLower}, {"upper", got.ValueUpper, want.ValueUpper},
					{"step", got.Step, want.Step}, {"max |A|", gmax, wmax},
					{"record gap", grec.rec.Gap, wrec.rec.Gap}, {"record step", grec.rec.Step, wrec.rec.Step},
					{"record lower", grec.rec.ValueLower, wrec.rec.ValueLower},
					{"record last gap", grec.rec.GapLast, wrec.rec.GapLast},
					{"info scale", grec.scale, wrec.scale},
				} {
					if !close(f.got, f.want) {
						t.Errorf("2^%d: %s %g, want %g", e, f.what, f.got, f.want)
					}
				}
				if c.abs > 0 && !(got.Gap <= c.abs) {
					t.Errorf("2^%d: gap %g above the absolute target %g", e, got.Gap, c.abs)
				}
			}
		})
	}
}

// TestStorageExponentRange: an exponent beyond float64's exponents is
// refused, and the game keeps its units; one that carries the payoffs past
// float64's range gives max |A_ij| = +Inf.
func TestStorageExponentRange(t *testing.T) {
	g, err := solver.NewMatrixGameRows(1, 2, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []int{-2098, 2098, 5000} {
		if err := g.SetStorageExponent(e); err == nil {
			t.Errorf("2^%d accepted", e)
		}
	}
	if g.StorageExponent() != 0 || g.MaxAbs() != 2 {
		t.Errorf("exponent %d, max %g after refusals", g.StorageExponent(), g.MaxAbs())
	}
	if err := g.SetStorageExponent(3); err != nil || g.MaxAbs() != 0.25 {
		t.Errorf("2^3: %v, max %g, want 0.25", err, g.MaxAbs())
	}
	if err := g.SetStorageExponent(-1024); err != nil || !math.IsInf(g.MaxAbs(), 1) {
		t.Errorf("2^-1024: %v, max %g, want +Inf", err, g.MaxAbs())
	}
}
