package sgemm

import "golang.org/x/sys/cpu"

// The AVX-512 kernel needs AVX512F and, as tensorops requires, VL, so that
// only the mainstream AVX-512 cores take it; the AVX2 kernel needs FMA.
var (
	avx512 = &kernel{name: "avx512", mr: tileAVX512MR, nr: tileAVX512NR}
	avx2   = &kernel{name: "avx2", mr: tileAVX2MR, nr: tileAVX2NR}
)

// available lists the kernels this CPU runs, best first.
func available() []*kernel {
	var ks []*kernel
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		ks = append(ks, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2)
	}
	return append(ks, generic)
}

func (kern *kernel) run(k int, a *float32, lda int, b, bias, c *float32, ldc int, act Act, v *float32) {
	switch kern {
	case avx512:
		tileAVX512(k, a, lda, b, bias, c, ldc, int(act), v)
	case avx2:
		tileAVX2(k, a, lda, b, bias, c, ldc, int(act), v)
	default:
		tileGeneric(k, a, lda, b, bias, c, ldc, act, v)
	}
}

// softplus applies the softplus to the first whole vectors of x and
// returns how many values it did.
func (kern *kernel) softplus(x []float32) int {
	switch n := len(x) &^ (kern.nr/2 - 1); {
	case n == 0:
		return 0
	case kern == avx512:
		softplusAVX512(&x[0], n)
		return n
	case kern == avx2:
		softplusAVX2(&x[0], n)
		return n
	}
	return softplusGeneric(x)
}
