package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// MatrixGame is the two-player zero-sum game with payoff matrix A: the row
// player picks p in the simplex of dimension m and maximizes pᵀAq, the
// column player picks q and minimizes it (the convention of Gambit, Nashpy,
// OpenSpiel). As a variational inequality z = (p, q) and F(p, q) = (−A q,
// Aᵀ p). Its duality gap
//
//	gap(p, q) = max_i (A q)_i − min_j (Aᵀ p)_j ≥ 0
//
// brackets the value: min_j (Aᵀ p)_j ≤ v* ≤ max_i (A q)_i.
//
// A game runs on a tensorops.Backend, which holds A and every iterate.
// Place puts it on one for good: the matrix is uploaded once, each method's
// workspace is allocated by its first solve and kept, and SetPayoff replaces
// the entries in place, so that a game solved round after round (a new
// payoff matrix each round, warm-started from the last answer) allocates and
// uploads nothing but the new entries. An unplaced game is placed on a CPU
// backend with all cores for the time of each Solve, which frees it after:
// such solves may run concurrently. A placed game serializes its solves.
//
// Payoffs of any finite magnitude are solved alike: when max |A_ij| lies
// outside [2⁻⁵¹², 2⁵¹²] the solver works in units where it is about 1,
// a power of two away: it multiplies the strategies by that power before a
// pass over tiny payoffs (A(2^k q) = 2^k A q exactly, with no product lost
// to underflow) and the products after a pass over huge ones (which cannot
// overflow: |A q| ≤ max |A_ij|), so that subnormal and huge payoffs neither
// lose precision nor overflow the steps and gaps, and it reports everything
// in the payoffs' own units.
type MatrixGame struct {
	a    *tensor.Dense
	m, n int
	// maxAbs is max |A_ij| in the game's units, storedMax that of the
	// stored matrix, which holds A times 2^exp (SetStorageExponent).
	maxAbs, storedMax float64
	exp               int
	// blocks are the players' sets and linear terms (NewBilinear); the
	// zero values are a matrix game's simplices.
	blocks [2]Block

	// normsMu guards the l2 norms the Euclidean setups' default constants
	// need, computed on first use with one pass over A: the largest row
	// and column norms and the Frobenius norm, each 2^normExp times the
	// value held (normExp = ilogb max |A_ij|), so that they neither
	// overflow for huge payoffs nor lose their digits for subnormal ones.
	normsMu                sync.Mutex
	normsDone              bool
	maxRowNorm, maxColNorm float64
	frobenius              float64
	normExp                int
	colSums                []float64 // scratch of computeNorms

	// mu serializes the solves of a placed game and SetPayoff.
	mu     sync.Mutex
	placed *placement
	// version counts the payoff replacements (a sampled game's transposed
	// copy follows it).
	version int
	// broken is set when SetPayoff lost the backend's copy of A.
	broken error

	// shard is the backend of a sharded game (NewShardedMatrixGame), a
	// the rows [lo, lo+rows()) of A; nil for a game held whole.
	shard Shard
	lo    int
}

// NewMatrixGame returns the game with payoff matrix a, which must be a 2-D,
// non-empty, contiguous row-major float64 or float32 tensor
// (tensorops.CheckMatrix) with finite entries (the error names the first
// offending index). The game aliases a: it must not be modified while the
// game is in use, except through SetPayoff.
func NewMatrixGame(a *tensor.Dense) (*MatrixGame, error) {
	m, n, err := tensorops.CheckMatrix(a)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	g := &MatrixGame{m: m, n: n}
	mx, err := g.check(a)
	if err != nil {
		return nil, err
	}
	g.commit(a, mx)
	return g, nil
}

// NewMatrixGameRows returns the m×n game whose payoff matrix a holds row
// after row (a[i*n+j] = A_ij), checked as NewMatrixGame checks a tensor.
// The game aliases a: it must not be modified while the game is in use,
// except through SetPayoff (with a tensor over the new entries).
func NewMatrixGameRows(m, n int, a []float64) (*MatrixGame, error) {
	if m <= 0 || n <= 0 || n > math.MaxInt/m || len(a) != m*n {
		return nil, fmt.Errorf("solver: a %d×%d payoff matrix in %d entries", m, n, len(a))
	}
	return NewMatrixGame(tensor.New(tensor.WithShape(m, n), tensor.WithBacking(a)))
}

