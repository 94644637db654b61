package main

// The float32 matrix-product micro-kernels of internal/sgemm (see
// internal/sgemm/sgemm.go for the blocking around them).
//
// A kernel computes one whole tile of C = act(A·B + bias): MR rows by NR
// columns, where A is read in place (row-major, stride lda) and B is a
// packed panel, k rows of exactly NR contiguous float32s, so every step p
// loads NR values of B with aligned-free full-width loads and broadcasts
// one element of each of the MR rows of A. The tile lives in registers for
// the whole k loop: MR·NR/lanes accumulators, initialized with the bias.
//
//	AVX-512 (MR=12, NR=32): 24 ZMM accumulators, two ZMM for the B row;
//	        the A elements are broadcast by the FMAs' embedded broadcast
//	        ({1to16}) from memory, so no register holds them.
//	AVX2    (MR=6, NR=16): 12 YMM accumulators, two YMM for the B row, one
//	        for the broadcast A element (15 of the 16 YMM registers).
//
// Both keep enough independent FMA chains (24 or 12) to cover the 4-cycle
// FMA latency on two FMA pipes, and both issue far fewer loads than FMAs.
// The k loop is unrolled four times (then one step at a time).
//
// The activation, when act != 0, is the tanh of the gan package: Eigen's
// rational approximation (the input clamped to ±7.905, odd numerator of
// degree 13 over even denominator of degree 6, and x itself for
// |x| < 0.0004), applied to each accumulator in registers before its
// store, so a hidden layer costs no second pass over memory.
//
// Register use (GP): AX, BX, R8 = rows 0, 4, 8 of A (AVX2: AX, BX = rows 0
// and 3), advanced by 4 bytes a step; R9 = lda in bytes, R10 = 3·lda;
// SI = the packed B panel; CX = steps left; DI = C, R11 = ldc in bytes.

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// A gemmShape is one instruction set's micro-kernel.
type gemmShape struct {
	isa    isa
	mr     int // rows of the tile
	lanes  int // float32 lanes of a vector
	perRow int // vectors per tile row (NR = perRow·lanes)
}

var gemmShapes = []gemmShape{
	{isa: avx512, mr: 12, lanes: 16, perRow: 2},
	{isa: avx2, mr: 6, lanes: 8, perRow: 2},
}

func (g gemmShape) nr() int { return g.lanes * g.perRow }

// vec returns vector register i at the kernel's width.
func (g gemmShape) vec(i int) reg.VecPhysical { return g.isa.vec.v(i) }

// acc returns the accumulator of row i, vector h of the tile.
func (g gemmShape) acc(i, h int) reg.VecPhysical { return g.vec(i*g.perRow + h) }

// The tanh constants, in the order the epilogue uses them.
var tanhConsts = []struct {
	name string
	v    float32
}{
	{"hi", 7.90531110763549805}, {"lo", -7.90531110763549805},
	{"p0", -2.76076847742355e-16}, {"p1", 2.00018790482477e-13}, {"p2", -8.60467152213735e-11},
	{"p3", 5.12229709037114e-08}, {"p4", 1.48572235717979e-05}, {"p5", 6.37261928875436e-04},
	{"p6", 4.89352455891786e-03},
	{"q0", 1.19825839466702e-06}, {"q1", 1.18534705686654e-04}, {"q2", 2.26843463243900e-03},
	{"q3", 4.89352518554385e-03},
	{"tiny", 0.0004},
}

// absMask is the index of the sign-clearing mask after the constants, and
// absMask+1 that of the sign bit; the softplus constants follow.
var absMask = len(tanhConsts)

