package main

// The dense row kernels of tensorops (see tensorops/kernels.go for what
// each computes and for the checks done before they run).
//
// All functions use Go's ABI0: arguments are read from the caller's frame
// and no stack frame of their own is needed. The Go side has validated every
// length, so the code trusts n and lda and only uses the base pointers of
// the slices.
//
// Register use:
//
//	AX        column index j (in elements, scaled by the addressing mode)
//	DX        n, the number of columns (or p, see plan)
//	BX        lda at entry, then the end of the current column loop
//	R8..R11   matrix rows 0..3 (row k = a + k*lda)
//	CX        8-row kernels: rows 4..7 are R8..R11 indexed by CX, the byte
//	          offset 4*lda*size + j*size, which advances with AX: one
//	          register instead of four
//	SI, DI    q and s
//	R12, R13  the byte offsets from rows 0..3 of the rows of the next
//	          group (4 and 8 rows ahead, 8-row kernels also 12), plus the
//	          bytes of them already prefetched (see Prefetching); R13
//	          first holds p while it is broadcast
//	K1        AVX-512: the lanes of the last n mod 8 columns
//	K2        AVX-512: all lanes
//
// Unrolling. The matrix comes from memory, so the unrolling only needs to
// keep the loads flowing and to hide the 4-cycle latency of the FMAs that
// feed the dot products: the 4-row kernels keep two independent
// accumulators per row (8 chains), the 8-row kernels one (8 chains as
// well), the 1-row kernels four. The column update of s has no
// loop-carried dependency (every iteration works on new elements of s), so
// it needs no extra accumulators. In the 8-row kernels it runs as two
// chains of four, rows 0..3 into s and rows 4..7 into a second register,
// joined by one add: a single chain of eight dependent FMAs (32 cycles)
// per step made the float32 kernels measurably slower in cache, where they
// have the least slack.
//
// AVX2 8-row iterations. With 256-bit vectors a cache line of a row is two
// loads. The AVX2 8-row kernels read each row's line as its two vectors in
// a row (wideStep: two column chains of s, one broadcast of p[k] for both
// vectors), and float64 rows are read by the FMAs' memory operands (a
// micro-fused load, no tile register): on the development machine, an
// AMD Zen 5 (Turin) whose AVX-512 read is only about 10% faster than its
// AVX2 read, this lifted the single-threaded AVX2 fused8 pass over a
// 6000x6000 float64 matrix from about 66% to about 73% of the AVX-512
// read (best of 25 alternating passes, a shared machine; see
// docs/benchmarks.md for the full operator). The sums are the same as with
// two vector steps, in the same order.
//
// Eight rows. The pass drivers feed rows in groups of eight because the
// memory system delivers more with more streams in flight: eight rows per
// call made the passes clearly faster than four, and sixteen were no
// better than eight. (Sharing the q load and the s load and store among
// more rows made no measurable difference in cache: the gain is the extra
// streams.)
//
// Column tails. After the main loop, full vector steps run while a whole
// vector of columns remains. Then the AVX-512 kernels run one step masked by
// K1, so no element at or beyond n is touched (a masked-off lane also
// suppresses the memory fault); the AVX2 kernels reduce their vector
// accumulators, store them, and finish with a scalar loop over the last
// 0..3 columns (after VZEROUPPER: it only uses the low lanes). The full
// AVX-512 steps are masked too, by K2 with all lanes set (K0 cannot be
// named as a write mask): the same kernels with unmasked loads and stores
// ran measurably slower in cache on the development machine, an AMD EPYC.
//
// Prefetching. With four rows in flight the hardware prefetchers alone
// leave part of the machine's read bandwidth unused, because they stop at
// every 4 KiB page boundary and must ramp up again. The 4- and 8-row kernels
// therefore run in three stages:
//
//	looppf  all but the last pfDist bytes of the rows: also prefetch every
//	        row pfDist bytes ahead; the prefetches never leave the rows, so
//	        for a column block of a wider matrix (lda > n) no bandwidth goes
//	        to columns outside the block;
//	loop    the last pfDist bytes: prefetch instead the first bytes of the
//	        rows 4*lda (8-row kernels: 8*lda) further on, where a caller
//	        sweeping the matrix four (eight) rows at a time starts its next
//	        call, which would otherwise begin with unprefetched rows (this
//	        matters most for float32, whose rows are half as many bytes);
//	        a caller with another order pays at
//	        most 4*pfDist (8*pfDist) bytes of extra reads per call.
//	        Prefetches never fault, so running past the end of the matrix
//	        is harmless;
//	tail    the last columns, as above.
//
// An iteration prefetches every cache line it will need once per row; an
// AVX2 float32 iteration consumes only half a line per row, so each line is
// prefetched twice; the second prefetch finds the line already on its way
// and costs just a load slot. The 1-row kernels do not prefetch: they
// serve only the m mod 4 leftover rows, and a single stream gains little
// from it.
//
// Every kernel ends with VZEROUPPER so that SSE code in the Go runtime does
// not pay the AVX-SSE transition penalty.

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// A storage is the element type of the matrix; arithmetic is float64 for
// both.
type storage struct {
	name   string // F64 or F32
	goType string
	size   int // bytes per element
}