// check checks that a can be the game's payoff matrix and returns its
// max |A_ij|.
func (g *MatrixGame) check(a *tensor.Dense) (float64, error) {
	m, n, err := tensorops.CheckMatrix(a)
	if err != nil {
		return 0, fmt.Errorf("solver: %w", err)
	}
	if m != g.rows() || n != g.n || g.a != nil && a.Dtype() != g.a.Dtype() {
		return 0, fmt.Errorf("solver: SetPayoff needs a %d×%d %v matrix, got %d×%d %v", g.rows(), g.n, g.a.Dtype(), m, n, a.Dtype())
	}
	var mx float64
	bad := -1
	// Float64s and Float32s, unlike Data, do not allocate: SetPayoff is
	// called every round of a repeated solve.
	if a.Dtype() == tensor.Float64 {
		mx, bad = scanMatrix(a.Float64s()[:m*n])
	} else {
		mx, bad = scanMatrix(a.Float32s()[:m*n])
	}
	if g.shard != nil {
		var v float64
		if bad >= 0 {
			f, _ := a.At(bad/n, bad%n)
			v = toFloat(f)
		}
		return g.shardScan(mx, bad, v)
	}
	if bad >= 0 {
		v, _ := a.At(bad/n, bad%n)
		return 0, fmt.Errorf("solver: payoff matrix entry (%d, %d) is %v", bad/n, bad%n, v)
	}
	return mx, nil
}

// commit makes a, checked, the payoff matrix.
func (g *MatrixGame) commit(a *tensor.Dense, storedMax float64) {
	g.a, g.storedMax, g.maxAbs = a, storedMax, math.Ldexp(storedMax, -g.exp)
	g.normsMu.Lock()
	g.normsDone = false
	g.normsMu.Unlock()
}

// SetPayoff replaces the payoff matrix by a, of the same shape and storage
// type, checked as NewMatrixGame checks it. On a placed game the backend's
// copy is updated in place (on the CPU, a is aliased; on a GPU, one upload),
// and max |A_ij|, the norms and the scaling follow the new entries. The
// game then aliases a. On an error the game keeps its payoffs, except when
// the backend fails mid-update and cannot restore them: then every solve
// fails with that error until a SetPayoff succeeds.
//
// On a placed game it waits for a solve in progress to end, so it must not
// be called from that solve's Recorder; on an unplaced game it must not run
// while the game is being solved, nor alongside MaxAbs or Payoff.
func (g *MatrixGame) SetPayoff(a *tensor.Dense) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	mx, err := g.check(a)
	if err != nil {
		return err
	}
	if pl := g.placed; pl != nil {
		if err := pl.be.SetMatrix(pl.a, a); err != nil {
			if rerr := pl.be.SetMatrix(pl.a, g.a); rerr != nil {
				g.broken = fmt.Errorf("solver: the payoff matrix on the backend is lost: %w", errors.Join(err, rerr))
				return g.broken
			}
			return fmt.Errorf("solver: %w", err)
		}
	}
	g.broken = nil
	g.commit(a, mx)
	if pl := g.placed; pl != nil {
		pl.stored, pl.unit = g.units()
	}
	g.version++
	return nil
}

// Place puts the game on be for good (see MatrixGame): the matrix is
// uploaded now, and every later Solve runs there and keeps its workspace.
// Close frees it. A game is placed once.
func (g *MatrixGame) Place(be tensorops.Backend) error {
	if be == nil {
		return errors.New("solver: Place on a nil backend")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.placed != nil {
		return errors.New("solver: the game is already placed")
	}
	pl, err := newPlacement(g, be)
	if err != nil {
		return err
	}
	g.placed = pl
	return nil
}

// Backend returns the backend the game is placed on, or nil.
func (g *MatrixGame) Backend() tensorops.Backend {
	if g.placed == nil {
		return nil
	}
	return g.placed.be
}

// Close frees what Place put on the backend (the matrix and the methods'
// workspaces). The backend itself stays open; the game can be placed again.
func (g *MatrixGame) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.placed != nil {
		g.placed.free()
		g.placed = nil
	}
	return nil
}

// acquire returns the game's placement for one solve: the game's own, held
// until release, or a temporary one on a new CPU backend, freed by release.
func (g *MatrixGame) acquire() (*placement, error) {
	g.mu.Lock()
	if g.broken != nil {
		g.mu.Unlock()
		return nil, g.broken
	}
	if g.placed != nil {
		return g.placed, nil
	}
	g.mu.Unlock()
	if g.shard != nil {
		return nil, errors.New("solver: a sharded game was closed: no process holds the whole matrix")
	}
	cpu := tensorops.NewCPU(0)
	pl, err := newPlacement(g, cpu)
	if err != nil {
		cpu.Close()
		return nil, err
	}
	pl.own = cpu
	return pl, nil
}