// emitSgemm emits the constant table and one tile kernel per instruction
// set, and returns the Go table of their shapes.
func emitSgemm(c *build.Context) string {
	tbl := c.StaticGlobal("tanhconsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	// Eight lanes of each constant: a whole YMM operand for AVX2; the
	// AVX-512 kernel broadcasts the first lane.
	for i, k := range tanhConsts {
		for l := range 8 {
			c.AddDatum(32*i+4*l, f32bits(k.v))
		}
	}
	// The assembler wants the data in ascending order.
	for l := range 8 {
		c.AddDatum(32*absMask+4*l, operand.U32(0x7fffffff))
	}
	for l := range 8 {
		c.AddDatum(32*(absMask+1)+4*l, operand.U32(0x80000000))
	}
	for i, k := range softplusConsts {
		for l := range 8 {
			c.AddDatum(32*(absMask+2+i)+4*l, f32bits(k.v))
		}
	}
	extra := "\n"
	for _, g := range gemmShapes {
		g.emit(asm{c}, tbl)
		g.emitSoftplus(asm{c}, tbl)
		extra += fmt.Sprintf("// tile%sMR and tile%sNR are the tile of tile%s.\nconst (tile%sMR = %d; tile%sNR = %d)\n",
			g.isa.name, g.isa.name, g.isa.name, g.isa.name, g.mr, g.isa.name, g.nr())
	}
	return extra
}

// f32bits is v as the bits of a float32: avo prints a whole-numbered F32
// without a decimal point, which the assembler reads as an integer.
func f32bits(v float32) operand.U32 { return operand.U32(math.Float32bits(v)) }

func (g gemmShape) emit(a asm, tbl operand.Mem) {
	name := "tile" + g.isa.name
	a.Function(name)
	a.Attributes(attr.NOSPLIT)
	a.SignatureExpr("func(k int, a *float32, lda int, b *float32, bias *float32, c *float32, ldc int, act int, v *float32)")
	a.Doc(fmt.Sprintf("%s sets the %d×%d tile c = act(a·b + bias) with %s (see", name, g.mr, g.nr(), g.isa.title),
		"internal/asmgen/sgemm.go): a is read with stride lda, b is a packed panel",
		fmt.Sprintf("of k rows of %d, c is written with stride ldc; act 1 is tanh, 0 none.", g.nr()),
		fmt.Sprintf("With act 2 it adds instead to c[i] (i < %d) the dot product of row i of", g.mr),
		fmt.Sprintf("the tanh tile with v (%d values). Strides are in elements; k >= 1.", g.nr()))
	a.Pragma("noescape")
	param := func(n string) operand.Mem { return addr(a.Param(n)) }

	a.MOVQ(param("k"), reg.RCX)
	a.MOVQ(param("a"), reg.RAX)
	a.MOVQ(param("lda"), reg.R9)
	a.SHLQ(operand.U8(2), reg.R9)
	a.LEAQ(operand.Mem{Base: reg.R9, Index: reg.R9, Scale: 2}, reg.R10)
	// Rows 0..3 hang off AX, 4..7 off BX, 8..11 off R8 (AVX2: 0..2 off
	// AX, 3..5 off BX).
	group := 4
	if g.isa.vec == ymm {
		group = 3
		a.LEAQ(operand.Mem{Base: reg.RAX, Index: reg.R10, Scale: 1}, reg.RBX)
	} else {
		a.LEAQ(operand.Mem{Base: reg.RAX, Index: reg.R9, Scale: 4}, reg.RBX)
		a.LEAQ(operand.Mem{Base: reg.RBX, Index: reg.R9, Scale: 4}, reg.R8)
	}
	bases := []reg.GPPhysical{reg.RAX, reg.RBX, reg.R8}
	rowAddr := func(i, disp int) operand.Mem {
		m := operand.Mem{Base: bases[i/group], Disp: disp}
		switch i % group {
		case 1:
			m.Index, m.Scale = reg.R9, 1
		case 2:
			m.Index, m.Scale = reg.R9, 2
		case 3:
			m.Index, m.Scale = reg.R10, 1
		}
		return m
	}
	a.MOVQ(param("b"), reg.RSI)

	a.Comment("The accumulators start as the bias.")
	a.MOVQ(param("bias"), reg.RDX)
	bv := []reg.VecPhysical{g.vec(g.mr * g.perRow), g.vec(g.mr*g.perRow + 1)}
	for h := range g.perRow {
		a.VMOVUPS(operand.Mem{Base: reg.RDX, Disp: 4 * g.lanes * h}, bv[h])
	}
	for i := range g.mr {
		for h := range g.perRow {
			a.VMOVAPS(bv[h], g.acc(i, h))
		}
	}

	step := func(u int) {
		for h := range g.perRow {
			a.VMOVUPS(operand.Mem{Base: reg.RSI, Disp: 4 * (u*g.nr() + h*g.lanes)}, bv[h])
		}
		for i := range g.mr {
			m := rowAddr(i, 4*u)
			if g.isa.vec == zmm {
				for h := range g.perRow {
					a.VFMADD231PS_BCST(m, bv[h], g.acc(i, h))
				}
				continue
			}
			bc := g.vec(g.mr*g.perRow + 2)
			a.VBROADCASTSS(m, bc)
			for h := range g.perRow {
				a.VFMADD231PS(bv[h], bc, g.acc(i, h))
			}
		}
	}
	advance := func(u int) {
		for _, b := range bases[:(g.mr+group-1)/group] {
			a.ADDQ(operand.U32(4*u), b)
		}
		a.ADDQ(operand.U32(4*u*g.nr()), reg.RSI)
	}
	const unroll = 4
	a.Comment(fmt.Sprintf("%d steps at a time, then one.", unroll))
	a.CMPQ(reg.RCX, operand.U32(unroll))
	a.JL(operand.LabelRef(name + "one"))
	a.Label(name + "four")
	for u := range unroll {
		step(u)
	}
	advance(unroll)
	a.SUBQ(operand.U32(unroll), reg.RCX)
	a.CMPQ(reg.RCX, operand.U32(unroll))
	a.JGE(operand.LabelRef(name + "four"))
	a.Label(name + "one")
	a.TESTQ(reg.RCX, reg.RCX)
	a.JZ(operand.LabelRef(name + "act"))
	step(0)
	advance(1)
	a.DECQ(reg.RCX)
	a.JMP(operand.LabelRef(name + "one"))

	a.Label(name + "act")
	a.MOVQ(param("c"), reg.RDI)
	a.MOVQ(param("ldc"), reg.R11)
	a.SHLQ(operand.U8(2), reg.R11)
	a.CMPQ(param("act"), operand.U32(1))
	a.JL(operand.LabelRef(name + "store"))
	a.JG(operand.LabelRef(name + "dot"))
	for i := range g.mr {
		for h := range g.perRow {
			g.tanh(a, tbl, g.acc(i, h))
		}
	}
	a.Label(name + "store")
	for i := range g.mr {
		for h := range g.perRow {
			a.VMOVUPS(g.acc(i, h), operand.Mem{Base: reg.RDI, Disp: 4 * g.lanes * h})
		}
		if i < g.mr-1 {
			a.ADDQ(reg.R11, reg.RDI)
		}
	}
	a.VZEROUPPER()
	a.RET()

	a.Label(name + "dot")
	g.dot(a, tbl, param("v"))
	a.VZEROUPPER()
	a.RET()
}

// dot finishes the tile of a hidden layer and the single output after it:
// row by row, the tanh of the accumulators, their dot product with v, its
// horizontal sum, added to the row's output (DI, 4 bytes a row).
func (g gemmShape) dot(a asm, tbl operand.Mem, v operand.Mem) {
	n := g.mr * g.perRow
	a.MOVQ(v, reg.RDX)
	vs := []operand.Op{operand.Mem{Base: reg.RDX}, operand.Mem{Base: reg.RDX, Disp: 4 * g.lanes}}
	// Scratch for the sum: two registers past the tanh's four.
	s0, s1 := n+4, n+5
	if g.isa.vec == zmm {
		for h := range g.perRow {
			a.VMOVUPS(vs[h], g.vec(s0+h))
			vs[h] = g.vec(s0 + h)
		}
		s0, s1 = n+6, n+7
	} else {
		// AVX2 has no registers to spare: the tanh's scratch is free
		// once the row's tanh is done.
		s0, s1 = n, n+1
	}
	for i := range g.mr {
		x := g.acc(i, 0)
		for h := range g.perRow {
			g.tanh(a, tbl, g.acc(i, h))
		}
		a.VMULPS(vs[0], x, x)
		a.VFMADD231PS(vs[1], g.acc(i, 1), x)
		y := ymm.v(i * g.perRow)
		// Registers 16..31 need the EVEX forms, hence VEXTRACTF32X4.
		if g.isa.vec == zmm {
			a.VEXTRACTF64X4(operand.U8(1), x, ymm.v(s0))
			a.VADDPS(ymm.v(s0), y, y)
			a.VEXTRACTF32X4(operand.U8(1), y, sd.v(s0))
		} else {
			a.VEXTRACTF128(operand.U8(1), y, sd.v(s0))
		}
		lo := sd.v(i * g.perRow)
		a.VADDPS(sd.v(s0), lo, lo)
		a.VPERMILPS(operand.U8(0x4e), lo, sd.v(s1))
		a.VADDPS(sd.v(s1), lo, lo)
		a.VPERMILPS(operand.U8(0xb1), lo, sd.v(s1))
		a.VADDSS(sd.v(s1), lo, lo)
		out := operand.Mem{Base: reg.RDI, Disp: 4 * i}
		a.VADDSS(out, lo, lo)
		a.VMOVSS(lo, out)
	}
}

// tanh replaces x by its tanh, using the registers after the tile's
// accumulators as scratch.
func (g gemmShape) tanh(a asm, tbl operand.Mem, x reg.VecPhysical) {
	n := g.mr * g.perRow
	x2, p, q, t := g.vec(n), g.vec(n+1), g.vec(n+2), g.vec(n+3)
	cst := func(i int) operand.Mem { m := tbl; m.Disp += 32 * i; return m }
	wide := g.isa.vec == zmm
	// op applies a two-source instruction with a constant operand: the
	// AVX-512 form broadcasts lane 0, the AVX2 form reads all eight.
	op := func(bcst, plain func(...operand.Op), i int, src, dst reg.VecPhysical) {
		if wide {
			bcst(cst(i), src, dst)
		} else {
			plain(cst(i), src, dst)
		}
	}
	load := func(i int, dst reg.VecPhysical) {
		if wide {
			a.VBROADCASTSS(cst(i), dst)
		} else {
			a.VMOVUPS(cst(i), dst)
		}
	}
	op(a.VMINPS_BCST, a.VMINPS, 0, x, x)
	op(a.VMAXPS_BCST, a.VMAXPS, 1, x, x)
	a.VMULPS(x, x, x2)
	load(2, p)
	for i := 3; i <= 8; i++ {
		op(a.VFMADD213PS_BCST, a.VFMADD213PS, i, x2, p)
	}
	a.VMULPS(x, p, p)
	load(9, q)
	for i := 10; i <= 12; i++ {
		op(a.VFMADD213PS_BCST, a.VFMADD213PS, i, x2, q)
	}
	a.VDIVPS(q, p, p)
	// Where |x| < tiny the result is x itself.
	const lessThan, notLess = 0x11, 0x1d // LT_OQ, GE_OQ
	if wide {
		a.VPANDD_BCST(cst(absMask), x, t)
		a.VCMPPS_BCST(operand.U8(notLess), cst(13), t, reg.K1)
		a.VMOVAPS(p, reg.K1, x)
		return
	}
	a.VANDPS(cst(absMask), x, t)
	a.VCMPPS(operand.U8(lessThan), cst(13), t, t)
	a.VBLENDVPS(t, x, p, x)
}

// The softplus of the log loss, log(1 + e^t), in place over a float32
// vector, one vector of lanes at a time (the Go side does the last
// len mod lanes values):
//
//	softplus(t) = max(t, 0) + log1p(e), e = e^−|t|,
//
// e by Cephes' expf (2^n times a degree-7 polynomial of the remainder
// r = x − n ln2, |r| ≤ ln2/2; −|t| clamped at −80, where e is far below
// anything that can matter next to the result), and log1p(e) as
// 2 atanh(s) = 2(s + s³/3 + … + s¹³/13) with s = e/(2+e) ≤ 1/3, whose
// truncation error is below 1e-8 relative. A scalar loop over every value
// was half the time of a payoff evaluation: the chains of dependent
// operations, not their number, set its pace.

// softplusConsts are the constants of the softplus, after tanhconsts'.
var softplusConsts = []struct {
	name string
	v    float32
}{
	{"lo", -80}, {"log2e", 1.44269504088896341}, {"c1", 0.693359375}, {"c2", -2.12194440e-4},
	{"e0", 1.9875691500e-4}, {"e1", 1.3981999507e-3}, {"e2", 8.3334519073e-3},
	{"e3", 4.1665795894e-2}, {"e4", 1.6666665459e-1}, {"e5", 5.0000001201e-1},
	{"one", 1}, {"two", 2},
	{"a13", 1.0 / 13}, {"a11", 1.0 / 11}, {"a9", 1.0 / 9}, {"a7", 1.0 / 7}, {"a5", 1.0 / 5}, {"a3", 1.0 / 3},
}

// softplusIndex returns the index of a named softplus constant in the table.
func softplusIndex(name string) int {
	for i, c := range softplusConsts {
		if c.name == name {
			return absMask + 2 + i
		}
	}
	panic("no constant " + name)
}

func (g gemmShape) emitSoftplus(a asm, tbl operand.Mem) {
	name := "softplus" + g.isa.name
	a.Function(name)
	a.Attributes(attr.NOSPLIT)
	a.SignatureExpr("func(x *float32, n int)")
	a.Doc(fmt.Sprintf("%s replaces each of the n values at x, a multiple of %d,", name, g.lanes),
		fmt.Sprintf("by its softplus log(1 + e^t), with %s (see internal/asmgen/sgemm.go).", g.isa.title))
	a.Pragma("noescape")
	a.MOVQ(addr(a.Param("x")), reg.RAX)
	a.MOVQ(addr(a.Param("n")), reg.RCX)
	a.SHRQ(operand.U8(log2(g.lanes)), reg.RCX)
	a.JZ(operand.LabelRef(name + "done"))
	wide := g.isa.vec == zmm
	cst := func(n string) operand.Mem {
		m := tbl
		if n == "sign" {
			m.Disp += 32 * (absMask + 1)
		} else {
			m.Disp += 32 * softplusIndex(n)
		}
		return m
	}
	op := func(bcst, plain func(...operand.Op), n string, src, dst reg.VecPhysical) {
		if wide {
			bcst(cst(n), src, dst)
		} else {
			plain(cst(n), src, dst)
		}
	}
	v := g.vec
	t, m, x, nn, r, y, r2, s := v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7)
	zero := v(8)
	a.VXORPS(ymm.v(8), ymm.v(8), ymm.v(8)) // a VEX write clears the whole register
	a.Label(name + "loop")
	a.VMOVUPS(operand.Mem{Base: reg.RAX}, t)
	a.VMAXPS(zero, t, m)
	op(a.VPORD_BCST, a.VORPS, "sign", t, x)
	op(a.VMAXPS_BCST, a.VMAXPS, "lo", x, x)
	op(a.VMULPS_BCST, a.VMULPS, "log2e", x, nn)
	if wide {
		a.VRNDSCALEPS(operand.U8(0), nn, nn)
	} else {
		a.VROUNDPS(operand.U8(0), nn, nn)
	}
	a.VMOVAPS(x, r)
	op(a.VFNMADD231PS_BCST, a.VFNMADD231PS, "c1", nn, r)
	op(a.VFNMADD231PS_BCST, a.VFNMADD231PS, "c2", nn, r)
	a.VMULPS(r, r, r2)
	if wide {
		a.VBROADCASTSS(cst("e0"), y)
	} else {
		a.VMOVUPS(cst("e0"), y)
	}
	for _, c := range []string{"e1", "e2", "e3", "e4", "e5"} {
		op(a.VFMADD213PS_BCST, a.VFMADD213PS, c, r, y)
	}
	// y·r² + r + 1, then times 2^n by adding n to the exponent.
	a.VFMADD213PS(r, r2, y)
	op(a.VADDPS_BCST, a.VADDPS, "one", y, y)
	a.VCVTPS2DQ(nn, nn)
	a.VPSLLD(operand.U8(23), nn, nn)
	a.VPADDD(nn, y, y)
	// s = e/(2+e), then max(t, 0) + 2s·P(s²).
	op(a.VADDPS_BCST, a.VADDPS, "two", y, x)
	a.VDIVPS(x, y, s)
	a.VMULPS(s, s, r2)
	if wide {
		a.VBROADCASTSS(cst("a13"), y)
	} else {
		a.VMOVUPS(cst("a13"), y)
	}
	for _, c := range []string{"a11", "a9", "a7", "a5", "a3", "one"} {
		op(a.VFMADD213PS_BCST, a.VFMADD213PS, c, r2, y)
	}
	a.VADDPS(s, s, s)
	a.VFMADD231PS(s, y, m)
	a.VMOVUPS(m, operand.Mem{Base: reg.RAX})
	a.ADDQ(operand.U32(4*g.lanes), reg.RAX)
	a.DECQ(reg.RCX)
	a.JNZ(operand.LabelRef(name + "loop"))
	a.Label(name + "done")
	a.VZEROUPPER()
	a.RET()
}
