//go:build unix

// The guard-page test needs mmap/mprotect, hence the unix-only build.

package tensorops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gpump/gpump/internal/guardpage"
	"github.com/gpump/gpump/internal/kernelenv"
	"github.com/gpump/gpump/internal/memread"
)

// kernelTol is the accepted error of a dot product relative to Σ|a_j q_j|
// (and of an updated s_j relative to |s_j| + Σ_k |p_k a_kj|). Both the
// kernels and the naive reference sum in float64; with random signs their
// rounding errors are a few ulps of that magnitude even for n ≈ 1000.
const kernelTol = 1e-14

// kernelSizes are the column counts tested: every tail length of the 8-
// and 16-column steps, and the edges of the prefetching main loops, which
// start once n exceeds PFDIST (2048 bytes: 256 float64 or 512 float32
// columns) by one unrolled iteration (8 or 16 columns). The 4- and 8-row
// kernels share these edges.
var kernelSizes = []int{
	0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1000, 1031,
	263, 264, 271, 272, 273, 288, 519, 520, 527, 528, 529, 544, 4099,
}

// ldas returns the row strides tested for n columns: contiguous rows, an
// odd stride that misaligns every row differently, and a wider one.
func ldas(n int) []int { return []int{n, n + 1, n + 13} }

// useKernels makes the checked entry points use k until the returned
// function is called, so that tests exercise the checks together with
// every implementation this machine supports.
func useKernels(k *kernelSet) (restore func()) {
	old := active
	active = k
	return func() { active = old }
}

func forEachKernel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	avail := availableKernels()
	names := make([]string, len(avail))
	for i, k := range avail {
		names[i] = k.name
	}
	t.Logf("implementations available here: %s (default %s)", strings.Join(names, ", "), kernelName())
	for _, k := range avail {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			f(t)
		})
	}
}

func randVec(r *rand.Rand, v []float64) {
	for i := range v {
		v[i] = 2*r.Float64() - 1
	}
}

// fillRows fills the given number of rows of n columns with random numbers
// and everything else in a (the gaps between rows and any trailing
// elements) with NaN, so that a kernel which reads outside the rows
// produces NaN.
func fillRows[T float32 | float64](r *rand.Rand, a []T, rows, lda, n int) {
	nan := T(math.NaN())
	for i := range a {
		a[i] = nan
	}
	for k := 0; k < rows; k++ {
		for j := 0; j < n; j++ {
			a[k*lda+j] = T(2*r.Float64() - 1)
		}
	}
}

// row returns row k of a as float64.
func row[T float32 | float64](a []T, lda, k, n int) []float64 {
	out := make([]float64, n)
	for j := range out {
		out[j] = float64(a[k*lda+j])
	}
	return out
}

// refDot is the naive reference: the dot product and Σ|x_j q_j|.
func refDot(x, q []float64) (dot, mag float64) {
	for j := range x {
		dot += x[j] * q[j]
		mag += math.Abs(x[j] * q[j])
	}
	return dot, mag
}

// refAxpy returns s + Σ_k p_k rows_k elementwise and the magnitude each
// result is compared relative to.
func refAxpy(rows [][]float64, s []float64, p []float64) (want, mag []float64) {
	want = make([]float64, len(s))
	mag = make([]float64, len(s))
	for j := range s {
		want[j] = s[j]
		mag[j] = math.Abs(s[j])
		for k, x := range rows {
			want[j] += p[k] * x[j]
			mag[j] += math.Abs(p[k] * x[j])
		}
	}
	return want, mag
}

func closeTo(got, want, mag float64) bool {
	return math.Abs(got-want) <= kernelTol*mag
}

const sentinel = -12345.678

// vectors returns q and s with n random entries followed by guard
// entries: NaN in q (reading it would poison the dots) and a sentinel in
// s (writing it is detected by checkS).
func vectors(r *rand.Rand, n int) (q, s []float64) {
	q = make([]float64, n+9)
	s = make([]float64, n+9)
	randVec(r, q[:n])
	randVec(r, s[:n])
	for j := n; j < len(q); j++ {
		q[j] = math.NaN()
		s[j] = sentinel
	}
	return q, s
}

