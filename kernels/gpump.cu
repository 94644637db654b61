// gpump CUDA kernels: everything the tensorops backend contract
// (tensorops/backend.go) needs on the device.
//
// Build: go generate ./kernels  (nvcc -ptx -arch=compute_70, see generate.go).
// The launch shapes, partial-buffer sizes and shared-memory sizes are computed
// in Go (kernels.go) and passed in: this file never chooses a decomposition.
//
// Conventions (read these before launching anything):
//   * The payoff matrix A is m x n, dense, row-major, float (suffix _f32) or
//     double (suffix _f64). Every vector is double, and with float storage
//     every product and sum is formed in double (like the CPU backend).
//   * Every kernel parameter is 8 bytes: pointers, `long long` sizes and
//     flags, `double` scalars (gorgonia.org/cu's Launch copies 8 bytes per
//     argument). Pointers documented as "may be 0" are skipped when null.
//   * Block sizes are fixed: 256 threads for every kernel but
//     gpump_simplex_prox (1024). Each kernel is declared with
//     __launch_bounds__ of that size.
//   * No float atomics. Every reduction is two-stage with a fixed order: the
//     work is cut into logical units (tiles of A, chunks of a vector) that
//     depend only on (m, n), never on the grid or on the device, each unit
//     reduces its elements in a fixed order (a per-thread sequential loop, then
//     a shuffle/shared-memory tree whose shape is fixed by the block size),
//     and a second kernel combines the unit partials in index order. Kernels
//     loop over units with a grid stride, so the grid size changes speed,
//     never the result: the same inputs give bitwise the same outputs on every
//     GPU and every run (the PTX holds explicit fma.rn instructions, and the
//     JIT does not re-associate them).
//   * Accumulation order (documented because it fixes the rounding):
//       - A q: per row i and 256-column tile, each lane forms a fused
//         multiply-add chain over its 8 columns (lane + 32k), the warp adds the
//         32 lane sums with an xor butterfly; tiles of one slice are added in
//         column order into rowPartial; gpump_op_finish adds the slices in
//         index order (8 threads per output, then those 8 in order).
//       - A^T p: per column, each warp accumulates its rows (r0 + warp,
//         r0 + warp + 8, ...) with fma; the 8 warps are added in warp order;
//         gpump_op_finish adds the row blocks like the slices above.
//       - vector reductions: per chunk, thread t visits chunk elements
//         t, t + 256, ... in order; the 256 thread values go through a xor
//         butterfly per warp then warp 0 over the 8 warp values; finishing
//         kernels visit the chunk partials the same way (thread t takes chunks
//         t, t + 256, ...).
//     No Kahan summation: with float64 accumulation the relative rounding of
//     a sum of N terms is about log2(N) 2^-53 for these tree orders.
//   * min and max propagate NaN (like Go's math.Min / math.Max), so a NaN
//     operator value reaches the host instead of being skipped.
//
// Bytes moved are given per call with s = sizeof(matrix element) (4 or 8)
// and 8-byte vectors; "chunks" and the op decomposition (gx, gy) are those of
// kernels.go.

typedef long long i64;

#define GP_FULL_MASK 0xffffffffu
#define GP_WARP 32
#define GP_THREADS 256          // threads of every kernel but the simplex one
#define GP_WARPS (GP_THREADS / GP_WARP)
#define GP_SIMPLEX_THREADS 1024 // threads of gpump_simplex_prox
#define GP_COLS_PER_LANE 8      // columns of a tile per lane
#define GP_TILE (GP_WARP * GP_COLS_PER_LANE) // 256 columns per tile
#define GP_REC 12               // doubles per stats partial record
#define GP_OUT 10               // doubles per stats result (tensorops.BlockStats)

// log(1e-300): probabilities whose log-weight is below it are written as 0
// (tensorops.MinLogProb).
#define GP_MIN_LOG_PROB (-690.7755278982137)

__device__ __forceinline__ double gp_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ double gp_nan() { return __longlong_as_double(0x7ff8000000000000LL); }

// NaN-propagating min and max (Go's math.Min, math.Max; fmin/fmax would drop
// the NaN).
__device__ __forceinline__ double gp_min(double a, double b) { return (a < b || a != a) ? a : b; }
__device__ __forceinline__ double gp_max(double a, double b) { return (a > b || a != a) ? a : b; }

enum { OP_SUM = 0, OP_MIN = 1, OP_MAX = 2 };

__device__ __forceinline__ double gp_combine(int op, double a, double b)
{
	switch (op) {
	case OP_MIN:
		return gp_min(a, b);
	case OP_MAX:
		return gp_max(a, b);
	default:
		return a + b;
	}
}

__device__ __forceinline__ double gp_identity(int op)
{
	switch (op) {
	case OP_MIN:
		return gp_inf();
	case OP_MAX:
		return -gp_inf();
	default:
		return 0.0;
	}
}

// Xor butterfly over the warp: every lane ends with the same value (IEEE
// addition, min and max are commutative, so lanes l and l^o compute the same
// thing at every level).
__device__ __forceinline__ double gp_warp_reduce(int op, double v)
{
#pragma unroll
	for (int o = GP_WARP / 2; o > 0; o >>= 1)
		v = gp_combine(op, v, __shfl_xor_sync(GP_FULL_MASK, v, o));
	return v;
}

__device__ __forceinline__ i64 gp_warp_sum_i64(i64 v)
{
#pragma unroll
	for (int o = GP_WARP / 2; o > 0; o >>= 1)
		v += __shfl_xor_sync(GP_FULL_MASK, v, o);
	return v;
}

// gp_block_reduce reduces K values across the block (blockDim.x a multiple
// of 32, at most 1024) with ops[k]; every thread gets the results. sh must
// hold K*32 doubles. It begins and ends with __syncthreads-safe use of sh, so
// it may be called repeatedly with the same sh (all threads must call it).
template <int K>
__device__ __forceinline__ void gp_block_reduce(double (&v)[K], const int (&ops)[K], double *sh)
{
	const int lane = threadIdx.x & (GP_WARP - 1), warp = threadIdx.x / GP_WARP;
	const int nw = blockDim.x / GP_WARP;
#pragma unroll
	for (int k = 0; k < K; k++)
		v[k] = gp_warp_reduce(ops[k], v[k]);
	__syncthreads(); // sh may still be read by a previous call
	if (lane == 0) {
#pragma unroll
		for (int k = 0; k < K; k++)
			sh[k * GP_WARP + warp] = v[k];
	}
	__syncthreads();
	if (warp == 0) {
#pragma unroll
		for (int k = 0; k < K; k++) {
			double x = lane < nw ? sh[k * GP_WARP + lane] : gp_identity(ops[k]);
			x = gp_warp_reduce(ops[k], x);
			v[k] = x;
		}
	}
	__syncthreads();
	if (warp == 0 && lane == 0) {
#pragma unroll
		for (int k = 0; k < K; k++)
			sh[k * GP_WARP] = v[k];
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < K; k++)
		v[k] = sh[k * GP_WARP];
}

__device__ __forceinline__ double gp_block_reduce1(int op, double x, double *sh)
{
	double v[1] = {x};
	const int ops[1] = {op};
	gp_block_reduce<1>(v, ops, sh);
	return v[0];
}

// Chunked vectors: chunk b of a length-n vector is [b*chunkLen,
// min((b+1)*chunkLen, n)); chunks = ceil(n / chunkLen).
__device__ __forceinline__ i64 gp_chunks(i64 n, i64 chunkLen) { return (n + chunkLen - 1) / chunkLen; }

// gp_reduce_partials reduces field k of `chunks` records of `rec` doubles
// with op: thread t takes records t, t+blockDim, ... in order, then the block
// tree. Every block computes the same value.
__device__ __forceinline__ double gp_reduce_partials(int op, const double *partial, i64 chunks, int rec, int k, double *sh)
{
	double s = gp_identity(op);
	for (i64 j = threadIdx.x; j < chunks; j += blockDim.x)
		s = gp_combine(op, s, partial[j * rec + k]);
	return gp_block_reduce1(op, s, sh);
}

// ---------------------------------------------------------------------------
// The operator: one pass over A.
//
// Work units: A is cut into gx column slices (each tilesPerSlice tiles of 256
// columns; the last slice and tile may be short) and gy row blocks (each
// rowsPerBlock rows; the last may be short). Unit u = by*gx + bx covers slice
// bx of row block by. Units are visited with a grid stride, one unit per
// block at a time. Inside a unit, for each tile: warp w takes rows r0 + w,
// r0 + w + 8, ...; lane l reads columns tile*256 + l + 32k, k < 8 (a warp
// reads 32 consecutive elements per k: 128-byte (f32) or 256-byte (f64)
// coalesced transactions) and
//   ROWS: forms the row's dot product with q over the tile (q of the tile
//         sits in registers, loaded once per tile), reduces it over the warp
//         and adds it into rowPartial[bx*m + i] (written on the slice's first
//         tile, read-modify-written by the same warp on later ones);
//   COLS: accumulates p_i A_ij for its 8 columns in registers; at the end of
//         the tile the 8 warps' sums go through shared memory (8 x 256
//         doubles), are added in warp order, and written to
//         colPartial[by*n + j] (each written exactly once per pass).
// gpump_op_finish then sums rowPartial over bx and colPartial over by.
//
// Shared memory: 16 KiB static (COLS kernels), none dynamic.
// ---------------------------------------------------------------------------