var (
	f64      = storage{"F64", "float64", 8}
	f32      = storage{"F32", "float32", 4}
	storages = []storage{f64, f32}
)

// An opKind says what a kernel computes: the row dot products with q, the
// column update s += Σ_k p_k a_k, or both in one pass.
type opKind struct {
	name        string
	dots, axpys bool
}

var ops = []opKind{{"fused", true, true}, {"dot", true, false}, {"axpy", false, true}}

// signature returns the Go signature of an op over rows rows of T.
func (o opKind) signature(rows int, t string) string {
	a := fmt.Sprintf("a []%s, lda, n int", t)
	if rows == 1 {
		a = fmt.Sprintf("a []%s, n int", t)
	}
	switch {
	case rows == 1 && o.dots && o.axpys:
		return "func(" + a + ", q, s []float64, p float64) float64"
	case rows == 1 && o.dots:
		return "func(" + a + ", q []float64) float64"
	case rows == 1:
		return "func(" + a + ", s []float64, p float64)"
	case o.dots && o.axpys:
		return fmt.Sprintf("func(%s, q, s []float64, p, dots *[%d]float64)", a, rows)
	case o.dots:
		return fmt.Sprintf("func(%s, q []float64, dots *[%d]float64)", a, rows)
	default:
		return fmt.Sprintf("func(%s, s []float64, p *[%d]float64)", a, rows)
	}
}

// A plan assigns vector registers (by number; the form picks Z, Y or X).
type plan struct {
	p    []int   // p[k] broadcast; nil: broadcast from memory into pt for every tile
	pt   []int   // per row, the broadcast of p[k] when p is nil
	acc  [][]int // dot accumulators [set][row]
	tile []int   // per row, the row's matrix elements
	q    int
	s    int
	s2   int // 8-row kernels: the second chain of the column update
	// wide: AVX2 8-row kernels, whose main-loop iteration is one wide step
	// that reads each row's whole cache line (two vectors) in a row; qh,
	// sh and s2h hold q, s and the second chain for the second vector.
	wide        bool
	qh, sh, s2h int
	tmp         int // one-row kernels: scratch of the horizontal sum (below 16: VEX-only instructions use it)
}

func seq(from, n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = from + i
	}
	return r
}

