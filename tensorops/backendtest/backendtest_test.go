package backendtest

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// allOps are the operations every Run shape reports, in order.
var allOps = []string{
	"Load/Store", "Copy", "Axpby", "Operator", "MulVec", "MulTVec", "SetMatrix", "Transpose",
	"SampledOperator", "Start/entropic", "Start/euclidean", "Start/box", "Start/ball",
	"Prox/entropic", "Prox/euclidean", "Prox/box", "Prox/ball",
	"ProxStats/entropic", "ProxStats/euclidean", "ProxStats/box", "ProxStats/ball",
	"Average/simplex", "Average/box", "Average/ball", "Average/lin",
	"RegretMatch/rm+", "RegretMatch/prm+",
	"BatchOperator", "BatchMulVec", "BatchMulTVec", "BatchCopy", "BatchAxpby",
	"BatchProx/entropic", "BatchProx/euclidean", "BatchProxStats", "BatchAverage", "BatchRegretMatch",
}

// TestDeterministic checks that a seed fixes the inputs: two runs
// give the same errors, another seed others, and one shape alone the same
// errors as in the full run.
func TestDeterministic(t *testing.T) {
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	shapes := [][2]int{{7, 13}, {33, 65}, {257, 129}}
	run := func(seed uint64, shapes [][2]int) []Result {
		res, err := Run(context.Background(), cpu, &Options{Seed: seed, Shapes: shapes, Dtypes: []tensor.Dtype{tensor.Float32}})
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
type brokenOperator struct{ *tensorops.CPU }

func (b brokenOperator) Operator(fp, fq tensorops.Vector, a tensorops.Matrix, p, q tensorops.Vector) {
	qs := slices.Clone(cv(q))
	qs[len(qs)-1] = 0
	b.CPU.Operator(fp, fq, a, p, tensorops.CPUVector(qs))
	f := cv(fq)
	f[len(f)-1] = 0
}

// brokenMulTVec is off by 1e-6 relative.
type brokenMulTVec struct{ *tensorops.CPU }

func (b brokenMulTVec) MulTVec(dst tensorops.Vector, a tensorops.Matrix, p tensorops.Vector) {
	b.CPU.MulTVec(dst, a, p)
	for i, v := range cv(dst) {
		cv(dst)[i] = v * (1 + 1e-6)
	}
}

// brokenMulVecF32 forms A q in float32 arithmetic, against the contract.
type brokenMulVecF32 struct{ hostCPU }

func (b brokenMulVecF32) MulVec(dst tensorops.Vector, a tensorops.Matrix, q tensorops.Vector) {
	d, qs := cv(dst), cv(q)
	for i := range d {
		var s float32
		for j, qj := range qs {
			s += float32(b.entry(a, i, j)) * float32(qj)
		}
		d[i] = float64(s)
	}
}

// brokenAxpby writes dst = αx before reading y, wrong when dst aliases y.
type brokenAxpby struct{ *tensorops.CPU }

func (b brokenAxpby) Axpby(dst tensorops.Vector, alpha float64, x tensorops.Vector, beta float64, y tensorops.Vector) {
	d, xs, ys := cv(dst), cv(x), cv(y)
	for i := range d {
		d[i] = alpha * xs[i]
	}
	for i := range d {
		d[i] += beta * ys[i]
	}
}

// brokenProx materializes every entropic probability, also those below
// 1e-300 (denormals and all).
type brokenProx struct{ *tensorops.CPU }

func (b brokenProx) Prox(dst, center tensorops.Point, g tensorops.Vector, eta float64, s tensorops.Set) {
	b.CPU.Prox(dst, center, g, eta, s)
	if s.Setup == tensorops.Entropic {
		for i, l := range cv(dst.State) {
			cv(dst.Value)[i] = math.Exp(l)
		}
	}
}

// brokenRegret normalizes regrets whatever their sum.
type brokenRegret struct{ *tensorops.CPU }

func (b brokenRegret) RegretMatch(x, r, u tensorops.Vector, sign, tiny float64, predictive bool) {
	b.CPU.RegretMatch(x, r, u, sign, 0, predictive)
}

// brokenProxStats reports the entropic dual norm in l2 instead of l∞.
type brokenProxStats struct{ *tensorops.CPU }

func (b brokenProxStats) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	err := b.CPU.ProxStats(dst, w, blocks)
	for k := range blocks {
		if blocks[k].Set.Setup != tensorops.Entropic {
			continue
		}
		var s float64
		for i, g := range cv(blocks[k].G) {
			d := g - cv(blocks[k].M)[i]
			s += d * d
		}
		dst[k].DualGM = math.Sqrt(s)
	}
	return err
}

// brokenBoxStart starts a box at 0, inside the box or not.
type brokenBoxStart struct{ *tensorops.CPU }

func (b brokenBoxStart) Start(dst tensorops.Point, s tensorops.Set) {
	b.CPU.Start(dst, s)
	if s.Setup == tensorops.Box {
		clear(cv(dst.Value))
	}
}

// brokenBallStats adds the radius term of a ball's MinG instead of
// subtracting it (the support max_z ⟨g, z⟩ instead of min_z).
type brokenBallStats struct{ *tensorops.CPU }

func (b brokenBallStats) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	err := b.CPU.ProxStats(dst, w, blocks)
	for k := range blocks {
		if s := blocks[k].Set; s.Setup == tensorops.Ball {
			var g2 float64
			for _, g := range cv(blocks[k].G) {
				g2 += g * g
			}
			dst[k].MinG += 2 * s.Radius * math.Sqrt(g2)
		}
	}
	return err
}

