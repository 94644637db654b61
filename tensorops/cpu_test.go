package tensorops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gorgonia.org/tensor"
)

func randMatrix(rng *rand.Rand, m, n int, f32 bool) (*tensor.Dense, []float64) {
	ref := make([]float64, m*n)
	if f32 {
		d := make([]float32, m*n)
		for i := range d {
			d[i] = float32(rng.NormFloat64())
			ref[i] = float64(d[i])
		}
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d)), ref
	}
	for i := range ref {
		ref[i] = rng.NormFloat64()
	}
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(slices.Clone(ref))), ref
}

func randCPUVec(rng *rand.Rand, n int) CPUVector {
	v := make(CPUVector, n)
	for i := range v {
		v[i] = rng.Float64()
	}
	return v
}

// naive computes A q and Aᵀ p with plain double loops, and the sums of
// absolute products that bound their rounding errors.
func naive(a []float64, m, n int, p, q []float64) (aq, atp, aqAbs, atpAbs []float64) {
	aq, atp = make([]float64, m), make([]float64, n)
	aqAbs, atpAbs = make([]float64, m), make([]float64, n)
	for i := range m {
		for j := range n {
			v := a[i*n+j]
			aq[i] += v * q[j]
			aqAbs[i] += math.Abs(v * q[j])
			atp[j] += v * p[i]
			atpAbs[j] += math.Abs(v * p[i])
		}
	}
	return
}

// TestPassMatchesNaive compares Operator, MulVec and MulTVec with a naive
// double loop on shapes that exercise every split: single rows and columns,
// row counts that do not divide by the workers or by 4, column mode (few
// rows), and column blocking (n > 2·colBlock).
func TestPassMatchesNaive(t *testing.T) {
	shapes := [][2]int{
		{1, 1}, {1, 7}, {7, 1}, {1, 70001}, {70001, 1}, {3, 5}, {5, 3},
		{4, 4}, {13, 17}, {257, 255}, {301, 333}, {7, 40000}, {9, 70001}, {37, 2*colBlock + 77},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, threads := range []int{1, 2, 3} {
		cpu := NewCPU(threads)
		cpu.passMinBytes = 0 // split these small matrices too
		for _, sh := range shapes {
			for _, f32 := range []bool{false, true} {
				m, n := sh[0], sh[1]
				t.Run(fmt.Sprintf("t%d/%dx%d/f32=%v", threads, m, n, f32), func(t *testing.T) {
					at, ref := randMatrix(rng, m, n, f32)
					a, err := cpu.NewMatrix(at)
					if err != nil {
						t.Fatal(err)
					}
					p, q := randCPUVec(rng, m), randCPUVec(rng, n)
					aq, atp, aqAbs, atpAbs := naive(ref, m, n, p, q)
					check := func(what string, got, want, bound []float64, sign float64) {
						t.Helper()
						for i := range want {
							// Error of a sum of n products in any order.
							tol := 4 * float64(n+m) * 0x1p-53 * bound[i]
							if d := math.Abs(sign*got[i] - want[i]); d > tol {
								t.Fatalf("%s[%d] = %.17g, want %.17g (tolerance %.3g)", what, i, sign*got[i], want[i], tol)
							}
						}
					}
					fp, fq := make(CPUVector, m), make(CPUVector, n)
					cpu.Operator(fp, fq, a, p, q)
					check("-fp", fp, aq, aqAbs, -1)
					check("fq", fq, atp, atpAbs, 1)
					u, v := make(CPUVector, m), make(CPUVector, n)
					cpu.MulVec(u, a, q)
					check("A q", u, aq, aqAbs, 1)
					cpu.MulTVec(v, a, p)
					check("Aᵀ p", v, atp, atpAbs, 1)
				})
			}
		}
		cpu.Close()
	}
}

// TestPassDeterministic: the same pass sequence gives bit-identical results.
func TestPassDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	at, _ := randMatrix(rng, 500, 600, false)
	p, q := randCPUVec(rng, 500), randCPUVec(rng, 600)
	var runs [2][]float64
	for r := range runs {
		cpu := NewCPU(2)
		cpu.passMinBytes = 0
		a, _ := cpu.NewMatrix(at)
		fp, fq := make(CPUVector, 500), make(CPUVector, 600)
		for range 3 {
			cpu.Operator(fp, fq, a, p, q)
		}
		runs[r] = append(slices.Clone(fp), fq...)
		cpu.Close()
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Error("two identical runs differ")
	}
}

func TestPassNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cpu := NewCPU(2)
	defer cpu.Close()
	cpu.passMinBytes = 0
	for _, sh := range [][2]int{{400, 300}, {3, 50000}, {100, 40000}} {
		at, _ := randMatrix(rng, sh[0], sh[1], false)
		a, _ := cpu.NewMatrix(at)
		p, q := randCPUVec(rng, sh[0]), randCPUVec(rng, sh[1])
		fp, fq := make(CPUVector, sh[0]), make(CPUVector, sh[1])
		var pv, fpv, fqv, qv Vector = p, fp, fq, q
		if n := testing.AllocsPerRun(20, func() {
			cpu.Operator(fpv, fqv, a, pv, qv)
			cpu.MulVec(fpv, a, qv)
			cpu.MulTVec(fqv, a, pv)
		}); n != 0 {
			t.Errorf("%v: %v allocations per pass", sh, n)
		}
	}
}

// A pass splits over the workers from passParallelMinBytes on, by the
// matrix's bytes (float32 entries count half), and runs on the caller below.
func TestPassSplitBySize(t *testing.T) {
	cpu := NewCPU(2)
	defer cpu.Close()
	side := 363 // 8·363² bytes just exceed 1 MiB, 4·363² do not
	if 8*side*side < passParallelMinBytes || 4*side*side >= passParallelMinBytes {
		t.Fatalf("side %d does not straddle the threshold", side)
	}
	for _, tc := range []struct {
		m, n int
		f32  bool
		want int
	}{
		{side, side, false, 2},
		{side, side, true, 1},
		{300, 300, false, 1},
		{1, passParallelMinBytes / 8, false, 2},
		{1, passParallelMinBytes/8 - 1, false, 1},
	} {
		at, _ := randMatrix(rand.New(rand.NewPCG(1, 1)), tc.m, tc.n, tc.f32)
		a, _ := cpu.NewMatrix(at)
		fp, fq := make(CPUVector, tc.m), make(CPUVector, tc.n)
		p, q := make(CPUVector, tc.m), make(CPUVector, tc.n)
		cpu.Operator(fp, fq, a, p, q)
		if cpu.job.nw != tc.want {
			t.Errorf("%d×%d f32=%v: %d workers, want %d", tc.m, tc.n, tc.f32, cpu.job.nw, tc.want)
		}
	}
}

// SetMatrix re-aliases without allocating, and the passes then use the new
// entries with the buffers sized for the shape.
func TestSetMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	cpu := NewCPU(2)
	defer cpu.Close()
	for _, f32 := range []bool{false, true} {
		for _, sh := range [][2]int{{3, 50000}, {400, 300}} {
			t0, _ := randMatrix(rng, sh[0], sh[1], f32)
			a, err := cpu.NewMatrix(t0)
			if err != nil {
				t.Fatal(err)
			}
			t1, ref := randMatrix(rng, sh[0], sh[1], f32)
			if n := testing.AllocsPerRun(20, func() {
				if err := cpu.SetMatrix(a, t1); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%v: SetMatrix allocates %v times", sh, n)
			}
			p, q := randCPUVec(rng, sh[0]), randCPUVec(rng, sh[1])
			fp, fq := make(CPUVector, sh[0]), make(CPUVector, sh[1])
			cpu.Operator(fp, fq, a, p, q)
			wp, wq, _, _ := naive(ref, sh[0], sh[1], p, q)
			for i := range fp {
				if math.Abs(fp[i]+wp[i]) > 1e-9 {
					t.Fatalf("%v: after SetMatrix, (−A q)[%d] = %g, want %g", sh, i, fp[i], -wp[i])
				}
			}
			for j := range fq {
				if math.Abs(fq[j]-wq[j]) > 1e-9 {
					t.Fatalf("%v: after SetMatrix, (Aᵀp)[%d] = %g, want %g", sh, j, fq[j], wq[j])
				}
			}
		}
	}
	a, _ := cpu.NewMatrix(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float64, 6))))
	for name, src := range map[string]*tensor.Dense{
		"shape": tensor.New(tensor.WithShape(3, 2), tensor.WithBacking(make([]float64, 6))),
		"dtype": tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float32, 6))),
		"nil":   nil,
	} {
		if err := cpu.SetMatrix(a, src); err == nil {
			t.Errorf("SetMatrix of another %s: no error", name)
		}
	}
}