// gp_op_unit does one work unit: rows [r0, r1) and tiles [t0, t1) (slice
// bx, row block by) as described above. Every thread of the block calls it.
template <typename T, bool ROWS, bool COLS>
__device__ __forceinline__ void gp_op_unit(
	const T *__restrict__ A, i64 m, i64 n,
	const double *__restrict__ p, const double *__restrict__ q,
	double *__restrict__ rowPartial, double *__restrict__ colPartial,
	i64 r0, i64 r1, i64 t0, i64 t1, i64 bx, i64 by,
	double (*red)[GP_TILE])
{
	const int lane = threadIdx.x & (GP_WARP - 1), warp = threadIdx.x / GP_WARP;
	if (ROWS && t0 >= t1) {
		// An empty slice (only if the shape was not made by kernels.go):
		// its partials must still be defined.
		for (i64 i = r0 + threadIdx.x; i < r1; i += blockDim.x)
			rowPartial[bx * m + i] = 0.0;
	}
	for (i64 t = t0; t < t1; t++) {
		const i64 c0 = t * GP_TILE;
		double qr[GP_COLS_PER_LANE];
		double acc[GP_COLS_PER_LANE];
#pragma unroll
		for (int k = 0; k < GP_COLS_PER_LANE; k++) {
			const i64 col = c0 + lane + GP_WARP * k;
			qr[k] = (ROWS && col < n) ? q[col] : 0.0;
			acc[k] = 0.0;
		}
		// Two rows per iteration (i and i + 8) so that a lane has 16
		// independent loads of A in flight; rows are still accumulated in
		// the order r0 + w, r0 + w + 8, ...
		for (i64 i = r0 + warp; i < r1; i += 2 * GP_WARPS) {
			const i64 i2 = i + GP_WARPS;
			const bool two = i2 < r1; // uniform across the warp
			double prev0 = 0.0, prev1 = 0.0;
			if (ROWS && lane == 0 && t > t0) {
				// Issued before the loads of A, which hide its latency.
				prev0 = rowPartial[bx * m + i];
				if (two)
					prev1 = rowPartial[bx * m + i2];
			}
			const T *row0 = A + i * n + c0;
			const T *row1 = A + i2 * n + c0;
			T a0[GP_COLS_PER_LANE], a1[GP_COLS_PER_LANE];
#pragma unroll
			for (int k = 0; k < GP_COLS_PER_LANE; k++) {
				const i64 col = lane + GP_WARP * k;
				const bool in = c0 + col < n;
				a0[k] = in ? __ldg(row0 + col) : (T)0;
				a1[k] = (in && two) ? __ldg(row1 + col) : (T)0;
			}
			if (ROWS) {
				double d0 = 0.0, d1 = 0.0;
#pragma unroll
				for (int k = 0; k < GP_COLS_PER_LANE; k++) {
					d0 = fma((double)a0[k], qr[k], d0);
					d1 = fma((double)a1[k], qr[k], d1);
				}
#pragma unroll
				for (int o = GP_WARP / 2; o > 0; o >>= 1) {
					d0 += __shfl_xor_sync(GP_FULL_MASK, d0, o);
					d1 += __shfl_xor_sync(GP_FULL_MASK, d1, o);
				}
				if (lane == 0) {
					rowPartial[bx * m + i] = prev0 + d0;
					if (two)
						rowPartial[bx * m + i2] = prev1 + d1;
				}
			}
			if (COLS) {
				const double p0 = p[i];
#pragma unroll
				for (int k = 0; k < GP_COLS_PER_LANE; k++)
					acc[k] = fma(p0, (double)a0[k], acc[k]);
				if (two) {
					const double p1 = p[i2];
#pragma unroll
					for (int k = 0; k < GP_COLS_PER_LANE; k++)
						acc[k] = fma(p1, (double)a1[k], acc[k]);
				}
			}
		}
		if (COLS) {
#pragma unroll
			for (int k = 0; k < GP_COLS_PER_LANE; k++)
				red[warp][lane + GP_WARP * k] = acc[k];
			__syncthreads();
			// blockDim.x == GP_TILE: thread j owns column c0 + j.
			const i64 col = c0 + threadIdx.x;
			double s = red[0][threadIdx.x];
#pragma unroll
			for (int w = 1; w < GP_WARPS; w++)
				s += red[w][threadIdx.x];
			if (col < n)
				colPartial[by * n + col] = s;
			__syncthreads();
		}
	}
}

template <typename T, bool ROWS, bool COLS>
__device__ __forceinline__ void gp_op_pass(
	const T *__restrict__ A, i64 m, i64 n,
	const double *__restrict__ p, const double *__restrict__ q,
	double *__restrict__ rowPartial, double *__restrict__ colPartial,
	i64 rowsPerBlock, i64 tilesPerSlice, i64 gx, i64 gy,
	double (*red)[GP_TILE])
{
	const i64 tilesN = (n + GP_TILE - 1) / GP_TILE;
	for (i64 u = blockIdx.x; u < gx * gy; u += gridDim.x) {
		const i64 bx = u % gx, by = u / gx;
		const i64 r0 = by * rowsPerBlock, t0 = bx * tilesPerSlice;
		gp_op_unit<T, ROWS, COLS>(A, m, n, p, q, rowPartial, colPartial, r0, min(m, r0 + rowsPerBlock),
					  t0, min(tilesN, t0 + tilesPerSlice), bx, by, red);
	}
}

// gpump_op_fused_{f32,f64}: one pass over A for F(p, q) = (-A q, A^T p).
//   Arguments: A, m, n, p (m), q (n), rowPartial (gx*m), colPartial (gy*n),
//   rowsPerBlock, tilesPerSlice, gx, gy.
//   Launch: grid OpShape.Grid (x only, any size >= 1), block 256, no dynamic
//   shared memory; then gpump_op_finish with sign -1.
//   Bytes: reads A once (m*n*s), p (m*8 per tile of a row, from L2: m*8 from
//   DRAM), q (gy*n*8); writes rowPartial ceil(n/256)*m*8 (plus the same read
//   back when a slice has more than one tile, i.e. n > 262144) and
//   colPartial gy*n*8.
//
// gpump_op_mulvec_{f32,f64}: one pass over A for A q (row dots only).
//   Same arguments and launch as gpump_op_fused (p and colPartial are not
//   read and may be 0); then gpump_op_finish with sign +1 and fq = 0.
//   Bytes: A m*n*s, q gy*n*8, rowPartial as in the fused kernel.
//
// gpump_op_multvec_{f32,f64}: one pass over A for A^T p (column sums only).
//   Same arguments and launch as gpump_op_fused (q and rowPartial are not
//   read and may be 0); then gpump_op_finish with fp = 0.
//   Bytes: A m*n*s, p m*8, colPartial gy*n*8.
#define GP_OP_KERNEL(NAME, T, ROWS, COLS)                                                      \
	extern "C" __global__ void __launch_bounds__(GP_THREADS) NAME(                        \
		const T *__restrict__ A, i64 m, i64 n,                                          \
		const double *__restrict__ p, const double *__restrict__ q,                     \
		double *__restrict__ rowPartial, double *__restrict__ colPartial,               \
		i64 rowsPerBlock, i64 tilesPerSlice, i64 gx, i64 gy)                            \
	{                                                                                       \
		__shared__ double red[COLS ? GP_WARPS : 1][GP_TILE];                             \
		gp_op_pass<T, ROWS, COLS>(A, m, n, p, q, rowPartial, colPartial,                 \
					  rowsPerBlock, tilesPerSlice, gx, gy, red);              \
	}

