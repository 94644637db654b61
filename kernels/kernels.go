// Package kernels holds gpump's CUDA kernels as PTX (generated from gpump.cu
// by go generate, committed, embedded here) and, as plain Go that runs
// anywhere, everything a CUDA backend needs to launch them: the kernel
// names, their argument lists, and the launch-shape arithmetic (grid and
// block sizes, shared memory, partial-buffer sizes) for a given matrix shape
// and device.
//
// It has no cgo and no CUDA dependency: the backend (tensorops, build tag
// cuda) loads PTX() with the driver API and launches the kernels by name. See
// README.md in this directory for the per-iteration launch plan and the
// bandwidth arithmetic.
//
// Determinism: the decomposition of every reduction (tiles of A, chunks of a
// vector) depends only on the sizes, never on the device; the device only
// caps how many blocks are launched, and every kernel walks its logical units
// with a grid stride. So by design a result is bitwise the same on every GPU
// and in every run (checked under the CPU emulator for different grids; not
// yet on a GPU).
package kernels

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"strings"
)

//go:embed gpump.ptx
var ptx string

// PTX returns the text of the PTX module holding every kernel (target
// compute_70, PTX ISA 7.8 from CUDA 11.8, which needs a driver of release 520
// or later). cuModuleLoadData wants it NUL-terminated: append a 0 byte.
func PTX() string { return ptx }

// Dtype is the storage type of the payoff matrix.
type Dtype int

const (
	// F32 is float32 storage (kernel suffix _f32).
	F32 Dtype = iota
	// F64 is float64 storage (kernel suffix _f64).
	F64
)

// Size returns the size of one element in bytes.
func (d Dtype) Size() int64 {
	if d == F32 {
		return 4
	}
	return 8
}

// Suffix returns "_f32" or "_f64".
func (d Dtype) Suffix() string {
	if d == F32 {
		return "_f32"
	}
	return "_f64"
}

// String returns "f32" or "f64".
func (d Dtype) String() string { return d.Suffix()[1:] }

func (d Dtype) valid() bool { return d == F32 || d == F64 }

// Fixed block sizes (gpump.cu: GP_THREADS, GP_SIMPLEX_THREADS), tile width
// and records. Changing one means changing gpump.cu.
const (
	// Threads is the block size of every kernel but gpump_simplex_prox.
	Threads = 256
	// SimplexThreads is the block size of gpump_simplex_prox (one block).
	SimplexThreads = 1024
	// Tile is the number of columns of A one tile covers (32 lanes x 8).
	Tile = 256
	// StatsWords is the number of float64 words of one strategy block's
	// result of gpump_stats_finish.
	StatsWords = 10
	// StatsRecordWords is the number of float64 words of one chunk record
	// of the stats partial kernels (gpump_proxstats_*,
	// gpump_average_partial).
	StatsRecordWords = 12
)

// Word indices in a gpump_stats_finish result, in the field order of
// tensorops.BlockStats (GapStats embedded first).
const (
	StatMinG = iota
	StatMinAvgG
	StatLinX
	StatLinAvgX
	StatDivXY
	StatDivYX
	StatDistXY
	StatDistXYNew
	StatDualGM
	StatInnerGM
)

// Modes of gpump_stats_finish (one per strategy block): one of the record
// kinds StatsMode*, plus the block's set StatsSet* (the same set the stage-one
// kernel was given).
const (
	// StatsModeEntropic reduces gpump_proxstats_entropic records.
	StatsModeEntropic = 0
	// StatsModeEuclidean reduces gpump_proxstats_euclidean records.
	StatsModeEuclidean = 1
	// StatsModeAverage reduces gpump_average_partial records made with an
	// average of g.
	StatsModeAverage = 2
	// StatsModeCurrent reduces gpump_average_partial records made without an
	// average of g: MinAvgG is NaN (as tensorops.CPU.Average).
	StatsModeCurrent = 3

	// StatsSetSimplex: MinG is min_i g_i.
	StatsSetSimplex = 0 << 2
	// StatsSetBox: MinG is Σ_i min(g_i lo_i, g_i hi_i).
	StatsSetBox = 1 << 2
	// StatsSetBall: MinG is ⟨g, o⟩ − radius ‖g‖₂.
	StatsSetBall = 2 << 2
)

// Decomposition constants of the operator pass.
const (
	// OpTargetUnits is the number of work units (slice x row block) the
	// operator aims at: enough for several waves on a large GPU (132 SMs x
	// 2 resident blocks = 264 slots on an H100), so the tail costs little.
	OpTargetUnits = 2048
	// OpMaxSlices caps the column slices, hence the length of the sums
	// gpump_op_finish forms per row (rowPartial holds Slices*m doubles).
	OpMaxSlices = 1024
	// OpRowQuantum is the granularity of row blocks: 8 warps x 2 rows per
	// iteration.
	OpRowQuantum = 16
)

