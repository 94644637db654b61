package polish

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
)

// ErrInexact reports that a subgame solve stopped above its tolerance; the
// strategies returned with it are the best pair found.
var ErrInexact = errors.New("polish: subgame not solved to tolerance")

// Subgame solves dense matrix games exactly, in float64. Its zero value is
// ready to use; it keeps its work space between calls, so one Subgame must
// not be used by two goroutines at once.
//
// The first method is a simplex method on the game's LP (minimize v
// subject to B y ≤ v·1, 1ᵀy = 1, y ≥ 0; its duals are the row player's
// strategy), warm-started from a crash basis made of the guess's supports:
// rows I and columns J, |I| = |J|, scored by weight against slack. Each
// pivot exchanges one row or column. The basis is kept as the LU factors
// of its kernel, the equalizer matrix [B[I,J] −1; 1ᵀ 0] (the loose rows'
// slacks need no factoring), with product-form updates and a fresh
// factorization every 100–1000 pivots (more for larger kernels:
// etaLimit), so a pivot costs a few triangular solves of the support's
// size and one product with B. Two pivoting rules share that basis: the
// self-dual parametric method, which starts from any basis, however
// infeasible on either side, and needs a few dozen to a few hundred
// pivots from a crash that is wrong in a few rows and columns (a random
// game's first-order point at relative gap 1e-3, or an exact solution
// with rows and columns added); and the dual simplex method with dual
// steepest-edge pricing, which starts from a dual feasible basis (the
// crash when it is one, else a pure strategy's) and takes over when the
// crash is wrong nearly everywhere, as on low-rank games, where the
// parametric method wanders for thousands of pivots. The crash's measured
// infeasibilities decide (see simplex). Ties among the reduced costs (a
// degenerate game's) would make the dual method's pivots degenerate for
// thousands of pivots; it shifts its costs by tiny random amounts when
// they do (simplex.go).
//
// Should the simplex fail (numerical breakdown, or a pivot limit of
// 10·(k+l)+100), an active-set (primal-dual active set, i.e. semismooth
// Newton) iteration on the equilibrium's complementarity conditions runs
// from the guess. A guess of the supports I (rows) and J (columns),
// |I| = |J|, gives the equalizer system
//
//	B[I,J] y = v·1, 1ᵀy = 1    and    B[I,J]ᵀ x = v·1, 1ᵀx = 1,
//
// one (|I|+1)-square matrix and its transpose, factored once by LU with two
// steps of iterative refinement each. Rows with negative weight leave the
// support, rows whose payoff beats the value join it (the same for
// columns), and the sets are trimmed to equal size by the same score; at an
// exact solution the sets stop changing. A nondegenerate game's equilibrium
// is exactly such a square, nonsingular system, so from a good guess (the
// supports of a first-order method's point) a few LU factorizations of the
// support's size finish the job: the cost is that of the factorizations,
// not of a general LP. A singular system (duplicated or dependent rows and
// columns, degenerate games) is reduced by QR with column pivoting to an
// independent square subsystem, which a degenerate game's extreme
// equilibria always have. If the iteration revisits a support pair or runs
// out of rounds, a dense primal-dual interior point method (Mehrotra's
// predictor-corrector on the game's LP) finds a central solution, and the
// active-set iteration restarts from its well separated support.
//
// A matrix that repeats rows or columns exactly is solved as the game of
// their first copies: the later copies get weight zero, and the guess's
// weights on them count for their first copy (see twins.go).
type Subgame struct {
	// Tol is the gap, relative to max|B_ij|, at which a pair counts as an
	// exact equilibrium; 0 means 1e-13.
	Tol float64
	// MaxRounds bounds the active-set rounds of one attempt (two attempts
	// at most: from the guess and from the interior point); 0 means 60.
	MaxRounds int

	w  subWork
	at []float64 // −aᵀ, for games with more rows than columns
}

// transposeTall is whether Solve solves tall games transposed; false only
// in tests.
var transposeTall = true

