package tensorops

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gorgonia.org/tensor"
)

// CPUVector is the CPU backend's Vector: a plain float64 slice. The CPU
// backend accepts any CPUVector, including ones the caller built from its
// own slices (they are used without copying).
type CPUVector []float64

// Len returns len(v).
func (v CPUVector) Len() int { return len(v) }

// cpuMatrix aliases the backing slice of a row-major tensor; exactly one of
// f64 and f32 is set.
type cpuMatrix struct {
	m, n int
	f64  []float64
	f32  []float32
}

func (a *cpuMatrix) Dims() (m, n int) { return a.m, a.n }

// bytes is the size of the matrix's entries in memory.
func (a *cpuMatrix) bytes() int {
	if a.f32 != nil {
		return 4 * a.m * a.n
	}
	return 8 * a.m * a.n
}

func (a *cpuMatrix) Precision() Precision {
	if a.f32 != nil {
		return Float32
	}
	return Float64
}

// CPU is the host backend. Passes over a payoff matrix too large to stay in
// the cache are split across a fixed set of worker goroutines that live as
// long as the backend: by rows when there are enough of them (each worker
// keeps a private partial Aᵀp, summed in a fixed order afterwards, so
// results do not depend on scheduling), by columns otherwise (a 1×n matrix
// still uses every worker). The inner loops are AVX-512 or AVX2 kernels
// where the CPU has them. A pass is a pure function of its inputs, the
// matrix's size and the thread count.
type CPU struct {
	threads int
	pool    *pool
	// passMinBytes is the size from which a pass is split over the
	// workers (passParallelMinBytes).
	passMinBytes int
	job          opJob
	// partial[w] is worker w's private Aᵀp accumulator (worker 0 writes the
	// result vector directly); rowDots[w] its share of A q in column mode.
	partial [][]float64
	rowDots [][]float64
	// sample and sjob serve SampledOperator.
	sample sampleScratch
	sjob   sampleJob
	// bjob and brun serve the batched operations.
	bjob batchJob
	brun batchRunner
}

var _ Backend = (*CPU)(nil)

// Work of fewer entries than this (a transpose, a sampled sum) runs on the
// calling goroutine: waking the workers costs a few microseconds.
const parallelMinEntries = 1 << 16

// A pass over a matrix of fewer bytes than this runs on the calling
// goroutine: below it the hand-off to the workers (spinning between jobs,
// see pool) costs about what the split saves; above it two threads took
// 1.4–1.9× less per pass, in the cache and from memory alike (DESIGN.md,
// *Measurements behind the doc comments*, has the threshold's
// measurements). Tests lower it (CPU.passMinBytes) to cover the parallel
// split on small matrices.
const passParallelMinBytes = 1 << 20

// Column blocks keep the slices of q and of the Aᵀp accumulator that a sweep
// of rows touches inside the L2 cache (2 × 16384 × 8 B = 256 KiB).
const colBlock = 16384

// NewCPU returns a CPU backend that uses the given number of worker threads;
// threads <= 0 means runtime.GOMAXPROCS(0). Close it to stop its workers (an
// unreachable CPU stops them as well, when it is garbage collected).
func NewCPU(threads int) *CPU {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	c := &CPU{threads: threads, passMinBytes: passParallelMinBytes}
	c.job.c = c
	c.job.dots = make([][8]float64, threads)
	c.partial = make([][]float64, threads)
	c.rowDots = make([][]float64, threads)
	if threads > 1 {
		c.pool = newPool(threads)
		runtime.AddCleanup(c, func(p *pool) { p.close() }, c.pool)
	}
	return c
}

// Name returns "cpu".
func (c *CPU) Name() string { return "cpu" }

// Threads returns the number of worker threads.
func (c *CPU) Threads() int { return c.threads }

// Kernels names the inner-loop implementation in use ("avx512", "avx2" or
// "generic"); the environment variable GPUMP_KERNELS can force one.
func (c *CPU) Kernels() string { return kernelName() }

// Close stops the worker goroutines. The backend must not be used afterwards.
func (c *CPU) Close() error {
	if c.pool != nil {
		c.pool.close()
		c.pool = nil
	}
	return nil
}