func checkS(t *testing.T, what string, s, want, mag []float64) {
	t.Helper()
	n := len(want)
	for j := 0; j < n; j++ {
		if !closeTo(s[j], want[j], mag[j]) {
			t.Fatalf("%s: s[%d] = %v, want %v (mag %v)", what, j, s[j], want[j], mag[j])
		}
	}
	for j := n; j < len(s); j++ {
		if s[j] != sentinel {
			t.Fatalf("%s: s[%d] beyond n=%d was written: %v", what, j, n, s[j])
		}
	}
}

func checkDots(t *testing.T, what string, got []float64, rows [][]float64, q []float64) {
	t.Helper()
	for k := range rows {
		want, mag := refDot(rows[k], q)
		if !closeTo(got[k], want, mag) {
			t.Fatalf("%s: dots[%d] = %v, want %v (mag %v)", what, k, got[k], want, mag)
		}
	}
}

// TestKernelCorrectness compares every operation of every available
// implementation with the naive double loop, for all tail lengths and for
// row strides larger than n.
func TestKernelCorrectness(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range kernelSizes {
			for _, lda := range ldas(n) {
				for _, nr := range []int{4, 8} {
					// 9 trailing NaNs after the last row catch over-reads.
					a64 := make([]float64, (nr-1)*lda+n+9)
					a32 := make([]float32, (nr-1)*lda+n+9)
					fillRows(r, a64, nr, lda, n)
					fillRows(r, a32, nr, lda, n)
					testOps(t, r, fmt.Sprintf("f64 %d rows n=%d lda=%d", nr, n, lda), a64, nr, lda, n)
					testOps(t, r, fmt.Sprintf("f32 %d rows n=%d lda=%d", nr, n, lda), a32, nr, lda, n)
				}
			}
		}
	})
}

// testOps runs all operations on the nr (4 or 8) rows in a and checks
// them: the nr-row kernels on all rows, the 1-row kernels on the first and
// the last.
func testOps[T float32 | float64](t *testing.T, r *rand.Rand, what string, a []T, nr, lda, n int) {
	t.Helper()
	rows := make([][]float64, nr)
	for k := range rows {
		rows[k] = row(a, lda, k, n)
	}
	var p [8]float64
	randVec(r, p[:nr])
	nan := math.NaN()
	name := fmt.Sprint(nr)

	q, s := vectors(r, n)
	want, mag := refAxpy(rows, s[:n], p[:nr])
	var dots [8]float64
	for k := range dots {
		dots[k] = nan // must be overwritten, not accumulated
	}
	callFusedN(a, nr, lda, n, q, s, &p, &dots)
	checkDots(t, what+" fused"+name, dots[:nr], rows, q)
	checkS(t, what+" fused"+name, s, want, mag)

	for k := range dots {
		dots[k] = nan
	}
	callDotN(a, nr, lda, n, q, &dots)
	checkDots(t, what+" dot"+name, dots[:nr], rows, q)

	want, mag = refAxpy(rows, s[:n], p[:nr])
	callAxpyN(a, nr, lda, n, s, &p)
	checkS(t, what+" axpy"+name, s, want, mag)

	// The single-row kernels run on row 0 (followed by the NaN gap when
	// lda > n) and on the last row (followed by the NaN tail of a).
	for _, k := range []int{0, nr - 1} {
		x := a[k*lda:]
		w := fmt.Sprintf("%s row %d", what, k)
		want, mag = refAxpy(rows[k:k+1], s[:n], p[k:k+1])
		d := fused1(x, n, q, s, p[k])
		checkDots(t, w+" fused1", []float64{d}, rows[k:k+1], q)
		checkS(t, w+" fused1", s, want, mag)

		d = dot1(x, n, q)
		checkDots(t, w+" dot1", []float64{d}, rows[k:k+1], q)

		want, mag = refAxpy(rows[k:k+1], s[:n], p[k:k+1])
		axpy1(x, n, s, p[k])
		checkS(t, w+" axpy1", s, want, mag)
	}

}

// callFusedN, callDotN and callAxpyN run the kernel for nr (4 or 8) rows,
// the 4-row ones on the first half of p and dots.

