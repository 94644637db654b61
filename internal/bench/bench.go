// Package bench measures a tensorops backend: the time of an operator
// evaluation and of a mirror-prox iteration as the solver runs them (Run),
// and the rate of a plain read of memory by the CPU (ReadRate), the yardstick
// `gpump bench` compares the CPU backend's passes with. Iteration is that
// mirror-prox iteration, which the CUDA backend's tests reuse to count its
// launches and copies.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/internal/memread"
	"github.com/gpump/gpump/tensorops"
)

// Options configures Run; the zero value (or nil) benchmarks a
// 4096×4096 float64 matrix for at least a second per measurement.
type Options struct {
	// M and N are the payoff matrix's shape; 0 means 4096.
	M, N int
	// Dtype is the storage type, tensor.Float64 (the default when unset)
	// or tensor.Float32.
	Dtype tensor.Dtype
	// MinTime is the least time each of the two measurements runs; 0 means
	// one second.
	MinTime time.Duration
	// Seed seeds the matrix entries.
	Seed uint64
}

// Result is what Run measured.
type Result struct {
	// Backend is the backend's Name.
	Backend string `json:"backend"`
	// M, N and Dtype ("f64" or "f32") describe the payoff matrix.
	M     int    `json:"m"`
	N     int    `json:"n"`
	Dtype string `json:"dtype"`
	// OperatorSeconds is the time of one operator evaluation (Operator,
	// one pass over A computing A q and Aᵀp).
	OperatorSeconds float64 `json:"operator_seconds"`
	// IterationSeconds is the time of one mirror-prox iteration as the
	// solver performs it on a matrix game (solver/game.go): two operator
	// evaluations, four prox-mappings (two per block) and one ProxStats.
	IterationSeconds float64 `json:"iteration_seconds"`
	// BytesPerOperator is the size of A in bytes, what one operator
	// evaluation reads (M·N·8 for f64, M·N·4 for f32).
	BytesPerOperator int64 `json:"bytes_per_operator"`
	// OperatorGBs is BytesPerOperator / OperatorSeconds in GB/s (1e9 B/s).
	OperatorGBs float64 `json:"operator_gb_s"`
	// IterationGBs is the rate at which an iteration moves A, 2 ·
	// BytesPerOperator / IterationSeconds, in GB/s: what is left of
	// OperatorGBs once the vector work of an iteration is counted.
	IterationGBs float64 `json:"iteration_gb_s"`
}

// The defaults of Options.
const (
	defaultBenchSize    = 4096
	defaultBenchMinTime = time.Second
)

