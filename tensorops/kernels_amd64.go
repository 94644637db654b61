package tensorops

import "golang.org/x/sys/cpu"

// The AVX-512 kernels need only AVX512F (512-bit FMAs and conversions,
// opmask registers for the column tails) plus AVX for the final
// reductions. VL is required as well so that only the mainstream AVX-512
// cores (Skylake-SP and later) take this path, not the Xeon Phi parts.
// The cpu package already folds in whether the OS saves the ZMM and opmask
// state.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// The AVX2 kernels need 256-bit FMA; cpu.X86.HasAVX2 includes OS support.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

var avx512Kernels = kernelSet{
	name: "avx512",

	fused8F64: fused8F64AVX512,
	fused4F64: fused4F64AVX512,
	fused1F64: fused1F64AVX512,
	dot8F64:   dot8F64AVX512,
	dot4F64:   dot4F64AVX512,
	dot1F64:   dot1F64AVX512,
	axpy8F64:  axpy8F64AVX512,
	axpy4F64:  axpy4F64AVX512,
	axpy1F64:  axpy1F64AVX512,

	fused8F32: fused8F32AVX512,
	fused4F32: fused4F32AVX512,
	fused1F32: fused1F32AVX512,
	dot8F32:   dot8F32AVX512,
	dot4F32:   dot4F32AVX512,
	dot1F32:   dot1F32AVX512,
	axpy8F32:  axpy8F32AVX512,
	axpy4F32:  axpy4F32AVX512,
	axpy1F32:  axpy1F32AVX512,
}

var avx2Kernels = kernelSet{
	name: "avx2",

	fused8F64: fused8F64AVX2,
	fused4F64: fused4F64AVX2,
	fused1F64: fused1F64AVX2,
	dot8F64:   dot8F64AVX2,
	dot4F64:   dot4F64AVX2,
	dot1F64:   dot1F64AVX2,
	axpy8F64:  axpy8F64AVX2,
	axpy4F64:  axpy4F64AVX2,
	axpy1F64:  axpy1F64AVX2,

	fused8F32: fused8F32AVX2,
	fused4F32: fused4F32AVX2,
	fused1F32: fused1F32AVX2,
	dot8F32:   dot8F32AVX2,
	dot4F32:   dot4F32AVX2,
	dot1F32:   dot1F32AVX2,
	axpy8F32:  axpy8F32AVX2,
	axpy4F32:  axpy4F32AVX2,
	axpy1F32:  axpy1F32AVX2,
}

// availableKernels lists the implementations this CPU can run, best first.
func availableKernels() []*kernelSet {
	var ks []*kernelSet
	if haveAVX512 {
		ks = append(ks, &avx512Kernels)
	}
	if haveAVX2 {
		ks = append(ks, &avx2Kernels)
	}
	return append(ks, &genericKernels)
}

// The assembly kernels (kernels_amd64.s) take the same, already validated,
// arguments as the generic ones; they only use the base pointers of the
// slices and never look at lengths.

//go:noescape
func fused8F64AVX512(a []float64, lda, n int, q, s []float64, p, dots *[8]float64)

//go:noescape
func dot8F64AVX512(a []float64, lda, n int, q []float64, dots *[8]float64)

//go:noescape
func axpy8F64AVX512(a []float64, lda, n int, s []float64, p *[8]float64)

//go:noescape
func fused8F32AVX512(a []float32, lda, n int, q, s []float64, p, dots *[8]float64)

//go:noescape
func dot8F32AVX512(a []float32, lda, n int, q []float64, dots *[8]float64)

//go:noescape
func axpy8F32AVX512(a []float32, lda, n int, s []float64, p *[8]float64)

//go:noescape
func fused4F64AVX512(a []float64, lda, n int, q, s []float64, p, dots *[4]float64)

//go:noescape
func fused1F64AVX512(a []float64, n int, q, s []float64, p float64) float64

//go:noescape
func dot4F64AVX512(a []float64, lda, n int, q []float64, dots *[4]float64)

//go:noescape
func dot1F64AVX512(a []float64, n int, q []float64) float64

//go:noescape
func axpy4F64AVX512(a []float64, lda, n int, s []float64, p *[4]float64)

//go:noescape
func axpy1F64AVX512(a []float64, n int, s []float64, p float64)

//go:noescape
func fused4F32AVX512(a []float32, lda, n int, q, s []float64, p, dots *[4]float64)

//go:noescape
func fused1F32AVX512(a []float32, n int, q, s []float64, p float64) float64

//go:noescape
func dot4F32AVX512(a []float32, lda, n int, q []float64, dots *[4]float64)

//go:noescape
func dot1F32AVX512(a []float32, n int, q []float64) float64

//go:noescape
func axpy4F32AVX512(a []float32, lda, n int, s []float64, p *[4]float64)

//go:noescape
func axpy1F32AVX512(a []float32, n int, s []float64, p float64)

//go:noescape
func fused8F64AVX2(a []float64, lda, n int, q, s []float64, p, dots *[8]float64)

//go:noescape
func dot8F64AVX2(a []float64, lda, n int, q []float64, dots *[8]float64)

//go:noescape
func axpy8F64AVX2(a []float64, lda, n int, s []float64, p *[8]float64)

//go:noescape
func fused8F32AVX2(a []float32, lda, n int, q, s []float64, p, dots *[8]float64)

//go:noescape
func dot8F32AVX2(a []float32, lda, n int, q []float64, dots *[8]float64)

//go:noescape
func axpy8F32AVX2(a []float32, lda, n int, s []float64, p *[8]float64)

//go:noescape
func fused4F64AVX2(a []float64, lda, n int, q, s []float64, p, dots *[4]float64)

//go:noescape
func fused1F64AVX2(a []float64, n int, q, s []float64, p float64) float64

//go:noescape
func dot4F64AVX2(a []float64, lda, n int, q []float64, dots *[4]float64)

//go:noescape
func dot1F64AVX2(a []float64, n int, q []float64) float64

//go:noescape
func axpy4F64AVX2(a []float64, lda, n int, s []float64, p *[4]float64)

//go:noescape
func axpy1F64AVX2(a []float64, n int, s []float64, p float64)

//go:noescape
func fused4F32AVX2(a []float32, lda, n int, q, s []float64, p, dots *[4]float64)

//go:noescape
func fused1F32AVX2(a []float32, n int, q, s []float64, p float64) float64

//go:noescape
func dot4F32AVX2(a []float32, lda, n int, q []float64, dots *[4]float64)

//go:noescape
func dot1F32AVX2(a []float32, n int, q []float64) float64

//go:noescape
func axpy4F32AVX2(a []float32, lda, n int, s []float64, p *[4]float64)

//go:noescape
func axpy1F32AVX2(a []float32, n int, s []float64, p float64)