func callFusedN[T float32 | float64](a []T, nr, lda, n int, q, s []float64, p, dots *[8]float64) {
	if nr == 8 {
		fused8(a, lda, n, q, s, p, dots)
	} else {
		fused4(a, lda, n, q, s, (*[4]float64)(p[:4]), (*[4]float64)(dots[:4]))
	}
}

func callDotN[T float32 | float64](a []T, nr, lda, n int, q []float64, dots *[8]float64) {
	if nr == 8 {
		dot8(a, lda, n, q, dots)
	} else {
		dot4(a, lda, n, q, (*[4]float64)(dots[:4]))
	}
}

func callAxpyN[T float32 | float64](a []T, nr, lda, n int, s []float64, p *[8]float64) {
	if nr == 8 {
		axpy8(a, lda, n, s, p)
	} else {
		axpy4(a, lda, n, s, (*[4]float64)(p[:4]))
	}
}

// guardedSlice returns n random elements lying flush against an
// inaccessible page (after them or before them), so that any access past
// their ends faults.
func guardedSlice[T float32 | float64](t *testing.T, r *rand.Rand, n int, flushEnd bool) ([]T, *guardpage.Buffer) {
	t.Helper()
	var zero T
	g, err := guardpage.New(n*int(unsafe.Sizeof(zero)), flushEnd)
	if err != nil {
		t.Fatal(err)
	}
	x := guardpage.Slice[T](g, n)
	for i := range x {
		x[i] = T(2*r.Float64() - 1)
	}
	return x, g
}

// TestKernelGuardPages checks that no kernel reads or writes outside
// [0, (rows-1)*lda+n) of a or [0, n) of q and s: each operand lies flush
// against a PROT_NONE page (after it, then before it), so a stray access
// faults.
func TestKernelGuardPages(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		// The harness must be able to see a fault from inside assembly:
		// a row that claims one element more than is mapped.
		x, g := guardedSlice[float64](t, r, 8, true)
		y, gy := guardedSlice[float64](t, r, 9, true)
		if !guardpage.Faults(func() { dot1(unsafe.Slice(&x[0], 9), 9, y) }) {
			t.Fatalf("reading past a guard page did not fault; the test cannot detect over-reads")
		}
		g.Free()
		gy.Free()

		for _, flushEnd := range []bool{true, false} {
			for _, n := range kernelSizes {
				for _, lda := range ldas(n) {
					what := fmt.Sprintf("n=%d lda=%d flushEnd=%v", n, lda, flushEnd)
					for _, nr := range []int{4, 8} {
						w := fmt.Sprintf("%s %d rows", what, nr)
						guardOps[float64](t, r, w+" f64", nr, lda, n, flushEnd)
						guardOps[float32](t, r, w+" f32", nr, lda, n, flushEnd)
					}
				}
			}
		}
	})
}

// guardOps runs every operation on an nr-row (4 or 8) block that fills its
// guarded buffer exactly.
func guardOps[T float32 | float64](t *testing.T, r *rand.Rand, what string, nr, lda, n int, flushEnd bool) {
	t.Helper()
	a, ga := guardedSlice[T](t, r, (nr-1)*lda+n, flushEnd)
	defer ga.Free()
	q, gq := guardedSlice[float64](t, r, n, flushEnd)
	defer gq.Free()
	s, gs := guardedSlice[float64](t, r, n, flushEnd)
	defer gs.Free()
	var p, dots [8]float64
	randVec(r, p[:])
	last := a[(nr-1)*lda:]
	ops := []struct {
		name string
		f    func()
	}{
		{"fused", func() { callFusedN(a, nr, lda, n, q, s, &p, &dots) }},
		{"dot", func() { callDotN(a, nr, lda, n, q, &dots) }},
		{"axpy", func() { callAxpyN(a, nr, lda, n, s, &p) }},
		// Row 0 starts at the start guard, the last row ends at the end
		// guard.
		{"fused1 row0", func() { fused1(a, n, q, s, 1) }},
		{"fused1 last row", func() { fused1(last, n, q, s, 1) }},
		{"dot1 row0", func() { dot1(a, n, q) }},
		{"dot1 last row", func() { dot1(last, n, q) }},
		{"axpy1 row0", func() { axpy1(a, n, s, 1) }},
		{"axpy1 last row", func() { axpy1(last, n, s, 1) }},
	}
	for _, op := range ops {
		if guardpage.Faults(op.f) {
			t.Fatalf("%s %s: accessed memory outside its operands", what, op.name)
		}
	}
}

