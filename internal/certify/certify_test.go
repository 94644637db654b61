package certify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// exact returns the exact lower and upper ends of the pair's bracket, by
// rational arithmetic.
func exact(a *Dense, p, q []float64) (lower, upper *big.Rat) {
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	sum := func(x []float64) *big.Rat {
		s := new(big.Rat)
		for _, v := range x {
			s.Add(s, rat(v))
		}
		return s
	}
	sp, sq := sum(p), sum(q)
	for i := range a.M {
		s := new(big.Rat)
		for j, v := range a.Row(i) {
			s.Add(s, new(big.Rat).Mul(rat(v), rat(q[j])))
		}
		s.Quo(s, sq)
		if upper == nil || s.Cmp(upper) > 0 {
			upper = s
		}
	}
	for j := range a.N {
		s := new(big.Rat)
		for i := range a.M {
			s.Add(s, new(big.Rat).Mul(rat(a.Data[i*a.N+j]), rat(p[i])))
		}
		s.Quo(s, sp)
		if lower == nil || s.Cmp(lower) < 0 {
			lower = s
		}
	}
	return lower, upper
}

func contains(iv Interval, x *big.Rat) bool {
	return new(big.Rat).SetFloat64(iv.Lo).Cmp(x) <= 0 && x.Cmp(new(big.Rat).SetFloat64(iv.Hi)) <= 0
}

// TestCheckEncloses: the intervals contain the exact bracket and gap, on
// random games with random (unnormalized, sparse) strategies, on entries
// that cancel catastrophically and on entries spanning float64's range;
// and they are tight: a few ulps of the largest term.
func TestCheckEncloses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		m, n := 1+rng.IntN(40), 1+rng.IntN(40)
		a := &Dense{M: m, N: n, Data: make([]float64, m*n)}
		scale := math.Ldexp(1, rng.IntN(1200)-600)
		for k := range a.Data {
			switch trial % 3 {
			case 0:
				a.Data[k] = scale * (2*rng.Float64() - 1)
			case 1: // cancellation: ±1e16 beside small entries
				a.Data[k] = []float64{1e16, -1e16, 1, 3e-5}[rng.IntN(4)]
			default: // entries of every magnitude
				a.Data[k] = math.Ldexp(rng.NormFloat64(), rng.IntN(200)-100)
			}
		}
		p, q := make([]float64, m), make([]float64, n)
		for k := range p {
			if rng.IntN(3) > 0 {
				p[k] = rng.Float64()
			}
		}
		for k := range q {
			if rng.IntN(3) > 0 {
				q[k] = rng.Float64() * 7
			}
		}
		p[0], q[n-1] = p[0]+0.5, q[n-1]+0.5
		b, err := Check(a, p, q)
		if err != nil {
			t.Fatal(err)
		}
		lo, up := exact(a, p, q)
		if !contains(b.Lower, lo) || !contains(b.Upper, up) {
			t.Fatalf("trial %d: lower %v in [%g, %g]? upper %v in [%g, %g]?", trial, lo.FloatString(20), b.Lower.Lo, b.Lower.Hi, up.FloatString(20), b.Upper.Lo, b.Upper.Hi)
		}
		gap := new(big.Rat).Sub(up, lo)
		if !contains(b.Gap, gap) {
			t.Fatalf("trial %d: gap %v not in [%g, %g]", trial, gap.FloatString(20), b.Gap.Lo, b.Gap.Hi)
		}
		if g := b.ExactGap(); g.Cmp(gap) != 0 {
			t.Fatalf("trial %d: ExactGap %v, want %v", trial, g.FloatString(20), gap.FloatString(20))
		}
		// Tight: within 64 ulps of max |A| (every trial's strategies are
		// normalized by sums near 1 to 100).
		if w := b.Upper.Hi - b.Upper.Lo; w > 64*0x1p-52*b.MaxAbs+1e-300 {
			t.Errorf("trial %d: upper's interval %g wide, max |A| %g", trial, w, b.MaxAbs)
		}
	}
}

