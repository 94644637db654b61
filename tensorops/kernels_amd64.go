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

// avx512Kernels and avx2Kernels, and the assembly they call, are in the
// generated kernels_stubs_amd64.go and kernels_amd64.s.

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
