package tensorops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// rowsTol is the accepted error relative to the sum of the magnitudes of
// the terms (see kernelTol).
const rowsTol = 1e-14

// forEachRowKernel runs f with every implementation this machine supports
// active in turn, so the exported functions are tested on each.
func forEachRowKernel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, k := range availableKernels() {
		t.Run(k.name, func(t *testing.T) {
			old := active
			active = k
			defer func() { active = old }()
			f(t)
		})
	}
}

// TestRows compares the exported row kernels with naive loops on rows of n
// columns at stride lda, for n = 0, odd n, n across the kernels' unrolled
// steps, and lda > n. The matrix's padding between and after the rows is
// NaN, and s has sentinel entries past n, so reading or writing outside
// the rows shows.
func TestRows(t *testing.T) {
	tests := []struct{ n, lda int }{
		{0, 0}, {0, 5}, {1, 1}, {1, 4}, {3, 3}, {7, 7}, {8, 8}, {9, 13},
		{17, 17}, {31, 40}, {64, 64}, {101, 101}, {257, 300}, {1001, 1001},
	}
	forEachRowKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, tt := range tests {
			n, lda := tt.n, tt.lda
			a := make([]float64, 7*lda+n+3)
			for i := range a {
				a[i] = math.NaN()
			}
			for k := range 8 {
				for j := range n {
					a[k*lda+j] = 2*r.Float64() - 1
				}
			}
			q := make([]float64, n+3)
			s0 := make([]float64, n+3)
			for j := range q {
				if j < n {
					q[j], s0[j] = 2*r.Float64()-1, 2*r.Float64()-1
				} else {
					q[j], s0[j] = math.NaN(), sentinelRows
				}
			}
			var p8 [8]float64
			for k := range p8 {
				p8[k] = 2*r.Float64() - 1
			}
			p4 := [4]float64(p8[:4])
			what := fmt.Sprintf("n=%d lda=%d", n, lda)

			var d8 [8]float64
			DotRows8(a, lda, n, q, &d8)
			checkRowDots(t, what+" DotRows8", d8[:], a, lda, n, q)
			var d4 [4]float64
			DotRows4(a, lda, n, q, &d4)
			checkRowDots(t, what+" DotRows4", d4[:], a, lda, n, q)
			checkRowDots(t, what+" Dot", []float64{Dot(a[:n], q)}, a, lda, n, q)

			s := append([]float64(nil), s0...)
			AxpyRows8(a, lda, n, s, &p8)
			checkRowAxpy(t, what+" AxpyRows8", s, s0, p8[:], a, lda, n)
			s = append(s[:0], s0...)
			AxpyRows4(a, lda, n, s, &p4)
			checkRowAxpy(t, what+" AxpyRows4", s, s0, p4[:], a, lda, n)
			s = append(s[:0], s0...)
			Axpy(s, p8[0], a[:n])
			checkRowAxpy(t, what+" Axpy", s, s0, p8[:1], a, lda, n)

			s = append(s[:0], s0...)
			FusedRows8(a, lda, n, q, s, &p8, &d8)
			checkRowDots(t, what+" FusedRows8", d8[:], a, lda, n, q)
			checkRowAxpy(t, what+" FusedRows8", s, s0, p8[:], a, lda, n)
			s = append(s[:0], s0...)
			FusedRows4(a, lda, n, q, s, &p4, &d4)
			checkRowDots(t, what+" FusedRows4", d4[:], a, lda, n, q)
			checkRowAxpy(t, what+" FusedRows4", s, s0, p4[:], a, lda, n)
			s = append(s[:0], s0...)
			d := FusedRow(a[:n], q, s, p8[0])
			checkRowDots(t, what+" FusedRow", []float64{d}, a, lda, n, q)
			checkRowAxpy(t, what+" FusedRow", s, s0, p8[:1], a, lda, n)
		}
	})
}

const sentinelRows = -4321.5

// checkRowDots checks got[k] against the naive dot product of row k.
func checkRowDots(t *testing.T, what string, got, a []float64, lda, n int, q []float64) {
	t.Helper()
	for k, g := range got {
		var want, mag float64
		for j := range n {
			want += a[k*lda+j] * q[j]
			mag += math.Abs(a[k*lda+j] * q[j])
		}
		if math.Abs(g-want) > rowsTol*mag {
			t.Fatalf("%s: dots[%d] = %v, want %v", what, k, g, want)
		}
	}
}