// SubgameResult describes a subgame solve.
type SubgameResult struct {
	Value        float64 // xᵀBy
	Lower, Upper float64 // min_j (Bᵀx)_j and max_i (By)_i: they bracket the game's value
	Gap          float64 // Upper − Lower
	Rounds       int     // equalizer systems solved
	Pivots       int     // simplex pivots
	Interior     bool    // the interior-point fallback ran
	Rows, Cols   int     // support sizes of x and y
}

// subWork is the reusable work space of Subgame.
type subWork struct {
	r, c       []float64 // B y and Bᵀx
	xr, yr     []float64 // the base: raw equalizer solution, scattered (may be negative)
	pxr, pyr   []float64 // the proposal's raw solution
	pr, pc     []float64 // the proposal's products
	ix, iy     []float64 // the interior point's pair
	spread     float64   // max B − min B
	b          matB      // the matrix of the current solve
	gr         []float64 // gapOf's row payoffs
	bx, by     []float64 // best clipped pair so far
	score      []float64 // active-set scores, rows then columns
	inI, inJ   []bool
	I, J, tmp  []int
	seen       []uint64
	keyR, keyC []uint64
	eq         eqWork
	spx        spxWork
	ip         ipWork
	tw         twinWork
	// done is the Done channel of the context of the Polish running the
	// solve (nil: never done). The solve's loops watch it, so that a
	// deadline or a Ctrl-C ends a subgame solve of seconds within a pivot,
	// a round or an interior-point iteration; the solve then returns its
	// best pair so far, inexact.
	done <-chan struct{}
}

// canceled reports whether w.done is closed.
func (w *subWork) canceled() bool { return isClosed(w.done) }

// isClosed reports whether done (nil: never) is closed.
func isClosed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Solve computes an equilibrium of the k×l game a (row-major, float64). x
// (length k) and y (length l) hold on entry a starting guess (all zeros for
// none; negative and non-finite entries count as zero) and on return the
// equilibrium strategies. The error wraps ErrInexact if the pair returned
// is not exact to s.Tol. A game with over 5/4 as many rows as columns is
// solved as its transposed game −aᵀ, and a game whose largest entry is
// outside [2⁻⁶, 2⁶] in magnitude is scaled by a power of two (exactly),
// both in a copy in the Subgame's work space: the simplex's LP then has
// the fewer constraints, and its tolerances meet entries of about 1.
func (s *Subgame) Solve(x, y, a []float64, k, l int) (SubgameResult, error) {
	if k < 1 || l < 1 || len(a) != k*l || len(x) != k || len(y) != l {
		return SubgameResult{}, fmt.Errorf("polish: subgame of %d×%d with %d entries and strategies of length %d, %d", k, l, len(a), len(x), len(y))
	}
	b := &s.w.b
	b.dense(a, k, l)
	defer b.release()
	bd, err := b.bounds()
	if err != nil {
		return SubgameResult{}, err
	}
	f := unitFactor(bd.scale)
	// The LP has a constraint per row: a tall game is solved as the
	// transposed game −aᵀ, whose row player is a's column player, with
	// l+1. On a rank-3 900×600 game's cold crossover that took 0.40 s
	// against 0.47 s, and 0.59 s against 0.97 s for a 600×1500 one's
	// transposed the other way; on games within a quarter of square the
	// gain is lost in the copy and the noise (DESIGN.md, *The crossover's
	// simplex*).
	tall := 4*k > 5*l && transposeTall
	switch {
	case tall:
		growLarge(&s.at, k*l)
		for i := range k {
			for j, v := range a[i*l : (i+1)*l] {
				s.at[j*k+i] = -f * v
			}
		}
		b.dense(s.at[:k*l], l, k)
		bd = bounds{f * bd.scale, -f * bd.hi, -f * bd.lo}
	case f != 1:
		growLarge(&s.at, k*l)
		for i, v := range a {
			s.at[i] = f * v
		}
		b.dense(s.at[:k*l], k, l)
		bd = bd.times(f)
	}
	if !tall {
		res, err := s.solveTwins(x, y, bd)
		return res.unscaled(f), err
	}
	res, err := s.solveTwins(y, x, bd)
	res.Value = -res.Value
	res.Lower, res.Upper = -res.Upper, -res.Lower
	res.Rows, res.Cols = res.Cols, res.Rows
	return res.unscaled(f), err
}

