package tensorops

import (
	"errors"
	"fmt"

	"gorgonia.org/tensor"
)

var _ Batched = (*CPU)(nil)

// cpuBatchMatrix aliases a (B, m, n) tensor; games[k] views game k.
type cpuBatchMatrix struct {
	b, m, n int
	games   []cpuMatrix
}

func (a *cpuBatchMatrix) Dims() (b, m, n int) { return a.b, a.m, a.n }

func (a *cpuBatchMatrix) Precision() Precision { return a.games[0].Precision() }

// cpuSelection is a list of game indices with a scratch marker per game for
// the distinctness check of Select.
type cpuSelection struct {
	b     int
	games []int
	seen  []uint32
	epoch uint32
}

func (s *cpuSelection) Games() int { return s.b }
func (s *cpuSelection) Len() int   { return len(s.games) }

// NewBatchMatrix wraps a contiguous row-major (B, m, n) float64 or float32
// tensor without copying it.
func (c *CPU) NewBatchMatrix(t *tensor.Dense) (BatchMatrix, error) {
	b, m, n, err := CheckBatchMatrix(t)
	if err != nil {
		return nil, err
	}
	a := &cpuBatchMatrix{b: b, m: m, n: n, games: make([]cpuMatrix, b)}
	size := m * n
	for k := range a.games {
		g := &a.games[k]
		g.m, g.n = m, n
		if t.Dtype() == tensor.Float32 {
			g.f32 = t.Float32s()[k*size : (k+1)*size : (k+1)*size]
		} else {
			g.f64 = t.Float64s()[k*size : (k+1)*size : (k+1)*size]
		}
	}
	c.reserve(m, n)
	return a, nil
}

// CheckBatchMatrix returns the shape of a batch of payoff matrices, or an
// error unless t is a 3-D float64 or float32 tensor of non-empty games laid
// out contiguously in row-major order. Entries are not checked.
func CheckBatchMatrix(t *tensor.Dense) (b, m, n int, err error) {
	if t == nil {
		return 0, 0, 0, errors.New("tensorops: nil batch of payoff matrices")
	}
	sh := t.Shape()
	if len(sh) != 3 {
		return 0, 0, 0, fmt.Errorf("tensorops: a batch of payoff matrices is 3-D (B, m, n), got shape %v", sh)
	}
	b, m, n = sh[0], sh[1], sh[2]
	if b <= 0 || m <= 0 || n <= 0 {
		return 0, 0, 0, fmt.Errorf("tensorops: empty batch of payoff matrices (%d×%d×%d)", b, m, n)
	}
	if dt := t.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return 0, 0, 0, fmt.Errorf("tensorops: unsupported batch dtype %v (want float64 or float32)", dt)
	}
	if st := t.Strides(); t.DataOrder().IsColMajor() || t.IsView() || t.IsMaterializable() ||
		len(st) != 3 || (b > 1 && st[0] != m*n) || (m > 1 && st[1] != n) || (n > 1 && st[2] != 1) ||
		t.DataSize() != b*m*n {
		return 0, 0, 0, errors.New("tensorops: a batch of payoff matrices must be a contiguous row-major tensor")
	}
	return b, m, n, nil
}

// GameMatrix returns game k of a as an ordinary matrix.
func (c *CPU) GameMatrix(am BatchMatrix, k int) Matrix { return &c.bmat(am).games[k] }

// GameVector returns v[k·n : (k+1)·n].
func (c *CPU) GameVector(v Vector, n, k int) Vector {
	s := vec(v)
	if n < 0 || k < 0 || (k+1)*n > len(s) {
		panic(fmt.Sprintf("tensorops: GameVector: game %d of length %d outside a vector of %d", k, n, len(s)))
	}
	return CPUVector(s[k*n : (k+1)*n : (k+1)*n])
}

// Sub returns v's elements [lo, hi) as a Vector usable with every
// operation (a sharded game's rank holds p whole and multiplies its rows'
// part). No copy.
func (c *CPU) Sub(v Vector, lo, hi int) Vector {
	s := vec(v)
	if lo < 0 || hi < lo || hi > len(s) {
		panic(fmt.Sprintf("tensorops: Sub: elements [%d, %d) of a vector of %d", lo, hi, len(s)))
	}
	return CPUVector(s[lo:hi:hi])
}

// NewSelection returns an empty selection over b games.
func (c *CPU) NewSelection(b int) (Selection, error) {
	if b < 1 {
		return nil, fmt.Errorf("tensorops: selection over %d games", b)
	}
	return &cpuSelection{b: b, games: make([]int, 0, b), seen: make([]uint32, b)}, nil
}