// planFor returns the register plan of a kernel. AVX-512 has 32 vector
// registers and every row gets its own; AVX2 has 16, so rows share tile
// registers (register renaming keeps them independent) and the fused
// 8-row kernels, whose eight accumulators leave no room for eight
// broadcast values of p, broadcast p[k] from memory once per row and
// iteration (a load uop, of which there are plenty) into one shared
// register; their main loops are wide (see AVX2 8-row iterations).
func planFor(i isa, rows int, op opKind) plan {
	switch {
	case i.masked && rows == 8:
		return plan{p: seq(0, 8), acc: [][]int{seq(8, 8)}, tile: seq(16, 8), q: 24, s: 25, s2: 26}
	case i.masked && rows == 4:
		return plan{p: seq(0, 4), acc: [][]int{seq(4, 4), seq(8, 4)}, tile: seq(16, 4), q: 20, s: 21}
	case rows == 8:
		pl := plan{acc: [][]int{seq(0, 8)}, q: 8, s: 9, s2: 10, tile: []int{11, 11, 11, 11, 11, 11, 11, 11},
			wide: true, qh: 15, sh: 13, s2h: 14}
		if !op.dots {
			pl.p, pl.acc = seq(0, 8), nil
		} else if op.axpys {
			pl.pt = []int{12, 12, 12, 12, 12, 12, 12, 12}
		}
		return pl
	case rows == 4:
		return plan{p: seq(0, 4), acc: [][]int{seq(4, 4), seq(8, 4)}, tile: []int{14, 15, 14, 15}, q: 12, s: 13}
	default: // one row, four accumulators
		t := 16
		if !i.masked {
			t = 14
		}
		return plan{p: []int{0}, acc: [][]int{{4}, {5}, {6}, {7}}, tile: []int{t}, q: 12, s: 13, tmp: 5}
	}
}

// A kernel is one function being emitted.
type kernel struct {
	asm
	isa  isa
	st   storage
	op   opKind
	rows int
	pl   plan

	n    operand.Op // n: DX, or its argument slot when DX holds p
	pPtr reg.GPPhysical
	all  reg.Register // AVX-512: K2, all lanes (see Column tails)
	// unroll is the number of vector steps per main-loop iteration; step u
	// adds to accumulator set u mod len(pl.acc).
	unroll int
}

var rowRegs = []reg.GPPhysical{reg.R8, reg.R9, reg.R10, reg.R11}

func (k *kernel) name() string {
	return fmt.Sprintf("%s%d%s%s", k.op.name, k.rows, k.st.name, k.isa.name)
}

// emitKernels emits every kernel, the row-group ones by operation first,
// and returns the Go code of the two kernel sets that use them.
func emitKernels(c *build.Context) string {
	for _, group := range [][]int{{8, 4}, {1}} {
		for _, op := range ops {
			for _, rows := range group {
				for _, i := range isas {
					for _, st := range storages {
						k := &kernel{asm: asm{c}, isa: i, st: st, op: op, rows: rows, pl: planFor(i, rows, op)}
						k.emit()
					}
				}
			}
		}
	}
	var sets strings.Builder
	for _, i := range isas {
		fmt.Fprintf(&sets, "\nvar %sKernels = kernelSet{\n\tname: %q,\n", strings.ToLower(i.name), strings.ToLower(i.name))
		for _, st := range storages {
			fmt.Fprintf(&sets, "\t%s: rowKernels[%s]{\n", strings.ToLower(st.name), st.goType)
			for _, rows := range []int{8, 4, 1} {
				for _, op := range ops {
					k := kernel{isa: i, st: st, op: op, rows: rows}
					fmt.Fprintf(&sets, "\t\t%s%d: %s,\n", op.name, rows, k.name())
				}
			}
			sets.WriteString("\t},\n")
		}
		sets.WriteString("}\n")
	}
	return sets.String()
}

func (k *kernel) emit() {
	k.Function(k.name())
	k.Attributes(attr.NOSPLIT)
	k.SignatureExpr(k.op.signature(k.rows, k.st.goType))
	k.Doc(fmt.Sprintf("%s is %s%d for %s storage with %s (see kernels.go).",
		k.name(), k.op.name, k.rows, k.st.goType, k.isa.title))
	k.Pragma("noescape")
	k.unroll = 2
	if k.rows == 1 {
		k.unroll = 4
	}
	k.prologue()
	k.mainLoops()
	k.tail()
}

// param returns the address of argument name, or of the base pointer of
// slice argument x for name "x_base".
func (k *kernel) param(name string) operand.Mem {
	if x, ok := strings.CutSuffix(name, "_base"); ok {
		return addr(k.Param(x).Base())
	}
	return addr(k.Param(name))
}