// unitFactor returns the power of two by which a matrix whose largest
// entry is mx in magnitude is scaled for a solve: 1 for mx in [2⁻⁶, 2⁶]
// (or zero, or not finite), else the one that brings mx into [1/2, 1),
// within the exponents a float64 can hold. The simplex's tolerances are
// absolute on the weights and the slacks alike, and its kernel
// [B −1; 1ᵀ 0] mixes the entries with ±1: a low-rank game scaled by 1e8
// or 1e-8 ended inexact, by way of the active set and the interior point.
func unitFactor(mx float64) float64 {
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) || (mx >= 1.0/64 && mx <= 64) {
		return 1
	}
	_, e := math.Frexp(mx)
	return math.Ldexp(1, min(max(-e, -1022), 1023))
}

// unscaled returns the result of a solve on the matrix scaled by f in the
// matrix's own units (exactly: f is a power of two).
func (r SubgameResult) unscaled(f float64) SubgameResult {
	if f != 1 {
		r.Value /= f
		r.Lower /= f
		r.Upper /= f
		r.Gap /= f
	}
	return r
}

// SolveIn is Solve on the submatrix a[rows, cols] of a lent matrix, read in
// place: no copy of the subgame is made, and every product with it reads
// the full width of its rows (see Lender). A tall subgame is not
// transposed; a badly scaled one is scaled through a.Scale.
func (s *Subgame) SolveIn(x, y []float64, a Matrix, rows, cols []int) (SubgameResult, error) {
	k, l := len(rows), len(cols)
	if k < 1 || l < 1 || len(x) != k || len(y) != l || a.N < 1 || a.Stride < a.N || len(a.Data) < a.N ||
		// Row i ends at i·Stride+N ≤ len(Data), asked without the product,
		// which a huge index would overflow.
		slices.Min(rows) < 0 || slices.Max(rows) > (len(a.Data)-a.N)/a.Stride ||
		slices.Min(cols) < 0 || slices.Max(cols) >= a.N {
		return SubgameResult{}, fmt.Errorf("polish: subgame of %d×%d of a lent %d-column matrix (stride %d, %d entries) with strategies of length %d, %d", k, l, a.N, a.Stride, len(a.Data), len(x), len(y))
	}
	b := &s.w.b
	b.inPlace(a, rows, cols)
	defer b.release()
	bd, err := b.bounds()
	if err != nil {
		return SubgameResult{}, err
	}
	// A badly scaled matrix is scaled as Solve scales its copy, here
	// through the lent matrix's own scale: no copy.
	f := unitFactor(bd.scale)
	if f != 1 {
		a.Scale *= f
		b.inPlace(a, rows, cols)
		bd = bd.times(f)
	}
	res, err := s.solveTwins(x, y, bd)
	return res.unscaled(f), err
}