// CheckMatrix returns the shape of a payoff matrix, or an error unless t is
// a non-empty 2-D float64 or float32 tensor laid out contiguously in row-major
// order. Transposed and sliced views are refused: they share their parent's
// data in another layout, and reading it as row-major would describe another
// matrix. Entries are not checked.
func CheckMatrix(t *tensor.Dense) (m, n int, err error) {
	if t == nil {
		return 0, 0, errors.New("tensorops: nil payoff matrix")
	}
	shape := t.Shape()
	if len(shape) != 2 {
		return 0, 0, fmt.Errorf("tensorops: payoff matrix must be 2-D, got shape %v", shape)
	}
	m, n = shape[0], shape[1]
	if m <= 0 || n <= 0 {
		return 0, 0, fmt.Errorf("tensorops: empty payoff matrix (%d×%d)", m, n)
	}
	if dt := t.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return 0, 0, fmt.Errorf("tensorops: unsupported payoff matrix dtype %v (want float64 or float32)", dt)
	}
	if st := t.Strides(); t.DataOrder().IsColMajor() || t.IsView() || t.IsMaterializable() || len(st) != 2 || st[0] != n || st[1] != 1 {
		return 0, 0, errors.New("tensorops: payoff matrix must be a contiguous row-major tensor (materialize views and transposes first)")
	}
	return m, n, nil
}

// NewMatrix wraps a row-major float64 or float32 tensor without copying it
// (see CheckMatrix for what it accepts).
func (c *CPU) NewMatrix(t *tensor.Dense) (Matrix, error) {
	m, n, err := CheckMatrix(t)
	if err != nil {
		return nil, err
	}
	a := &cpuMatrix{m: m, n: n}
	a.alias(t)
	c.reserve(m, n)
	return a, nil
}

// alias points a at t's backing slice (t passed CheckMatrix with a's
// shape). Float64s and Float32s view the storage without allocating, where
// Data builds an interface through reflection.
func (a *cpuMatrix) alias(t *tensor.Dense) {
	if t.Dtype() == tensor.Float32 {
		a.f32, a.f64 = t.Float32s()[:a.m*a.n], nil
	} else {
		a.f64, a.f32 = t.Float64s()[:a.m*a.n], nil
	}
}

// reserve grows the workers' buffers for passes over an m×n matrix.
func (c *CPU) reserve(m, n int) {
	for w := range c.threads {
		if w > 0 && len(c.partial[w]) < n {
			c.partial[w] = make([]float64, n)
		}
		if len(c.rowDots[w]) < m && m < 4*c.threads {
			c.rowDots[w] = make([]float64, m)
		}
	}
}

// SetMatrix makes dst alias src's backing slice: no copy, no allocation.
func (c *CPU) SetMatrix(dst Matrix, src *tensor.Dense) error {
	a := mat(dst)
	m, n, err := CheckMatrix(src)
	if err != nil {
		return err
	}
	if m != a.m || n != a.n {
		return fmt.Errorf("tensorops: SetMatrix: a %d×%d tensor for a %d×%d matrix", m, n, a.m, a.n)
	}
	if f32 := src.Dtype() == tensor.Float32; f32 != (a.f32 != nil) {
		return fmt.Errorf("tensorops: SetMatrix: a %v tensor for a %v matrix", src.Dtype(), a.Precision())
	}
	a.alias(src)
	return nil
}

// Transpose returns Aᵀ in new memory, copied by 64×64 tiles with the bands
// of 64 columns of A dealt out to the workers.
func (c *CPU) Transpose(am Matrix) (Matrix, error) {
	a := mat(am)
	t := &cpuMatrix{m: a.n, n: a.m}
	j := &transposeJob{a: a, t: t, nw: 1}
	if a.f32 != nil {
		t.f32 = make([]float32, a.m*a.n)
	} else {
		t.f64 = make([]float64, a.m*a.n)
	}
	if c.pool != nil && a.m*a.n >= parallelMinEntries {
		j.nw = c.threads
		c.pool.do(j, j.nw)
	} else {
		j.run(0)
	}
	c.reserve(t.m, t.n)
	return t, nil
}

// transposeJob copies a transposed into t; worker w takes the bands of
// transposeTile columns of a numbered w, w + nw, ...
type transposeJob struct {
	a, t *cpuMatrix
	nw   int
}