// Chunking constants of the vector reductions.
const (
	// MinChunk is the smallest chunk (8 elements per thread).
	MinChunk = 2048
	// MaxChunks caps the chunks of a vector, hence the records the finishing
	// kernels reduce (every block of a finishing kernel reads all of them).
	MaxChunks = 1024
)

// ArgKind is the kind of a kernel parameter. Every parameter is 8 bytes.
type ArgKind int

const (
	// Ptr is a device pointer (CUdeviceptr).
	Ptr ArgKind = iota
	// Int is a 64-bit signed integer (C long long, Go int64).
	Int
	// Float is a float64 (C double).
	Float
)

// PTXType returns the type PTX gives a parameter of this kind.
func (k ArgKind) PTXType() string {
	if k == Float {
		return ".f64"
	}
	return ".u64"
}

func (k ArgKind) String() string {
	switch k {
	case Ptr:
		return "ptr"
	case Int:
		return "int64"
	case Float:
		return "float64"
	}
	return "unknown"
}

// Arg is one kernel parameter.
type Arg struct {
	Name string
	Kind ArgKind
	// Nullable pointers may be 0 (the kernel then skips what they feed).
	Nullable bool
}

// Kernel describes one entry of the PTX module.
type Kernel struct {
	Name string
	// Block is the block size the kernel is compiled for (its
	// __launch_bounds__); launch it with exactly this many threads.
	Block int
	// StaticShared is the static shared memory the kernel declares, in
	// bytes (no kernel uses dynamic shared memory).
	StaticShared int
	Args         []Arg
}

func p(name string) Arg  { return Arg{Name: name, Kind: Ptr} }
func p0(name string) Arg { return Arg{Name: name, Kind: Ptr, Nullable: true} }
func i(name string) Arg  { return Arg{Name: name, Kind: Int} }
func f(name string) Arg  { return Arg{Name: name, Kind: Float} }

func opArgs() []Arg {
	return []Arg{p("A"), i("m"), i("n"), p0("p"), p0("q"), p0("rowPartial"), p0("colPartial"),
		i("rowsPerBlock"), i("tilesPerSlice"), i("gx"), i("gy")}
}

// Kernel names.
const (
	OpFusedF32     = "gpump_op_fused_f32"
	OpFusedF64     = "gpump_op_fused_f64"
	OpMulVecF32    = "gpump_op_mulvec_f32"
	OpMulVecF64    = "gpump_op_mulvec_f64"
	OpMulTVecF32   = "gpump_op_multvec_f32"
	OpMulTVecF64   = "gpump_op_multvec_f64"
	OpFinish       = "gpump_op_finish"
	TransposeF32   = "gpump_transpose_f32"
	TransposeF64   = "gpump_transpose_f64"
	Fill           = "gpump_fill"
	Axpby          = "gpump_axpby"
	BoxProx        = "gpump_box_prox"
	LogProxPartial = "gpump_logprox_partial"
	LogProxFinish  = "gpump_logprox_finish"
	BallPartial    = "gpump_ball_partial"
	BallFinish     = "gpump_ball_finish"
	ProxStatsEnt   = "gpump_proxstats_entropic"
	ProxStatsEuc   = "gpump_proxstats_euclidean"
	AveragePartial = "gpump_average_partial"
	StatsFinish    = "gpump_stats_finish"
	SimplexProx    = "gpump_simplex_prox"
	RMDot          = "gpump_rm_dot"
	RMUpdate       = "gpump_rm_update"
	RMNormalize    = "gpump_rm_normalize"

	SampleScanPartial = "gpump_sample_scan_partial"
	SampleScanFinish  = "gpump_sample_scan_finish"
	SampleDrawKernel  = "gpump_sample_draw"
	SampleRowsF32     = "gpump_sample_rows_f32"
	SampleRowsF64     = "gpump_sample_rows_f64"
	SampleColsF32     = "gpump_sample_cols_f32"
	SampleColsF64     = "gpump_sample_cols_f64"

	BatchOpFusedF32   = "gpump_batch_op_fused_f32"
	BatchOpFusedF64   = "gpump_batch_op_fused_f64"
	BatchOpMulVecF32  = "gpump_batch_op_mulvec_f32"
	BatchOpMulVecF64  = "gpump_batch_op_mulvec_f64"
	BatchOpMulTVecF32 = "gpump_batch_op_multvec_f32"
	BatchOpMulTVecF64 = "gpump_batch_op_multvec_f64"
	BatchLogProx      = "gpump_batch_logprox"
	BatchSimplexProx  = "gpump_batch_simplex_prox"
	BatchProxStatsEnt = "gpump_batch_proxstats_entropic"
	BatchProxStatsEuc = "gpump_batch_proxstats_euclidean"
	BatchAverage      = "gpump_batch_average"
	BatchRegretMatch  = "gpump_batch_rm"
	BatchCopy         = "gpump_batch_copy"
	BatchAxpby        = "gpump_batch_axpby"

	PayoffLayerKernel  = "gpump_payoff_layer"
	PayoffReduceKernel = "gpump_payoff_reduce"
)