// TestKernelPanics checks that programmer errors are caught by the
// checked entry points with a message naming the function.
func TestKernelPanics(t *testing.T) {
	a64 := make([]float64, 100)
	a32 := make([]float32, 100)
	v := make([]float64, 10)
	var p, d [4]float64
	var p8, d8 [8]float64
	cases := []struct {
		name, want string
		f          func()
	}{
		{"lda<n", "fused4F64: lda=5 < n=10", func() { fused4(a64, 5, 10, v, v, &p, &d) }},
		{"short a", "fused4F64: len(a)=100 < 3*lda+n", func() { fused4(a64, 31, 10, v, v, &p, &d) }},
		{"short a exact", "dot4F32: len(a)=100 < 3*lda+n", func() { dot4(a32, 31, 8, v, &d) }},
		{"huge lda", "axpy4F64: len(a)=100 < 3*lda+n", func() { axpy4(a64, math.MaxInt/2, 10, v, &p) }},
		{"negative n", "dot4F64: negative n", func() { dot4(a64, 10, -1, v, &d) }},
		{"short q", "fused4F32: len(q)=10 < n=11", func() { fused4(a32, 11, 11, v, v[:0], &p, &d) }},
		{"short s", "fused4F64: len(s)=9 < n=10", func() { fused4(a64, 10, 10, v, v[:9], &p, &d) }},
		{"nil p", "axpy4F32: p is nil", func() { axpy4(a32, 10, 10, v, nil) }},
		{"nil dots", "fused4F64: dots is nil", func() { fused4(a64, 10, 10, v, v, &p, nil) }},
		{"8 rows short a", "fused8F64: len(a)=100 < 7*lda+n", func() { fused8(a64, 14, 10, v, v, &p8, &d8) }},
		{"8 rows short a exact", "dot8F32: len(a)=100 < 7*lda+n", func() { dot8(a32, 13, 10, v, &d8) }},
		{"8 rows huge lda", "axpy8F64: len(a)=100 < 7*lda+n", func() { axpy8(a64, math.MaxInt/4, 10, v, &p8) }},
		{"8 rows lda<n", "fused8F32: lda=9 < n=10", func() { fused8(a32, 9, 10, v, v, &p8, &d8) }},
		{"8 rows negative n", "dot8F64: negative n", func() { dot8(a64, 10, -1, v, &d8) }},
		{"8 rows short q", "fused8F64: len(q)=10 < n=11", func() { fused8(a64, 11, 11, v, make([]float64, 11), &p8, &d8) }},
		{"8 rows short s", "axpy8F32: len(s)=10 < n=11", func() { axpy8(a32, 11, 11, v, &p8) }},
		{"8 rows nil p", "axpy8F64: p is nil", func() { axpy8(a64, 10, 10, v, nil) }},
		{"8 rows nil dots", "fused8F32: dots is nil", func() { fused8(a32, 10, 10, v, v, &p8, nil) }},
		{"row short a", "dot1F64: len(a)=100 < n=101", func() { dot1(a64, 101, make([]float64, 101)) }},
		{"row short q", "fused1F32: len(q)=10 < n=11", func() { fused1(a32, 11, v, make([]float64, 11), 1) }},
		{"row short s", "axpy1F64: len(s)=10 < n=11", func() { axpy1(a64, 11, v, 1) }},
		{"row negative n", "axpy1F32: negative n", func() { axpy1(a32, -3, v, 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, "tensorops: "+c.want) {
					t.Fatalf("panic %q, want it to contain %q", msg, c.want)
				}
			}()
			c.f()
		})
	}
}

