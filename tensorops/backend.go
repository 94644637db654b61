// Package tensorops defines the backend contract of the gpump solver and
// implements it on the CPU.
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
//     better for the player owning the block). Each block lives in a Set:
//     the probability simplex (entropic or Euclidean), a box or a ball;
//     with linear terms (ProxBlock.Lin, AvgBlock.Lin) the same operations
//     serve any bilinear saddle-point problem over such sets.
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

// Setup is the geometry of one strategy block: its feasible set and the
// distance-generating function R of the prox-mappings.
type Setup int

const (
	// Entropic is the probability simplex with R(z) = Σ z log z. Its points
	// are held as log-weights (Point.State) with the probabilities
	// materialized beside them (Point.Value); probabilities below 1e-300
	// are materialized as 0. Norm l1, dual norm l∞, divergence KL(z‖c).
	Entropic Setup = iota
	// Euclidean is the probability simplex with R(z) = ½‖z‖². State and
	// Value are the same vector. Norm and dual norm l2, divergence
	// ½‖z − c‖².
	Euclidean
	// Box is {z : Lo ≤ z ≤ Hi} (Set.Lo, Set.Hi) with R(z) = ½‖z‖². State and
	// Value are the same vector. Norm and dual norm l2, divergence
	// ½‖z − c‖².
	Box
	// Ball is {z : ‖z − Center‖₂ ≤ Radius} (Set.Center, Set.Radius) with
	// R(z) = ½‖z − Center‖². State and Value are the same vector. Norm and
	// dual norm l2, divergence ½‖z − c‖².
	Ball
)

// String returns "entropic", "euclidean", "box" or "ball".
func (s Setup) String() string {
	switch s {
	case Entropic:
		return "entropic"
	case Euclidean:
		return "euclidean"
	case Box:
		return "box"
	case Ball:
		return "ball"
	}
	return "unknown"
}

// Set is one block's feasible set with its distance-generating function.
// The vectors belong to the backend the Set is used with and have the
// block's length; they are read, never written. Only what the set needs is
// looked at: the simplex setups need nothing beyond Setup.
type Set struct {
	Setup Setup
	// Lo and Hi are a Box's bounds: finite, Lo_i ≤ Hi_i (not checked: an
	// O(n) scan).
	Lo, Hi Vector
	// Center is a Ball's centre.
	Center Vector
	// Radius is a Ball's radius: finite and ≥ 0.
	Radius float64
}

// Point is one block's iterate: State is what the prox-mapping works on
// (log-weights for Entropic), Value the point itself (probabilities). For
// every setup but Entropic, State and Value must be the same Vector.
type Point struct {
	State, Value Vector
}

// ProxBlock names one block's vectors at the end of a mirror-prox trial:
// y is y_{t−1}, x the extrapolated point x_t, YNew the
// candidate y_t, M = F(y_{t−1}) and G = F(x_t) restricted to the block. The
// running averages of x and of g are read from AvgX and AvgG and the updated
// averages written to NewAvgX and NewAvgG (which must not alias them), so that a
// rejected trial (backtracking) leaves the averages untouched. Lin, when not
// nil, is the block's linear term: the stats report ⟨Lin, x_t⟩ and ⟨Lin,
// NewAvgX⟩.
type ProxBlock struct {
	Set              Set
	Y, X, YNew       Point
	M, G             Vector
	Lin              Vector
	AvgX, AvgG       Vector
	NewAvgX, NewAvgG Vector
}

