package main

// The plain read of internal/memread: the XOR of a byte range's 64-bit
// words, the yardstick of the kernels, so it must be the fastest plain
// read there is. Integer XOR has no floating-point assists and a 1-cycle
// latency, and it is the same for every element type.
//
// One sequential stream is far from the fastest read: the hardware
// prefetchers work within 4 KiB pages and one stream keeps too few cache
// misses in flight. So the range is split into sixteen equal segments that are read
// side by side, one cache line of each per iteration, with a prefetch
// pfDist bytes ahead in every segment. Unlike the kernels' loops, the read
// keeps prefetching in the last pfDist bytes of its segments, so that it
// needs only one loop: the prefetches then fetch the heads of the next
// segments again (or run past the end, which cannot fault), at most 32 KiB
// per call, far below what a measurement reads. The words after the
// sixteenth segment (under 128 KiB, see below) are read last, four at a
// time, then one at a time.
//
// Eight or sixteen segments read clearly faster than four, 32 no faster
// than 16, and most of the gain needs the prefetching; two lines per
// segment per iteration were no faster than one.
//
// Segment placement matters: sixteen segments that start at the same
// offset within their pages (a segment length that is a multiple of 4 KiB)
// read measurably slower than staggered ones. So a segment of 8 KiB or more is
// shortened to a length of 320 bytes (5 cache lines) past a multiple of
// 4 KiB, which puts the sixteen segment starts at sixteen different page
// offsets; the less than 128 KiB this leaves over is read at the end.
//
// Registers: DX = the number of words; R8..R13, SI, DI = the ends of
// segments 0..7; BX = segment length in bytes (a multiple of 64); AX =
// the (negative) byte offset from the segment ends, running from -BX to 0;
// CX = AX + 8*BX, the offset that reaches segments 8..15 from the same
// eight registers. Vector registers 0..15 = one accumulator per segment.
// Then AX = word index for the rest, which goes into accumulator 0.

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// segRegs hold the ends of segments 0..7 (and, indexed by CX, 8..15).
var segRegs = []reg.GPPhysical{reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.R13, reg.RSI, reg.RDI}