// GP_OP_KINDS instantiates KERNEL(name, element type, ROWS, COLS) for the
// three kinds of pass and both matrix types, named PREFIX{fused,mulvec,
// multvec}_{f32,f64}.
#define GP_OP_KINDS(KERNEL, PREFIX)                          \
	KERNEL(PREFIX##fused_f32, float, true, true)         \
	KERNEL(PREFIX##fused_f64, double, true, true)        \
	KERNEL(PREFIX##mulvec_f32, float, true, false)       \
	KERNEL(PREFIX##mulvec_f64, double, true, false)      \
	KERNEL(PREFIX##multvec_f32, float, false, true)      \
	KERNEL(PREFIX##multvec_f64, double, false, true)

GP_OP_KINDS(GP_OP_KERNEL, gpump_op_)

// gpump_op_finish: fp[i] = sign * sum_{bx<gx} rowPartial[bx*m + i] and
// fq[j] = sum_{by<gy} colPartial[by*n + j], sums in index order of bx / by
// split over 8 threads (thread group k takes bx = k, k+8, ...; the 8 group
// sums are added in order).
//   Arguments: fp (m, may be 0 to skip), rowPartial (read only with fp),
//              gx, m, sign, fq (n, may be 0 to skip), colPartial (read only
//              with fq), gy, n.
//   Launch: block 256 = 32 outputs x 8 groups; logical groups of 32 outputs:
//   ceil(m/32) (if fp) followed by ceil(n/32) (if fq), grid-strided; grid
//   OpShape.FinishGrid.
//   Bytes: reads gx*m*8 + gy*n*8, writes (m + n)*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_op_finish(
	double *__restrict__ fp, const double *__restrict__ rowPartial, i64 gx, i64 m, double sign,
	double *__restrict__ fq, const double *__restrict__ colPartial, i64 gy, i64 n)
{
	__shared__ double sh[GP_WARPS][GP_WARP];
	const int tx = threadIdx.x & (GP_WARP - 1), ty = threadIdx.x / GP_WARP;
	const i64 rowGroups = fp ? (m + GP_WARP - 1) / GP_WARP : 0;
	const i64 colGroups = fq ? (n + GP_WARP - 1) / GP_WARP : 0;
	for (i64 g = blockIdx.x; g < rowGroups + colGroups; g += gridDim.x) {
		const bool rows = g < rowGroups;
		const i64 L = rows ? m : n, K = rows ? gx : gy;
		const double *part = rows ? rowPartial : colPartial;
		const i64 l = (rows ? g : g - rowGroups) * GP_WARP + tx;
		double s = 0.0;
		if (l < L)
			for (i64 k = ty; k < K; k += GP_WARPS)
				s += part[k * L + l];
		sh[ty][tx] = s;
		__syncthreads();
		if (ty == 0 && l < L) {
			double t = sh[0][tx];
#pragma unroll
			for (int w = 1; w < GP_WARPS; w++)
				t += sh[w][tx];
			if (rows)
				fp[l] = sign * t;
			else
				fq[l] = t;
		}
		__syncthreads();
	}
}

// ---------------------------------------------------------------------------
// Transposed copy of A (tensorops.Transpose): dst (n x m) = A^T.
//
// Work units: 32 x 32 tiles of A, tile u = by*tilesX + bx covering rows
// by*32 .. and columns bx*32 .. (the last ones may be short), visited with a
// grid stride. The block (32 x 8 threads) reads the tile row by row (a warp
// reads 32 consecutive elements of a row of A), stores it in shared memory
// padded to 33 columns (no bank conflicts on the transposed read), and
// writes it row by row of dst (32 consecutive elements of a row of A^T).
// Shared memory: 32*33 elements (4224 bytes f32, 8448 bytes f64).
// ---------------------------------------------------------------------------

#define GP_TT 32 // transpose tile side

template <typename T>
__device__ __forceinline__ void gp_transpose(T *__restrict__ dst, const T *__restrict__ src, i64 m, i64 n,
					     T (*tile)[GP_TT + 1])
{
	const int tx = threadIdx.x & (GP_TT - 1), ty = threadIdx.x / GP_TT;
	const int rows = blockDim.x / GP_TT;
	const i64 tilesX = (n + GP_TT - 1) / GP_TT, tilesY = (m + GP_TT - 1) / GP_TT;
	for (i64 u = blockIdx.x; u < tilesX * tilesY; u += gridDim.x) {
		const i64 bx = u % tilesX, by = u / tilesX;
		const i64 c = bx * GP_TT + tx;
		for (int k = ty; k < GP_TT; k += rows) {
			const i64 r = by * GP_TT + k;
			if (r < m && c < n)
				tile[k][tx] = src[r * n + c];
		}
		__syncthreads();
		const i64 dc = by * GP_TT + tx; // a column of dst is a row of A
		for (int k = ty; k < GP_TT; k += rows) {
			const i64 dr = bx * GP_TT + k;
			if (dr < n && dc < m)
				dst[dr * m + dc] = tile[tx][k];
		}
		__syncthreads(); // the next tile overwrites this one
	}
}

// gpump_transpose_{f32,f64}: dst = A^T for the m x n row-major A (dst is
// n x m, row-major, same element type; it must not overlap A).
//   Arguments: dst, A, m, n.
//   Launch: kernels.Transpose (block 256, grid min(tiles, 32*SMs)).
//   Bytes: reads m*n*s, writes m*n*s.
#define GP_TRANSPOSE_KERNEL(NAME, T)                                                                   \
	extern "C" __global__ void __launch_bounds__(GP_THREADS) NAME(T *__restrict__ dst,            \
								      const T *__restrict__ A, i64 m, i64 n) \
	{                                                                                              \
		__shared__ T tile[GP_TT][GP_TT + 1];                                                   \
		gp_transpose<T>(dst, A, m, n, tile);                                                   \
	}

GP_TRANSPOSE_KERNEL(gpump_transpose_f32, float)
GP_TRANSPOSE_KERNEL(gpump_transpose_f64, double)

// ---------------------------------------------------------------------------
// Elementwise kernels (no reduction). Launch: block 256, any grid
// (VectorShape.Grid), grid-stride loop over the n elements.
// ---------------------------------------------------------------------------

#define GP_FOR_EACH(i, n) \
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// gpump_fill: dst[i] = value (Start: 1/n for probabilities, -log n for
// log-weights; the host computes the constant, so the values are the CPU's).
//   Arguments: dst, value, n.   Bytes: writes n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_fill(double *__restrict__ dst, double value, i64 n)
{
	GP_FOR_EACH(i, n)
	dst[i] = value;
}

// gpump_axpby: dst = alpha x + beta y (dst may alias x or y).
//   Arguments: dst, alpha, x, beta, y, n.   Bytes: reads 2n*8, writes n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_axpby(double *dst, double alpha, const double *x, double beta, const double *y, i64 n)
{
	GP_FOR_EACH(i, n)
	dst[i] = alpha * x[i] + beta * y[i];
}

// gpump_box_prox: dst_i = min(max(v_i, lo_i), hi_i) with v = c - eta g (the
// Euclidean box prox; v = c when g is 0, v = 0 when c is 0: the start point;
// dst may alias c or g).
//   Arguments: dst, c, g, eta, lo, hi, n.   Bytes: reads 4n*8, writes n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_box_prox(
	double *dst, const double *c, const double *g, double eta,
	const double *__restrict__ lo, const double *__restrict__ hi, i64 n)
{
	GP_FOR_EACH(i, n)
	{
		const double v = c ? (g ? c[i] - eta * g[i] : c[i]) : 0.0;
		dst[i] = gp_min(gp_max(v, lo[i]), hi[i]);
	}
}

// ---------------------------------------------------------------------------
// Chunked kernels. Stage one ("partial") kernels: logical unit = chunk b of
// VectorShape (ChunkLen elements), block 256, grid-stride over the chunks,
// one record of partials per chunk. Stage two ("finish") kernels: every block
// first reduces all the chunk records (same order in every block, so every
// block gets the same scalars; chunks <= 1024 records, read from L2), then
// works elementwise with a grid stride. Launch both with VectorShape.Grid.
// ---------------------------------------------------------------------------

#define GP_FOR_CHUNK(b, chunks) for (i64 b = blockIdx.x; b < (chunks); b += gridDim.x)
#define GP_FOR_IN_CHUNK(i, b, chunkLen, n) \
	for (i64 i = (b) * (chunkLen) + threadIdx.x, i##_end = min((n), ((b) + 1) * (chunkLen)); i < i##_end; i += blockDim.x)

// gpump_logprox_partial: first half of the entropic prox in log space
// (tensorops.LogProx): l_i = c_i - eta g_i is written to dstLog, and per
// chunk b: partial[2b] = max_i l_i, partial[2b+1] = sum_i exp(l_i - that max).
// dstLog may alias c.
//   Arguments: partial (2*chunks), dstLog, c, g, eta, n, chunkLen.
//   Bytes: reads 2n*8 (+ n*8 re-read of dstLog, L1/L2), writes n*8 + chunks*16.
// gp_logprox_range writes l_i = c_i - eta g_i to dstLog for i in [lo, hi)
// (thread t takes lo + t, lo + t + blockDim, ...) and gives every thread of
// the block mx = max_i l_i and s = sum_i exp(l_i - mx).
__device__ __forceinline__ void gp_logprox_range(double *dstLog, const double *c, const double *g, double eta,
						 i64 lo, i64 hi, double *sh, double &mx, double &s)
{
	mx = -gp_inf();
	for (i64 i = lo + threadIdx.x; i < hi; i += blockDim.x) {
		const double l = c[i] - eta * g[i];
		dstLog[i] = l;
		mx = gp_max(mx, l);
	}
	mx = gp_block_reduce1(OP_MAX, mx, sh);
	s = 0.0;
	for (i64 j = lo + threadIdx.x; j < hi; j += blockDim.x)
		s += exp(dstLog[j] - mx); // the thread's own writes
	s = gp_block_reduce1(OP_SUM, s, sh);
}

// gp_logprox_store normalizes element i: dstLog_i -= lse, dstProb_i =
// exp(dstLog_i), or 0 below log(1e-300).
__device__ __forceinline__ void gp_logprox_store(double *dstLog, double *dstProb, i64 i, double lse)
{
	const double v = dstLog[i] - lse;
	dstLog[i] = v;
	dstProb[i] = v < GP_MIN_LOG_PROB ? 0.0 : exp(v);
}

extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_logprox_partial(
	double *__restrict__ partial, double *dstLog, const double *c, const double *g,
	double eta, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double mx, s;
		gp_logprox_range(dstLog, c, g, eta, b * chunkLen, min(n, (b + 1) * chunkLen), sh, mx, s);
		if (threadIdx.x == 0) {
			partial[2 * b] = mx;
			partial[2 * b + 1] = s;
		}
	}
}

// gpump_logprox_finish: second half. Every block combines the chunk records
// into M = max_b max_b and S = sum_b s_b exp(max_b - M) (in chunk order), lse
// = M + log S, then dstLog_i -= lse and dstProb_i = exp(dstLog_i), or 0 when
// dstLog_i < log(1e-300). dstProb may alias g (g is not read here).
//   Arguments: dstLog, dstProb, partial, n, chunkLen.
//   Bytes: reads n*8 + chunks*16 per block (L2), writes 2n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_logprox_finish(
	double *__restrict__ dstLog, double *__restrict__ dstProb, const double *__restrict__ partial,
	i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	const double M = gp_reduce_partials(OP_MAX, partial, chunks, 2, 0, sh);
	double s = 0.0;
	for (i64 j = threadIdx.x; j < chunks; j += blockDim.x)
		s += partial[2 * j + 1] * exp(partial[2 * j] - M);
	const double S = gp_block_reduce1(OP_SUM, s, sh);
	const double lse = M + log(S);
	GP_FOR_EACH(i, n)
	gp_logprox_store(dstLog, dstProb, i, lse);
}

// gpump_ball_partial: first half of the Euclidean ball prox (centre o,
// radius r): d_i = c_i - eta g_i - o_i is written to dst, partial[b] =
// sum_chunk d_i^2. dst may alias c or g.
//   Arguments: partial (chunks), dst, c, g, o, eta, n, chunkLen.
//   Bytes: reads 3n*8, writes n*8 + chunks*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_ball_partial(
	double *__restrict__ partial, double *dst, const double *c, const double *g,
	const double *__restrict__ o, double eta, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double s = 0.0;
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		{
			const double d = c[i] - eta * g[i] - o[i];
			dst[i] = d;
			s = fma(d, d, s);
		}
		s = gp_block_reduce1(OP_SUM, s, sh);
		if (threadIdx.x == 0)
			partial[b] = s;
	}
}

// gpump_ball_finish: r2 = sum of the chunk partials; f = radius/sqrt(r2) if
// sqrt(r2) > radius, else 1; dst_i = o_i + f dst_i (solver.Ball.Prox).
//   Arguments: dst, o, partial, radius, n, chunkLen.
//   Bytes: reads 2n*8 + chunks*8 per block, writes n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_ball_finish(
	double *__restrict__ dst, const double *__restrict__ o, const double *__restrict__ partial,
	double radius, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	const double r = sqrt(gp_reduce_partials(OP_SUM, partial, chunks, 1, 0, sh));
	const double f = r > radius ? radius / r : 1.0;
	GP_FOR_EACH(i, n)
	dst[i] = o[i] + f * dst[i];
}

// ---------------------------------------------------------------------------
// Mirror-prox trial statistics (tensorops.ProxStats) and averages
// (tensorops.Average). Stage one writes one record of GP_REC doubles per
// chunk:
//   [0] support of g        [1] support of the updated average of g
//   [2] ball: sum g^2       [3] ball: sum of the updated average of g, squared
//   [4] sum lin x           [5] sum lin (updated average of x)
//   [6] sum for DivXY       [7] sum for DivYX
//   [8] sum for DistXY      [9] sum for DistXYNew
//   [10] DualGM (max |g-m| entropic, sum (g-m)^2 otherwise)
//   [11] sum for InnerGM
// The support of g over the block's set is min_z <g, z>: on the simplex
// min_i g_i (reduced with min), on a box sum_i min(g_i lo_i, g_i hi_i), on a
// ball sum_i g_i o_i, from which the finish subtracts radius sqrt([2]).
// gpump_stats_finish turns the records of one or two strategy blocks into the
// result: GP_OUT doubles per block in the field order of
// tensorops.BlockStats (MinG, MinAvgG, LinX, LinAvgX, DivXY, DivYX, DistXY,
// DistXYNew, DualGM, InnerGM); the host copies 8*GP_OUT*blocks bytes back, the
// iteration's one synchronization.
//
// The set of a block is given by the pointers a stage-one kernel gets: lo
// and hi (both non-null) make a box, o a ball, neither the simplex. The lin
// pointer (may be 0) is the block's linear term.
// ---------------------------------------------------------------------------

enum { GP_SIMPLEX = 0, GP_BOX = 1, GP_BALL = 2 };

__device__ __forceinline__ int gp_set(const double *lo, const double *o)
{
	return lo ? GP_BOX : o ? GP_BALL : GP_SIMPLEX;
}

// gp_support adds element i's terms of min_z <g, z> over the set to s (and,
// for a ball, g_i^2 to s2).
__device__ __forceinline__ void gp_support(int set, double gi, i64 i, const double *lo, const double *hi,
					   const double *o, double &s, double &s2)
{
	switch (set) {
	case GP_BOX:
		s += gp_min(gi * lo[i], gi * hi[i]);
		break;
	case GP_BALL:
		s = fma(gi, o[i], s);
		s2 = fma(gi, gi, s2);
		break;
	default:
		s = gp_min(s, gi);
	}
}

// gp_set_ops sets the reduction of record fields [0] and [1]: min on the
// simplex, sum on a box or ball; and their identities in v.
template <int K>
__device__ __forceinline__ void gp_set_ops(int set, int (&ops)[K], double (&v)[K])
{
	ops[0] = ops[1] = set == GP_SIMPLEX ? OP_MIN : OP_SUM;
	v[0] = v[1] = gp_identity(ops[0]);
}

