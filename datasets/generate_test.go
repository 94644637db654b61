package datasets

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"gorgonia.org/tensor"
)

// gameValue returns the value max_p min_q pᵀAq of the m×n game a
// (row-major), solved as a linear program with gonum's simplex method.
//
// With B = A - min(A) + 1 > 0, the value of B is 1/min{Σx : Bᵀx >= 1,
// x >= 0}, and the value of A is that minus 1 - min(A).
func gameValue(t *testing.T, a []float64, m, n int) float64 {
	t.Helper()
	lo := math.Inf(1)
	for _, v := range a {
		lo = math.Min(lo, v)
	}
	// Standard form: variables x (m) and slacks s (n), Bᵀx - s = 1.
	A := mat.NewDense(n, m+n, nil)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			A.Set(j, i, a[i*n+j]-lo+1)
		}
		A.Set(j, m+j, -1)
	}
	c := make([]float64, m+n)
	for i := 0; i < m; i++ {
		c[i] = 1
	}
	b := make([]float64, n)
	for j := range b {
		b[j] = 1
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return 1/opt + lo - 1
}

var dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}

func TestGeneratorErrors(t *testing.T) {
	for name, f := range map[string]func() (*tensor.Dense, error){
		"uniform m=0":     func() (*tensor.Dense, error) { return Uniform(tensor.Float64, 0, 3, 0, 1, 1) },
		"uniform n<0":     func() (*tensor.Dense, error) { return Uniform(tensor.Float64, 3, -1, 0, 1, 1) },
		"uniform int":     func() (*tensor.Dense, error) { return Uniform(tensor.Int, 3, 3, 0, 1, 1) },
		"uniform zero dt": func() (*tensor.Dense, error) { return Uniform(tensor.Dtype{}, 3, 3, 0, 1, 1) },
		"uniform empty":   func() (*tensor.Dense, error) { return Uniform(tensor.Float64, 3, 3, 1, 1, 1) },
		"uniform NaN":     func() (*tensor.Dense, error) { return Uniform(tensor.Float64, 3, 3, math.NaN(), 1, 1) },
		"uniform inf width": func() (*tensor.Dense, error) {
			return Uniform(tensor.Float64, 3, 3, -math.MaxFloat64, math.MaxFloat64, 1)
		},
		"uniform no f32":    func() (*tensor.Dense, error) { return Uniform(tensor.Float32, 3, 3, 0.1, 0.1+1e-9, 1) },
		"too large":         func() (*tensor.Dense, error) { return Uniform(tensor.Float64, math.MaxInt/2, 3, 0, 1, 1) },
		"gaussian":          func() (*tensor.Dense, error) { return Gaussian(tensor.Float64, 3, 0, 1) },
		"identity":          func() (*tensor.Dense, error) { return Identity(tensor.Float64, 0) },
		"cyclic even":       func() (*tensor.Dense, error) { return Cyclic(tensor.Float64, 4) },
		"cyclic 1":          func() (*tensor.Dense, error) { return Cyclic(tensor.Float64, 1) },
		"saddle":            func() (*tensor.Dense, error) { return Saddle(tensor.Float64, 0, 0, 1) },
		"nemirovski family": func() (*tensor.Dense, error) { return Nemirovski(tensor.Float64, 3, 3, 1) },
		"nemirovski alpha":  func() (*tensor.Dense, error) { return Nemirovski(tensor.Float64, 3, 1, 0) },
		"nemirovski inf":    func() (*tensor.Dense, error) { return Nemirovski(tensor.Float64, 3, 1, math.Inf(1)) },
		"nemirovski n":      func() (*tensor.Dense, error) { return Nemirovski(tensor.Float64, 0, 1, 1) },
		"police empty":      func() (*tensor.Dense, error) { return PoliceBurglar(tensor.Float64, nil, 1) },
		"police theta":      func() (*tensor.Dense, error) { return PoliceBurglar(tensor.Float64, []float64{1, 2}, 0) },
		"police NaN theta":  func() (*tensor.Dense, error) { return PoliceBurglar(tensor.Float64, []float64{1, 2}, math.NaN()) },
		"police wealth":     func() (*tensor.Dense, error) { return PoliceBurglar(tensor.Float64, []float64{1, math.Inf(1)}, 1) },
		"police f32 wealth": func() (*tensor.Dense, error) { return PoliceBurglar(tensor.Float32, []float64{1, 1e300}, 1) },
		"grid side 0":       func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, nil, 0, 1) },
		"grid side <0":      func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, []float64{1}, -1, 1) },
		"grid huge side": func() (*tensor.Dense, error) {
			return PoliceBurglarGrid(tensor.Float64, []float64{1}, math.MaxInt/2, 1)
		},
		"grid wealth len": func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, []float64{1, 2, 3}, 2, 1) },
		"grid theta":      func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, []float64{1}, 1, -1) },
		"grid inf theta":  func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, []float64{1}, 1, math.Inf(1)) },
		"grid wealth":     func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Float64, []float64{math.NaN()}, 1, 1) },
		"grid f32 wealth": func() (*tensor.Dense, error) {
			return PoliceBurglarGrid(tensor.Float32, []float64{1, 2, 3, -1e39}, 2, 1)
		},
		"grid int":          func() (*tensor.Dense, error) { return PoliceBurglarGrid(tensor.Int, []float64{1}, 1, 1) },
		"rankone m":         func() (*tensor.Dense, error) { return RankOne(tensor.Float64, 0, 3, 0, 1) },
		"rankone int":       func() (*tensor.Dense, error) { return RankOne(tensor.Int64, 3, 3, 0, 1) },
		"rankone sigma<0":   func() (*tensor.Dense, error) { return RankOne(tensor.Float64, 3, 3, -0.1, 1) },
		"rankone NaN sigma": func() (*tensor.Dense, error) { return RankOne(tensor.Float64, 3, 3, math.NaN(), 1) },
		"rankone inf sigma": func() (*tensor.Dense, error) { return RankOne(tensor.Float64, 3, 3, math.Inf(1), 1) },
		"lowrank m":         func() (*tensor.Dense, error) { return LowRank(tensor.Float64, 0, 3, 1, 0, 1) },
		"lowrank int":       func() (*tensor.Dense, error) { return LowRank(tensor.Int64, 3, 3, 1, 0, 1) },
		"lowrank rank 0":    func() (*tensor.Dense, error) { return LowRank(tensor.Float64, 3, 3, 0, 0, 1) },
		"lowrank rank > m":  func() (*tensor.Dense, error) { return LowRank(tensor.Float64, 3, 5, 4, 0, 1) },
		"lowrank noise<0":   func() (*tensor.Dense, error) { return LowRank(tensor.Float64, 3, 3, 1, -0.1, 1) },
		"lowrank NaN noise": func() (*tensor.Dense, error) { return LowRank(tensor.Float64, 3, 3, 1, math.NaN(), 1) },
	} {
		d, err := f()
		if err == nil || d != nil {
			t.Errorf("%s: got (%v, %v), want an error", name, d, err)
			continue
		}
		if msg := err.Error(); len(msg) < 10 || msg[:10] != "datasets: " {
			t.Errorf("%s: error %q lacks the prefix", name, msg)
		}
	}
	if _, _, _, err := SaddleInfo(1, 0, 1); err == nil {
		t.Error("SaddleInfo(1, 0): no error")
	}
	if PoliceBurglarWealth(0, 1) != nil {
		t.Error("PoliceBurglarWealth(0) is not nil")
	}
	if !math.IsNaN(Nemirovski2Value(0)) {
		t.Error("Nemirovski2Value(0) is not NaN")
	}
	if u, v := RankOneFactors(0, 3, 1); u != nil || v != nil {
		t.Error("RankOneFactors(0, 3) is not nil, nil")
	}
	if u, v := RankOneFactors(3, -1, 1); u != nil || v != nil {
		t.Error("RankOneFactors(3, -1) is not nil, nil")
	}
	if !math.IsNaN(RankOneValue(3, 0, 1)) {
		t.Error("RankOneValue(3, 0) is not NaN")
	}
	if u, v := LowRankFactors(3, 3, 0, 1); u != nil || v != nil {
		t.Error("LowRankFactors(3, 3, 0) is not nil, nil")
	}
}

