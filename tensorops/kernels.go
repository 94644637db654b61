package tensorops

// Dense row kernels for the operator evaluation of matrix games.
//
// One operator evaluation streams the payoff matrix A from memory once and
// computes A q and Aᵀ p in the same pass. The kernels below work on groups
// of eight or four rows (or a single leftover row): for every column they
// load the matrix entries once and use them both for the row dot products
// (A q) and for the column update s += Σ_k p_k a_k (Aᵀ p). The work is bound
// by memory bandwidth, so the only goals are to touch each matrix element
// exactly once, to keep enough rows in flight for the memory system, and to
// never let arithmetic be the bottleneck.
//
// Every operation has a checked entry point (fused8F64, dot1F32, ...) that
// validates the slice lengths once and then calls the implementation chosen
// at program start (see kernelName). Implementations receive arguments that
// are already validated and must not read or write outside the described
// ranges; the amd64 implementations are hand-written assembly.

import (
	"fmt"
	"os"
)

// kernelSet is one implementation of every dense row kernel. The functions
// assume their arguments have been validated by the checked entry points:
// len(a) >= 7*lda+n (8-row forms), len(a) >= 3*lda+n (4-row forms) or
// len(a) >= n (1-row forms), lda >= n, len(q) >= n, len(s) >= n, and
// non-nil p and dots.
type kernelSet struct {
	name string

	fused8F64 func(a []float64, lda, n int, q, s []float64, p, dots *[8]float64)
	dot8F64   func(a []float64, lda, n int, q []float64, dots *[8]float64)
	axpy8F64  func(a []float64, lda, n int, s []float64, p *[8]float64)
	fused8F32 func(a []float32, lda, n int, q, s []float64, p, dots *[8]float64)
	dot8F32   func(a []float32, lda, n int, q []float64, dots *[8]float64)
	axpy8F32  func(a []float32, lda, n int, s []float64, p *[8]float64)

	fused4F64 func(a []float64, lda, n int, q, s []float64, p, dots *[4]float64)
	fused1F64 func(a []float64, n int, q, s []float64, p float64) float64
	dot4F64   func(a []float64, lda, n int, q []float64, dots *[4]float64)
	dot1F64   func(a []float64, n int, q []float64) float64
	axpy4F64  func(a []float64, lda, n int, s []float64, p *[4]float64)
	axpy1F64  func(a []float64, n int, s []float64, p float64)

	fused4F32 func(a []float32, lda, n int, q, s []float64, p, dots *[4]float64)
	fused1F32 func(a []float32, n int, q, s []float64, p float64) float64
	dot4F32   func(a []float32, lda, n int, q []float64, dots *[4]float64)
	dot1F32   func(a []float32, n int, q []float64) float64
	axpy4F32  func(a []float32, lda, n int, s []float64, p *[4]float64)
	axpy1F32  func(a []float32, n int, s []float64, p float64)
}

// genericKernels is the portable implementation. It is the only one on
// non-amd64 machines and the reference the assembly is tested against.
var genericKernels = kernelSet{
	name: "generic",

	fused8F64: fused8Halves(fused4F64Generic),
	dot8F64:   dot8Halves(dot4F64Generic),
	axpy8F64:  axpy8Halves(axpy4F64Generic),
	fused8F32: fused8Halves(fused4F32Generic),
	dot8F32:   dot8Halves(dot4F32Generic),
	axpy8F32:  axpy8Halves(axpy4F32Generic),

	fused4F64: fused4F64Generic,
	fused1F64: fused1F64Generic,
	dot4F64:   dot4F64Generic,
	dot1F64:   dot1F64Generic,
	axpy4F64:  axpy4F64Generic,
	axpy1F64:  axpy1F64Generic,

	fused4F32: fused4F32Generic,
	fused1F32: fused1F32Generic,
	dot4F32:   dot4F32Generic,
	dot1F32:   dot1F32Generic,
	axpy4F32:  axpy4F32Generic,
	axpy1F32:  axpy1F32Generic,
}

// kernelsEnv names the environment variable that forces an implementation
// (generic, avx2 or avx512) so that the paths can be compared from the shell.
const kernelsEnv = "GPUMP_KERNELS"

// active is the implementation used by the checked entry points. It is a
// package-level variable rather than being set in init so that other
// package-level initializers that call the kernels see it already chosen.
var active = selectKernels(availableKernels(), os.Getenv(kernelsEnv))

// selectKernels returns the implementation named want if it is in avail,
// and otherwise (want empty, unknown or unsupported by this CPU) the best
// one, avail[0]. An unavailable request is not an error: the same binary and
// scripts must run on machines without AVX-512.
func selectKernels(avail []*kernelSet, want string) *kernelSet {
	for _, k := range avail {
		if k.name == want {
			return k
		}
	}
	return avail[0]
}

