// Package polish takes an approximate equilibrium of a zero-sum matrix game
// to machine precision by support crossover.
//
// A matrix game has a payoff A (m×n); the row player p ∈ Δ_m maximizes
// pᵀAq and the column player q ∈ Δ_n minimizes it. The duality gap
// max_i (Aq)_i − min_j (Aᵀp)_j bounds the distance of both players from
// the game's value. First-order methods reach a gap of about 1e-3 of max|A|
// cheaply and then slow down; at that point the supports of p and q are
// nearly right. Polish restricts the game to those supports and the best
// responses, solves the restricted game exactly with Subgame, lifts the
// result back, certifies it with one pass over A, and grows the restriction
// by the most violated rows and columns until the full game's gap is at
// rounding level.
//
// Subgame solves the restricted games by a warm-started simplex method
// that exchanges one row or column per pivot (see Subgame for the method
// and scripts/polish_vs_highs.sh for its cost against HiGHS). What lost to
// it, measured on uniform games from RM+ points: exchanging every
// misjudged row and column at once (an active set on the equalizer
// systems, i.e. a semismooth Newton step) diverges where about a fifth of
// the support guess is wrong, since the equalizer of a wrong support is far
// off and the next guess made from it worse; even with a trust region on
// the number of exchanges it rarely converged, and nearly every solve fell
// back to the dense interior point, whose iterations each form and factor
// a normal matrix of the subgame's size. Within the simplex, an explicit
// basis inverse with rank-one updates spent most of its time refactoring
// (gonum's Dgetri costs about 2.5 times its Dgetrf) and writing the whole
// inverse at each pivot; LU factors of the kernel with product-form
// updates were several times faster, once the triangular solves went
// through Dtrsv rather than Dgetrs, whose one-column Dtrsm is slow; the
// solves blocked by 8 rows on tensorops' SIMD row kernels (tri.go) are
// 4-5 times faster again than Dtrsv's scalar loops. The active set and the
// interior point stay as fallbacks.
//
// The package reaches the full game only through the small Game interface,
// so the matrix may live anywhere (host memory in float32 or float64, or a
// device): one full pass per round computes Aq and Aᵀp, and a gather reads
// the restricted submatrix.
package polish
