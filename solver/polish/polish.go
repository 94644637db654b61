package polish

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Game is the full matrix game as Polish sees it.
type Game interface {
	// Dims returns the numbers of rows m and columns n of A.
	Dims() (m, n int)
	// Pass computes aq = A q and atp = Aᵀ p in one read of A.
	Pass(ctx context.Context, p, q, aq, atp []float64) error
	// Rows writes the submatrix A[rows, cols] row-major into dst
	// (len(rows)·len(cols) entries).
	Rows(rows, cols []int, dst []float64) error
}

// Options are the knobs of Polish; the zero value of a field (and a nil
// *Options) means its default.
type Options struct {
	// RelGap is the target gap relative to Scale; default 1e-12.
	RelGap float64
	// Scale is the unit of RelGap. The default is g.MaxAbs() if g has
	// that method (max |A_ij|), else 1.
	Scale float64
	// MaxRounds bounds the rounds (one subgame solve and one pass each);
	// default 20.
	MaxRounds int
	// MaxSize bounds the rows and the columns of a subgame; default 3000.
	MaxSize int
	// Support is the weight, relative to the largest, above which a row or
	// column of the starting point enters the first subgame; default 1e-3.
	Support float64
	// Subgame solves the restricted games; nil means a Subgame with its
	// defaults.
	Subgame *Subgame
}

// Status says why Polish stopped.
type Status int

// The reasons Polish stops.
const (
	Converged  Status = iota + 1 // the certified gap reached the target
	RoundLimit                   // MaxRounds rounds ran
	SizeLimit                    // the subgame could not grow within MaxSize
	Stalled                      // no row or column was violated, yet the gap stayed above the target (rounding)
	Canceled                     // the context was done
)