// Dims returns the payoff matrix's shape: m row strategies, n column
// strategies.
func (g *MatrixGame) Dims() (m, n int) { return g.m, g.n }

// Dim returns m + n.
func (g *MatrixGame) Dim() int { return g.m + g.n }

// MaxAbs returns max |A_ij|: the scale of the relative gap and, when both
// players use the entropic setup, the default G0 (the exact bound of ‖F‖_*)
// and the Lipschitz constant of F used by the constant rule.
func (g *MatrixGame) MaxAbs() float64 { return g.maxAbs }

// Payoff returns the payoff matrix (aliased); for a sharded game, this
// process's block of rows.
func (g *MatrixGame) Payoff() *tensor.Dense { return g.a }

// SetStorageExponent declares that the stored payoff matrix holds the
// game's payoffs A times 2^exp, as datasets.ReadScaled stores a float64
// file in float32 when float32 cannot hold its entries as they are. A
// power of two scales exactly, so the solve is the same in other units:
// from then on everything the game takes or gives in payoff units is in
// A's, not the stored matrix's: MaxAbs, the results and records of Solve,
// Settings.AbsGap, and every method's knob in payoff units (steps, G0),
// converted by the driver through Constants.Unit and the engines. Linear
// terms (NewBilinear) are in A's units too. The default is 0.
//
// A's numbers are float64s: where rounding the stored entries carried
// them past float64's range (a float32 entry 2·2^1023 for a file's
// 1.797e308), MaxAbs and the gaps are +Inf, as they would be for a
// float64 game of such entries. It fails for |exp| > 2097, the span of
// float64's exponents. Like SetPayoff, it must not run while the game is
// being solved.
func (g *MatrixGame) SetStorageExponent(exp int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if exp < -2097 || exp > 2097 {
		return fmt.Errorf("solver: a storage exponent of %d is beyond float64's range", exp)
	}
	g.exp = exp
	g.commit(g.a, g.storedMax)
	if pl := g.placed; pl != nil {
		pl.stored, pl.unit = g.units()
	}
	return nil
}

// StorageExponent returns the exponent set by SetStorageExponent.
func (g *MatrixGame) StorageExponent() int { return g.exp }

func (g *MatrixGame) validate() error {
	if g.m == 0 {
		return errors.New("solver: MatrixGame not made by NewMatrixGame")
	}
	return nil
}

// unitOf is the internal scale of a game: 1, or the power of two that brings
// max |A_ij| into [1, 2) when it lies outside [2⁻⁵¹², 2⁵¹²] (for subnormal
// payoffs, as close as 2¹⁰²³ brings them), where steps, products and gaps
// have hundreds of binary orders of magnitude to spare.
//
// A problem with a box or a ball block keeps unit 1: its points are not
// bounded by 1, so no power of two is safe to scale them by; its payoffs
// and sets must be such that A z and the sets' support values are finite.
// With linear terms the unit follows the larger of max |A_ij| and their
// largest entry.
func (g *MatrixGame) unitOf(mx float64) float64 {
	for k := range g.blocks {
		b := &g.blocks[k]
		if b.kind() != simplexBlock {
			return 1
		}
		mx = max(mx, maxAbs(b.Lin))
	}
	return unitOf(mx)
}

// units returns the game's two scale factors: stored, the internal units
// per unit of the stored matrix (the unitOf of its entries, so that the
// passes work as on any matrix of that range), and unit, the internal
// units per payoff unit (stored·2^exp, see SetStorageExponent), which the
// driver and the methods' knobs convert by. Without a storage exponent
// both are unitOf(max |A_ij|). When 2^exp is so large or small that
// stored·2^exp would leave float64's range, stored gives way: the
// internal units then lie further from the stored matrix's, as they do
// for subnormal payoffs.
func (g *MatrixGame) units() (stored, unit float64) {
	if g.exp == 0 {
		u := g.unitOf(g.maxAbs)
		return u, u
	}
	_, k := math.Frexp(g.unitOf(g.storedMax)) // 2^(k-1)
	k = min(max(k-1, -1074-g.exp), 1023-g.exp)
	return math.Ldexp(1, k), math.Ldexp(1, k+g.exp)
}

func unitOf(maxAbs float64) float64 {
	if maxAbs == 0 || maxAbs >= 0x1p-512 && maxAbs <= 0x1p512 {
		return 1
	}
	_, e := math.Frexp(maxAbs) // maxAbs = f·2^e, f in [0.5, 1)
	return math.Ldexp(1, min(1-e, 1023))
}