// prologue loads the arguments, derives the row pointers, broadcasts p,
// clears the accumulators and sets up the tail mask and the offsets of the
// next row group.
func (k *kernel) prologue() {
	v := k.isa.vec
	k.MOVQ(k.param("a_base"), reg.R8)
	if k.rows > 1 {
		k.MOVQ(k.param("lda"), reg.RBX)
	}
	k.n = reg.RDX
	if k.pl.p == nil && k.op.axpys {
		k.n, k.pPtr = k.param("n"), reg.RDX
		k.MOVQ(k.param("p"), k.pPtr)
	} else {
		k.MOVQ(k.param("n"), reg.RDX)
	}
	if k.op.dots {
		k.MOVQ(k.param("q_base"), reg.RSI)
	}
	if k.op.axpys {
		k.MOVQ(k.param("s_base"), reg.RDI)
	}
	switch {
	case !k.op.axpys || k.pPtr != nil:
	case k.rows == 1:
		k.VBROADCASTSD(k.param("p"), v.v(k.pl.p[0]))
	default:
		k.MOVQ(k.param("p"), reg.R13)
		for r, p := range k.pl.p {
			k.VBROADCASTSD(operand.Mem{Base: reg.R13, Disp: 8 * r}, v.v(p))
		}
	}
	if k.rows > 1 {
		for r := 1; r < 4; r++ {
			k.LEAQ(operand.Mem{Base: rowRegs[r-1], Index: reg.RBX, Scale: uint8(k.st.size)}, rowRegs[r])
		}
	}
	if k.op.dots {
		for _, set := range k.pl.acc {
			for _, a := range set {
				k.zero(v, v.v(a))
			}
		}
	}
	if k.isa.masked {
		k.lowMask(k.n, v.lanes, reg.K1)
		k.all = reg.K2
		k.MOVL(operand.U32(0xffff), reg.R12L)
		k.KMOVW(reg.R12L, k.all)
	}
	// Byte offsets from rows 0..3: 4-row kernels R12 = 4 rows (the next
	// group); 8-row kernels CX = 4 rows (rows 4..7), R12 = 8 and R13 = 12
	// rows (the next group).
	shift := operand.U8(log2(4 * k.st.size))
	switch k.rows {
	case 4:
		k.MOVQ(reg.RBX, reg.R12)
		k.SHLQ(shift, reg.R12)
	case 8:
		k.MOVQ(reg.RBX, reg.RCX)
		k.SHLQ(shift, reg.RCX)
		k.LEAQ(operand.Mem{Base: reg.RCX, Index: reg.RCX, Scale: 1}, reg.R12)
		k.LEAQ(operand.Mem{Base: reg.R12, Index: reg.RCX, Scale: 1}, reg.R13)
	}
	k.XORQ(reg.RAX, reg.RAX)
}

func log2(x int) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

// nextGroup returns the registers holding the offsets of the next row
// group from rows 0..3.
func (k *kernel) nextGroup() []reg.GPPhysical {
	switch k.rows {
	case 4:
		return []reg.GPPhysical{reg.R12}
	case 8:
		return []reg.GPPhysical{reg.R12, reg.R13}
	}
	return nil
}

// mainLoops emits the two stages of the main loop (one for one row), each
// iteration k.unroll vector steps.
func (k *kernel) mainLoops() {
	cols := k.unroll * k.isa.vec.lanes
	rowBytes := cols * k.st.size // of each row per iteration
	lines := max(1, rowBytes/lineBytes)
	if k.rows > 1 {
		k.Comment("Prefetching main loop, while the prefetches stay inside the rows.")
		k.MOVQ(k.n, reg.RBX)
		k.SUBQ(operand.U32(pfDist/k.st.size), reg.RBX)
		k.JLE(operand.LabelRef("nopf"))
		k.ANDQ(operand.I32(-cols), reg.RBX)
		k.JZ(operand.LabelRef("nopf"))
		k.Label("looppf")
		for r := range k.rows {
			for l := range lines {
				m := k.rowAddr(r, 0)
				m.Disp += pfDist + l*lineBytes
				k.PREFETCHT0(m)
			}
		}
		k.iteration()
		k.CMPQ(reg.RAX, reg.RBX)
		k.JB(operand.LabelRef("looppf"))
		k.Label("nopf")
		k.Comment("The last pfDist bytes of the rows; prefetch the next row group.")
	}
	k.MOVQ(k.n, reg.RBX)
	k.ANDQ(operand.I32(-cols), reg.RBX)
	k.CMPQ(reg.RAX, reg.RBX)
	k.JAE(operand.LabelRef("tail"))
	k.Label("loop")
	for _, off := range k.nextGroup() {
		for _, row := range rowRegs {
			for l := range lines {
				k.PREFETCHT0(operand.Mem{Base: row, Index: off, Scale: 1, Disp: l * lineBytes})
			}
		}
		k.ADDQ(operand.U32(rowBytes), off)
	}
	k.iteration()
	k.CMPQ(reg.RAX, reg.RBX)
	k.JB(operand.LabelRef("loop"))
}

