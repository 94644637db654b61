package memread

import "golang.org/x/sys/cpu"

// available lists the implementations this CPU can run, best first. The
// AVX-512 read needs only AVX512F (VPXORQ and VEXTRACTI64X4 on ZMM
// registers), the AVX2 one AVX2 (VPXOR on YMM registers); cpu.X86 already
// folds in whether the OS saves the registers.
func available() []impl {
	var is []impl
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX2 {
		is = append(is, impl{"avx512", func(b []byte) uint64 { return xorWords(b, true) }})
	}
	if cpu.X86.HasAVX2 {
		is = append(is, impl{"avx2", func(b []byte) uint64 { return xorWords(b, false) }})
	}
	return append(is, impl{"generic", xorGeneric})
}
