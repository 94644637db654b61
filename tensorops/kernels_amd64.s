// Dense row kernels for amd64: AVX-512 and AVX2+FMA versions.
//
// All functions use Go's ABI0: arguments are read from the caller's frame
// through FP and no stack frame of their own is needed ($0). The Go side
// (kernels.go) has validated every length, so the code below trusts n and
// lda and only uses the base pointers of the slices.
//
// Common register use:
//
//	AX        column index j (in elements, scaled by the addressing mode)
//	DX        n, the number of columns
//	BX        lda at entry, then the end of the current column loop
//	R8..R11   matrix rows 0..3 (row k = a + k*lda)
//	SI, DI    q and s
//	R13       p at entry; then 4*lda in bytes (distance to the next row
//	          group, see "Prefetching")
//	R12       offset into the next row group while prefetching it;
//	          scratch for the tail mask
//	CX        scratch
//
// The 8-row kernels address rows 4..7 through CX and use R12 and R13 for
// the next row group; see "AVX-512, eight rows".
//
// Unrolling. The matrix comes from memory, so the unrolling only needs to
// keep the loads flowing and to hide the 4-cycle latency of the FMAs that
// feed the dot products: the 4-row kernels keep two independent
// accumulators per row (8 chains), the 8-row kernels one (8 chains as
// well), the 1-row kernels four. The column update of
// s has no loop-carried dependency (every iteration works on new elements
// of s), so it needs no extra accumulators.
//
// Column tails. The AVX-512 kernels finish with 8-wide steps whose loads and
// stores are masked by K1, so no element at or beyond n is touched (a
// masked-off lane also suppresses the memory fault). The AVX2 kernels finish
// with one 4-wide step and a scalar loop of at most 3 columns.
//
// Prefetching. With four rows in flight the hardware prefetchers alone reach
// only about 85% of the machine's read bandwidth, because they stop at every
// 4 KiB page boundary and must ramp up again. The 4- and 8-row kernels
// therefore run in three stages:
//
//	looppf  all but the last PFDIST bytes of the rows: also prefetch every
//	        row PFDIST bytes ahead; the prefetches never leave the rows, so
//	        for a column block of a wider matrix (lda > n) no bandwidth goes
//	        to columns outside the block;
//	loop    the last PFDIST bytes: prefetch instead the first bytes of the
//	        rows 4*lda (8-row kernels: 8*lda) further on, where a caller
//	        sweeping the matrix four (eight) rows at a time starts its next
//	        call, which would otherwise begin with unprefetched rows (this
//	        was worth ~5% for float32, whose rows are half as many bytes,
//	        with either group size); a caller with another order pays at
//	        most 4*PFDIST (8*PFDIST) bytes of extra reads per call.
//	        Prefetches never fault, so running past the end of the matrix
//	        is harmless;
//	tail    the last n mod 16 (AVX2: n mod 8) columns.
//
// The 1-row kernels do not prefetch: they serve only the m mod 4 leftover
// rows, and a single stream gains little from it.
//
// Prefetch distances of 1, 2, 3 and 4 KiB, and PREFETCHT1 instead of
// PREFETCHT0, measured the same within noise for the 8-row kernels as well
// (12000x12000, 2 threads); PREFETCHNTA ran at a third to a half of the
// read rate.
//
// Every kernel ends with VZEROUPPER so that SSE code in the Go runtime does
// not pay the AVX-SSE transition penalty.

#include "textflag.h"

// ---------------------------------------------------------------------------
// Shared macros.

// TAILMASK8 sets K1 to the low min(n-j, 8) bits: the valid lanes of the next
// 8-wide step. Clobbers CX and R12.
#define TAILMASK8 \
	MOVQ    DX, CX;      \
	SUBQ    AX, CX;      \
	MOVL    $8, R12;     \
	CMPQ    CX, R12;     \
	CMOVQGT R12, CX;     \
	MOVL    $1, R12;     \
	SHLQ    CX, R12;     \
	DECQ    R12;         \
	KMOVW   R12, K1

// PFDIST is the prefetch distance in bytes: 1-4 KiB all measured the same
// within noise (6000x6000 float64, best of 25 passes: 15.0 GB/s without
// prefetching, 17.7 GB/s with). PFDIST2 is the cache line after it;
// PFCOLS64 and PFCOLS32 are PFDIST in float64 and float32 columns.
#define PFDIST 2048
#define PFDIST2 2112
#define PFCOLS64 256
#define PFCOLS32 512

// PREFETCH4X2 prefetches two cache lines per row (128 bytes: 16 float64
// columns); PREFETCH4X1 one line per row. scale is the element size.
#define PREFETCH4X2(scale) \
	PREFETCHT0 PFDIST(R8)(AX*scale);   \
	PREFETCHT0 PFDIST2(R8)(AX*scale);  \
	PREFETCHT0 PFDIST(R9)(AX*scale);   \
	PREFETCHT0 PFDIST2(R9)(AX*scale);  \
	PREFETCHT0 PFDIST(R10)(AX*scale);  \
	PREFETCHT0 PFDIST2(R10)(AX*scale); \
	PREFETCHT0 PFDIST(R11)(AX*scale);  \
	PREFETCHT0 PFDIST2(R11)(AX*scale)

#define PREFETCH4X1(scale) \
	PREFETCHT0 PFDIST(R8)(AX*scale);  \
	PREFETCHT0 PFDIST(R9)(AX*scale);  \
	PREFETCHT0 PFDIST(R10)(AX*scale); \
	PREFETCHT0 PFDIST(R11)(AX*scale)

// PREFETCHNEXT4X2 and PREFETCHNEXT4X1 prefetch two or one cache lines at
// R12 bytes from the current rows, where R12 = 4*lda*size plus the bytes
// already prefetched: the heads of the rows of the next 4-row group.
#define PREFETCHNEXT4X2 \
	PREFETCHT0 (R8)(R12*1);    \
	PREFETCHT0 64(R8)(R12*1);  \
	PREFETCHT0 (R9)(R12*1);    \
	PREFETCHT0 64(R9)(R12*1);  \
	PREFETCHT0 (R10)(R12*1);   \
	PREFETCHT0 64(R10)(R12*1); \
	PREFETCHT0 (R11)(R12*1);   \
	PREFETCHT0 64(R11)(R12*1)

#define PREFETCHNEXT4X1 \
	PREFETCHT0 (R8)(R12*1);  \
	PREFETCHT0 (R9)(R12*1);  \
	PREFETCHT0 (R10)(R12*1); \
	PREFETCHT0 (R11)(R12*1)

// ZEROZ8 clears the eight accumulators Z4..Z11.
#define ZEROZ8 \
	VPXORQ Z4, Z4, Z4;    \
	VPXORQ Z5, Z5, Z5;    \
	VPXORQ Z6, Z6, Z6;    \
	VPXORQ Z7, Z7, Z7;    \
	VPXORQ Z8, Z8, Z8;    \
	VPXORQ Z9, Z9, Z9;    \
	VPXORQ Z10, Z10, Z10; \
	VPXORQ Z11, Z11, Z11

// ROWPTRS4 derives the row pointers R9..R11 from R8 (row 0) and BX (lda).
#define ROWPTRS4(scale) \
	LEAQ (R8)(BX*scale), R9;  \
	LEAQ (R9)(BX*scale), R10; \
	LEAQ (R10)(BX*scale), R11

// HSUM4YR reduces four row accumulators a, b, c, d (four lanes each) to one
// vector a = [Σ a, Σ b, Σ c, Σ d] with two horizontal adds and a 128-bit
// lane shuffle, instead of four separate scalar reductions; b and c are
// clobbered. The instructions are VEX-only: the registers must be Y0..Y15.
#define HSUM4YR(a, b, c, d) \
	VHADDPD    b, a, a;       \
	VHADDPD    d, c, c;       \
	VPERM2F128 $0x20, c, a, b; \
	VPERM2F128 $0x31, c, a, a; \
	VADDPD     b, a, a

// HSUM4Y reduces the accumulators Y4..Y7 to Y4.
#define HSUM4Y HSUM4YR(Y4, Y5, Y6, Y7)

// HSUM4Z folds the two accumulators per row (Z4..Z7 and Z8..Z11) and then
// the 512-bit vectors into 256 bits, and finishes with HSUM4Y.
#define HSUM4Z \
	VADDPD        Z8, Z4, Z4;   \
	VADDPD        Z9, Z5, Z5;   \
	VADDPD        Z10, Z6, Z6;  \
	VADDPD        Z11, Z7, Z7;  \
	VEXTRACTF64X4 $1, Z4, Y8;   \
	VEXTRACTF64X4 $1, Z5, Y9;   \
	VEXTRACTF64X4 $1, Z6, Y10;  \
	VEXTRACTF64X4 $1, Z7, Y11;  \
	VADDPD        Y8, Y4, Y4;   \
	VADDPD        Y9, Y5, Y5;   \
	VADDPD        Y10, Y6, Y6;  \
	VADDPD        Y11, Y7, Y7;  \
	HSUM4Y

// HSUM1Y reduces Y4 to the scalar X4.
#define HSUM1Y \
	VEXTRACTF128 $1, Y4, X5; \
	VADDPD       X5, X4, X4; \
	VPERMILPD    $1, X4, X5; \
	VADDSD       X5, X4, X4

// HSUM1Z reduces Z4..Z7 to the scalar X4.
#define HSUM1Z \
	VADDPD        Z5, Z4, Z4; \
	VADDPD        Z7, Z6, Z6; \
	VADDPD        Z6, Z4, Z4; \
	VEXTRACTF64X4 $1, Z4, Y5; \
	VADDPD        Y5, Y4, Y4; \
	HSUM1Y

// ---------------------------------------------------------------------------
// AVX-512, four rows.
//
// Registers: Z0..Z3 = p[0..3] broadcast; Z4..Z7 = dot accumulators of rows
// 0..3 for the first 8 columns of a 16-column iteration, Z8..Z11 for the
// second 8; Z16..Z19 = matrix tiles of rows 0..3; Z20 = q; Z21 = s.
//
// The loads and stores of one 8-column step are always masked so that the
// same macro serves the main loop (K2 = all lanes) and the tail (K1); a
// mask costs nothing on loads and stores. K2 rather than K0 holds the
// all-lanes mask because K0 cannot be named as a write mask.

// FUSED4F64STEP: 8 columns at byte offset off from column j.
// Dots: d_k += a_k*q; column update: s += p0*a0 + p1*a1 + p2*a2 + p3*a3.
#define FUSED4F64STEP(off, K, d0, d1, d2, d3) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16;  \
	VMOVUPD.Z   off(R9)(AX*8), K, Z17;  \
	VMOVUPD.Z   off(R10)(AX*8), K, Z18; \
	VMOVUPD.Z   off(R11)(AX*8), K, Z19; \
	VMOVUPD.Z   off(SI)(AX*8), K, Z20;  \
	VMOVUPD.Z   off(DI)(AX*8), K, Z21;  \
	VFMADD231PD Z20, Z16, d0;           \
	VFMADD231PD Z20, Z17, d1;           \
	VFMADD231PD Z20, Z18, d2;           \
	VFMADD231PD Z20, Z19, d3;           \
	VFMADD231PD Z0, Z16, Z21;           \
	VFMADD231PD Z1, Z17, Z21;           \
	VFMADD231PD Z2, Z18, Z21;           \
	VFMADD231PD Z3, Z19, Z21;           \
	VMOVUPD     Z21, K, off(DI)(AX*8)