// iteration emits one main-loop iteration: k.unroll full vector steps.
func (k *kernel) iteration() {
	v := k.isa.vec
	if k.pl.wide && k.unroll == 2 {
		k.wideStep(v)
		k.advance(k.unroll * v.lanes)
		return
	}
	for u := range k.unroll {
		k.step(v, u*v.lanes, u%max(1, len(k.pl.acc)), k.all)
	}
	k.advance(k.unroll * v.lanes)
}

// advance moves the column index (and the offset of rows 4..7) by cols.
func (k *kernel) advance(cols int) {
	if cols == 1 {
		k.INCQ(reg.RAX)
	} else {
		k.ADDQ(operand.U32(cols), reg.RAX)
	}
	if k.rows == 8 {
		k.ADDQ(operand.U32(cols*k.st.size), reg.RCX)
	}
}

// rowAddr returns the address of row r at column offset col from j.
func (k *kernel) rowAddr(r, col int) operand.Mem {
	if r < 4 {
		return operand.Mem{Base: rowRegs[r], Index: reg.RAX, Scale: uint8(k.st.size), Disp: col * k.st.size}
	}
	return operand.Mem{Base: rowRegs[r-4], Index: reg.RCX, Scale: 1, Disp: col * k.st.size}
}

// vecAddr returns the address of q or s at column offset col from j.
func vecAddr(base reg.GPPhysical, col int) operand.Mem {
	return operand.Mem{Base: base, Index: reg.RAX, Scale: 8, Disp: col * 8}
}

// split reports whether a step of form f runs the column update as two
// chains (see Unrolling). The scalar tail of the AVX2 kernels keeps a
// single chain in row order: on at most three columns the longer chain
// costs nothing, and the AVX2 results (and the golden files of the command
// line, which are kept per kernel set) stay as they were when the kernels
// were written by hand.
func (k *kernel) split(f form) bool { return k.rows == 8 && f != sd }

// step emits one step of f.lanes columns at column offset col from j,
// adding to accumulator set set, its loads and stores masked by mask
// (nil: all lanes).
//
// With AVX-512 every row has its own tile register, and a step issues all
// its loads first, then the dot products, then the column update, so that
// as many cache misses as possible are in flight early; AVX2, with two
// shared tile registers, follows each row's load with its arithmetic.
func (k *kernel) step(f form, col, set int, mask reg.Register) {
	pl := k.pl
	q, s := f.v(pl.q), f.v(pl.s)
	load := func(r int) { k.load(f, k.st == f32, k.rowAddr(r, col), mask, f.v(pl.tile[r])) }
	dot := func(r int) {
		if k.op.dots {
			k.fma(f, q, f.v(pl.tile[r]), f.v(pl.acc[set][r]))
		}
	}
	vectors := func() {
		if k.op.dots {
			k.load(f, false, vecAddr(reg.RSI, col), mask, q)
		}
		if k.op.axpys {
			k.load(f, false, vecAddr(reg.RDI, col), mask, s)
		}
	}
	if k.isa.masked {
		for r := range k.rows {
			load(r)
		}
		vectors()
		for r := range k.rows {
			dot(r)
		}
		if k.op.axpys {
			order := seq(0, k.rows)
			if k.split(f) {
				order = []int{4, 0, 5, 1, 6, 2, 7, 3}
			}
			for _, r := range order {
				k.update(f, r)
			}
		}
	} else {
		vectors()
		order := seq(0, k.rows)
		if k.split(f) {
			order = []int{0, 4, 1, 5, 2, 6, 3, 7}
		}
		for _, r := range order {
			load(r)
			dot(r)
			if k.op.axpys {
				k.update(f, r)
			}
		}
	}
	if k.op.axpys {
		if k.split(f) {
			k.add(f, f.v(pl.s2), s)
		}
		k.store(f, s, mask, vecAddr(reg.RDI, col))
	}
}

