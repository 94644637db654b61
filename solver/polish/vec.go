package polish

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/gpump/gpump/tensorops"
)

// Vector and slice helpers of the package's solvers.

// mulBoth computes r = a y and c = aᵀx for the k×l matrix a in one sweep:
// by blocks of 8 rows with tensorops' fused kernel, which reads each entry
// once for both products (a block whose x is all zero takes the dot
// products alone).
func mulBoth(a []float64, k, l int, x, y, r, c []float64) {
	c = c[:l]
	clear(c)
	i := 0
	for ; i+8 <= k; i += 8 {
		// x and r serve as the kernels' 8-entry arrays in place.
		xb, rb := (*[8]float64)(x[i:i+8]), (*[8]float64)(r[i:i+8])
		if *xb == ([8]float64{}) {
			tensorops.DotRows8(a[i*l:], l, l, y, rb)
		} else {
			tensorops.FusedRows8(a[i*l:], l, l, y, c, xb, rb)
		}
	}
	for ; i < k; i++ {
		row := a[i*l : (i+1)*l]
		if x[i] != 0 {
			r[i] = tensorops.FusedRow(row, y, c, x[i])
		} else {
			r[i] = tensorops.Dot(row, y)
		}
	}
}

// dot returns aᵀb over len(a) entries.
func dot(a, b []float64) float64 { return tensorops.Dot(a, b) }

// axpy adds alpha·x to dst.
func axpy(dst []float64, alpha float64, x []float64) { tensorops.Axpy(dst, alpha, x) }

// normalize clips negative and non-finite entries to zero and scales x
// to sum 1; an x without positive entries becomes uniform. Entries whose
// sum overflows are first divided by the largest.
func normalize(x []float64) {
	s := 0.0
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 1) {
			x[i] = 0
		}
		s += x[i]
	}
	if s == 0 {
		for i := range x {
			x[i] = 1 / float64(len(x))
		}
		return
	}
	if math.IsInf(s, 1) {
		m := slices.Max(x)
		s = 0
		for i := range x {
			x[i] /= m
			s += x[i]
		}
	}
	for i := range x {
		x[i] /= s
	}
}

// positives counts the positive entries of x.
func positives(x []float64) int {
	n := 0
	for _, v := range x {
		if v > 0 {
			n++
		}
	}
	return n
}

func argmax(x []float64) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}

// zobrist returns n pseudo-random keys from a fixed splitmix64 sequence.
func zobrist(n int, seed uint64) []uint64 {
	k := make([]uint64, n)
	s := seed * 0x9e3779b97f4a7c15
	for i := range k {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		k[i] = z ^ (z >> 31)
	}
	return k
}

// grow returns s with length n, reallocated only when too short. A new
// slice gets a quarter more capacity than asked: a polish round adds rows
// and columns, and the subgame's and the basis factors' buffers then grow a
// little at a time; reallocating each to its exact size would leave a
// buffer of garbage per round (at 4000×4000, 250 MB over a solve). Capacity
// that is never written costs no resident memory.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

// growLarge is grow for a buffer of n float64 that may be large. From 8 MiB
// up it collects garbage first: the previous round's or factorization's
// (gonum's blocked LU allocates as it runs) is then reused instead of
// growing the heap to twice its live size, which is what bounds the peak
// memory of a large polish. When the buffer must be reallocated, its old
// array is dropped first and the freed memory returned to the operating
// system (debug.FreeOSMemory), so that the old array and freed scraps too
// small to hold the new one are not resident beside it: 8 MiB of a
// 4000×4000 solve's peak. (spxWork.factor also returns the garbage of each
// large LU after it.) The heap is mostly the pointer-free payoff matrix,
// so a collection costs little next to the factorization it precedes.
func growLarge(p *[]float64, n int) {
	switch {
	case n < 1<<20:
		*p = grow(*p, n)
	case cap(*p) >= n:
		runtime.GC()
		*p = (*p)[:n]
	default:
		*p = nil
		debug.FreeOSMemory()
		*p = grow(nil, n)
	}
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/4)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}