// brokenLin leaves the last element out of Average's linear term at x.
type brokenLin struct{ *tensorops.CPU }

func (b brokenLin) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	err := b.CPU.Average(dst, w, blocks)
	for k := range blocks {
		if l := cv(blocks[k].Lin); l != nil {
			dst[k].LinX -= l[len(l)-1] * cv(blocks[k].X)[len(l)-1]
		}
	}
	return err
}

// brokenAverage updates AvgG with the weight of the old average and the new
// value swapped.
type brokenAverage struct{ *tensorops.CPU }

func (b brokenAverage) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	return b.CPU.Average(dst, 1-w, blocks)
}

// TestBrokenBackends wraps the CPU backend in backends with one deliberate
// bug each and checks that Run fails exactly the operations with the bug
// (the one broken and those checked through it): on every shape for the
// matrix products (every row or column sees the bug) and the operations
// marked every, on some shape for the others.
func TestBrokenBackends(t *testing.T) {
	h := newHostCPU(2)
	defer h.Close()
	cpu := h.CPU
	cases := []struct {
		b     tensorops.Backend
		ops   string // prefixes of the operations that must fail, separated by commas
		every bool
	}{
		{brokenOperator{cpu}, "Operator,SetMatrix,Transpose", true},
		{brokenMulTVec{cpu}, "MulTVec", true},
		{brokenMulVecF32{h}, "MulVec", true},
		{brokenSetMatrix{cpu}, "SetMatrix,Transpose,SampledOperator", true},
		{brokenTranspose{h}, "Transpose,SampledOperator", false}, // m = 1 or n = 1: Aᵀ is A reshaped
		{brokenSampled{cpu}, "SampledOperator", false},           // 1×1: every draw is index 0
		{brokenAxpby{cpu}, "Axpby", true},
		{brokenProx{cpu}, "Prox/entropic", false},
		{brokenRegret{cpu}, "RegretMatch/", false}, // 1×1: normalizing r changes nothing
		{brokenProxStats{cpu}, "ProxStats/entropic", false},
		{brokenAverage{cpu}, "Average", true},
		{brokenBoxStart{cpu}, "Start/box", true},
		{brokenBallStats{cpu}, "ProxStats/ball", true},
		{brokenLin{cpu}, "Average/lin", true},
		{brokenBatchSelection{cpu}, "BatchAxpby", true},
		{brokenBatchEta{cpu}, "BatchProx/", false}, // 1×1: the prox of a one-point simplex ignores its step
		{brokenBatchOrder{cpu}, "BatchProxStats", true},
	}
	shapes := [][2]int{{1, 1}, {1, 300}, {300, 1}, {7, 13}, {33, 65}, {257, 129}}
	for _, c := range cases {
		res, err := Run(context.Background(), c.b, &Options{Seed: 3, Shapes: shapes})
		if err != nil {
			t.Fatal(err)
		}
		isTarget := func(op string) bool {
			for _, prefix := range strings.Split(c.ops, ",") {
				if strings.HasPrefix(op, prefix) {
					return true
				}
			}
			return false
		}
		failed := 0
		for _, r := range res {
			target := isTarget(r.Op)
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
			t.Errorf("%T: %s never fails", c.b, c.ops)
		}
		for _, r := range Worst(res) {
			if isTarget(r.Op) {
				t.Logf("%T: %s worst %.3g at %s %s", c.b, r.Op, r.MaxRelErr, r.Shape, r.Dtype)
			}
		}
	}
}