// Transpose copies Aᵀ exactly, on one worker or several, for shapes that
// are and are not multiples of the tile.
func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, threads := range []int{1, 3} {
		cpu := NewCPU(threads)
		for _, f32 := range []bool{false, true} {
			for _, sh := range [][2]int{{1, 1}, {1, 70}, {70, 1}, {64, 128}, {300, 301}, {3, 40000}} {
				at, ref := randMatrix(rng, sh[0], sh[1], f32)
				a, _ := cpu.NewMatrix(at)
				tm, err := cpu.Transpose(a)
				if err != nil {
					t.Fatal(err)
				}
				if r, c := tm.Dims(); r != sh[1] || c != sh[0] || tm.Precision() != a.Precision() {
					t.Fatalf("%v: transposed dims %d×%d %v", sh, r, c, tm.Precision())
				}
				tc := tm.(*cpuMatrix)
				for i := range sh[0] {
					for j := range sh[1] {
						got := 0.0
						if f32 {
							got = float64(tc.f32[j*sh[0]+i])
						} else {
							got = tc.f64[j*sh[0]+i]
						}
						if got != ref[i*sh[1]+j] {
							t.Fatalf("threads=%d %v f32=%v: Aᵀ[%d,%d] = %g, want %g", threads, sh, f32, j, i, got, ref[i*sh[1]+j])
						}
					}
				}
			}
		}
		cpu.Close()
	}
}