// FUSED4F32STEP is FUSED4F64STEP for float32 rows: VCVTPS2PD loads 8
// floats (aoff is half of the float64 offset qoff) and widens them.
#define FUSED4F32STEP(aoff, qoff, K, d0, d1, d2, d3) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16;  \
	VCVTPS2PD.Z aoff(R9)(AX*4), K, Z17;  \
	VCVTPS2PD.Z aoff(R10)(AX*4), K, Z18; \
	VCVTPS2PD.Z aoff(R11)(AX*4), K, Z19; \
	VMOVUPD.Z   qoff(SI)(AX*8), K, Z20;  \
	VMOVUPD.Z   qoff(DI)(AX*8), K, Z21;  \
	VFMADD231PD Z20, Z16, d0;            \
	VFMADD231PD Z20, Z17, d1;            \
	VFMADD231PD Z20, Z18, d2;            \
	VFMADD231PD Z20, Z19, d3;            \
	VFMADD231PD Z0, Z16, Z21;            \
	VFMADD231PD Z1, Z17, Z21;            \
	VFMADD231PD Z2, Z18, Z21;            \
	VFMADD231PD Z3, Z19, Z21;            \
	VMOVUPD     Z21, K, qoff(DI)(AX*8)

#define DOT4F64STEP(off, K, d0, d1, d2, d3) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16;  \
	VMOVUPD.Z   off(R9)(AX*8), K, Z17;  \
	VMOVUPD.Z   off(R10)(AX*8), K, Z18; \
	VMOVUPD.Z   off(R11)(AX*8), K, Z19; \
	VMOVUPD.Z   off(SI)(AX*8), K, Z20;  \
	VFMADD231PD Z20, Z16, d0;           \
	VFMADD231PD Z20, Z17, d1;           \
	VFMADD231PD Z20, Z18, d2;           \
	VFMADD231PD Z20, Z19, d3

#define DOT4F32STEP(aoff, qoff, K, d0, d1, d2, d3) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16;  \
	VCVTPS2PD.Z aoff(R9)(AX*4), K, Z17;  \
	VCVTPS2PD.Z aoff(R10)(AX*4), K, Z18; \
	VCVTPS2PD.Z aoff(R11)(AX*4), K, Z19; \
	VMOVUPD.Z   qoff(SI)(AX*8), K, Z20;  \
	VFMADD231PD Z20, Z16, d0;            \
	VFMADD231PD Z20, Z17, d1;            \
	VFMADD231PD Z20, Z18, d2;            \
	VFMADD231PD Z20, Z19, d3

#define AXPY4F64STEP(off, K) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16;  \
	VMOVUPD.Z   off(R9)(AX*8), K, Z17;  \
	VMOVUPD.Z   off(R10)(AX*8), K, Z18; \
	VMOVUPD.Z   off(R11)(AX*8), K, Z19; \
	VMOVUPD.Z   off(DI)(AX*8), K, Z21;  \
	VFMADD231PD Z0, Z16, Z21;           \
	VFMADD231PD Z1, Z17, Z21;           \
	VFMADD231PD Z2, Z18, Z21;           \
	VFMADD231PD Z3, Z19, Z21;           \
	VMOVUPD     Z21, K, off(DI)(AX*8)

#define AXPY4F32STEP(aoff, soff, K) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16;  \
	VCVTPS2PD.Z aoff(R9)(AX*4), K, Z17;  \
	VCVTPS2PD.Z aoff(R10)(AX*4), K, Z18; \
	VCVTPS2PD.Z aoff(R11)(AX*4), K, Z19; \
	VMOVUPD.Z   soff(DI)(AX*8), K, Z21;  \
	VFMADD231PD Z0, Z16, Z21;            \
	VFMADD231PD Z1, Z17, Z21;            \
	VFMADD231PD Z2, Z18, Z21;            \
	VFMADD231PD Z3, Z19, Z21;            \
	VMOVUPD     Z21, K, soff(DI)(AX*8)

// BCASTP4Z broadcasts p[0..3] (pointer in R13) into Z0..Z3.
#define BCASTP4Z \
	VBROADCASTSD 0(R13), Z0;  \
	VBROADCASTSD 8(R13), Z1;  \
	VBROADCASTSD 16(R13), Z2; \
	VBROADCASTSD 24(R13), Z3

// ALLLANES sets K2 to all 16 lanes for the unmasked main loops.
#define ALLLANES \
	MOVL  $0xffff, R12; \
	KMOVW R12, K2

