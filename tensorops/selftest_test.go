package tensorops

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// selfTestOps are the operations every SelfTest shape reports, in order.
var selfTestOps = []string{
	"Load/Store", "Copy", "Axpby", "Operator", "MulVec", "MulTVec",
	"Start/entropic", "Start/euclidean", "Prox/entropic", "Prox/euclidean",
	"ProxStats/entropic", "ProxStats/euclidean", "Average",
	"RegretMatch/rm+", "RegretMatch/prm+",
}

// TestSelfTestCPU runs the default self-test on the CPU backend with four
// workers, so that every kind of pass takes part whatever the machine (by
// rows, by columns for 5×20000 and 1×70001, column-blocked for 100×32800),
// and on the small shapes with one worker. Every result must pass, and the
// table must be complete and in order. The two storage types run in
// parallel.
func TestSelfTestCPU(t *testing.T) {
	small := [][2]int{{1, 1}, {1, 300}, {300, 1}, {7, 13}, {33, 65}, {257, 129}}
	for _, c := range []struct {
		threads int
		shapes  [][2]int
	}{{4, DefaultSelfTestShapes}, {1, small}} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			t.Run(fmt.Sprintf("threads=%d/%v", c.threads, dt), func(t *testing.T) {
				t.Parallel()
				cpu := NewCPU(c.threads)
				defer cpu.Close()
				res, err := SelfTest(context.Background(), cpu, &SelfTestOptions{Seed: 1, Shapes: c.shapes, Dtypes: []tensor.Dtype{dt}})
				if err != nil {
					t.Fatal(err)
				}
				if want := len(c.shapes) * len(selfTestOps); len(res) != want {
					t.Fatalf("%d results, want %d", len(res), want)
				}
				for i, r := range res {
					if r.Op != selfTestOps[i%len(selfTestOps)] {
						t.Fatalf("result %d is %q, want %q", i, r.Op, selfTestOps[i%len(selfTestOps)])
					}
					if !r.Pass || math.IsNaN(r.MaxRelErr) {
						t.Errorf("%s %s %s: error %.3g > tolerance %.3g", r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
					}
				}
				for _, r := range SelfTestWorst(res) {
					t.Logf("%-20s worst %.3g (tol %.3g) at %s", r.Op, r.MaxRelErr, r.Tol, r.Shape)
				}
			})
		}
	}
}

