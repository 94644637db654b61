package tensorops

// The exported float64 row kernels: the dense row kernels of kernels.go
// for callers outside this package that do their own dense linear algebra
// (the triangular solves and products of solver/polish). They go through
// the same checked entry points, so they run on the implementation chosen
// at program start (AVX-512, AVX2 or generic; see GPUMP_KERNELS) and panic
// on the same conditions.
//
// The 8- and 4-row forms read rows a[k*lda : k*lda+n] of a row-major
// matrix with row stride lda: a block of 8 rows costs one pass over the
// vector instead of 8, which is what makes them faster than 8 single-row
// calls.
//
// None of them allocates. The implementation is called through a function
// value, however, so the arrays p and dots escape: a caller that must not
// allocate keeps them in long-lived memory (a field of its work space), not
// in a local variable, which would then be moved to the heap on every call.

// DotRows8 sets dots[k] = Σ_{j<n} a[k*lda+j]*q[j] for the eight rows
// k = 0..7. It panics if n < 0, lda < n, len(a) < 7*lda+n, len(q) < n, or
// dots is nil.
func DotRows8(a []float64, lda, n int, q []float64, dots *[8]float64) {
	dot8(a, lda, n, q, dots)
}

// DotRows4 is DotRows8 for the four rows k = 0..3. It panics if n < 0,
// lda < n, len(a) < 3*lda+n, len(q) < n, or dots is nil.
func DotRows4(a []float64, lda, n int, q []float64, dots *[4]float64) {
	dot4(a, lda, n, q, dots)
}

// Dot returns Σ_j a[j]*q[j] over j < len(a). It panics if
// len(q) < len(a).
func Dot(a, q []float64) float64 {
	return dot1(a, len(a), q)
}

// AxpyRows8 adds Σ_k p[k]*a[k*lda+j] over the eight rows k = 0..7 to s[j]
// for j < n: s += Mᵀp for the 8×n matrix M of the rows. It panics if
// n < 0, lda < n, len(a) < 7*lda+n, len(s) < n, or p is nil.
func AxpyRows8(a []float64, lda, n int, s []float64, p *[8]float64) {
	axpy8(a, lda, n, s, p)
}

// AxpyRows4 is AxpyRows8 for the four rows k = 0..3. It panics if n < 0,
// lda < n, len(a) < 3*lda+n, len(s) < n, or p is nil.
func AxpyRows4(a []float64, lda, n int, s []float64, p *[4]float64) {
	axpy4(a, lda, n, s, p)
}

// Axpy adds p*a[j] to s[j] for j < len(a). It panics if len(s) < len(a).
func Axpy(s []float64, p float64, a []float64) {
	axpy1(a, len(a), s, p)
}

// FusedRows8 computes DotRows8 and AxpyRows8 in one pass over the rows:
// it sets dots[k] = Σ_{j<n} a[k*lda+j]*q[j] and adds Σ_k p[k]*a[k*lda+j]
// to s[j] for k = 0..7, j < n, reading each element of a once. s must not
// overlap q. It panics if n < 0, lda < n, len(a) < 7*lda+n, len(q) < n,
// len(s) < n, or p or dots is nil.
func FusedRows8(a []float64, lda, n int, q, s []float64, p, dots *[8]float64) {
	fused8(a, lda, n, q, s, p, dots)
}

// FusedRows4 is FusedRows8 for the four rows k = 0..3. It panics if n < 0,
// lda < n, len(a) < 3*lda+n, len(q) < n, len(s) < n, or p or dots is nil.
func FusedRows4(a []float64, lda, n int, q, s []float64, p, dots *[4]float64) {
	fused4(a, lda, n, q, s, p, dots)
}

// FusedRow returns Σ_j a[j]*q[j] and adds p*a[j] to s[j], for j < len(a),
// reading each element of a once. s must not overlap q. It panics if q or
// s is shorter than a.
func FusedRow(a, q, s []float64, p float64) float64 {
	return fused1(a, len(a), q, s, p)
}