// brokenBatchSelection runs BatchAxpby on every game of the batch, not only
// the selected ones.
type brokenBatchSelection struct{ *tensorops.CPU }

func (b brokenBatchSelection) BatchAxpby(dst tensorops.Vector, alpha []float64, x tensorops.Vector, beta []float64, y tensorops.Vector, sel tensorops.Selection) {
	b.CPU.BatchAxpby(dst, alpha, x, beta, y, sel)
	n := dst.Len() / sel.Games()
	for k := range sel.Games() {
		v := func(u tensorops.Vector) tensorops.Vector { return b.GameVector(u, n, k) }
		b.Axpby(v(dst), alpha[0], v(x), beta[0], v(y))
	}
}

// brokenBatchEta gives the selected games their steps in reverse order.
type brokenBatchEta struct{ *tensorops.CPU }

func (b brokenBatchEta) BatchProx(dst, center tensorops.Point, g tensorops.Vector, eta []float64, s tensorops.Setup, sel tensorops.Selection) {
	rev := slices.Clone(eta)
	slices.Reverse(rev)
	b.CPU.BatchProx(dst, center, g, rev, s, sel)
}

// brokenBatchOrder returns the statistics of the first two selected games
// swapped (results in index order instead of selection order).
type brokenBatchOrder struct{ *tensorops.CPU }

func (b brokenBatchOrder) BatchProxStats(dst []tensorops.BlockStats, w []float64, blocks []tensorops.ProxBlock, sel tensorops.Selection) error {
	err := b.CPU.BatchProxStats(dst, w, blocks, sel)
	if nb := len(blocks); sel.Len() >= 2 {
		for j := range nb {
			dst[j], dst[nb+j] = dst[nb+j], dst[j]
		}
	}
	return err
}

// brokenSampled draws from the next counter's uniforms.
type brokenSampled struct{ *tensorops.CPU }

func (b brokenSampled) SampledOperator(fp, fq tensorops.Vector, a, at tensorops.Matrix, p, q tensorops.Vector, d tensorops.Draw) {
	d.Counter++
	b.CPU.SampledOperator(fp, fq, a, at, p, q, d)
}

// brokenSetMatrix accepts the new entries and keeps the old ones.
type brokenSetMatrix struct{ *tensorops.CPU }

func (brokenSetMatrix) SetMatrix(tensorops.Matrix, *tensor.Dense) error { return nil }

// brokenTranspose reads A's entries as an n×m matrix: a reshape, not a
// transpose.
type brokenTranspose struct{ hostCPU }

func (b brokenTranspose) Transpose(a tensorops.Matrix) (tensorops.Matrix, error) {
	m, n := a.Dims()
	return b.CPU.NewMatrix(tensor.New(tensor.WithShape(n, m), tensor.WithBacking(b.mats[a].Data())))
}