// GapStats are the per-block quantities the duality gap needs: the minimum
// over the block's set Z of ⟨g, z⟩ for the current operator value and for
// its running average, and the linear term at the current point and at its
// running average. On the simplex min_z ⟨g, z⟩ = min_i g_i: for the row
// block of a matrix game g = −A q, so −MinG = max_i (A q)_i; for the column
// block g = Aᵀ p and MinG = min_j (Aᵀ p)_j. On a box it is Σ_i min(g_i Lo_i,
// g_i Hi_i), on a ball ⟨g, Center⟩ − Radius ‖g‖₂.
type GapStats struct {
	MinG    float64 // min_{z ∈ Z} ⟨g, z⟩ of the current operator value
	MinAvgG float64 // the same for the (updated) running average of g
	LinX    float64 // ⟨Lin, x⟩ at the current point (0 without Lin)
	LinAvgX float64 // ⟨Lin, updated running average of x⟩ (0 without Lin or AvgX)
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

// AvgBlock names one block's vectors for Average: its set, the current point
// X, its operator value G, its linear term Lin, and the running averages
// updated in place. AvgX and AvgG may be nil to skip averaging (without AvgG
// MinAvgG is NaN), Lin to skip the linear term; X may be nil when neither
// AvgX nor Lin is given.
type AvgBlock struct {
	Set        Set
	X, G       Vector
	Lin        Vector
	AvgX, AvgG Vector
}

// Backend is the contract every execution path implements.
type Backend interface {
	// Name identifies the backend ("cpu", "cuda").
	Name() string

	// NewMatrix places a 2-D float64 or float32 tensor on the backend. The
	// CPU backend aliases the tensor's backing slice (no copy): the caller
	// must not modify it while the Matrix is in use. Entries are not checked
	// here.
	NewMatrix(a *tensor.Dense) (Matrix, error)
	// SetMatrix replaces dst's entries with src's: a tensor of dst's shape
	// and storage type that CheckMatrix accepts, else an error. From then on
	// dst computes with the new entries; a Transpose made before is a copy
	// and keeps the old ones. The CPU backend aliases src's backing slice
	// (no copy, no allocation), with the same duty for the caller as
	// NewMatrix; a device backend copies src into dst's existing memory. It
	// waits for the work in flight that reads dst.
	SetMatrix(dst Matrix, src *tensor.Dense) error
	// Transpose returns a new matrix holding Aᵀ (n×m, the same storage type)
	// on this backend, made on the backend (no copy through the host). Free
	// it like any matrix.
	Transpose(a Matrix) (Matrix, error)
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
	// SampledOperator sets fp = −(1/b) Σ_k A e_{j_k} and fq = (1/b) Σ_k
	// Aᵀ e_{i_k}, an unbiased estimate of (−A q, Aᵀ p) (the sampled oracle of
	// Juditsky, Nemirovski and Tauvel), reading b columns and b rows of A
	// instead of all of it. at, when not nil, is Transpose(a): the sampled
	// columns are then read as contiguous rows of Aᵀ. Index selection: with
	// S the running sum of max(w_i, 0) over the weights w (q for columns, p
	// for rows) in increasing index order and T its total, uniform u
	// (DrawUniform, k < b for the columns, b ≤ k < 2b for the rows) selects
	// the smallest i with u·T < S_i (so a zero weight is never drawn), or
	// the last index of positive weight when rounding leaves none. A weight
	// vector with no positive finite total makes the output drawn from it
	// NaN (fp for q, fq for p). The order of the sums is the backend's; the
	// indices are the same on every backend wherever no u·T is within
	// rounding of an S_i. fp and fq must not alias p or q.
	SampledOperator(fp, fq Vector, a, at Matrix, p, q Vector, d Draw)

	// Start sets dst to the prox centre argmin R over the set: the uniform
	// distribution for both simplex setups, clip(0, Lo, Hi) for a box,
	// Center for a ball.
	Start(dst Point, s Set)
	// Prox sets dst = P_center(eta g) = argmin_{z ∈ Z} ⟨eta g, z⟩ + D(z,
	// center): for a box clip(c − eta g, Lo, Hi), for a ball Center plus the
	// projection of c − eta g − Center onto the ball of radius Radius
	// around 0 (c the centre's Value). dst must not alias center or the
	// set's vectors.
	Prox(dst, center Point, g Vector, eta float64, s Set)
	// ProxStats computes the scalars of a mirror-prox trial for every block
	// and writes the running averages updated with weight fraction w
	// (avg + w (x − avg)) to NewAvgX and NewAvgG. len(dst) == len(blocks);
	// the blocks may have different sets.
	ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error
	// Average updates each block's running averages in place with weight
	// fraction w (skipping nil ones) and returns the gap quantities of the
	// current and averaged operator values. len(dst) == len(blocks).
	Average(dst []GapStats, w float64, blocks []AvgBlock) error
	// RegretMatch performs one regret-matching+ update of one player (the
	// RM+ and PRM+ baselines). u is the player's utility vector (larger is
	// better) scaled by sign; with v = ⟨x, sign·u⟩ and the instantaneous
	// regret ρ = sign·u − v:
	//	r ← max(r + ρ, 0)
	//	x ← normalize(r)                 (predictive false: RM+)
	//	x ← normalize(max(r + ρ, 0))     (predictive true: PRM+, prediction ρ)
	// where normalize leaves x unchanged when the vector's sum is at most
	// tiny: a regret vector that is rounding noise must not become a
	// strategy.
	RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool)
}
