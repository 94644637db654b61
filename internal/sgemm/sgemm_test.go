package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func randSlice(n int, rng *rand.Rand) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// TestGemm checks every kernel this CPU has against a naive triple loop in
// float64 (math.Tanh for the activation) over shapes with ragged edges in
// every dimension and strides wider than the matrices, and checks that
// nothing outside the m×n block of c is written. The tolerance is the
// float32 rounding bound of a sum of k products, 2(k+1)·2⁻²⁴·Σ|terms|, plus
// Tanh32's 4e-7; for GemmTanhDot, those bounds weighted by |v| plus the
// rounding bound of the dot product.
func TestGemm(t *testing.T) {
	ms := []int{1, 3, 5, 6, 7, 11, 12, 13, 25, 37, 100}
	ns := []int{1, 2, 7, 15, 16, 17, 31, 32, 33, 70, 128}
	ks := []int{1, 2, 3, 4, 5, 31, 128, 129}
	for _, kern := range available() {
		for _, act := range []Act{Identity, Tanh, tanhDot} {
			t.Run(fmt.Sprintf("%s/act=%d", kern.name, act), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(act), 7))
				var p Panels
				for _, m := range ms {
					for _, n := range ns {
						for _, k := range ks {
							checkGemm(t, kern, &p, m, n, k, act, rng)
						}
					}
				}
			})
		}
	}
}

const eps32 = 1.0 / (1 << 24)

func checkGemm(t *testing.T, kern *kernel, p *Panels, m, n, k int, act Act, rng *rand.Rand) {
	t.Helper()
	lda, ldb, ldc := k+m%3, n+k%2, n+1+m%4
	a, b, bias, v := randSlice(m*lda, rng), randSlice(k*ldb, rng), randSlice(n, rng), randSlice(n, rng)
	// want and tol: the naive product and its tolerance, entry by entry.
	want, tol := make([]float64, m*n), make([]float64, m*n)
	for i := range m {
		for j := range n {
			w, abs := float64(bias[j]), math.Abs(float64(bias[j]))
			for q := range k {
				x := float64(a[i*lda+q]) * float64(b[q*ldb+j])
				w += x
				abs += math.Abs(x)
			}
			tol[i*n+j] = 2 * float64(k+1) * eps32 * abs
			if act != Identity {
				w = math.Tanh(w)
				tol[i*n+j] += 4e-7
			}
			want[i*n+j] = w
		}
	}
	p.pack(kern, k, n, b, ldb, bias)
	shape := fmt.Sprintf("m=%d n=%d k=%d", m, n, k)
	if act == tanhDot {
		p.PackOut(v)
		out := randSlice(m+3, rng)
		out0 := append([]float32(nil), out...)
		GemmTanhDot(m, a, lda, p, out)
		for i := range m {
			w, tl, abs := float64(out0[i]), 0.0, math.Abs(float64(out0[i]))
			for j := range n {
				w += want[i*n+j] * float64(v[j])
				tl += tol[i*n+j] * math.Abs(float64(v[j]))
				abs += math.Abs(want[i*n+j] * float64(v[j]))
			}
			tl += 2 * float64(n+1) * eps32 * abs
			if d := math.Abs(float64(out[i]) - w); !(d <= tl) {
				t.Fatalf("%s: out[%d] = %.8g, naive loop %.8g (tolerance %.2g)", shape, i, out[i], w, tl)
			}
		}
		for i := m; i < len(out); i++ {
			if out[i] != out0[i] {
				t.Fatalf("%s: out[%d] written past the product", shape, i)
			}
		}
		return
	}
	const sentinel = -12345
	c := make([]float32, m*ldc+5)
	for i := range c {
		c[i] = sentinel
	}
	Gemm(m, a, lda, p, act, c, ldc)
	for i := range m {
		for j := range ldc {
			got := c[i*ldc+j]
			if j >= n {
				if got != sentinel {
					t.Fatalf("%s: c[%d][%d] = %g written outside the product", shape, i, j, got)
				}
				continue
			}
			if d := math.Abs(float64(got) - want[i*n+j]); !(d <= tol[i*n+j]) {
				t.Fatalf("%s: c[%d][%d] = %.8g, naive loop %.8g (tolerance %.2g)", shape, i, j, got, want[i*n+j], tol[i*n+j])
			}
		}
	}
	for i := m * ldc; i < len(c); i++ {
		if c[i] != sentinel {
			t.Fatalf("%s: c[%d] written past the product", shape, i)
		}
	}
}

// TestGemmGonum compares the product without activation with gonum's
// Sgemm on the shapes of the gan package's layers, to the same float32
// rounding bound.
func TestGemmGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range []struct{ m, n, k int }{{256, 256, 2}, {2304, 32, 32}, {512, 128, 128}, {97, 130, 45}} {
		a, b, bias := randSlice(sz.m*sz.k, rng), randSlice(sz.k*sz.n, rng), randSlice(sz.n, rng)
		want := make([]float32, sz.m*sz.n)
		for i := range sz.m {
			copy(want[i*sz.n:], bias)
		}
		blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, sz.m, sz.n, sz.k, 1, a, sz.k, b, sz.n, 1, want, sz.n)
		var p Panels
		p.Pack(sz.k, sz.n, b, sz.n, bias)
		got := make([]float32, sz.m*sz.n)
		Gemm(sz.m, a, sz.k, &p, Identity, got, sz.n)
		for i, w := range want {
			abs := 0.0
			for q := range sz.k {
				abs += math.Abs(float64(a[i/sz.n*sz.k+q]) * float64(b[q*sz.n+i%sz.n]))
			}
			if d := math.Abs(float64(got[i] - w)); d > 4*float64(sz.k+1)/(1<<24)*(abs+math.Abs(float64(bias[i%sz.n]))) {
				t.Fatalf("%v: entry %d = %g, gonum %g", sz, i, got[i], w)
			}
		}
	}
}

