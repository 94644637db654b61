package tensorops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/gpump/gpump/internal/memread"
	"gorgonia.org/tensor"
)

// BenchOptions configures Bench; the zero value (or nil) benchmarks a
// 4096×4096 float64 matrix for at least a second per measurement.
type BenchOptions struct {
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

// BenchResult is what Bench measured.
type BenchResult struct {
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

// The defaults of BenchOptions.
const (
	defaultBenchSize    = 4096
	defaultBenchMinTime = time.Second
)

// Bench measures a backend on a payoff matrix with seeded entries uniform
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
func Bench(ctx context.Context, b Backend, opt *BenchOptions) (*BenchResult, error) {
	var o BenchOptions
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
		return nil, fmt.Errorf("tensorops: bench: invalid shape %dx%d", o.M, o.N)
	}
	f32 := false
	switch o.Dtype {
	case tensor.Dtype{}, tensor.Float64:
	case tensor.Float32:
		f32 = true
	default:
		return nil, fmt.Errorf("tensorops: bench: unsupported dtype %v (want float64 or float32)", o.Dtype)
	}
	if o.M > math.MaxInt/o.N {
		return nil, fmt.Errorf("tensorops: bench: %dx%d overflows", o.M, o.N)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	s := &benchState{b: b}
	defer s.free()
	if err := s.setup(o.M, o.N, f32, o.Seed); err != nil {
		return nil, fmt.Errorf("tensorops: bench: %w", err)
	}
	res := &BenchResult{Backend: b.Name(), M: o.M, N: o.N, Dtype: Float64.String()}
	elem := int64(8)
	if f32 {
		res.Dtype, elem = Float32.String(), 4
	}
	res.BytesPerOperator = int64(o.M) * int64(o.N) * elem

	var err error
	if res.OperatorSeconds, err = timeBatches(ctx, o.MinTime, s.operators); err != nil {
		return nil, err
	}
	if res.IterationSeconds, err = timeBatches(ctx, o.MinTime, s.iterations); err != nil {
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
		return 0, fmt.Errorf("tensorops: bench: %w", err)
	}
	var elapsed time.Duration
	var reps int64
	for k := 1; elapsed < minTime; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := run(k); err != nil {
			return 0, fmt.Errorf("tensorops: bench: %w", err)
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

// benchState is the mirror-prox state of solver/game.go (mpGame) on a
// backend, entropic on both blocks.
type benchState struct {
	b                        Backend
	a                        Matrix
	host                     []float64 // n floats: the synchronizing Store of the operator loop
	y, x, yn                 [2]Point
	m, g                     [2]Vector
	avgX, avgG, navgX, navgG [2]Vector
	blocks                   [2]ProxBlock
	stats                    [2]BlockStats
	eta                      float64
	iter                     int
	owned                    []any
}

func (s *benchState) free() { s.b.Free(s.owned...) }

func (s *benchState) vec(n int) (Vector, error) {
	v, err := s.b.NewVector(n)
	if err != nil {
		return nil, err
	}
	s.owned = append(s.owned, v)
	return v, nil
}

// setup fills the matrix, places it and the vectors on the backend, and
// evaluates m = F(y₀) at the start point, as the solver's start does.
func (s *benchState) setup(m, n int, f32 bool, seed uint64) error {
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
	a, err := s.b.NewMatrix(t)
	if err != nil {
		return err
	}
	s.a = a
	s.owned = append(s.owned, a)
	s.host = make([]float64, n)
	s.eta = math.Sqrt(math.Log(float64(m))+math.Log(float64(n))) / maxAbs
	if !(s.eta > 0) || math.IsInf(s.eta, 0) { // a 1×1 game, or an all-zero matrix
		s.eta = 1
	}
	for k, l := range [2]int{m, n} {
		for _, p := range []*Point{&s.y[k], &s.x[k], &s.yn[k]} {
			if p.State, err = s.vec(l); err != nil {
				return err
			}
			if p.Value, err = s.vec(l); err != nil {
				return err
			}
		}
		for _, v := range []*Vector{&s.m[k], &s.g[k], &s.avgX[k], &s.avgG[k], &s.navgX[k], &s.navgG[k]} {
			if *v, err = s.vec(l); err != nil {
				return err
			}
		}
		s.b.Start(s.y[k], Entropic)
	}
	s.b.Operator(s.m[0], s.m[1], s.a, s.y[0].Value, s.y[1].Value)
	return s.b.Store(s.host, s.m[1])
}

// operators performs k operator evaluations at the current y and waits for
// them.
func (s *benchState) operators(k int) error {
	for range k {
		s.b.Operator(s.g[0], s.g[1], s.a, s.y[0].Value, s.y[1].Value)
	}
	return s.b.Store(s.host, s.g[1])
}

// iterations performs k mirror-prox iterations.
func (s *benchState) iterations(k int) error {
	for range k {
		if err := s.iterate(); err != nil {
			return err
		}
	}
	return nil
}

// iterate is one accepted iteration of mpGame: the trial (x = P_y(eta m),
// g = F(x), y' = P_y(eta g), ProxStats), accept, and the advance m = F(y')
// that the solver performs before the next trial. ProxStats is the
// iteration's synchronization point; the advance is left in flight for the
// next iteration, as in the solver.
func (s *benchState) iterate() error { return s.iterateSetup(Entropic) }

// iterateSetup is iterate with both blocks in the given setup, whose points
// s must hold (Euclidean: State and Value one vector). Bench times only the
// entropic iteration; the CUDA tests count the launches of both.
func (s *benchState) iterateSetup(setup Setup) error {
	s.iter++
	w := 1 / float64(s.iter)
	for k := range 2 {
		s.b.Prox(s.x[k], s.y[k], s.m[k], s.eta, setup)
	}
	s.b.Operator(s.g[0], s.g[1], s.a, s.x[0].Value, s.x[1].Value)
	for k := range 2 {
		s.b.Prox(s.yn[k], s.y[k], s.g[k], s.eta, setup)
		s.blocks[k] = ProxBlock{
			Setup: setup, Y: s.y[k], X: s.x[k], YNew: s.yn[k], M: s.m[k], G: s.g[k],
			AvgX: s.avgX[k], AvgG: s.avgG[k], NewAvgX: s.navgX[k], NewAvgG: s.navgG[k],
		}
	}
	if err := s.b.ProxStats(s.stats[:], w, s.blocks[:]); err != nil {
		return err
	}
	s.y, s.yn = s.yn, s.y
	s.avgX, s.navgX = s.navgX, s.avgX
	s.avgG, s.navgG = s.navgG, s.avgG
	s.b.Operator(s.m[0], s.m[1], s.a, s.y[0].Value, s.y[1].Value)
	return nil
}

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
// loop, split the way the passes split rows (span, in groups of eight
// elements).
type readRateJob struct {
	buf  []float64
	nw   int
	sums [][8]float64 // one cache line per worker
}

func (r *readRateJob) run(w int) {
	lo, hi := span(len(r.buf), r.nw, w, 8)
	r.sums[w][0] = float64(memread.Slice(r.buf[lo:hi]))
}

// ReadRate measures the rate, in bytes per second, at which this machine's
// CPU reads a float64 buffer of the given size with the CPU backend's
// fastest read loop (the yardstick of BenchmarkPassVsRead), on threads
// worker goroutines (<= 0: runtime.GOMAXPROCS(0)) organized as the CPU
// backend's passes are. It is the practical peak a CPU operator evaluation
// can approach: compare Bench's OperatorGBs with it. The buffer is allocated
// and written once, then read repeatedly for at least minTime (<= 0: one
// second). Use a buffer several times the last-level cache to measure
// memory rather than cache bandwidth.
func ReadRate(ctx context.Context, threads int, bytes int64, minTime time.Duration) (float64, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if bytes < 8 {
		return 0, fmt.Errorf("tensorops: read rate: buffer of %d bytes is too small", bytes)
	}
	if bytes/8 > math.MaxInt {
		return 0, errors.New("tensorops: read rate: buffer too large")
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
	var p *pool
	if threads > 1 {
		p = newPool(threads)
		defer p.close()
	}
	read := func(k int) error {
		for range k {
			if p != nil {
				p.do(job, threads)
			} else {
				job.run(0)
			}
		}
		return nil
	}
	sec, err := timeBatches(ctx, minTime, read)
	if err != nil {
		return 0, err
	}
	return float64(len(buf)*8) / sec, nil
}