// emitMemread emits the read as one function for both instruction sets,
// chosen by its avx512 argument: they share everything but the loops over
// the segments, and after those the AVX-512 path folds its accumulators to
// 256 bits and joins the AVX2 one.
func emitMemread(c *build.Context) string {
	a := asm{c}
	a.Function("xorWords")
	a.Attributes(attr.NOSPLIT)
	a.SignatureExpr("func(b []byte, avx512 bool) uint64")
	a.Doc("xorWords returns the XOR of the len(b)/8 whole words of b, reading them",
		"with AVX-512 or AVX2 instructions (see internal/asmgen/memread.go).")
	a.Pragma("noescape")
	base := addr(a.Param("b").Base())

	a.MOVQ(base, reg.R8)
	a.MOVQ(addr(a.Param("b").Len()), reg.RDX)
	a.SHRQ(operand.U8(3), reg.RDX)
	// VEX instructions clear the upper half of the ZMM registers too.
	for r := range 16 {
		a.VPXOR(ymm.v(r), ymm.v(r), ymm.v(r))
	}
	a.Comment("The segment length: 1/16 of the words, rounded down to a cache line, staggered.")
	a.MOVQ(reg.RDX, reg.RBX)
	a.SHRQ(operand.U8(4), reg.RBX)
	a.SHLQ(operand.U8(3), reg.RBX)
	a.ANDQ(operand.I32(-lineBytes), reg.RBX)
	a.LEAQ(operand.Mem{Base: reg.RBX, Disp: -4096}, reg.RCX)
	a.ANDQ(operand.I32(-4096), reg.RCX)
	a.ADDQ(operand.U32(5*lineBytes), reg.RCX)
	a.CMPQ(reg.RBX, operand.U32(8192))
	a.CMOVQCC(reg.RCX, reg.RBX)
	a.TESTQ(reg.RBX, reg.RBX)
	a.JZ(operand.LabelRef("rest"))
	a.ADDQ(reg.RBX, reg.R8)
	for s := 1; s < len(segRegs); s++ {
		a.LEAQ(operand.Mem{Base: segRegs[s-1], Index: reg.RBX, Scale: 1}, segRegs[s])
	}
	a.MOVQ(reg.RBX, reg.RAX)
	a.NEGQ(reg.RAX)
	a.LEAQ(operand.Mem{Base: reg.RAX, Index: reg.RBX, Scale: 8}, reg.RCX)
	a.CMPB(addr(a.Param("avx512")), operand.U8(0))
	a.JNE(operand.LabelRef("zmm"))
	a.segments(ymm, "ymm")
	a.Comment("Fold the sixteen accumulators into Y0.")
	for h := 8; h >= 1; h /= 2 {
		for r := range h {
			a.VPXOR(ymm.v(r+h), ymm.v(r), ymm.v(r))
		}
	}
	a.JMP(operand.LabelRef("rest"))

	a.Label("zmm")
	a.segments(zmm, "zmm")
	a.Comment("Fold the sixteen accumulators into Z0, then its halves into Y0.")
	for h := 8; h >= 1; h /= 2 {
		for r := range h {
			a.VPXORQ(zmm.v(r+h), zmm.v(r), zmm.v(r))
		}
	}
	a.VEXTRACTI64X4(operand.U8(1), zmm.v(0), ymm.v(1))
	a.VPXOR(ymm.v(1), ymm.v(0), ymm.v(0))

	a.Comment("The words after the sixteenth segment: AX = 16*BX/8.")
	a.Label("rest")
	a.MOVQ(base, reg.R8)
	a.MOVQ(reg.RBX, reg.RAX)
	a.SHLQ(operand.U8(1), reg.RAX)
	a.MOVQ(reg.RDX, reg.RBX)
	a.SUBQ(operand.U32(ymm.lanes), reg.RBX)
	a.CMPQ(reg.RAX, reg.RBX)
	a.JG(operand.LabelRef("reduce"))
	a.Label("restvec")
	a.VPXOR(operand.Mem{Base: reg.R8, Index: reg.RAX, Scale: 8}, ymm.v(0), ymm.v(0))
	a.ADDQ(operand.U32(ymm.lanes), reg.RAX)
	a.CMPQ(reg.RAX, reg.RBX)
	a.JLE(operand.LabelRef("restvec"))
	a.Label("reduce")
	a.VEXTRACTI128(operand.U8(1), ymm.v(0), sd.v(1))
	a.VPXOR(sd.v(1), sd.v(0), sd.v(0))
	a.VPSHUFD(operand.U8(0x4e), sd.v(0), sd.v(1))
	a.VPXOR(sd.v(1), sd.v(0), sd.v(0))
	a.VMOVQ(sd.v(0), reg.R9)
	a.VZEROUPPER()
	a.Comment("The last len(b)/8 mod 4 words.")
	a.CMPQ(reg.RAX, reg.RDX)
	a.JAE(operand.LabelRef("done"))
	a.Label("scalar")
	a.XORQ(operand.Mem{Base: reg.R8, Index: reg.RAX, Scale: 8}, reg.R9)
	a.INCQ(reg.RAX)
	a.CMPQ(reg.RAX, reg.RDX)
	a.JB(operand.LabelRef("scalar"))
	a.Label("done")
	a.MOVQ(reg.R9, addr(a.ReturnIndex(0)))
	a.RET()
	return ""
}

// segments emits the loop over the sixteen segments, reading each line
// with vectors of form f into the segment's accumulator; its label is
// suffixed with sfx.
func (a asm) segments(f form, sfx string) {
	seg := func(s, disp int) operand.Mem {
		idx := reg.RAX
		if s >= 8 {
			idx = reg.RCX
		}
		return operand.Mem{Base: segRegs[s%8], Index: idx, Scale: 1, Disp: disp}
	}
	a.Label("loop" + sfx)
	for s := range 16 {
		a.PREFETCHT0(seg(s, pfDist))
		for off := 0; off < lineBytes; off += 8 * f.lanes {
			if f == zmm {
				a.VPXORQ(seg(s, off), f.v(s), f.v(s))
			} else {
				a.VPXOR(seg(s, off), f.v(s), f.v(s))
			}
		}
	}
	a.ADDQ(operand.U32(lineBytes), reg.RCX)
	a.ADDQ(operand.U32(lineBytes), reg.RAX)
	a.JNE(operand.LabelRef("loop" + sfx))
}