// kernelName returns the name of the implementation in use: "avx512",
// "avx2" or "generic".
func kernelName() string { return active.name }

// fused8F64 computes, for the eight rows a[k*lda : k*lda+n] (k = 0..7),
// dots[k] = Σ_j a[k*lda+j]*q[j] and adds Σ_k p[k]*a[k*lda+j] to s[j] for
// j < n. It panics if n < 0, lda < n, len(a) < 7*lda+n, len(q) < n,
// len(s) < n, or p or dots is nil.
func fused8F64(a []float64, lda, n int, q, s []float64, p *[8]float64, dots *[8]float64) {
	checkRows("fused8F64", 8, len(a), lda, n)
	checkVec("fused8F64", "q", len(q), n)
	checkVec("fused8F64", "s", len(s), n)
	checkPtr("fused8F64", "p", p == nil)
	checkPtr("fused8F64", "dots", dots == nil)
	active.fused8F64(a, lda, n, q, s, p, dots)
}

// dot8F64 sets dots[k] = Σ_j a[k*lda+j]*q[j] for k = 0..7, j < n. It
// panics if n < 0, lda < n, len(a) < 7*lda+n, len(q) < n, or dots is nil.
func dot8F64(a []float64, lda, n int, q []float64, dots *[8]float64) {
	checkRows("dot8F64", 8, len(a), lda, n)
	checkVec("dot8F64", "q", len(q), n)
	checkPtr("dot8F64", "dots", dots == nil)
	active.dot8F64(a, lda, n, q, dots)
}

// axpy8F64 adds Σ_k p[k]*a[k*lda+j] (k = 0..7) to s[j] for j < n. It
// panics if n < 0, lda < n, len(a) < 7*lda+n, len(s) < n, or p is nil.
func axpy8F64(a []float64, lda, n int, s []float64, p *[8]float64) {
	checkRows("axpy8F64", 8, len(a), lda, n)
	checkVec("axpy8F64", "s", len(s), n)
	checkPtr("axpy8F64", "p", p == nil)
	active.axpy8F64(a, lda, n, s, p)
}

// fused8F32 is fused8F64 for a float32 matrix (float64 arithmetic). It
// panics on the same conditions as fused8F64.
func fused8F32(a []float32, lda, n int, q, s []float64, p *[8]float64, dots *[8]float64) {
	checkRows("fused8F32", 8, len(a), lda, n)
	checkVec("fused8F32", "q", len(q), n)
	checkVec("fused8F32", "s", len(s), n)
	checkPtr("fused8F32", "p", p == nil)
	checkPtr("fused8F32", "dots", dots == nil)
	active.fused8F32(a, lda, n, q, s, p, dots)
}

// dot8F32 is dot8F64 for a float32 matrix (float64 arithmetic). It panics
// on the same conditions as dot8F64.
func dot8F32(a []float32, lda, n int, q []float64, dots *[8]float64) {
	checkRows("dot8F32", 8, len(a), lda, n)
	checkVec("dot8F32", "q", len(q), n)
	checkPtr("dot8F32", "dots", dots == nil)
	active.dot8F32(a, lda, n, q, dots)
}

// axpy8F32 is axpy8F64 for a float32 matrix (float64 arithmetic). It
// panics on the same conditions as axpy8F64.
func axpy8F32(a []float32, lda, n int, s []float64, p *[8]float64) {
	checkRows("axpy8F32", 8, len(a), lda, n)
	checkVec("axpy8F32", "s", len(s), n)
	checkPtr("axpy8F32", "p", p == nil)
	active.axpy8F32(a, lda, n, s, p)
}

// fused4F64 computes, for the four rows a[k*lda : k*lda+n] (k = 0..3),
// dots[k] = Σ_j a[k*lda+j]*q[j] and adds Σ_k p[k]*a[k*lda+j] to s[j] for
// j < n. It panics if n < 0, lda < n, len(a) < 3*lda+n, len(q) < n,
// len(s) < n, or p or dots is nil.
func fused4F64(a []float64, lda, n int, q, s []float64, p *[4]float64, dots *[4]float64) {
	checkRows("fused4F64", 4, len(a), lda, n)
	checkVec("fused4F64", "q", len(q), n)
	checkVec("fused4F64", "s", len(s), n)
	checkPtr("fused4F64", "p", p == nil)
	checkPtr("fused4F64", "dots", dots == nil)
	active.fused4F64(a, lda, n, q, s, p, dots)
}