// generators lists the random generators, for the determinism tests.
var generators = map[string]func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error){
	"uniform": func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
		return Uniform(dt, m, n, -3, 5, seed)
	},
	"gaussian": Gaussian,
	"saddle":   Saddle,
	"police": func(dt tensor.Dtype, m, _ int, seed uint64) (*tensor.Dense, error) {
		return PoliceBurglar(dt, PoliceBurglarWealth(m, seed), 0.3)
	},
	// 900×900: 13 tasks of parallelRows.
	"police grid": func(dt tensor.Dtype, _, _ int, seed uint64) (*tensor.Dense, error) {
		return PoliceBurglarGrid(dt, PoliceBurglarWealth(30*30, seed), 30, 0.3)
	},
	"rankone": func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
		return RankOne(dt, m, n, 0.5, seed)
	},
	"rankone sigma 0": func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
		return RankOne(dt, m, n, 0, seed)
	},
	"lowrank": func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
		return LowRank(dt, m, n, 3, 0.05, seed)
	},
	// Rank above the row's stack buffer.
	"lowrank 12": func(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
		return LowRank(dt, m, n, 12, 0, seed)
	},
}

func TestDeterminism(t *testing.T) {
	// 300×700 is several tasks of parallelRows.
	const m, n = 300, 700
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, gen := range generators {
		var ref []float64
		for _, procs := range []int{1, 2, 5} {
			runtime.GOMAXPROCS(procs)
			a, err := gen(tensor.Float64, m, n, 42)
			if err != nil {
				t.Fatal(err)
			}
			got := float64s(t, a)
			if ref == nil {
				ref = got
				continue
			}
			for k := range got {
				if got[k] != ref[k] {
					t.Fatalf("%s: GOMAXPROCS %d: entry %d = %v, want %v", name, procs, k, got[k], ref[k])
				}
			}
		}
		// Float32 is Float64 rounded.
		a32, err := gen(tensor.Float32, m, n, 42)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range float64s(t, a32) {
			if v != float64(float32(ref[k])) {
				t.Fatalf("%s: float32 entry %d = %v, want %v", name, k, v, float32(ref[k]))
			}
		}
		// Another seed gives another matrix.
		b, err := gen(tensor.Float64, m, n, 43)
		if err != nil {
			t.Fatal(err)
		}
		same := 0
		for k, v := range float64s(t, b) {
			if v == ref[k] {
				same++
			}
		}
		if same > m*n/10 {
			t.Errorf("%s: seeds 42 and 43 share %d of %d entries", name, same, m*n)
		}
	}
}