// gp_avg_update writes the running averages updated with weight fraction w
// (avg + w (x - avg)), returns the new average of g and sets nx to the new
// average of x.
__device__ __forceinline__ double gp_avg_update(i64 i, double w, double x, double g,
						const double *ax, const double *ag, double *nax, double *nag,
						double &nx)
{
	nx = ax[i] + w * (x - ax[i]);
	nax[i] = nx;
	const double a = ag[i] + w * (g - ag[i]);
	nag[i] = a;
	return a;
}

// gp_set_terms adds element i's set and linear terms to record fields [0]
// to [5]: the supports of g and of its new average a, and lin x and lin nx.
__device__ __forceinline__ void gp_set_terms(int set, i64 i, double gi, double a, double x, double nx,
					     const double *lo, const double *hi, const double *o,
					     const double *lin, double (&v)[GP_REC])
{
	gp_support(set, gi, i, lo, hi, o, v[0], v[2]);
	gp_support(set, a, i, lo, hi, o, v[1], v[3]);
	if (lin) {
		v[4] = fma(lin[i], x, v[4]);
		v[5] = fma(lin[i], nx, v[5]);
	}
}

__device__ __forceinline__ void gp_write_record(double *partial, i64 b, const double (&v)[GP_REC])
{
	if (threadIdx.x == 0) {
#pragma unroll
		for (int k = 0; k < GP_REC; k++)
			partial[b * GP_REC + k] = v[k];
	}
}

// gp_proxstats_entropic adds element i's terms to the record v of
// gpump_proxstats_entropic (see there) and writes its new averages.
__device__ __forceinline__ void gp_proxstats_entropic(
	const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ ly, const double *__restrict__ lx, const double *__restrict__ lyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag, const double *__restrict__ lin,
	double w, i64 i, double (&v)[GP_REC])
{
	const double x = px[i], y = py[i], yn = pyn[i], gi = g[i];
	const double lxi = lx[i];
	double nx;
	const double a = gp_avg_update(i, w, x, gi, ax, ag, nax, nag, nx);
	gp_set_terms(GP_SIMPLEX, i, gi, a, x, nx, nullptr, nullptr, nullptr, lin, v);
	v[6] = fma(x, lxi - ly[i], v[6]);
	v[7] = fma(yn, lyn[i] - lxi, v[7]);
	v[8] += fabs(x - y);
	v[9] += fabs(x - yn);
	const double d = gi - mv[i];
	v[10] = gp_max(v[10], fabs(d));
	v[11] = fma(d, x - yn, v[11]);
}

// gp_proxstats_euclidean is gp_proxstats_entropic for
// gpump_proxstats_euclidean.
__device__ __forceinline__ void gp_proxstats_euclidean(
	int set, const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag,
	const double *__restrict__ lo, const double *__restrict__ hi, const double *__restrict__ o,
	const double *__restrict__ lin, double w, i64 i, double (&v)[GP_REC])
{
	const double x = px[i], gi = g[i];
	const double dy = x - py[i], dn = x - pyn[i], d = gi - mv[i];
	double nx;
	const double a = gp_avg_update(i, w, x, gi, ax, ag, nax, nag, nx);
	gp_set_terms(set, i, gi, a, x, nx, lo, hi, o, lin, v);
	v[8] = fma(dy, dy, v[8]);
	v[9] = fma(dn, dn, v[9]);
	v[10] = fma(d, d, v[10]);
	v[11] = fma(d, dn, v[11]);
}

// gpump_proxstats_entropic: stage one of ProxStats for an entropic block (on
// the simplex). Per element (x = x_t, y = y_{t-1}, yn = y_t; p* probabilities,
// l* log-weights):
//   divXY += px (lx - ly); divYX += pyn (lyn - lx); distXY += |px - py|;
//   distXYNew += |px - pyn|; d = g - m: dual = max(dual, |d|);
//   inner += d (px - pyn); the averages are updated into nax, nag; the
//   support and linear terms as above.
//   Arguments: partial (GP_REC*chunks), py, px, pyn, ly, lx, lyn, m, g, ax,
//              ag, nax, nag, lin (may be 0), w, n, chunkLen.
//   Bytes: reads 10n*8 (11n*8 with lin), writes 2n*8 + chunks*96.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_proxstats_entropic(
	double *__restrict__ partial,
	const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ ly, const double *__restrict__ lx, const double *__restrict__ lyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag, const double *__restrict__ lin,
	double w, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_REC * GP_WARP];
	int ops[GP_REC] = {OP_MIN, OP_MIN, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_MAX, OP_SUM};
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double v[GP_REC] = {gp_inf(), gp_inf(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		gp_proxstats_entropic(py, px, pyn, ly, lx, lyn, mv, g, ax, ag, nax, nag, lin, w, i, v);
		gp_block_reduce<GP_REC>(v, ops, sh);
		gp_write_record(partial, b, v);
	}
}

// gpump_proxstats_euclidean: stage one of ProxStats for a block with the
// divergence 1/2 ||z - c||^2 (the Euclidean simplex, a box, a ball; State ==
// Value): distXY += (x - y)^2; distXYNew += (x - yn)^2; dual += (g - m)^2;
// inner += (g - m)(x - yn); averages, support and linear terms as above.
// Record fields [6] and [7] are unused (0): the finish derives the
// divergences.
//   Arguments: partial (GP_REC*chunks), y, x, yn, m, g, ax, ag, nax, nag,
//              lo, hi (box; both 0 otherwise), o (ball centre; 0 otherwise),
//              lin (may be 0), w, n, chunkLen.
//   Bytes: reads 7n*8 (+2n*8 box, +n*8 ball, +n*8 lin), writes 2n*8 +
//   chunks*96.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_proxstats_euclidean(
	double *__restrict__ partial,
	const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag,
	const double *__restrict__ lo, const double *__restrict__ hi, const double *__restrict__ o,
	const double *__restrict__ lin, double w, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_REC * GP_WARP];
	const int set = gp_set(lo, o);
	int ops[GP_REC] = {OP_MIN, OP_MIN, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM};
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double v[GP_REC] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
		gp_set_ops(set, ops, v);
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		gp_proxstats_euclidean(set, py, px, pyn, mv, g, ax, ag, nax, nag, lo, hi, o, lin, w, i, v);
		gp_block_reduce<GP_REC>(v, ops, sh);
		gp_write_record(partial, b, v);
	}
}

// gp_average adds element i's terms to the record v (fields [0] to [5]) of
// gpump_average_partial and updates its averages in place.
__device__ __forceinline__ void gp_average(int set, const double *__restrict__ x, const double *__restrict__ g,
					   double *__restrict__ ax, double *__restrict__ ag,
					   const double *__restrict__ lo, const double *__restrict__ hi,
					   const double *__restrict__ o, const double *__restrict__ lin, double w, i64 i,
					   double (&v)[6])
{
	const double gi = g[i];
	gp_support(set, gi, i, lo, hi, o, v[0], v[2]);
	double nx = 0.0;
	if (ax) {
		nx = ax[i] + w * (x[i] - ax[i]);
		ax[i] = nx;
	}
	if (ag) {
		const double a = ag[i] + w * (gi - ag[i]);
		ag[i] = a;
		gp_support(set, a, i, lo, hi, o, v[1], v[3]);
	}
	if (lin) {
		v[4] = fma(lin[i], x[i], v[4]);
		v[5] = fma(lin[i], nx, v[5]);
	}
}

// gpump_average_partial: stage one of Average for one block: ax += w (x -
// ax) (ax may be 0: skipped), ag += w (g - ag) (ag may be 0: skipped), and
// per chunk the record fields [0] to [5] (the support of the updated ag is
// the identity when ag is 0, lin ax is 0 when ax or lin is), the others 0.
// x is read only for ax or lin and may be 0 without them.
//   Arguments: partial (GP_REC*chunks), x, g, ax, ag, lo, hi, o, lin (set
//              and linear term as for gpump_proxstats_euclidean), w, n,
//              chunkLen.
//   Bytes: reads n*8 (+2n*8 per average, +n*8 each for x, lin and the
//   set's vectors), writes n*8 per average + chunks*96.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_average_partial(
	double *__restrict__ partial, const double *__restrict__ x, const double *__restrict__ g,
	double *__restrict__ ax, double *__restrict__ ag,
	const double *__restrict__ lo, const double *__restrict__ hi, const double *__restrict__ o,
	const double *__restrict__ lin, double w, i64 n, i64 chunkLen)
{
	__shared__ double sh[6 * GP_WARP];
	const int set = gp_set(lo, o);
	int ops[6] = {OP_MIN, OP_MIN, OP_SUM, OP_SUM, OP_SUM, OP_SUM};
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double v[6] = {0, 0, 0, 0, 0, 0};
		gp_set_ops(set, ops, v);
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		gp_average(set, x, g, ax, ag, lo, hi, o, lin, w, i, v);
		gp_block_reduce<6>(v, ops, sh);
		if (threadIdx.x == 0) {
#pragma unroll
			for (int k = 0; k < GP_REC; k++)
				partial[b * GP_REC + k] = k < 6 ? v[k] : 0.0;
		}
	}
}

// Modes of gpump_stats_finish, one per strategy block (kernels.StatsMode*):
// the kind of records in the low two bits, the block's set above them.
enum {
	GP_MODE_ENTROPIC = 0,  // records of gpump_proxstats_entropic
	GP_MODE_EUCLIDEAN = 1, // records of gpump_proxstats_euclidean
	GP_MODE_AVERAGE = 2,   // records of gpump_average_partial with ag
	GP_MODE_CURRENT = 3,   // records of gpump_average_partial without ag: MinAvgG = NaN
	GP_MODE_SET_SHIFT = 2, // mode >> 2: GP_SIMPLEX, GP_BOX or GP_BALL
};

// gp_stats_result turns a reduced record v of the given kind (GP_MODE_*)
// and set into the GP_OUT result words at res (see gpump_stats_finish).
__device__ __forceinline__ void gp_stats_result(int kind, int set, double radius, const double (&v)[GP_REC],
						double *__restrict__ res)
{
	double r[GP_OUT];
	r[0] = v[0];
	r[1] = v[1];
	if (set == GP_BALL) {
		r[0] -= radius * sqrt(v[2]);
		r[1] -= radius * sqrt(v[3]);
	}
	r[2] = v[4];
	r[3] = v[5];
	switch (kind) {
	case GP_MODE_ENTROPIC:
		r[4] = gp_max(v[6], 0.0);
		r[5] = gp_max(v[7], 0.0);
		r[6] = v[8];
		r[7] = v[9];
		r[8] = v[10];
		r[9] = v[11];
		break;
	case GP_MODE_EUCLIDEAN:
		r[4] = gp_max(v[8] / 2, 0.0);
		r[5] = gp_max(v[9] / 2, 0.0);
		r[6] = sqrt(v[8]);
		r[7] = sqrt(v[9]);
		r[8] = sqrt(v[10]);
		r[9] = v[11];
		break;
	default:
		if (kind == GP_MODE_CURRENT)
			r[1] = gp_nan();
#pragma unroll
		for (int k = 4; k < GP_OUT; k++)
			r[k] = 0.0;
	}
#pragma unroll
	for (int k = 0; k < GP_OUT; k++)
		res[k] = r[k];
}