// Run measures a backend on a payoff matrix with seeded entries uniform
// in [−1, 1): the time of one operator evaluation, and the time of one
// mirror-prox iteration (entropic setup on both blocks, uniform averaging,
// the constant step D/G0 = √(log m + log n) / max|A_ij|, the solver's
// default first step), each run repeatedly for at least MinTime. The matrix
// and every vector are allocated once, before the clock starts, and freed
// at the end; the timed loops allocate nothing on the CPU backend.
//
// Operations that only launch work (a CUDA backend's Operator) are timed
// up to a synchronization point: the operator loop runs in batches that end
// with a Store of one operator value (n floats, negligible next to the
// matrix), and every iteration synchronizes at its ProxStats, as in the
// solver; the advance m = F(y) that follows is left in flight into the next
// iteration (the warm-up's is absorbed by the first timed batch, the last
// batch's is not timed, so the count balances). The iteration does not
// include the Copy of an improved point (the solver does it only on the
// iterations where the certified point improves) nor the O(m + n) host work
// of the step rule.
//
// It returns an error when the options are invalid, when the backend does,
// or when ctx is done (checked between batches, which last at most about a
// fifth of MinTime).
func Run(ctx context.Context, b tensorops.Backend, opt *Options) (*Result, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.M == 0 {
		o.M = defaultBenchSize
	}
	if o.N == 0 {
		o.N = defaultBenchSize
	}
	if o.MinTime <= 0 {
		o.MinTime = defaultBenchMinTime
	}
	if o.M < 0 || o.N < 0 {
		return nil, fmt.Errorf("bench: invalid shape %dx%d", o.M, o.N)
	}
	f32 := false
	switch o.Dtype {
	case tensor.Dtype{}, tensor.Float64:
	case tensor.Float32:
		f32 = true
	default:
		return nil, fmt.Errorf("bench: unsupported dtype %v (want float64 or float32)", o.Dtype)
	}
	if o.M > math.MaxInt/o.N {
		return nil, fmt.Errorf("bench: %dx%d overflows", o.M, o.N)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	it, err := NewIteration(b, o.M, o.N, f32, o.Seed, tensorops.Entropic)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer it.Free()
	res := &Result{Backend: b.Name(), M: o.M, N: o.N, Dtype: tensorops.Float64.String()}
	elem := int64(8)
	if f32 {
		res.Dtype, elem = tensorops.Float32.String(), 4
	}
	res.BytesPerOperator = int64(o.M) * int64(o.N) * elem

	if res.OperatorSeconds, err = timeBatches(ctx, o.MinTime, it.Operators); err != nil {
		return nil, err
	}
	if res.IterationSeconds, err = timeBatches(ctx, o.MinTime, it.Steps); err != nil {
		return nil, err
	}
	res.OperatorGBs = float64(res.BytesPerOperator) / res.OperatorSeconds / 1e9
	res.IterationGBs = 2 * float64(res.BytesPerOperator) / res.IterationSeconds / 1e9
	return res, nil
}

// timeBatches calls run(k) (k repetitions ending at a synchronization
// point) once untimed to warm up, then with batches that double until a
// batch takes a tenth of minTime, until minTime has passed, and returns the
// time per repetition.
func timeBatches(ctx context.Context, minTime time.Duration, run func(k int) error) (float64, error) {
	if err := run(1); err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	var elapsed time.Duration
	var reps int64
	for k := 1; elapsed < minTime; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := run(k); err != nil {
			return 0, fmt.Errorf("bench: %w", err)
		}
		d := time.Since(t0)
		elapsed += d
		reps += int64(k)
		if d < minTime/10 && k < 1<<30 {
			k *= 2
		}
	}
	return elapsed.Seconds() / float64(reps), nil
}

// Iteration is mirror-prox on a seeded matrix game held by a backend, as the
// solver runs it (solver/game.go): each Step is the trial (x = P_y(η m),
// g = F(x), y' = P_y(η g), ProxStats), its acceptance, and the advance
// m = F(y') that the solver performs before the next trial. ProxStats is the
// step's synchronization point; the advance is left in flight into the next
// step, as in the solver. Run times it with the entropic setup; the CUDA
// backend's tests count its launches and copies in every setup.
type Iteration struct {
	b                        tensorops.Backend
	a                        tensorops.Matrix
	host                     []float64 // n floats: the synchronizing Store of Operators
	set                      [2]tensorops.Set
	y, x, yn                 [2]tensorops.Point
	m, g                     [2]tensorops.Vector
	avgX, avgG, navgX, navgG [2]tensorops.Vector
	blocks                   [2]tensorops.ProxBlock
	stats                    [2]tensorops.BlockStats
	eta                      float64
	iter                     int
	owned                    []any
}

// NewIteration places an m×n matrix with seeded entries uniform in [−1, 1)
// (float32 storage when f32) and the vectors of the iteration on b, both
// blocks in the given setup (Box: [−1, 1] in every coordinate; Ball: radius
// 1 around the uniform distribution), starts both blocks at argmin R and
// evaluates m = F(y₀), as the solver's start does. The step is the solver's default
// first step D/G0 = √(log m + log n) / max|A_ij|. Free releases it all.
func NewIteration(b tensorops.Backend, m, n int, f32 bool, seed uint64, setup tensorops.Setup) (*Iteration, error) {
	it := &Iteration{b: b}
	if err := it.init(m, n, f32, seed, setup); err != nil {
		it.Free()
		return nil, err
	}
	return it, nil
}

