package solver

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScanMatrix: scanMatrix gives the largest magnitude (negative entries
// included) and the first non-finite entry, for both element types, on
// lengths around the unrolling and on one long enough to be split among
// goroutines, with the offending entry in the first part, the last part
// and the tail, and several of them (the first wins).
func TestScanMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 4, 5, 8, 13, 1<<20 + 7} {
		d := make([]float64, n)
		want := 0.0
		for i := range d {
			d[i] = rng.NormFloat64()
			want = math.Max(want, math.Abs(d[i]))
		}
		f := make([]float32, n)
		want32 := 0.0
		for i, v := range d {
			f[i] = float32(v)
			want32 = math.Max(want32, math.Abs(float64(f[i])))
		}
		if got, bad := scanMatrix(d); got != want || bad != -1 {
			t.Errorf("n = %d: %v, %d; want %v, -1", n, got, bad, want)
		}
		if got, bad := scanMatrix(f); got != want32 || bad != -1 {
			t.Errorf("n = %d, float32: %v, %d; want %v, -1", n, got, bad, want32)
		}
		for _, at := range []int{0, n / 3, n - 1} {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				d2, f2 := append([]float64(nil), d...), append([]float32(nil), f...)
				d2[at], f2[at] = v, float32(v)
				if at+1 < n { // a later one must not win
					d2[n-1], f2[n-1] = math.NaN(), float32(math.NaN())
				}
				if _, bad := scanMatrix(d2); bad != at {
					t.Errorf("n = %d, %v at %d: found %d", n, v, at, bad)
				}
				if _, bad := scanMatrix(f2); bad != at {
					t.Errorf("n = %d, float32 %v at %d: found %d", n, v, at, bad)
				}
			}
		}
	}
	if got, bad := scanMatrix([]float64{-3, 2, -0.0}); got != 3 || bad != -1 {
		t.Errorf("negative maximum: %v, %d", got, bad)
	}
}

// BenchmarkScanMatrix measures the pass NewMatrixGame makes over A, on a
// 512 MiB matrix (larger than this machine's L3): 6.0–7.4 GB/s with two
// goroutines here, where the former serial math.Max loop ran at 0.9 GB/s.
func BenchmarkScanMatrix(b *testing.B) {
	d := make([]float64, 1<<26)
	for i := range d {
		d[i] = float64(i%1000) / 1000
	}
	b.SetBytes(int64(8 * len(d)))
	b.ReportAllocs()
	for b.Loop() {
		if _, bad := scanMatrix(d); bad != -1 {
			b.Fatal(bad)
		}
	}
}