// solve is Solve on the matrix in s.w.b, whose bounds are bd.
func (s *Subgame) solve(x, y []float64, bd bounds) (SubgameResult, error) {
	var res SubgameResult
	w := &s.w
	b := &w.b
	k, l := b.k, b.l
	scale := bd.scale
	tol := s.Tol
	if tol <= 0 {
		tol = 1e-13
	}
	tol *= math.Max(scale, math.SmallestNonzeroFloat64)
	maxRounds := s.MaxRounds
	if maxRounds <= 0 {
		maxRounds = 60
	}
	w.reset(k, l)
	w.spx.ran = 0
	w.spread = bd.hi - bd.lo
	normalize(x)
	normalize(y)
	copy(w.bx, x)
	copy(w.by, y)
	best := w.check(b, x, y)
	res.Gap = best
	if !(best <= tol) {
		// The crash basis: the guess's supports, scored as the active set
		// scores its first proposal.
		copy(w.xr, x)
		copy(w.yr, y)
		b.mulBoth(x, y, w.r, w.c)
		// A guess whose supports' payoffs are level is an exact solution
		// of a smaller game (Polish's later rounds): a warm start, even
		// when the rows and columns added since make its crash look wrong.
		eps := 1e-9 * w.spread
		warm := level(x, w.r, eps) && level(y, w.c, eps)
		clear(w.inI)
		w.selectSets(k, l, dot(x, w.r), tol, 1)
		var ok bool
		res.Pivots, ok = w.simplex(b, w.I, w.J, argmax(x), warm, 10*(k+l)+100)
		if ok {
			w.finish(b, x, y, tol, &best)
		}
		copy(x, w.bx)
		copy(y, w.by)
	}
	if best > tol && !w.canceled() {
		res.Rounds = w.activeSet(b, x, y, tol, maxRounds, &best)
	}
	// The interior point stops early (the equalizer finishes from its well
	// separated support); only if that fails does it run to the tolerance.
	for _, stop := range []float64{math.Max(tol, 1e-9*scale), tol} {
		if best <= tol || w.canceled() {
			break
		}
		res.Interior = true
		ipx, ipy := w.ix, w.iy
		reached := w.interior(ipx, ipy, b, stop)
		if g := w.check(b, ipx, ipy); g < best {
			best = g
			copy(w.bx, ipx)
			copy(w.by, ipy)
		}
		copy(x, ipx)
		copy(y, ipy)
		if best > tol {
			res.Rounds += w.activeSet(b, x, y, tol, maxRounds, &best)
		}
		if best > tol && !w.canceled() {
			copy(x, ipx)
			copy(y, ipy)
			w.project(b, x, y, tol)
			if g := w.check(b, x, y); g < best {
				best = g
				copy(w.bx, x)
				copy(w.by, y)
			}
		}
		if !reached {
			// Short of its stop (it broke down, stalled or was
			// canceled), the interior point would replay the same
			// iterates to the same end on its way to a smaller one,
			// and the active set and the projection with them: seconds
			// on a 1200×900 game of rank 2 plus noise 1e-6.
			break
		}
	}
	copy(x, w.bx)
	copy(y, w.by)
	res.Gap = w.check(b, x, y)
	res.Upper, res.Lower = slices.Max(w.r), slices.Min(w.c)
	res.Value = blas64.Dot(blas64.Vector{N: k, Inc: 1, Data: x}, blas64.Vector{N: k, Inc: 1, Data: w.r})
	res.Rows, res.Cols = positives(x), positives(y)
	if !(res.Gap <= tol) {
		return res, fmt.Errorf("%w: gap %.3g of max|B| (tolerance %.3g)", ErrInexact, res.Gap/math.Max(scale, math.SmallestNonzeroFloat64), tol/math.Max(scale, math.SmallestNonzeroFloat64))
	}
	return res, nil
}

// level reports whether the payoffs pay are level on the support of the
// strategy s (normalized): whether the weighted distance of the support's
// payoffs from their largest, or else from their smallest, is at most eps.
// An exact solution of a smaller game is level to rounding: its support's
// payoffs are the game's value, but for weights of rounding size (up to
// 1e-12 of the largest, measured) on rows or columns that are not tight,
// which weigh nothing here. A first-order point's support is spread over
// about its gap.
func level(s, pay []float64, eps float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range s {
		if v > 0 {
			lo, hi = math.Min(lo, pay[i]), math.Max(hi, pay[i])
		}
	}
	var below, above float64
	for i, v := range s {
		if v > 0 {
			below += v * (hi - pay[i])
			above += v * (pay[i] - lo)
		}
	}
	return math.Min(below, above) <= eps
}

// reset sizes the work space for a k×l game, reusing its memory.
func (w *subWork) reset(k, l int) {
	w.r = grow(w.r, k)
	w.c = grow(w.c, l)
	w.xr = grow(w.xr, k)
	w.yr = grow(w.yr, l)
	w.pxr, w.pyr = grow(w.pxr, k), grow(w.pyr, l)
	w.pr, w.pc = grow(w.pr, k), grow(w.pc, l)
	w.ix, w.iy = grow(w.ix, k), grow(w.iy, l)
	w.bx = grow(w.bx, k)
	w.by = grow(w.by, l)
	w.score = grow(w.score, k+l)
	w.inI = growBool(w.inI, k)
	w.inJ = growBool(w.inJ, l)
	if len(w.keyR) < k || len(w.keyC) < l {
		// Zobrist keys to recognize a support pair seen before; a fixed
		// sequence keeps solves reproducible.
		w.keyR, w.keyC = zobrist(max(k, len(w.keyR)), 1), zobrist(max(l, len(w.keyC)), 2)
	}
}