const transposeTile = 64

func (j *transposeJob) run(w int) {
	if j.a.f32 != nil {
		transposeBands(j.t.f32, j.a.f32, j.a.m, j.a.n, w, j.nw)
	} else {
		transposeBands(j.t.f64, j.a.f64, j.a.m, j.a.n, w, j.nw)
	}
}

// transposeBands writes bands w, w + nw, ... of the columns of the m×n a
// into the n×m t, a tile at a time, so that a tile's rows of a and of t
// both stay in the cache.
func transposeBands[T float32 | float64](t, a []T, m, n, w, nw int) {
	for j0 := w * transposeTile; j0 < n; j0 += nw * transposeTile {
		j1 := min(j0+transposeTile, n)
		for i0 := 0; i0 < m; i0 += transposeTile {
			for i := i0; i < min(i0+transposeTile, m); i++ {
				row := a[i*n : i*n+n]
				for j := j0; j < j1; j++ {
					t[j*m+i] = row[j]
				}
			}
		}
	}
}

// NewVector returns a zeroed CPUVector.
func (c *CPU) NewVector(n int) (Vector, error) {
	if n < 0 {
		return nil, fmt.Errorf("tensorops: negative vector length %d", n)
	}
	return make(CPUVector, n), nil
}

// Free does nothing: CPU memory is garbage collected.
func (c *CPU) Free(...any) {}

// Load copies src into dst.
func (c *CPU) Load(dst Vector, src []float64) error {
	d := vec(dst)
	if len(d) != len(src) {
		panic("tensorops: Load length mismatch")
	}
	copy(d, src)
	return nil
}

// Store copies src into dst.
func (c *CPU) Store(dst []float64, src Vector) error {
	s := vec(src)
	if len(dst) != len(s) {
		panic("tensorops: Store length mismatch")
	}
	copy(dst, s)
	return nil
}

// Copy sets dst = src.
func (c *CPU) Copy(dst, src Vector) {
	d, s := vec(dst), vec(src)
	if len(d) != len(s) {
		panic("tensorops: Copy length mismatch")
	}
	copy(d, s)
}

// Axpby sets dst = alpha x + beta y.
func (c *CPU) Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector) {
	d, xs, ys := vec(dst), vec(x), vec(y)
	if len(xs) != len(d) || len(ys) != len(d) {
		panic("tensorops: Axpby length mismatch")
	}
	for i := range d {
		d[i] = alpha*xs[i] + beta*ys[i]
	}
}

// Start sets dst to argmin R over the set.
func (c *CPU) Start(dst Point, s Set) {
	v := vec(dst.Value)
	checkSet(&s, len(v), "Start")
	switch s.Setup {
	case Entropic:
		l := vec(dst.State)
		if len(l) != len(v) {
			panic("tensorops: Start length mismatch")
		}
		lu := -math.Log(float64(len(v)))
		for i := range l {
			l[i] = lu
		}
		fallthrough
	case Euclidean:
		u := 1 / float64(len(v))
		for i := range v {
			v[i] = u
		}
	case Box:
		clear(v)
		ClipBox(v, v, vec(s.Lo), vec(s.Hi))
	case Ball:
		copy(v, vec(s.Center))
	}
}

// Prox sets dst = P_center(eta g).
func (c *CPU) Prox(dst, center Point, g Vector, eta float64, s Set) {
	if s.Setup == Entropic {
		LogProx(vec(dst.State), vec(dst.Value), vec(center.State), vec(g), eta)
		return
	}
	d, cs, gs := vec(dst.Value), vec(center.Value), vec(g)
	if len(cs) != len(d) || len(gs) != len(d) {
		panic("tensorops: Prox length mismatch")
	}
	checkSet(&s, len(d), "Prox")
	for i := range d {
		d[i] = cs[i] - eta*gs[i]
	}
	switch s.Setup {
	case Euclidean:
		ProjectSimplex(d, d)
	case Box:
		ClipBox(d, d, vec(s.Lo), vec(s.Hi))
	case Ball:
		ProjectBall(d, d, vec(s.Center), s.Radius)
	}
}

// ProxStats computes the trial scalars and the candidate averages.
func (c *CPU) ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: ProxStats length mismatch")
	}
	for k := range blocks {
		dst[k] = proxStats(&blocks[k], w)
	}
	return nil
}