// scanMatrix returns max |d_i| and the index of the first non-finite entry
// (−1 if none). It reads d once at memory speed, in parallel on GOMAXPROCS
// goroutines for large matrices: it is the only pass over A before the
// first iteration that the solver itself makes, and a plain loop with
// math.Max ran at 0.9 GB/s, 1.2 s for a 1 GB matrix.
func scanMatrix[T float32 | float64](d []T) (float64, int) {
	w := runtime.GOMAXPROCS(0)
	if len(d) < 1<<20 || w == 1 {
		return scanBlock(d)
	}
	step := (len(d) + w - 1) / w
	mx, bad := make([]float64, w), make([]int, w)
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := min(k*step, len(d)), min((k+1)*step, len(d))
		scan := func() {
			mx[k], bad[k] = scanBlock(d[lo:hi])
			if bad[k] >= 0 {
				bad[k] += lo
			}
		}
		wg.Go(scan)
	}
	wg.Wait()
	for _, b := range bad {
		if b >= 0 {
			return 0, b
		}
	}
	return slices.Max(mx), -1
}

// scanBlock is scanMatrix on one goroutine. v*0 is ±0 for a finite v and
// NaN otherwise, so the sums z stay 0 exactly when every entry is finite;
// the comparisons that keep the maxima are rarely true, so their branches
// are predicted. Four independent chains keep the loop at memory speed.
func scanBlock[T float32 | float64](d []T) (float64, int) {
	var m0, m1, m2, m3 T
	var z T
	i := 0
	for ; i+4 <= len(d); i += 4 {
		b := d[i : i+4 : i+4]
		a0, a1, a2, a3 := abs(b[0]), abs(b[1]), abs(b[2]), abs(b[3])
		z += (b[0]*0 + b[1]*0) + (b[2]*0 + b[3]*0)
		if a0 > m0 {
			m0 = a0
		}
		if a1 > m1 {
			m1 = a1
		}
		if a2 > m2 {
			m2 = a2
		}
		if a3 > m3 {
			m3 = a3
		}
	}
	for ; i < len(d); i++ {
		z += d[i] * 0
		if a := abs(d[i]); a > m0 {
			m0 = a
		}
	}
	if z != 0 { // NaN: find the first offending entry
		for i, v := range d {
			if v-v != 0 {
				return 0, i
			}
		}
	}
	return float64(max(m0, m1, m2, m3)), -1
}

func abs[T float32 | float64](v T) T {
	if v < 0 {
		return -v
	}
	return v
}

// computeNorms finds the largest row and column l2 norms and the Frobenius
// norm of A (squares of the stored entries formed after scaling by 1/max
// |A_ij|, so none overflows; normExp then counts the storage exponent).
func (g *MatrixGame) computeNorms() {
	g.maxRowNorm, g.maxColNorm, g.frobenius, g.normExp = 0, 0, 0, 0
	if g.storedMax == 0 {
		return
	}
	if len(g.colSums) != g.n {
		g.colSums = make([]float64, g.n)
	}
	// Entries times 2^−e lie in [1, 2) at most; the factor is applied in
	// two steps since 2^−e overflows alone for subnormal payoffs.
	g.normExp = math.Ilogb(g.storedMax)
	s1 := math.Ldexp(1, min(-g.normExp, 1000))
	s2 := math.Ldexp(1, -g.normExp-min(-g.normExp, 1000))
	var rowMax, colMax, fro float64
	if g.a.Dtype() == tensor.Float64 {
		rowMax, colMax, fro = sumSquares(g.colSums, g.a.Float64s()[:g.rows()*g.n], g.rows(), s1, s2)
	} else {
		rowMax, colMax, fro = sumSquares(g.colSums, g.a.Float32s()[:g.rows()*g.n], g.rows(), s1, s2)
	}
	if g.shard != nil {
		rowMax, colMax, fro = g.shardNorms(rowMax, fro)
	}
	g.maxRowNorm, g.maxColNorm, g.frobenius = math.Sqrt(rowMax), math.Sqrt(colMax), math.Sqrt(fro)
	g.normExp -= g.exp
}

// sumSquares returns the largest row and column sums of squares and the
// total sum of squares of the m×n row-major matrix d scaled by s1·s2, with
// len(cols) = n as scratch.
func sumSquares[T float32 | float64](cols []float64, d []T, m int, s1, s2 float64) (rowMax, colMax, total float64) {
	n := len(cols)
	clear(cols)
	for i := range m {
		var r float64
		for j, v := range d[i*n : (i+1)*n] {
			x := float64(v) * s1 * s2
			r += x * x
			cols[j] += x * x
		}
		total += r
		rowMax = math.Max(rowMax, r)
	}
	for _, c := range cols {
		colMax = math.Max(colMax, c)
	}
	return rowMax, colMax, total
}