// check computes r = By and c = Bᵀx and returns the gap max r − min c.
func (w *subWork) check(b *matB, x, y []float64) float64 {
	b.mulBoth(x, y, w.r, w.c)
	return slices.Max(w.r) - slices.Min(w.c)
}

// activeSet runs the active-set iteration from the pair (x, y), keeping the
// best clipped pair in w.bx, w.by and its gap in *best. It returns the
// number of equalizer systems solved.
//
// Exchanging every wrong row and column at once (plain primal-dual active
// set) diverges on random games from a first-order method's point: the
// equalizer of a wrong support is far off, and the next guess made from it
// is worse. So a proposal is accepted only if its clipped pair's gap beats
// the current base's; otherwise the same base is retried with only the
// most important quarter of the exchanges (a trust region on the number of
// exchanges), which grows back after each success. A single exchange that
// fails, or a support pair seen before, ends the attempt.
func (w *subWork) activeSet(b *matB, x, y []float64, tol float64, maxRounds int, best *float64) int {
	k, l := b.k, b.l
	clear(w.inI)
	clear(w.inJ)
	w.seen = w.seen[:0]
	// The base: the guess, scored by weights and payoffs together.
	copy(w.xr, x)
	copy(w.yr, y)
	b.mulBoth(x, y, w.r, w.c)
	v := blas64.Dot(vec(x), vec(w.r))
	baseGap := math.Inf(1)
	frac := 1.0
	rounds := 0
	for rounds < maxRounds && !w.canceled() {
		changes := w.selectSets(k, l, v, tol, frac)
		h := uint64(0)
		for _, i := range w.I {
			h ^= w.keyR[i]
		}
		for _, j := range w.J {
			h ^= w.keyC[j]
		}
		if slices.Contains(w.seen, h) {
			if changes <= 1 {
				break
			}
			frac /= 4
			continue
		}
		w.seen = append(w.seen, h)
		rounds++
		var ok bool
		var pv float64
		w.I, w.J, pv, ok = w.eq.solve(b, w.I, w.J)
		if !ok {
			if changes <= 1 {
				break
			}
			frac /= 4
			continue
		}
		clear(w.pxr)
		clear(w.pyr)
		for t, i := range w.I {
			w.pxr[i] = w.eq.x[t]
		}
		for t, j := range w.J {
			w.pyr[j] = w.eq.y[t]
		}
		b.mulBoth(w.pxr, w.pyr, w.pr, w.pc)
		copy(x, w.pxr)
		copy(y, w.pyr)
		normalize(x)
		normalize(y)
		g := w.gapOf(b, x, y)
		if g < *best {
			*best = g
			copy(w.bx, x)
			copy(w.by, y)
		}
		if g <= tol {
			break
		}
		if g >= baseGap {
			if changes <= 1 {
				break
			}
			frac /= 4
			continue
		}
		// Accept: the proposal becomes the base.
		baseGap, v = g, pv
		w.xr, w.pxr = w.pxr, w.xr
		w.yr, w.pyr = w.pyr, w.yr
		w.r, w.pr = w.pr, w.r
		w.c, w.pc = w.pc, w.c
		clear(w.inI)
		clear(w.inJ)
		for _, i := range w.I {
			w.inI[i] = true
		}
		for _, j := range w.J {
			w.inJ[j] = true
		}
		frac = math.Min(1, 4*frac)
	}
	return rounds
}

// gapOf returns the gap of (x, y) without disturbing w.r and w.c.
func (w *subWork) gapOf(b *matB, x, y []float64) float64 {
	w.gr = grow(w.gr, b.k)
	c := w.score[b.k : b.k+b.l]
	b.mulBoth(x, y, w.gr, c)
	return slices.Max(w.gr) - slices.Min(c)
}

