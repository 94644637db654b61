// Package tensorops defines the backend contract of the gpump solver (SPEC
// section 6) and implements it on the CPU.
//
// A Backend holds a payoff matrix and float64 vectors (strategies, operator
// values, running averages) in its own memory: host memory for the CPU
// backend, device memory for the CUDA backend (build tag cuda). The solver
// drives it one operation at a time and only ever sees host scalars, so the
// step-size rules, the stopping test and the averaging weights are written once,
// in Go, for every backend.
//
// Conventions shared by every backend:
//   - The payoff matrix A is m×n, dense, row-major, stored in float64 or
//     float32. Vectors are always float64; with float32 storage every product
//     and sum is formed in float64.
//   - A game has two blocks: the row player's strategy p (length m, maximizing
//     pᵀAq) and the column player's strategy q (length n). The operator of the
//     game as a variational inequality is F(p, q) = (−A q, Aᵀ p): everything the
//     contract computes about "g" or "m" is in that convention (smaller is
//     better for the player owning the block).
//   - Operations that only launch work return nothing. Operations that bring
//     scalars or vectors back to the host (Store, ProxStats, Average) are the
//     synchronization points and return the first error raised since the
//     previous synchronization point (a CUDA backend may fail asynchronously; the
//     CPU backend never fails there).
//   - Passing a Vector or Matrix made by another backend, or vectors of the
//     wrong length, is a programmer error and panics.
//   - A Backend is used by one goroutine at a time.
package tensorops

import "gorgonia.org/tensor"

// Precision is the storage type of a payoff matrix.
type Precision int

const (
	// Float64 stores the matrix in float64.
	Float64 Precision = iota
	// Float32 stores the matrix in float32; products and sums are still
	// formed in float64.
	Float32
)

// String returns "f64" or "f32".
func (p Precision) String() string {
	switch p {
	case Float64:
		return "f64"
	case Float32:
		return "f32"
	}
	return "unknown"
}

// Matrix is a dense payoff matrix held by a backend.
type Matrix interface {
	// Dims returns the number of rows and columns.
	Dims() (m, n int)
	// Precision returns the storage type.
	Precision() Precision
}

// Vector is a float64 vector held by a backend.
type Vector interface {
	// Len returns the number of elements.
	Len() int
}

// Setup is the geometry of one strategy block (SPEC section 2). Both setups
// live on the probability simplex.
type Setup int

const (
	// Entropic is the simplex with R(z) = Σ z log z. Its points are held as
	// log-weights (Point.State) with the probabilities materialized beside
	// them (Point.Value); probabilities below 1e-300 are materialized as 0.
	// Norm l1, dual norm l∞, divergence KL(z‖c).
	Entropic Setup = iota
	// Euclidean is the simplex with R(z) = ½‖z‖². State and Value are the same
	// vector. Norm and dual norm l2, divergence ½‖z − c‖².
	Euclidean
)

// String returns "entropic" or "euclidean".
func (s Setup) String() string {
	switch s {
	case Entropic:
		return "entropic"
	case Euclidean:
		return "euclidean"
	}
	return "unknown"
}

// Point is one block's iterate: State is what the prox-mapping works on
// (log-weights for Entropic), Value the point itself (probabilities). For the
// Euclidean setup State and Value must be the same Vector.
type Point struct {
	State, Value Vector
}

// ProxBlock names one block's vectors at the end of a mirror-prox trial
// (SPEC section 3): y is y_{t−1}, x the extrapolated point x_t, YNew the
// candidate y_t, M = F(y_{t−1}) and G = F(x_t) restricted to the block. The
// running averages of x and of g are read from AvgX and AvgG and the updated
// averages written to NewAvgX and NewAvgG (which must not alias them), so that a
// rejected trial (backtracking) leaves the averages untouched.
type ProxBlock struct {
	Setup            Setup
	Y, X, YNew       Point
	M, G             Vector
	AvgX, AvgG       Vector
	NewAvgX, NewAvgG Vector
}