// gpump_stats_finish: block k (k = blockIdx.x < 2) reduces the chunks_k
// records at partial_k in chunk order and writes GP_OUT doubles at out +
// GP_OUT*k: MinG, MinAvgG, LinX, LinAvgX, DivXY, DivYX, DistXY, DistXYNew,
// DualGM, InnerGM (tensorops.BlockStats order; for the average modes only
// the first four mean anything and the rest are 0). MinG and MinAvgG are the
// supports; a ball's subtract radius_k times the root of the sum of squares.
// Divergences are clamped at 0 (rounding of two nearly equal points);
// Euclidean records give DivXY = DistXY^2/2, DivYX = DistXYNew^2/2 and
// square roots of the sums of squares.
//   Arguments: out (GP_OUT*blocks), partial0, chunks0, mode0, radius0,
//              partial1, chunks1, mode1, radius1 (partial1 unused when the
//              grid is 1 block; radius_k read for a ball only).
//   Launch: grid = number of strategy blocks (1 or 2), block 256.
//   Bytes: reads (chunks0 + chunks1)*96, writes 80 per block.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_stats_finish(
	double *__restrict__ out,
	const double *__restrict__ partial0, i64 chunks0, i64 mode0, double radius0,
	const double *__restrict__ partial1, i64 chunks1, i64 mode1, double radius1)
{
	__shared__ double sh[GP_REC * GP_WARP];
	if (blockIdx.x > 1)
		return;
	const double *partial = blockIdx.x == 0 ? partial0 : partial1;
	const i64 chunks = blockIdx.x == 0 ? chunks0 : chunks1;
	const i64 mode = blockIdx.x == 0 ? mode0 : mode1;
	const double radius = blockIdx.x == 0 ? radius0 : radius1;
	const int kind = (int)(mode & 3), set = (int)(mode >> GP_MODE_SET_SHIFT);
	int ops[GP_REC] = {OP_MIN, OP_MIN, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM, OP_SUM};
	double v[GP_REC];
	gp_set_ops(set, ops, v);
	if (kind == GP_MODE_ENTROPIC)
		ops[10] = OP_MAX;
#pragma unroll
	for (int k = 0; k < GP_REC; k++) {
		v[k] = gp_identity(ops[k]);
		for (i64 j = threadIdx.x; j < chunks; j += blockDim.x)
			v[k] = gp_combine(ops[k], v[k], partial[j * GP_REC + k]);
	}
	gp_block_reduce<GP_REC>(v, ops, sh);
	if (threadIdx.x == 0)
		gp_stats_result(kind, set, radius, v, out + GP_OUT * blockIdx.x);
}

// ---------------------------------------------------------------------------
// Euclidean simplex projection (tensorops.ProjectSimplex), one block.
// ---------------------------------------------------------------------------

// Sum and count of the entries of v above tau, over the whole block.
__device__ __forceinline__ void gp_sum_above(const double *v, i64 n, double tau, double *sh, i64 *shc,
					     double *sum, i64 *cnt)
{
	const int lane = threadIdx.x & (GP_WARP - 1), warp = threadIdx.x / GP_WARP;
	const int nw = blockDim.x / GP_WARP;
	double s = 0.0;
	i64 c = 0;
	for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
		const double x = v[i];
		if (x > tau) {
			s += x;
			c++;
		}
	}
	s = gp_warp_reduce(OP_SUM, s);
	c = gp_warp_sum_i64(c);
	__syncthreads();
	if (lane == 0) {
		sh[warp] = s;
		shc[warp] = c;
	}
	__syncthreads();
	if (warp == 0) {
		s = lane < nw ? sh[lane] : 0.0;
		c = lane < nw ? shc[lane] : 0;
		s = gp_warp_reduce(OP_SUM, s);
		c = gp_warp_sum_i64(c);
		if (lane == 0) {
			sh[0] = s;
			shc[0] = c;
		}
	}
	__syncthreads();
	*sum = sh[0];
	*cnt = shc[0];
}

// gpump_simplex_prox: dst = projection onto the probability simplex of
// v = c - eta g (or of c when g is 0; dst may alias c or g). Michelot's
// active-set iteration from tau = (sum v - 1)/n, as tensorops.ProjectSimplex:
// tau <- (sum_{v > tau} v - 1) / #{v > tau} until the support stops
// shrinking; after 64 rounds a bisection on tau (at most 200 halvings) and
// one exact step on its support take over. Every round is one block-wide
// reduction whose result every thread shares, so the control flow is uniform.
//   Arguments: dst, c, g (may be 0), eta, n.
//   Launch: grid 1, block 1024 (SimplexShape); shared memory static.
//   Bytes: reads 2n*8 and writes n*8 once, then re-reads n*8 per round
//   (from L1/L2 while n*8 fits): (3 + rounds) n*8. Rounds are typically
//   below 10; a single block streams n*8 bytes in about n*8/(50 GB/s), so
//   this is the slow part for n in the millions (then prefer the entropic
//   setup, whose prox is fully parallel).
// gp_simplex_project is the projection of gpump_simplex_prox by the whole
// block (any multiple of 32 threads): every thread calls it.
__device__ __forceinline__ void gp_simplex_project(double *dst, const double *c, const double *g, double eta, i64 n,
						   double *sh, i64 *shc)
{
	double s = 0.0, hi = -gp_inf();
	for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
		const double x = g ? c[i] - eta * g[i] : c[i];
		dst[i] = x;
		s += x;
		hi = gp_max(hi, x);
	}
	{
		double v[2] = {s, hi};
		const int ops[2] = {OP_SUM, OP_MAX};
		gp_block_reduce<2>(v, ops, sh);
		s = v[0];
		hi = v[1];
	}
	double tau = (s - 1) / (double)n;
	i64 k = n;
	for (int round = 0;; round++) {
		double sum;
		i64 cnt;
		gp_sum_above(dst, n, tau, sh, shc, &sum, &cnt);
		if (cnt == k || cnt == 0)
			break;
		k = cnt;
		const double next = (sum - 1) / (double)cnt;
		if (next <= tau)
			break;
		tau = next;
		if (round == 64) {
			// Bisection for tau >= lo with sum max(v - tau, 0) = 1.
			double lo = tau, up = hi;
			for (int it = 0; it < 200; it++) {
				const double mid = lo + (up - lo) / 2;
				if (mid <= lo || mid >= up)
					break;
				double e = 0.0;
				for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
					const double x = dst[i];
					if (x > mid)
						e += x - mid;
				}
				e = gp_block_reduce1(OP_SUM, e, sh);
				if (e > 1)
					lo = mid;
				else
					up = mid;
			}
			gp_sum_above(dst, n, lo, sh, shc, &sum, &cnt);
			tau = (sum - 1) / (double)cnt;
			break;
		}
	}
	for (i64 i = threadIdx.x; i < n; i += blockDim.x)
		dst[i] = gp_max(dst[i] - tau, 0.0);
}

extern "C" __global__ void __launch_bounds__(GP_SIMPLEX_THREADS) gpump_simplex_prox(
	double *dst, const double *c, const double *g, double eta, i64 n)
{
	__shared__ double sh[GP_WARP];
	__shared__ i64 shc[GP_WARP];
	gp_simplex_project(dst, c, g, eta, n, sh, shc);
}

// ---------------------------------------------------------------------------
// Regret matching+ (tensorops.RegretMatch), three chunked kernels:
//   gpump_rm_dot:       partialDot[b] = sum_chunk x_i u_i
//   gpump_rm_update:    v = sign * sum_b partialDot[b]; rho_i = sign u_i - v;
//                       r_i = max(r_i + rho_i, 0); partialSum[b] = sum_chunk
//                       (predictive ? max(r_i + rho_i, 0) : r_i)
//   gpump_rm_normalize: v and sum = sum_b partialSum[b]; unless sum > tiny,
//                       nothing; else x_i = (predictive ? max(r_i + rho_i, 0)
//                       : r_i) / sum.
// Launch each with VectorShape (block 256, VectorShape.Grid); partialDot and
// partialSum hold VectorShape.Chunks doubles each.
// ---------------------------------------------------------------------------

// gp_rm_update updates regret i (rho = sign u_i - v, r_i = max(r_i + rho,
// 0)) and returns the strategy numerator of i.
__device__ __forceinline__ double gp_rm_update(double *r, const double *u, i64 i, double sign, double v, i64 predictive)
{
	const double rho = sign * u[i] - v;
	const double ri = gp_max(r[i] + rho, 0.0);
	r[i] = ri;
	return predictive ? gp_max(ri + rho, 0.0) : ri;
}

// gp_rm_numerator returns the strategy numerator of i from the updated r.
__device__ __forceinline__ double gp_rm_numerator(const double *r, const double *u, i64 i, double sign, double v,
						  i64 predictive)
{
	const double ri = r[i];
	return predictive ? gp_max(ri + sign * u[i] - v, 0.0) : ri;
}

// gpump_rm_dot. Arguments: partialDot, x, u, n, chunkLen.
//   Bytes: reads 2n*8, writes chunks*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_rm_dot(
	double *__restrict__ partialDot, const double *__restrict__ x, const double *__restrict__ u,
	i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	GP_FOR_CHUNK(b, chunks)
	{
		double s = 0.0;
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		s = fma(x[i], u[i], s);
		s = gp_block_reduce1(OP_SUM, s, sh);
		if (threadIdx.x == 0)
			partialDot[b] = s;
	}
}

// gpump_rm_update. Arguments: r, u, partialDot, partialSum, sign,
// predictive (0 or 1), n, chunkLen.
//   Bytes: reads 2n*8 + chunks*8 per block, writes n*8 + chunks*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_rm_update(
	double *__restrict__ r, const double *__restrict__ u,
	const double *__restrict__ partialDot, double *__restrict__ partialSum,
	double sign, i64 predictive, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	const double v = sign * gp_reduce_partials(OP_SUM, partialDot, chunks, 1, 0, sh);
	GP_FOR_CHUNK(b, chunks)
	{
		double s = 0.0;
		GP_FOR_IN_CHUNK(i, b, chunkLen, n)
		s += gp_rm_update(r, u, i, sign, v, predictive);
		s = gp_block_reduce1(OP_SUM, s, sh);
		if (threadIdx.x == 0)
			partialSum[b] = s;
	}
}

