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
// that exchanges one row or column per pivot (self-dual parametric, or
// dual with steepest-edge pricing, whose costs are shifted by tiny random
// amounts when ties among them make its pivots degenerate; see Subgame for
// the methods and scripts/polish_vs_highs.sh for their cost against
// HiGHS); the kernel's LU factors (a blocked LU, lu.go) take product-form updates, and
// its triangular solves run on tensorops' SIMD row kernels (tri.go).
// Repeated rows and columns are solved once (twins.go). An active set on the
// equalizer systems and a dense interior point stay as fallbacks. DESIGN.md
// (*Measurements behind the doc comments*) says what lost to the simplex.
//
// The package reaches the full game only through the small Game interface,
// so the matrix may live anywhere (host memory in float32 or float64, or a
// device): one full pass per round computes Aq and Aᵀp, and a gather reads
// the restricted submatrix.
package polish