// PayoffPrefix begins the name of the kernels of gan's payoff matrix
// (gan/payoff), which the solver backend does not launch.
const PayoffPrefix = "gpump_payoff_"

// BatchPrefix begins the name of every batched kernel (one launch for a
// selection of games of a batch, a block per game).
const BatchPrefix = "gpump_batch_"

var kernelTable = []Kernel{
	{OpFusedF32, Threads, 16384, opArgs()},
	{OpFusedF64, Threads, 16384, opArgs()},
	{OpMulVecF32, Threads, 0, opArgs()},
	{OpMulVecF64, Threads, 0, opArgs()},
	{OpMulTVecF32, Threads, 16384, opArgs()},
	{OpMulTVecF64, Threads, 16384, opArgs()},
	{OpFinish, Threads, 2048, []Arg{p0("fp"), p0("rowPartial"), i("gx"), i("m"), f("sign"),
		p0("fq"), p0("colPartial"), i("gy"), i("n")}},
	{TransposeF32, Threads, 4224, []Arg{p("dst"), p("A"), i("m"), i("n")}},
	{TransposeF64, Threads, 8448, []Arg{p("dst"), p("A"), i("m"), i("n")}},
	{Fill, Threads, 0, []Arg{p("dst"), f("value"), i("n")}},
	{Axpby, Threads, 0, []Arg{p("dst"), f("alpha"), p("x"), f("beta"), p("y"), i("n")}},
	{BoxProx, Threads, 0, []Arg{p("dst"), p0("c"), p0("g"), f("eta"), p("lo"), p("hi"), i("n")}},
	{LogProxPartial, Threads, 256, []Arg{p("partial"), p("dstLog"), p("c"), p("g"), f("eta"), i("n"), i("chunkLen")}},
	{LogProxFinish, Threads, 256, []Arg{p("dstLog"), p("dstProb"), p("partial"), i("n"), i("chunkLen")}},
	{BallPartial, Threads, 256, []Arg{p("partial"), p("dst"), p("c"), p("g"), p("o"), f("eta"), i("n"), i("chunkLen")}},
	{BallFinish, Threads, 256, []Arg{p("dst"), p("o"), p("partial"), f("radius"), i("n"), i("chunkLen")}},
	{ProxStatsEnt, Threads, 3072, []Arg{p("partial"), p("py"), p("px"), p("pyn"), p("ly"), p("lx"), p("lyn"),
		p("m"), p("g"), p("ax"), p("ag"), p("nax"), p("nag"), p0("lin"), f("w"), i("n"), i("chunkLen")}},
	{ProxStatsEuc, Threads, 3072, []Arg{p("partial"), p("y"), p("x"), p("yn"),
		p("m"), p("g"), p("ax"), p("ag"), p("nax"), p("nag"), p0("lo"), p0("hi"), p0("o"), p0("lin"),
		f("w"), i("n"), i("chunkLen")}},
	{AveragePartial, Threads, 1536, []Arg{p("partial"), p0("x"), p("g"), p0("ax"), p0("ag"),
		p0("lo"), p0("hi"), p0("o"), p0("lin"), f("w"), i("n"), i("chunkLen")}},
	{StatsFinish, Threads, 3072, []Arg{p("out"), p("partial0"), i("chunks0"), i("mode0"), f("radius0"),
		p0("partial1"), i("chunks1"), i("mode1"), f("radius1")}},
	{SimplexProx, SimplexThreads, 512, []Arg{p("dst"), p("c"), p0("g"), f("eta"), i("n")}},
	{RMDot, Threads, 256, []Arg{p("partialDot"), p("x"), p("u"), i("n"), i("chunkLen")}},
	{RMUpdate, Threads, 256, []Arg{p("r"), p("u"), p("partialDot"), p("partialSum"), f("sign"),
		i("predictive"), i("n"), i("chunkLen")}},
	{RMNormalize, Threads, 256, []Arg{p("x"), p("r"), p("u"), p("partialDot"), p("partialSum"), f("sign"),
		f("tiny"), i("predictive"), i("n"), i("chunkLen")}},
	{SampleScanPartial, Threads, 2304, []Arg{p("partial0"), p("w0"), i("n0"), i("chunkLen0"),
		p("partial1"), p("w1"), i("n1"), i("chunkLen1")}},
	{SampleScanFinish, Threads, 2312, []Arg{p("s0"), p("w0"), p("partial0"), i("n0"), i("chunkLen0"),
		p("s1"), p("w1"), p("partial1"), i("n1"), i("chunkLen1"), p("info")}},
	{SampleDrawKernel, Threads, 0, []Arg{p("idx"), p("s0"), i("n0"), p("s1"), i("n1"), p("info"),
		i("b"), i("seed"), i("counter")}},
	{SampleRowsF32, Threads, 0, sampleRowsArgs()},
	{SampleColsF32, Threads, 0, sampleColsArgs()},
	{SampleRowsF64, Threads, 0, sampleRowsArgs()},
	{SampleColsF64, Threads, 0, sampleColsArgs()},
	{BatchOpFusedF32, Threads, 16384, batchOpArgs()},
	{BatchOpFusedF64, Threads, 16384, batchOpArgs()},
	{BatchOpMulVecF32, Threads, 0, batchOpArgs()},
	{BatchOpMulVecF64, Threads, 0, batchOpArgs()},
	{BatchOpMulTVecF32, Threads, 16384, batchOpArgs()},
	{BatchOpMulTVecF64, Threads, 16384, batchOpArgs()},
	{BatchLogProx, Threads, 256, []Arg{p("dstLog"), p("dstProb"), p("c"), p("g"), p("eta"), i("n"), p("games"), i("count")}},
	{BatchSimplexProx, Threads, 512, []Arg{p("dst"), p("c"), p("g"), p("eta"), i("n"), p("games"), i("count")}},
	{BatchProxStatsEnt, Threads, 3072, []Arg{p("out"), i("outStride"), p("py"), p("px"), p("pyn"), p("ly"), p("lx"), p("lyn"),
		p("m"), p("g"), p("ax"), p("ag"), p("nax"), p("nag"), p("w"), i("n"), p("games"), i("count")}},
	{BatchProxStatsEuc, Threads, 3072, []Arg{p("out"), i("outStride"), p("y"), p("x"), p("yn"),
		p("m"), p("g"), p("ax"), p("ag"), p("nax"), p("nag"), p("w"), i("n"), p("games"), i("count")}},
	{BatchAverage, Threads, 1536, []Arg{p("out"), i("outStride"), p0("x"), p("g"), p0("ax"), p0("ag"), p("w"), i("n"),
		p("games"), i("count")}},
	{BatchRegretMatch, Threads, 256, []Arg{p("x"), p("r"), p("u"), p("sign"), p("tiny"), i("predictive"), i("n"),
		p("games"), i("count")}},
	{BatchCopy, Threads, 0, []Arg{p("dst"), p("src"), i("n"), p("games"), i("count")}},
	{BatchAxpby, Threads, 0, []Arg{p("dst"), p("alpha"), p("x"), p("beta"), p("y"), i("n"), p("games"), i("count")}},
	{PayoffLayerKernel, Threads, payoffLayerShared, []Arg{i("nets"), i("rows"), i("in"), i("out"), p("x"), i("xstride"),
		p("params"), i("pstride"), i("woff"), p("y"), i("ystride"), i("act")}},
	{PayoffReduceKernel, Threads, 512, []Arg{i("k"), i("j"), i("b"), p("o"), i("logloss"), p("m")}},
}