// TestStreams checks the documented definition of the random streams.
func TestStreams(t *testing.T) {
	const m, n, seed = 5, 7, 1234
	u, _ := Uniform(tensor.Float64, m, n, -2, 3, seed)
	g, _ := Gaussian(tensor.Float64, m, n, seed)
	ud, gd := float64s(t, u), float64s(t, g)
	for i := 0; i < m; i++ {
		ru := rand.New(rand.NewPCG(seed, uint64(i)))
		rg := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := 0; j < n; j++ {
			if want := -2 + float64(5*ru.Float64()); ud[i*n+j] != want { // no fused multiply-add
				t.Fatalf("Uniform (%d, %d) = %v, want %v", i, j, ud[i*n+j], want)
			}
			if want := rg.NormFloat64(); gd[i*n+j] != want {
				t.Fatalf("Gaussian (%d, %d) = %v, want %v", i, j, gd[i*n+j], want)
			}
		}
	}
	w := PoliceBurglarWealth(4, seed)
	for i, v := range w {
		if want := rand.New(rand.NewPCG(seed, uint64(i))).Float64(); v != want {
			t.Errorf("wealth[%d] = %v, want %v", i, v, want)
		}
	}
	si, sj, v, _ := SaddleInfo(m, n, seed)
	r := rand.New(rand.NewPCG(seed, math.MaxUint64))
	if wi, wj, wv := r.IntN(m), r.IntN(n), 0.25+0.5*r.Float64(); si != wi || sj != wj || v != wv {
		t.Errorf("SaddleInfo = %d, %d, %v; want %d, %d, %v", si, sj, v, wi, wj, wv)
	}
}