// GapStats are the per-block extremes the duality gap needs. For the row block
// g = −A q, so −MinG = max_i (A q)_i; for the column block g = Aᵀ p and MinG =
// min_j (Aᵀ p)_j.
type GapStats struct {
	MinG    float64 // min_i g_i of the current operator value
	MinAvgG float64 // min_i of the (updated) running average of g
}

// BlockStats are the scalars one mirror-prox trial produces for one block; the
// step rules combine the blocks (norms as the root of the sum of squares).
type BlockStats struct {
	GapStats
	DivXY     float64 // D(x_t, y_{t−1})
	DivYX     float64 // D(y_t, x_t)
	DistXY    float64 // ‖x_t − y_{t−1}‖ in the block's norm
	DistXYNew float64 // ‖x_t − y_t‖
	DualGM    float64 // ‖g_t − m_t‖_* in the block's dual norm
	InnerGM   float64 // ⟨g_t − m_t, x_t − y_t⟩
}

// AvgBlock names one block's vectors for Average: the current point X, its
// operator value G, and the running averages updated in place. AvgX and AvgG
// may be nil to skip averaging (and then MinAvgG is not computed).
type AvgBlock struct {
	X, G       Vector
	AvgX, AvgG Vector
}

// Backend is the contract every execution path implements (SPEC section 6).
type Backend interface {
	// Name identifies the backend ("cpu", "cuda").
	Name() string

	// NewMatrix places a 2-D float64 or float32 tensor on the backend. The
	// CPU backend aliases the tensor's backing slice (no copy): the caller
	// must not modify it while the Matrix is in use. Entries are not checked
	// here.
	NewMatrix(a *tensor.Dense) (Matrix, error)
	// NewVector allocates a zeroed vector of length n.
	NewVector(n int) (Vector, error)
	// Free releases vectors and matrices made by this backend. It is a no-op
	// on the CPU.
	Free(x ...any)
	// Load copies src (host memory) into dst.
	Load(dst Vector, src []float64) error
	// Store copies src into dst (host memory). It is a synchronization point.
	Store(dst []float64, src Vector) error
	// Copy sets dst = src.
	Copy(dst, src Vector)
	// Axpby sets dst = alpha x + beta y; dst may alias x or y.
	Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector)

	// Operator sets fp = −A q and fq = Aᵀ p, the game operator F(p, q), in one
	// pass over A.
	Operator(fp, fq Vector, a Matrix, p, q Vector)
	// MulVec sets dst = A q (one pass over A).
	MulVec(dst Vector, a Matrix, q Vector)
	// MulTVec sets dst = Aᵀ p (one pass over A).
	MulTVec(dst Vector, a Matrix, p Vector)

	// Start sets dst to the prox centre argmin R of the setup: the uniform
	// distribution for both simplex setups.
	Start(dst Point, s Setup)
	// Prox sets dst = P_center(eta g) = argmin_z ⟨eta g, z⟩ + D(z, center).
	// dst must not alias center.
	Prox(dst, center Point, g Vector, eta float64, s Setup)
	// ProxStats computes the scalars of a mirror-prox trial for every block
	// and writes the running averages updated with weight fraction w
	// (avg + w (x − avg)) to NewAvgX and NewAvgG. len(dst) == len(blocks).
	ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error
	// Average updates each block's running averages in place with weight
	// fraction w (skipping nil ones) and returns the extremes of the current
	// and averaged operator values. len(dst) == len(blocks).
	Average(dst []GapStats, w float64, blocks []AvgBlock) error
	// RegretMatch performs one regret-matching+ update of one player (SPEC
	// section 3, baselines). u is the player's utility vector (larger is
	// better) scaled by sign; with v = ⟨x, sign·u⟩ and the instantaneous
	// regret ρ = sign·u − v:
	//	r ← max(r + ρ, 0)
	//	x ← normalize(r)                 (predictive false: RM+)
	//	x ← normalize(max(r + ρ, 0))     (predictive true: PRM+, prediction ρ)
	// where normalize leaves x unchanged when the vector's sum is at most
	// tiny: a regret vector that is rounding noise must not become a strategy
	// (SPEC section 5).
	RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool)
}