// checkRowAxpy checks s against s0 + Σ_k p[k]·row k, and that s is
// unchanged past n.
func checkRowAxpy(t *testing.T, what string, s, s0, p, a []float64, lda, n int) {
	t.Helper()
	for j := range s {
		if j >= n {
			if s[j] != s0[j] {
				t.Fatalf("%s: s[%d] past n was written: %v", what, j, s[j])
			}
			continue
		}
		want, mag := s0[j], math.Abs(s0[j])
		for k, pk := range p {
			want += pk * a[k*lda+j]
			mag += math.Abs(pk * a[k*lda+j])
		}
		if math.Abs(s[j]-want) > rowsTol*mag {
			t.Fatalf("%s: s[%d] = %v, want %v", what, j, s[j], want)
		}
	}
}

// TestRowsPanics checks that the exported kernels reject short arguments.
func TestRowsPanics(t *testing.T) {
	a := make([]float64, 7*10+10)
	q := make([]float64, 10)
	var p8, d8 [8]float64
	var p4, d4 [4]float64
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"DotRows8 short a", func() { DotRows8(a[:7*10+9], 10, 10, q, &d8) }},
		{"DotRows8 lda<n", func() { DotRows8(a, 9, 10, q, &d8) }},
		{"DotRows8 nil", func() { DotRows8(a, 10, 10, q, nil) }},
		{"DotRows4 short q", func() { DotRows4(a, 10, 10, q[:9], &d4) }},
		{"Dot short q", func() { Dot(a[:10], q[:9]) }},
		{"AxpyRows8 negative n", func() { AxpyRows8(a, 10, -1, q, &p8) }},
		{"AxpyRows4 short s", func() { AxpyRows4(a, 10, 10, q[:9], &p4) }},
		{"Axpy short s", func() { Axpy(q[:9], 1, a[:10]) }},
		{"FusedRows8 nil p", func() { FusedRows8(a, 10, 10, q, q, nil, &d8) }},
		{"FusedRows4 short a", func() { FusedRows4(a[:3*10+9], 10, 10, q, q, &p4, &d4) }},
		{"FusedRow short s", func() { FusedRow(a[:10], q, q[:9], 1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.f()
		}()
	}
}

// TestRowsAllocs checks that the exported kernels do not allocate when
// their arrays live outside the call.
func TestRowsAllocs(t *testing.T) {
	const n, lda = 101, 104
	a := make([]float64, 7*lda+n)
	q := make([]float64, n)
	s := make([]float64, n)
	var p8, d8 [8]float64
	var p4, d4 [4]float64
	allocs := testing.AllocsPerRun(20, func() {
		DotRows8(a, lda, n, q, &d8)
		DotRows4(a, lda, n, q, &d4)
		AxpyRows8(a, lda, n, s, &p8)
		AxpyRows4(a, lda, n, s, &p4)
		FusedRows8(a, lda, n, q, s, &p8, &d8)
		FusedRows4(a, lda, n, q, s, &p4, &d4)
		Axpy(s, 1, a[:n])
		rowsSink += Dot(a[:n], q) + FusedRow(a[:n], q, s, 1)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

var rowsSink float64

// BenchmarkRows measures the exported kernels on short and long rows,
// where the call's overhead and the memory system dominate.
func BenchmarkRows(b *testing.B) {
	for _, n := range []int{8, 64, 1000} {
		a := make([]float64, 8*n)
		q := make([]float64, n)
		s := make([]float64, n)
		var p8, d8 [8]float64
		b.Run(fmt.Sprintf("Dot/%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				rowsSink += Dot(a[:n], q)
			}
		})
		b.Run(fmt.Sprintf("Axpy/%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				Axpy(s, 1e-9, a[:n])
			}
		})
		b.Run(fmt.Sprintf("DotRows8/%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * 8 * n))
			for b.Loop() {
				DotRows8(a, n, n, q, &d8)
			}
		})
		b.Run(fmt.Sprintf("AxpyRows8/%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * 8 * n))
			for b.Loop() {
				AxpyRows8(a, n, n, s, &p8)
			}
		})
	}
}