func TestUniformRange(t *testing.T) {
	eps := math.Nextafter(1, 2) - 1
	cases := []struct {
		lo, hi float64
	}{
		{0, 1},
		{-1e-30, 1e-30},
		{-5, -4},
		{1, 1 + 3*eps}, // most draws round to hi and must be clamped
		{0.1, 0.1 + 1e-7},
		{-1e300, 1e300}, // outside float32 range
	}
	for _, c := range cases {
		for _, dt := range dtypes {
			a, err := Uniform(dt, 50, 80, c.lo, c.hi, 5)
			if err != nil {
				t.Fatalf("[%v, %v) %v: %v", c.lo, c.hi, dt, err)
			}
			if err := Validate(a); err != nil {
				t.Fatal(err)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range float64s(t, a) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if lo < c.lo || hi >= c.hi {
				t.Errorf("[%v, %v) %v: entries in [%v, %v]", c.lo, c.hi, dt, lo, hi)
			}
			if c.hi-c.lo > 1e-10 && dt == tensor.Float64 {
				// 4000 draws cover the range.
				if w := c.hi - c.lo; lo > c.lo+0.01*w || hi < c.hi-0.01*w {
					t.Errorf("[%v, %v): entries only in [%v, %v]", c.lo, c.hi, lo, hi)
				}
			}
		}
	}
}

func TestGaussianMoments(t *testing.T) {
	const m, n = 200, 500
	a, err := Gaussian(tensor.Float64, m, n, 11)
	if err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	for _, v := range float64s(t, a) {
		s += v
		s2 += v * v
	}
	mean := s / (m * n)
	variance := s2/(m*n) - mean*mean
	// Standard errors are 1/sqrt(1e5) ≈ 0.003 and sqrt(2/1e5) ≈ 0.0045.
	if math.Abs(mean) > 0.015 || math.Abs(variance-1) > 0.025 {
		t.Errorf("mean %v, variance %v; want 0 and 1", mean, variance)
	}
}

func TestIdentity(t *testing.T) {
	for _, dt := range dtypes {
		for _, n := range []int{1, 2, 5} {
			a, err := Identity(dt, n)
			if err != nil {
				t.Fatal(err)
			}
			d := float64s(t, a)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if want := float64(b2i(i == j)); d[i*n+j] != want {
						t.Fatalf("Identity(%d)[%d][%d] = %v", n, i, j, d[i*n+j])
					}
				}
			}
			if v := gameValue(t, d, n, n); math.Abs(v-1/float64(n)) > 1e-9 {
				t.Errorf("Identity(%d) value %v, want %v", n, v, 1/float64(n))
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCyclic(t *testing.T) {
	// Rock, paper, scissors.
	rps := []float64{
		0, -1, 1,
		1, 0, -1,
		-1, 1, 0,
	}
	a, err := Cyclic(tensor.Float64, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, a, tensor.Float64, 3, 3, rps)
	for _, dt := range dtypes {
		for _, n := range []int{3, 5, 7, 11} {
			a, err := Cyclic(dt, n)
			if err != nil {
				t.Fatal(err)
			}
			d := float64s(t, a)
			for i := 0; i < n; i++ {
				plus, minus := 0, 0
				for j := 0; j < n; j++ {
					if d[i*n+j] != -d[j*n+i] {
						t.Fatalf("Cyclic(%d) is not skew-symmetric at (%d, %d)", n, i, j)
					}
					switch d[i*n+j] {
					case 1:
						plus++
					case -1:
						minus++
					}
				}
				if plus != (n-1)/2 || minus != (n-1)/2 || d[i*n+i] != 0 {
					t.Fatalf("Cyclic(%d) row %d has %d +1 and %d -1", n, i, plus, minus)
				}
			}
			if v := gameValue(t, d, n, n); math.Abs(v) > 1e-9 {
				t.Errorf("Cyclic(%d) value %v, want 0", n, v)
			}
		}
	}
}

func TestSaddle(t *testing.T) {
	for _, dt := range dtypes {
		for _, sh := range [][2]int{{1, 1}, {1, 6}, {6, 1}, {4, 9}, {9, 4}, {30, 30}} {
			m, n := sh[0], sh[1]
			for seed := uint64(0); seed < 5; seed++ {
				a, err := Saddle(dt, m, n, seed)
				if err != nil {
					t.Fatal(err)
				}
				si, sj, v, err := SaddleInfo(m, n, seed)
				if err != nil {
					t.Fatal(err)
				}
				v = roundTo(dt, v)
				d := float64s(t, a)
				if d[si*n+sj] != v {
					t.Fatalf("entry (%d, %d) = %v, want %v", si, sj, d[si*n+sj], v)
				}
				for j := 0; j < n; j++ {
					if d[si*n+j] < v {
						t.Fatalf("%v %dx%d seed %d: row %d has %v < %v", dt, m, n, seed, si, d[si*n+j], v)
					}
				}
				for i := 0; i < m; i++ {
					if d[i*n+sj] > v {
						t.Fatalf("%v %dx%d seed %d: column %d has %v > %v", dt, m, n, seed, sj, d[i*n+sj], v)
					}
				}
				for _, x := range d {
					if x < 0 || x >= 1 {
						t.Fatalf("entry %v outside [0, 1)", x)
					}
				}
				if gv := gameValue(t, d, m, n); math.Abs(gv-v) > 1e-9 {
					t.Errorf("%v %dx%d seed %d: value %v, want %v", dt, m, n, seed, gv, v)
				}
			}
		}
	}
}

func TestNemirovski(t *testing.T) {
	// Small cases by hand: n = 2, 2n-1 = 3.
	a, _ := Nemirovski(tensor.Float64, 2, 1, 1)
	checkMatrixEquals(t, a, tensor.Float64, 2, 2, []float64{1.0 / 3, 2.0 / 3, 2.0 / 3, 1})
	a, _ = Nemirovski(tensor.Float64, 2, 2, 2)
	checkMatrixEquals(t, a, tensor.Float64, 2, 2, []float64{1.0 / 9, 4.0 / 9, 4.0 / 9, 1.0 / 9})

	for _, dt := range dtypes {
		for _, n := range []int{1, 2, 3, 4, 7, 10} {
			for _, family := range []int{1, 2} {
				for _, alpha := range []float64{0.5, 1, 2} {
					a, err := Nemirovski(dt, n, family, alpha)
					if err != nil {
						t.Fatal(err)
					}
					d := float64s(t, a)
					for i := 1; i <= n; i++ { // 1-based, as documented
						for j := 1; j <= n; j++ {
							num := float64(i + j - 1)
							if family == 2 {
								num = math.Abs(float64(i-j)) + 1
							}
							want := roundTo(dt, math.Pow(num/float64(2*n-1), alpha))
							if got := d[(i-1)*n+j-1]; math.Abs(got-want) > 1e-15 {
								t.Fatalf("family %d n %d alpha %v: A[%d][%d] = %v, want %v", family, n, alpha, i, j, got, want)
							}
						}
					}
				}
			}
			if dt == tensor.Float64 {
				a, _ := Nemirovski(dt, n, 2, 1)
				if v, want := gameValue(t, float64s(t, a), n, n), Nemirovski2Value(n); math.Abs(v-want) > 1e-9 {
					t.Errorf("Nemirovski family 2 n %d: value %v, want %v", n, v, want)
				}
			}
		}
	}
}

func TestPoliceBurglar(t *testing.T) {
	const theta = 0.7
	w := PoliceBurglarWealth(6, 3)
	for _, v := range w {
		if v < 0 || v >= 1 {
			t.Fatalf("wealth %v outside [0, 1)", v)
		}
	}
	for _, dt := range dtypes {
		a, err := PoliceBurglar(dt, w, theta)
		if err != nil {
			t.Fatal(err)
		}
		d := float64s(t, a)
		for i := 0; i < 6; i++ {
			for j := 0; j < 6; j++ {
				want := roundTo(dt, w[i]*(1-math.Exp(-theta*math.Abs(float64(i-j)))))
				if got := d[i*6+j]; math.Abs(got-want) > 1e-15 {
					t.Fatalf("A[%d][%d] = %v, want %v", i, j, got, want)
				}
			}
		}
		if err := Validate(a); err != nil {
			t.Fatal(err)
		}
	}
	// Negative wealth is allowed; the game is then still well defined.
	if _, err := PoliceBurglar(tensor.Float64, []float64{-1, 2}, 1); err != nil {
		t.Error(err)
	}
}

func TestPoliceBurglarGrid(t *testing.T) {
	const theta = 0.45
	for _, side := range []int{1, 2, 3, 5} {
		n := side * side
		w := PoliceBurglarWealth(n, 9)
		w[0] = -2 // negative wealth is allowed, as on the line
		for _, dt := range dtypes {
			a, err := PoliceBurglarGrid(dt, w, side, theta)
			if err != nil {
				t.Fatal(err)
			}
			if sh := a.Shape(); sh[0] != n || sh[1] != n {
				t.Fatalf("side %d: shape %v", side, sh)
			}
			d := float64s(t, a)
			for k := range n {
				for l := range n {
					dr, dc := float64(k/side-l/side), float64(k%side-l%side)
					want := roundTo(dt, w[k]*(1-math.Exp(-theta*math.Sqrt(dr*dr+dc*dc))))
					if got := d[k*n+l]; math.Abs(got-want) > 2e-16 {
						t.Fatalf("side %d %v: A[%d][%d] = %v, want %v", side, dt, k, l, got, want)
					}
				}
			}
			if err := Validate(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The grid's symmetries: A[k][l]/w[k] is the same for (k, l), (l, k),
	// and for the grid transposed ((r, c) -> (c, r)), bit for bit.
	const side = 6
	w := make([]float64, side*side)
	for k := range w {
		w[k] = 1
	}
	a, err := PoliceBurglarGrid(tensor.Float64, w, side, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	d := float64s(t, a)
	n := side * side
	tr := func(k int) int { return (k%side)*side + k/side }
	for k := range n {
		for l := range n {
			if d[k*n+l] != d[l*n+k] || d[k*n+l] != d[tr(k)*n+tr(l)] {
				t.Fatalf("A[%d][%d] = %v, A[%d][%d] = %v, transposed %v", k, l, d[k*n+l], l, k, d[l*n+k], d[tr(k)*n+tr(l)])
			}
		}
	}
	// Along one grid row the distances are those of the line.
	line, err := PoliceBurglar(tensor.Float64, w[:side], 0.3)
	if err != nil {
		t.Fatal(err)
	}
	ld := float64s(t, line)
	for i := range side {
		for j := range side {
			if d[i*n+j] != ld[i*side+j] {
				t.Fatalf("grid row 0 (%d, %d) = %v, line %v", i, j, d[i*n+j], ld[i*side+j])
			}
		}
	}
}

func TestRankOne(t *testing.T) {
	const m, n, seed = 7, 9, 77
	u, v := RankOneFactors(m, n, seed)
	// The documented streams.
	s := rand.New(rand.NewPCG(seed, math.MaxUint64))
	for j := range v {
		if want := 2*s.Float64() - 1; v[j] != want {
			t.Fatalf("v[%d] = %v, want %v", j, v[j], want)
		}
	}
	for i := range u {
		if want := 2*rand.New(rand.NewPCG(seed, uint64(i))).Float64() - 1; u[i] != want {
			t.Fatalf("u[%d] = %v, want %v", i, u[i], want)
		}
	}
	for _, x := range append(append([]float64(nil), u...), v...) {
		if x < -1 || x >= 1 {
			t.Fatalf("factor %v outside [-1, 1)", x)
		}
	}
	// A prefix of the factors of a larger game is the same.
	u2, v2 := RankOneFactors(m+3, n+5, seed)
	for i := range u {
		if u2[i] != u[i] {
			t.Fatalf("u[%d] changes with m", i)
		}
	}
	for j := range v {
		if v2[j] != v[j] {
			t.Fatalf("v[%d] changes with n", j)
		}
	}
	for _, sigma := range []float64{0, 0.25, 3} {
		for _, dt := range dtypes {
			a, err := RankOne(dt, m, n, sigma, seed)
			if err != nil {
				t.Fatal(err)
			}
			d := float64s(t, a)
			for i := range m {
				r := rand.New(rand.NewPCG(seed, uint64(i)))
				r.Float64() // u[i]
				for j := range n {
					want := float64(u[i] * v[j])
					if sigma > 0 {
						want += float64(sigma * r.NormFloat64()) // no fused multiply-add
					}
					if got := d[i*n+j]; got != roundTo(dt, want) {
						t.Fatalf("sigma %v %v: A[%d][%d] = %v, want %v", sigma, dt, i, j, got, roundTo(dt, want))
					}
				}
			}
		}
	}
	// The noise is standard normal.
	a, _ := RankOne(tensor.Float64, 300, 400, 2, 5)
	u, v = RankOneFactors(300, 400, 5)
	var s1, s2 float64
	for k, x := range float64s(t, a) {
		g := (x - u[k/400]*v[k%400]) / 2
		s1 += g
		s2 += g * g
	}
	mean := s1 / 120000
	if variance := s2/120000 - mean*mean; math.Abs(mean) > 0.015 || math.Abs(variance-1) > 0.025 {
		t.Errorf("noise mean %v, variance %v; want 0 and 1", mean, variance)
	}
}

// TestRankOneValue checks the closed form against the linear program, on
// sizes small enough that u or v often has one sign, and on hand-made
// factors covering every case of the formula.
func TestRankOneValue(t *testing.T) {
	cases := []struct {
		u, v []float64
		want float64
	}{
		{[]float64{1, 2}, []float64{3, 4}, 6},       // u > 0, v > 0: a = max u, b = min v
		{[]float64{-1, 2}, []float64{3, 4}, 6},      // u changes sign, v > 0
		{[]float64{-1, 2}, []float64{-3, 4}, 0},     // both change sign
		{[]float64{-2, -1}, []float64{-3, 4}, -4},   // u < 0, v changes sign: a = max u, b = max v
		{[]float64{0.5, 2}, []float64{-3, 4}, -1.5}, // u > 0, v changes sign: a = min u, b = min v
		{[]float64{-2, -1}, []float64{-3, -1}, 2},   // u < 0, v < 0: a = min u, b = max v
		{[]float64{0, 1}, []float64{-1, -1}, 0},     // u touches 0
		{[]float64{-0.5}, []float64{2, -3}, -1},     // a single row
	}
	for _, c := range cases {
		if got := rankOneValue(c.u, c.v); got != c.want {
			t.Errorf("u %v, v %v: value %v, want %v", c.u, c.v, got, c.want)
		}
		a := make([]float64, 0, len(c.u)*len(c.v))
		for _, x := range c.u {
			for _, y := range c.v {
				a = append(a, x*y)
			}
		}
		if lp := gameValue(t, a, len(c.u), len(c.v)); math.Abs(lp-c.want) > 1e-9 {
			t.Errorf("u %v, v %v: the linear program's value %v, want %v", c.u, c.v, lp, c.want)
		}
	}
	nonzero := 0
	for _, sh := range [][2]int{{1, 1}, {1, 4}, {4, 1}, {2, 2}, {2, 3}, {3, 2}, {5, 8}} {
		m, n := sh[0], sh[1]
		for seed := range uint64(40) {
			a, err := RankOne(tensor.Float64, m, n, 0, seed)
			if err != nil {
				t.Fatal(err)
			}
			want := RankOneValue(m, n, seed)
			if want != 0 {
				nonzero++
			}
			if got := gameValue(t, float64s(t, a), m, n); math.Abs(got-want) > 1e-9 {
				t.Errorf("%d×%d seed %d: value %v, RankOneValue %v", m, n, seed, got, want)
			}
		}
	}
	if nonzero < 50 {
		t.Errorf("only %d of the games have a nonzero value", nonzero)
	}
}

// BenchmarkUniform generates a 4096×4096 float64 matrix.
func BenchmarkUniform(b *testing.B) {
	b.SetBytes(4096 * 4096 * 8)
	for b.Loop() {
		if _, err := Uniform(tensor.Float64, 4096, 4096, -1, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLowRank(t *testing.T) {
	const m, n, rank, seed = 7, 9, 3, 77
	u, v := LowRankFactors(m, n, rank, seed)
	// The documented streams.
	s := rand.New(rand.NewPCG(seed, math.MaxUint64))
	for k := range v {
		if want := s.NormFloat64(); v[k] != want {
			t.Fatalf("V[%d][%d] = %v, want %v", k/rank, k%rank, v[k], want)
		}
	}
	for i := range m {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for k := range rank {
			if want := r.NormFloat64(); u[i*rank+k] != want {
				t.Fatalf("U[%d][%d] = %v, want %v", i, k, u[i*rank+k], want)
			}
		}
	}
	// A prefix of the factors of a larger game is the same.
	u2, v2 := LowRankFactors(m+3, n+5, rank, seed)
	if !slices.Equal(u2[:len(u)], u) || !slices.Equal(v2[:len(v)], v) {
		t.Fatal("the factors change with m or n")
	}
	scale := 1 / math.Sqrt(rank)
	for _, noise := range []float64{0, 0.05, 3} {
		for _, dt := range dtypes {
			a, err := LowRank(dt, m, n, rank, noise, seed)
			if err != nil {
				t.Fatal(err)
			}
			d := float64s(t, a)
			for i := range m {
				r := rand.New(rand.NewPCG(seed, uint64(i)))
				for range rank {
					r.NormFloat64() // U[i]
				}
				for j := range n {
					var dot float64
					for k := range rank {
						dot += float64(u[i*rank+k] * v[j*rank+k]) // no fused multiply-add
					}
					want := float64(dot * scale)
					if noise > 0 {
						want += float64(noise * r.NormFloat64())
					}
					if got := d[i*n+j]; got != roundTo(dt, want) {
						t.Fatalf("noise %v %v: A[%d][%d] = %v, want %v", noise, dt, i, j, got, roundTo(dt, want))
					}
				}
			}
		}
	}
	// Without noise the matrix has the rank asked: its rank+1 leading
	// columns are dependent (a vanishing minor of order rank+1 in the
	// first rank+1 rows), those of order rank are not.
	a, _ := LowRank(tensor.Float64, 40, 30, rank, 0, 5)
	d := float64s(t, a)
	minor := func(k int) float64 {
		b := make([]float64, k*k)
		for i := range k {
			copy(b[i*k:(i+1)*k], d[i*30:i*30+k])
		}
		return mat.Det(mat.NewDense(k, k, b))
	}
	if got := math.Abs(minor(rank + 1)); got > 1e-12 {
		t.Errorf("noise 0: minor of order %d is %v, want 0", rank+1, got)
	}
	if got := math.Abs(minor(rank)); got < 1e-3 {
		t.Errorf("noise 0: minor of order %d is %v, want it away from 0", rank, got)
	}
	// The low-rank part's entries are standard normal whatever the rank,
	// and so is the noise.
	for _, r := range []int{1, 4, 16} {
		a0, _ := LowRank(tensor.Float64, 300, 400, r, 0, 5)
		a1, _ := LowRank(tensor.Float64, 300, 400, r, 2, 5)
		var s1, s2, g1, g2 float64
		x0, x1 := float64s(t, a0), float64s(t, a1)
		for k := range x0 {
			s1 += x0[k]
			s2 += x0[k] * x0[k]
			g := (x1[k] - x0[k]) / 2
			g1 += g
			g2 += g * g
		}
		const cnt = 120000
		// The low-rank entries come from r·(m+n) draws only, so their
		// sample variance spreads more than that of independent entries:
		// the bound is loose, but a missing 1/√rank (a variance of r)
		// or a wrong factor would fail it.
		if v := s2/cnt - (s1/cnt)*(s1/cnt); math.Abs(v-1) > 0.5 {
			t.Errorf("rank %d: low-rank entries have variance %v, want about 1", r, v)
		}
		mean := g1 / cnt
		if variance := g2/cnt - mean*mean; math.Abs(mean) > 0.015 || math.Abs(variance-1) > 0.025 {
			t.Errorf("rank %d: noise mean %v, variance %v; want 0 and 1", r, mean, variance)
		}
	}
}