func batchOpArgs() []Arg {
	return []Arg{p("A"), i("m"), i("n"), p0("p"), p0("q"), p0("fp"), p0("fq"), p("games"), i("count")}
}

// BatchOpKernel returns the name of the batched pass kernel of that kind for
// that matrix type.
func BatchOpKernel(kind OpKind, d Dtype) string {
	return "gpump_batch_" + strings.TrimPrefix(OpKernel(kind, d), "gpump_")
}

func sampleRowsArgs() []Arg {
	return []Arg{p("dst"), p("A"), i("cols"), p("idx"), i("b"), f("div")}
}

func sampleColsArgs() []Arg {
	return []Arg{p("dst"), p("A"), i("m"), i("n"), p("idx"), i("b"), f("div")}
}

// SampleRowsKernel and SampleColsKernel return the names of the sampled
// operator's gather kernels for that matrix type.
func SampleRowsKernel(d Dtype) string {
	if !d.valid() {
		panic("kernels: unknown Dtype")
	}
	return "gpump_sample_rows" + d.Suffix()
}

// SampleColsKernel: see SampleRowsKernel.
func SampleColsKernel(d Dtype) string {
	if !d.valid() {
		panic("kernels: unknown Dtype")
	}
	return "gpump_sample_cols" + d.Suffix()
}

// Kernels returns a description of every kernel in the PTX module, in the
// order of gpump.cu. The slice is a fresh copy.
func Kernels() []Kernel {
	out := make([]Kernel, len(kernelTable))
	for k, kn := range kernelTable {
		kn.Args = append([]Arg(nil), kn.Args...)
		out[k] = kn
	}
	return out
}

// Names returns the names of every kernel in the PTX module.
func Names() []string {
	out := make([]string, len(kernelTable))
	for k, kn := range kernelTable {
		out[k] = kn.Name
	}
	return out
}