// wideStep emits the main-loop iteration of a wide plan: two vector
// steps, each row's two vectors one after the other (see plan.wide).
func (k *kernel) wideStep(f form) {
	pl := k.pl
	qs := []int{pl.q, pl.qh}
	ss := []int{pl.s, pl.sh}
	s2s := []int{pl.s2, pl.s2h}
	for h := range 2 {
		if k.op.dots {
			k.load(f, false, vecAddr(reg.RSI, h*f.lanes), nil, f.v(qs[h]))
		}
		if k.op.axpys {
			k.load(f, false, vecAddr(reg.RDI, h*f.lanes), nil, f.v(ss[h]))
		}
	}
	for _, r := range []int{0, 4, 1, 5, 2, 6, 3, 7} {
		var p operand.Op
		if k.op.axpys {
			if pl.p != nil {
				p = f.v(pl.p[r])
			} else {
				p = f.v(pl.pt[r])
				k.VBROADCASTSD(operand.Mem{Base: k.pPtr, Disp: 8 * r}, p)
			}
		}
		for h := range 2 {
			var t operand.Op = f.v(pl.tile[r])
			if k.st == f32 {
				k.load(f, true, k.rowAddr(r, h*f.lanes), nil, f.v(pl.tile[r]))
			} else {
				t = k.rowAddr(r, h*f.lanes)
			}
			if k.op.dots {
				k.fma(f, t, f.v(qs[h]), f.v(pl.acc[0][r]))
			}
			switch {
			case !k.op.axpys:
			case r < 4:
				k.fma(f, t, p, f.v(ss[h]))
			case r == 4:
				k.mul(f, t, p, f.v(s2s[h]))
			default:
				k.fma(f, t, p, f.v(s2s[h]))
			}
		}
	}
	if k.op.axpys {
		for h := range 2 {
			k.add(f, f.v(s2s[h]), f.v(ss[h]))
			k.store(f, f.v(ss[h]), nil, vecAddr(reg.RDI, h*f.lanes))
		}
	}
}

// update adds p[r] times row r's tile to the column update: to s, or for
// rows 4..7 of a split update to the second chain, which row 4 starts.
func (k *kernel) update(f form, r int) {
	pl := k.pl
	t := f.v(pl.tile[r])
	var p operand.Op
	switch {
	case pl.p != nil:
		p = f.v(pl.p[r])
	case f == sd:
		p = operand.Mem{Base: k.pPtr, Disp: 8 * r}
	default:
		p = f.v(pl.pt[r])
		k.VBROADCASTSD(operand.Mem{Base: k.pPtr, Disp: 8 * r}, p)
	}
	switch {
	case r < 4 || !k.split(f):
		k.fma(f, p, t, f.v(pl.s))
	case r == 4:
		k.mul(f, p, t, f.v(pl.s2))
	default:
		k.fma(f, p, t, f.v(pl.s2))
	}
}

