//go:build cuda

// The CUDA backend's tests. They run only where a device is usable: on a
// machine without one, the preflight (internal/cudainit) ends the test
// binary before any test, printing "SKIP: no usable CUDA device (...)".

package tensorops_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/internal/bench"
	"github.com/gpump/gpump/kernels"
	"github.com/gpump/gpump/tensorops"
	"github.com/gpump/gpump/tensorops/backendtest"
)

func newTestCUDA(tb testing.TB) *tensorops.CUDA {
	tb.Helper()
	c, err := tensorops.NewCUDA(0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return c
}

// Every operation matches the plain-Go reference of the shared backend
// suite, on every default shape (odd sizes, 1×n, n×1, grids beyond 65535
// blocks) and both storage types.
func TestCUDAConformance(t *testing.T) {
	c := newTestCUDA(t)
	res, err := backendtest.Run(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, res, len(backendtest.DefaultShapes))
	// The suite exercises every operation in every variant: every kernel
	// the backend loads must have run, but the batched ones, which
	// TestCUDABatched checks the same way, and gan's payoff kernels,
	// which gan/payoff's TestCUDASameAsCPU runs.
	for name, n := range c.KernelLaunches() {
		if n == 0 && !strings.HasPrefix(name, kernels.BatchPrefix) && !strings.HasPrefix(name, kernels.PayoffPrefix) {
			t.Errorf("kernel %s was never launched", name)
		}
	}
}

// The same inputs give bitwise the same results on a second backend (the
// reductions are deterministic).
func TestCUDADeterministic(t *testing.T) {
	opt := &backendtest.Options{Seed: 3, Shapes: [][2]int{{257, 129}, {1000, 37}}}
	var runs [2][]backendtest.Result
	for i := range runs {
		c := newTestCUDA(t)
		var err error
		if runs[i], err = backendtest.Run(context.Background(), c, opt); err != nil {
			t.Fatal(err)
		}
	}
	for i := range runs[0] {
		a, b := runs[0][i], runs[1][i]
		if math.Float64bits(a.MaxRelErr) != math.Float64bits(b.MaxRelErr) {
			t.Errorf("%s %s %s: error %v, then %v", a.Op, a.Shape, a.Dtype, a.MaxRelErr, b.MaxRelErr)
		}
	}
}

// iterationCounts runs k iterations after a warm-up one and returns what
// the worker did per iteration (the warm-up's advance, left in flight,
// counts before; the last one's after).
func iterationCounts(t *testing.T, c *tensorops.CUDA, k int, iterate func() error) (launches, dtoh, htod, dtod float64) {
	t.Helper()
	if err := iterate(); err != nil {
		t.Fatal(err)
	}
	before := c.WorkerCounts()
	for range k {
		if err := iterate(); err != nil {
			t.Fatal(err)
		}
	}
	after := c.WorkerCounts()
	f := float64(k)
	return float64(after.Launches-before.Launches) / f, float64(after.DtoH-before.DtoH) / f,
		float64(after.HtoD-before.HtoD) / f, float64(after.DtoD-before.DtoD) / f
}

// A mirror-prox iteration (the solver's trial, accept and advance, as
// bench.Iteration runs it) does exactly one device-to-host copy, no other
// copy, and the documented launches: 15 (entropic: two per prox), 11
// (Euclidean simplex, box: one per prox), 15 (ball: two per prox), without
// allocating.
func TestCUDAIterationOneCopy(t *testing.T) {
	c := newTestCUDA(t)
	for _, f32 := range []bool{false, true} {
		for _, c2 := range []struct {
			setup    tensorops.Setup
			launches float64
		}{{tensorops.Entropic, 15}, {tensorops.Euclidean, 11}, {tensorops.Box, 11}, {tensorops.Ball, 15}} {
			t.Run(fmt.Sprintf("f32=%v/%v", f32, c2.setup), func(t *testing.T) {
				it, err := bench.NewIteration(c, 300, 200, f32, 1, c2.setup)
				if err != nil {
					t.Fatal(err)
				}
				defer it.Free()
				launches, dtoh, htod, dtod := iterationCounts(t, c, 5, it.Step)
				if dtoh != 1 || htod != 0 || dtod != 0 {
					t.Errorf("per iteration: %v device-to-host, %v host-to-device, %v device-to-device copies; want 1, 0, 0", dtoh, htod, dtod)
				}
				if launches != c2.launches {
					t.Errorf("per iteration: %v launches, want %v", launches, c2.launches)
				}
				if a := testing.AllocsPerRun(5, func() {
					if err := it.Step(); err != nil {
						t.Fatal(err)
					}
				}); a != 0 {
					t.Errorf("an iteration allocates %v times", a)
				}
				for k, st := range it.Stats() {
					if math.IsNaN(st.MinG) || math.IsNaN(st.DivXY) || math.IsNaN(st.MinAvgG) {
						t.Errorf("block %d: NaN in %+v", k, st)
					}
				}
			})
		}
	}
}

// An RM+ iteration as solver/baselines.go runs it: 14 launches and one
// device-to-host copy.
func TestCUDARegretMatchingIterationOneCopy(t *testing.T) {
	c := newTestCUDA(t)
	m, n := 300, 200
	d := make([]float64, m*n)
	for i := range d {
		d[i] = float64(i%7) - 3
	}
	a, err := c.NewMatrix(tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(a)
	var x, r, g, avgX, avgG [2]tensorops.Vector
	for k, l := range [2]int{m, n} {
		for _, v := range []*tensorops.Vector{&x[k], &r[k], &g[k], &avgX[k], &avgG[k]} {
			if *v, err = c.NewVector(l); err != nil {
				t.Fatal(err)
			}
			defer c.Free(*v)
		}
		c.Start(tensorops.Point{State: x[k], Value: x[k]}, tensorops.Set{Setup: tensorops.Euclidean})
	}
	gs := make([]tensorops.GapStats, 2)
	var ab [2]tensorops.AvgBlock
	it := 0
	iterate := func() error {
		it++
		c.RegretMatch(x[0], r[0], g[0], -1, 1e-12, false)
		c.MulTVec(g[1], a, x[0])
		c.RegretMatch(x[1], r[1], g[1], -1, 1e-12, false)
		c.MulVec(g[0], a, x[1])
		c.Axpby(g[0], -1, g[0], 0, g[0])
		for k := range 2 {
			ab[k] = tensorops.AvgBlock{X: x[k], G: g[k], AvgX: avgX[k], AvgG: avgG[k]}
		}
		return c.Average(gs, 2/float64(it+2), ab[:])
	}
	launches, dtoh, htod, dtod := iterationCounts(t, c, 5, iterate)
	if launches != 14 || dtoh != 1 || htod != 0 || dtod != 0 {
		t.Errorf("per iteration: %v launches, %v/%v/%v DtoH/HtoD/DtoD copies; want 14, 1/0/0", launches, dtoh, htod, dtod)
	}
}

// SetMatrix is one host-to-device copy into the matrix's memory: no
// kernel, no allocation; the matrix then computes with the new entries.
// Transpose allocates its matrix and fills it with a kernel, no copy through
// the host.
func TestCUDASetMatrixTranspose(t *testing.T) {
	c := newTestCUDA(t)
	m, n := 70, 300
	entries := func(seed float64) *tensor.Dense {
		d := make([]float32, m*n)
		for i := range d {
			d[i] = float32(math.Sin(seed * float64(i+1)))
		}
		return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	}
	a, err := c.NewMatrix(entries(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(a)
	t1 := entries(2)
	before, free := c.WorkerCounts(), c.MemFree()
	if err := c.SetMatrix(a, t1); err != nil {
		t.Fatal(err)
	}
	after := c.WorkerCounts()
	if d := (tensorops.CUDACounts{Launches: after.Launches - before.Launches, DtoH: after.DtoH - before.DtoH,
		HtoD: after.HtoD - before.HtoD, DtoD: after.DtoD - before.DtoD}); d != (tensorops.CUDACounts{HtoD: 1}) {
		t.Errorf("SetMatrix did %+v, want one host-to-device copy", d)
	}
	if f := c.MemFree(); f != free {
		t.Errorf("SetMatrix changed the free device memory from %d to %d bytes", free, f)
	}
	at, err := c.Transpose(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(at)
	if d := c.WorkerCounts(); d.HtoD != after.HtoD || d.DtoH != after.DtoH || d.Launches != after.Launches+1 {
		t.Errorf("Transpose: %+v after %+v, want one launch and no copy", d, after)
	}
	// Aᵀ e_i read through MulVec is row i of the new entries.
	ei, row := make([]float64, m), make([]float64, n)
	ei[m-1] = 1
	vi, _ := c.NewVector(m)
	vr, _ := c.NewVector(n)
	defer c.Free(vi, vr)
	if err := c.Load(vi, ei); err != nil {
		t.Fatal(err)
	}
	c.MulVec(vr, at, vi)
	if err := c.Store(row, vr); err != nil {
		t.Fatal(err)
	}
	want := t1.Data().([]float32)[(m-1)*n:]
	for j := range row {
		if row[j] != float64(want[j]) {
			t.Fatalf("(Aᵀ e_%d)_%d = %g, want %g", m-1, j, row[j], want[j])
		}
	}
	if err := c.SetMatrix(a, tensor.New(tensor.WithShape(m, n), tensor.WithBacking(make([]float64, m*n)))); err == nil {
		t.Error("SetMatrix took a float64 tensor for a float32 matrix")
	}
}

// A sampled evaluation is five launches and no copy (after the first,
// which allocates its scratch), without allocating; and CUDA draws exactly
// the CPU's indices: through the identity matrix the estimate is the
// histogram of the indices, which must agree bit for bit, for weights of
// every kind of rounding.
func TestCUDASampledOperator(t *testing.T) {
	c := newTestCUDA(t)
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	const m, n, b = 70, 3000, 64
	d := make([]float64, m*n)
	for i := range m {
		d[i*n+i] = 1
	}
	id := tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	a, err := c.NewMatrix(id)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(a)
	at, err := c.Transpose(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(at)
	ca, _ := cpu.NewMatrix(id)
	cat, _ := cpu.Transpose(ca)
	rng := rand.New(rand.NewPCG(5, 6))
	ph, qh := make([]float64, m), make([]float64, n)
	for i := range ph {
		ph[i] = rng.ExpFloat64()
	}
	for j := range qh {
		qh[j] = rng.ExpFloat64() * float64(j%3) // a third of the columns weigh 0
	}
	var vs [4]tensorops.Vector
	for k, l := range []int{m, n, m, n} {
		if vs[k], err = c.NewVector(l); err != nil {
			t.Fatal(err)
		}
		defer c.Free(vs[k])
	}
	p, q, fp, fq := vs[0], vs[1], vs[2], vs[3]
	if err := errors.Join(c.Load(p, ph), c.Load(q, qh)); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []struct {
		gpu, cpu tensorops.Matrix
	}{{nil, nil}, {at, cat}} {
		draw := tensorops.Draw{Batch: b, Seed: 11}
		c.SampledOperator(fp, fq, a, tr.gpu, p, q, draw) // allocates the scratch
		evaluate := func() error {
			draw.Counter++
			c.SampledOperator(fp, fq, a, tr.gpu, p, q, draw)
			return nil
		}
		launches, dtoh, htod, dtod := iterationCounts(t, c, 5, evaluate)
		if launches != 5 || dtoh != 0 || htod != 0 || dtod != 0 {
			t.Errorf("transposed=%v: per evaluation %v launches, %v/%v/%v DtoH/HtoD/DtoD copies; want 5, 0/0/0", tr.gpu != nil, launches, dtoh, htod, dtod)
		}
		if allocs := testing.AllocsPerRun(5, func() { evaluate() }); allocs != 0 {
			t.Errorf("transposed=%v: an evaluation allocates %v times", tr.gpu != nil, allocs)
		}
		for range 20 {
			draw.Counter++
			c.SampledOperator(fp, fq, a, tr.gpu, p, q, draw)
			gp, gq := make([]float64, m), make([]float64, n)
			if err := errors.Join(c.Store(gp, fp), c.Store(gq, fq)); err != nil {
				t.Fatal(err)
			}
			wp, wq := make(tensorops.CPUVector, m), make(tensorops.CPUVector, n)
			cpu.SampledOperator(wp, wq, ca, tr.cpu, tensorops.CPUVector(ph), tensorops.CPUVector(qh), draw)
			if !slices.Equal(gp, wp) || !slices.Equal(gq, wq) {
				t.Fatalf("transposed=%v, counter %d: CUDA drew other indices than the CPU", tr.gpu != nil, draw.Counter)
			}
		}
	}
}

// Device errors are Go errors naming the call and the CUDA error; an
// allocation that cannot succeed says what it asked and what is free.
func TestCUDAOutOfMemory(t *testing.T) {
	c := newTestCUDA(t)
	const n = 1 << 44 // 128 TiB of float64
	_, err := c.NewVector(n)
	if err == nil {
		t.Fatal("a 128 TiB vector was allocated")
	}
	var ce *tensorops.CUDAError
	if !errors.As(err, &ce) {
		t.Fatalf("%v: not a *CUDAError", err)
	}
	msg := err.Error()
	for _, want := range []string{"tensorops: cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY", fmt.Sprintf("asked %d bytes", 8*int64(n)), "bytes free"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	// The backend still works.
	v, err := c.NewVector(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Load(v, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 3)
	if err := c.Store(got, v); err != nil {
		t.Fatal(err)
	}
	if got[2] != 3 {
		t.Errorf("Store after a failed allocation: %v", got)
	}
}

// ProxStats and Average take any number of blocks (the solver passes two):
// one, and three (two finishing launches, a larger result buffer), with
// mixed setups and a block without averages, match the CPU backend.
func TestCUDAStatsBlockCounts(t *testing.T) {
	c := newTestCUDA(t)
	cpu := tensorops.NewCPU(1)
	defer cpu.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	lens := []int{7, 3000, 1}
	setups := []tensorops.Setup{tensorops.Entropic, tensorops.Euclidean, tensorops.Entropic}
	// load places the same data on both backends.
	load := func(h []float64) (tensorops.Vector, tensorops.Vector) {
		v, err := c.NewVector(len(h))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Load(v, h); err != nil {
			t.Fatal(err)
		}
		return v, tensorops.CPUVector(slices.Clone(h))
	}
	simplex := func(n int) []float64 {
		v := make([]float64, n)
		var s float64
		for i := range v {
			v[i] = rng.Float64() + 0.01
			s += v[i]
		}
		for i := range v {
			v[i] /= s
		}
		return v
	}
	logs := func(p []float64) []float64 {
		l := make([]float64, len(p))
		for i, x := range p {
			l[i] = math.Log(x)
		}
		return l
	}
	signed := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 2*rng.Float64() - 1
		}
		return v
	}
	for _, nb := range []int{1, 3} {
		var gb, cb []tensorops.ProxBlock
		var ga, ca []tensorops.AvgBlock
		for k := range nb {
			n, s := lens[k], setups[k]
			var g, h tensorops.ProxBlock
			g.Set, h.Set = tensorops.Set{Setup: s}, tensorops.Set{Setup: s}
			for _, pt := range []struct{ g, h *tensorops.Point }{{&g.Y, &h.Y}, {&g.X, &h.X}, {&g.YNew, &h.YNew}} {
				p := simplex(n)
				pt.g.Value, pt.h.Value = load(p)
				pt.g.State, pt.h.State = pt.g.Value, pt.h.Value
				if s == tensorops.Entropic {
					pt.g.State, pt.h.State = load(logs(p))
				}
			}
			g.M, h.M = load(signed(n))
			g.G, h.G = load(signed(n))
			g.AvgX, h.AvgX = load(simplex(n))
			g.AvgG, h.AvgG = load(signed(n))
			g.NewAvgX, h.NewAvgX = load(make([]float64, n))
			g.NewAvgG, h.NewAvgG = load(make([]float64, n))
			gb, cb = append(gb, g), append(cb, h)
			a, b := tensorops.AvgBlock{X: g.X.Value, G: g.G}, tensorops.AvgBlock{X: h.X.Value, G: h.G}
			if k != 1 { // block 1 has no averages: MinAvgG is NaN
				a.AvgX, b.AvgX = g.NewAvgX, h.NewAvgX
				a.AvgG, b.AvgG = g.NewAvgG, h.NewAvgG
			}
			ga, ca = append(ga, a), append(ca, b)
		}
		got, want := make([]tensorops.BlockStats, nb), make([]tensorops.BlockStats, nb)
		if err := c.ProxStats(got, 0.3, gb); err != nil {
			t.Fatal(err)
		}
		if err := cpu.ProxStats(want, 0.3, cb); err != nil {
			t.Fatal(err)
		}
		for k := range nb {
			g, w := got[k], want[k]
			for i, pair := range [][2]float64{{g.MinG, w.MinG}, {g.MinAvgG, w.MinAvgG}, {g.DivXY, w.DivXY}, {g.DivYX, w.DivYX},
				{g.DistXY, w.DistXY}, {g.DistXYNew, w.DistXYNew}, {g.DualGM, w.DualGM}, {g.InnerGM, w.InnerGM}} {
				if math.Abs(pair[0]-pair[1]) > 1e-12*(1+math.Abs(pair[1])) {
					t.Errorf("%d blocks: ProxStats block %d field %d: %v, CPU %v", nb, k, i, pair[0], pair[1])
				}
			}
		}
		gs, ws := make([]tensorops.GapStats, nb), make([]tensorops.GapStats, nb)
		if err := c.Average(gs, 0.25, ga); err != nil {
			t.Fatal(err)
		}
		if err := cpu.Average(ws, 0.25, ca); err != nil {
			t.Fatal(err)
		}
		for k := range nb {
			// The device may fuse avg + w (g − avg) into an fma: an ulp.
			avgOK := math.Abs(gs[k].MinAvgG-ws[k].MinAvgG) <= 1e-14*(1+math.Abs(ws[k].MinAvgG)) ||
				math.IsNaN(gs[k].MinAvgG) && math.IsNaN(ws[k].MinAvgG)
			if gs[k].MinG != ws[k].MinG || !avgOK {
				t.Errorf("%d blocks: Average block %d: %+v, CPU %+v", nb, k, gs[k], ws[k])
			}
		}
	}
}

// Programmer errors panic; Close is idempotent; a closed backend panics.
func TestCUDAMisuse(t *testing.T) {
	c := newTestCUDA(t)
	v, err := c.NewVector(4)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewVector(5)
	if err != nil {
		t.Fatal(err)
	}
	tensorops.MustPanic(t, "a CPU vector", func() { c.Copy(v, make(tensorops.CPUVector, 4)) })
	tensorops.MustPanic(t, "a length mismatch", func() { c.Copy(v, w) })
	tensorops.MustPanic(t, "Load of the wrong length", func() { c.Load(v, make([]float64, 3)) })
	tensorops.MustPanic(t, "Free of a CPU vector", func() { c.Free(make(tensorops.CPUVector, 1)) })
	other := newTestCUDA(t)
	o, err := other.NewVector(4)
	if err != nil {
		t.Fatal(err)
	}
	tensorops.MustPanic(t, "a vector of another backend", func() { c.Copy(v, o) })
	c.Free(v, nil, v) // nil and twice are fine
	tensorops.MustPanic(t, "a freed vector", func() { c.Axpby(v, 1, v, 1, v) })
	if _, err := tensorops.NewCUDA(-1); err == nil {
		t.Error("NewCUDA(-1) succeeded")
	}
	d, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := d.NewVector(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	d.Free(dv) // after Close: nothing to do
	tensorops.MustPanic(t, "a closed backend", func() { d.NewVector(1) })
	tensorops.MustPanic(t, "a closed backend", func() { d.Store(make([]float64, 2), dv) })
}

func TestCUDADevices(t *testing.T) {
	ds, err := tensorops.CUDADevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) == 0 {
		t.Fatal("no device, yet the preflight found one")
	}
	for _, d := range ds {
		t.Logf("%+v (compute %s, driver %s, peak %.0f GB/s)", d, d.ComputeCapability(), d.Driver(), d.PeakBandwidth/1e9)
		if d.Name == "" || d.TotalMemory <= 0 || d.Major <= 0 || d.Multiprocessors <= 0 || d.DriverVersion <= 0 {
			t.Errorf("device %d: implausible %+v", d.Ordinal, d)
		}
		if d.PeakBandwidth != 0 && d.PeakBandwidth != 2*float64(d.MemoryClockKHz)*1e3*float64(d.BusWidthBits)/8 {
			t.Errorf("device %d: peak %v is not 2·clock·bus/8", d.Ordinal, d.PeakBandwidth)
		}
	}
	c := newTestCUDA(t)
	if !regexp.MustCompile(`^ptx compute_\d+ on sm_\d+$`).MatchString(c.Kernels()) {
		t.Errorf("Kernels() = %q", c.Kernels())
	}
	if c.Name() != "cuda" || c.Info().Name != ds[0].Name {
		t.Errorf("Name %q, Info %+v", c.Name(), c.Info())
	}
}

// benchCUDA times one operator evaluation or one mirror-prox iteration on
// an n×n matrix.
func benchCUDA(b *testing.B, n int, f32, iteration bool) {
	c := newTestCUDA(b)
	it, err := bench.NewIteration(c, n, n, f32, 1, tensorops.Entropic)
	if err != nil {
		b.Fatal(err)
	}
	defer it.Free()
	elem := int64(8)
	if f32 {
		elem = 4
	}
	bytes := int64(n) * int64(n) * elem
	if iteration {
		bytes *= 2
	}
	b.SetBytes(bytes)
	if err := it.Step(); err != nil { // warm-up
		b.Fatal(err)
	}
	if err := it.Operators(0); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	// Operator only enqueues: the timed loop ends with a synchronizing
	// Store of one operator value (n floats), inside the timer.
	if iteration {
		err = it.Steps(b.N)
		if err == nil {
			err = it.Operators(0)
		}
	} else {
		err = it.Operators(b.N)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
}

// go test -tags cuda -run XXX -bench CUDA ./tensorops/ : MB/s is the rate
// at which A is read (one pass per evaluation, two per iteration).
func BenchmarkCUDA(b *testing.B) {
	for _, n := range []int{4096, 16384} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			f32 := dt == tensor.Float32
			b.Run(fmt.Sprintf("Operator/%d/%v", n, dt), func(b *testing.B) { benchCUDA(b, n, f32, false) })
			b.Run(fmt.Sprintf("Iteration/%d/%v", n, dt), func(b *testing.B) { benchCUDA(b, n, f32, true) })
		}
	}
}

func TestCUDASub(t *testing.T) {
	testSub(t, newTestCUDA(t))
}