// TestKernelAllocs checks that no entry point allocates, on every path.
func TestKernelAllocs(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		const n, lda = 1031, 1040
		a64 := make([]float64, 7*lda+n)
		a32 := make([]float32, 7*lda+n)
		q := make([]float64, n)
		s := make([]float64, n)
		var p, d [8]float64 // outside: through the kernel sets they escape
		allocs := testing.AllocsPerRun(20, func() {
			callEvery(a64, lda, n, q, s, &p, &d)
			callEvery(a32, lda, n, q, s, &p, &d)
		})
		if allocs != 0 {
			t.Fatalf("%v allocations per run, want 0", allocs)
		}
	})
}

// callEvery calls every entry point once on the rows at the start of a.
func callEvery[T float32 | float64](a []T, lda, n int, q, s []float64, p, d *[8]float64) {
	for _, nr := range []int{8, 4} {
		callFusedN(a, nr, lda, n, q, s, p, d)
		callDotN(a, nr, lda, n, q, d)
		callAxpyN(a, nr, lda, n, s, p)
	}
	benchSink += fused1(a, n, q, s, 1) + dot1(a, n, q)
	axpy1(a, n, s, 1)
}

// TestKernelSelect checks the dispatch rules, including GPUMP_KERNELS.
func TestKernelSelect(t *testing.T) {
	avail := availableKernels()
	if got, want := kernelName(), selectKernels(avail, kernelenv.Want()).name; got != want {
		t.Errorf("kernelName() = %q, want %q", got, want)
	}
	if avail[len(avail)-1] != &genericKernels {
		t.Errorf("generic must always be available, as the last resort")
	}
	if got := selectKernels(avail, "generic"); got != &genericKernels {
		t.Errorf(`selectKernels("generic") = %q`, got.name)
	}
	for _, want := range []string{"", "bogus", "avx512", "avx2"} {
		got := selectKernels(avail, want)
		inAvail := false
		for _, k := range avail {
			inAvail = inAvail || k.name == want
		}
		if inAvail && got.name != want || !inAvail && got != avail[0] {
			t.Errorf("selectKernels(%q) = %q", want, got.name)
		}
	}
	// A request the CPU cannot honour falls back to the best available.
	fake := []*kernelSet{{name: "avx2"}, {name: "generic"}}
	if got := selectKernels(fake, "avx512"); got != fake[0] {
		t.Errorf("unavailable avx512 fell back to %q, want avx2", got.name)
	}
}

// ---------------------------------------------------------------------------
// Benchmarks.
//
// One op is a full pass over an m x n matrix with a single goroutine, so
// the reported MB/s is the rate at which the matrix is streamed. The
// 6000x6000 matrices (288 MB float64, 144 MB float32) exceed the 105 MiB L3
// cache; 256x4096 fits in L3 and 64x1024 in L2 and show compute speed.

var benchShapes = []struct{ m, n int }{{6000, 6000}, {256, 4096}, {64, 1024}}

// benchMatrices caches the random benchmark matrices by shape: generating
// 36M random numbers takes longer than the passes being measured.
var benchMatrices = map[[2]int][2]any{}

func benchMatrix(m, n int) ([]float64, []float32) {
	if ab, ok := benchMatrices[[2]int{m, n}]; ok {
		return ab[0].([]float64), ab[1].([]float32)
	}
	r := rand.New(rand.NewPCG(5, 6))
	a64 := make([]float64, m*n)
	a32 := make([]float32, m*n)
	for i := range a64 {
		x := 2*r.Float64() - 1
		a64[i] = x
		a32[i] = float32(x)
	}
	benchMatrices[[2]int{m, n}] = [2]any{a64, a32}
	return a64, a32
}

func BenchmarkKernels(b *testing.B) {
	for _, sh := range benchShapes {
		a64, a32 := benchMatrix(sh.m, sh.n)
		shape := fmt.Sprintf("%dx%d", sh.m, sh.n)
		for _, k := range availableKernels() {
			b.Run("f64/"+shape+"/"+k.name, func(b *testing.B) {
				defer useKernels(k)()
				benchOps(b, a64, sh.m, sh.n)
			})
			b.Run("f32/"+shape+"/"+k.name, func(b *testing.B) {
				defer useKernels(k)()
				benchOps(b, a32, sh.m, sh.n)
			})
		}
	}
}