// TestOptions checks the option errors, cancellation, and that the
// table follows the options.
func TestOptions(t *testing.T) {
	cpu := tensorops.NewCPU(1)
	ctx := context.Background()
	if _, err := Run(ctx, cpu, &Options{Shapes: [][2]int{{0, 3}}}); err == nil {
		t.Error("a 0x3 shape is accepted")
	}
	if _, err := Run(ctx, cpu, &Options{Dtypes: []tensor.Dtype{tensor.Int}}); err == nil {
		t.Error("an int dtype is accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(canceled, cpu, nil); err != context.Canceled {
		t.Errorf("canceled context: error %v", err)
	}
	res, err := Run(ctx, cpu, &Options{Shapes: [][2]int{{2, 3}, {3, 2}}, Dtypes: []tensor.Dtype{tensor.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2*len(allOps) {
		t.Fatalf("%d results, want %d", len(res), 2*len(allOps))
	}
	for i, r := range res {
		if want := []string{"2x3", "3x2"}[i/len(allOps)]; r.Shape != want || r.Dtype != "f64" {
			t.Errorf("result %d: shape %s dtype %s, want %s f64", i, r.Shape, r.Dtype, want)
		}
	}
}

func TestWorst(t *testing.T) {
	res := []Result{
		{Op: "A", Shape: "1", MaxRelErr: 1e-15, Pass: true},
		{Op: "B", Shape: "1", MaxRelErr: 1, Pass: false},
		{Op: "A", Shape: "2", MaxRelErr: 1e-14, Pass: true},
		{Op: "B", Shape: "2", MaxRelErr: 1e-15, Pass: true},
		{Op: "A", Shape: "3", MaxRelErr: 1e-16, Pass: true},
	}
	w := Worst(res)
	if len(w) != 2 || w[0].Op != "A" || w[0].Shape != "2" || w[1].Op != "B" || w[1].Shape != "1" {
		t.Errorf("worst = %+v", w)
	}
}

// TestReference checks the reference's own building blocks on
// cases with known answers.
func TestReference(t *testing.T) {
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
	if refProb(tensorops.MinLogProb-1) != 0 || refProb(tensorops.MinLogProb+1) == 0 {
		t.Error("refProb does not cut at 1e-300")
	}
	if relErr(math.NaN(), 1, 1) != math.Inf(1) || relErr(1, 1, 0) != 0 || relErr(2, 1, 0) <= 1e300 {
		t.Error("relErr")
	}
}

// reordered is a correct backend that rounds differently from the tensorops.CPU
// backend and the reference: matrix products by FMAs from the last index
// down, Axpby and Average by FMAs, and the other vector operations on
// reversed copies of their vectors (a permutation changes the order of
// every reduction, not the result).
type reordered struct{ hostCPU }

// rev returns a reversed copy of v, nil for nil.
func rev(v tensorops.Vector) tensorops.Vector {
	if v == nil {
		return nil
	}
	s := slices.Clone(cv(v))
	slices.Reverse(s)
	return s
}

func unrev(dst, s tensorops.Vector) {
	if dst == nil {
		return
	}
	d := cv(dst)
	copy(d, cv(s))
	slices.Reverse(d)
}

// revSet reverses a set's vectors.
func revSet(s tensorops.Set) tensorops.Set {
	s.Lo, s.Hi, s.Center = rev(s.Lo), rev(s.Hi), rev(s.Center)
	return s
}

func (b reordered) dots(dst []float64, a tensorops.Matrix, q []float64, sign float64) {
	m, n := a.Dims()
	for i := range m {
		var s float64
		for j := n - 1; j >= 0; j-- {
			s = math.FMA(b.entry(a, i, j), q[j], s)
		}
		dst[i] = sign * s
	}
}

func (b reordered) tdots(dst []float64, a tensorops.Matrix, p []float64) {
	m, n := a.Dims()
	clear(dst)
	for i := m - 1; i >= 0; i-- {
		for j := range n {
			dst[j] = math.FMA(b.entry(a, i, j), p[i], dst[j])
		}
	}
}

func (b reordered) Operator(fp, fq tensorops.Vector, a tensorops.Matrix, p, q tensorops.Vector) {
	b.dots(cv(fp), a, cv(q), -1)
	b.tdots(cv(fq), a, cv(p))
}

func (b reordered) MulVec(dst tensorops.Vector, a tensorops.Matrix, q tensorops.Vector) {
	b.dots(cv(dst), a, cv(q), 1)
}

func (b reordered) MulTVec(dst tensorops.Vector, a tensorops.Matrix, p tensorops.Vector) {
	b.tdots(cv(dst), a, cv(p))
}

func (b reordered) Axpby(dst tensorops.Vector, alpha float64, x tensorops.Vector, beta float64, y tensorops.Vector) {
	d, xs, ys := cv(dst), cv(x), cv(y)
	for i := range d {
		d[i] = math.FMA(alpha, xs[i], beta*ys[i])
	}
}

// Average updates the averages by FMAs, then takes the gap quantities
// from the CPU backend on reversed copies (with w = 0, which leaves the
// copies of the averages as they are).
func (b reordered) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	rb := make([]tensorops.AvgBlock, len(blocks))
	for k, x := range blocks {
		g := cv(x.G)
		if x.AvgX != nil {
			xs, ax := cv(x.X), cv(x.AvgX)
			for i := range ax {
				ax[i] = math.FMA(w, xs[i]-ax[i], ax[i])
			}
		}
		if x.AvgG != nil {
			ag := cv(x.AvgG)
			for i := range ag {
				ag[i] = math.FMA(w, g[i]-ag[i], ag[i])
			}
		}
		rb[k] = tensorops.AvgBlock{Set: revSet(x.Set), X: rev(x.X), G: rev(x.G), Lin: rev(x.Lin), AvgX: rev(x.AvgX), AvgG: rev(x.AvgG)}
	}
	return b.CPU.Average(dst, 0, rb)
}

func revPoint(p tensorops.Point) tensorops.Point {
	v := rev(p.Value)
	if &cv(p.State)[0] == &cv(p.Value)[0] { // every setup but Entropic
		return tensorops.Point{State: v, Value: v}
	}
	return tensorops.Point{State: rev(p.State), Value: v}
}

func (b reordered) Start(dst tensorops.Point, s tensorops.Set) {
	d := revPoint(dst)
	b.CPU.Start(d, revSet(s))
	unrev(dst.Value, d.Value)
	if s.Setup == tensorops.Entropic {
		unrev(dst.State, d.State)
	}
}

func (b reordered) Prox(dst, center tensorops.Point, g tensorops.Vector, eta float64, s tensorops.Set) {
	d := revPoint(dst)
	b.CPU.Prox(d, revPoint(center), rev(g), eta, revSet(s))
	unrev(dst.Value, d.Value)
	if s.Setup == tensorops.Entropic {
		unrev(dst.State, d.State)
	}
}

func (b reordered) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	rb := make([]tensorops.ProxBlock, len(blocks))
	for k, x := range blocks {
		rb[k] = tensorops.ProxBlock{
			Set: revSet(x.Set), Y: revPoint(x.Y), X: revPoint(x.X), YNew: revPoint(x.YNew),
			M: rev(x.M), G: rev(x.G), Lin: rev(x.Lin), AvgX: rev(x.AvgX), AvgG: rev(x.AvgG),
			NewAvgX: rev(x.NewAvgX), NewAvgG: rev(x.NewAvgG),
		}
	}
	err := b.CPU.ProxStats(dst, w, rb)
	for k := range blocks {
		unrev(blocks[k].NewAvgX, rb[k].NewAvgX)
		unrev(blocks[k].NewAvgG, rb[k].NewAvgG)
	}
	return err
}

func (b reordered) RegretMatch(x, r, u tensorops.Vector, sign, tiny float64, predictive bool) {
	xr, rr := rev(x), rev(r)
	b.CPU.RegretMatch(xr, rr, rev(u), sign, tiny, predictive)
	unrev(x, xr)
	unrev(r, rr)
}

// TestOtherOrder checks that the tolerances leave room for a correct
// backend that adds in other orders and with fused multiply-adds: it passes
// with errors of 1e-16 to 2e-15, at least 20 times below the tolerances
// (about 45 times for the elementwise operations, 1000 times for the
// reductions).
func TestOtherOrder(t *testing.T) {
	res, err := Run(context.Background(), reordered{newHostCPU(1)}, &Options{Seed: 9, Shapes: [][2]int{{1, 1}, {1, 3000}, {3000, 1}, {7, 13}, {257, 129}, {1000, 97}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Pass || r.MaxRelErr > r.Tol/20 {
			t.Errorf("%s %s %s: error %.3g, tolerance %.3g", r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol)
		}
	}
	for _, r := range Worst(res) {
		t.Logf("%-20s worst %.3g (tol %.3g) at %s %s", r.Op, r.MaxRelErr, r.Tol, r.Shape, r.Dtype)
	}
}

// cv unwraps a CPU vector.
func cv(v tensorops.Vector) tensorops.CPUVector {
	if v == nil {
		return nil
	}
	return v.(tensorops.CPUVector)
}

// hostCPU is the CPU backend keeping the host tensor of every matrix it
// places, so that the test backends can recompute products their own way.
type hostCPU struct {
	*tensorops.CPU
	mats map[tensorops.Matrix]*tensor.Dense
}

func newHostCPU(threads int) hostCPU {
	return hostCPU{tensorops.NewCPU(threads), map[tensorops.Matrix]*tensor.Dense{}}
}

func (h hostCPU) NewMatrix(t *tensor.Dense) (tensorops.Matrix, error) {
	a, err := h.CPU.NewMatrix(t)
	if err == nil {
		h.mats[a] = t
	}
	return a, err
}

func (h hostCPU) SetMatrix(dst tensorops.Matrix, src *tensor.Dense) error {
	err := h.CPU.SetMatrix(dst, src)
	if err == nil {
		h.mats[dst] = src
	}
	return err
}

func (h hostCPU) Transpose(a tensorops.Matrix) (tensorops.Matrix, error) {
	at, err := h.CPU.Transpose(a)
	if err != nil {
		return nil, err
	}
	t := h.mats[a].Clone().(*tensor.Dense)
	if err := t.T(); err != nil {
		return nil, err
	}
	if err := t.Transpose(); err != nil {
		return nil, err
	}
	h.mats[at] = t
	return at, nil
}

// entry returns A_ij in float64.
func (h hostCPU) entry(a tensorops.Matrix, i, j int) float64 {
	_, n := a.Dims()
	switch d := h.mats[a].Data().(type) {
	case []float64:
		return d[i*n+j]
	case []float32:
		return float64(d[i*n+j])
	}
	panic("hostCPU: a matrix it did not place")
}