func (it *Iteration) init(m, n int, f32 bool, seed uint64, setup tensorops.Setup) error {
	var t *tensor.Dense
	var maxAbs float64
	if f32 {
		d := make([]float32, m*n)
		maxAbs = fillUniform(d, seed)
		t = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	} else {
		d := make([]float64, m*n)
		maxAbs = fillUniform(d, seed)
		t = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	}
	a, err := it.b.NewMatrix(t)
	if err != nil {
		return err
	}
	it.a = a
	it.owned = append(it.owned, a)
	it.host = make([]float64, n)
	it.eta = math.Sqrt(math.Log(float64(m))+math.Log(float64(n))) / maxAbs
	if !(it.eta > 0) || math.IsInf(it.eta, 0) { // a 1×1 game, or an all-zero matrix
		it.eta = 1
	}
	for k, l := range [2]int{m, n} {
		if it.set[k], err = it.newSet(setup, l); err != nil {
			return err
		}
		for _, p := range []*tensorops.Point{&it.y[k], &it.x[k], &it.yn[k]} {
			if p.Value, err = it.vec(l); err != nil {
				return err
			}
			p.State = p.Value
			if setup == tensorops.Entropic {
				if p.State, err = it.vec(l); err != nil {
					return err
				}
			}
		}
		for _, v := range []*tensorops.Vector{&it.m[k], &it.g[k], &it.avgX[k], &it.avgG[k], &it.navgX[k], &it.navgG[k]} {
			if *v, err = it.vec(l); err != nil {
				return err
			}
		}
		it.b.Start(it.y[k], it.set[k])
	}
	it.b.Operator(it.m[0], it.m[1], it.a, it.y[0].Value, it.y[1].Value)
	return it.b.Store(it.host, it.m[1])
}

// newSet returns a set of dimension n in the setup: the box [−1, 1]ⁿ, the
// ball of radius 1 around the uniform distribution.
func (it *Iteration) newSet(setup tensorops.Setup, n int) (tensorops.Set, error) {
	s := tensorops.Set{Setup: setup}
	fill := func(v *tensorops.Vector, x float64) error {
		var err error
		if *v, err = it.vec(n); err != nil {
			return err
		}
		h := make([]float64, n)
		for i := range h {
			h[i] = x
		}
		return it.b.Load(*v, h)
	}
	var err error
	switch setup {
	case tensorops.Box:
		if err = fill(&s.Lo, -1); err == nil {
			err = fill(&s.Hi, 1)
		}
	case tensorops.Ball:
		s.Radius = 1
		err = fill(&s.Center, 1/float64(n))
	}
	return s, err
}

// Free releases the matrix and the vectors.
func (it *Iteration) Free() { it.b.Free(it.owned...) }

func (it *Iteration) vec(n int) (tensorops.Vector, error) {
	v, err := it.b.NewVector(n)
	if err != nil {
		return nil, err
	}
	it.owned = append(it.owned, v)
	return v, nil
}

// Operators performs k operator evaluations at the current y and waits for
// them with a Store of one operator value (n floats).
func (it *Iteration) Operators(k int) error {
	for range k {
		it.b.Operator(it.g[0], it.g[1], it.a, it.y[0].Value, it.y[1].Value)
	}
	return it.b.Store(it.host, it.g[1])
}

// Steps performs k iterations.
func (it *Iteration) Steps(k int) error {
	for range k {
		if err := it.Step(); err != nil {
			return err
		}
	}
	return nil
}

// Step performs one accepted iteration.
func (it *Iteration) Step() error {
	it.iter++
	w := 1 / float64(it.iter)
	for k := range 2 {
		it.b.Prox(it.x[k], it.y[k], it.m[k], it.eta, it.set[k])
	}
	it.b.Operator(it.g[0], it.g[1], it.a, it.x[0].Value, it.x[1].Value)
	for k := range 2 {
		it.b.Prox(it.yn[k], it.y[k], it.g[k], it.eta, it.set[k])
		it.blocks[k] = tensorops.ProxBlock{
			Set: it.set[k], Y: it.y[k], X: it.x[k], YNew: it.yn[k], M: it.m[k], G: it.g[k],
			AvgX: it.avgX[k], AvgG: it.avgG[k], NewAvgX: it.navgX[k], NewAvgG: it.navgG[k],
		}
	}
	if err := it.b.ProxStats(it.stats[:], w, it.blocks[:]); err != nil {
		return err
	}
	it.y, it.yn = it.yn, it.y
	it.avgX, it.navgX = it.navgX, it.avgX
	it.avgG, it.navgG = it.navgG, it.avgG
	it.b.Operator(it.m[0], it.m[1], it.a, it.y[0].Value, it.y[1].Value)
	return nil
}