// TestGemmNoAllocs: a product allocates nothing, edge tiles included.
func TestGemmNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 37, 45, 19
	a, b, bias, c := randSlice(m*k, rng), randSlice(k*n, rng), randSlice(n, rng), make([]float32, m*n)
	var p Panels
	p.Pack(k, n, b, n, bias)
	if allocs := testing.AllocsPerRun(10, func() {
		p.Pack(k, n, b, n, bias)
		p.PackOut(bias)
		Gemm(m, a, k, &p, Tanh, c, n)
		Gemm(3, a, k, &p, Tanh, c, n)
		GemmTanhDot(m, a, k, &p, c)
		GemmTanhDot(3, a, k, &p, c)
	}); allocs != 0 {
		t.Errorf("%g allocations per product", allocs)
	}
}

// TestGemmPanics: misuse is a programmer error.
func TestGemmPanics(t *testing.T) {
	var p Panels
	mustPanic(t, "unpacked", func() { Gemm(1, make([]float32, 4), 4, &p, Identity, make([]float32, 4), 4) })
	p.Pack(4, 4, make([]float32, 16), 4, make([]float32, 4))
	mustPanic(t, "short a", func() { Gemm(2, make([]float32, 7), 4, &p, Identity, make([]float32, 8), 4) })
	mustPanic(t, "short c", func() { Gemm(2, make([]float32, 8), 4, &p, Identity, make([]float32, 7), 4) })
	mustPanic(t, "lda < k", func() { Gemm(1, make([]float32, 8), 3, &p, Identity, make([]float32, 8), 4) })
	mustPanic(t, "no PackOut", func() { GemmTanhDot(1, make([]float32, 4), 4, &p, make([]float32, 1)) })
	mustPanic(t, "short out", func() { p.PackOut(make([]float32, 4)); GemmTanhDot(2, make([]float32, 8), 4, &p, make([]float32, 1)) })
	mustPanic(t, "short v", func() { p.PackOut(make([]float32, 3)) })
	mustPanic(t, "short b", func() { p.Pack(4, 4, make([]float32, 15), 4, make([]float32, 4)) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

// TestSoftplus checks every kernel's softplus against log1p(exp) in
// float64 on every length up to 70 (the vector loop and the tail) and on
// arguments from −100 to 100.
func TestSoftplus(t *testing.T) {
	var xs []float32
	for x := -100.0; x <= 100; x += 1.0 / 512 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 88, -88, 200, -200)
	for _, kern := range available() {
		saved := active
		active = kern
		for n := range 71 {
			x := append([]float32(nil), xs[:n]...)
			Softplus(x)
			checkSoftplus(t, kern.name, x, xs[:n])
		}
		x := append([]float32(nil), xs...)
		Softplus(x)
		checkSoftplus(t, kern.name, x, xs)
		active = saved
	}
}

func checkSoftplus(t *testing.T, name string, got, in []float32) {
	t.Helper()
	for i, v := range in {
		u := float64(v)
		want := max(u, 0) + math.Log1p(math.Exp(-math.Abs(u)))
		tol := 3e-7 * want
		if u < -80 {
			tol = 1e-34
		}
		if d := math.Abs(float64(got[i]) - want); !(d <= tol) {
			t.Fatalf("%s: softplus(%g) = %g, want %g", name, v, got[i], want)
		}
	}
}

// TestTanh32: Tanh32 is within 4e-7 of math.Tanh (7 units in the last
// place of float32 near 1) everywhere.
func TestTanh32(t *testing.T) {
	worst := 0.0
	for x := -12.0; x <= 12; x += 1.0 / 4096 {
		d := math.Abs(float64(Tanh32(float32(x))) - math.Tanh(float64(float32(x))))
		worst = max(worst, d)
	}
	if worst > 4e-7 {
		t.Errorf("largest error %g", worst)
	}
}

// BenchmarkGemm measures the products of the gan payoff's layers with tanh:
// a hidden layer (H×H) and a first layer (2×n) over a block of rows. Bytes
// are those of A and C.
func BenchmarkGemm(b *testing.B) {
	for _, kern := range available() {
		for _, sz := range []struct{ m, n, k int }{{240, 32, 32}, {240, 128, 128}, {240, 128, 2}} {
			b.Run(fmt.Sprintf("%s/m=%d,n=%d,k=%d", kern.name, sz.m, sz.n, sz.k), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				a, w, bias, c := randSlice(sz.m*sz.k, rng), randSlice(sz.k*sz.n, rng), randSlice(sz.n, rng), make([]float32, sz.m*sz.n)
				var p Panels
				p.pack(kern, sz.k, sz.n, w, sz.n, bias)
				b.SetBytes(int64(4 * sz.m * (sz.k + sz.n)))
				b.ReportAllocs()
				for b.Loop() {
					Gemm(sz.m, a, sz.k, &p, Tanh, c, sz.n)
				}
				b.ReportMetric(2*float64(sz.m*sz.n*sz.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
