package polish

import (
	"math"

	"github.com/gpump/gpump/tensorops"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// spxWork is the work space of the simplex path of Subgame.
//
// The LP is the column player's: minimize v subject to
//
//	B y − v·1 + s = 0,  1ᵀy = 1,  y ≥ 0,  s ≥ 0,  v free,
//
// with N = k+1 constraints and the variables y_0…y_{l−1}, v (index l) and
// s_0…s_{k−1} (index l+1+i). A basis holds v (free, it never leaves), the
// columns J of the support of y and the slacks of the loose rows; the
// nonbasic slacks are the tight rows I, |I| = |J|. The duals are the row
// player's strategy: x_i is the reduced cost of s_i and (Bᵀx)_j − w that
// of y_j, so primal feasibility is the column player's half of an
// equilibrium and dual feasibility the row player's.
type spxWork struct {
	n      int             // k+1
	done   <-chan struct{} // the solve's subWork.done
	lu     []float64       // LU factors of the kernel K
	cm     []float64       // C: the loose rows of the kernel's columns
	kr, kc []int           // the kernel's rows and basis positions
	lr, lc []int           // the loose rows and their slacks' positions
	etaR   []int           // product-form updates since the factorization: pivot positions
	etaA   []float64       // and the entering columns, n entries each
	etaMax int             // the updates after which to refactor (etaLimit)
	basis  []int           // variable at each basis position
	pos    []int           // basis position of each variable, −1 if nonbasic
	xb, xh []float64       // basic values and their perturbation
	db, dh []float64       // reduced costs (all variables; 0 when basic) and their perturbation
	alpha  []float64       // FTRAN of the entering column
	rho    []float64       // row r of the basis inverse
	arow   []float64       // pivot row over all variables
	col    []float64
	unit   []float64 // a unit vector for BTRAN, kept zero
	zk     []float64 // kernel-sized scratch
	zk2    []float64 // and a second, for solve2
	ipiv   []int
	work   []float64
	iwork  []int
	isave  [3]int     // rcond's state between calls of Dlacn2
	ran    uint8      // the methods the last solve ran (ranParametric, …)
	beta   []float64  // dual steepest-edge weights by basis position
	tau    []float64  // B⁻¹ρ, for their update
	k8     [8]float64 // the row kernels' scratch: a field, so that it is not allocated per call
	luw    luWork
	cost   []float64 // the dual method's cost shifts by variable (see shift), when shifted
	spread float64   // max B − min B, the scale of the reduced costs of y
	// shifted is whether the costs carry the shifts in cost: the duals
	// and reduced costs are then those of the shifted LP.
	shifted bool
}

// The bits of spxWork.ran.
const (
	ranParametric = 1 << iota // the self-dual parametric method
	ranPure                   // the pure basis replaced the crash
	ranDual                   // the dual simplex method
)

// etaLimit returns the number of product-form updates after which a basis
// whose kernel is S×S, with N rows in all, is factored afresh.
//
// A refactorization costs F ≈ 0.1 ns × (2/3)S³ (Dgetrf and rcond,
// measured at S = 400–1400), and each update applied costs about 0.11 ns
// per entry in each of a pivot's two solves (0.22 ns per entry and pivot on
// the eta loops of solve and solveT, N = 300–2000), so refactoring every
// T pivots costs F/T + 0.11 ns × N·T per pivot on average, least at
// T = √(F/(0.11 ns × N)) = √(0.6·S³/N): 383 at S = 520, N = 575 (a
// rank-one game's subgame of 1000²), 778 at S = 1020, N = 1050. The
// interval is at least 100, the fixed one this replaced (small kernels
// refactor cheaply, and fewer updates keep the rounding smaller); at most
// 1000 updates, as the rounding of the product form grows with them
// (crossovers with up to 3000 ended at the same pivots and gaps); and at
// most 2^19 entries of updates (4 MiB), which binds from kernels of about
// 850 on: the updates are resident memory beside the kernel's LU and the
// payoff matrix, and a 4000² uniform game's crossover (S ≈ 2000) with 500
// updates (8 MiB) peaked 5.5 MiB higher than with 100, past 1.5 times the
// matrix; with 250 its peak stays below.
func etaLimit(S, N int) int {
	s, n := float64(S), float64(N)
	t := int(math.Sqrt(0.6 * s * s * s / n))
	return max(minEta, min(t, maxEta, maxEtaEntries/N))
}

// Bounds of etaLimit.
const (
	minEta        = 100
	maxEta        = 1000
	maxEtaEntries = 1 << 19
)

// simplex solves the k×l game's LP from the crash basis with y's support J
// and tight rows I (|I| = |J|), writes the optimal basis's tight rows and
// support into w.I and w.J and returns the pivots made and whether it
// reached an optimal basis within maxPivots. i0 is the row the guess
// weights most, for the pure start below.
//
// Two simplex methods share the basis, its factors and its updates:
//
//   - the self-dual parametric method (parametric), which starts from any
//     basis. From a crash that is wrong in a few rows and columns (a
//     random game's first-order point, or an exact solution of a smaller
//     subgame with rows and columns added) it needs a few dozen to a few
//     hundred pivots; from a crash that is wrong nearly everywhere it
//     wanders: 2,000–7,000 pivots on low-rank games whose support is 400,
//     where the dual method needs 1,700–2,500;
//   - the dual simplex method with dual steepest-edge pricing (dual), which
//     needs a dual feasible basis: the crash itself when it is one, else
//     the pure basis of row i0 (pureBasis), always dual feasible.
//
// Which one runs is decided from the guess and the crash's measured
// infeasibilities, not from the game's family: a dual feasible crash goes
// to dual; otherwise parametric runs, with a budget after which dual
// starts afresh from the pure basis. With S = |J|, the budget is short
// (S/8 + 10 pivots) when the guess is not warm (an exact solution of a
// smaller game, as in Polish's later rounds: its supports' payoffs are
// level) and the crash has at least 3S/4 infeasible values and reduced
// costs: wrong nearly everywhere, it is no better a start than the pure
// basis, and parametric took 1.5–8 S pivots from such crashes where
// dual's cold start took 2–3.5 S. Otherwise the budget is 3S + 100: from
// cold crashes with fewer infeasibilities parametric took at most 0.75 S,
// and from warm ones, however infeasible, a few dozen to a few hundred
// pivots (DESIGN.md, *The crossover's simplex*).
func (w *subWork) simplex(b *matB, I, J []int, i0 int, warm bool, maxPivots int) (pivots int, ok bool) {
	k, l := b.k, b.l
	sw := &w.spx
	N := k + 1
	nv := l + 1 + k
	sw.n = N
	sw.basis = growInt(sw.basis, N)
	sw.pos = growInt(sw.pos, nv)
	sw.xb, sw.xh = grow(sw.xb, N), grow(sw.xh, N)
	sw.db, sw.dh = grow(sw.db, nv), grow(sw.dh, nv)
	sw.alpha, sw.rho, sw.col = grow(sw.alpha, N), grow(sw.rho, N), grow(sw.col, N)
	sw.unit = grow(sw.unit, N)
	clear(sw.unit)
	sw.arow = grow(sw.arow, nv)
	// The true costs, before crash computes the reduced costs: a solve
	// that panicked while shifted (a lent matrix's memory fault,
	// recovered by the caller) must not leave its shifts to the next.
	sw.shifted = false
	sw.done = w.done
	if !w.crash(b, I, J) {
		return 0, false
	}
	ptol := 1e-11
	sw.spread = math.Max(w.spread, math.SmallestNonzeroFloat64)
	dtol := 1e-11 * sw.spread
	np, nd := sw.infeasible(l, ptol, dtol)
	S := len(J)
	done := false
	if nd > 0 {
		sw.ran |= ranParametric
		budget := 3*S + 100
		if !warm && 4*(np+nd) >= 3*S {
			budget = S/8 + 10
		}
		pivots, done = w.parametric(b, min(budget, maxPivots), ptol, dtol)
		if !done {
			if pivots >= maxPivots {
				return pivots, false
			}
			sw.ran |= ranPure
			if !w.pureBasis(b, i0) {
				return pivots, false
			}
		}
	}
	if !done {
		sw.ran |= ranDual
		var pv int
		pv, done = sw.dual(b, maxPivots-pivots, ptol, dtol)
		pivots += pv
		if sw.shifted {
			// Optimal for the shifted costs, so primal feasible: the
			// true reduced costs may be negative by about the shifts,
			// which the parametric method mends in a few pivots. (A
			// basis that failed is abandoned: its factors may be too.)
			sw.shifted = false
			if done {
				sw.values(b)
				if _, nd := sw.infeasible(l, ptol, dtol); nd > 0 {
					pv, done = w.parametric(b, maxPivots-pivots, ptol, dtol)
					pivots += pv
				}
			}
		}
		if !done {
			return pivots, false
		}
	}
	// The optimal basis: tight rows and the support.
	w.I, w.J = w.I[:0], w.J[:0]
	for i := range k {
		if sw.pos[l+1+i] < 0 {
			w.I = append(w.I, i)
		}
	}
	for j := range l {
		if sw.pos[j] >= 0 {
			w.J = append(w.J, j)
		}
	}
	return pivots, true
}

// crash sets up and factors the crash basis: y's support J, v, and the
// slacks of the rows not in I. It returns false if neither it nor the
// fallback basis could be factored.
func (w *subWork) crash(b *matB, I, J []int) bool {
	k, l := b.k, b.l
	sw := &w.spx
	for t := range sw.pos {
		sw.pos[t] = -1
	}
	tight := growBool(w.inI, k)
	clear(tight)
	for _, i := range I {
		tight[i] = true
	}
	nb := 0
	setBasic := func(q int) {
		sw.basis[nb] = q
		sw.pos[q] = nb
		nb++
	}
	for _, j := range J {
		setBasic(j)
	}
	setBasic(l)
	for i := range k {
		if !tight[i] {
			setBasic(l + 1 + i)
		}
	}
	if !sw.factor(b) {
		// A singular crash: the pure strategy y = e_j with the best
		// response row tight is always a basis.
		j0 := 0
		if len(J) > 0 {
			j0 = J[0]
		}
		i0 := 0
		for i := range k {
			if b.at(i, j0) > b.at(i0, j0) {
				i0 = i
			}
		}
		return sw.pure(b, i0, j0)
	}
	sw.values(b)
	return true
}

// pure makes and factors the basis of the pure pair (i0, j0): y_j0, v and
// the slacks of every row but i0. It returns false if the factorization
// refuses its kernel [B[i0,j0] −1; 1 0], whose condition grows as
// B[i0,j0]².
func (sw *spxWork) pure(b *matB, i0, j0 int) bool {
	k, l := b.k, b.l
	for t := range sw.pos {
		sw.pos[t] = -1
	}
	sw.basis[0], sw.basis[1] = j0, l
	sw.pos[j0], sw.pos[l] = 0, 1
	nb := 2
	for i := range k {
		if i != i0 {
			sw.basis[nb] = l + 1 + i
			sw.pos[l+1+i] = nb
			nb++
		}
	}
	if !sw.factor(b) {
		return false
	}
	sw.values(b)
	return true
}

// parametric runs the self-dual parametric simplex method (Dantzig's
// self-dual parametric variant, as in Vanderbei's textbook) from the
// factored basis for at most maxPivots pivots and reports the pivots made
// and whether the basis is optimal. It adds μ·x̂ to the basic values and
// μ·d̂ to the reduced costs, with x̂, d̂ > 0, so that the basis is optimal
// for μ large, and lowers μ to 0. At each step the component that turns
// negative first decides the pivot: a reduced cost makes a primal simplex
// pivot (the variable enters, a ratio test on the perturbed values picks
// who leaves), a basic value makes a dual simplex pivot (it leaves, a dual
// ratio test picks who enters).
func (w *subWork) parametric(b *matB, maxPivots int, ptol, dtol float64) (pivots int, ok bool) {
	l := b.l
	sw := &w.spx
	N := sw.n
	nv := len(sw.pos)
	// Perturbations: random in [1, 1.1] times a typical size of the
	// component (weights 1/S, payoff differences spread/√S, S the crash's
	// support), so the most infeasible component, relative to its kind,
	// binds first and ties are unlikely.
	s0 := float64(max(len(sw.kc)-1, 1))
	wTyp, pTyp := 1/s0, 0.3*math.Max(w.spread, math.SmallestNonzeroFloat64)/math.Sqrt(s0)
	keys := zobrist(N+nv, 3)
	unit := func(t int) float64 { return 1 + 0.1*float64(keys[t]>>11)/(1<<53) }
	for p, q := range sw.basis[:N] {
		sw.xh[p] = pTyp * unit(p) // a loose row's slack
		if q < l {
			sw.xh[p] = wTyp * unit(p)
		}
	}
	for q := range nv {
		switch {
		case sw.pos[q] >= 0:
			sw.dh[q] = 0
		case q < l:
			sw.dh[q] = pTyp * unit(N+q) // (Bᵀx)_j − w
		default:
			sw.dh[q] = wTyp * unit(N+q) // x_i
		}
	}
	mu := math.Inf(1)
	for {
		// The largest μ at which a component is zero.
		best, r, q := 0.0, -1, -1
		for p := range N {
			if sw.basis[p] == l {
				continue
			}
			xb, xh := sw.xb[p], sw.xh[p]
			if xh <= 0 && xb+mu*xh < -ptol && !math.IsInf(mu, 1) {
				sw.xh[p] = -xb / mu * 1.001 // drift: feasible again at μ
				xh = sw.xh[p]
			}
			if xh > 0 && xb < -ptol && -xb/xh > best {
				best, r, q = -xb/xh, p, -1
			}
		}
		for v := range nv {
			if sw.pos[v] >= 0 {
				continue
			}
			db, dh := sw.db[v], sw.dh[v]
			if dh <= 0 && db+mu*dh < -dtol && !math.IsInf(mu, 1) {
				sw.dh[v] = -db / mu * 1.001
				dh = sw.dh[v]
			}
			if dh > 0 && db < -dtol && -db/dh > best {
				best, r, q = -db/dh, -1, v
			}
		}
		if r < 0 && q < 0 {
			return pivots, true // optimal at μ = 0
		}
		if pivots >= maxPivots || isClosed(sw.done) {
			return pivots, false
		}
		mu = best
		if q >= 0 {
			// Primal pivot: q enters, the ratio test picks the leaving row.
			sw.ftran(b, q)
			r = sw.ratioPrimal(l, mu, ptol)
			if r < 0 {
				return pivots, false
			}
			sw.pivotRow(b, r)
		} else {
			// Dual pivot: position r leaves, the dual ratio test picks q.
			sw.pivotRow(b, r)
			q = sw.ratioDual(mu, dtol)
			if q < 0 {
				return pivots, false
			}
			sw.ftran(b, q)
		}
		pivots++
		if !sw.exchange(b, r, q) {
			return pivots, false
		}
	}
}

// exchange makes the pivot (r, q) and refactors when the updates are due
// or the inverse has drifted; false if the basis cannot be factored.
func (sw *spxWork) exchange(b *matB, r, q int) bool {
	if !sw.pivot(r, q) {
		// The inverse drifted: refactor (the caller redoes the step).
		if len(sw.etaR) == 0 || !sw.factor(b) {
			return false
		}
		sw.values(b)
		return true
	}
	if len(sw.etaR) >= sw.etaMax {
		if !sw.factor(b) {
			return false
		}
		sw.values(b)
	}
	return true
}

// column writes the constraint column of variable q into sw.col.
func (sw *spxWork) column(b *matB, q int) {
	k, l := b.k, b.l
	c := sw.col
	clear(c)
	switch {
	case q < l:
		b.column(q, c)
		c[k] = 1
	case q == l:
		for t := range k {
			c[t] = -1
		}
	default:
		c[q-l-1] = 1
	}
}

// factor factors the basis. With the rows ordered tight rows and the
// normalization first (R) and loose rows L after, and the positions of y's
// support and v first (P) and the slacks after, the basis is
//
//	[K 0; C 1]   with inverse   [K⁻¹ 0; −C K⁻¹ 1],
//
// so only the kernel K (|J|+1 square: the equalizer matrix) is factored,
// by LU: at a random game's supports, about half the rows, an eighth of
// the flops of factoring the whole basis. Pivots are applied in product
// form on top (etaR, etaA). factor returns false if K is singular or too
// badly conditioned to pivot on.
func (sw *spxWork) factor(b *matB) bool {
	k, l := b.k, b.l
	N := sw.n
	sw.kr, sw.kc, sw.lr, sw.lc = sw.kr[:0], sw.kc[:0], sw.lr[:0], sw.lc[:0]
	for p, q := range sw.basis[:N] {
		if q > l {
			sw.lr = append(sw.lr, q-l-1)
			sw.lc = append(sw.lc, p)
		} else {
			sw.kc = append(sw.kc, p)
		}
	}
	for i := range k {
		if sw.pos[l+1+i] < 0 {
			sw.kr = append(sw.kr, i)
		}
	}
	sw.kr = append(sw.kr, k)
	S, nl := len(sw.kc), len(sw.lr)
	if len(sw.kr) != S {
		return false
	}
	growLarge(&sw.lu, S*S)
	sw.cm = grow(sw.cm, nl*S)
	sw.zk, sw.zk2 = grow(sw.zk, S), grow(sw.zk2, S)
	for c, p := range sw.kc {
		sw.column(b, sw.basis[p])
		for r, i := range sw.kr {
			sw.lu[r*S+c] = sw.col[i]
		}
		for r, i := range sw.lr {
			sw.cm[r*S+c] = sw.col[i]
		}
	}
	sw.ipiv = growInt(sw.ipiv, S)
	sw.work = grow(sw.work, 4*S)
	sw.iwork = growInt(sw.iwork, S)
	var impl gonum.Implementation
	anorm := impl.Dlange(lapack.MaxColumnSum, S, S, sw.lu, S, sw.work)
	if !sw.luw.getrf(S, sw.lu, S, sw.ipiv) {
		return false
	}
	if sw.rcond(S, anorm) < 1e-13 {
		return false
	}
	sw.etaR, sw.etaA = sw.etaR[:0], sw.etaA[:0]
	sw.etaMax = etaLimit(S, N)
	if cap(sw.etaA) < sw.etaMax*N {
		// The updates until the next factorization, allocated once:
		// appending would leave a trail of garbage arrays behind.
		sw.etaA = make([]float64, 0, sw.etaMax*N+sw.etaMax*N/4)
	}
	return true
}

// rcond estimates the reciprocal condition number 1/(‖K‖₁‖K⁻¹‖₁) of the
// S×S kernel from its LU factors, with anorm = ‖K‖₁. ‖K⁻¹‖₁ is Hager's
// estimate as refined by Higham (LAPACK's dlacn2, the estimator of
// Dgecon): a few products with K⁻¹ and K⁻ᵀ, here by luSolve, since Dgecon
// makes them by Dlatrs, scalar triangular solves with overflow guards, at a
// cost comparable to the factorization's (BenchmarkRcond; DESIGN.md,
// *Measurements behind the doc comments*). luSolve has no guards: a solve that overflows makes the estimate 0, as Dgecon
// returns 0 where its guards would have to scale below underflow (a
// NaN from the overflow could otherwise mislead the estimator's later
// steps to a small, finite norm).
func (sw *spxWork) rcond(S int, anorm float64) float64 {
	if anorm == 0 || math.IsNaN(anorm) || math.IsInf(anorm, 1) {
		return 0
	}
	var impl gonum.Implementation
	v, x := sw.work[:S], sw.work[S:2*S]
	est, kase := 0.0, 0
	sw.isave = [3]int{}
	for {
		est, kase = impl.Dlacn2(S, v, x, sw.iwork, est, kase, &sw.isave)
		switch kase {
		case 1:
			sw.luSolve(blas.NoTrans, x)
		case 2:
			sw.luSolve(blas.Trans, x)
		default:
			if est == 0 {
				return 0
			}
			return 1 / est / anorm
		}
		var sum float64
		for _, xi := range x {
			sum += math.Abs(xi)
		}
		if math.IsInf(sum, 0) || math.IsNaN(sum) {
			return 0
		}
	}
}

// solve writes B⁻¹b into out (indexed by basis positions); b is indexed by
// rows and left unchanged.
func (sw *spxWork) solve(b, out []float64) {
	S := len(sw.kc)
	z := sw.zk
	for c, i := range sw.kr {
		z[c] = b[i]
	}
	sw.luSolve(blas.NoTrans, z)
	for c, p := range sw.kc {
		out[p] = z[c]
	}
	// The loose rows: b − C z, 8 rows of C a pass over z.
	r, nl := 0, len(sw.lc)
	for ; r+8 <= nl; r += 8 {
		sw.looseRows8(r, b, z, out)
	}
	for ; r < nl; r++ {
		out[sw.lc[r]] = b[sw.lr[r]] - dot(sw.cm[r*S:(r+1)*S], z)
	}
	for e := range sw.etaR {
		sw.etaStep(e, out)
	}
}

// looseRows8 writes b − C z into out at the loose rows r…r+7.
func (sw *spxWork) looseRows8(r int, b, z, out []float64) {
	S := len(sw.kc)
	tensorops.DotRows8(sw.cm[r*S:], S, S, z, &sw.k8)
	for t, d := range sw.k8 {
		out[sw.lc[r+t]] = b[sw.lr[r+t]] - d
	}
}

// etaStep applies the product-form update e to out (solve's last step).
func (sw *spxWork) etaStep(e int, out []float64) {
	N := sw.n
	r, al := sw.etaR[e], sw.etaA[e*N:(e+1)*N]
	t := out[r] / al[r]
	axpy(out, -t, al)
	out[r] = t
}

// solve2 is solve for two right-hand sides, b1 into out1 and b2 into
// out2, with each one's operations in solve's order (the results are
// solve's to the bit), interleaved block by block: each block of the LU
// factors, of C and each update is read from memory once for both and
// from cache the second time. A dual pivot makes two solves with the
// same basis (the entering column and the weights' update), and at a
// kernel of 460 with 370 loose rows (a Toeplitz 900² game's crossover)
// its factors and C are 3.3 MB, beyond a core's L2.
func (sw *spxWork) solve2(b1, b2, out1, out2 []float64) {
	S := len(sw.kc)
	z1, z2 := sw.zk, sw.zk2
	for c, i := range sw.kr {
		z1[c], z2[c] = b1[i], b2[i]
	}
	for i, p := range sw.ipiv[:S] {
		z1[i], z1[p] = z1[p], z1[i]
		z2[i], z2[p] = z2[p], z2[i]
	}
	trsvLN2(sw.lu, S, z1, z2, &sw.k8)
	trsvUN2(sw.lu, S, z1, z2, &sw.k8)
	for c, p := range sw.kc {
		out1[p], out2[p] = z1[c], z2[c]
	}
	r, nl := 0, len(sw.lc)
	for ; r+8 <= nl; r += 8 {
		sw.looseRows8(r, b1, z1, out1)
		sw.looseRows8(r, b2, z2, out2)
	}
	for ; r < nl; r++ {
		c := sw.cm[r*S : (r+1)*S]
		out1[sw.lc[r]] = b1[sw.lr[r]] - dot(c, z1)
		out2[sw.lc[r]] = b2[sw.lr[r]] - dot(c, z2)
	}
	for e := range sw.etaR {
		sw.etaStep(e, out1)
		sw.etaStep(e, out2)
	}
}

// solveT writes uᵀB⁻¹ into out (indexed by rows); u is indexed by basis
// positions and is overwritten.
func (sw *spxWork) solveT(u, out []float64) {
	N := sw.n
	for e := len(sw.etaR) - 1; e >= 0; e-- {
		r, al := sw.etaR[e], sw.etaA[e*N:(e+1)*N]
		u[r] -= (dot(u, al) - u[r]) / al[r]
	}
	S := len(sw.kc)
	z := sw.zk
	for c, p := range sw.kc {
		z[c] = u[p]
	}
	for r, p := range sw.lc {
		if u[p] != 0 {
			axpy(z, -u[p], sw.cm[r*S:(r+1)*S])
		}
		out[sw.lr[r]] = u[p]
	}
	sw.luSolve(blas.Trans, z)
	for c, i := range sw.kr {
		out[i] = z[c]
	}
}

// luSolve solves K z = b or Kᵀz = b in place with the LU factors of the
// kernel, by the blocked triangular solves of tri.go. (Dgetrs with one
// right-hand side goes through Dtrsm, several times slower than two
// Dtrsv, which are themselves scalar loops.)
func (sw *spxWork) luSolve(t blas.Transpose, z []float64) {
	S := len(z)
	if t == blas.NoTrans {
		for i, p := range sw.ipiv[:S] {
			z[i], z[p] = z[p], z[i]
		}
		trsvLN(sw.lu, S, z, &sw.k8)
		trsvUN(sw.lu, S, z, &sw.k8)
		return
	}
	trsvUT(sw.lu, S, z, &sw.k8)
	trsvLT(sw.lu, S, z, &sw.k8)
	for i := S - 1; i >= 0; i-- {
		p := sw.ipiv[i]
		z[i], z[p] = z[p], z[i]
	}
}

// values recomputes the basic values (B⁻¹ times the normalization row's
// unit vector) and the reduced costs from the duals π (row of B⁻¹ at v's
// position).
func (sw *spxWork) values(b *matB) {
	k, l := b.k, b.l
	sw.unit[k] = 1
	sw.solve(sw.unit, sw.xb)
	sw.unit[k] = 0
	pi := sw.rho
	sw.duals(l, pi)
	// Reduced cost of y_j: −(πᵀB[:,j] + π_k); of s_i: −π_i; basic: 0.
	d := sw.db[:l]
	b.mulT(-1, pi[:k], d)
	for j := range l {
		d[j] -= pi[k]
	}
	sw.db[l] = 0
	for i := range k {
		sw.db[l+1+i] = -pi[i]
	}
	for q := range sw.db {
		switch {
		case sw.pos[q] >= 0:
			sw.db[q] = 0
		case sw.shifted:
			sw.db[q] += sw.cost[q]
		}
	}
}

// duals writes π, the basic costs times B⁻¹, into pi: the row of B⁻¹ at
// v's position, plus the shifts of the basic variables when shifted.
func (sw *spxWork) duals(l int, pi []float64) {
	if sw.shifted {
		for p, q := range sw.basis[:sw.n] {
			sw.unit[p] = sw.cost[q]
		}
	}
	sw.unit[sw.pos[l]] = 1
	sw.solveT(sw.unit, pi)
	clear(sw.unit)
}

// ftran computes alpha = B⁻¹ a_q.
func (sw *spxWork) ftran(b *matB, q int) {
	sw.column(b, q)
	sw.solve(sw.col, sw.alpha)
}

// pivotRow computes row r of B⁻¹ (rho) and the pivot row rhoᵀa_q of every
// variable (arow).
func (sw *spxWork) pivotRow(b *matB, r int) {
	k, l := b.k, b.l
	sw.unit[r] = 1
	sw.solveT(sw.unit, sw.rho)
	clear(sw.unit)
	ar := sw.arow[:l]
	b.mulT(1, sw.rho[:k], ar)
	for j := range l {
		ar[j] += sw.rho[k]
	}
	sw.arow[l] = 0
	for i := range k {
		sw.arow[l+1+i] = sw.rho[i]
	}
}

// ratioPrimal picks the leaving position for the entering column in alpha
// by Harris's two-pass test on the values at μ (v, free, never leaves);
// −1 if the step is unbounded.
func (sw *spxWork) ratioPrimal(l int, mu, tol float64) int {
	amax := 0.0
	for _, v := range sw.alpha {
		amax = math.Max(amax, math.Abs(v))
	}
	piv := math.Max(1e-9*amax, 1e-12)
	tmax := math.Inf(1)
	for p, al := range sw.alpha {
		if al > piv && sw.basis[p] != l {
			tmax = math.Min(tmax, (sw.xb[p]+mu*sw.xh[p]+tol)/al)
		}
	}
	r, big := -1, 0.0
	for p, al := range sw.alpha {
		if al > piv && sw.basis[p] != l && (sw.xb[p]+mu*sw.xh[p])/al <= tmax && al > big {
			r, big = p, al
		}
	}
	return r
}

// ratioDual picks the entering variable for the pivot row in arow by
// Harris's two-pass test on the reduced costs at μ; −1 if none qualifies.
func (sw *spxWork) ratioDual(mu, tol float64) int {
	amax := 0.0
	for q, v := range sw.arow {
		if sw.pos[q] < 0 {
			amax = math.Max(amax, math.Abs(v))
		}
	}
	piv := math.Max(1e-9*amax, 1e-12)
	tmax := math.Inf(1)
	for q, al := range sw.arow {
		if al < -piv && sw.pos[q] < 0 {
			tmax = math.Min(tmax, (sw.db[q]+mu*sw.dh[q]+tol)/-al)
		}
	}
	e, big := -1, 0.0
	for q, al := range sw.arow {
		if al < -piv && sw.pos[q] < 0 && (sw.db[q]+mu*sw.dh[q])/-al <= tmax && -al > big {
			e, big = q, -al
		}
	}
	return e
}

// pivot exchanges the variable at position r for q, with the entering
// column in alpha and the pivot row in arow: it updates the values and the
// reduced costs and records the eta of the exchange.
func (sw *spxWork) pivot(r, q int) bool {
	if !sw.pivotOK(r, q) {
		return false
	}
	ar := sw.alpha[r]
	out := sw.basis[r]
	tb, th := sw.xb[r]/ar, sw.xh[r]/ar
	for p, al := range sw.alpha {
		sw.xb[p] -= tb * al
		sw.xh[p] -= th * al
	}
	sw.xb[r], sw.xh[r] = tb, th
	ub, uh := sw.db[q]/ar, sw.dh[q]/ar
	for v, al := range sw.arow {
		if sw.pos[v] < 0 {
			sw.db[v] -= ub * al
			sw.dh[v] -= uh * al
		}
	}
	sw.db[q], sw.dh[q] = 0, 0
	sw.db[out], sw.dh[out] = -ub, -uh
	sw.etaR = append(sw.etaR, r)
	sw.etaA = append(sw.etaA, sw.alpha...)
	sw.basis[r] = q
	sw.pos[q] = r
	sw.pos[out] = -1
	return true
}

// pivotOK reports whether the pivot element agrees between the entering
// column (FTRAN) and the pivot row (BTRAN); if not, the inverse has
// drifted.
func (sw *spxWork) pivotOK(r, q int) bool {
	ar := sw.alpha[r]
	return ar != 0 && math.Abs(ar-sw.arow[q]) <= 1e-7*(1+math.Abs(ar))
}

// finish turns the optimal basis left by simplex (its tight rows and
// support in w.I, w.J) into a pair in x, y: the equalizer system of the
// basis solved with iterative refinement, or the simplex's own values if
// those are better. It keeps the better pair in w.bx, w.by if it beats
// *best.
func (w *subWork) finish(b *matB, x, y []float64, tol float64, best *float64) {
	k, l := b.k, b.l
	try := func() {
		normalize(x)
		normalize(y)
		if g := w.gapOf(b, x, y); g < *best {
			*best = g
			copy(w.bx, x)
			copy(w.by, y)
		}
	}
	sw := &w.spx
	clear(x)
	clear(y)
	for j := range l {
		if p := sw.pos[j]; p >= 0 {
			y[j] = sw.xb[p]
		}
	}
	sw.duals(l, sw.rho)
	for i := range k {
		x[i] = -sw.rho[i]
	}
	try()
	if *best <= tol {
		return
	}
	I, J, _, ok := w.eq.solve(b, w.I, w.J)
	if !ok {
		return
	}
	clear(x)
	clear(y)
	for t, i := range I {
		x[i] = w.eq.x[t]
	}
	for t, j := range J {
		y[j] = w.eq.y[t]
	}
	try()
}

// infeasible counts the basic values below −ptol (v, free, excepted) and
// the nonbasic reduced costs below −dtol.
func (sw *spxWork) infeasible(l int, ptol, dtol float64) (np, nd int) {
	for p, q := range sw.basis[:sw.n] {
		if q != l && sw.xb[p] < -ptol {
			np++
		}
	}
	for q, d := range sw.db {
		if sw.pos[q] < 0 && d < -dtol {
			nd++
		}
	}
	return np, nd
}

// pureBasis factors the basis of row i0 played purely: y = e_j0 with j0
// the column's best reply to i0, the row i0 tight and every other row
// loose. Its duals are x = e_i0, so every reduced cost, B[i0,j] − B[i0,j0]
// or a weight of x, is nonnegative: the basis is dual feasible. It returns
// false where the factorization refuses the basis (see pure).
func (w *subWork) pureBasis(b *matB, i0 int) bool {
	j0 := 0
	for j := range b.l {
		if b.at(i0, j) < b.at(i0, j0) {
			j0 = j
		}
	}
	return w.spx.pure(b, i0, j0)
}

// shiftAfter is the number of degenerate pivots (the entering reduced
// cost zero to the tolerance) after which dual shifts the costs: a
// block-diagonal game with constant off-diagonal blocks cold-started from
// a pure basis made 15,969 of its 15,990 pivots degenerate and stalled at
// the pivot limit, while games in general position make none (0 of 2,468
// on a Toeplitz game, 0 of 1,409 on a duplicated one).
const shiftAfter = 50

// shift perturbs the costs of the nonbasic variables by small positive
// random amounts (their reduced costs grow by as much; the duals and the
// basis stay), so that the reduced costs that tie at zero, which make the
// dual ratio test's step zero pivot after pivot, no longer tie: each
// pivot then moves the duals, and the objective of the shifted LP cannot
// revisit a basis. The shifts are 1e-7 times a typical size of the
// reduced cost, a payoff difference (spread/√S) or a weight (1/S), in
// [1, 2) of it by a hash of the variable, as HiGHS's dual simplex perturbs
// its costs. simplex removes them when dual ends.
func (sw *spxWork) shift(l int) {
	nv := len(sw.pos)
	sw.cost = grow(sw.cost, nv)
	s0 := float64(max(len(sw.kc)-1, 1))
	wTyp, pTyp := 1e-7/s0, 1e-7*sw.spread/math.Sqrt(s0)
	for q := range nv {
		c := 0.0
		if sw.pos[q] < 0 {
			u := 1 + float64(mix(uint64(q)+1, 0x5851f42d4c957f2d)>>11)/(1<<53)
			c = wTyp * u
			if q < l {
				c = pTyp * u
			}
		}
		sw.cost[q] = c
		sw.db[q] += c
	}
	sw.shifted = true
}

// dual runs the dual simplex method with dual steepest-edge pricing
// (Forrest and Goldfarb's exact update of the weights ‖e_pᵀB⁻¹‖², started
// at 1) from the factored, dual feasible basis for at most maxPivots
// pivots, and reports the pivots made and whether the basis is optimal.
// The row that leaves is the most infeasible basic value relative to its
// weight; Harris's ratio test picks who enters. Each pivot costs one
// BTRAN, one product with B, and two FTRANs (the entering column and the
// weights' update).
//
// Ties among the reduced costs make pivots degenerate (the duals do not
// move); once shiftAfter of them have been made, dual shifts the costs
// (shift, at the top of a pivot, never between its ratio test and its
// update) and solves the shifted LP, whose reduced costs no longer tie.
// simplex removes the shifts afterwards and mends the reduced costs that
// their removal leaves negative with the parametric method.
func (sw *spxWork) dual(b *matB, maxPivots int, ptol, dtol float64) (pivots int, ok bool) {
	l := b.l
	N := sw.n
	sw.beta = grow(sw.beta, N)
	sw.tau = grow(sw.tau, N)
	for p := range sw.beta[:N] {
		sw.beta[p] = 1
	}
	clear(sw.xh[:N])
	clear(sw.dh)
	degenerate := 0
	for {
		if degenerate >= shiftAfter && !sw.shifted {
			sw.shift(l)
		}
		r, best := -1, 0.0
		for p, q := range sw.basis[:N] {
			if xb := sw.xb[p]; q != l && xb < -ptol {
				if s := xb * xb / sw.beta[p]; s > best {
					r, best = p, s
				}
			}
		}
		if r < 0 {
			return pivots, true
		}
		if pivots >= maxPivots || isClosed(sw.done) {
			return pivots, false
		}
		sw.pivotRow(b, r)
		q := sw.ratioDual(0, dtol)
		if q < 0 {
			return pivots, false // a game's LP is never infeasible: numerical trouble
		}
		if sw.db[q] <= dtol {
			degenerate++ // a degenerate pivot: the duals do not move
		}
		// The entering column and the weights' update in one solve.
		sw.column(b, q)
		sw.solve2(sw.col, sw.rho, sw.alpha, sw.tau)
		ar := sw.alpha[r]
		var br float64
		for _, v := range sw.rho[:N] {
			br += v * v
		}
		pivots++
		drifted := !sw.pivotOK(r, q)
		if !sw.exchange(b, r, q) {
			return pivots, false
		}
		if drifted {
			continue
		}
		for p, al := range sw.alpha {
			if p != r && al != 0 {
				t := al / ar
				sw.beta[p] = math.Max(sw.beta[p]-2*t*sw.tau[p]+t*t*br, 1e-6)
			}
		}
		sw.beta[r] = math.Max(br/(ar*ar), 1e-6)
	}
}