// proxSlices are a ProxBlock's vectors unwrapped (nil where the block has
// none); the State slices are set for the entropic setup only.
type proxSlices struct {
	yv, xv, nv, yl, xl, nl []float64
	m, g, lin              []float64
	ax, ag, nax, nag       []float64
}

func unwrapProx(b *ProxBlock) proxSlices {
	ps := proxSlices{
		yv: vec(b.Y.Value), xv: vec(b.X.Value), nv: vec(b.YNew.Value),
		m: vec(b.M), g: vec(b.G), lin: vec(b.Lin),
		ax: vec(b.AvgX), ag: vec(b.AvgG), nax: vec(b.NewAvgX), nag: vec(b.NewAvgG),
	}
	if b.Set.Setup == Entropic {
		ps.yl, ps.xl, ps.nl = vec(b.Y.State), vec(b.X.State), vec(b.YNew.State)
	}
	return ps
}

// game returns the part of batch slices that belongs to game k (blocks of
// length n); nil slices stay nil.
func (ps *proxSlices) game(k, n int) proxSlices {
	return proxSlices{
		yv: part(ps.yv, n, k), xv: part(ps.xv, n, k), nv: part(ps.nv, n, k),
		yl: part(ps.yl, n, k), xl: part(ps.xl, n, k), nl: part(ps.nl, n, k),
		m: part(ps.m, n, k), g: part(ps.g, n, k), lin: part(ps.lin, n, k),
		ax: part(ps.ax, n, k), ag: part(ps.ag, n, k), nax: part(ps.nax, n, k), nag: part(ps.nag, n, k),
	}
}

// part returns s[k·n : (k+1)·n], or nil for a nil s.
func part(s []float64, n, k int) []float64 {
	if s == nil {
		return nil
	}
	return s[k*n : (k+1)*n : (k+1)*n]
}

func proxStats(b *ProxBlock, w float64) BlockStats {
	ps := unwrapProx(b)
	checkSet(&b.Set, len(ps.xv), "ProxStats")
	checkLin(b.Lin, len(ps.xv), "ProxStats")
	return ps.stats(&b.Set, w)
}

// stats is ProxStats of one block on host slices.
func (ps *proxSlices) stats(set *Set, w float64) BlockStats {
	yv, xv, nv := ps.yv, ps.xv, ps.nv
	m, g := ps.m, ps.g
	ax, ag, nax, nag := ps.ax, ps.ag, ps.nax, ps.nag
	n := len(xv)
	if len(yv) != n || len(nv) != n || len(m) != n || len(g) != n ||
		len(ax) != n || len(ag) != n || len(nax) != n || len(nag) != n {
		panic("tensorops: ProxStats length mismatch")
	}
	var st BlockStats
	var divXY, divYX, distXY, distXYNew, dual, inner float64
	if set.Setup == Entropic {
		yl, xl, nl := ps.yl, ps.xl, ps.nl
		if len(yl) != n || len(xl) != n || len(nl) != n {
			panic("tensorops: ProxStats length mismatch")
		}
		for i, px := range xv {
			py, pn := yv[i], nv[i]
			divXY += px * (xl[i] - yl[i])
			divYX += pn * (nl[i] - xl[i])
			distXY += math.Abs(px - py)
			distXYNew += math.Abs(px - pn)
			d := g[i] - m[i]
			dual = max(dual, math.Abs(d))
			inner += d * (px - pn)
		}
	} else {
		for i, x := range xv {
			dy, dn := x-yv[i], x-nv[i]
			distXY += dy * dy
			distXYNew += dn * dn
			d := g[i] - m[i]
			dual += d * d
			inner += d * (x - nv[i])
		}
		divXY, divYX = distXY/2, distXYNew/2
		distXY, distXYNew, dual = math.Sqrt(distXY), math.Sqrt(distXYNew), math.Sqrt(dual)
	}
	lin := ps.lin
	for i, gi := range g {
		nax[i] = ax[i] + w*(xv[i]-ax[i])
		nag[i] = ag[i] + w*(gi-ag[i])
		if lin != nil {
			st.LinX += lin[i] * xv[i]
			st.LinAvgX += lin[i] * nax[i]
		}
	}
	st.MinG, st.MinAvgG = minInner(set, g), minInner(set, nag)
	// A divergence is ≥ 0; Σ p (l_x − l_y) of two nearly equal points can
	// round to a tiny negative number, which the step rules must not see.
	st.DivXY, st.DivYX = max(divXY, 0), max(divYX, 0)
	st.DistXY, st.DistXYNew, st.DualGM, st.InnerGM = distXY, distXYNew, dual, inner
	return st
}