func (s Status) String() string {
	switch s {
	case Converged:
		return "converged"
	case RoundLimit:
		return "round limit"
	case SizeLimit:
		return "size limit"
	case Stalled:
		return "stalled"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Stats counts Polish's work.
type Stats struct {
	Passes    int           // full passes over A
	Solves    int           // subgame solves
	Sizes     [][2]int      // rows and columns of each subgame
	Rounds    int           // equalizer systems solved inside the subgames
	Pivots    int           // simplex pivots inside the subgames
	Interior  int           // subgame solves that needed the interior point
	SolveTime time.Duration // time in subgame solves
	Time      time.Duration // total time
}

// Result is the best pair Polish certified on the full game.
type Result struct {
	P, Q   []float64 // the strategies
	Lower  float64   // min_j (Aᵀp)_j: the row player secures at least this
	Upper  float64   // max_i (Aq)_i: the column player concedes at most this
	Gap    float64   // Upper − Lower
	RelGap float64   // Gap / scale
	Status Status
	Stats  Stats
}

// Polish improves the pair (p, q) of the game g by support crossover and
// returns the pair with the smallest gap certified by a full pass over A
// (the starting pair included), never a subgame's gap. nil p or q start
// from the uniform strategy.
//
// Each round restricts the game to rows R and columns C, solves it exactly
// with Subgame (warm-started from the current pair), lifts the solution to
// the full game and certifies it with one pass. The first restriction is
// the starting pair's support (weights above Options.Support relative to
// the largest) plus the rows whose payoff against q beats the certified
// lower bound min_j (Aᵀp)_j and the columns below the upper bound: only
// those can carry an equilibrium's weight when the bracket is right.
// Afterwards the rows violated by the lifted pair (payoff above the
// subgame's value) join R, most violated first, at most max(16, |R|/4) a
// round (the same for columns): adding all violations at once would grow
// the subgame with rows that the next round no longer violates, adding one
// at a time costs a pass and a solve per row.
//
// A canceled context returns the best pair so far with the context's error
// (the uncertified start, Gap +Inf, if no pass finished). The subgame
// solves watch it too: a deadline ends one within a simplex pivot, an
// active-set round or an interior-point iteration (not within one
// least-squares projection, up to a second at 1000 a side).
func Polish(ctx context.Context, g Game, p, q []float64, opt *Options) (Result, error) {
	start := time.Now()
	var o Options
	if opt != nil {
		o = *opt
	}
	m, n := g.Dims()
	if m < 1 || n < 1 {
		return Result{}, fmt.Errorf("polish: game of %d×%d", m, n)
	}
	if p != nil && len(p) != m || q != nil && len(q) != n {
		return Result{}, fmt.Errorf("polish: strategies of length %d, %d for a %d×%d game", len(p), len(q), m, n)
	}
	if o.RelGap <= 0 {
		o.RelGap = 1e-12
	}
	if o.Scale <= 0 {
		o.Scale = 1
		if s, ok := g.(interface{ MaxAbs() float64 }); ok && s.MaxAbs() > 0 {
			o.Scale = s.MaxAbs()
		}
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 20
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 3000
	}
	if o.Support <= 0 {
		o.Support = 1e-3
	}
	sub := o.Subgame
	if sub == nil {
		sub = new(Subgame)
	}
	// The subgame solves watch ctx too (a large one takes seconds).
	sub.w.done = ctx.Done()
	defer func() { sub.w.done = nil }()
	target := o.RelGap * o.Scale

	w := newWork(m, n)
	res := Result{P: make([]float64, m), Q: make([]float64, n)}
	copyOrUniform(w.p, p)
	copyOrUniform(w.q, q)
	finish := func(st Status, err error) (Result, error) {
		res.Status = st
		res.RelGap = res.Gap / o.Scale
		res.Stats.Time = time.Since(start)
		return res, err
	}
	// certify runs a pass at (w.p, w.q) and keeps the pair if it is the best.
	certify := func() error {
		if err := g.Pass(ctx, w.p, w.q, w.aq, w.atp); err != nil {
			return err
		}
		res.Stats.Passes++
		hi, lo := slices.Max(w.aq), slices.Min(w.atp)
		if hi-lo < res.Gap {
			res.Upper, res.Lower, res.Gap = hi, lo, hi-lo
			copy(res.P, w.p)
			copy(res.Q, w.q)
		}
		return nil
	}
	// Until the first pass the best pair is the uncertified start.
	copy(res.P, w.p)
	copy(res.Q, w.q)
	res.Gap, res.Upper, res.Lower = math.Inf(1), math.Inf(1), math.Inf(-1)
	if err := certify(); err != nil {
		if ctx.Err() != nil {
			return finish(Canceled, fmt.Errorf("polish: %w", err))
		}
		return finish(0, fmt.Errorf("polish: %w", err))
	}
	// The first restriction.
	lo, hi := slices.Min(w.atp), slices.Max(w.aq)
	pmax, qmax := slices.Max(w.p), slices.Max(w.q)
	for i := range m {
		if w.p[i] > o.Support*pmax || w.aq[i] >= lo {
			w.addRow(i)
		}
	}
	for j := range n {
		if w.q[j] > o.Support*qmax || w.atp[j] <= hi {
			w.addCol(j)
		}
	}
	if len(w.R) > o.MaxSize || len(w.C) > o.MaxSize {
		w.shrink(o.MaxSize)
	}
	for round := 0; ; round++ {
		if res.Gap <= target {
			return finish(Converged, nil)
		}
		if err := ctx.Err(); err != nil {
			return finish(Canceled, fmt.Errorf("polish: %w", err))
		}
		if round == o.MaxRounds {
			return finish(RoundLimit, nil)
		}
		k, l := len(w.R), len(w.C)
		w.x, w.y = grow(w.x, k), grow(w.y, l)
		for t, i := range w.R {
			w.x[t] = w.p[i]
		}
		for t, j := range w.C {
			w.y[t] = w.q[j]
		}
		var sr SubgameResult
		var err error
		t0 := time.Now()
		if lent, ok := lend(g, k, l); ok {
			w.a = nil
			sr, err = sub.SolveIn(w.x, w.y, lent, w.R, w.C)
		} else {
			growLarge(&w.a, k*l)
			if err := g.Rows(w.R, w.C, w.a); err != nil {
				return finish(0, fmt.Errorf("polish: gathering the subgame: %w", err))
			}
			t0 = time.Now()
			sr, err = sub.Solve(w.x, w.y, w.a, k, l)
		}
		res.Stats.SolveTime += time.Since(t0)
		res.Stats.Solves++
		res.Stats.Sizes = append(res.Stats.Sizes, [2]int{k, l})
		res.Stats.Rounds += sr.Rounds
		res.Stats.Pivots += sr.Pivots
		if sr.Interior {
			res.Stats.Interior++
		}
		if err != nil && !errors.Is(err, ErrInexact) {
			return finish(0, err)
		}
		// Lift and certify; an inexact subgame solution is still a pair to
		// certify and to grow from.
		clear(w.p)
		clear(w.q)
		for t, i := range w.R {
			w.p[i] = w.x[t]
		}
		for t, j := range w.C {
			w.q[j] = w.y[t]
		}
		if err := certify(); err != nil {
			if ctx.Err() != nil {
				return finish(Canceled, fmt.Errorf("polish: %w", err))
			}
			return finish(0, fmt.Errorf("polish: %w", err))
		}
		if res.Gap <= target {
			return finish(Converged, nil)
		}
		added, full := w.grow(sr.Value, o.MaxSize)
		if added == 0 {
			if full {
				return finish(SizeLimit, nil)
			}
			return finish(Stalled, nil)
		}
	}
}

// lend returns g's matrix when g lends it and the k×l subgame should be
// read in place: when its copy would take 8 MiB or more and at least an
// eighth of A. The copy is then a large part of a polish's peak memory
// (at 4000×4000 a uniform game's subgame is 2074 square, 34 MB beside A's
// 128 MB), while reading in place costs up to eight times the reads of
// the products with the copy (n/l ≤ 8·k/m): a small part of the subgame's
// time next to its factorizations and triangular solves on large
// subgames, about a fifth more on 500-square ones, whose copy is a few MB
// beside a process's fixed tens.
func lend(g Game, k, l int) (Matrix, bool) {
	ln, ok := g.(Lender)
	if !ok || k*l < lendMin {
		return Matrix{}, false
	}
	m, n := g.Dims()
	if lendShare*k*l < m*n {
		return Matrix{}, false
	}
	return ln.Lend()
}

// The thresholds of lend, variables so that the tests can lend small games.
var lendMin, lendShare = 1 << 20, 8

// work is Polish's memory, sized once by the game.
type work struct {
	p, q, aq, atp []float64
	inR, inC      []bool
	R, C          []int
	cand          []int
	a, x, y       []float64
}

func newWork(m, n int) *work {
	return &work{
		p: make([]float64, m), q: make([]float64, n),
		aq: make([]float64, m), atp: make([]float64, n),
		inR: make([]bool, m), inC: make([]bool, n),
		cand: make([]int, 0, max(m, n)),
	}
}

func (w *work) addRow(i int) {
	if !w.inR[i] {
		w.inR[i] = true
		w.R = append(w.R, i)
	}
}

func (w *work) addCol(j int) {
	if !w.inC[j] {
		w.inC[j] = true
		w.C = append(w.C, j)
	}
}

// shrink keeps the size rows of R with the largest weight plus payoff
// advantage, and the same for columns, when the first restriction exceeds
// the size limit.
func (w *work) shrink(size int) {
	keep := func(set []int, in []bool, weight, pay []float64, sign float64) []int {
		if len(set) <= size {
			return set
		}
		wmax := slices.Max(weight)
		pmin, pmax := slices.Min(pay), slices.Max(pay)
		score := func(i int) float64 {
			return weight[i]/wmax + sign*(pay[i]-pmin)/(pmax-pmin+math.SmallestNonzeroFloat64)
		}
		slices.SortFunc(set, func(a, b int) int { return cmpFloat(score(b), score(a)) })
		for _, i := range set[size:] {
			in[i] = false
		}
		set = set[:size]
		slices.Sort(set)
		return set
	}
	w.R = keep(w.R, w.inR, w.p, w.aq, 1)
	w.C = keep(w.C, w.inC, w.q, w.atp, -1)
}

// grow adds the rows and columns the lifted pair violates against the
// subgame's value v, most violated first, at most max(16, |R|/4) rows and
// max(16, |C|/4) columns, within size. It returns how many it added and
// whether the size limit held some back.
//
// A side with violations gets at least growFill strategies (within those
// limits): after its violated ones, those closest to violation. A round
// costs a subgame solve, whose factorization dominates on random games
// once few strategies are violated (a 391×398 sparse subgame: 7 ms for 1
// pivot), while a strategy added that stays out of the support costs
// only its share of the pivots' products; the next solution tends to
// violate the next closest ones. Side by side at 1e-9 (3 runs each): a
// Gaussian 1000² game's 4 solves became 2 (0.106 → 0.085 s), a sparse
// 800×700 game's 5 became 3 (0.061 → 0.052 s); low-rank, Toeplitz and
// 2000² games stayed within noise (DESIGN.md).
func (w *work) grow(v float64, size int) (added int, full bool) {
	pick := func(in []bool, viol func(i int) float64, limit int) []int {
		w.cand = w.cand[:0]
		nv := 0
		for i := range in {
			if !in[i] {
				if viol(i) > 0 {
					nv++
				}
				w.cand = append(w.cand, i)
			}
		}
		if nv == 0 {
			return w.cand[:0]
		}
		slices.SortFunc(w.cand, func(a, b int) int { return cmpFloat(viol(b), viol(a)) })
		return w.cand[:min(max(nv, growFill), limit, len(w.cand))]
	}
	rowViol := func(i int) float64 { return w.aq[i] - v }
	colViol := func(j int) float64 { return v - w.atp[j] }
	lim := min(max(16, len(w.R)/4), size-len(w.R))
	before := len(w.R)
	for _, i := range pick(w.inR, rowViol, max(lim, 0)) {
		w.addRow(i)
	}
	lim = min(max(16, len(w.C)/4), size-len(w.C))
	beforeC := len(w.C)
	for _, j := range pick(w.inC, colViol, max(lim, 0)) {
		w.addCol(j)
	}
	added = len(w.R) - before + len(w.C) - beforeC
	full = len(w.R) == size || len(w.C) == size
	return added, full
}

// growFill is the fewest strategies grow adds to a side with violations.
const growFill = 16

func copyOrUniform(dst, src []float64) {
	if src == nil {
		fill(dst, 1/float64(len(dst)))
		return
	}
	copy(dst, src)
	normalize(dst)
}