// func fused4F64AVX512(a []float64, lda, n int, q, s []float64, p, dots *[4]float64)
TEXT ·fused4F64AVX512(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(8)
	BCASTP4Z
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	ZEROZ8
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X2(8)
	FUSED4F64STEP(0, K2, Z4, Z5, Z6, Z7)
	FUSED4F64STEP(64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X2
	ADDQ $128, R12
	FUSED4F64STEP(0, K2, Z4, Z5, Z6, Z7)
	FUSED4F64STEP(64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail: // at most two masked 8-column steps
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	FUSED4F64STEP(0, K1, Z4, Z5, Z6, Z7)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM4Z
	MOVQ    dots+96(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	RET

// func fused4F32AVX512(a []float32, lda, n int, q, s []float64, p, dots *[4]float64)
TEXT ·fused4F32AVX512(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(4)
	BCASTP4Z
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	ZEROZ8
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	FUSED4F32STEP(0, 0, K2, Z4, Z5, Z6, Z7)
	FUSED4F32STEP(32, 64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	FUSED4F32STEP(0, 0, K2, Z4, Z5, Z6, Z7)
	FUSED4F32STEP(32, 64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	FUSED4F32STEP(0, 0, K1, Z4, Z5, Z6, Z7)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM4Z
	MOVQ    dots+96(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	RET

// func dot4F64AVX512(a []float64, lda, n int, q []float64, dots *[4]float64)
TEXT ·dot4F64AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(8)
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	ZEROZ8
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X2(8)
	DOT4F64STEP(0, K2, Z4, Z5, Z6, Z7)
	DOT4F64STEP(64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X2
	ADDQ $128, R12
	DOT4F64STEP(0, K2, Z4, Z5, Z6, Z7)
	DOT4F64STEP(64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	DOT4F64STEP(0, K1, Z4, Z5, Z6, Z7)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM4Z
	MOVQ    dots+64(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	RET

// func dot4F32AVX512(a []float32, lda, n int, q []float64, dots *[4]float64)
TEXT ·dot4F32AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(4)
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	ZEROZ8
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	DOT4F32STEP(0, 0, K2, Z4, Z5, Z6, Z7)
	DOT4F32STEP(32, 64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	DOT4F32STEP(0, 0, K2, Z4, Z5, Z6, Z7)
	DOT4F32STEP(32, 64, K2, Z8, Z9, Z10, Z11)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	DOT4F32STEP(0, 0, K1, Z4, Z5, Z6, Z7)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM4Z
	MOVQ    dots+64(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	RET

// func axpy4F64AVX512(a []float64, lda, n int, s []float64, p *[4]float64)
TEXT ·axpy4F64AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(8)
	BCASTP4Z
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X2(8)
	AXPY4F64STEP(0, K2)
	AXPY4F64STEP(64, K2)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X2
	ADDQ $128, R12
	AXPY4F64STEP(0, K2)
	AXPY4F64STEP(64, K2)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	AXPY4F64STEP(0, K1)
	ADDQ $8, AX
	JMP  tail

done:
	VZEROUPPER
	RET

// func axpy4F32AVX512(a []float32, lda, n int, s []float64, p *[4]float64)
TEXT ·axpy4F32AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(4)
	BCASTP4Z
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	AXPY4F32STEP(0, 0, K2)
	AXPY4F32STEP(32, 64, K2)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	AXPY4F32STEP(0, 0, K2)
	AXPY4F32STEP(32, 64, K2)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	AXPY4F32STEP(0, 0, K1)
	ADDQ $8, AX
	JMP  tail

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX-512, eight rows.
//
// The pass drivers feed rows in groups of eight. The memory system delivers
// more with more streams in flight: on the development machine (2-core
// Sapphire Rapids VM, 12000x12000, 2 threads) a read of eight segments per
// thread is ~8% faster than the four-segment read loops of the time, and
// sixteen segments ~3% more. Eight rows per call took the passes from
// 90-99% to 100-108% of that four-segment read rate (means of 11 runs;
// float32 operator: 90% to 100%); sixteen rows were no better than eight.
// (The plain read has since become sixteen segments, internal/memread.) The q
// load and the s load and store are also shared by twice as many matrix
// rows, but in cache that made no measurable difference: the gain is the
// extra streams.
//
// Registers: Z0..Z7 = p[0..7] broadcast; Z8..Z15 = dot accumulators of rows
// 0..7, one per row: a step of eight rows issues 16 FMAs (f32: also 16
// conversion uops), far more than the 4-cycle latency of an accumulator's
// chain needs; Z16..Z23 = matrix tiles of rows 0..7; Z24 = q; Z25 = s;
// Z26 = the second half of the column update (see SUPDATE8).
//
// Rows 0..3 are R8..R11 indexed by AX as in the 4-row kernels. Rows 4..7 are
// the same base registers indexed by CX, the byte offset 4*lda*size +
// AX*size, which advances with AX: this needs one register instead of four.
// The heads of the next group (rows 8..15) are prefetched at R12 and R13
// bytes from rows 0..3: 8*lda*size and 12*lda*size plus the bytes already
// prefetched. The tail runs at most one unmasked and one masked 8-column
// step; the mask K1 for the last n mod 8 columns is made at entry, because
// CX and R12 are not free later.

// PREFETCH8X2 and PREFETCH8X1 prefetch two or one cache lines per row,
// PFDIST bytes ahead in all eight rows.
#define PREFETCH8X2(scale) \
	PREFETCH4X2(scale);                \
	PREFETCHT0 PFDIST(R8)(CX*1);       \
	PREFETCHT0 PFDIST2(R8)(CX*1);      \
	PREFETCHT0 PFDIST(R9)(CX*1);       \
	PREFETCHT0 PFDIST2(R9)(CX*1);      \
	PREFETCHT0 PFDIST(R10)(CX*1);      \
	PREFETCHT0 PFDIST2(R10)(CX*1);     \
	PREFETCHT0 PFDIST(R11)(CX*1);      \
	PREFETCHT0 PFDIST2(R11)(CX*1)

#define PREFETCH8X1(scale) \
	PREFETCH4X1(scale);           \
	PREFETCHT0 PFDIST(R8)(CX*1);  \
	PREFETCHT0 PFDIST(R9)(CX*1);  \
	PREFETCHT0 PFDIST(R10)(CX*1); \
	PREFETCHT0 PFDIST(R11)(CX*1)

// PREFETCHNEXT8X2 and PREFETCHNEXT8X1 prefetch two or one cache lines at
// R12 and R13 bytes from rows 0..3: the heads of the next group's rows.
#define PREFETCHNEXT8X2 \
	PREFETCHNEXT4X2;           \
	PREFETCHT0 (R8)(R13*1);    \
	PREFETCHT0 64(R8)(R13*1);  \
	PREFETCHT0 (R9)(R13*1);    \
	PREFETCHT0 64(R9)(R13*1);  \
	PREFETCHT0 (R10)(R13*1);   \
	PREFETCHT0 64(R10)(R13*1); \
	PREFETCHT0 (R11)(R13*1);   \
	PREFETCHT0 64(R11)(R13*1)

#define PREFETCHNEXT8X1 \
	PREFETCHNEXT4X1;         \
	PREFETCHT0 (R8)(R13*1);  \
	PREFETCHT0 (R9)(R13*1);  \
	PREFETCHT0 (R10)(R13*1); \
	PREFETCHT0 (R11)(R13*1)

// ROWOFFS8 sets CX, R12 and R13 to 4, 8 and 12 rows in bytes (BX = lda,
// shift = log2(4*size)).
#define ROWOFFS8(shift) \
	MOVQ BX, CX;            \
	SHLQ $shift, CX;        \
	LEAQ (CX)(CX*1), R12;   \
	LEAQ (R12)(CX*1), R13

// REMMASK8 sets K1 to the low n mod 8 bits (n in DX). Clobbers CX and R12.
#define REMMASK8 \
	MOVQ  DX, CX;  \
	ANDQ  $7, CX;  \
	MOVL  $1, R12; \
	SHLQ  CX, R12; \
	DECQ  R12;     \
	KMOVW R12, K1

// BCASTP8Z broadcasts p[0..7] (pointer in R13) into Z0..Z7.
#define BCASTP8Z \
	BCASTP4Z;                 \
	VBROADCASTSD 32(R13), Z4; \
	VBROADCASTSD 40(R13), Z5; \
	VBROADCASTSD 48(R13), Z6; \
	VBROADCASTSD 56(R13), Z7

// ZEROACC8 clears the eight dot accumulators Z8..Z15.
#define ZEROACC8 \
	VPXORQ Z8, Z8, Z8;    \
	VPXORQ Z9, Z9, Z9;    \
	VPXORQ Z10, Z10, Z10; \
	VPXORQ Z11, Z11, Z11; \
	VPXORQ Z12, Z12, Z12; \
	VPXORQ Z13, Z13, Z13; \
	VPXORQ Z14, Z14, Z14; \
	VPXORQ Z15, Z15, Z15

// LOAD8F64 and LOAD8F32 load 8 columns of the eight rows into Z16..Z23
// (LOAD8F32 widens 8 floats at aoff, half the float64 offset).
#define LOAD8F64(off, K) \
	VMOVUPD.Z off(R8)(AX*8), K, Z16;  \
	VMOVUPD.Z off(R9)(AX*8), K, Z17;  \
	VMOVUPD.Z off(R10)(AX*8), K, Z18; \
	VMOVUPD.Z off(R11)(AX*8), K, Z19; \
	VMOVUPD.Z off(R8)(CX*1), K, Z20;  \
	VMOVUPD.Z off(R9)(CX*1), K, Z21;  \
	VMOVUPD.Z off(R10)(CX*1), K, Z22; \
	VMOVUPD.Z off(R11)(CX*1), K, Z23

#define LOAD8F32(aoff, K) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16;  \
	VCVTPS2PD.Z aoff(R9)(AX*4), K, Z17;  \
	VCVTPS2PD.Z aoff(R10)(AX*4), K, Z18; \
	VCVTPS2PD.Z aoff(R11)(AX*4), K, Z19; \
	VCVTPS2PD.Z aoff(R8)(CX*1), K, Z20;  \
	VCVTPS2PD.Z aoff(R9)(CX*1), K, Z21;  \
	VCVTPS2PD.Z aoff(R10)(CX*1), K, Z22; \
	VCVTPS2PD.Z aoff(R11)(CX*1), K, Z23

// DOTS8 adds tile*q to each row's accumulator.
#define DOTS8 \
	VFMADD231PD Z24, Z16, Z8;  \
	VFMADD231PD Z24, Z17, Z9;  \
	VFMADD231PD Z24, Z18, Z10; \
	VFMADD231PD Z24, Z19, Z11; \
	VFMADD231PD Z24, Z20, Z12; \
	VFMADD231PD Z24, Z21, Z13; \
	VFMADD231PD Z24, Z22, Z14; \
	VFMADD231PD Z24, Z23, Z15

// SUPDATE8 adds Σ_k p_k*tile_k to s (Z25) as two chains of four, rows 0..3
// into s and rows 4..7 into Z26, joined by one add: a single chain of eight
// dependent FMAs (32 cycles) per step left the float32 kernels about 5%
// slower in cache, where they have the least slack.
#define SUPDATE8 \
	VMULPD      Z4, Z20, Z26;  \
	VFMADD231PD Z0, Z16, Z25;  \
	VFMADD231PD Z5, Z21, Z26;  \
	VFMADD231PD Z1, Z17, Z25;  \
	VFMADD231PD Z6, Z22, Z26;  \
	VFMADD231PD Z2, Z18, Z25;  \
	VFMADD231PD Z7, Z23, Z26;  \
	VFMADD231PD Z3, Z19, Z25;  \
	VADDPD      Z26, Z25, Z25

#define FUSED8F64STEP(off, K) \
	LOAD8F64(off, K);                  \
	VMOVUPD.Z off(SI)(AX*8), K, Z24;   \
	VMOVUPD.Z off(DI)(AX*8), K, Z25;   \
	DOTS8;                             \
	SUPDATE8;                          \
	VMOVUPD   Z25, K, off(DI)(AX*8)

#define FUSED8F32STEP(aoff, qoff, K) \
	LOAD8F32(aoff, K);                 \
	VMOVUPD.Z qoff(SI)(AX*8), K, Z24;  \
	VMOVUPD.Z qoff(DI)(AX*8), K, Z25;  \
	DOTS8;                             \
	SUPDATE8;                          \
	VMOVUPD   Z25, K, qoff(DI)(AX*8)

#define DOT8F64STEP(off, K) \
	LOAD8F64(off, K);                \
	VMOVUPD.Z off(SI)(AX*8), K, Z24; \
	DOTS8

#define DOT8F32STEP(aoff, qoff, K) \
	LOAD8F32(aoff, K);                \
	VMOVUPD.Z qoff(SI)(AX*8), K, Z24; \
	DOTS8

#define AXPY8F64STEP(off, K) \
	LOAD8F64(off, K);                \
	VMOVUPD.Z off(DI)(AX*8), K, Z25; \
	SUPDATE8;                        \
	VMOVUPD   Z25, K, off(DI)(AX*8)

#define AXPY8F32STEP(aoff, soff, K) \
	LOAD8F32(aoff, K);                \
	VMOVUPD.Z soff(DI)(AX*8), K, Z25; \
	SUPDATE8;                         \
	VMOVUPD   Z25, K, soff(DI)(AX*8)

// HSUM8Z reduces the accumulators Z8..Z15 to Y8 = [Σ Z8 .. Σ Z11] and
// Y12 = [Σ Z12 .. Σ Z15].
#define HSUM8Z \
	VEXTRACTF64X4 $1, Z8, Y16;  \
	VEXTRACTF64X4 $1, Z9, Y17;  \
	VEXTRACTF64X4 $1, Z10, Y18; \
	VEXTRACTF64X4 $1, Z11, Y19; \
	VEXTRACTF64X4 $1, Z12, Y20; \
	VEXTRACTF64X4 $1, Z13, Y21; \
	VEXTRACTF64X4 $1, Z14, Y22; \
	VEXTRACTF64X4 $1, Z15, Y23; \
	VADDPD        Y16, Y8, Y8;  \
	VADDPD        Y17, Y9, Y9;  \
	VADDPD        Y18, Y10, Y10; \
	VADDPD        Y19, Y11, Y11; \
	VADDPD        Y20, Y12, Y12; \
	VADDPD        Y21, Y13, Y13; \
	VADDPD        Y22, Y14, Y14; \
	VADDPD        Y23, Y15, Y15; \
	HSUM4YR(Y8, Y9, Y10, Y11);  \
	HSUM4YR(Y12, Y13, Y14, Y15)

// func fused8F64AVX512(a []float64, lda, n int, q, s []float64, p, dots *[8]float64)
TEXT ·fused8F64AVX512(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(8)
	BCASTP8Z
	ZEROACC8
	REMMASK8
	ALLLANES
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X2(8)
	FUSED8F64STEP(0, K2)
	FUSED8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X2
	ADDQ $128, R12
	ADDQ $128, R13
	FUSED8F64STEP(0, K2)
	FUSED8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	FUSED8F64STEP(0, K2)
	ADDQ $8, AX
	ADDQ $64, CX

last:
	CMPQ AX, DX
	JAE  done
	FUSED8F64STEP(0, K1)

done:
	HSUM8Z
	MOVQ    dots+96(FP), R13
	VMOVUPD Y8, (R13)
	VMOVUPD Y12, 32(R13)
	VZEROUPPER
	RET

// func fused8F32AVX512(a []float32, lda, n int, q, s []float64, p, dots *[8]float64)
TEXT ·fused8F32AVX512(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(4)
	BCASTP8Z
	ZEROACC8
	REMMASK8
	ALLLANES
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	FUSED8F32STEP(0, 0, K2)
	FUSED8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	FUSED8F32STEP(0, 0, K2)
	FUSED8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	FUSED8F32STEP(0, 0, K2)
	ADDQ $8, AX
	ADDQ $32, CX

last:
	CMPQ AX, DX
	JAE  done
	FUSED8F32STEP(0, 0, K1)

done:
	HSUM8Z
	MOVQ    dots+96(FP), R13
	VMOVUPD Y8, (R13)
	VMOVUPD Y12, 32(R13)
	VZEROUPPER
	RET

// func dot8F64AVX512(a []float64, lda, n int, q []float64, dots *[8]float64)
TEXT ·dot8F64AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(8)
	ZEROACC8
	REMMASK8
	ALLLANES
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X2(8)
	DOT8F64STEP(0, K2)
	DOT8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X2
	ADDQ $128, R12
	ADDQ $128, R13
	DOT8F64STEP(0, K2)
	DOT8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	DOT8F64STEP(0, K2)
	ADDQ $8, AX
	ADDQ $64, CX

last:
	CMPQ AX, DX
	JAE  done
	DOT8F64STEP(0, K1)

done:
	HSUM8Z
	MOVQ    dots+64(FP), R13
	VMOVUPD Y8, (R13)
	VMOVUPD Y12, 32(R13)
	VZEROUPPER
	RET

// func dot8F32AVX512(a []float32, lda, n int, q []float64, dots *[8]float64)
TEXT ·dot8F32AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(4)
	ZEROACC8
	REMMASK8
	ALLLANES
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	DOT8F32STEP(0, 0, K2)
	DOT8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	DOT8F32STEP(0, 0, K2)
	DOT8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	DOT8F32STEP(0, 0, K2)
	ADDQ $8, AX
	ADDQ $32, CX

last:
	CMPQ AX, DX
	JAE  done
	DOT8F32STEP(0, 0, K1)

done:
	HSUM8Z
	MOVQ    dots+64(FP), R13
	VMOVUPD Y8, (R13)
	VMOVUPD Y12, 32(R13)
	VZEROUPPER
	RET

// func axpy8F64AVX512(a []float64, lda, n int, s []float64, p *[8]float64)
TEXT ·axpy8F64AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(8)
	BCASTP8Z
	REMMASK8
	ALLLANES
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X2(8)
	AXPY8F64STEP(0, K2)
	AXPY8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X2
	ADDQ $128, R12
	ADDQ $128, R13
	AXPY8F64STEP(0, K2)
	AXPY8F64STEP(64, K2)
	ADDQ $16, AX
	ADDQ $128, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	AXPY8F64STEP(0, K2)
	ADDQ $8, AX
	ADDQ $64, CX

last:
	CMPQ AX, DX
	JAE  done
	AXPY8F64STEP(0, K1)

done:
	VZEROUPPER
	RET

// func axpy8F32AVX512(a []float32, lda, n int, s []float64, p *[8]float64)
TEXT ·axpy8F32AVX512(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(4)
	BCASTP8Z
	REMMASK8
	ALLLANES
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-16, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	AXPY8F32STEP(0, 0, K2)
	AXPY8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-16, BX
	CMPQ AX, BX
	JAE  tail

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	AXPY8F32STEP(0, 0, K2)
	AXPY8F32STEP(32, 64, K2)
	ADDQ $16, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

tail: // n mod 16 columns: at most one full and one masked 8-column step
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JB   last
	AXPY8F32STEP(0, 0, K2)
	ADDQ $8, AX
	ADDQ $32, CX

last:
	CMPQ AX, DX
	JAE  done
	AXPY8F32STEP(0, 0, K1)

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX-512, one row.
//
// Registers: Z0 = p broadcast; Z4..Z7 = four dot accumulators, one per
// 8-column step of a 32-column iteration; Z16 = matrix tile; Z20 = q;
// Z21 = s. The tail runs up to four masked 8-column steps into Z4.

#define FUSED1F64STEP(off, K, d) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16; \
	VMOVUPD.Z   off(SI)(AX*8), K, Z20; \
	VMOVUPD.Z   off(DI)(AX*8), K, Z21; \
	VFMADD231PD Z20, Z16, d;           \
	VFMADD231PD Z0, Z16, Z21;          \
	VMOVUPD     Z21, K, off(DI)(AX*8)

#define FUSED1F32STEP(aoff, qoff, K, d) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16; \
	VMOVUPD.Z   qoff(SI)(AX*8), K, Z20; \
	VMOVUPD.Z   qoff(DI)(AX*8), K, Z21; \
	VFMADD231PD Z20, Z16, d;            \
	VFMADD231PD Z0, Z16, Z21;           \
	VMOVUPD     Z21, K, qoff(DI)(AX*8)

#define DOT1F64STEP(off, K, d) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16; \
	VMOVUPD.Z   off(SI)(AX*8), K, Z20; \
	VFMADD231PD Z20, Z16, d

#define DOT1F32STEP(aoff, qoff, K, d) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16; \
	VMOVUPD.Z   qoff(SI)(AX*8), K, Z20; \
	VFMADD231PD Z20, Z16, d

#define AXPY1F64STEP(off, K) \
	VMOVUPD.Z   off(R8)(AX*8), K, Z16; \
	VMOVUPD.Z   off(DI)(AX*8), K, Z21; \
	VFMADD231PD Z0, Z16, Z21;          \
	VMOVUPD     Z21, K, off(DI)(AX*8)

#define AXPY1F32STEP(aoff, soff, K) \
	VCVTPS2PD.Z aoff(R8)(AX*4), K, Z16; \
	VMOVUPD.Z   soff(DI)(AX*8), K, Z21; \
	VFMADD231PD Z0, Z16, Z21;           \
	VMOVUPD     Z21, K, soff(DI)(AX*8)

// ZEROZ4 clears the accumulators Z4..Z7.
#define ZEROZ4 \
	VPXORQ Z4, Z4, Z4; \
	VPXORQ Z5, Z5, Z5; \
	VPXORQ Z6, Z6, Z6; \
	VPXORQ Z7, Z7, Z7

// func fused1F64AVX512(a []float64, n int, q, s []float64, p float64) float64
TEXT ·fused1F64AVX512(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         q_base+32(FP), SI
	MOVQ         s_base+56(FP), DI
	VBROADCASTSD p+80(FP), Z0
	ZEROZ4
	ALLLANES
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-32, BX
	JZ           tail

loop:
	FUSED1F64STEP(0, K2, Z4)
	FUSED1F64STEP(64, K2, Z5)
	FUSED1F64STEP(128, K2, Z6)
	FUSED1F64STEP(192, K2, Z7)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	FUSED1F64STEP(0, K1, Z4)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM1Z
	VMOVSD X4, ret+88(FP)
	VZEROUPPER
	RET

// func fused1F32AVX512(a []float32, n int, q, s []float64, p float64) float64
TEXT ·fused1F32AVX512(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         q_base+32(FP), SI
	MOVQ         s_base+56(FP), DI
	VBROADCASTSD p+80(FP), Z0
	ZEROZ4
	ALLLANES
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-32, BX
	JZ           tail

loop:
	FUSED1F32STEP(0, 0, K2, Z4)
	FUSED1F32STEP(32, 64, K2, Z5)
	FUSED1F32STEP(64, 128, K2, Z6)
	FUSED1F32STEP(96, 192, K2, Z7)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	FUSED1F32STEP(0, 0, K1, Z4)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM1Z
	VMOVSD X4, ret+88(FP)
	VZEROUPPER
	RET

// func dot1F64AVX512(a []float64, n int, q []float64) float64
TEXT ·dot1F64AVX512(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), R8
	MOVQ n+24(FP), DX
	MOVQ q_base+32(FP), SI
	ZEROZ4
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	ANDQ $-32, BX
	JZ   tail

loop:
	DOT1F64STEP(0, K2, Z4)
	DOT1F64STEP(64, K2, Z5)
	DOT1F64STEP(128, K2, Z6)
	DOT1F64STEP(192, K2, Z7)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	DOT1F64STEP(0, K1, Z4)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM1Z
	VMOVSD X4, ret+56(FP)
	VZEROUPPER
	RET

// func dot1F32AVX512(a []float32, n int, q []float64) float64
TEXT ·dot1F32AVX512(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), R8
	MOVQ n+24(FP), DX
	MOVQ q_base+32(FP), SI
	ZEROZ4
	ALLLANES
	XORQ AX, AX
	MOVQ DX, BX
	ANDQ $-32, BX
	JZ   tail

loop:
	DOT1F32STEP(0, 0, K2, Z4)
	DOT1F32STEP(32, 64, K2, Z5)
	DOT1F32STEP(64, 128, K2, Z6)
	DOT1F32STEP(96, 192, K2, Z7)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	DOT1F32STEP(0, 0, K1, Z4)
	ADDQ $8, AX
	JMP  tail

done:
	HSUM1Z
	VMOVSD X4, ret+56(FP)
	VZEROUPPER
	RET

// func axpy1F64AVX512(a []float64, n int, s []float64, p float64)
TEXT ·axpy1F64AVX512(SB), NOSPLIT, $0-64
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         s_base+32(FP), DI
	VBROADCASTSD p+56(FP), Z0
	ALLLANES
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-32, BX
	JZ           tail

loop:
	AXPY1F64STEP(0, K2)
	AXPY1F64STEP(64, K2)
	AXPY1F64STEP(128, K2)
	AXPY1F64STEP(192, K2)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	AXPY1F64STEP(0, K1)
	ADDQ $8, AX
	JMP  tail

done:
	VZEROUPPER
	RET

// func axpy1F32AVX512(a []float32, n int, s []float64, p float64)
TEXT ·axpy1F32AVX512(SB), NOSPLIT, $0-64
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         s_base+32(FP), DI
	VBROADCASTSD p+56(FP), Z0
	ALLLANES
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-32, BX
	JZ           tail

loop:
	AXPY1F32STEP(0, 0, K2)
	AXPY1F32STEP(32, 64, K2)
	AXPY1F32STEP(64, 128, K2)
	AXPY1F32STEP(96, 192, K2)
	ADDQ $32, AX
	CMPQ AX, BX
	JB   loop

tail:
	CMPQ AX, DX
	JAE  done
	TAILMASK8
	AXPY1F32STEP(0, 0, K1)
	ADDQ $8, AX
	JMP  tail

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX2 + FMA, four rows.
//
// Only 16 vector registers: Y0..Y3 = p[0..3] broadcast; Y4..Y7 = dot
// accumulators of rows 0..3 for the first 4 columns of an 8-column
// iteration, Y8..Y11 for the second 4; Y12 = q; Y13 = s; Y14/Y15 = matrix
// tiles, reused row after row (register renaming keeps the rows
// independent). After the 8-column loop one 4-column step runs if at least
// 4 columns remain, the vector accumulators are reduced and stored to dots,
// and a scalar loop (VZEROUPPER first, it only uses the low lanes) handles
// the last 0..3 columns. A float32 iteration consumes only half a cache
// line per row, so each line is prefetched twice; the second prefetch finds
// the line already on its way and costs just a load slot.

#define FUSED4F64STEPY(off, d0, d1, d2, d3) \
	VMOVUPD     off(SI)(AX*8), Y12;  \
	VMOVUPD     off(DI)(AX*8), Y13;  \
	VMOVUPD     off(R8)(AX*8), Y14;  \
	VFMADD231PD Y12, Y14, d0;        \
	VFMADD231PD Y0, Y14, Y13;        \
	VMOVUPD     off(R9)(AX*8), Y15;  \
	VFMADD231PD Y12, Y15, d1;        \
	VFMADD231PD Y1, Y15, Y13;        \
	VMOVUPD     off(R10)(AX*8), Y14; \
	VFMADD231PD Y12, Y14, d2;        \
	VFMADD231PD Y2, Y14, Y13;        \
	VMOVUPD     off(R11)(AX*8), Y15; \
	VFMADD231PD Y12, Y15, d3;        \
	VFMADD231PD Y3, Y15, Y13;        \
	VMOVUPD     Y13, off(DI)(AX*8)

#define FUSED4F32STEPY(aoff, qoff, d0, d1, d2, d3) \
	VMOVUPD     qoff(SI)(AX*8), Y12;  \
	VMOVUPD     qoff(DI)(AX*8), Y13;  \
	VCVTPS2PD   aoff(R8)(AX*4), Y14;  \
	VFMADD231PD Y12, Y14, d0;         \
	VFMADD231PD Y0, Y14, Y13;         \
	VCVTPS2PD   aoff(R9)(AX*4), Y15;  \
	VFMADD231PD Y12, Y15, d1;         \
	VFMADD231PD Y1, Y15, Y13;         \
	VCVTPS2PD   aoff(R10)(AX*4), Y14; \
	VFMADD231PD Y12, Y14, d2;         \
	VFMADD231PD Y2, Y14, Y13;         \
	VCVTPS2PD   aoff(R11)(AX*4), Y15; \
	VFMADD231PD Y12, Y15, d3;         \
	VFMADD231PD Y3, Y15, Y13;         \
	VMOVUPD     Y13, qoff(DI)(AX*8)

#define DOT4F64STEPY(off, d0, d1, d2, d3) \
	VMOVUPD     off(SI)(AX*8), Y12;  \
	VMOVUPD     off(R8)(AX*8), Y14;  \
	VFMADD231PD Y12, Y14, d0;        \
	VMOVUPD     off(R9)(AX*8), Y15;  \
	VFMADD231PD Y12, Y15, d1;        \
	VMOVUPD     off(R10)(AX*8), Y14; \
	VFMADD231PD Y12, Y14, d2;        \
	VMOVUPD     off(R11)(AX*8), Y15; \
	VFMADD231PD Y12, Y15, d3

#define DOT4F32STEPY(aoff, qoff, d0, d1, d2, d3) \
	VMOVUPD     qoff(SI)(AX*8), Y12;  \
	VCVTPS2PD   aoff(R8)(AX*4), Y14;  \
	VFMADD231PD Y12, Y14, d0;         \
	VCVTPS2PD   aoff(R9)(AX*4), Y15;  \
	VFMADD231PD Y12, Y15, d1;         \
	VCVTPS2PD   aoff(R10)(AX*4), Y14; \
	VFMADD231PD Y12, Y14, d2;         \
	VCVTPS2PD   aoff(R11)(AX*4), Y15; \
	VFMADD231PD Y12, Y15, d3

#define AXPY4F64STEPY(off) \
	VMOVUPD     off(DI)(AX*8), Y13;  \
	VMOVUPD     off(R8)(AX*8), Y14;  \
	VFMADD231PD Y0, Y14, Y13;        \
	VMOVUPD     off(R9)(AX*8), Y15;  \
	VFMADD231PD Y1, Y15, Y13;        \
	VMOVUPD     off(R10)(AX*8), Y14; \
	VFMADD231PD Y2, Y14, Y13;        \
	VMOVUPD     off(R11)(AX*8), Y15; \
	VFMADD231PD Y3, Y15, Y13;        \
	VMOVUPD     Y13, off(DI)(AX*8)

#define AXPY4F32STEPY(aoff, soff) \
	VMOVUPD     soff(DI)(AX*8), Y13;  \
	VCVTPS2PD   aoff(R8)(AX*4), Y14;  \
	VFMADD231PD Y0, Y14, Y13;         \
	VCVTPS2PD   aoff(R9)(AX*4), Y15;  \
	VFMADD231PD Y1, Y15, Y13;         \
	VCVTPS2PD   aoff(R10)(AX*4), Y14; \
	VFMADD231PD Y2, Y14, Y13;         \
	VCVTPS2PD   aoff(R11)(AX*4), Y15; \
	VFMADD231PD Y3, Y15, Y13;         \
	VMOVUPD     Y13, soff(DI)(AX*8)

// Scalar single-column versions for the last 0..3 columns. The dots live in
// X4..X7 and p[k] in the low lane of X0..X3.
#define FUSED4F64SCALAR \
	VMOVSD      (SI)(AX*8), X12;  \
	VMOVSD      (DI)(AX*8), X13;  \
	VMOVSD      (R8)(AX*8), X14;  \
	VFMADD231SD X12, X14, X4;     \
	VFMADD231SD X0, X14, X13;     \
	VMOVSD      (R9)(AX*8), X15;  \
	VFMADD231SD X12, X15, X5;     \
	VFMADD231SD X1, X15, X13;     \
	VMOVSD      (R10)(AX*8), X14; \
	VFMADD231SD X12, X14, X6;     \
	VFMADD231SD X2, X14, X13;     \
	VMOVSD      (R11)(AX*8), X15; \
	VFMADD231SD X12, X15, X7;     \
	VFMADD231SD X3, X15, X13;     \
	VMOVSD      X13, (DI)(AX*8)

#define FUSED4F32SCALAR \
	VMOVSD      (SI)(AX*8), X12;       \
	VMOVSD      (DI)(AX*8), X13;       \
	VCVTSS2SD   (R8)(AX*4), X14, X14;  \
	VFMADD231SD X12, X14, X4;          \
	VFMADD231SD X0, X14, X13;          \
	VCVTSS2SD   (R9)(AX*4), X15, X15;  \
	VFMADD231SD X12, X15, X5;          \
	VFMADD231SD X1, X15, X13;          \
	VCVTSS2SD   (R10)(AX*4), X14, X14; \
	VFMADD231SD X12, X14, X6;          \
	VFMADD231SD X2, X14, X13;          \
	VCVTSS2SD   (R11)(AX*4), X15, X15; \
	VFMADD231SD X12, X15, X7;          \
	VFMADD231SD X3, X15, X13;          \
	VMOVSD      X13, (DI)(AX*8)

#define DOT4F64SCALAR \
	VMOVSD      (SI)(AX*8), X12;  \
	VMOVSD      (R8)(AX*8), X14;  \
	VFMADD231SD X12, X14, X4;     \
	VMOVSD      (R9)(AX*8), X15;  \
	VFMADD231SD X12, X15, X5;     \
	VMOVSD      (R10)(AX*8), X14; \
	VFMADD231SD X12, X14, X6;     \
	VMOVSD      (R11)(AX*8), X15; \
	VFMADD231SD X12, X15, X7

#define DOT4F32SCALAR \
	VMOVSD      (SI)(AX*8), X12;       \
	VCVTSS2SD   (R8)(AX*4), X14, X14;  \
	VFMADD231SD X12, X14, X4;          \
	VCVTSS2SD   (R9)(AX*4), X15, X15;  \
	VFMADD231SD X12, X15, X5;          \
	VCVTSS2SD   (R10)(AX*4), X14, X14; \
	VFMADD231SD X12, X14, X6;          \
	VCVTSS2SD   (R11)(AX*4), X15, X15; \
	VFMADD231SD X12, X15, X7

#define AXPY4F64SCALAR \
	VMOVSD      (DI)(AX*8), X13;  \
	VMOVSD      (R8)(AX*8), X14;  \
	VFMADD231SD X0, X14, X13;     \
	VMOVSD      (R9)(AX*8), X15;  \
	VFMADD231SD X1, X15, X13;     \
	VMOVSD      (R10)(AX*8), X14; \
	VFMADD231SD X2, X14, X13;     \
	VMOVSD      (R11)(AX*8), X15; \
	VFMADD231SD X3, X15, X13;     \
	VMOVSD      X13, (DI)(AX*8)

#define AXPY4F32SCALAR \
	VMOVSD      (DI)(AX*8), X13;       \
	VCVTSS2SD   (R8)(AX*4), X14, X14;  \
	VFMADD231SD X0, X14, X13;          \
	VCVTSS2SD   (R9)(AX*4), X15, X15;  \
	VFMADD231SD X1, X15, X13;          \
	VCVTSS2SD   (R10)(AX*4), X14, X14; \
	VFMADD231SD X2, X14, X13;          \
	VCVTSS2SD   (R11)(AX*4), X15, X15; \
	VFMADD231SD X3, X15, X13;          \
	VMOVSD      X13, (DI)(AX*8)

// BCASTP4Y broadcasts p[0..3] (pointer in R13) into Y0..Y3.
#define BCASTP4Y \
	VBROADCASTSD 0(R13), Y0;  \
	VBROADCASTSD 8(R13), Y1;  \
	VBROADCASTSD 16(R13), Y2; \
	VBROADCASTSD 24(R13), Y3

// ZEROY8 clears the accumulators Y4..Y11.
#define ZEROY8 \
	VXORPD Y4, Y4, Y4;    \
	VXORPD Y5, Y5, Y5;    \
	VXORPD Y6, Y6, Y6;    \
	VXORPD Y7, Y7, Y7;    \
	VXORPD Y8, Y8, Y8;    \
	VXORPD Y9, Y9, Y9;    \
	VXORPD Y10, Y10, Y10; \
	VXORPD Y11, Y11, Y11

// FOLD8Y adds the second set of row accumulators Y8..Y11 into Y4..Y7.
#define FOLD8Y \
	VADDPD Y8, Y4, Y4;   \
	VADDPD Y9, Y5, Y5;   \
	VADDPD Y10, Y6, Y6;  \
	VADDPD Y11, Y7, Y7

// LOADDOTS / STOREDOTS move dots[0..3] (pointer in R13) to and from the
// scalar accumulators X4..X7 around the scalar tail.
#define LOADDOTS \
	VMOVSD 0(R13), X4;  \
	VMOVSD 8(R13), X5;  \
	VMOVSD 16(R13), X6; \
	VMOVSD 24(R13), X7

#define STOREDOTS \
	VMOVSD X4, 0(R13);  \
	VMOVSD X5, 8(R13);  \
	VMOVSD X6, 16(R13); \
	VMOVSD X7, 24(R13)

// func fused4F64AVX2(a []float64, lda, n int, q, s []float64, p, dots *[4]float64)
TEXT ·fused4F64AVX2(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(8)
	BCASTP4Y
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	ZEROY8
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(8)
	FUSED4F64STEPY(0, Y4, Y5, Y6, Y7)
	FUSED4F64STEPY(32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	FUSED4F64STEPY(0, Y4, Y5, Y6, Y7)
	FUSED4F64STEPY(32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	FUSED4F64STEPY(0, Y4, Y5, Y6, Y7)
	ADDQ $4, AX

reduce:
	FOLD8Y
	HSUM4Y
	MOVQ    dots+96(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS

scalar:
	FUSED4F64SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS

done:
	RET

// func fused4F32AVX2(a []float32, lda, n int, q, s []float64, p, dots *[4]float64)
TEXT ·fused4F32AVX2(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), R13
	ROWPTRS4(4)
	BCASTP4Y
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	ZEROY8
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	FUSED4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	FUSED4F32STEPY(16, 32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $32, R12
	FUSED4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	FUSED4F32STEPY(16, 32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	FUSED4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	ADDQ $4, AX

reduce:
	FOLD8Y
	HSUM4Y
	MOVQ    dots+96(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS

scalar:
	FUSED4F32SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS

done:
	RET

// func dot4F64AVX2(a []float64, lda, n int, q []float64, dots *[4]float64)
TEXT ·dot4F64AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(8)
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	ZEROY8
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(8)
	DOT4F64STEPY(0, Y4, Y5, Y6, Y7)
	DOT4F64STEPY(32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	DOT4F64STEPY(0, Y4, Y5, Y6, Y7)
	DOT4F64STEPY(32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	DOT4F64STEPY(0, Y4, Y5, Y6, Y7)
	ADDQ $4, AX

reduce:
	FOLD8Y
	HSUM4Y
	MOVQ    dots+64(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS

scalar:
	DOT4F64SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS

done:
	RET

// func dot4F32AVX2(a []float32, lda, n int, q []float64, dots *[4]float64)
TEXT ·dot4F32AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(4)
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	ZEROY8
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	DOT4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	DOT4F32STEPY(16, 32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $32, R12
	DOT4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	DOT4F32STEPY(16, 32, Y8, Y9, Y10, Y11)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	DOT4F32STEPY(0, 0, Y4, Y5, Y6, Y7)
	ADDQ $4, AX

reduce:
	FOLD8Y
	HSUM4Y
	MOVQ    dots+64(FP), R13
	VMOVUPD Y4, (R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS

scalar:
	DOT4F32SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS

done:
	RET

// func axpy4F64AVX2(a []float64, lda, n int, s []float64, p *[4]float64)
TEXT ·axpy4F64AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(8)
	BCASTP4Y
	MOVQ BX, R13
	SHLQ $5, R13          // 4 rows * 8 bytes * lda: to the next row group
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(8)
	AXPY4F64STEPY(0)
	AXPY4F64STEPY(32)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $64, R12
	AXPY4F64STEPY(0)
	AXPY4F64STEPY(32)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   tail
	AXPY4F64STEPY(0)
	ADDQ $4, AX

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	AXPY4F64SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar

done:
	RET

// func axpy4F32AVX2(a []float32, lda, n int, s []float64, p *[4]float64)
TEXT ·axpy4F32AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(4)
	BCASTP4Y
	MOVQ BX, R13
	SHLQ $4, R13          // 4 rows * 4 bytes * lda: to the next row group
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH4X1(4)
	AXPY4F32STEPY(0, 0)
	AXPY4F32STEPY(16, 32)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4
	MOVQ R13, R12

loop:
	PREFETCHNEXT4X1
	ADDQ $32, R12
	AXPY4F32STEPY(0, 0)
	AXPY4F32STEPY(16, 32)
	ADDQ $8, AX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   tail
	AXPY4F32STEPY(0, 0)
	ADDQ $4, AX

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	AXPY4F32SCALAR
	INCQ AX
	CMPQ AX, DX
	JB   scalar

done:
	RET

// ---------------------------------------------------------------------------
// AVX2 + FMA, eight rows.
//
// Eight rows in flight for the same reason as in the AVX-512 8-row kernels:
// on the development machine (GPUMP_KERNELS=avx2) they took the passes from
// 85-102% to 97-114% of the four-segment read rate of the time
// (12000x12000, 2 threads).
//
// Registers: Y0..Y7 = dot accumulators of rows 0..7, one per row (fused
// and dot), or p[0..7] broadcast (axpy); Y8 = q; Y9 and Y10 = the two halves
// of the column update (rows 0..3 into s, rows 4..7 into Y10, added at the
// end of the step, as in SUPDATE8); Y11/Y12 = matrix tiles of rows 0..3 and
// 4..7, reused row after row; Y13/Y14 = p[k] broadcast. With eight
// accumulators there is no register left for eight broadcast p values, so
// the fused kernels broadcast p[k] from memory for every tile (a load uop,
// of which there are plenty) and keep p in DX; they read n from the
// argument frame instead. Rows 4..7, the next row group and the tails work
// as in the other kernels: CX, R12, R13 as in the AVX-512 8-row kernels, and
// one 4-column step plus a scalar loop as in the AVX2 4-row kernels, the
// scalar loop with the dots in X0..X7 and, for axpy, p still in the low
// lanes of X0..X7.

#define FUSED8F64STEPY(off) \
	VMOVUPD      off(SI)(AX*8), Y8;   \
	VMOVUPD      off(DI)(AX*8), Y9;   \
	VMOVUPD      off(R8)(AX*8), Y11;  \
	VFMADD231PD  Y8, Y11, Y0;         \
	VBROADCASTSD 0(DX), Y13;          \
	VFMADD231PD  Y13, Y11, Y9;        \
	VMOVUPD      off(R8)(CX*1), Y12;  \
	VFMADD231PD  Y8, Y12, Y4;         \
	VBROADCASTSD 32(DX), Y14;         \
	VMULPD       Y14, Y12, Y10;       \
	VMOVUPD      off(R9)(AX*8), Y11;  \
	VFMADD231PD  Y8, Y11, Y1;         \
	VBROADCASTSD 8(DX), Y13;          \
	VFMADD231PD  Y13, Y11, Y9;        \
	VMOVUPD      off(R9)(CX*1), Y12;  \
	VFMADD231PD  Y8, Y12, Y5;         \
	VBROADCASTSD 40(DX), Y14;         \
	VFMADD231PD  Y14, Y12, Y10;       \
	VMOVUPD      off(R10)(AX*8), Y11; \
	VFMADD231PD  Y8, Y11, Y2;         \
	VBROADCASTSD 16(DX), Y13;         \
	VFMADD231PD  Y13, Y11, Y9;        \
	VMOVUPD      off(R10)(CX*1), Y12; \
	VFMADD231PD  Y8, Y12, Y6;         \
	VBROADCASTSD 48(DX), Y14;         \
	VFMADD231PD  Y14, Y12, Y10;       \
	VMOVUPD      off(R11)(AX*8), Y11; \
	VFMADD231PD  Y8, Y11, Y3;         \
	VBROADCASTSD 24(DX), Y13;         \
	VFMADD231PD  Y13, Y11, Y9;        \
	VMOVUPD      off(R11)(CX*1), Y12; \
	VFMADD231PD  Y8, Y12, Y7;         \
	VBROADCASTSD 56(DX), Y14;         \
	VFMADD231PD  Y14, Y12, Y10;       \
	VADDPD       Y10, Y9, Y9;         \
	VMOVUPD      Y9, off(DI)(AX*8)

#define FUSED8F32STEPY(aoff, qoff) \
	VMOVUPD      qoff(SI)(AX*8), Y8;   \
	VMOVUPD      qoff(DI)(AX*8), Y9;   \
	VCVTPS2PD    aoff(R8)(AX*4), Y11;  \
	VFMADD231PD  Y8, Y11, Y0;          \
	VBROADCASTSD 0(DX), Y13;           \
	VFMADD231PD  Y13, Y11, Y9;         \
	VCVTPS2PD    aoff(R8)(CX*1), Y12;  \
	VFMADD231PD  Y8, Y12, Y4;          \
	VBROADCASTSD 32(DX), Y14;          \
	VMULPD       Y14, Y12, Y10;        \
	VCVTPS2PD    aoff(R9)(AX*4), Y11;  \
	VFMADD231PD  Y8, Y11, Y1;          \
	VBROADCASTSD 8(DX), Y13;           \
	VFMADD231PD  Y13, Y11, Y9;         \
	VCVTPS2PD    aoff(R9)(CX*1), Y12;  \
	VFMADD231PD  Y8, Y12, Y5;          \
	VBROADCASTSD 40(DX), Y14;          \
	VFMADD231PD  Y14, Y12, Y10;        \
	VCVTPS2PD    aoff(R10)(AX*4), Y11; \
	VFMADD231PD  Y8, Y11, Y2;          \
	VBROADCASTSD 16(DX), Y13;          \
	VFMADD231PD  Y13, Y11, Y9;         \
	VCVTPS2PD    aoff(R10)(CX*1), Y12; \
	VFMADD231PD  Y8, Y12, Y6;          \
	VBROADCASTSD 48(DX), Y14;          \
	VFMADD231PD  Y14, Y12, Y10;        \
	VCVTPS2PD    aoff(R11)(AX*4), Y11; \
	VFMADD231PD  Y8, Y11, Y3;          \
	VBROADCASTSD 24(DX), Y13;          \
	VFMADD231PD  Y13, Y11, Y9;         \
	VCVTPS2PD    aoff(R11)(CX*1), Y12; \
	VFMADD231PD  Y8, Y12, Y7;          \
	VBROADCASTSD 56(DX), Y14;          \
	VFMADD231PD  Y14, Y12, Y10;        \
	VADDPD       Y10, Y9, Y9;          \
	VMOVUPD      Y9, qoff(DI)(AX*8)

#define DOT8F64STEPY(off) \
	VMOVUPD     off(SI)(AX*8), Y8;   \
	VMOVUPD     off(R8)(AX*8), Y11;  \
	VFMADD231PD Y8, Y11, Y0;         \
	VMOVUPD     off(R8)(CX*1), Y12;  \
	VFMADD231PD Y8, Y12, Y4;         \
	VMOVUPD     off(R9)(AX*8), Y11;  \
	VFMADD231PD Y8, Y11, Y1;         \
	VMOVUPD     off(R9)(CX*1), Y12;  \
	VFMADD231PD Y8, Y12, Y5;         \
	VMOVUPD     off(R10)(AX*8), Y11; \
	VFMADD231PD Y8, Y11, Y2;         \
	VMOVUPD     off(R10)(CX*1), Y12; \
	VFMADD231PD Y8, Y12, Y6;         \
	VMOVUPD     off(R11)(AX*8), Y11; \
	VFMADD231PD Y8, Y11, Y3;         \
	VMOVUPD     off(R11)(CX*1), Y12; \
	VFMADD231PD Y8, Y12, Y7

#define DOT8F32STEPY(aoff, qoff) \
	VMOVUPD     qoff(SI)(AX*8), Y8;   \
	VCVTPS2PD   aoff(R8)(AX*4), Y11;  \
	VFMADD231PD Y8, Y11, Y0;          \
	VCVTPS2PD   aoff(R8)(CX*1), Y12;  \
	VFMADD231PD Y8, Y12, Y4;          \
	VCVTPS2PD   aoff(R9)(AX*4), Y11;  \
	VFMADD231PD Y8, Y11, Y1;          \
	VCVTPS2PD   aoff(R9)(CX*1), Y12;  \
	VFMADD231PD Y8, Y12, Y5;          \
	VCVTPS2PD   aoff(R10)(AX*4), Y11; \
	VFMADD231PD Y8, Y11, Y2;          \
	VCVTPS2PD   aoff(R10)(CX*1), Y12; \
	VFMADD231PD Y8, Y12, Y6;          \
	VCVTPS2PD   aoff(R11)(AX*4), Y11; \
	VFMADD231PD Y8, Y11, Y3;          \
	VCVTPS2PD   aoff(R11)(CX*1), Y12; \
	VFMADD231PD Y8, Y12, Y7

#define AXPY8F64STEPY(off) \
	VMOVUPD     off(DI)(AX*8), Y9;   \
	VMOVUPD     off(R8)(AX*8), Y11;  \
	VFMADD231PD Y0, Y11, Y9;         \
	VMOVUPD     off(R8)(CX*1), Y12;  \
	VMULPD      Y4, Y12, Y10;        \
	VMOVUPD     off(R9)(AX*8), Y11;  \
	VFMADD231PD Y1, Y11, Y9;         \
	VMOVUPD     off(R9)(CX*1), Y12;  \
	VFMADD231PD Y5, Y12, Y10;        \
	VMOVUPD     off(R10)(AX*8), Y11; \
	VFMADD231PD Y2, Y11, Y9;         \
	VMOVUPD     off(R10)(CX*1), Y12; \
	VFMADD231PD Y6, Y12, Y10;        \
	VMOVUPD     off(R11)(AX*8), Y11; \
	VFMADD231PD Y3, Y11, Y9;         \
	VMOVUPD     off(R11)(CX*1), Y12; \
	VFMADD231PD Y7, Y12, Y10;        \
	VADDPD      Y10, Y9, Y9;         \
	VMOVUPD     Y9, off(DI)(AX*8)

#define AXPY8F32STEPY(aoff, qoff) \
	VMOVUPD     qoff(DI)(AX*8), Y9;   \
	VCVTPS2PD   aoff(R8)(AX*4), Y11;  \
	VFMADD231PD Y0, Y11, Y9;          \
	VCVTPS2PD   aoff(R8)(CX*1), Y12;  \
	VMULPD      Y4, Y12, Y10;         \
	VCVTPS2PD   aoff(R9)(AX*4), Y11;  \
	VFMADD231PD Y1, Y11, Y9;          \
	VCVTPS2PD   aoff(R9)(CX*1), Y12;  \
	VFMADD231PD Y5, Y12, Y10;         \
	VCVTPS2PD   aoff(R10)(AX*4), Y11; \
	VFMADD231PD Y2, Y11, Y9;          \
	VCVTPS2PD   aoff(R10)(CX*1), Y12; \
	VFMADD231PD Y6, Y12, Y10;         \
	VCVTPS2PD   aoff(R11)(AX*4), Y11; \
	VFMADD231PD Y3, Y11, Y9;          \
	VCVTPS2PD   aoff(R11)(CX*1), Y12; \
	VFMADD231PD Y7, Y12, Y10;         \
	VADDPD      Y10, Y9, Y9;          \
	VMOVUPD     Y9, qoff(DI)(AX*8)

#define FUSED8F64SCALAR \
	VMOVSD      (SI)(AX*8), X8;   \
	VMOVSD      (DI)(AX*8), X9;   \
	VMOVSD      (R8)(AX*8), X11;  \
	VFMADD231SD X8, X11, X0;      \
	VFMADD231SD 0(DX), X11, X9;   \
	VMOVSD      (R9)(AX*8), X12;  \
	VFMADD231SD X8, X12, X1;      \
	VFMADD231SD 8(DX), X12, X9;   \
	VMOVSD      (R10)(AX*8), X11; \
	VFMADD231SD X8, X11, X2;      \
	VFMADD231SD 16(DX), X11, X9;  \
	VMOVSD      (R11)(AX*8), X12; \
	VFMADD231SD X8, X12, X3;      \
	VFMADD231SD 24(DX), X12, X9;  \
	VMOVSD      (R8)(CX*1), X11;  \
	VFMADD231SD X8, X11, X4;      \
	VFMADD231SD 32(DX), X11, X9;  \
	VMOVSD      (R9)(CX*1), X12;  \
	VFMADD231SD X8, X12, X5;      \
	VFMADD231SD 40(DX), X12, X9;  \
	VMOVSD      (R10)(CX*1), X11; \
	VFMADD231SD X8, X11, X6;      \
	VFMADD231SD 48(DX), X11, X9;  \
	VMOVSD      (R11)(CX*1), X12; \
	VFMADD231SD X8, X12, X7;      \
	VFMADD231SD 56(DX), X12, X9;  \
	VMOVSD      X9, (DI)(AX*8)

#define FUSED8F32SCALAR \
	VMOVSD      (SI)(AX*8), X8;        \
	VMOVSD      (DI)(AX*8), X9;        \
	VCVTSS2SD   (R8)(AX*4), X11, X11;  \
	VFMADD231SD X8, X11, X0;           \
	VFMADD231SD 0(DX), X11, X9;        \
	VCVTSS2SD   (R9)(AX*4), X12, X12;  \
	VFMADD231SD X8, X12, X1;           \
	VFMADD231SD 8(DX), X12, X9;        \
	VCVTSS2SD   (R10)(AX*4), X11, X11; \
	VFMADD231SD X8, X11, X2;           \
	VFMADD231SD 16(DX), X11, X9;       \
	VCVTSS2SD   (R11)(AX*4), X12, X12; \
	VFMADD231SD X8, X12, X3;           \
	VFMADD231SD 24(DX), X12, X9;       \
	VCVTSS2SD   (R8)(CX*1), X11, X11;  \
	VFMADD231SD X8, X11, X4;           \
	VFMADD231SD 32(DX), X11, X9;       \
	VCVTSS2SD   (R9)(CX*1), X12, X12;  \
	VFMADD231SD X8, X12, X5;           \
	VFMADD231SD 40(DX), X12, X9;       \
	VCVTSS2SD   (R10)(CX*1), X11, X11; \
	VFMADD231SD X8, X11, X6;           \
	VFMADD231SD 48(DX), X11, X9;       \
	VCVTSS2SD   (R11)(CX*1), X12, X12; \
	VFMADD231SD X8, X12, X7;           \
	VFMADD231SD 56(DX), X12, X9;       \
	VMOVSD      X9, (DI)(AX*8)

#define DOT8F64SCALAR \
	VMOVSD      (SI)(AX*8), X8;   \
	VMOVSD      (R8)(AX*8), X11;  \
	VFMADD231SD X8, X11, X0;      \
	VMOVSD      (R9)(AX*8), X12;  \
	VFMADD231SD X8, X12, X1;      \
	VMOVSD      (R10)(AX*8), X11; \
	VFMADD231SD X8, X11, X2;      \
	VMOVSD      (R11)(AX*8), X12; \
	VFMADD231SD X8, X12, X3;      \
	VMOVSD      (R8)(CX*1), X11;  \
	VFMADD231SD X8, X11, X4;      \
	VMOVSD      (R9)(CX*1), X12;  \
	VFMADD231SD X8, X12, X5;      \
	VMOVSD      (R10)(CX*1), X11; \
	VFMADD231SD X8, X11, X6;      \
	VMOVSD      (R11)(CX*1), X12; \
	VFMADD231SD X8, X12, X7

#define DOT8F32SCALAR \
	VMOVSD      (SI)(AX*8), X8;        \
	VCVTSS2SD   (R8)(AX*4), X11, X11;  \
	VFMADD231SD X8, X11, X0;           \
	VCVTSS2SD   (R9)(AX*4), X12, X12;  \
	VFMADD231SD X8, X12, X1;           \
	VCVTSS2SD   (R10)(AX*4), X11, X11; \
	VFMADD231SD X8, X11, X2;           \
	VCVTSS2SD   (R11)(AX*4), X12, X12; \
	VFMADD231SD X8, X12, X3;           \
	VCVTSS2SD   (R8)(CX*1), X11, X11;  \
	VFMADD231SD X8, X11, X4;           \
	VCVTSS2SD   (R9)(CX*1), X12, X12;  \
	VFMADD231SD X8, X12, X5;           \
	VCVTSS2SD   (R10)(CX*1), X11, X11; \
	VFMADD231SD X8, X11, X6;           \
	VCVTSS2SD   (R11)(CX*1), X12, X12; \
	VFMADD231SD X8, X12, X7

#define AXPY8F64SCALAR \
	VMOVSD      (DI)(AX*8), X9;   \
	VMOVSD      (R8)(AX*8), X11;  \
	VFMADD231SD X0, X11, X9;      \
	VMOVSD      (R9)(AX*8), X12;  \
	VFMADD231SD X1, X12, X9;      \
	VMOVSD      (R10)(AX*8), X11; \
	VFMADD231SD X2, X11, X9;      \
	VMOVSD      (R11)(AX*8), X12; \
	VFMADD231SD X3, X12, X9;      \
	VMOVSD      (R8)(CX*1), X11;  \
	VFMADD231SD X4, X11, X9;      \
	VMOVSD      (R9)(CX*1), X12;  \
	VFMADD231SD X5, X12, X9;      \
	VMOVSD      (R10)(CX*1), X11; \
	VFMADD231SD X6, X11, X9;      \
	VMOVSD      (R11)(CX*1), X12; \
	VFMADD231SD X7, X12, X9;      \
	VMOVSD      X9, (DI)(AX*8)

#define AXPY8F32SCALAR \
	VMOVSD      (DI)(AX*8), X9;        \
	VCVTSS2SD   (R8)(AX*4), X11, X11;  \
	VFMADD231SD X0, X11, X9;           \
	VCVTSS2SD   (R9)(AX*4), X12, X12;  \
	VFMADD231SD X1, X12, X9;           \
	VCVTSS2SD   (R10)(AX*4), X11, X11; \
	VFMADD231SD X2, X11, X9;           \
	VCVTSS2SD   (R11)(AX*4), X12, X12; \
	VFMADD231SD X3, X12, X9;           \
	VCVTSS2SD   (R8)(CX*1), X11, X11;  \
	VFMADD231SD X4, X11, X9;           \
	VCVTSS2SD   (R9)(CX*1), X12, X12;  \
	VFMADD231SD X5, X12, X9;           \
	VCVTSS2SD   (R10)(CX*1), X11, X11; \
	VFMADD231SD X6, X11, X9;           \
	VCVTSS2SD   (R11)(CX*1), X12, X12; \
	VFMADD231SD X7, X12, X9;           \
	VMOVSD      X9, (DI)(AX*8)

#define BCASTP8Y \
	VBROADCASTSD 0(R13), Y0;  \
	VBROADCASTSD 8(R13), Y1;  \
	VBROADCASTSD 16(R13), Y2; \
	VBROADCASTSD 24(R13), Y3; \
	VBROADCASTSD 32(R13), Y4; \
	VBROADCASTSD 40(R13), Y5; \
	VBROADCASTSD 48(R13), Y6; \
	VBROADCASTSD 56(R13), Y7

#define ZEROY0TO7 \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// LOADDOTS8 / STOREDOTS8 move dots[0..7] (pointer in R13) to and from the
// scalar accumulators X0..X7 around the scalar tail.
#define LOADDOTS8 \
	VMOVSD 0(R13), X0;  \
	VMOVSD 8(R13), X1;  \
	VMOVSD 16(R13), X2; \
	VMOVSD 24(R13), X3; \
	VMOVSD 32(R13), X4; \
	VMOVSD 40(R13), X5; \
	VMOVSD 48(R13), X6; \
	VMOVSD 56(R13), X7

#define STOREDOTS8 \
	VMOVSD X0, 0(R13);  \
	VMOVSD X1, 8(R13);  \
	VMOVSD X2, 16(R13); \
	VMOVSD X3, 24(R13); \
	VMOVSD X4, 32(R13); \
	VMOVSD X5, 40(R13); \
	VMOVSD X6, 48(R13); \
	VMOVSD X7, 56(R13)

// func fused8F64AVX2(a []float64, lda, n int, q, s []float64, p, dots *[8]float64)
TEXT ·fused8F64AVX2(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), DX
	ROWPTRS4(8)
	ZEROY0TO7
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ n+32(FP), BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(8)
	FUSED8F64STEPY(0)
	FUSED8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ n+32(FP), BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	FUSED8F64STEPY(0)
	FUSED8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ n+32(FP), BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   reduce
	FUSED8F64STEPY(0)
	ADDQ $4, AX
	ADDQ $32, CX

reduce:
	HSUM4YR(Y0, Y1, Y2, Y3)
	HSUM4YR(Y4, Y5, Y6, Y7)
	MOVQ    dots+96(FP), R13
	VMOVUPD Y0, (R13)
	VMOVUPD Y4, 32(R13)
	VZEROUPPER
	CMPQ    AX, n+32(FP)
	JAE     done
	LOADDOTS8

scalar:
	FUSED8F64SCALAR
	INCQ AX
	ADDQ $8, CX
	CMPQ AX, n+32(FP)
	JB   scalar
	STOREDOTS8

done:
	RET

// func fused8F32AVX2(a []float32, lda, n int, q, s []float64, p, dots *[8]float64)
TEXT ·fused8F32AVX2(SB), NOSPLIT, $0-104
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ q_base+40(FP), SI
	MOVQ s_base+64(FP), DI
	MOVQ p+88(FP), DX
	ROWPTRS4(4)
	ZEROY0TO7
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ n+32(FP), BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	FUSED8F32STEPY(0, 0)
	FUSED8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ n+32(FP), BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $32, R12
	ADDQ $32, R13
	FUSED8F32STEPY(0, 0)
	FUSED8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ n+32(FP), BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   reduce
	FUSED8F32STEPY(0, 0)
	ADDQ $4, AX
	ADDQ $16, CX

reduce:
	HSUM4YR(Y0, Y1, Y2, Y3)
	HSUM4YR(Y4, Y5, Y6, Y7)
	MOVQ    dots+96(FP), R13
	VMOVUPD Y0, (R13)
	VMOVUPD Y4, 32(R13)
	VZEROUPPER
	CMPQ    AX, n+32(FP)
	JAE     done
	LOADDOTS8

scalar:
	FUSED8F32SCALAR
	INCQ AX
	ADDQ $4, CX
	CMPQ AX, n+32(FP)
	JB   scalar
	STOREDOTS8

done:
	RET

// func dot8F64AVX2(a []float64, lda, n int, q []float64, dots *[8]float64)
TEXT ·dot8F64AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(8)
	ZEROY0TO7
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(8)
	DOT8F64STEPY(0)
	DOT8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	DOT8F64STEPY(0)
	DOT8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   reduce
	DOT8F64STEPY(0)
	ADDQ $4, AX
	ADDQ $32, CX

reduce:
	HSUM4YR(Y0, Y1, Y2, Y3)
	HSUM4YR(Y4, Y5, Y6, Y7)
	MOVQ    dots+64(FP), R13
	VMOVUPD Y0, (R13)
	VMOVUPD Y4, 32(R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS8

scalar:
	DOT8F64SCALAR
	INCQ AX
	ADDQ $8, CX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS8

done:
	RET

// func dot8F32AVX2(a []float32, lda, n int, q []float64, dots *[8]float64)
TEXT ·dot8F32AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ q_base+40(FP), SI
	ROWPTRS4(4)
	ZEROY0TO7
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	DOT8F32STEPY(0, 0)
	DOT8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $32, R12
	ADDQ $32, R13
	DOT8F32STEPY(0, 0)
	DOT8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   reduce
	DOT8F32STEPY(0, 0)
	ADDQ $4, AX
	ADDQ $16, CX

reduce:
	HSUM4YR(Y0, Y1, Y2, Y3)
	HSUM4YR(Y4, Y5, Y6, Y7)
	MOVQ    dots+64(FP), R13
	VMOVUPD Y0, (R13)
	VMOVUPD Y4, 32(R13)
	VZEROUPPER
	CMPQ    AX, DX
	JAE     done
	LOADDOTS8

scalar:
	DOT8F32SCALAR
	INCQ AX
	ADDQ $4, CX
	CMPQ AX, DX
	JB   scalar
	STOREDOTS8

done:
	RET

// func axpy8F64AVX2(a []float64, lda, n int, s []float64, p *[8]float64)
TEXT ·axpy8F64AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(8)
	BCASTP8Y
	ROWOFFS8(5)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS64, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(8)
	AXPY8F64STEPY(0)
	AXPY8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $64, R12
	ADDQ $64, R13
	AXPY8F64STEPY(0)
	AXPY8F64STEPY(32)
	ADDQ $8, AX
	ADDQ $64, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   tail
	AXPY8F64STEPY(0)
	ADDQ $4, AX
	ADDQ $32, CX

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	AXPY8F64SCALAR
	INCQ AX
	ADDQ $8, CX
	CMPQ AX, DX
	JB   scalar

done:
	RET

// func axpy8F32AVX2(a []float32, lda, n int, s []float64, p *[8]float64)
TEXT ·axpy8F32AVX2(SB), NOSPLIT, $0-72
	MOVQ a_base+0(FP), R8
	MOVQ lda+24(FP), BX
	MOVQ n+32(FP), DX
	MOVQ s_base+40(FP), DI
	MOVQ p+64(FP), R13
	ROWPTRS4(4)
	BCASTP8Y
	ROWOFFS8(4)
	XORQ AX, AX
	MOVQ DX, BX
	SUBQ $PFCOLS32, BX
	JLE  nopf
	ANDQ $-8, BX
	JZ   nopf

looppf: // prefetching main loop, while the prefetches stay inside the rows
	PREFETCH8X1(4)
	AXPY8F32STEPY(0, 0)
	AXPY8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   looppf

nopf: // the last PFDIST bytes of the rows; prefetch the next row group
	MOVQ DX, BX
	ANDQ $-8, BX
	CMPQ AX, BX
	JAE  step4

loop:
	PREFETCHNEXT8X1
	ADDQ $32, R12
	ADDQ $32, R13
	AXPY8F32STEPY(0, 0)
	AXPY8F32STEPY(16, 32)
	ADDQ $8, AX
	ADDQ $32, CX
	CMPQ AX, BX
	JB   loop

step4:
	MOVQ DX, BX
	SUBQ AX, BX
	CMPQ BX, $4
	JB   tail
	AXPY8F32STEPY(0, 0)
	ADDQ $4, AX
	ADDQ $16, CX

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	AXPY8F32SCALAR
	INCQ AX
	ADDQ $4, CX
	CMPQ AX, DX
	JB   scalar

done:
	RET

// ---------------------------------------------------------------------------
// AVX2 + FMA, one row.
//
// Registers: Y0 = p broadcast; Y4..Y7 = four dot accumulators, one per
// 4-column step of a 16-column iteration; Y12 = q; Y13 = s; Y14 = matrix
// tile. A 4-column loop and a scalar loop (0..3 columns) finish the row.

#define FUSED1F64STEPY(off, d) \
	VMOVUPD     off(R8)(AX*8), Y14; \
	VMOVUPD     off(DI)(AX*8), Y13; \
	VFMADD231PD off(SI)(AX*8), Y14, d; \
	VFMADD231PD Y0, Y14, Y13;       \
	VMOVUPD     Y13, off(DI)(AX*8)

#define FUSED1F32STEPY(aoff, qoff, d) \
	VCVTPS2PD   aoff(R8)(AX*4), Y14; \
	VMOVUPD     qoff(DI)(AX*8), Y13; \
	VFMADD231PD qoff(SI)(AX*8), Y14, d; \
	VFMADD231PD Y0, Y14, Y13;        \
	VMOVUPD     Y13, qoff(DI)(AX*8)

#define DOT1F64STEPY(off, d) \
	VMOVUPD     off(R8)(AX*8), Y14; \
	VFMADD231PD off(SI)(AX*8), Y14, d

#define DOT1F32STEPY(aoff, qoff, d) \
	VCVTPS2PD   aoff(R8)(AX*4), Y14; \
	VFMADD231PD qoff(SI)(AX*8), Y14, d

#define AXPY1F64STEPY(off) \
	VMOVUPD     off(R8)(AX*8), Y14; \
	VMOVUPD     off(DI)(AX*8), Y13; \
	VFMADD231PD Y0, Y14, Y13;       \
	VMOVUPD     Y13, off(DI)(AX*8)

#define AXPY1F32STEPY(aoff, soff) \
	VCVTPS2PD   aoff(R8)(AX*4), Y14; \
	VMOVUPD     soff(DI)(AX*8), Y13; \
	VFMADD231PD Y0, Y14, Y13;        \
	VMOVUPD     Y13, soff(DI)(AX*8)

// HSUM1Y4 folds Y4..Y7 into Y4 and reduces it to the scalar X4.
#define HSUM1Y4 \
	VADDPD Y5, Y4, Y4; \
	VADDPD Y7, Y6, Y6; \
	VADDPD Y6, Y4, Y4; \
	HSUM1Y

// ZEROY4 clears the accumulators Y4..Y7.
#define ZEROY4 \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// func fused1F64AVX2(a []float64, n int, q, s []float64, p float64) float64
TEXT ·fused1F64AVX2(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         q_base+32(FP), SI
	MOVQ         s_base+56(FP), DI
	VBROADCASTSD p+80(FP), Y0
	ZEROY4
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-16, BX
	JZ           loop4

loop:
	FUSED1F64STEPY(0, Y4)
	FUSED1F64STEPY(32, Y5)
	FUSED1F64STEPY(64, Y6)
	FUSED1F64STEPY(96, Y7)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4: // 4 columns at a time while at least 4 remain
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	FUSED1F64STEPY(0, Y4)
	ADDQ $4, AX
	JMP  loop4

reduce:
	HSUM1Y4
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VMOVSD      (R8)(AX*8), X14
	VMOVSD      (DI)(AX*8), X13
	VFMADD231SD (SI)(AX*8), X14, X4
	VFMADD231SD X0, X14, X13
	VMOVSD      X13, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	VMOVSD X4, ret+88(FP)
	RET

// func fused1F32AVX2(a []float32, n int, q, s []float64, p float64) float64
TEXT ·fused1F32AVX2(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         q_base+32(FP), SI
	MOVQ         s_base+56(FP), DI
	VBROADCASTSD p+80(FP), Y0
	ZEROY4
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-16, BX
	JZ           loop4

loop:
	FUSED1F32STEPY(0, 0, Y4)
	FUSED1F32STEPY(16, 32, Y5)
	FUSED1F32STEPY(32, 64, Y6)
	FUSED1F32STEPY(48, 96, Y7)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	FUSED1F32STEPY(0, 0, Y4)
	ADDQ $4, AX
	JMP  loop4

reduce:
	HSUM1Y4
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VCVTSS2SD   (R8)(AX*4), X14, X14
	VMOVSD      (DI)(AX*8), X13
	VFMADD231SD (SI)(AX*8), X14, X4
	VFMADD231SD X0, X14, X13
	VMOVSD      X13, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	VMOVSD X4, ret+88(FP)
	RET

// func dot1F64AVX2(a []float64, n int, q []float64) float64
TEXT ·dot1F64AVX2(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), R8
	MOVQ n+24(FP), DX
	MOVQ q_base+32(FP), SI
	ZEROY4
	XORQ AX, AX
	MOVQ DX, BX
	ANDQ $-16, BX
	JZ   loop4

loop:
	DOT1F64STEPY(0, Y4)
	DOT1F64STEPY(32, Y5)
	DOT1F64STEPY(64, Y6)
	DOT1F64STEPY(96, Y7)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	DOT1F64STEPY(0, Y4)
	ADDQ $4, AX
	JMP  loop4

reduce:
	HSUM1Y4
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VMOVSD      (R8)(AX*8), X14
	VFMADD231SD (SI)(AX*8), X14, X4
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	VMOVSD X4, ret+56(FP)
	RET

// func dot1F32AVX2(a []float32, n int, q []float64) float64
TEXT ·dot1F32AVX2(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), R8
	MOVQ n+24(FP), DX
	MOVQ q_base+32(FP), SI
	ZEROY4
	XORQ AX, AX
	MOVQ DX, BX
	ANDQ $-16, BX
	JZ   loop4

loop:
	DOT1F32STEPY(0, 0, Y4)
	DOT1F32STEPY(16, 32, Y5)
	DOT1F32STEPY(32, 64, Y6)
	DOT1F32STEPY(48, 96, Y7)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   reduce
	DOT1F32STEPY(0, 0, Y4)
	ADDQ $4, AX
	JMP  loop4

reduce:
	HSUM1Y4
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VCVTSS2SD   (R8)(AX*4), X14, X14
	VFMADD231SD (SI)(AX*8), X14, X4
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	VMOVSD X4, ret+56(FP)
	RET

// func axpy1F64AVX2(a []float64, n int, s []float64, p float64)
TEXT ·axpy1F64AVX2(SB), NOSPLIT, $0-64
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         s_base+32(FP), DI
	VBROADCASTSD p+56(FP), Y0
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-16, BX
	JZ           loop4

loop:
	AXPY1F64STEPY(0)
	AXPY1F64STEPY(32)
	AXPY1F64STEPY(64)
	AXPY1F64STEPY(96)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   tail
	AXPY1F64STEPY(0)
	ADDQ $4, AX
	JMP  loop4

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VMOVSD      (R8)(AX*8), X14
	VMOVSD      (DI)(AX*8), X13
	VFMADD231SD X0, X14, X13
	VMOVSD      X13, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	RET

// func axpy1F32AVX2(a []float32, n int, s []float64, p float64)
TEXT ·axpy1F32AVX2(SB), NOSPLIT, $0-64
	MOVQ         a_base+0(FP), R8
	MOVQ         n+24(FP), DX
	MOVQ         s_base+32(FP), DI
	VBROADCASTSD p+56(FP), Y0
	XORQ         AX, AX
	MOVQ         DX, BX
	ANDQ         $-16, BX
	JZ           loop4

loop:
	AXPY1F32STEPY(0, 0)
	AXPY1F32STEPY(16, 32)
	AXPY1F32STEPY(32, 64)
	AXPY1F32STEPY(48, 96)
	ADDQ $16, AX
	CMPQ AX, BX
	JB   loop

loop4:
	MOVQ DX, CX
	SUBQ AX, CX
	CMPQ CX, $4
	JB   tail
	AXPY1F32STEPY(0, 0)
	ADDQ $4, AX
	JMP  loop4

tail:
	VZEROUPPER
	CMPQ AX, DX
	JAE  done

scalar:
	VCVTSS2SD   (R8)(AX*4), X14, X14
	VMOVSD      (DI)(AX*8), X13
	VFMADD231SD X0, X14, X13
	VMOVSD      X13, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, DX
	JB          scalar

done:
	RET