// Select sets the selected games.
func (c *CPU) Select(sel Selection, games []int) error {
	s := c.sel(sel)
	if len(games) > s.b {
		return fmt.Errorf("tensorops: %d games selected from a batch of %d", len(games), s.b)
	}
	s.epoch++
	if s.epoch == 0 { // wrapped: the markers are stale
		clear(s.seen)
		s.epoch = 1
	}
	for _, k := range games {
		if k < 0 || k >= s.b {
			return fmt.Errorf("tensorops: game %d selected from a batch of %d", k, s.b)
		}
		if s.seen[k] == s.epoch {
			return fmt.Errorf("tensorops: game %d selected twice", k)
		}
		s.seen[k] = s.epoch
	}
	s.games = append(s.games[:0], games...)
	return nil
}

// The batched operations run one batchJob: worker w takes a contiguous
// share of the selected games and runs on each the code of the single-game
// operation on one thread, so that every game's result is bitwise that of a
// single-threaded backend.
type batchOp int

const (
	bPass batchOp = iota
	bCopy
	bAxpby
	bProx
	bProxStats
	bAverage
	bRegret
)

type batchJob struct {
	op    batchOp
	games []int
	n     int // block length of the vectors (the column block for a pass)
	// pass: the kind, the matrix and one single-threaded job per worker.
	kind opKind
	a    *cpuBatchMatrix
	jobs []opJob
	// v holds the vector arguments in the order of each operation's
	// signature; s1, s2 the per-game scalars.
	v      [6][]float64
	s1, s2 []float64
	pred   bool
	setup  Setup
	// the statistics operations' blocks and results.
	pblocks []proxSlices
	ablocks [][5][]float64 // x, g, lin, ax, ag
	lens    []int
	sets    []Set
	pdst    []BlockStats
	adst    []GapStats
}

// batchParallelMin is the number of entries (matrix entries for a pass,
// vector elements otherwise, times a few for the prox and statistics) below
// which a batched operation runs on the calling goroutine.
const batchParallelMin = parallelMinEntries

// runBatch runs c.bjob over the selection, on the workers when the work is
// large enough.
func (c *CPU) runBatch(work int) {
	j := &c.bjob
	nw := 1
	if c.pool != nil && work >= batchParallelMin {
		nw = min(c.threads, len(j.games))
	}
	if nw <= 1 {
		j.run(0, 1)
	} else {
		c.brun = batchRunner{j, nw}
		c.pool.do(&c.brun, nw)
	}
	j.v = [6][]float64{}
	j.s1, j.s2, j.a = nil, nil, nil
}

// batchRunner hands a batch job's worker count to the pool's runner
// interface.
type batchRunner struct {
	j  *batchJob
	nw int
}

func (r *batchRunner) run(w int) { r.j.run(w, r.nw) }

func (j *batchJob) run(w, nw int) {
	lo, hi := span(len(j.games), nw, w, 1)
	for i := lo; i < hi; i++ {
		j.game(w, i, j.games[i])
	}
}

// game runs the operation on game k, the i-th selected, on worker w.
func (j *batchJob) game(w, i, k int) {
	n, v := j.n, &j.v
	switch j.op {
	case bPass:
		oj := &j.jobs[w]
		a := &j.a.games[k]
		oj.kind, oj.a, oj.nw, oj.cols = j.kind, a, 1, false
		oj.fp, oj.fq = part(v[0], a.m, k), part(v[1], a.n, k)
		oj.p, oj.q = part(v[2], a.m, k), part(v[3], a.n, k)
		oj.run(0)
		oj.finish()
		oj.fp, oj.fq, oj.p, oj.q, oj.a = nil, nil, nil, nil, nil
	case bCopy:
		copy(part(v[0], n, k), part(v[1], n, k))
	case bAxpby:
		d, x, y := part(v[0], n, k), part(v[1], n, k), part(v[2], n, k)
		alpha, beta := j.s1[i], j.s2[i]
		for e := range d {
			d[e] = alpha*x[e] + beta*y[e]
		}
	case bProx:
		// v: dst state, dst value, centre state, centre value, g.
		if j.setup == Entropic {
			LogProx(part(v[0], n, k), part(v[1], n, k), part(v[2], n, k), part(v[4], n, k), j.s1[i])
			return
		}
		d, c, g := part(v[1], n, k), part(v[3], n, k), part(v[4], n, k)
		eta := j.s1[i]
		for e := range d {
			d[e] = c[e] - eta*g[e]
		}
		ProjectSimplex(d, d)
	case bProxStats:
		nb := len(j.pblocks)
		for b := range j.pblocks {
			ps := j.pblocks[b].game(k, j.lens[b])
			j.pdst[i*nb+b] = ps.stats(&j.sets[b], j.s1[i])
		}
	case bAverage:
		nb := len(j.ablocks)
		for b := range j.ablocks {
			s, nn := &j.ablocks[b], j.lens[b]
			j.adst[i*nb+b] = average(&j.sets[b], j.s1[i], part(s[0], nn, k), part(s[1], nn, k),
				part(s[2], nn, k), part(s[3], nn, k), part(s[4], nn, k))
		}
	case bRegret:
		regretMatch(part(v[0], n, k), part(v[1], n, k), part(v[2], n, k), j.s1[i], j.s2[i], j.pred)
	}
}