func TestNewMatrixErrors(t *testing.T) {
	cpu := NewCPU(1)
	transposed := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float64, 6)))
	if err := transposed.T(); err != nil {
		t.Fatal(err)
	}
	if _, err := cpu.NewMatrix(transposed); err == nil {
		t.Error("transposed view: no error")
	}
	for name, a := range map[string]*tensor.Dense{
		"1-D":       tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float64, 4))),
		"int":       tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]int{1, 2, 3, 4})),
		"nil":       nil,
		"col-major": tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float64, 6)), tensor.AsFortran(nil)),
	} {
		if _, err := cpu.NewMatrix(a); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// projectSort is the textbook sort-based Euclidean projection onto the
// simplex, the reference for ProjectSimplex.
func projectSort(v []float64) []float64 {
	u := slices.Clone(v)
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	var css, tau float64
	for k, x := range u {
		css += x
		if t := (css - 1) / float64(k+1); x-t > 0 {
			tau = t
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Max(x-tau, 0)
	}
	return out
}

func TestProjectSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := [][]float64{{5}, {0.2, 0.3}, {1, 1, 1}, {-3, 10, 2}, {0, 0, 0, 0}, {1e-300, 0, -1e-300}}
	for range 200 {
		n := 1 + rng.IntN(300)
		v := make([]float64, n)
		scale := math.Pow(10, float64(rng.IntN(8)-4))
		for i := range v {
			v[i] = scale * rng.NormFloat64()
		}
		cases = append(cases, v)
	}
	for _, v := range cases {
		got := make([]float64, len(v))
		ProjectSimplex(got, v)
		want := projectSort(v)
		var sum float64
		for i := range got {
			sum += got[i]
			if got[i] < 0 || math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("ProjectSimplex(%v)[%d] = %g, want %g", v, i, got[i], want[i])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("ProjectSimplex(%v) sums to %g", v, sum)
		}
	}
}

func TestClipBox(t *testing.T) {
	v := []float64{-3, 0.5, 2, math.NaN(), 1}
	lo := []float64{-1, 0, 0, 0, 1}
	hi := []float64{1, 1, 1, 1, 1}
	ClipBox(v, v, lo, hi) // in place
	if want := []float64{-1, 0.5, 1, math.NaN(), 1}; !slices.EqualFunc(v, want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
		t.Errorf("ClipBox = %v, want %v", v, want)
	}
	mustPanic(t, "ClipBox length mismatch", func() { ClipBox(make([]float64, 2), v, lo, hi) })
}

func TestProjectBall(t *testing.T) {
	o := []float64{1, -1, 2}
	for _, c := range []struct {
		v      []float64
		radius float64
		want   []float64
	}{
		{[]float64{1, -1, 2}, 1, []float64{1, -1, 2}},     // the centre
		{[]float64{1.5, -1, 2}, 1, []float64{1.5, -1, 2}}, // inside
		{[]float64{4, 3, 2}, 1, []float64{1.6, -0.2, 2}},  // outside: 3-4-5 triangle
		{[]float64{4, 3, 2}, 0, []float64{1, -1, 2}},      // radius 0: the centre
	} {
		got := make([]float64, 3)
		ProjectBall(got, c.v, o, c.radius)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("ProjectBall(%v, radius %g) = %v, want %v", c.v, c.radius, got, c.want)
				break
			}
		}
		// In place, over v and over the centre.
		v, oc := slices.Clone(c.v), slices.Clone(o)
		ProjectBall(v, v, o, c.radius)
		ProjectBall(oc, c.v, oc, c.radius)
		if !slices.Equal(v, got) || !slices.Equal(oc, got) {
			t.Errorf("ProjectBall(%v, radius %g) aliased: %v and %v, want %v", c.v, c.radius, v, oc, got)
		}
	}
	mustPanic(t, "ProjectBall length mismatch", func() { ProjectBall(make([]float64, 2), o, o, 1) })
}