// Lookup returns the description of the named kernel.
func Lookup(name string) (Kernel, bool) {
	for _, kn := range kernelTable {
		if kn.Name == name {
			kn.Args = append([]Arg(nil), kn.Args...)
			return kn, true
		}
	}
	return Kernel{}, false
}

// OpKind is the kind of a pass over A.
type OpKind int

const (
	// Fused computes A q and Aᵀp (the game operator, finished with sign −1).
	Fused OpKind = iota
	// MulVec computes A q.
	MulVec
	// MulTVec computes Aᵀp.
	MulTVec
)

// OpKernel returns the name of the pass kernel of that kind for that matrix
// type.
func OpKernel(kind OpKind, d Dtype) string {
	var base string
	switch kind {
	case Fused:
		base = "gpump_op_fused"
	case MulVec:
		base = "gpump_op_mulvec"
	case MulTVec:
		base = "gpump_op_multvec"
	default:
		panic("kernels: unknown OpKind")
	}
	if !d.valid() {
		panic("kernels: unknown Dtype")
	}
	return base + d.Suffix()
}

// TransposeKernel returns the name of the transpose kernel for that matrix
// type.
func TransposeKernel(d Dtype) string {
	if !d.valid() {
		panic("kernels: unknown Dtype")
	}
	return "gpump_transpose" + d.Suffix()
}

// Device holds the limits the launch shapes depend on (from
// cuDeviceGetAttribute).
type Device struct {
	// MaxThreadsPerBlock is CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK.
	MaxThreadsPerBlock int
	// MultiprocessorCount is CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT; it
	// only caps the grid of grid-stride kernels (32 blocks per SM), never
	// the decomposition, so results do not depend on it.
	MultiprocessorCount int
	// MaxGridDimX is CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X (2^31 − 1 since
	// compute capability 3.0); 0 means that value.
	MaxGridDimX int64
	// MaxSharedPerBlock is CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
	// in bytes; 0 means 48 KiB.
	MaxSharedPerBlock int
}

// H100 is an H100 SXM5 (132 SMs), for examples and documentation.
var H100 = Device{MaxThreadsPerBlock: 1024, MultiprocessorCount: 132, MaxGridDimX: 1<<31 - 1, MaxSharedPerBlock: 48 << 10}

// gridCap is the largest grid a grid-stride kernel is given.
func (d Device) gridCap() int64 {
	c := d.MaxGridDimX
	if c <= 0 {
		c = 1<<31 - 1
	}
	if d.MultiprocessorCount > 0 {
		c = min(c, 32*int64(d.MultiprocessorCount))
	}
	return c
}

func (d Device) check(block, shared int) error {
	if d.MaxThreadsPerBlock < block {
		return fmt.Errorf("kernels: the device allows %d threads per block, the kernels need %d", d.MaxThreadsPerBlock, block)
	}
	maxShared := d.MaxSharedPerBlock
	if maxShared <= 0 {
		maxShared = 48 << 10
	}
	if shared > maxShared {
		return fmt.Errorf("kernels: the device allows %d bytes of shared memory per block, the kernels need %d", maxShared, shared)
	}
	return nil
}

// Launch is one kernel launch configuration (1-D grid and block).
type Launch struct {
	Grid, Block int
	// SharedBytes is the dynamic shared memory to pass to cuLaunchKernel:
	// always 0 (every kernel's shared memory is static).
	SharedBytes int
}

// ErrSize reports sizes that are not positive or whose byte counts overflow
// int64.
var ErrSize = errors.New("kernels: invalid size")

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// mulOK returns a*b and whether it fits in int64 (a, b >= 0).
func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}

func checkLen(what string, n int64) error {
	if n < 1 {
		return fmt.Errorf("%w: %s = %d", ErrSize, what, n)
	}
	// Every kernel indexes with int64 and forms n*8 byte offsets and, with
	// the grid stride, i + grid*block: keep n far from the int64 limit.
	if n > math.MaxInt64/16 {
		return fmt.Errorf("%w: %s = %d is too large", ErrSize, what, n)
	}
	return nil
}

// checkShape checks the sides of an m×n matrix and that the device runs
// blocks of Threads threads with shared bytes of shared memory.
func checkShape(m, n int64, dev Device, shared int) error {
	if err := checkLen("m", m); err != nil {
		return err
	}
	if err := checkLen("n", n); err != nil {
		return err
	}
	return dev.check(Threads, shared)
}