// TestDecide: claims decided in float64 where the bound allows, and
// exactly where it does not: uniform strategies of the identity written
// as 1/3 in float64 have gap exactly 0 (normalized, they are uniform),
// which no float64 enclosure can show.
func TestDecide(t *testing.T) {
	id := &Dense{M: 3, N: 3, Data: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	third := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	b, err := Check(id, third, third)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		claim float64
		want  Verdict
		exact bool
	}{
		{0, Holds, true},
		{1e-300, Holds, true},
		{1e-14, Holds, false},
		{1, Holds, false},
	} {
		if v, ex, err := b.Decide(c.claim); err != nil || v != c.want || ex != c.exact {
			t.Errorf("uniform pair, claim %g: %v, exact %v, %v; want %v, exact %v", c.claim, v, ex, err, c.want, c.exact)
		}
	}
	// A pair off by one ulp in one weight: its exact gap is positive, of
	// the order of 1e-17, below the float64 enclosure's width.
	off := []float64{1.0 / 3, math.Nextafter(1.0/3, 1), 1.0 / 3}
	b, err = Check(id, off, off)
	if err != nil {
		t.Fatal(err)
	}
	g := b.ExactGap()
	if g.Sign() <= 0 {
		t.Fatalf("ulp-off pair: exact gap %v, want > 0", g.FloatString(30))
	}
	gf, _ := g.Float64()
	if v, ex, _ := b.Decide(0); v != Fails || !ex {
		t.Errorf("ulp-off pair, claim 0: %v, exact %v; want fails, exactly", v, ex)
	}
	if v, ex, _ := b.Decide(math.Nextafter(gf, 1)); v != Holds || !ex {
		t.Errorf("ulp-off pair, claim just above its gap %g: %v, exact %v; want holds, exactly", gf, v, ex)
	}
	// Pure strategies on the identity: gap exactly 1.
	e1 := []float64{1, 0, 0}
	b, _ = Check(id, e1, e1)
	for _, c := range []struct {
		claim float64
		want  Verdict
	}{{0.5, Fails}, {1, Holds}, {math.Nextafter(1, 0), Fails}, {2, Holds}} {
		if v, _, err := b.Decide(c.claim); err != nil || v != c.want {
			t.Errorf("pure pair, claim %v: %v, %v; want %v", c.claim, v, err, c.want)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := b.Decide(bad); err == nil {
			t.Errorf("claim %v: no error", bad)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	a := &Dense{M: 2, N: 2, Data: []float64{1, 2, 3, 4}}
	for _, c := range []struct {
		a    *Dense
		p, q []float64
		want string
	}{
		{a, []float64{1}, []float64{1, 0}, "strategies of length 1 and 2 for a 2×2 game"},
		{a, []float64{1, -1e-300}, []float64{1, 0}, "row strategy entry 1 is -1e-300"},
		{a, []float64{1, 0}, []float64{math.NaN(), 1}, "column strategy entry 0 is NaN"},
		{a, []float64{1, 0}, []float64{math.Inf(1), 1}, "column strategy entry 0 is +Inf"},
		{a, []float64{0, 0}, []float64{1, 0}, "row strategy: sums to 0"},
		{&Dense{M: 1, N: 2, Data: []float64{1, math.Inf(-1)}}, []float64{1}, []float64{1, 1}, "entry (0, 1) of A is -Inf"},
		{&Dense{M: 1, N: 2, Data: []float64{math.MaxFloat64, math.MaxFloat64}}, []float64{1}, []float64{1, 1}, "overflows"},
		{&Dense{}, nil, nil, "game of 0×0"},
	} {
		if _, err := Check(c.a, c.p, c.q); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "certify: ") {
			t.Errorf("%v, %v: error %v, want %q", c.p, c.q, err, c.want)
		}
	}
}

// TestDecideRat: a rational claim that no float64 holds is decided on
// its exact value: the pure pair's gap 1 against 1 ± 10⁻³⁰.
func TestDecideRat(t *testing.T) {
	id := &Dense{M: 2, N: 2, Data: []float64{1, 0, 0, 1}}
	e1 := []float64{1, 0}
	b, err := Check(id, e1, e1)
	if err != nil {
		t.Fatal(err)
	}
	tiny, _ := new(big.Rat).SetString("1/1000000000000000000000000000000")
	one := big.NewRat(1, 1)
	above, below := new(big.Rat).Add(one, tiny), new(big.Rat).Sub(one, tiny)
	if v, _, err := b.DecideRat(above); err != nil || v != Holds {
		t.Errorf("claim 1+1e-30: %v, %v", v, err)
	}
	if v, _, err := b.DecideRat(below); err != nil || v != Fails {
		t.Errorf("claim 1-1e-30: %v, %v", v, err)
	}
	if _, _, err := b.DecideRat(big.NewRat(-1, 3)); err == nil {
		t.Error("claim -1/3: no error")
	}
}

// TestFloatGapBound computes gaps in plain float64 (normalized strategies,
// sums in three orders) and checks that each is within FloatGapBound of
// the exact gap, on games of several shapes, scales and seeds.
func TestFloatGapBound(t *testing.T) {
	for _, tc := range []struct {
		m, n  int
		scale float64
	}{{3, 2, 1}, {60, 40, 1e-8}, {300, 200, 12.5}, {40, 900, 1e8}, {700, 30, 3.7}} {
		r := rand.New(rand.NewPCG(uint64(tc.m), uint64(tc.n)))
		a := make([]float64, tc.m*tc.n)
		for k := range a {
			a[k] = tc.scale * r.NormFloat64()
		}
		p, q := make([]float64, tc.m), make([]float64, tc.n)
		for _, v := range [][]float64{p, q} {
			var s float64
			for k := range v {
				v[k] = r.Float64() * r.Float64()
				s += v[k]
			}
			for k := range v {
				v[k] /= s
			}
		}
		b, err := Check(&Dense{M: tc.m, N: tc.n, Data: a}, p, q)
		if err != nil {
			t.Fatal(err)
		}
		exact := b.ExactGap()
		bound := FloatGapBound(tc.m, tc.n, b.MaxAbs)
		for order := range 3 {
			sum := func(n int, term func(k int) float64) float64 {
				var s float64
				switch order {
				case 0:
					for k := range n {
						s += term(k)
					}
				case 1:
					for k := n - 1; k >= 0; k-- {
						s += term(k)
					}
				default:
					for k := range n {
						s = math.FMA(1, term(k), s)
					}
				}
				return s
			}
			hi, lo := math.Inf(-1), math.Inf(1)
			for i := range tc.m {
				hi = math.Max(hi, sum(tc.n, func(j int) float64 { return a[i*tc.n+j] * q[j] }))
			}
			for j := range tc.n {
				lo = math.Min(lo, sum(tc.m, func(i int) float64 { return a[i*tc.n+j] * p[i] }))
			}
			diff := new(big.Rat).Sub(new(big.Rat).SetFloat64(hi-lo), exact)
			d, _ := diff.Float64()
			if math.Abs(d) > bound {
				t.Errorf("%d×%d ×%g, order %d: float gap %.17g off the exact by %.3g, bound %.3g", tc.m, tc.n, tc.scale, order, hi-lo, d, bound)
			}
		}
	}
}