// tail emits the column tail, the reduction of the dot products and the
// return.
func (k *kernel) tail() {
	v := k.isa.vec
	k.Label("tail")
	k.Comment("Full vector steps while a whole vector of columns remains.")
	k.MOVQ(k.n, reg.RBX)
	k.SUBQ(operand.U32(v.lanes), reg.RBX)
	k.CMPQ(reg.RAX, reg.RBX)
	k.JG(operand.LabelRef("last"))
	k.Label("tailvec")
	k.step(v, 0, 0, k.all)
	k.advance(v.lanes)
	k.CMPQ(reg.RAX, reg.RBX)
	k.JLE(operand.LabelRef("tailvec"))
	k.Label("last")
	if k.isa.masked {
		k.Comment("The last n mod 8 columns, masked.")
		k.CMPQ(reg.RAX, k.n)
		k.JAE(operand.LabelRef("done"))
		k.step(v, 0, 0, reg.K1)
		k.Label("done")
		k.reduce()
		k.VZEROUPPER()
		k.RET()
		return
	}
	k.reduce()
	k.VZEROUPPER()
	k.Comment("The last n mod 4 columns, one at a time.")
	k.CMPQ(reg.RAX, k.n)
	k.JAE(operand.LabelRef("done"))
	multi := k.op.dots && k.rows > 1
	if multi {
		// Back from dots, where reduce stored them, into the low lanes.
		for r, a := range k.pl.acc[0] {
			k.VMOVSD(operand.Mem{Base: reg.R13, Disp: 8 * r}, sd.v(a))
		}
	}
	k.Label("scalar")
	k.step(sd, 0, 0, nil)
	k.advance(1)
	k.CMPQ(reg.RAX, k.n)
	k.JB(operand.LabelRef("scalar"))
	if multi {
		k.storeDots(sd)
	}
	k.Label("done")
	if k.op.dots && k.rows == 1 {
		k.VMOVSD(sd.v(k.pl.acc[0][0]), addr(k.ReturnIndex(0)))
	}
	k.RET()
}

// reduce sums each row's accumulators into one number: the sets into
// set 0, then the lanes. A multi-row kernel stores the dot products to dots
// (pointer left in R13); a one-row kernel leaves its dot product in the low
// lane of its set-0 accumulator and, with AVX-512, stores it as the result.
func (k *kernel) reduce() {
	if !k.op.dots {
		return
	}
	v, acc := k.isa.vec, k.pl.acc
	for h := 1; h < len(acc); h *= 2 {
		for i := 0; i+h < len(acc); i += 2 * h {
			for r := range acc[i] {
				k.add(v, v.v(acc[i+h][r]), v.v(acc[i][r]))
			}
		}
	}
	if v == zmm {
		for r, a := range acc[0] {
			t := ymm.v(k.pl.tile[r])
			k.VEXTRACTF64X4(operand.U8(1), zmm.v(a), t)
			k.add(ymm, t, ymm.v(a))
		}
	}
	if k.rows == 1 {
		a, t := acc[0][0], k.pl.tmp
		k.VEXTRACTF128(operand.U8(1), ymm.v(a), sd.v(t))
		k.VADDPD(sd.v(t), sd.v(a), sd.v(a))
		k.VPERMILPD(operand.U8(1), sd.v(a), sd.v(t))
		k.VADDSD(sd.v(t), sd.v(a), sd.v(a))
		if k.isa.masked {
			k.VMOVSD(sd.v(a), addr(k.ReturnIndex(0)))
		}
		return
	}
	// Four rows a, b, c, d (four lanes each) become one vector
	// a = [Σa, Σb, Σc, Σd] with two horizontal adds and a 128-bit lane
	// shuffle, clobbering b and c. VEX-only instructions: the
	// accumulators are below Y16.
	for g := 0; g < k.rows; g += 4 {
		a, b, c, d := ymm.v(acc[0][g]), ymm.v(acc[0][g+1]), ymm.v(acc[0][g+2]), ymm.v(acc[0][g+3])
		k.VHADDPD(b, a, a)
		k.VHADDPD(d, c, c)
		k.VPERM2F128(operand.U8(0x20), c, a, b)
		k.VPERM2F128(operand.U8(0x31), c, a, a)
		k.VADDPD(b, a, a)
	}
	k.MOVQ(k.param("dots"), reg.R13)
	k.storeDots(ymm)
}

// storeDots stores the dot products to dots (in R13): f is ymm after
// reduce (four per vector), sd after the scalar tail (one per register).
func (k *kernel) storeDots(f form) {
	for r := 0; r < k.rows; r += f.lanes {
		k.store(f, f.v(k.pl.acc[0][r]), nil, operand.Mem{Base: reg.R13, Disp: 8 * r})
	}
}