// OpShape is the decomposition and launch of one pass over an m×n matrix.
type OpShape struct {
	M, N  int64
	Dtype Dtype
	// Tiles is ceil(n/256), the 256-column tiles of a row.
	Tiles int64
	// TilesPerSlice, GX: the tiles are grouped into GX column slices of
	// TilesPerSlice tiles (the last may be short).
	TilesPerSlice, GX int64
	// RowsPerBlock, GY: the rows are grouped into GY row blocks of
	// RowsPerBlock rows (the last may be short). Units = GX*GY.
	RowsPerBlock, GY int64
	// Pass launches gpump_op_{fused,mulvec,multvec}_*.
	Pass Launch
	// Finish launches gpump_op_finish.
	Finish Launch
	// RowPartialLen and ColPartialLen are the float64 lengths of the
	// partial buffers: GX*M (A q; not needed by MulTVec) and GY*N (Aᵀp; not
	// needed by MulVec).
	RowPartialLen, ColPartialLen int64
}

// Op returns the decomposition and launches of a pass over an m×n matrix of
// type d. The decomposition depends only on (m, n); dev only caps the grids.
func Op(m, n int64, d Dtype, dev Device) (OpShape, error) {
	if !d.valid() {
		return OpShape{}, fmt.Errorf("kernels: unknown Dtype %d", d)
	}
	if err := checkShape(m, n, dev, 16384); err != nil {
		return OpShape{}, err
	}
	mn, ok := mulOK(m, n)
	if _, ok2 := mulOK(mn, d.Size()); !ok || !ok2 {
		return OpShape{}, fmt.Errorf("%w: a %d×%d %v matrix has more than 2^63 bytes", ErrSize, m, n, d)
	}
	s := OpShape{M: m, N: n, Dtype: d, Tiles: ceilDiv(n, Tile)}
	s.GX = min(s.Tiles, OpMaxSlices)
	s.TilesPerSlice = ceilDiv(s.Tiles, s.GX)
	s.GX = ceilDiv(s.Tiles, s.TilesPerSlice)
	s.GY = max(1, min(ceilDiv(OpTargetUnits, s.GX), ceilDiv(m, OpRowQuantum)))
	s.RowsPerBlock = ceilDiv(ceilDiv(m, s.GY), OpRowQuantum) * OpRowQuantum
	s.GY = ceilDiv(m, s.RowsPerBlock)
	// GX <= 1024 and GY <= max(1, ceil(2048/GX)), so the products below
	// stay small; the partial lengths are at most 1024*m and 2048*n.
	units := s.GX * s.GY
	capG := dev.gridCap()
	s.Pass = Launch{Grid: int(min(units, capG)), Block: Threads}
	groups := ceilDiv(m, 32) + ceilDiv(n, 32)
	s.Finish = Launch{Grid: int(min(groups, capG)), Block: Threads}
	var ok3, ok4 bool
	s.RowPartialLen, ok3 = mulOK(s.GX, m)
	s.ColPartialLen, ok4 = mulOK(s.GY, n)
	if !ok3 || !ok4 {
		return OpShape{}, fmt.Errorf("%w: partial buffers of a %d×%d pass overflow int64", ErrSize, m, n)
	}
	return s, nil
}

// Units returns GX*GY, the logical blocks of the pass.
func (s OpShape) Units() int64 { return s.GX * s.GY }

// PartialBytes returns the bytes of both partial buffers (a fused pass needs
// both; MulVec only the row partials, MulTVec only the column partials).
func (s OpShape) PartialBytes() int64 { return 8 * (s.RowPartialLen + s.ColPartialLen) }

// Traffic is a model of the DRAM bytes of one pass.
type Traffic struct {
	// Matrix is m*n*size: A read once.
	Matrix int64
	// Vectors counts p and q (each read once per row block or from L2) and
	// the outputs fp and fq.
	Vectors int64
	// Partials counts the partial buffers: written by the pass (with the
	// read-modify-write of rowPartial when a slice has several tiles) and
	// read by gpump_op_finish.
	Partials int64
}

// Total returns the sum of the parts.
func (t Traffic) Total() int64 { return t.Matrix + t.Vectors + t.Partials }

// Bytes models the DRAM traffic of one pass of the given kind (pass kernel
// plus gpump_op_finish), assuming p, q and the partials are not cached
// between kernels (an upper bound for them; A is streamed and cannot be
// cached at the sizes where this matters).
func (s OpShape) Bytes(kind OpKind) Traffic {
	m, n := s.M, s.N
	t := Traffic{Matrix: m * n * s.Dtype.Size()}
	rows := kind != MulTVec
	cols := kind != MulVec
	if rows {
		t.Vectors += s.GY*n*8 + m*8 // q per row block, fp written
		// Each tile writes one partial per row; later tiles of a slice read
		// it back first; the finish reads GX*m.
		t.Partials += s.Tiles*m*8 + (s.Tiles-s.GX)*m*8 + s.GX*m*8
	}
	if cols {
		t.Vectors += m*8 + n*8 // p, fq written
		t.Partials += 2 * s.GY * n * 8
	}
	return t
}

