//go:build cuda

package tensorops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/kernels"
	"github.com/gpump/gpump/tensorops"
)

// batchVec is one batch vector of block length n held three times: g1 for
// the batched operation, g2 for the single-game operations on its
// GameVector views, cpu for the CPU backend's single-game operations on
// its runs. h is the initial value.
type batchVec struct {
	n      int
	h      []float64
	g1, g2 tensorops.Vector
	cpu    tensorops.CPUVector
}

// batchFixture is a batch of B games of m×n on the CUDA backend (and its
// games on the CPU backend) with a selection.
type batchFixture struct {
	t       *testing.T
	c       *tensorops.CUDA
	cpu     *tensorops.CPU
	b, m, n int
	a       tensorops.BatchMatrix
	ca      []tensorops.Matrix // the CPU backend's games
	sel     tensorops.Selection
	games   []int
	rng     *rand.Rand
	vecs    []*batchVec
}

func newBatchFixture(t *testing.T, c *tensorops.CUDA, cpu *tensorops.CPU, b, m, n int, f32 bool, games []int) *batchFixture {
	t.Helper()
	f := &batchFixture{t: t, c: c, cpu: cpu, b: b, m: m, n: n, games: games, rng: rand.New(rand.NewPCG(uint64(b*m), uint64(n)))}
	var bt *tensor.Dense
	if f32 {
		bt, f.ca = batchTensor[float32](t, cpu, b, m, n, f.rng)
	} else {
		bt, f.ca = batchTensor[float64](t, cpu, b, m, n, f.rng)
	}
	var err error
	if f.a, err = c.NewBatchMatrix(bt); err != nil {
		t.Fatal(err)
	}
	if f.sel, err = c.NewSelection(b); err != nil {
		t.Fatal(err)
	}
	if err := c.Select(f.sel, games); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Free(f.a, f.sel)
		for _, v := range f.vecs {
			c.Free(v.g1, v.g2)
		}
	})
	return f
}

// batchTensor returns a (b, m, n) tensor of entries in [−1, 1) and its
// games on the CPU backend.
func batchTensor[T float32 | float64](t *testing.T, cpu *tensorops.CPU, b, m, n int, rng *rand.Rand) (*tensor.Dense, []tensorops.Matrix) {
	d := make([]T, b*m*n)
	for i := range d {
		d[i] = T(2*rng.Float64() - 1)
	}
	var games []tensorops.Matrix
	for k := range b {
		ca, err := cpu.NewMatrix(tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d[k*m*n:(k+1)*m*n])))
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, ca)
	}
	return tensor.New(tensor.WithShape(b, m, n), tensor.WithBacking(d)), games
}

// vec makes a batch vector of block length n with values from gen (called
// once per game).
func (f *batchFixture) vec(n int, gen func(n int) []float64) *batchVec {
	f.t.Helper()
	v := &batchVec{n: n}
	for range f.b {
		v.h = append(v.h, gen(n)...)
	}
	v.cpu = slices.Clone(v.h)
	for _, g := range []*tensorops.Vector{&v.g1, &v.g2} {
		var err error
		if *g, err = f.c.NewVector(f.b * n); err != nil {
			f.t.Fatal(err)
		}
		if err := f.c.Load(*g, v.h); err != nil {
			f.t.Fatal(err)
		}
	}
	f.vecs = append(f.vecs, v)
	return v
}

func (f *batchFixture) simplex(n int) []float64 {
	v := make([]float64, n)
	var s float64
	for i := range v {
		v[i] = f.rng.Float64() + 0.01
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
	return v
}

func (f *batchFixture) signed(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*f.rng.Float64() - 1
	}
	return v
}

// logSimplex returns the logs of a simplex point.
func (f *batchFixture) logSimplex(n int) []float64 {
	v := f.simplex(n)
	for i := range v {
		v[i] = math.Log(v[i])
	}
	return v
}

// perGame returns different positive scalars, one per selected game.
func (f *batchFixture) perGame(base float64) []float64 {
	v := make([]float64, len(f.games))
	for i := range v {
		v[i] = base * (1 + 0.37*float64(i))
	}
	return v
}