// Average updates the running averages and returns the gap quantities.
func (c *CPU) Average(dst []GapStats, w float64, blocks []AvgBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: Average length mismatch")
	}
	for k := range blocks {
		b := &blocks[k]
		n := b.G.Len()
		checkSet(&b.Set, n, "Average")
		checkLin(b.Lin, n, "Average")
		dst[k] = average(&b.Set, w, vec(b.X), vec(b.G), vec(b.Lin), vec(b.AvgX), vec(b.AvgG))
	}
	return nil
}

// average is Average of one block on host slices (nil for what the block
// lacks).
func average(set *Set, w float64, x, g, lin, ax, ag []float64) GapStats {
	n := len(g)
	if (ax != nil || lin != nil) && len(x) != n {
		panic("tensorops: Average length mismatch")
	}
	st := GapStats{MinG: minInner(set, g), MinAvgG: math.NaN()}
	if ax != nil && len(ax) != n {
		panic("tensorops: Average length mismatch")
	}
	for i := range ax {
		ax[i] += w * (x[i] - ax[i])
	}
	for i, l := range lin {
		st.LinX += l * x[i]
		if ax != nil {
			st.LinAvgX += l * ax[i]
		}
	}
	if ag != nil {
		if len(ag) != n {
			panic("tensorops: Average length mismatch")
		}
		for i := range ag {
			ag[i] += w * (g[i] - ag[i])
		}
		st.MinAvgG = minInner(set, ag)
	}
	return st
}

// RegretMatch performs one RM+ or PRM+ update.
func (c *CPU) RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool) {
	regretMatch(vec(x), vec(r), vec(u), sign, tiny, predictive)
}

// regretMatch is RegretMatch on host slices.
func regretMatch(xs, rs, us []float64, sign, tiny float64, predictive bool) {
	if len(rs) != len(xs) || len(us) != len(xs) {
		panic("tensorops: RegretMatch length mismatch")
	}
	var v float64
	for i, xi := range xs {
		v += xi * us[i]
	}
	v *= sign
	var sum float64
	for i := range rs {
		rho := sign*us[i] - v
		ri := max(rs[i]+rho, 0)
		rs[i] = ri
		if predictive {
			sum += max(ri+rho, 0)
		} else {
			sum += ri
		}
	}
	if !(sum > tiny) {
		return
	}
	for i, ri := range rs {
		if predictive {
			ri = max(ri+sign*us[i]-v, 0)
		}
		xs[i] = ri / sum
	}
}

// Operator sets fp = −A q and fq = Aᵀ p in one pass.
func (c *CPU) Operator(fp, fq Vector, a Matrix, p, q Vector) {
	c.pass(opFused, a, vec(fp), vec(fq), vec(p), vec(q))
}

// MulVec sets dst = A q.
func (c *CPU) MulVec(dst Vector, a Matrix, q Vector) {
	c.pass(opMulVec, a, vec(dst), nil, nil, vec(q))
}

// MulTVec sets dst = Aᵀ p.
func (c *CPU) MulTVec(dst Vector, a Matrix, p Vector) {
	c.pass(opMulTVec, a, nil, vec(dst), vec(p), nil)
}

// mat unwraps a CPU matrix.
func mat(a Matrix) *cpuMatrix {
	m, ok := a.(*cpuMatrix)
	if !ok {
		panic(fmt.Sprintf("tensorops: %T is not a CPU matrix", a))
	}
	return m
}

// vec unwraps a CPU vector; a nil Vector gives a nil slice.
func vec(v Vector) []float64 {
	if v == nil {
		return nil
	}
	s, ok := v.(CPUVector)
	if !ok {
		panic(fmt.Sprintf("tensorops: %T is not a CPU vector", v))
	}
	return s
}