// prepare starts a batched operation on sel: it checks the selection and
// the per-game scalars and returns the job.
func (c *CPU) prepare(op batchOp, sel Selection, scalars ...[]float64) *batchJob {
	s := c.sel(sel)
	j := &c.bjob
	if len(j.jobs) < c.threads {
		j.jobs = make([]opJob, c.threads)
		for w := range j.jobs {
			j.jobs[w] = opJob{c: c, dots: make([][8]float64, 1)}
		}
	}
	for _, sc := range scalars {
		if len(sc) != len(s.games) {
			panic("tensorops: batched operation: per-game scalars do not match the selection")
		}
	}
	j.op, j.games = op, s.games
	return j
}

// blockLen returns the block length of batch vector v over sel's batch.
func blockLen(v []float64, sel Selection, op string) int {
	b := sel.Games()
	if len(v)%b != 0 {
		panic(fmt.Sprintf("tensorops: %s: a vector of %d is not a batch vector over %d games", op, len(v), b))
	}
	return len(v) / b
}

// batchLens panics unless every vector (nil skipped) has length n·B.
func batchLens(op string, sel Selection, n int, vs ...[]float64) {
	for _, v := range vs {
		if v != nil && len(v) != n*sel.Games() {
			panic("tensorops: " + op + " length mismatch")
		}
	}
}

func (c *CPU) batchPass(kind opKind, fp, fq Vector, am BatchMatrix, p, q Vector, sel Selection) {
	a := c.bmat(am)
	if sel.Games() != a.b {
		panic("tensorops: batched pass: selection and matrix of different batches")
	}
	j := c.prepare(bPass, sel)
	j.kind, j.a = kind, a
	j.v[0], j.v[1], j.v[2], j.v[3] = vec(fp), vec(fq), vec(p), vec(q)
	batchLens("batched pass", sel, a.m, j.v[0], j.v[2])
	batchLens("batched pass", sel, a.n, j.v[1], j.v[3])
	c.runBatch(len(j.games) * a.m * a.n)
}

// BatchOperator sets fp_k = −A_k q_k and fq_k = A_kᵀ p_k.
func (c *CPU) BatchOperator(fp, fq Vector, a BatchMatrix, p, q Vector, sel Selection) {
	c.batchPass(opFused, fp, fq, a, p, q, sel)
}

// BatchMulVec sets dst_k = A_k q_k.
func (c *CPU) BatchMulVec(dst Vector, a BatchMatrix, q Vector, sel Selection) {
	c.batchPass(opMulVec, dst, nil, a, nil, q, sel)
}

// BatchMulTVec sets dst_k = A_kᵀ p_k.
func (c *CPU) BatchMulTVec(dst Vector, a BatchMatrix, p Vector, sel Selection) {
	c.batchPass(opMulTVec, nil, dst, a, p, nil, sel)
}

// BatchCopy sets dst_k = src_k.
func (c *CPU) BatchCopy(dst, src Vector, sel Selection) {
	j := c.prepare(bCopy, sel)
	j.v[0], j.v[1] = vec(dst), vec(src)
	j.n = blockLen(j.v[0], sel, "BatchCopy")
	batchLens("BatchCopy", sel, j.n, j.v[1])
	c.runBatch(len(j.games) * j.n)
}

// BatchAxpby sets dst_k = alpha_k x_k + beta_k y_k.
func (c *CPU) BatchAxpby(dst Vector, alpha []float64, x Vector, beta []float64, y Vector, sel Selection) {
	j := c.prepare(bAxpby, sel, alpha, beta)
	j.v[0], j.v[1], j.v[2] = vec(dst), vec(x), vec(y)
	j.s1, j.s2 = alpha, beta
	j.n = blockLen(j.v[0], sel, "BatchAxpby")
	batchLens("BatchAxpby", sel, j.n, j.v[1], j.v[2])
	c.runBatch(len(j.games) * j.n)
}