// A set that does not fit its block is a programmer error.
func TestSetPanics(t *testing.T) {
	cpu := NewCPU(1)
	v := make(CPUVector, 3)
	p := Point{State: v, Value: v}
	for name, s := range map[string]Set{
		"unknown setup":   {Setup: Setup(9)},
		"box without Hi":  {Setup: Box, Lo: make(CPUVector, 3)},
		"short box":       {Setup: Box, Lo: make(CPUVector, 3), Hi: make(CPUVector, 2)},
		"ball, no centre": {Setup: Ball, Radius: 1},
		"negative radius": {Setup: Ball, Center: make(CPUVector, 3), Radius: -1},
		"NaN radius":      {Setup: Ball, Center: make(CPUVector, 3), Radius: math.NaN()},
		"infinite radius": {Setup: Ball, Center: make(CPUVector, 3), Radius: math.Inf(1)},
	} {
		mustPanic(t, "Start with "+name, func() { cpu.Start(p, s) })
		mustPanic(t, "Prox with "+name, func() { cpu.Prox(p, p, v, 1, s) })
	}
	blk := AvgBlock{G: v, Lin: make(CPUVector, 2)}
	mustPanic(t, "Average with a short Lin", func() { cpu.Average(make([]GapStats, 1), 0, []AvgBlock{blk}) })
	blk = AvgBlock{G: v, Lin: v}
	mustPanic(t, "Average with Lin and no X", func() { cpu.Average(make([]GapStats, 1), 0, []AvgBlock{blk}) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// TestLogProx compares the log-space prox with the textbook formula and
// checks it never produces NaN, denormals or a wrong sum on extreme inputs.
func TestLogProx(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 50
	c := make([]float64, n)
	for i := range c {
		c[i] = math.Log(1.0 / float64(n))
	}
	g := randCPUVec(rng, n)
	l, p := make([]float64, n), make([]float64, n)
	LogProx(l, p, c, g, 0.7)
	var z float64
	for i := range g {
		z += math.Exp(-0.7 * g[i])
	}
	for i := range g {
		want := math.Exp(-0.7*g[i]) / z
		if math.Abs(p[i]-want) > 1e-15 || math.Abs(math.Exp(l[i])-want) > 1e-15 {
			t.Fatalf("p[%d] = %g, exp(l) = %g, want %g", i, p[i], math.Exp(l[i]), want)
		}
	}
	// A huge step separates the weights by thousands of nats.
	for i := range g {
		g[i] = float64(i)
	}
	LogProx(l, p, c, g, 1000)
	var sum float64
	for i, v := range p {
		if math.IsNaN(v) || math.IsNaN(l[i]) || (v != 0 && v < 1e-300) {
			t.Fatalf("p[%d] = %g, l = %g", i, v, l[i])
		}
		sum += v
	}
	if p[0] != 1 || sum != 1 || p[1] != 0 {
		t.Errorf("p = %v", p[:3])
	}
}

// TestProxStats checks the per-block scalars against direct formulas in both
// setups.
func TestProxStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cpu := NewCPU(1)
	n := 40
	for _, setup := range []Setup{Entropic, Euclidean} {
		newPoint := func() Point {
			v := make(CPUVector, n)
			if setup == Euclidean {
				return Point{State: v, Value: v}
			}
			return Point{State: make(CPUVector, n), Value: v}
		}
		y, x, yn := newPoint(), newPoint(), newPoint()
		cpu.Start(y, Set{Setup: setup})
		m, g := randCPUVec(rng, n), randCPUVec(rng, n)
		cpu.Prox(x, y, m, 0.9, Set{Setup: setup})
		cpu.Prox(yn, y, g, 0.9, Set{Setup: setup})
		ax, ag := randCPUVec(rng, n), randCPUVec(rng, n)
		nax, nag := make(CPUVector, n), make(CPUVector, n)
		var st [1]BlockStats
		blk := []ProxBlock{{Set: Set{Setup: setup}, Y: y, X: x, YNew: yn, M: m, G: g, AvgX: ax, AvgG: ag, NewAvgX: nax, NewAvgG: nag}}
		if err := cpu.ProxStats(st[:], 0.25, blk); err != nil {
			t.Fatal(err)
		}
		xv, yv, nv := x.Value.(CPUVector), y.Value.(CPUVector), yn.Value.(CPUVector)
		var div func(a, b []float64) float64
		var norm, dual func(v []float64) float64
		if setup == Entropic {
			div = func(a, b []float64) float64 {
				var s float64
				for i := range a {
					s += a[i] * math.Log(a[i]/b[i])
				}
				return s
			}
			norm = func(v []float64) float64 {
				var s float64
				for _, x := range v {
					s += math.Abs(x)
				}
				return s
			}
			dual = func(v []float64) float64 {
				var s float64
				for _, x := range v {
					s = math.Max(s, math.Abs(x))
				}
				return s
			}
		} else {
			norm = func(v []float64) float64 {
				var s float64
				for _, x := range v {
					s += x * x
				}
				return math.Sqrt(s)
			}
			dual = norm
			div = func(a, b []float64) float64 {
				var s float64
				for i := range a {
					s += (a[i] - b[i]) * (a[i] - b[i])
				}
				return s / 2
			}
		}
		sub := func(a, b []float64) []float64 {
			d := make([]float64, len(a))
			for i := range a {
				d[i] = a[i] - b[i]
			}
			return d
		}
		var inner float64
		for i := range g {
			inner += (g[i] - m[i]) * (xv[i] - nv[i])
		}
		s := st[0]
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"DivXY", s.DivXY, div(xv, yv)},
			{"DivYX", s.DivYX, div(nv, xv)},
			{"DistXY", s.DistXY, norm(sub(xv, yv))},
			{"DistXYNew", s.DistXYNew, norm(sub(xv, nv))},
			{"DualGM", s.DualGM, dual(sub(g, m))},
			{"InnerGM", s.InnerGM, inner},
			{"MinG", s.MinG, slices.Min(g)},
		} {
			if math.Abs(c.got-c.want) > 1e-13*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%v %s = %.17g, want %.17g", setup, c.name, c.got, c.want)
			}
		}
		minAvg := math.Inf(1)
		for i := range nax {
			if wx, wg := ax[i]+0.25*(xv[i]-ax[i]), ag[i]+0.25*(g[i]-ag[i]); nax[i] != wx || nag[i] != wg {
				t.Fatalf("average %d: %g, %g; want %g, %g", i, nax[i], nag[i], wx, wg)
			}
			minAvg = math.Min(minAvg, nag[i])
		}
		if s.MinAvgG != minAvg {
			t.Errorf("MinAvgG %g, want %g", s.MinAvgG, minAvg)
		}
	}
}