// gameOps runs the single-game operations of one selected game on a
// backend: v gives a batch vector's run of the game, a its matrix, i is
// the game's position in the selection. It returns the scalars the
// operation returns (nil for none).
type gameOps func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, i int) []float64

// check runs batched (on the g1 vectors; it returns the scalars, game after
// game in selection order) and single (per selected game on the g2 views
// and on the CPU runs), and compares: every selected game's run of every
// vector and its scalars within tol·(1 + |want|) of both references (NaN
// where they have NaN), the unselected games' runs bitwise untouched. It
// also checks the launches and copies of the batched operation.
func (f *batchFixture) check(name string, tol float64, launches, htod, dtoh int64, batched func() []float64, single gameOps) {
	f.t.Helper()
	c := f.c
	before := c.WorkerCounts()
	got := batched()
	after := c.WorkerCounts()
	if d := after.Launches - before.Launches; len(f.games) > 0 && (d != launches || after.HtoD-before.HtoD != htod || after.DtoH-before.DtoH != dtoh) {
		f.t.Errorf("%s: %d launches, %d/%d HtoD/DtoH copies; want %d, %d/%d", name, d, after.HtoD-before.HtoD, after.DtoH-before.DtoH, launches, htod, dtoh)
	}
	var wantGPU, wantCPU []float64
	for i, k := range f.games {
		wantGPU = append(wantGPU, single(c, func(v *batchVec) tensorops.Vector { return c.GameVector(v.g2, v.n, k) }, c.GameMatrix(f.a, k), i)...)
		wantCPU = append(wantCPU, single(f.cpu, func(v *batchVec) tensorops.Vector { return v.cpu[k*v.n : (k+1)*v.n] }, f.ca[k], i)...)
	}
	near := func(a, b float64) bool {
		return math.Abs(a-b) <= tol*(1+math.Abs(b)) || math.IsNaN(a) && math.IsNaN(b)
	}
	for j := range got {
		if !near(got[j], wantGPU[j]) || !near(got[j], wantCPU[j]) {
			f.t.Errorf("%s: scalar %d is %v; single-game CUDA %v, CPU %v", name, j, got[j], wantGPU[j], wantCPU[j])
		}
	}
	if len(got) != len(wantCPU) {
		f.t.Errorf("%s: %d scalars, want %d", name, len(got), len(wantCPU))
	}
	selected := make([]bool, f.b)
	for _, k := range f.games {
		selected[k] = true
	}
	for vi, v := range f.vecs {
		h1, h2 := make([]float64, f.b*v.n), make([]float64, f.b*v.n)
		if err := c.Store(h1, v.g1); err != nil {
			f.t.Fatal(err)
		}
		if err := c.Store(h2, v.g2); err != nil {
			f.t.Fatal(err)
		}
		for k := range f.b {
			r := func(x []float64) []float64 { return x[k*v.n : (k+1)*v.n] }
			if !selected[k] {
				if !slices.Equal(r(h1), r(v.h)) || !slices.Equal(r(h2), r(v.h)) {
					f.t.Errorf("%s: vector %d of unselected game %d changed", name, vi, k)
				}
				continue
			}
			for j := range v.n {
				if g := r(h1)[j]; !near(g, r(h2)[j]) || !near(g, r(v.cpu)[j]) {
					f.t.Errorf("%s: vector %d of game %d, element %d: %v; single-game CUDA %v, CPU %v", name, vi, k, j, g, r(h2)[j], r(v.cpu)[j])
					break
				}
			}
		}
	}
	f.reset()
}

// checkOp is check for an operation that returns nothing and is one
// launch (with htod copies of scalars).
func (f *batchFixture) checkOp(name string, tol float64, htod int64, batched func(),
	single func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, i int)) {
	f.t.Helper()
	f.check(name, tol, 1, htod, 0, func() []float64 {
		batched()
		return nil
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, i int) []float64 {
		single(be, v, a, i)
		return nil
	})
}