// fused1F64 returns Σ_j a[j]*q[j] and adds p*a[j] to s[j] for j < n.
// It panics if n < 0 or any of a, q, s is shorter than n.
func fused1F64(a []float64, n int, q, s []float64, p float64) float64 {
	checkRow1("fused1F64", len(a), n)
	checkVec("fused1F64", "q", len(q), n)
	checkVec("fused1F64", "s", len(s), n)
	return active.fused1F64(a, n, q, s, p)
}

// dot4F64 sets dots[k] = Σ_j a[k*lda+j]*q[j] for k = 0..3, j < n. It
// panics if n < 0, lda < n, len(a) < 3*lda+n, len(q) < n, or dots is nil.
func dot4F64(a []float64, lda, n int, q []float64, dots *[4]float64) {
	checkRows("dot4F64", 4, len(a), lda, n)
	checkVec("dot4F64", "q", len(q), n)
	checkPtr("dot4F64", "dots", dots == nil)
	active.dot4F64(a, lda, n, q, dots)
}

// dot1F64 returns Σ_j a[j]*q[j] for j < n. It panics if n < 0 or a or q is
// shorter than n.
func dot1F64(a []float64, n int, q []float64) float64 {
	checkRow1("dot1F64", len(a), n)
	checkVec("dot1F64", "q", len(q), n)
	return active.dot1F64(a, n, q)
}

// axpy4F64 adds Σ_k p[k]*a[k*lda+j] to s[j] for j < n. It panics if n < 0,
// lda < n, len(a) < 3*lda+n, len(s) < n, or p is nil.
func axpy4F64(a []float64, lda, n int, s []float64, p *[4]float64) {
	checkRows("axpy4F64", 4, len(a), lda, n)
	checkVec("axpy4F64", "s", len(s), n)
	checkPtr("axpy4F64", "p", p == nil)
	active.axpy4F64(a, lda, n, s, p)
}

// axpy1F64 adds p*a[j] to s[j] for j < n. It panics if n < 0 or a or s is
// shorter than n.
func axpy1F64(a []float64, n int, s []float64, p float64) {
	checkRow1("axpy1F64", len(a), n)
	checkVec("axpy1F64", "s", len(s), n)
	active.axpy1F64(a, n, s, p)
}

// fused4F32 is fused4F64 for a float32 matrix: every matrix element is
// converted to float64 before it is used, and all arithmetic is float64.
// It panics on the same conditions as fused4F64.
func fused4F32(a []float32, lda, n int, q, s []float64, p *[4]float64, dots *[4]float64) {
	checkRows("fused4F32", 4, len(a), lda, n)
	checkVec("fused4F32", "q", len(q), n)
	checkVec("fused4F32", "s", len(s), n)
	checkPtr("fused4F32", "p", p == nil)
	checkPtr("fused4F32", "dots", dots == nil)
	active.fused4F32(a, lda, n, q, s, p, dots)
}

// fused1F32 is fused1F64 for a float32 row (float64 arithmetic). It panics
// on the same conditions as fused1F64.
func fused1F32(a []float32, n int, q, s []float64, p float64) float64 {
	checkRow1("fused1F32", len(a), n)
	checkVec("fused1F32", "q", len(q), n)
	checkVec("fused1F32", "s", len(s), n)
	return active.fused1F32(a, n, q, s, p)
}

// dot4F32 is dot4F64 for a float32 matrix (float64 arithmetic). It panics
// on the same conditions as dot4F64.
func dot4F32(a []float32, lda, n int, q []float64, dots *[4]float64) {
	checkRows("dot4F32", 4, len(a), lda, n)
	checkVec("dot4F32", "q", len(q), n)
	checkPtr("dot4F32", "dots", dots == nil)
	active.dot4F32(a, lda, n, q, dots)
}

// dot1F32 is dot1F64 for a float32 row (float64 arithmetic). It panics on
// the same conditions as dot1F64.
func dot1F32(a []float32, n int, q []float64) float64 {
	checkRow1("dot1F32", len(a), n)
	checkVec("dot1F32", "q", len(q), n)
	return active.dot1F32(a, n, q)
}

// axpy4F32 is axpy4F64 for a float32 matrix (float64 arithmetic). It
// panics on the same conditions as axpy4F64.
func axpy4F32(a []float32, lda, n int, s []float64, p *[4]float64) {
	checkRows("axpy4F32", 4, len(a), lda, n)
	checkVec("axpy4F32", "s", len(s), n)
	checkPtr("axpy4F32", "p", p == nil)
	active.axpy4F32(a, lda, n, s, p)
}