// selectSets proposes the next support pair I, J from the base: the raw
// pair w.xr, w.yr on the sets marked in w.inI, w.inJ, its products w.r,
// w.c and value v. Rows and columns are scored scale-free: a weight
// relative to the largest weight, a payoff's distance from v relative to
// the spread of the game's entries (not of the payoffs: when every row is
// in the support their payoffs differ only by the gap). Without a base support (the first proposal)
// every row is scored by weight minus slack, which separates the support
// of an approximate equilibrium from the rest (on the support the slack is
// about the gap, off it the weight is), and the positive scores are the
// proposal. With a base support the exchanges are its members with
// negative weight and the non-members whose payoff beats v by more than
// half the tolerance (columns: falls below it); the fraction frac of them
// with the largest scores (at least one) is applied. The larger set is then
// trimmed to the size of the smaller by score. selectSets returns the
// number of exchanges applied.
func (w *subWork) selectSets(k, l int, v, tol, frac float64) int {
	first := !slices.Contains(w.inI, true)
	g := 1 / math.Max(w.spread, tol)
	sr, sc := w.score[:k], w.score[k:k+l]
	w.tmp = w.tmp[:0]
	// score fills one side: weights wt, members in, payoff advantages
	// sign·(pay − v); off is the offset of its indices in w.tmp.
	score := func(dst, wt, pay []float64, in []bool, sign float64, set []int, off int) []int {
		f := 1 / math.Max(slices.Max(wt), math.SmallestNonzeroFloat64)
		set = set[:0]
		for i := range dst {
			d := sign * (pay[i] - v)
			switch {
			case first:
				dst[i] = f*wt[i] + g*d
			case in[i]:
				dst[i] = f * wt[i]
			case d > tol/2:
				dst[i] = g * d
			default:
				dst[i] = -1
			}
			if dst[i] > 0 && (first || in[i]) {
				set = append(set, i)
			}
			if !first && in[i] != (dst[i] > 0) {
				w.tmp = append(w.tmp, off+i)
			}
		}
		return set
	}
	w.I = score(sr, w.xr, w.r, w.inI, 1, w.I, 0)
	w.J = score(sc, w.yr, w.c, w.inJ, -1, w.J, k)
	changes := 0
	if !first {
		// The exchanges, most important first; then the base's dropped
		// members beyond the fraction are kept and the additions beyond it
		// left out.
		slices.SortFunc(w.tmp, func(a, b int) int { return -cmpFloat(math.Abs(w.score[a]), math.Abs(w.score[b])) })
		changes = max(1, int(math.Ceil(frac*float64(len(w.tmp)))))
		changes = min(changes, len(w.tmp))
		for _, e := range w.tmp[changes:] {
			if e < k && w.inI[e] {
				w.I = append(w.I, e)
				sr[e] = 0 // kept, ranked last when trimming
			} else if e >= k && w.inJ[e-k] {
				w.J = append(w.J, e-k)
				sc[e-k] = 0
			}
		}
		for _, e := range w.tmp[:changes] {
			if e < k && !w.inI[e] {
				w.I = append(w.I, e)
			} else if e >= k && !w.inJ[e-k] {
				w.J = append(w.J, e-k)
			}
		}
		slices.Sort(w.I)
		slices.Sort(w.J)
	}
	if len(w.I) == 0 {
		w.I = append(w.I, argmax(sr))
	}
	if len(w.J) == 0 {
		w.J = append(w.J, argmax(sc))
	}
	n := min(len(w.I), len(w.J))
	w.I = trim(w.I, sr, n)
	w.J = trim(w.J, sc, n)
	return changes
}

// trim keeps the n members of set with the highest scores, in index order.
func trim(set []int, score []float64, n int) []int {
	if len(set) == n {
		return set
	}
	slices.SortFunc(set, func(a, b int) int { return -cmpFloat(score[a], score[b]) })
	set = set[:n]
	slices.Sort(set)
	return set
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