// Stats returns the scalars of the last step's ProxStats, row block first.
func (it *Iteration) Stats() [2]tensorops.BlockStats { return it.stats }

// fillUniform fills d with entries uniform in [−1, 1) from a splitmix64
// stream seeded by seed (faster than math/rand for a matrix of billions of
// entries) and returns max |d_i|.
func fillUniform[T float32 | float64](d []T, seed uint64) float64 {
	x := seed
	var mx float64
	for i := range d {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		v := T(float64(z>>11)*0x1p-52 - 1)
		d[i] = v
		mx = max(mx, math.Abs(float64(v)))
	}
	return mx
}

// readRateJob reads worker w's share of a buffer with the fastest read
// loop (internal/memread), split the way the passes split rows (span, in
// groups of eight elements).
type readRateJob struct {
	buf  []float64
	nw   int
	sums [][8]float64 // one cache line per worker
}

func (r *readRateJob) run(w int) {
	lo, hi := span(len(r.buf), r.nw, w, 8)
	r.sums[w][0] = float64(memread.Slice(r.buf[lo:hi]))
}

// span returns worker w's share of total elements among nw workers, as the
// CPU backend splits its passes: the ⌈total/align⌉ groups of align elements
// dealt out evenly.
func span(total, nw, w, align int) (lo, hi int) {
	groups := (total + align - 1) / align
	return min(w*groups/nw*align, total), min((w+1)*groups/nw*align, total)
}

// ReadRate measures the rate, in bytes per second, at which this machine's
// CPU reads a float64 buffer of the given size with the CPU backend's
// fastest read loop (the yardstick of BenchmarkPassVsRead), on threads
// goroutines (<= 0: runtime.GOMAXPROCS(0)) sharing it the way the CPU
// backend's passes share rows. It is the practical peak a CPU operator
// evaluation can approach: compare Run's OperatorGBs with it. The buffer is
// allocated and written once, then read repeatedly for at least minTime
// (<= 0: one second). Use a buffer several times the last-level cache to
// measure memory rather than cache bandwidth.
func ReadRate(ctx context.Context, threads int, bytes int64, minTime time.Duration) (float64, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if bytes < 8 {
		return 0, fmt.Errorf("bench: read rate: buffer of %d bytes is too small", bytes)
	}
	if bytes/8 > math.MaxInt {
		return 0, errors.New("bench: read rate: buffer too large")
	}
	if minTime <= 0 {
		minTime = defaultBenchMinTime
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]float64, bytes/8)
	// Written, so that every page is mapped (a fresh zeroed page may be the
	// shared zero page, which reads from the cache).
	fillUniform(buf, 1)
	job := &readRateJob{buf: buf, nw: threads, sums: make([][8]float64, threads)}
	read := func(k int) error {
		for range k {
			var wg sync.WaitGroup
			for w := 1; w < threads; w++ {
				wg.Go(func() { job.run(w) })
			}
			job.run(0)
			wg.Wait()
		}
		return nil
	}
	sec, err := timeBatches(ctx, minTime, read)
	if err != nil {
		return 0, err
	}
	return float64(len(buf)*8) / sec, nil
}

// Peak returns the bandwidth to report as a device's peak for a pass that
// moved its bytes at achieved (bytes or GB per second, as figure), and the
// pass's share of it, at most 1. The device's figure (for a CPU a plain
// read of the same bytes, measured at another moment of a possibly shared
// machine; for a GPU the figure of its memory bus, which a matrix held in
// its cache can beat) is the peak unless the pass itself was faster: a
// rate the machine was seen to reach is no more than its peak, so a share
// above 100% of something called peak would only say that the figure was
// not the peak. A figure that is not positive (or NaN) gives no peak:
// 0, 0.
func Peak(figure, achieved float64) (peak, share float64) {
	if !(figure > 0) {
		return 0, 0
	}
	peak = figure
	if achieved > peak {
		peak = achieved
	}
	if !(achieved > 0) {
		return peak, 0
	}
	return peak, min(achieved/peak, 1)
}