// axpy1F32 is axpy1F64 for a float32 row (float64 arithmetic). It panics
// on the same conditions as axpy1F64.
func axpy1F32(a []float32, n int, s []float64, p float64) {
	checkRow1("axpy1F32", len(a), n)
	checkVec("axpy1F32", "s", len(s), n)
	active.axpy1F32(a, n, s, p)
}

// checkRows panics unless a slice of length lenA holds rows (4 or 8) rows
// of n elements spaced lda apart. The last row ends at (rows-1)*lda+n,
// which is written as a division so that a huge lda cannot overflow the
// check.
func checkRows(op string, rows, lenA, lda, n int) {
	if n < 0 || lda < n || lenA < n || (lenA-n)/(rows-1) < lda {
		panicRows(op, rows, lenA, lda, n)
	}
}

// checkRow1 panics unless a slice of length lenA holds one row of n >= 0
// elements.
func checkRow1(op string, lenA, n int) {
	if n < 0 || lenA < n {
		panicShort(op, "a", lenA, n)
	}
}

// checkVec panics if the vector called name is shorter than n.
func checkVec(op, name string, length, n int) {
	if length < n {
		panicShort(op, name, length, n)
	}
}

// checkPtr panics if the pointer argument called name is nil; the
// assembly would otherwise fault on it.
func checkPtr(op, name string, isNil bool) {
	if isNil {
		panic("tensorops: " + op + ": " + name + " is nil")
	}
}

// The panic helpers are kept out of line so that formatting the message
// cannot make the checks allocate or stop them from being inlined.

//go:noinline
func panicRows(op string, rows, lenA, lda, n int) {
	switch {
	case n < 0:
		panic(fmt.Sprintf("tensorops: %s: negative n=%d", op, n))
	case lda < n:
		panic(fmt.Sprintf("tensorops: %s: lda=%d < n=%d", op, lda, n))
	default:
		panic(fmt.Sprintf("tensorops: %s: len(a)=%d < %d*lda+n (lda=%d, n=%d)", op, lenA, rows-1, lda, n))
	}
}

//go:noinline
func panicShort(op, name string, length, n int) {
	if n < 0 {
		panic(fmt.Sprintf("tensorops: %s: negative n=%d", op, n))
	}
	panic(fmt.Sprintf("tensorops: %s: len(%s)=%d < n=%d", op, name, length, n))
}

// fused8Halves, dot8Halves and axpy8Halves make an 8-row kernel of a 4-row
// one for the generic implementation, where more rows per call would not
// help: rows 0..3 and then rows 4..7, each matrix element still read once.
func fused8Halves[T float32 | float64](f func(a []T, lda, n int, q, s []float64, p, dots *[4]float64)) func(a []T, lda, n int, q, s []float64, p, dots *[8]float64) {
	return func(a []T, lda, n int, q, s []float64, p, dots *[8]float64) {
		f(a, lda, n, q, s, (*[4]float64)(p[:4]), (*[4]float64)(dots[:4]))
		f(a[4*lda:], lda, n, q, s, (*[4]float64)(p[4:]), (*[4]float64)(dots[4:]))
	}
}

func dot8Halves[T float32 | float64](f func(a []T, lda, n int, q []float64, dots *[4]float64)) func(a []T, lda, n int, q []float64, dots *[8]float64) {
	return func(a []T, lda, n int, q []float64, dots *[8]float64) {
		f(a, lda, n, q, (*[4]float64)(dots[:4]))
		f(a[4*lda:], lda, n, q, (*[4]float64)(dots[4:]))
	}
}

func axpy8Halves[T float32 | float64](f func(a []T, lda, n int, s []float64, p *[4]float64)) func(a []T, lda, n int, s []float64, p *[8]float64) {
	return func(a []T, lda, n int, s []float64, p *[8]float64) {
		f(a, lda, n, s, (*[4]float64)(p[:4]))
		f(a[4*lda:], lda, n, s, (*[4]float64)(p[4:]))
	}
}

// The generic kernels re-slice every operand to exactly n elements before
// their loops so that the compiler can prove all indexes in range and drop
// the per-element bounds checks.

func fused4F64Generic(a []float64, lda, n int, q, s []float64, p, dots *[4]float64) {
	q = q[:n]
	s = s[:len(q)]
	a0 := a[:len(q)]
	a1 := a[lda:][:len(q)]
	a2 := a[2*lda:][:len(q)]
	a3 := a[3*lda:][:len(q)]
	p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
	var d0, d1, d2, d3 float64
	for j, qj := range q {
		x0, x1, x2, x3 := a0[j], a1[j], a2[j], a3[j]
		d0 += x0 * qj
		d1 += x1 * qj
		d2 += x2 * qj
		d3 += x3 * qj
		s[j] += p0*x0 + p1*x1 + p2*x2 + p3*x3
	}
	*dots = [4]float64{d0, d1, d2, d3}
}

