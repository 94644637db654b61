package tensorops

import "gorgonia.org/tensor"

// Batched is the capability of a backend to advance many games of one shape
// with one call per operation: one kernel launch per operation for the
// whole batch on a device, the games spread over the workers on the CPU.
// The solver finds it by type assertion and drives a batch in lockstep with
// it, each game keeping its own step sizes and stopping decision (its own
// scalars, passed as per-game slices).
//
// Conventions, beyond those of Backend:
//   - A batch of B games of shape m×n is a BatchMatrix: a contiguous
//     (B, m, n) tensor. A batch vector of block length n is a plain Vector of
//     length B·n whose k-th run of n elements belongs to game k; GameVector
//     and GameMatrix view one game's part as an ordinary Vector or Matrix,
//     usable with every Backend operation.
//   - A Selection names the games an operation works on (the games still
//     running), by index in the batch. An operation reads and writes only
//     the selected games' parts. Per-game scalars (step sizes, averaging
//     weights) are slices of length Selection.Len(), in selection order, and
//     so are the per-game results.
//   - Every batch vector passed with a Selection of a batch of B games has
//     length B·n for its block's n. Batched prox-mappings and statistics take
//     the simplex setups (Entropic, Euclidean) and no linear term: batched
//     games are matrix games.
//   - Each game's results are those of the single-game operation on its
//     views, to rounding; on the CPU, bitwise those of a single-threaded
//     backend.
type Batched interface {
	Backend
	// NewBatchMatrix places a contiguous row-major float64 or float32
	// tensor of shape (B, m, n) on the backend; the CPU backend aliases it
	// (the caller must not modify it while the matrix is in use). Entries
	// are not checked.
	NewBatchMatrix(a *tensor.Dense) (BatchMatrix, error)
	// GameMatrix returns a view of game k's m×n matrix, valid while a is;
	// freeing it does nothing.
	GameMatrix(a BatchMatrix, k int) Matrix
	// GameVector returns a view of v's elements [k·n, (k+1)·n), valid
	// while v is; freeing it does nothing.
	GameVector(v Vector, n, k int) Vector
	// NewSelection returns a selection over a batch of b games, selecting
	// none.
	NewSelection(b int) (Selection, error)
	// Select makes games (distinct indices in [0, B), any order) the
	// selection. It waits for the work in flight that uses sel.
	Select(sel Selection, games []int) error

	// BatchOperator is Operator for every selected game k: fp_k = −A_k q_k,
	// fq_k = A_kᵀ p_k.
	BatchOperator(fp, fq Vector, a BatchMatrix, p, q Vector, sel Selection)
	// BatchMulVec is MulVec for every selected game: dst_k = A_k q_k.
	BatchMulVec(dst Vector, a BatchMatrix, q Vector, sel Selection)
	// BatchMulTVec is MulTVec for every selected game: dst_k = A_kᵀ p_k.
	BatchMulTVec(dst Vector, a BatchMatrix, p Vector, sel Selection)
	// BatchCopy is Copy for every selected game.
	BatchCopy(dst, src Vector, sel Selection)
	// BatchAxpby is Axpby for every selected game, with its own alpha and
	// beta (alpha[i], beta[i] for the i-th selected game).
	BatchAxpby(dst Vector, alpha []float64, x Vector, beta []float64, y Vector, sel Selection)
	// BatchProx is Prox on the simplex setup s for every selected game,
	// with its own step eta[i].
	BatchProx(dst, center Point, g Vector, eta []float64, s Setup, sel Selection)
	// BatchProxStats is ProxStats for every selected game with its own
	// weight fraction w[i]: dst[i·len(blocks)+j] receives block j of the
	// i-th selected game. The blocks' vectors are batch vectors.
	BatchProxStats(dst []BlockStats, w []float64, blocks []ProxBlock, sel Selection) error
	// BatchAverage is Average for every selected game with its own weight
	// fraction w[i]: dst[i·len(blocks)+j] receives block j of the i-th
	// selected game.
	BatchAverage(dst []GapStats, w []float64, blocks []AvgBlock, sel Selection) error
	// BatchRegretMatch is RegretMatch for every selected game, with its own
	// sign[i] and tiny[i] (the sign carries the game's scaling of its
	// utilities).
	BatchRegretMatch(x, r, u Vector, sign, tiny []float64, predictive bool, sel Selection)
}

// BatchMatrix is a batch of B payoff matrices of one shape held by a
// backend. Free it like a matrix.
type BatchMatrix interface {
	// Dims returns the number of games and each one's rows and columns.
	Dims() (b, m, n int)
	// Precision returns the storage type.
	Precision() Precision
}

// Selection is a set of games of a batch that batched operations work on.
// Free it like a vector.
type Selection interface {
	// Games returns the number of games B of the batch it selects from.
	Games() int
	// Len returns the number of games selected.
	Len() int
}