// BatchProx sets dst_k = P_{center_k}(eta_k g_k) on the simplex.
func (c *CPU) BatchProx(dst, center Point, g Vector, eta []float64, s Setup, sel Selection) {
	j := c.prepare(bProx, sel, eta)
	j.setup, j.s1 = s, eta
	switch s {
	case Entropic:
		j.v[0], j.v[2] = vec(dst.State), vec(center.State)
	case Euclidean:
	default:
		panic(fmt.Sprintf("tensorops: BatchProx: setup %v is not a simplex", s))
	}
	j.v[1], j.v[3], j.v[4] = vec(dst.Value), vec(center.Value), vec(g)
	j.n = blockLen(j.v[1], sel, "BatchProx")
	batchLens("BatchProx", sel, j.n, j.v[0], j.v[2], j.v[3], j.v[4])
	c.runBatch(4 * len(j.games) * j.n)
}

// BatchProxStats computes every selected game's trial scalars.
func (c *CPU) BatchProxStats(dst []BlockStats, w []float64, blocks []ProxBlock, sel Selection) error {
	j := c.prepare(bProxStats, sel, w)
	if len(dst) != len(blocks)*len(j.games) {
		panic("tensorops: BatchProxStats length mismatch")
	}
	j.pblocks, j.lens, j.sets = j.pblocks[:0], j.lens[:0], j.sets[:0]
	work := 0
	for b := range blocks {
		bl := &blocks[b]
		batchSet(bl.Set, bl.Lin, "BatchProxStats")
		ps := unwrapProx(bl)
		n := blockLen(ps.xv, sel, "BatchProxStats")
		batchLens("BatchProxStats", sel, n, ps.yv, ps.nv, ps.yl, ps.xl, ps.nl, ps.m, ps.g, ps.ax, ps.ag, ps.nax, ps.nag)
		j.pblocks = append(j.pblocks, ps)
		j.lens = append(j.lens, n)
		j.sets = append(j.sets, Set{Setup: bl.Set.Setup})
		work += 4 * n
	}
	j.s1, j.pdst = w, dst
	c.runBatch(work * len(j.games))
	j.pdst = nil
	clear(j.pblocks)
	return nil
}

// BatchAverage updates every selected game's running averages and returns
// its gap quantities.
func (c *CPU) BatchAverage(dst []GapStats, w []float64, blocks []AvgBlock, sel Selection) error {
	j := c.prepare(bAverage, sel, w)
	if len(dst) != len(blocks)*len(j.games) {
		panic("tensorops: BatchAverage length mismatch")
	}
	j.ablocks, j.lens, j.sets = j.ablocks[:0], j.lens[:0], j.sets[:0]
	work := 0
	for b := range blocks {
		bl := &blocks[b]
		batchSet(bl.Set, bl.Lin, "BatchAverage")
		s := [5][]float64{vec(bl.X), vec(bl.G), nil, vec(bl.AvgX), vec(bl.AvgG)}
		n := blockLen(s[1], sel, "BatchAverage")
		batchLens("BatchAverage", sel, n, s[0], s[3], s[4])
		j.ablocks = append(j.ablocks, s)
		j.lens = append(j.lens, n)
		j.sets = append(j.sets, Set{Setup: bl.Set.Setup})
		work += 2 * n
	}
	j.s1, j.adst = w, dst
	c.runBatch(work * len(j.games))
	j.adst = nil
	clear(j.ablocks)
	return nil
}

// batchSet panics unless a block of a batched operation is on the simplex
// with no linear term.
func batchSet(s Set, lin Vector, op string) {
	if s.Setup != Entropic && s.Setup != Euclidean {
		panic(fmt.Sprintf("tensorops: %s: setup %v is not a simplex", op, s.Setup))
	}
	if lin != nil {
		panic("tensorops: " + op + ": a linear term in a batched operation")
	}
}

// BatchRegretMatch performs every selected game's RM+ or PRM+ update.
func (c *CPU) BatchRegretMatch(x, r, u Vector, sign, tiny []float64, predictive bool, sel Selection) {
	j := c.prepare(bRegret, sel, sign, tiny)
	j.v[0], j.v[1], j.v[2] = vec(x), vec(r), vec(u)
	j.s1, j.s2, j.pred = sign, tiny, predictive
	j.n = blockLen(j.v[0], sel, "BatchRegretMatch")
	batchLens("BatchRegretMatch", sel, j.n, j.v[1], j.v[2])
	c.runBatch(3 * len(j.games) * j.n)
}

// bmat unwraps a CPU batch matrix.
func (c *CPU) bmat(a BatchMatrix) *cpuBatchMatrix {
	m, ok := a.(*cpuBatchMatrix)
	if !ok || m == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CPU batch matrix", a))
	}
	return m
}

// sel unwraps a CPU selection.
func (c *CPU) sel(s Selection) *cpuSelection {
	cs, ok := s.(*cpuSelection)
	if !ok || cs == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CPU selection", s))
	}
	return cs
}