// VectorShape is the chunking of a length-n vector for the chunked
// (two-stage) vector kernels.
type VectorShape struct {
	N int64
	// ChunkLen is the chunk length, a multiple of 256; pass it as chunkLen.
	ChunkLen int64
	// Chunks = ceil(N/ChunkLen) <= 1024 partial records.
	Chunks int64
	// Launch serves every chunked kernel (partial and finish): block 256,
	// grid min(Chunks, cap).
	Launch Launch
}

// Vector returns the chunking of a length-n vector. It depends only on n;
// dev only caps the grid.
func Vector(n int64, dev Device) (VectorShape, error) {
	if err := checkLen("n", n); err != nil {
		return VectorShape{}, err
	}
	if err := dev.check(Threads, 2048); err != nil {
		return VectorShape{}, err
	}
	chunks := min(max(n/MinChunk, 1), MaxChunks)
	chunkLen := ceilDiv(ceilDiv(n, chunks), Threads) * Threads
	s := VectorShape{N: n, ChunkLen: chunkLen, Chunks: ceilDiv(n, chunkLen)}
	s.Launch = Launch{Grid: int(min(s.Chunks, dev.gridCap())), Block: Threads}
	return s, nil
}

// LogProxPartialLen is the float64 length of the partial buffer of
// gpump_logprox_partial / gpump_logprox_finish (two words per chunk).
func (s VectorShape) LogProxPartialLen() int64 { return 2 * s.Chunks }

// BallPartialLen is the float64 length of the partial buffer of the ball
// prox (one word per chunk).
func (s VectorShape) BallPartialLen() int64 { return s.Chunks }

// StatsPartialLen is the float64 length of the partial buffer of one
// strategy block for gpump_proxstats_* and gpump_average_partial
// (StatsRecordWords per chunk); Chunks is what gpump_stats_finish takes as
// chunks.
func (s VectorShape) StatsPartialLen() int64 { return StatsRecordWords * s.Chunks }

// RMPartialLen is the float64 length of each of the two partial buffers of
// regret matching (partialDot and partialSum).
func (s VectorShape) RMPartialLen() int64 { return s.Chunks }

// WorkspaceLen is the largest partial buffer any chunked kernel needs for
// this vector (StatsPartialLen), so that one buffer per strategy block
// serves them all (regret matching needs two).
func (s VectorShape) WorkspaceLen() int64 { return s.StatsPartialLen() }

// Elementwise returns the launch of gpump_fill, gpump_axpby and
// gpump_box_prox over n elements: block 256, one element per thread up to
// the grid cap, grid stride beyond.
func Elementwise(n int64, dev Device) (Launch, error) {
	if err := checkLen("n", n); err != nil {
		return Launch{}, err
	}
	if err := dev.check(Threads, 0); err != nil {
		return Launch{}, err
	}
	return Launch{Grid: int(min(ceilDiv(n, Threads), dev.gridCap())), Block: Threads}, nil
}

// TransposeTile is the side of the square tiles gpump_transpose_* copies
// through shared memory.
const TransposeTile = 32

// Transpose returns the launch of gpump_transpose_{f32,f64} for an m×n
// matrix: block 256, one block per 32×32 tile up to the grid cap, grid
// stride beyond.
func Transpose(m, n int64, dev Device) (Launch, error) {
	if err := checkShape(m, n, dev, 8448); err != nil {
		return Launch{}, err
	}
	tiles, ok := mulOK(ceilDiv(m, TransposeTile), ceilDiv(n, TransposeTile))
	if !ok {
		return Launch{}, fmt.Errorf("%w: the tiles of a %d×%d matrix overflow int64", ErrSize, m, n)
	}
	return Launch{Grid: int(min(tiles, dev.gridCap())), Block: Threads}, nil
}

// SampleScan returns the launch of gpump_sample_scan_partial and
// gpump_sample_scan_finish over two vectors with the chunkings q and p:
// block 256, one block per chunk of either up to the grid cap.
func SampleScan(q, p VectorShape, dev Device) (Launch, error) {
	if err := dev.check(Threads, 2312); err != nil {
		return Launch{}, err
	}
	return Launch{Grid: int(min(q.Chunks+p.Chunks, dev.gridCap())), Block: Threads}, nil
}

// SampleDraw returns the launch of gpump_sample_draw for a batch of b (2b
// indices): block 256, one thread per index up to the grid cap.
func SampleDraw(b int64, dev Device) (Launch, error) {
	if err := checkLen("b", b); err != nil {
		return Launch{}, err
	}
	return Elementwise(2*b, dev)
}

// SampleCols returns the launch of gpump_sample_cols_* over an m-row matrix:
// block 256 (8 warps, a warp per row), grid ⌈m/8⌉ up to the grid cap.
func SampleCols(m int64, dev Device) (Launch, error) {
	if err := checkLen("m", m); err != nil {
		return Launch{}, err
	}
	if err := dev.check(Threads, 0); err != nil {
		return Launch{}, err
	}
	return Launch{Grid: int(min(ceilDiv(m, Threads/32), dev.gridCap())), Block: Threads}, nil
}