var benchSink float64

func benchOps[T float32 | float64](b *testing.B, a []T, m, n int) {
	q := make([]float64, n)
	s := make([]float64, n)
	r := rand.New(rand.NewPCG(7, 8))
	randVec(r, q)
	p := [8]float64{1e-3, -2e-3, 3e-3, -4e-3, 5e-3, -6e-3, 7e-3, -8e-3}
	var d [8]float64
	var elem T
	bytes := int64(m) * int64(n) * int64(unsafe.Sizeof(elem))
	run := func(name string, pass func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(bytes)
			for b.Loop() {
				pass()
			}
		})
	}
	for _, nr := range []int{8, 4} {
		name := fmt.Sprint(nr)
		run("fused"+name, func() { fusedPass(a, nr, m, n, q, s, &p, &d) })
		run("dot"+name, func() {
			for i := 0; i+nr <= m; i += nr {
				callDotN(a[i*n:], nr, n, n, q, &d)
				benchSink += d[0]
			}
		})
		run("axpy"+name, func() {
			for i := 0; i+nr <= m; i += nr {
				callAxpyN(a[i*n:], nr, n, n, s, &p)
			}
		})
	}
	run("fused1", func() {
		for i := 0; i < m; i++ {
			benchSink += fused1(a[i*n:], n, q, s, 1e-3)
		}
	})
	run("read", func() { benchSink += float64(memread.Slice(a)) })
}

// fusedPass is one operator evaluation: the whole m x n matrix, nr (4 or 8)
// rows per call (the solver uses 8).
func fusedPass[T float32 | float64](a []T, nr, m, n int, q, s []float64, p, d *[8]float64) {
	for i := 0; i+nr <= m; i += nr {
		callFusedN(a[i*n:], nr, n, n, q, s, p, d)
		benchSink += d[0]
	}
}

// BenchmarkKernelsVsRead alternates full fused8 and fused4 passes of each
// path with plain reads of the same bytes (memread, the machine's read
// rate) over the 6000x6000 matrix, and
// reports the rates and each fused pass as a percentage of the read rate.
// Other processes on a shared machine change the available bandwidth from
// second to second, so only rates measured interleaved like this can be
// compared; consecutive runs of BenchmarkKernels cannot.
func BenchmarkKernelsVsRead(b *testing.B) {
	const m, n = 6000, 6000
	a64, a32 := benchMatrix(m, n)
	for _, k := range availableKernels() {
		b.Run("f64/"+k.name, func(b *testing.B) {
			defer useKernels(k)()
			benchVsRead(b, a64, m, n)
		})
		b.Run("f32/"+k.name, func(b *testing.B) {
			defer useKernels(k)()
			benchVsRead(b, a32, m, n)
		})
	}
}

func benchVsRead[T float32 | float64](b *testing.B, a []T, m, n int) {
	b.ReportAllocs()
	q := make([]float64, n)
	s := make([]float64, n)
	randVec(rand.New(rand.NewPCG(7, 8)), q)
	p := [8]float64{1e-3, -2e-3, 3e-3, -4e-3, 5e-3, -6e-3, 7e-3, -8e-3}
	var d [8]float64
	rows := []int{8, 4}
	fused := make([]time.Duration, len(rows))
	var read time.Duration
	passes := 0
	for b.Loop() {
		for k, nr := range rows {
			t0 := time.Now()
			fusedPass(a, nr, m, n, q, s, &p, &d)
			t1 := time.Now()
			benchSink += float64(memread.Slice(a))
			read += time.Since(t1)
			fused[k] += t1.Sub(t0)
		}
		passes++
	}
	var elem T
	bytes := float64(passes) * float64(m*n) * float64(unsafe.Sizeof(elem))
	read /= time.Duration(len(rows))
	b.ReportMetric(bytes/read.Seconds()/1e6, "read-MB/s")
	for k, nr := range rows {
		b.ReportMetric(bytes/fused[k].Seconds()/1e6, fmt.Sprintf("fused%d-MB/s", nr))
		b.ReportMetric(100*read.Seconds()/fused[k].Seconds(), fmt.Sprintf("fused%d-%%-of-read", nr))
	}
}