func fused1F64Generic(a []float64, n int, q, s []float64, p float64) float64 {
	q = q[:n]
	s = s[:len(q)]
	a = a[:len(q)]
	var d float64
	for j, qj := range q {
		x := a[j]
		d += x * qj
		s[j] += p * x
	}
	return d
}

func dot4F64Generic(a []float64, lda, n int, q []float64, dots *[4]float64) {
	q = q[:n]
	a0 := a[:len(q)]
	a1 := a[lda:][:len(q)]
	a2 := a[2*lda:][:len(q)]
	a3 := a[3*lda:][:len(q)]
	var d0, d1, d2, d3 float64
	for j, qj := range q {
		d0 += a0[j] * qj
		d1 += a1[j] * qj
		d2 += a2[j] * qj
		d3 += a3[j] * qj
	}
	*dots = [4]float64{d0, d1, d2, d3}
}

func dot1F64Generic(a []float64, n int, q []float64) float64 {
	q = q[:n]
	a = a[:len(q)]
	var d float64
	for j, qj := range q {
		d += a[j] * qj
	}
	return d
}

func axpy4F64Generic(a []float64, lda, n int, s []float64, p *[4]float64) {
	s = s[:n]
	a0 := a[:len(s)]
	a1 := a[lda:][:len(s)]
	a2 := a[2*lda:][:len(s)]
	a3 := a[3*lda:][:len(s)]
	p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
	for j := range s {
		s[j] += p0*a0[j] + p1*a1[j] + p2*a2[j] + p3*a3[j]
	}
}

func axpy1F64Generic(a []float64, n int, s []float64, p float64) {
	s = s[:n]
	a = a[:len(s)]
	for j := range s {
		s[j] += p * a[j]
	}
}

func fused4F32Generic(a []float32, lda, n int, q, s []float64, p, dots *[4]float64) {
	q = q[:n]
	s = s[:len(q)]
	a0 := a[:len(q)]
	a1 := a[lda:][:len(q)]
	a2 := a[2*lda:][:len(q)]
	a3 := a[3*lda:][:len(q)]
	p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
	var d0, d1, d2, d3 float64
	for j, qj := range q {
		x0, x1, x2, x3 := float64(a0[j]), float64(a1[j]), float64(a2[j]), float64(a3[j])
		d0 += x0 * qj
		d1 += x1 * qj
		d2 += x2 * qj
		d3 += x3 * qj
		s[j] += p0*x0 + p1*x1 + p2*x2 + p3*x3
	}
	*dots = [4]float64{d0, d1, d2, d3}
}

func fused1F32Generic(a []float32, n int, q, s []float64, p float64) float64 {
	q = q[:n]
	s = s[:len(q)]
	a = a[:len(q)]
	var d float64
	for j, qj := range q {
		x := float64(a[j])
		d += x * qj
		s[j] += p * x
	}
	return d
}

func dot4F32Generic(a []float32, lda, n int, q []float64, dots *[4]float64) {
	q = q[:n]
	a0 := a[:len(q)]
	a1 := a[lda:][:len(q)]
	a2 := a[2*lda:][:len(q)]
	a3 := a[3*lda:][:len(q)]
	var d0, d1, d2, d3 float64
	for j, qj := range q {
		d0 += float64(a0[j]) * qj
		d1 += float64(a1[j]) * qj
		d2 += float64(a2[j]) * qj
		d3 += float64(a3[j]) * qj
	}
	*dots = [4]float64{d0, d1, d2, d3}
}

func dot1F32Generic(a []float32, n int, q []float64) float64 {
	q = q[:n]
	a = a[:len(q)]
	var d float64
	for j, qj := range q {
		d += float64(a[j]) * qj
	}
	return d
}

func axpy4F32Generic(a []float32, lda, n int, s []float64, p *[4]float64) {
	s = s[:n]
	a0 := a[:len(s)]
	a1 := a[lda:][:len(s)]
	a2 := a[2*lda:][:len(s)]
	a3 := a[3*lda:][:len(s)]
	p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
	for j := range s {
		s[j] += p0*float64(a0[j]) + p1*float64(a1[j]) + p2*float64(a2[j]) + p3*float64(a3[j])
	}
}

func axpy1F32Generic(a []float32, n int, s []float64, p float64) {
	s = s[:n]
	a = a[:len(s)]
	for j := range s {
		s[j] += p * float64(a[j])
	}
}