// TestSelfTestDeterministic checks that a seed fixes the inputs: two runs
// give the same errors, another seed others, and one shape alone the same
// errors as in the full run.
func TestSelfTestDeterministic(t *testing.T) {
	cpu := NewCPU(2)
	defer cpu.Close()
	shapes := [][2]int{{7, 13}, {33, 65}, {257, 129}}
	run := func(seed uint64, shapes [][2]int) []SelfTestResult {
		res, err := SelfTest(context.Background(), cpu, &SelfTestOptions{Seed: seed, Shapes: shapes, Dtypes: []tensor.Dtype{tensor.Float32}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(5, shapes), run(5, shapes), run(6, shapes)
	if !slices.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	if slices.Equal(a, c) {
		t.Error("runs with different seeds agree")
	}
	if sub := run(5, shapes[1:2]); !slices.Equal(sub, a[len(sub):2*len(sub)]) {
		t.Error("the second shape alone gives other errors than in the full run")
	}
}

// brokenOperator drops the last column of A from the operator (a loop
// bound off by one).
type brokenOperator struct{ *CPU }

func (b brokenOperator) Operator(fp, fq Vector, a Matrix, p, q Vector) {
	qs := slices.Clone(vec(q))
	qs[len(qs)-1] = 0
	b.CPU.Operator(fp, fq, a, p, CPUVector(qs))
	f := vec(fq)
	f[len(f)-1] = 0
}

// brokenMulTVec is off by 1e-6 relative.
type brokenMulTVec struct{ *CPU }

func (b brokenMulTVec) MulTVec(dst Vector, a Matrix, p Vector) {
	b.CPU.MulTVec(dst, a, p)
	for i, v := range vec(dst) {
		vec(dst)[i] = v * (1 + 1e-6)
	}
}

// brokenMulVecF32 forms A q in float32 arithmetic, against the contract.
type brokenMulVecF32 struct{ *CPU }

func (b brokenMulVecF32) MulVec(dst Vector, a Matrix, q Vector) {
	am, d, qs := a.(*cpuMatrix), vec(dst), vec(q)
	for i := range d {
		var s float32
		for j, qj := range qs {
			x := float32(qj)
			if am.f32 != nil {
				s += am.f32[i*am.n+j] * x
			} else {
				s += float32(am.f64[i*am.n+j]) * x
			}
		}
		d[i] = float64(s)
	}
}

// brokenAxpby writes dst = αx before reading y, wrong when dst aliases y.
type brokenAxpby struct{ *CPU }

func (b brokenAxpby) Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector) {
	d, xs, ys := vec(dst), vec(x), vec(y)
	for i := range d {
		d[i] = alpha * xs[i]
	}
	for i := range d {
		d[i] += beta * ys[i]
	}
}

// brokenProx materializes every entropic probability, also those below
// 1e-300 (denormals and all).
type brokenProx struct{ *CPU }

func (b brokenProx) Prox(dst, center Point, g Vector, eta float64, s Setup) {
	b.CPU.Prox(dst, center, g, eta, s)
	if s == Entropic {
		for i, l := range vec(dst.State) {
			vec(dst.Value)[i] = math.Exp(l)
		}
	}
}

// brokenRegret normalizes regrets whatever their sum.
type brokenRegret struct{ *CPU }

func (b brokenRegret) RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool) {
	b.CPU.RegretMatch(x, r, u, sign, 0, predictive)
}

// brokenProxStats reports the entropic dual norm in l2 instead of l∞.
type brokenProxStats struct{ *CPU }

func (b brokenProxStats) ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error {
	err := b.CPU.ProxStats(dst, w, blocks)
	for k := range blocks {
		if blocks[k].Setup != Entropic {
			continue
		}
		var s float64
		for i, g := range vec(blocks[k].G) {
			d := g - vec(blocks[k].M)[i]
			s += d * d
		}
		dst[k].DualGM = math.Sqrt(s)
	}
	return err
}

// brokenAverage updates AvgG with the weight of the old average and the new
// value swapped.
type brokenAverage struct{ *CPU }

func (b brokenAverage) Average(dst []GapStats, w float64, blocks []AvgBlock) error {
	return b.CPU.Average(dst, 1-w, blocks)
}

// TestSelfTestBroken wraps the CPU backend in backends with one deliberate
// bug each and checks that SelfTest fails exactly the operation with the
// bug: on every shape for the matrix products (every row or column sees the
// bug), on some shape for the others.
func TestSelfTestBroken(t *testing.T) {
	cpu := NewCPU(2)
	defer cpu.Close()
	cases := []struct {
		b     Backend
		op    string
		every bool
	}{
		{brokenOperator{cpu}, "Operator", true},
		{brokenMulTVec{cpu}, "MulTVec", true},
		{brokenMulVecF32{cpu}, "MulVec", true},
		{brokenAxpby{cpu}, "Axpby", true},
		{brokenProx{cpu}, "Prox/entropic", false},
		{brokenRegret{cpu}, "RegretMatch/", false}, // 1×1: normalizing r changes nothing
		{brokenProxStats{cpu}, "ProxStats/entropic", false},
		{brokenAverage{cpu}, "Average", true},
	}
	shapes := [][2]int{{1, 1}, {1, 300}, {300, 1}, {7, 13}, {33, 65}, {257, 129}}
	for _, c := range cases {
		res, err := SelfTest(context.Background(), c.b, &SelfTestOptions{Seed: 3, Shapes: shapes})
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for _, r := range res {
			target := strings.HasPrefix(r.Op, c.op)
			switch {
			case !r.Pass && !target:
				t.Errorf("%T: %s %s %s fails (%.3g > %.3g)", c.b, r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
			case r.Pass && target && c.every:
				t.Errorf("%T: %s %s %s passes (%.3g <= %.3g)", c.b, r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
			case !r.Pass:
				failed++
				// Clearly: by orders of magnitude.
				if r.MaxRelErr < 100*r.Tol {
					t.Errorf("%T: %s %s %s fails by only %.3g (tol %.3g)", c.b, r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
				}
			}
		}
		if failed == 0 {
			t.Errorf("%T: %s never fails", c.b, c.op)
		}
		for _, r := range SelfTestWorst(res) {
			if strings.HasPrefix(r.Op, c.op) {
				t.Logf("%T: %s worst %.3g at %s %s", c.b, r.Op, r.MaxRelErr, r.Shape, r.Dtype)
			}
		}
	}
}

// TestSelfTestOptions checks the option errors, cancellation, and that the
// table follows the options.
func TestSelfTestOptions(t *testing.T) {
	cpu := NewCPU(1)
	ctx := context.Background()
	if _, err := SelfTest(ctx, cpu, &SelfTestOptions{Shapes: [][2]int{{0, 3}}}); err == nil {
		t.Error("a 0x3 shape is accepted")
	}
	if _, err := SelfTest(ctx, cpu, &SelfTestOptions{Dtypes: []tensor.Dtype{tensor.Int}}); err == nil {
		t.Error("an int dtype is accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := SelfTest(canceled, cpu, nil); err != context.Canceled {
		t.Errorf("canceled context: error %v", err)
	}
	res, err := SelfTest(ctx, cpu, &SelfTestOptions{Shapes: [][2]int{{2, 3}, {3, 2}}, Dtypes: []tensor.Dtype{tensor.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2*len(selfTestOps) {
		t.Fatalf("%d results, want %d", len(res), 2*len(selfTestOps))
	}
	for i, r := range res {
		if want := []string{"2x3", "3x2"}[i/len(selfTestOps)]; r.Shape != want || r.Dtype != "f64" {
			t.Errorf("result %d: shape %s dtype %s, want %s f64", i, r.Shape, r.Dtype, want)
		}
	}
}

func TestSelfTestWorst(t *testing.T) {
	res := []SelfTestResult{
		{Op: "A", Shape: "1", MaxRelErr: 1e-15, Pass: true},
		{Op: "B", Shape: "1", MaxRelErr: 1, Pass: false},
		{Op: "A", Shape: "2", MaxRelErr: 1e-14, Pass: true},
		{Op: "B", Shape: "2", MaxRelErr: 1e-15, Pass: true},
		{Op: "A", Shape: "3", MaxRelErr: 1e-16, Pass: true},
	}
	w := SelfTestWorst(res)
	if len(w) != 2 || w[0].Op != "A" || w[0].Shape != "2" || w[1].Op != "B" || w[1].Shape != "1" {
		t.Errorf("worst = %+v", w)
	}
}

// TestSelfTestReference checks the reference's own building blocks on
// cases with known answers.
func TestSelfTestReference(t *testing.T) {
	if got := refProjectSimplex([]float64{0.5, 0.5}); !slices.Equal(got, []float64{0.5, 0.5}) {
		t.Errorf("projection of a simplex point: %v", got)
	}
	if got := refProjectSimplex([]float64{3, 0, -1}); !slices.Equal(got, []float64{1, 0, 0}) {
		t.Errorf("projection onto a vertex: %v", got)
	}
	if got := refProjectSimplex([]float64{1, 1, 0}); !slices.Equal(got, []float64{0.5, 0.5, 0}) {
		t.Errorf("projection onto an edge: %v", got)
	}
	l, p, _ := refLogProx([]float64{math.Log(0.5), math.Log(0.5)}, []float64{0, math.Log(3)}, 1)
	if math.Abs(p[0]-0.75) > 1e-15 || math.Abs(p[1]-0.25) > 1e-15 || math.Abs(l[0]-math.Log(0.75)) > 1e-15 {
		t.Errorf("log prox: %v %v", l, p)
	}
	if refProb(MinLogProb-1) != 0 || refProb(MinLogProb+1) == 0 {
		t.Error("refProb does not cut at 1e-300")
	}
	if relErr(math.NaN(), 1, 1) != math.Inf(1) || relErr(1, 1, 0) != 0 || relErr(2, 1, 0) <= 1e300 {
		t.Error("relErr")
	}
}

// reordered is a correct backend that rounds differently from the CPU
// backend and the reference: matrix products by FMAs from the last index
// down, Axpby and Average by FMAs, and the other vector operations on
// reversed copies of their vectors (a permutation changes the order of
// every reduction, not the result).
type reordered struct{ *CPU }

func rev(v Vector) CPUVector {
	s := slices.Clone(vec(v))
	slices.Reverse(s)
	return s
}

func unrev(dst Vector, s CPUVector) {
	d := vec(dst)
	copy(d, s)
	slices.Reverse(d)
}

func (b reordered) dots(dst []float64, a Matrix, q []float64, sign float64) {
	am := a.(*cpuMatrix)
	for i := range am.m {
		var s float64
		for j := am.n - 1; j >= 0; j-- {
			x := 0.0
			if am.f32 != nil {
				x = float64(am.f32[i*am.n+j])
			} else {
				x = am.f64[i*am.n+j]
			}
			s = math.FMA(x, q[j], s)
		}
		dst[i] = sign * s
	}
}

func (b reordered) tdots(dst []float64, a Matrix, p []float64) {
	am := a.(*cpuMatrix)
	clear(dst)
	for i := am.m - 1; i >= 0; i-- {
		for j := range am.n {
			x := 0.0
			if am.f32 != nil {
				x = float64(am.f32[i*am.n+j])
			} else {
				x = am.f64[i*am.n+j]
			}
			dst[j] = math.FMA(x, p[i], dst[j])
		}
	}
}

func (b reordered) Operator(fp, fq Vector, a Matrix, p, q Vector) {
	b.dots(vec(fp), a, vec(q), -1)
	b.tdots(vec(fq), a, vec(p))
}

func (b reordered) MulVec(dst Vector, a Matrix, q Vector) { b.dots(vec(dst), a, vec(q), 1) }

func (b reordered) MulTVec(dst Vector, a Matrix, p Vector) { b.tdots(vec(dst), a, vec(p)) }

func (b reordered) Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector) {
	d, xs, ys := vec(dst), vec(x), vec(y)
	for i := range d {
		d[i] = math.FMA(alpha, xs[i], beta*ys[i])
	}
}

func (b reordered) Average(dst []GapStats, w float64, blocks []AvgBlock) error {
	for k, x := range blocks {
		g := vec(x.G)
		st := GapStats{MinG: math.Inf(1), MinAvgG: math.Inf(1)}
		for i := len(g) - 1; i >= 0; i-- {
			st.MinG = min(st.MinG, g[i])
		}
		if x.AvgX != nil {
			xs, ax := vec(x.X), vec(x.AvgX)
			for i := range ax {
				ax[i] = math.FMA(w, xs[i]-ax[i], ax[i])
			}
		}
		if x.AvgG != nil {
			ag := vec(x.AvgG)
			for i := range ag {
				ag[i] = math.FMA(w, g[i]-ag[i], ag[i])
				st.MinAvgG = min(st.MinAvgG, ag[i])
			}
		}
		dst[k] = st
	}
	return nil
}

func revPoint(p Point) Point {
	v := rev(p.Value)
	if &vec(p.State)[0] == &vec(p.Value)[0] { // Euclidean
		return Point{State: v, Value: v}
	}
	return Point{State: rev(p.State), Value: v}
}

func (b reordered) Prox(dst, center Point, g Vector, eta float64, s Setup) {
	d := revPoint(dst)
	b.CPU.Prox(d, revPoint(center), rev(g), eta, s)
	unrev(dst.Value, d.Value.(CPUVector))
	if s == Entropic {
		unrev(dst.State, d.State.(CPUVector))
	}
}

func (b reordered) ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error {
	rb := make([]ProxBlock, len(blocks))
	for k, x := range blocks {
		rb[k] = ProxBlock{
			Setup: x.Setup, Y: revPoint(x.Y), X: revPoint(x.X), YNew: revPoint(x.YNew),
			M: rev(x.M), G: rev(x.G), AvgX: rev(x.AvgX), AvgG: rev(x.AvgG),
			NewAvgX: rev(x.NewAvgX), NewAvgG: rev(x.NewAvgG),
		}
	}
	err := b.CPU.ProxStats(dst, w, rb)
	for k := range blocks {
		unrev(blocks[k].NewAvgX, rb[k].NewAvgX.(CPUVector))
		unrev(blocks[k].NewAvgG, rb[k].NewAvgG.(CPUVector))
	}
	return err
}

func (b reordered) RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool) {
	xr, rr := rev(x), rev(r)
	b.CPU.RegretMatch(xr, rr, rev(u), sign, tiny, predictive)
	unrev(x, xr)
	unrev(r, rr)
}

// TestSelfTestOtherOrder checks that the tolerances leave room for a correct
// backend that adds in other orders and with fused multiply-adds: it passes
// with errors of 1e-16 to 2e-15, at least 20 times below the tolerances
// (about 45 times for the elementwise operations, 1000 times for the
// reductions).
func TestSelfTestOtherOrder(t *testing.T) {
	cpu := NewCPU(1)
	res, err := SelfTest(context.Background(), reordered{cpu}, &SelfTestOptions{Seed: 9, Shapes: [][2]int{{1, 1}, {1, 3000}, {3000, 1}, {7, 13}, {257, 129}, {1000, 97}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass || r.MaxRelErr > r.Tol/20 {
			t.Errorf("%s %s %s: error %.3g, tolerance %.3g", r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
		}
	}
	for _, r := range SelfTestWorst(res) {
		t.Logf("%-20s worst %.3g (tol %.3g) at %s %s", r.Op, r.MaxRelErr, r.Tol, r.Shape, r.Dtype)
	}
}