// reset reloads every vector's initial value everywhere.
func (f *batchFixture) reset() {
	for _, v := range f.vecs {
		copy(v.cpu, v.h)
		for _, g := range []tensorops.Vector{v.g1, v.g2} {
			if err := f.c.Load(g, v.h); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

func statsWords(dst []tensorops.BlockStats) []float64 {
	var out []float64
	for _, s := range dst {
		out = append(out, s.MinG, s.MinAvgG, s.LinX, s.LinAvgX, s.DivXY, s.DivYX, s.DistXY, s.DistXYNew, s.DualGM, s.InnerGM)
	}
	return out
}

func gapWords(dst []tensorops.GapStats) []float64 {
	var out []float64
	for _, s := range dst {
		out = append(out, s.MinG, s.MinAvgG, s.LinX, s.LinAvgX)
	}
	return out
}

// runBatchOps checks every Batched operation of f's batch against the
// single-game operations.
func runBatchOps(f *batchFixture) {
	c, m, n, sel := f.c, f.m, f.n, f.sel
	p, q := f.vec(m, f.simplex), f.vec(n, f.simplex)
	fp, fq := f.vec(m, f.signed), f.vec(n, f.signed)

	// The pass over A.
	f.checkOp("BatchOperator", 1e-13, 0, func() {
		c.BatchOperator(fp.g1, fq.g1, f.a, p.g1, q.g1, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, _ int) {
		be.Operator(v(fp), v(fq), a, v(p), v(q))
	})
	f.checkOp("BatchMulVec", 1e-13, 0, func() {
		c.BatchMulVec(fp.g1, f.a, q.g1, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, _ int) {
		be.MulVec(v(fp), a, v(q))
	})
	f.checkOp("BatchMulTVec", 1e-13, 0, func() {
		c.BatchMulTVec(fq.g1, f.a, p.g1, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, a tensorops.Matrix, _ int) {
		be.MulTVec(v(fq), a, v(p))
	})

	// The prox-mappings, each game with its own step.
	eta := f.perGame(0.7)
	cl, cv := f.vec(m, f.logSimplex), f.vec(m, f.simplex)
	dl, dv := f.vec(m, f.signed), f.vec(m, f.signed)
	gm := f.vec(m, f.signed)
	f.checkOp("BatchProx entropic", 1e-12, 1, func() {
		c.BatchProx(tensorops.Point{State: dl.g1, Value: dv.g1}, tensorops.Point{State: cl.g1, Value: cv.g1}, gm.g1, eta, tensorops.Entropic, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, i int) {
		be.Prox(tensorops.Point{State: v(dl), Value: v(dv)}, tensorops.Point{State: v(cl), Value: v(cv)}, v(gm), eta[i], tensorops.Set{Setup: tensorops.Entropic})
	})
	cn, dn, gn := f.vec(n, f.simplex), f.vec(n, f.signed), f.vec(n, f.signed)
	f.checkOp("BatchProx euclidean", 1e-13, 1, func() {
		c.BatchProx(tensorops.Point{State: dn.g1, Value: dn.g1}, tensorops.Point{State: cn.g1, Value: cn.g1}, gn.g1, eta, tensorops.Euclidean, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, i int) {
		be.Prox(tensorops.Point{State: v(dn), Value: v(dn)}, tensorops.Point{State: v(cn), Value: v(cn)}, v(gn), eta[i], tensorops.Set{Setup: tensorops.Euclidean})
	})

	// ProxStats: block 0 entropic (length m), block 1 Euclidean (length n).
	w := f.perGame(0.2)
	type pts struct{ y, x, yn, ly, lx, lyn, m, g, ax, ag, nax, nag *batchVec }
	var b0, b1 pts
	b0 = pts{f.vec(m, f.simplex), f.vec(m, f.simplex), f.vec(m, f.simplex), nil, nil, nil,
		f.vec(m, f.signed), f.vec(m, f.signed), f.vec(m, f.simplex), f.vec(m, f.signed), f.vec(m, f.signed), f.vec(m, f.signed)}
	b0.ly, b0.lx, b0.lyn = f.vec(m, f.logSimplex), f.vec(m, f.logSimplex), f.vec(m, f.logSimplex)
	b1 = pts{f.vec(n, f.simplex), f.vec(n, f.simplex), f.vec(n, f.simplex), nil, nil, nil,
		f.vec(n, f.signed), f.vec(n, f.signed), f.vec(n, f.simplex), f.vec(n, f.signed), f.vec(n, f.signed), f.vec(n, f.signed)}
	blocks := func(v func(*batchVec) tensorops.Vector) []tensorops.ProxBlock {
		pb := func(b pts, s tensorops.Setup) tensorops.ProxBlock {
			pt := func(val, st *batchVec) tensorops.Point {
				if st == nil {
					return tensorops.Point{State: v(val), Value: v(val)}
				}
				return tensorops.Point{State: v(st), Value: v(val)}
			}
			return tensorops.ProxBlock{Set: tensorops.Set{Setup: s}, Y: pt(b.y, b.ly), X: pt(b.x, b.lx), YNew: pt(b.yn, b.lyn),
				M: v(b.m), G: v(b.g), AvgX: v(b.ax), AvgG: v(b.ag), NewAvgX: v(b.nax), NewAvgG: v(b.nag)}
		}
		return []tensorops.ProxBlock{pb(b0, tensorops.Entropic), pb(b1, tensorops.Euclidean)}
	}
	checkStats(f, "BatchProxStats", 1e-12, c.BatchProxStats, blocks, w, statsWords,
		func(be tensorops.Backend) func([]tensorops.BlockStats, float64, []tensorops.ProxBlock) error {
			return be.ProxStats
		})

	// Average: block 0 with both averages, block 1 without (MinAvgG NaN).
	avg := func(v func(*batchVec) tensorops.Vector) []tensorops.AvgBlock {
		return []tensorops.AvgBlock{
			{Set: tensorops.Set{Setup: tensorops.Entropic}, X: v(b0.x), G: v(b0.g), AvgX: v(b0.ax), AvgG: v(b0.ag)},
			{Set: tensorops.Set{Setup: tensorops.Euclidean}, G: v(b1.g)},
		}
	}
	checkStats(f, "BatchAverage", 1e-13, c.BatchAverage, avg, w, gapWords,
		func(be tensorops.Backend) func([]tensorops.GapStats, float64, []tensorops.AvgBlock) error {
			return be.Average
		})

	// Regret matching, both variants, each game with its own sign and
	// tiny.
	tiny, signs := f.perGame(1e-12), f.perGame(-0.7)
	rx, rr, ru := f.vec(n, f.simplex), f.vec(n, func(n int) []float64 {
		v := f.simplex(n)
		for i := range v {
			v[i] *= 0.1
		}
		return v
	}), f.vec(n, f.signed)
	for _, pred := range []bool{false, true} {
		f.checkOp(fmt.Sprintf("BatchRegretMatch predictive=%v", pred), 1e-13, 1, func() {
			c.BatchRegretMatch(rx.g1, rr.g1, ru.g1, signs, tiny, pred, sel)
		}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, i int) {
			be.RegretMatch(v(rx), v(rr), v(ru), signs[i], tiny[i], pred)
		})
	}

	// Copy and Axpby (dst aliasing x), each game with its own alpha, beta.
	alpha, beta := f.perGame(2), f.perGame(-0.5)
	f.checkOp("BatchCopy", 0, 0, func() {
		c.BatchCopy(fp.g1, dv.g1, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, _ int) {
		be.Copy(v(fp), v(dv))
	})
	f.checkOp("BatchAxpby", 1e-15, 1, func() {
		c.BatchAxpby(fp.g1, alpha, fp.g1, beta, dv.g1, sel)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, i int) {
		be.Axpby(v(fp), alpha[i], v(fp), beta[i], v(dv))
	})
}

// checkStats is f.check for BatchProxStats (S = BlockStats, B =
// ProxBlock) and BatchAverage (GapStats, AvgBlock) with two strategy
// blocks made by blocks: two launches, one copy of the weights, one copy
// of the results.
func checkStats[S, B any](f *batchFixture, name string, tol float64,
	batched func([]S, []float64, []B, tensorops.Selection) error,
	blocks func(func(*batchVec) tensorops.Vector) []B, w []float64, words func([]S) []float64,
	single func(tensorops.Backend) func([]S, float64, []B) error) {
	f.t.Helper()
	f.check(name, tol, 2, 1, 1, func() []float64 {
		dst := make([]S, 2*len(f.games))
		if err := batched(dst, w, blocks(func(v *batchVec) tensorops.Vector { return v.g1 }), f.sel); err != nil {
			f.t.Fatal(err)
		}
		return words(dst)
	}, func(be tensorops.Backend, v func(*batchVec) tensorops.Vector, _ tensorops.Matrix, i int) []float64 {
		dst := make([]S, 2)
		if err := single(be)(dst, w[i], blocks(v)); err != nil {
			f.t.Fatal(err)
		}
		return words(dst)
	})
}

// Every Batched operation gives, on each selected game, what the
// single-game operations give on its GameVector and GameMatrix views and
// what the CPU backend gives on the game alone; the unselected games' data
// stay as they were, bit for bit; each operation is one launch for the
// whole selection (one per strategy block for the statistics), its
// per-game scalars one host-to-device copy, and the statistics of every
// game one device-to-host copy.
func TestCUDABatched(t *testing.T) {
	c := newTestCUDA(t)
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	for _, tc := range []struct {
		b, m, n int
		games   []int
	}{
		{1, 1, 1, []int{0}}, {3, 1, 300, []int{2, 0}}, {3, 300, 1, []int{1}}, {3, 5, 7, []int{0, 1, 2}},
		{37, 16, 16, []int{36, 33, 30, 27, 24, 21, 18, 15, 12, 9, 6, 3, 0}}, {3, 300, 5, []int{2, 1}}, {2, 64, 64, []int{1}}, {4, 7, 3, nil},
	} {
		for _, f32 := range []bool{false, true} {
			t.Run(fmt.Sprintf("B=%d/%dx%d/f32=%v", tc.b, tc.m, tc.n, f32), func(t *testing.T) {
				runBatchOps(newBatchFixture(t, c, cpu, tc.b, tc.m, tc.n, f32, tc.games))
			})
		}
	}
	// Every batched kernel has run (TestCUDAConformance checks the others).
	for name, n := range c.KernelLaunches() {
		if strings.HasPrefix(name, kernels.BatchPrefix) && n == 0 {
			t.Errorf("kernel %s was never launched", name)
		}
	}
}

// newBatchTest makes a backend and a batch of b float64 games of m×n with
// the given selection.
func newBatchTest(t *testing.T, b, m, n int, games []int) *batchFixture {
	t.Helper()
	cpu := tensorops.NewCPU(1)
	t.Cleanup(func() { cpu.Close() })
	return newBatchFixture(t, newTestCUDA(t), cpu, b, m, n, false, games)
}

// Select uploads the indices only when they change; the batched
// operations allocate nothing on the Go heap (after their first use).
func TestCUDABatchedSelectAndAllocs(t *testing.T) {
	f := newBatchTest(t, 5, 20, 30, []int{4, 1})
	c := f.c
	before := c.WorkerCounts()
	if err := c.Select(f.sel, []int{4, 1}); err != nil {
		t.Fatal(err)
	}
	if d := c.WorkerCounts().HtoD - before.HtoD; d != 0 {
		t.Errorf("selecting the same games again made %d copies", d)
	}
	if err := c.Select(f.sel, []int{1, 4}); err != nil {
		t.Fatal(err)
	}
	if d := c.WorkerCounts().HtoD - before.HtoD; d != 1 {
		t.Errorf("selecting other games made %d copies, want 1", d)
	}
	if f.sel.Len() != 2 || f.sel.Games() != 5 {
		t.Errorf("Len %d, Games %d", f.sel.Len(), f.sel.Games())
	}
	p, q := f.vec(20, f.simplex), f.vec(30, f.simplex)
	fp, fq := f.vec(20, f.signed), f.vec(30, f.signed)
	d, g, r := f.vec(30, f.signed), f.vec(30, f.signed), f.vec(30, f.signed)
	ax, ag := f.vec(30, f.signed), f.vec(30, f.signed)
	eta := []float64{0.1, 0.2}
	avg := []tensorops.AvgBlock{{Set: tensorops.Set{Setup: tensorops.Euclidean}, X: q.g1, G: g.g1, AvgX: ax.g1, AvgG: ag.g1}}
	gs := make([]tensorops.GapStats, 2)
	if a := testing.AllocsPerRun(5, func() {
		c.BatchOperator(fp.g1, fq.g1, f.a, p.g1, q.g1, f.sel)
		c.BatchProx(tensorops.Point{State: d.g1, Value: d.g1}, tensorops.Point{State: q.g1, Value: q.g1}, g.g1, eta, tensorops.Euclidean, f.sel)
		c.BatchRegretMatch(d.g1, r.g1, g.g1, eta, eta, true, f.sel)
		c.BatchAxpby(d.g1, eta, d.g1, eta, g.g1, f.sel)
		c.BatchCopy(d.g1, g.g1, f.sel)
		if err := c.BatchAverage(gs, eta, avg, f.sel); err != nil {
			t.Fatal(err)
		}
		c.Operator(c.GameVector(fp.g2, 20, 3), c.GameVector(fq.g2, 30, 3), c.GameMatrix(f.a, 3), c.GameVector(p.g2, 20, 3), c.GameVector(q.g2, 30, 3))
	}); a != 0 {
		t.Errorf("batched operations and a pass on views allocate %v times", a)
	}
}

// Programmer errors panic: other setups, a linear term, wrong lengths, a
// foreign or freed selection, views of a freed parent; freeing a view does
// nothing.
func TestCUDABatchedMisuse(t *testing.T) {
	f := newBatchTest(t, 3, 4, 5, []int{0, 2})
	c := f.c
	x, g := f.vec(5, f.simplex), f.vec(5, f.signed)
	short := f.vec(4, f.signed)
	pt := tensorops.Point{State: x.g1, Value: x.g1}
	two := []float64{1, 1}
	must := tensorops.MustPanic
	must(t, "a box prox", func() { c.BatchProx(pt, pt, g.g1, two, tensorops.Box, f.sel) })
	must(t, "a prox with one step for two games", func() { c.BatchProx(pt, pt, g.g1, []float64{1}, tensorops.Euclidean, f.sel) })
	must(t, "a pass with vectors of the wrong length", func() { c.BatchMulVec(short.g1, f.a, short.g1, f.sel) })
	odd, err := c.NewVector(7)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(odd)
	must(t, "a vector not a multiple of B", func() { c.BatchCopy(odd, odd, f.sel) })
	must(t, "Average with a linear term", func() {
		c.BatchAverage(make([]tensorops.GapStats, 2), two, []tensorops.AvgBlock{{Set: tensorops.Set{Setup: tensorops.Euclidean}, G: g.g1, Lin: x.g1}}, f.sel)
	})
	must(t, "Average on a ball", func() {
		c.BatchAverage(make([]tensorops.GapStats, 2), two, []tensorops.AvgBlock{{Set: tensorops.Set{Setup: tensorops.Ball, Center: x.g1}, G: g.g1}}, f.sel)
	})
	must(t, "Select of a repeated game", func() { c.Select(f.sel, []int{1, 1}) })
	must(t, "Select out of range", func() { c.Select(f.sel, []int{3}) })
	must(t, "a view beyond the vector", func() { c.GameVector(x.g1, 5, 3) })
	must(t, "a game matrix beyond the batch", func() { c.GameMatrix(f.a, 3) })
	other := newTestCUDA(t)
	foreign, err := other.NewSelection(3)
	if err != nil {
		t.Fatal(err)
	}
	must(t, "a selection of another backend", func() { c.BatchCopy(x.g1, g.g1, foreign) })
	v := c.GameVector(x.g1, 5, 1)
	gm := c.GameMatrix(f.a, 2)
	c.Free(v, gm) // views: nothing happens
	c.Copy(v, c.GameVector(g.g1, 5, 1))
	parent, err := c.NewVector(10)
	if err != nil {
		t.Fatal(err)
	}
	pv := c.GameVector(parent, 5, 1)
	c.Free(parent)
	must(t, "a view of a freed vector", func() { c.Copy(pv, v) })
	a2, err := c.NewBatchMatrix(tensor.New(tensor.WithShape(2, 4, 5), tensor.WithBacking(make([]float32, 40))))
	if err != nil {
		t.Fatal(err)
	}
	gm2 := c.GameMatrix(a2, 1)
	s2, err := c.NewSelection(2)
	if err != nil {
		t.Fatal(err)
	}
	c.Free(a2, s2, a2, s2)
	must(t, "a game matrix of a freed batch", func() { c.MulVec(short.g1, gm2, x.g1) })
	must(t, "a freed selection", func() { c.Select(s2, nil) })
	if _, err := c.NewBatchMatrix(tensor.New(tensor.WithShape(4, 5), tensor.WithBacking(make([]float64, 20)))); err == nil {
		t.Error("NewBatchMatrix took a 2-D tensor")
	}
	if _, err := c.NewSelection(0); err == nil {
		t.Error("NewSelection(0) succeeded")
	}
}

// The per-game scalars reach the kernels the same way whether they are
// staged in the page-locked buffer with room to spare, staged into a full
// buffer (the device is waited for first), or too many for it (a
// synchronous copy): a sequence of batched Axpby and Prox calls between two
// synchronization points gives the same bits under each limit. The fake
// driver runs an asynchronous copy when it is issued, so this checks where
// the scalars are staged and that each path delivers them, not the
// ordering a real device gives the copies and launches of one stream.
func TestCUDABatchedStaging(t *testing.T) {
	const b, n = 5, 7
	games := []int{3, 0, 4, 1}
	run := func(limit int) []float64 {
		c := newTestCUDA(t)
		c.SetStageLimit(limit)
		sel, err := c.NewSelection(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Select(sel, games); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 9))
		vec := func() tensorops.Vector {
			h := make([]float64, b*n)
			for i := range h {
				h[i] = rng.Float64()
			}
			v, err := c.NewVector(b * n)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Load(v, h); err != nil {
				t.Fatal(err)
			}
			return v
		}
		x, y, d := vec(), vec(), vec()
		for r := range 6 {
			alpha, beta, eta := make([]float64, len(games)), make([]float64, len(games)), make([]float64, len(games))
			for i := range games {
				alpha[i], beta[i], eta[i] = 0.5+float64(r+i), -0.25*float64(i+1), 0.1*float64(r+1)
			}
			c.BatchAxpby(x, alpha, x, beta, y, sel)
			c.BatchProx(tensorops.Point{State: d, Value: d}, tensorops.Point{State: y, Value: y}, x, eta, tensorops.Euclidean, sel)
			c.BatchAxpby(y, beta, d, alpha, y, sel)
		}
		out := make([]float64, 2*b*n)
		if err := c.Store(out[:b*n], x); err != nil {
			t.Fatal(err)
		}
		if err := c.Store(out[b*n:], y); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := run(0)
	// 8 words: each Axpby's 2·4 scalars fill the buffer (the device is
	// waited for before the next), each Prox's 4 fit after a wait; 6 words:
	// an Axpby's 8 exceed it (synchronous copies).
	for _, limit := range []int{8, 6} {
		if got := run(limit); !slices.Equal(got, want) {
			t.Errorf("staging limited to %d words: results differ", limit)
		}
	}
}