// gpump_rm_normalize. Arguments: x, r, u, partialDot, partialSum, sign,
// tiny, predictive, n, chunkLen.
//   Bytes: reads n*8 (2n*8 predictive) + chunks*16 per block, writes n*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_rm_normalize(
	double *__restrict__ x, const double *__restrict__ r, const double *__restrict__ u,
	const double *__restrict__ partialDot, const double *__restrict__ partialSum,
	double sign, double tiny, i64 predictive, i64 n, i64 chunkLen)
{
	__shared__ double sh[GP_WARP];
	const i64 chunks = gp_chunks(n, chunkLen);
	const double v = sign * gp_reduce_partials(OP_SUM, partialDot, chunks, 1, 0, sh);
	const double sum = gp_reduce_partials(OP_SUM, partialSum, chunks, 1, 0, sh);
	if (!(sum > tiny))
		return; // the same decision in every block: x stays as it is
	GP_FOR_EACH(i, n)
	x[i] = gp_rm_numerator(r, u, i, sign, v, predictive) / sum;
}

// ---------------------------------------------------------------------------
// The sampled operator (tensorops.SampledOperator): b column indices j_k ~ q
// and b row indices i_k ~ p, then fp = -(1/b) sum_k A e_{j_k} and
// fq = (1/b) sum_k A^T e_{i_k}. Five launches:
//   gpump_sample_scan_partial: per chunk of q and of p, the sum of
//       max(w, 0) and the last index of positive weight;
//   gpump_sample_scan_finish:  the running sums S of both vectors, their
//       totals T = S_{n-1} and last positive indices into info;
//   gpump_sample_draw:         the 2b indices (k < b: columns from q,
//       b <= k < 2b: rows from p), from tensorops.DrawUniform;
//   gpump_sample_rows_*:       fq from the sampled rows of A, and fp from
//       the sampled rows of A^T when there is a transposed copy;
//   gpump_sample_cols_*:       otherwise fp from the sampled columns of A.
// The sums run over k in draw order (a repeated index is read again, from
// L2); the CPU groups repeats instead: the results differ in rounding only.
//
// The scan has a fixed order, so that S is non-decreasing (the binary
// search needs it) and equal on every GPU: chunk c of a vector (its
// VectorShape) is cut into 256 sub-ranges of chunkLen/256 elements, thread t
// sums its sub-range in index order (local_t), the exclusive prefix of the
// locals is a sequential fold (excl_0 = 0, excl_{t+1} = excl_t + local_t),
// the chunk total is excl_256, and the offset of chunk c is the sequential
// fold of the totals of the chunks before it. Then S_i = offset_c +
// (excl_t + run_i) with run_i the running sum of thread t's sub-range up to
// i: each step adds a non-negative number, and a chunk's last S is exactly
// the next chunk's offset.
// ---------------------------------------------------------------------------

// gp_splitmix is one step of SplitMix64 (tensorops.DrawUniform).
__device__ __forceinline__ unsigned long long gp_splitmix(unsigned long long z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// gp_draw_uniform is tensorops.DrawUniform: integer arithmetic only, so the
// device draws the host's uniforms bit for bit.
__device__ __forceinline__ double gp_draw_uniform(unsigned long long seed, unsigned long long counter,
						  unsigned long long k)
{
	const unsigned long long z = gp_splitmix(gp_splitmix(gp_splitmix(seed) ^ counter) ^ k);
	return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

// gp_scan_unit selects vector v of the two a scan kernel gets, and the
// bounds of thread t's sub-range of its chunk b, for work unit u.
struct GpScanUnit {
	int v;
	i64 b, lo, hi, chunks;
};

__device__ __forceinline__ GpScanUnit gp_scan_unit(i64 u, i64 n0, i64 chunkLen0, i64 n1, i64 chunkLen1)
{
	GpScanUnit s;
	const i64 c0 = gp_chunks(n0, chunkLen0);
	s.v = u < c0 ? 0 : 1;
	const i64 n = s.v ? n1 : n0, chunkLen = s.v ? chunkLen1 : chunkLen0;
	s.b = s.v ? u - c0 : u;
	s.chunks = s.v ? gp_chunks(n1, chunkLen1) : c0;
	const i64 len = chunkLen / GP_THREADS;
	s.lo = min(n, s.b * chunkLen + threadIdx.x * len);
	s.hi = min(n, s.lo + len);
	return s;
}

// gpump_sample_scan_partial: per chunk b of w0 (then of w1), partial[2b] =
// the chunk total of max(w_i, 0) (in the order above) and partial[2b+1] =
// the largest index of the chunk with w_i > 0 (-1 if none). max(NaN, 0) is
// NaN, which makes the total NaN.
//   Arguments: partial0 (2*chunks0), w0, n0, chunkLen0, partial1, w1, n1,
//              chunkLen1 (the VectorShape.ChunkLen of each vector).
//   Launch: kernels.SampleScan (block 256, grid min(chunks0 + chunks1,
//   32*SMs)).   Bytes: reads (n0 + n1)*8, writes (chunks0 + chunks1)*16.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_sample_scan_partial(
	double *__restrict__ partial0, const double *__restrict__ w0, i64 n0, i64 chunkLen0,
	double *__restrict__ partial1, const double *__restrict__ w1, i64 n1, i64 chunkLen1)
{
	__shared__ double loc[GP_THREADS];
	__shared__ double sh[GP_WARP];
	const i64 units = gp_chunks(n0, chunkLen0) + gp_chunks(n1, chunkLen1);
	for (i64 u = blockIdx.x; u < units; u += gridDim.x) {
		const GpScanUnit s = gp_scan_unit(u, n0, chunkLen0, n1, chunkLen1);
		const double *w = s.v ? w1 : w0;
		double t = 0.0, last = -1.0;
		for (i64 i = s.lo; i < s.hi; i++) {
			const double x = gp_max(w[i], 0.0);
			t += x;
			if (x > 0)
				last = (double)i;
		}
		loc[threadIdx.x] = t;
		last = gp_block_reduce1(OP_MAX, last, sh); // its barriers publish loc
		if (threadIdx.x == 0) {
			double total = 0.0;
			for (int k = 0; k < GP_THREADS; k++)
				total += loc[k];
			double *partial = s.v ? partial1 : partial0;
			partial[2 * s.b] = total;
			partial[2 * s.b + 1] = last;
		}
		__syncthreads(); // loc is rewritten by the next chunk
	}
}

// gpump_sample_scan_finish: the running sums S0 of max(w0, 0) and S1 of
// max(w1, 0) from the chunk records of gpump_sample_scan_partial, and
// info = {T0, last0, T1, last1}: each vector's total S_{n-1} and last index
// of positive weight (written by the block of its last chunk).
//   Arguments: s0 (n0), w0, partial0, n0, chunkLen0, s1 (n1), w1,
//              partial1, n1, chunkLen1, info (4).
//   Launch: as gpump_sample_scan_partial.   Bytes: reads (n0 + n1)*8 plus
//   the chunk records (from L2), writes (n0 + n1)*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_sample_scan_finish(
	double *__restrict__ s0, const double *__restrict__ w0, const double *__restrict__ partial0, i64 n0, i64 chunkLen0,
	double *__restrict__ s1, const double *__restrict__ w1, const double *__restrict__ partial1, i64 n1, i64 chunkLen1,
	double *__restrict__ info)
{
	__shared__ double excl[GP_THREADS];
	__shared__ double offset;
	__shared__ double sh[GP_WARP];
	const i64 units = gp_chunks(n0, chunkLen0) + gp_chunks(n1, chunkLen1);
	for (i64 u = blockIdx.x; u < units; u += gridDim.x) {
		const GpScanUnit s = gp_scan_unit(u, n0, chunkLen0, n1, chunkLen1);
		const double *w = s.v ? w1 : w0;
		const double *partial = s.v ? partial1 : partial0;
		double *S = s.v ? s1 : s0;
		const i64 n = s.v ? n1 : n0;
		double t = 0.0;
		for (i64 i = s.lo; i < s.hi; i++)
			t += gp_max(w[i], 0.0);
		excl[threadIdx.x] = t;
		__syncthreads();
		if (threadIdx.x == 0) {
			double e = 0.0;
			for (int k = 0; k < GP_THREADS; k++) {
				const double l = excl[k];
				excl[k] = e;
				e += l;
			}
			double o = 0.0;
			for (i64 c = 0; c < s.b; c++)
				o += partial[2 * c];
			offset = o;
		}
		__syncthreads();
		const double ex = excl[threadIdx.x], o = offset;
		double run = 0.0;
		for (i64 i = s.lo; i < s.hi; i++) {
			run += gp_max(w[i], 0.0);
			const double si = o + (ex + run);
			S[i] = si;
			if (i == n - 1)
				info[2 * s.v] = si;
		}
		if (s.b == s.chunks - 1) { // every thread of the block takes part
			const double last = gp_reduce_partials(OP_MAX, partial, s.chunks, 2, 1, sh);
			if (threadIdx.x == 0)
				info[2 * s.v + 1] = last;
		}
		__syncthreads(); // excl and offset are rewritten by the next chunk
	}
}

// gpump_sample_draw: idx[k] for k < 2b: the smallest i with u_k T < S_i
// (binary search; S = s0, T = info[0] for k < b, S = s1, T = info[2]
// otherwise), or the vector's last index of positive weight when rounding
// leaves none; -1 for every k of a vector whose total is not positive and
// finite (the sums then write NaN).
//   Arguments: idx (2b, int64), s0, n0, s1, n1, info, b, seed, counter
//              (the uint64 bits of tensorops.Draw).
//   Launch: kernels.SampleDraw (block 256, grid ceil(2b/256) capped).
//   Bytes: reads log2(n) S values per index, writes 2b*8.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_sample_draw(
	i64 *__restrict__ idx, const double *__restrict__ s0, i64 n0, const double *__restrict__ s1, i64 n1,
	const double *__restrict__ info, i64 b, i64 seed, i64 counter)
{
	GP_FOR_EACH(k, 2 * b)
	{
		const int v = k < b ? 0 : 1;
		const double *S = v ? s1 : s0;
		const i64 n = v ? n1 : n0;
		const double T = info[2 * v];
		i64 r = -1;
		if (T > 0 && T < gp_inf()) {
			const double x = gp_draw_uniform((unsigned long long)seed, (unsigned long long)counter,
							 (unsigned long long)k) * T;
			i64 lo = 0, hi = n;
			while (lo < hi) {
				const i64 mid = lo + (hi - lo) / 2;
				if (x < S[mid])
					hi = mid;
				else
					lo = mid + 1;
			}
			r = lo < n ? lo : (i64)info[2 * v + 1];
		}
		idx[k] = r;
	}
}

// gpump_sample_rows_{f32,f64}: dst_j = (sum_{k<b} A[idx[k], j]) / div for
// every column j of the row-major rows x cols A (k in order), NaN when
// idx[0] < 0. fq: A with the row indices and div = b; fp from a transposed
// copy: A^T with the column indices and div = -b.
//   Arguments: dst (cols), A, cols, idx (b), b, div.
//   Launch: kernels.Elementwise(cols).   Bytes: reads b*cols*s (the
//   sampled rows, coalesced), writes cols*8.
template <typename T>
__device__ __forceinline__ void gp_sample_rows(double *__restrict__ dst, const T *__restrict__ A, i64 cols,
					       const i64 *__restrict__ idx, i64 b, double div)
{
	const bool bad = idx[0] < 0;
	GP_FOR_EACH(j, cols)
	{
		double s = 0.0;
		for (i64 k = 0; k < b && !bad; k++)
			s += (double)A[idx[k] * cols + j];
		dst[j] = bad ? gp_nan() : s / div;
	}
}

