package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Shared by the kernels and the read loop.

// pfDist is the prefetch distance in bytes: anything from 1 to 4 KiB
// measured the same, as did PREFETCHT1 instead of PREFETCHT0, while
// PREFETCHNTA slowed the reads down severely.
const pfDist = 2048

// lineBytes is the size of a cache line.
const lineBytes = 64

// An isa is one instruction set the kernels are written for.
type isa struct {
	name  string // suffix of the function names
	title string // for the documentation
	vec   form   // the widest vector form
	// masked: the column tails are 8-wide steps whose loads and stores
	// are masked by an opmask (AVX-512), so no element at or beyond the
	// end is touched (a masked-off lane also suppresses the memory
	// fault); otherwise (AVX2) a scalar loop finishes the row.
	masked bool
}

var (
	avx512 = isa{name: "AVX512", title: "AVX-512", vec: zmm, masked: true}
	avx2   = isa{name: "AVX2", title: "AVX2 and FMA", vec: ymm}
	isas   = []isa{avx512, avx2}
)

// A form is the width an instruction works at: a ZMM or YMM register of
// float64 lanes, or the low float64 of an XMM register (sd, the AVX2 scalar
// tails).
type form struct {
	spec  reg.Spec
	lanes int
}

var (
	zmm = form{reg.S512, 8}
	ymm = form{reg.S256, 4}
	sd  = form{reg.S128, 1}
)

// v returns vector register i at this width (Z4, Y4 or X4 for 4).
func (f form) v(i int) reg.VecPhysical {
	return reg.Vector.Lookup(reg.Index(i), f.spec).(reg.VecPhysical)
}

// asm wraps the avo context with the instructions the emitters need at a
// given form. A non-nil mask k makes loads zero the lanes it excludes and
// stores skip them.
type asm struct{ *build.Context }

// load loads f.lanes elements from m into dst as float64s, converting
// float32s (f32).
func (a asm) load(f form, f32 bool, m operand.Mem, k reg.Register, dst reg.VecPhysical) {
	switch {
	case f == sd && f32:
		a.VCVTSS2SD(m, dst, dst)
	case f == sd:
		a.VMOVSD(m, dst)
	case f32 && k != nil:
		a.VCVTPS2PD_Z(m, k, dst)
	case f32:
		a.VCVTPS2PD(m, dst)
	case k != nil:
		a.VMOVUPD_Z(m, k, dst)
	default:
		a.VMOVUPD(m, dst)
	}
}

// store stores the f.lanes float64s of src to m.
func (a asm) store(f form, src reg.VecPhysical, k reg.Register, m operand.Mem) {
	if f == sd {
		a.VMOVSD(src, m)
	} else if k != nil {
		a.VMOVUPD(src, k, m)
	} else {
		a.VMOVUPD(src, m)
	}
}

// arith emits the scalar form (for sd) or the packed form of an
// instruction.
func (a asm) arith(f form, scalar, packed func(...operand.Op), ops ...operand.Op) {
	if f == sd {
		scalar(ops...)
	} else {
		packed(ops...)
	}
}

// fma sets acc += x*y, mul dst = x*y and add dst += x.
func (a asm) fma(f form, x, y, acc operand.Op) { a.arith(f, a.VFMADD231SD, a.VFMADD231PD, x, y, acc) }
func (a asm) mul(f form, x, y, dst operand.Op) { a.arith(f, a.VMULSD, a.VMULPD, x, y, dst) }
func (a asm) add(f form, x, dst operand.Op)    { a.arith(f, a.VADDSD, a.VADDPD, x, dst, dst) }

// zero clears v. VPXORQ, not VXORPD, for a ZMM register: the 512-bit
// VXORPD needs AVX512DQ, which the kernels do not require.
func (a asm) zero(f form, v reg.VecPhysical) {
	if f == zmm {
		a.VPXORQ(v, v, v)
	} else {
		a.VXORPD(v, v, v)
	}
}

// lowMask sets k to the low (count mod lanes) bits, the lanes of a last
// partial vector, for count in a register or memory. Clobbers CX and R12.
func (a asm) lowMask(count operand.Op, lanes int, k reg.Register) {
	a.MOVQ(count, reg.RCX)
	a.ANDQ(operand.Imm(uint64(lanes-1)), reg.RCX)
	a.MOVL(operand.U32(1), reg.R12L)
	a.SHLQ(reg.CL, reg.R12)
	a.DECQ(reg.R12)
	a.KMOVW(reg.R12L, k)
}

// addr returns the address of a Go argument or result.
func addr(c gotypes.Component) operand.Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