// TestRegretMatch checks RM+ and PRM+ updates and the noise guard.
func TestRegretMatch(t *testing.T) {
	cpu := NewCPU(1)
	x := CPUVector{0.5, 0.5, 0}
	r := CPUVector{0, 0, 0}
	u := CPUVector{1, 0, 3} // utilities; v = <x, u> = 0.5
	cpu.RegretMatch(x, r, u, 1, 0, false)
	// r = max(0 + u − 0.5, 0) = (0.5, 0, 2.5); x = r / 3
	if want := (CPUVector{0.5, 0, 2.5}); !slices.Equal(r, want) {
		t.Errorf("r = %v, want %v", r, want)
	}
	if want := (CPUVector{0.5 / 3, 0, 2.5 / 3}); !slices.Equal(x, want) {
		t.Errorf("x = %v, want %v", x, want)
	}
	// PRM+ with sign −1: utilities −u.
	x, r = CPUVector{0.25, 0.25, 0.5}, CPUVector{0, 1, 0}
	u = CPUVector{1, 2, 0} // −u = (−1, −2, 0); v = −0.75; ρ = (−0.25, −1.25, 0.75)
	cpu.RegretMatch(x, r, u, -1, 0, true)
	// r = max(r + ρ, 0) = (0, 0, 0.75); x ∝ max(r + ρ, 0) = (0, 0, 1.5)
	if want := (CPUVector{0, 0, 0.75}); !slices.Equal(r, want) {
		t.Errorf("prm+ r = %v, want %v", r, want)
	}
	if want := (CPUVector{0, 0, 1}); !slices.Equal(x, want) {
		t.Errorf("prm+ x = %v, want %v", x, want)
	}
	// Rounding-noise regrets leave the strategy alone.
	x, r = CPUVector{1.0 / 3, 1.0 / 3, 1.0 / 3}, CPUVector{0, 0, 0}
	u = CPUVector{1e-17, 0, -1e-17}
	cpu.RegretMatch(x, r, u, 1, 1e-15, false)
	if want := (CPUVector{1.0 / 3, 1.0 / 3, 1.0 / 3}); !slices.Equal(x, want) {
		t.Errorf("noise normalized into %v", x)
	}
}

// TestSpan: chunks cover [0, total) in order, start on multiples of align,
// and differ by at most one group.
func TestSpan(t *testing.T) {
	for _, total := range []int{0, 1, 7, 8, 9, 16, 17, 33, 100, 12000} {
		for _, nw := range []int{1, 2, 3, 5} {
			for _, align := range []int{1, 4, 8} {
				next, small, large := 0, total+1, 0
				for w := range nw {
					lo, hi := span(total, nw, w, align)
					if lo != next || hi < lo || lo%align != 0 && lo != total {
						t.Fatalf("span(%d, %d, %d, %d) = [%d, %d) after %d", total, nw, w, align, lo, hi, next)
					}
					next = hi
					small, large = min(small, hi-lo), max(large, hi-lo)
				}
				if next != total || large-small > align {
					t.Fatalf("span(%d, %d, ·, %d): ends at %d, chunks %d..%d", total, nw, align, next, small, large)
				}
			}
		}
	}
}