// gpump_sample_cols_{f32,f64}: dst_i = (sum_{k<b} A[i, idx[k]]) / div for
// every row i of the row-major m x n A, NaN when idx[0] < 0: fp from the
// sampled columns without a transposed copy (div = -b). A warp per row:
// lane l takes k = l, l + 32, ..., then the xor butterfly. Each entry read
// is its own memory transaction: with a transposed copy, prefer
// gpump_sample_rows.
//   Arguments: dst (m), A, m, n, idx (b), b, div.
//   Launch: kernels.SampleCols(m) (block 256 = 8 warps, grid ceil(m/8)
//   capped).   Bytes: b*m entries, one sector each; writes m*8.
template <typename T>
__device__ __forceinline__ void gp_sample_cols(double *__restrict__ dst, const T *__restrict__ A, i64 m, i64 n,
					       const i64 *__restrict__ idx, i64 b, double div)
{
	const int lane = threadIdx.x & (GP_WARP - 1), warp = threadIdx.x / GP_WARP;
	const bool bad = idx[0] < 0;
	for (i64 i = (i64)blockIdx.x * GP_WARPS + warp; i < m; i += (i64)gridDim.x * GP_WARPS) {
		double s = 0.0;
		for (i64 k = lane; k < b && !bad; k += GP_WARP)
			s += (double)A[i * n + idx[k]];
		s = gp_warp_reduce(OP_SUM, s);
		if (lane == 0)
			dst[i] = bad ? gp_nan() : s / div;
	}
}

#define GP_SAMPLE_KERNELS(SUFFIX, T)                                                                              \
	extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_sample_rows_##SUFFIX(                     \
		double *__restrict__ dst, const T *__restrict__ A, i64 cols, const i64 *__restrict__ idx, i64 b, \
		double div)                                                                                      \
	{                                                                                                         \
		gp_sample_rows<T>(dst, A, cols, idx, b, div);                                                    \
	}                                                                                                         \
	extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_sample_cols_##SUFFIX(                     \
		double *__restrict__ dst, const T *__restrict__ A, i64 m, i64 n, const i64 *__restrict__ idx,    \
		i64 b, double div)                                                                               \
	{                                                                                                         \
		gp_sample_cols<T>(dst, A, m, n, idx, b, div);                                                    \
	}

GP_SAMPLE_KERNELS(f32, float)
GP_SAMPLE_KERNELS(f64, double)

// ---------------------------------------------------------------------------
// Batched kernels (tensorops.Batched): B games of one shape m x n, stored
// contiguously (game g's matrix at A + g*m*n, its vectors at v + g*len), of
// which a selection of `count` games is worked on. games (count int64, in
// [0, B), distinct) lists the selected games; per-game scalars (eta, alpha,
// beta, w, tiny) are device arrays indexed by the selection position s, not
// by the game. Unselected games are neither read nor written.
//
// A block per game: block b takes selection positions b, b + gridDim.x, ...
// and does all of a game's work itself, reductions included (one launch per
// operation, no partial buffers, no second stage). Every reduction of a game
// happens inside its block in a fixed order (the order of the single-game
// kernels with one chunk, one slice and one row block), so the grid changes
// speed, never the result. Launch: kernels.Batch (block 256, grid
// min(count, 32*SMs)); the elementwise copy and axpby take
// kernels.BatchElementwise. These kernels are meant for games small enough
// to live in L1/L2 (a game's whole pass is one block's work).
// ---------------------------------------------------------------------------

// gpump_batch_op_{fused,mulvec,multvec}_{f32,f64}: for every selected game
// g, one pass over its A (gp_op_unit with the whole matrix as one unit: warp
// w takes rows w, w + 8, ... of each 256-column tile, lanes 8 columns each;
// the row dots add up over the tiles in fp, the column sums are written
// once per tile to fq), then fp = sign (0 + fp) (fused: sign -1, mulvec +1).
//   Arguments: A (B*m*n), m, n, p (B*m; fused and multvec), q (B*n; fused and
//   mulvec), fp (B*m; fused and mulvec), fq (B*n; fused and multvec), games,
//   count. The pointers a kind does not use may be 0.
//   Launch: kernels.Batch(count). Shared memory: 16 KiB static (the kinds
//   with column sums).
//   Bytes: count*(m*n*s + (m + n)*8 read + (m + n)*8 written), rows written
//   once per 256-column tile and, beyond the first tile, read back (from L1/L2).
template <typename T, bool ROWS, bool COLS>
__device__ __forceinline__ void gp_batch_op(const T *__restrict__ A, i64 m, i64 n, const double *__restrict__ p,
					    const double *__restrict__ q, double *__restrict__ fp,
					    double *__restrict__ fq, const i64 *__restrict__ games, i64 count,
					    double (*red)[GP_TILE])
{
	const i64 tiles = (n + GP_TILE - 1) / GP_TILE;
	const double sign = COLS ? -1.0 : 1.0;
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 g = games[s];
		double *gfp = ROWS ? fp + g * m : nullptr;
		gp_op_unit<T, ROWS, COLS>(A + g * m * n, m, n, COLS ? p + g * m : nullptr, ROWS ? q + g * n : nullptr,
					  gfp, COLS ? fq + g * n : nullptr, 0, m, 0, tiles, 0, 0, red);
		if (ROWS) {
			__syncthreads(); // lane 0 of each warp wrote its rows
			for (i64 i = threadIdx.x; i < m; i += blockDim.x)
				gfp[i] = sign * (0.0 + gfp[i]);
		}
	}
}

#define GP_BATCH_OP_KERNEL(NAME, T, ROWS, COLS)                                                              \
	extern "C" __global__ void __launch_bounds__(GP_THREADS) NAME(                                      \
		const T *__restrict__ A, i64 m, i64 n, const double *__restrict__ p,                          \
		const double *__restrict__ q, double *__restrict__ fp, double *__restrict__ fq,               \
		const i64 *__restrict__ games, i64 count)                                                     \
	{                                                                                                     \
		__shared__ double red[COLS ? GP_WARPS : 1][GP_TILE];                                           \
		gp_batch_op<T, ROWS, COLS>(A, m, n, p, q, fp, fq, games, count, red);                          \
	}

GP_OP_KINDS(GP_BATCH_OP_KERNEL, gpump_batch_op_)

// gpump_batch_logprox: the entropic prox of every selected game (position
// s, game g): l = c - eta[s] gv into dstLog, lse = max l + log sum exp(l -
// max l) over the block, dstLog -= lse, dstProb = exp(dstLog) or 0 below
// log(1e-300) (gp_logprox_range and gp_logprox_store, as
// gpump_logprox_partial and gpump_logprox_finish with one chunk).
//   Arguments: dstLog, dstProb, c, g (each B*n), eta (count), n, games,
//   count. dstLog may alias c.
//   Launch: kernels.Batch(count).   Bytes: count*(2n*8 read + n*8 read
//   back from L1/L2 twice + 2n*8 written).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_logprox(
	double *dstLog, double *__restrict__ dstProb, const double *c, const double *__restrict__ g,
	const double *__restrict__ eta, i64 n, const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[GP_WARP];
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 o = games[s] * n;
		double mx, sum;
		gp_logprox_range(dstLog + o, c + o, g + o, eta[s], 0, n, sh, mx, sum);
		const double lse = mx + log(sum);
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			gp_logprox_store(dstLog + o, dstProb + o, i, lse);
	}
}

// gpump_batch_simplex_prox: the Euclidean simplex prox of every selected
// game: dst = projection of c - eta[s] g (gp_simplex_project, the algorithm
// of gpump_simplex_prox, by a block of 256 threads).
//   Arguments: dst, c, g (each B*n), eta (count), n, games, count.
//   Launch: kernels.Batch(count).   Bytes: count*(3 + rounds)*n*8, all but
//   the first pass from L1/L2.
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_simplex_prox(
	double *dst, const double *c, const double *g, const double *__restrict__ eta, i64 n,
	const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[GP_WARP];
	__shared__ i64 shc[GP_WARP];
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 o = games[s] * n;
		gp_simplex_project(dst + o, c + o, g + o, eta[s], n, sh, shc); // its reductions guard sh
	}
}

// gp_batch_stats_init sets the reductions and identities of a record whose
// simplex supports reduce with min and whose field [10] reduces with max
// (entropic) or a sum.
__device__ __forceinline__ void gp_batch_stats_init(bool entropic, int (&ops)[GP_REC], double (&v)[GP_REC])
{
#pragma unroll
	for (int k = 0; k < GP_REC; k++) {
		ops[k] = OP_SUM;
		v[k] = 0.0;
	}
	gp_set_ops(GP_SIMPLEX, ops, v);
	if (entropic)
		ops[10] = OP_MAX; // |g - m| >= 0: 0 is its identity, as in the partial kernel
}

// gpump_batch_proxstats_{entropic,euclidean}: ProxStats of one strategy
// block (on the simplex, no linear term) for every selected game: the
// record of gpump_proxstats_* over the whole game (thread t takes elements
// t, t + 256, ...; then the block tree), the new averages with weight
// fraction w[s], and the GP_OUT result words (gp_stats_result) written at
// out + s*outStride.
//   Arguments: out, outStride (doubles between two games' results: GP_OUT
//   times the strategy blocks), py, px, pyn, (entropic: ly, lx, lyn,) m, g,
//   ax, ag, nax, nag (each B*n), w (count), n, games, count.
//   Launch: kernels.Batch(count).   Bytes: count*(10n*8 read (entropic; 7n*8
//   Euclidean) + 2n*8 written + 80).
// gp_batch_stats is the loop of the batched ProxStats kernels: for each
// selected game (its vectors at offset o), elem(o, w[s], i, v) adds element
// i to the record v, the block reduces it, and thread 0 writes its result
// words of the given kind at out + s*outStride.
template <typename Elem>
__device__ __forceinline__ void gp_batch_stats(int kind, double *__restrict__ out, i64 outStride,
					       const double *__restrict__ w, i64 n, const i64 *__restrict__ games,
					       i64 count, double *sh, Elem elem)
{
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 o = games[s] * n;
		int ops[GP_REC];
		double v[GP_REC];
		gp_batch_stats_init(kind == GP_MODE_ENTROPIC, ops, v);
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			elem(o, w[s], i, v);
		gp_block_reduce<GP_REC>(v, ops, sh);
		if (threadIdx.x == 0)
			gp_stats_result(kind, GP_SIMPLEX, 0.0, v, out + s * outStride);
	}
}

extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_proxstats_entropic(
	double *__restrict__ out, i64 outStride,
	const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ ly, const double *__restrict__ lx, const double *__restrict__ lyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag,
	const double *__restrict__ w, i64 n, const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[GP_REC * GP_WARP];
	gp_batch_stats(GP_MODE_ENTROPIC, out, outStride, w, n, games, count, sh,
		       [&](i64 o, double ws, i64 i, double (&v)[GP_REC]) {
			       gp_proxstats_entropic(py + o, px + o, pyn + o, ly + o, lx + o, lyn + o, mv + o, g + o,
						     ax + o, ag + o, nax + o, nag + o, nullptr, ws, i, v);
		       });
}

extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_proxstats_euclidean(
	double *__restrict__ out, i64 outStride,
	const double *__restrict__ py, const double *__restrict__ px, const double *__restrict__ pyn,
	const double *__restrict__ mv, const double *__restrict__ g,
	const double *__restrict__ ax, const double *__restrict__ ag,
	double *__restrict__ nax, double *__restrict__ nag,
	const double *__restrict__ w, i64 n, const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[GP_REC * GP_WARP];
	gp_batch_stats(GP_MODE_EUCLIDEAN, out, outStride, w, n, games, count, sh,
		       [&](i64 o, double ws, i64 i, double (&v)[GP_REC]) {
			       gp_proxstats_euclidean(GP_SIMPLEX, py + o, px + o, pyn + o, mv + o, g + o, ax + o, ag + o,
						      nax + o, nag + o, nullptr, nullptr, nullptr, nullptr, ws, i, v);
		       });
}

// gpump_batch_average: Average of one strategy block (on the simplex, no
// linear term) for every selected game: the averages updated in place with
// weight fraction w[s] (ax, ag may be 0: skipped; x is read only with ax),
// the supports of g and of the new average of g, and the GP_OUT result
// words at out + s*outStride (MinAvgG NaN without ag).
//   Arguments: out, outStride, x (may be 0 without ax), g, ax, ag (each
//   B*n), w (count), n, games, count.
//   Launch: kernels.Batch(count).   Bytes: count*(n*8 + 3n*8 per average
//   read and written + 80).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_average(
	double *__restrict__ out, i64 outStride, const double *__restrict__ x, const double *__restrict__ g,
	double *__restrict__ ax, double *__restrict__ ag, const double *__restrict__ w, i64 n,
	const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[6 * GP_WARP];
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 o = games[s] * n;
		int ops[6] = {OP_MIN, OP_MIN, OP_SUM, OP_SUM, OP_SUM, OP_SUM};
		double v[6] = {0, 0, 0, 0, 0, 0};
		gp_set_ops(GP_SIMPLEX, ops, v);
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			gp_average(GP_SIMPLEX, x ? x + o : x, g + o, ax ? ax + o : ax, ag ? ag + o : ag, nullptr, nullptr,
				   nullptr, nullptr, w[s], i, v);
		gp_block_reduce<6>(v, ops, sh);
		if (threadIdx.x == 0) {
			double rec[GP_REC] = {v[0], v[1], v[2], v[3], v[4], v[5], 0, 0, 0, 0, 0, 0};
			gp_stats_result(ag ? GP_MODE_AVERAGE : GP_MODE_CURRENT, GP_SIMPLEX, 0.0, rec, out + s * outStride);
		}
	}
}

// gpump_batch_rm: one regret-matching+ update (tensorops.RegretMatch) of
// every selected game, all three steps in its block: v = sign[s] <x, u>
// (fma chain per thread, then the block tree), r = max(r + rho, 0) and the
// sum of the numerators (gp_rm_update), then, unless that sum is at most
// tiny[s], x = numerators / sum. The sign is per game: it carries the
// game's scaling of its utilities.
//   Arguments: x, r, u (each B*n), sign (count), tiny (count), predictive
//   (0 or 1), n, games, count.
//   Launch: kernels.Batch(count).   Bytes: count*(2n*8 + 2n*8 read, r and
//   x written: 2n*8; the later reads from L1/L2).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_rm(
	double *__restrict__ x, double *__restrict__ r, const double *__restrict__ u, const double *__restrict__ signs,
	const double *__restrict__ tiny, i64 predictive, i64 n, const i64 *__restrict__ games, i64 count)
{
	__shared__ double sh[GP_WARP];
	for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
		const i64 o = games[s] * n;
		const double sign = signs[s];
		double *gx = x + o, *gr = r + o;
		const double *gu = u + o;
		double d = 0.0;
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			d = fma(gx[i], gu[i], d);
		const double v = sign * gp_block_reduce1(OP_SUM, d, sh);
		double sum = 0.0;
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			sum += gp_rm_update(gr, gu, i, sign, v, predictive);
		sum = gp_block_reduce1(OP_SUM, sum, sh);
		if (!(sum > tiny[s]))
			continue; // the same decision in the whole block: x stays as it is
		for (i64 i = threadIdx.x; i < n; i += blockDim.x)
			gx[i] = gp_rm_numerator(gr, gu, i, sign, v, predictive) / sum;
	}
}

// gpump_batch_copy and gpump_batch_axpby: elementwise over the count*n
// elements of the selected games (a thread per element, grid stride;
// element e is element e mod n of game games[e / n]), not a block per game:
// no reduction, and small games would leave most of a block idle.
//   gpump_batch_copy: dst = src. Arguments: dst, src (each B*n), n, games,
//   count.   Bytes: count*n*16.
//   gpump_batch_axpby: dst = alpha[s] x + beta[s] y (dst may alias x or y).
//   Arguments: dst, alpha (count), x, beta (count), y, n, games, count.
//   Bytes: count*n*24.
//   Launch: kernels.BatchElementwise(count, n).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_copy(
	double *__restrict__ dst, const double *__restrict__ src, i64 n, const i64 *__restrict__ games, i64 count)
{
	GP_FOR_EACH(e, count * n)
	{
		const i64 s = e / n, o = games[s] * n + (e - s * n);
		dst[o] = src[o];
	}
}

extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_batch_axpby(
	double *dst, const double *__restrict__ alpha, const double *x, const double *__restrict__ beta,
	const double *y, i64 n, const i64 *__restrict__ games, i64 count)
{
	GP_FOR_EACH(e, count * n)
	{
		const i64 s = e / n, o = games[s] * n + (e - s * n);
		dst[o] = alpha[s] * x[o] + beta[s] * y[o];
	}
}

// ---- The payoff matrix of gan's mixed-strategy game (gan/payoff). ----
//
// Networks are MLPs whose float32 parameters lie flat, layer after layer
// (W row-major in×out, then b), one network every pstride floats. The
// evaluation is a layer at a time for all networks of a side:
// gpump_payoff_layer, then gpump_payoff_reduce for the matrix.

#define GP_LT 16 // side of a gpump_payoff_layer tile (16×16 = GP_THREADS)

// gpump_payoff_layer: for every network net < nets, row r < rows and unit
// c < out: y[net*ystride + r*out + c] = act(b[c] + Σ_i x[net*xstride +
// r*in + i]·W[i*out + c]), W = params + net*pstride + woff, b = W + in*out;
// act 1 is tanh, 0 none. xstride 0 feeds every network the same rows.
// A block takes 16×16 tiles of (rows, units) of one network (a thread
// each), the grid striding over (network, row tile, unit tile); the inner
// dimension goes through shared memory 16 at a time. Each output is one
// thread's sum in a fixed order: deterministic.
//   Arguments: nets, rows, in, out, x, xstride, params, pstride, woff, y,
//   ystride, act.
//   Bytes: about nets*(rows*(in+out) + in*out)*4 per pass of the tiles.
//   Launch: kernels.PayoffLayer(nets, rows, out).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_payoff_layer(
	i64 nets, i64 rows, i64 in, i64 out, const float *__restrict__ x, i64 xstride,
	const float *__restrict__ params, i64 pstride, i64 woff, float *__restrict__ y, i64 ystride, i64 act)
{
	__shared__ float xs[GP_LT][GP_LT + 1];
	__shared__ float ws[GP_LT][GP_LT + 1];
	const i64 rt = (rows + GP_LT - 1) / GP_LT, ct = (out + GP_LT - 1) / GP_LT;
	const int tr = threadIdx.x / GP_LT, tc = threadIdx.x % GP_LT;
	for (i64 u = blockIdx.x; u < nets * rt * ct; u += gridDim.x) {
		const i64 net = u / (rt * ct), rem = u - net * (rt * ct);
		const i64 r0 = rem / ct * GP_LT, c0 = rem % ct * GP_LT;
		const float *xn = x + net * xstride;
		const float *w = params + net * pstride + woff;
		float acc = 0;
		for (i64 k0 = 0; k0 < in; k0 += GP_LT) {
			const i64 xr = r0 + tr, xk = k0 + tc, wk = k0 + tr, wc = c0 + tc;
			xs[tr][tc] = xr < rows && xk < in ? xn[xr * in + xk] : 0.0f;
			ws[tr][tc] = wk < in && wc < out ? w[wk * out + wc] : 0.0f;
			__syncthreads();
#pragma unroll
			for (int k = 0; k < GP_LT; k++)
				acc = fmaf(xs[tr][k], ws[k][tc], acc);
			__syncthreads();
		}
		const i64 r = r0 + tr, c = c0 + tc;
		if (r < rows && c < out) {
			float v = acc + w[in * out + c];
			y[net * ystride + r * out + c] = act ? tanhf(v) : v;
		}
	}
}

// softplus log(1 + e^t) without overflow.
__device__ __forceinline__ double gp_softplus(double t) { return (t > 0 ? t : 0) + log1p(exp(-fabs(t))); }

// gpump_payoff_reduce: the K×J payoff matrix from the discriminators'
// outputs o (J blocks of (K+1)*B: the real batch, then generator k's batch
// at rows (k+1)*B): m[k*J + j] = mean_b f_r(o_j[b]) − mean_b
// f_f(o_j[(k+1)*B + b]), with f_r(t) = −softplus(−t), f_f(t) = softplus(t)
// for the log loss (logloss 1) and f_r = f_f = identity for the WGAN
// critic. A block per entry (grid stride), sums in float64 in a fixed
// order: deterministic.
//   Arguments: k, j, b, o, logloss, m.
//   Bytes: k*j*2*b*4 + k*j*8.
//   Launch: kernels.PayoffReduce(k, j).
extern "C" __global__ void __launch_bounds__(GP_THREADS) gpump_payoff_reduce(
	i64 k, i64 j, i64 b, const float *__restrict__ o, i64 logloss, double *__restrict__ m)
{
	__shared__ double sh[2 * GP_WARP];
	const int ops[2] = {OP_SUM, OP_SUM};
	for (i64 u = blockIdx.x; u < k * j; u += gridDim.x) {
		const i64 g = u / j, d = u - g * j;
		const float *od = o + d * (k + 1) * b;
		double v[2] = {0, 0};
		for (i64 i = threadIdx.x; i < b; i += blockDim.x) {
			const double tr = od[i], tf = od[(g + 1) * b + i];
			v[0] += logloss ? -gp_softplus(-tr) : tr;
			v[1] += logloss ? gp_softplus(tf) : tf;
		}
		gp_block_reduce<2>(v, ops, sh);
		if (threadIdx.x == 0)
			m[u] = (v[0] - v[1]) / (double)b;
	}
}