// Simplex returns the launch of gpump_simplex_prox over n elements: one
// block of 1024 threads.
func Simplex(n int64, dev Device) (Launch, error) {
	if err := checkLen("n", n); err != nil {
		return Launch{}, err
	}
	if err := dev.check(SimplexThreads, 512); err != nil {
		return Launch{}, err
	}
	return Launch{Grid: 1, Block: SimplexThreads}, nil
}

// PayoffTile is the side of the square tiles (rows × units of a layer) of
// gpump_payoff_layer; payoffLayerShared its two padded tiles' bytes.
const (
	PayoffTile        = 16
	payoffLayerShared = 2 * PayoffTile * (PayoffTile + 1) * 4
)

// PayoffLayer returns the launch of gpump_payoff_layer for nets networks'
// layers of out units over rows rows: block 256 (a 16×16 tile), one block
// per tile up to the grid cap, grid stride beyond.
func PayoffLayer(nets, rows, out int64, dev Device) (Launch, error) {
	if err := checkLen("nets", nets); err != nil {
		return Launch{}, err
	}
	if err := checkShape(rows, out, dev, payoffLayerShared); err != nil {
		return Launch{}, err
	}
	tiles, ok := mulOK(ceilDiv(rows, PayoffTile), ceilDiv(out, PayoffTile))
	if ok {
		tiles, ok = mulOK(tiles, nets)
	}
	if !ok {
		return Launch{}, fmt.Errorf("%w: the tiles of %d layers of %d×%d overflow int64", ErrSize, nets, rows, out)
	}
	return Launch{Grid: int(min(tiles, dev.gridCap())), Block: Threads}, nil
}

// PayoffReduce returns the launch of gpump_payoff_reduce for a k×j payoff
// matrix: block 256, one block per entry up to the grid cap.
func PayoffReduce(k, j int64, dev Device) (Launch, error) {
	if err := checkShape(k, j, dev, 512); err != nil {
		return Launch{}, err
	}
	n, ok := mulOK(k, j)
	if !ok {
		return Launch{}, fmt.Errorf("%w: a %d×%d payoff matrix", ErrSize, k, j)
	}
	return Launch{Grid: int(min(n, dev.gridCap())), Block: Threads}, nil
}

// Stats returns the launch of gpump_stats_finish for 1 or 2 strategy blocks
// and the float64 length of its output (StatsWords per block): the one
// device-to-host copy of an iteration.
func Stats(blocks int) (Launch, int, error) {
	if blocks != 1 && blocks != 2 {
		return Launch{}, 0, fmt.Errorf("kernels: gpump_stats_finish handles 1 or 2 strategy blocks, not %d", blocks)
	}
	return Launch{Grid: blocks, Block: Threads}, StatsWords * blocks, nil
}

// Batch returns the launch of the block-per-game batched kernels
// (gpump_batch_op_*, _logprox, _simplex_prox, _proxstats_*, _average, _rm)
// over a selection of count games of shape m×n: block 256, a block per game
// up to the grid cap (blocks then take several games; the results do not
// depend on it). It checks the shape and that b games of it, B·m·n·8 bytes,
// fit the int64 arithmetic of the kernels.
func Batch(b, count, m, n int64, dev Device) (Launch, error) {
	if err := checkBatch(b, count, m, n, dev); err != nil {
		return Launch{}, err
	}
	return Launch{Grid: int(min(count, dev.gridCap())), Block: Threads}, nil
}

// BatchElementwise returns the launch of gpump_batch_copy and
// gpump_batch_axpby over the count·n elements of count selected games of
// block length n: block 256, a thread per element up to the grid cap.
func BatchElementwise(b, count, n int64, dev Device) (Launch, error) {
	if err := checkBatch(b, count, 1, n, dev); err != nil {
		return Launch{}, err
	}
	return Elementwise(count*n, dev)
}

// checkBatch checks a selection of 1 ≤ count ≤ b games of b games of m×n
// entries (B·m·n 8-byte words within the limits of checkLen) on a device
// that runs blocks of Threads threads with the batched kernels' 16 KiB of
// shared memory.
func checkBatch(b, count, m, n int64, dev Device) error {
	if err := checkLen("b", b); err != nil {
		return err
	}
	if err := checkLen("count", count); err != nil {
		return err
	}
	if count > b {
		return fmt.Errorf("%w: %d games selected of %d", ErrSize, count, b)
	}
	if err := checkShape(m, n, dev, 16384); err != nil {
		return err
	}
	mn, ok := mulOK(m, n)
	words, ok2 := mulOK(mn, b)
	if !ok || !ok2 || checkLen("b·m·n", words) != nil {
		return fmt.Errorf("%w: %d games of %d×%d overflow int64", ErrSize, b, m, n)
	}
	return nil
}
