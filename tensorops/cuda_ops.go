//go:build cuda

package tensorops

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/kernels"
)

// The Backend methods of CUDA. Each method's comment lists the kernels it
// launches with their launch shapes (from package kernels, for the device's
// attributes) and its host-device synchronizations. "Async" means the method
// only enqueues work and returns at once.
//
// Per mirror-prox iteration (solver/game.go: trial, accept, advance; the
// same sequence as Bench's iteration), with both blocks entropic:
//
//	Prox ×2 (x = P_y(ηm))        4 launches
//	Operator (g = F(x))          2 launches
//	Prox ×2 (y' = P_y(ηg))       4 launches
//	ProxStats (both blocks)      3 launches, 1 device-to-host copy of 160 bytes
//	Operator (m = F(y'), advance) 2 launches
//	total                        15 launches, 1 synchronization, no other copy
//
// with both blocks on the Euclidean simplex or on boxes: 11 launches (the
// prox is one launch); on balls: 15 (two per prox, as entropic); 1
// synchronization in every setup. An iteration of RM+ / PRM+ (solver/baselines.go): 2 ×
// RegretMatch (3 launches each), MulTVec and MulVec (2 each), Axpby (1),
// Average (3 launches, 1 copy): 14 launches, 1 synchronization. The Copy of
// an improved certified point (solver: keep) adds a device-to-device copy on
// the iterations that improve it. With the sampled oracle each operator
// evaluation is SampledOperator (5 launches, no copy): 21 launches per
// entropic iteration, 1 synchronization.

// cudaVector is the CUDA backend's Vector: n float64 in device memory, with
// the launch shapes of the kernels that run over it (fixed by n and the
// device, computed once).
type cudaVector struct {
	w     *cudaWorker
	ptr   cu.DevicePtr // 0 for n == 0 and once freed
	n     int
	freed bool
	vs    kernels.VectorShape // chunked kernels (n ≥ 1)
	el    kernels.Launch      // elementwise kernels
	sx    kernels.Launch      // gpump_simplex_prox
	// root is the vector a view (GameVector) lies in, nil for a vector
	// that owns its memory; views caches a root's views by (offset, n).
	root  *cudaVector
	views map[[2]int]*cudaVector
}

func (v *cudaVector) Len() int { return v.n }

// cudaMatrix is a payoff matrix in device memory with the partial buffers
// of its passes (kernels.OpShape: GX·m and GY·n float64, both allocated so
// that every kind of pass can run).
type cudaMatrix struct {
	w                   *cudaWorker
	m, n                int
	dt                  kernels.Dtype
	a, rowPart, colPart cu.DevicePtr
	op                  kernels.OpShape
	freed               bool
	// batch is the batch a view (GameMatrix) lies in, nil for a matrix
	// that owns its memory.
	batch *cudaBatchMatrix
}

func (a *cudaMatrix) Dims() (m, n int) { return a.m, a.n }

func (a *cudaMatrix) Precision() Precision {
	if a.dt == kernels.F32 {
		return Float32
	}
	return Float64
}

// vec unwraps a vector of this backend; anything else panics.
func (c *CUDA) vec(v Vector) *cudaVector {
	cv, ok := v.(*cudaVector)
	if !ok || cv == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CUDA vector", v))
	}
	if cv.w != c.w {
		panic("tensorops: cuda: vector of another CUDA backend")
	}
	if cv.freed || cv.root != nil && cv.root.freed {
		panic("tensorops: cuda: use of a freed vector")
	}
	return cv
}

// vecN is vec with a length check.
func (c *CUDA) vecN(v Vector, n int, op string) *cudaVector {
	cv := c.vec(v)
	if cv.n != n {
		panic("tensorops: " + op + " length mismatch")
	}
	return cv
}

// optVecN is vecN for a vector that may be nil (pointer 0).
func (c *CUDA) optVecN(v Vector, n int, op string) cu.DevicePtr {
	if v == nil {
		return 0
	}
	return c.vecN(v, n, op).ptr
}

// mat unwraps a matrix of this backend.
func (c *CUDA) mat(a Matrix) *cudaMatrix {
	ca, ok := a.(*cudaMatrix)
	if !ok || ca == nil {
		panic(fmt.Sprintf("tensorops: %T is not a CUDA matrix", a))
	}
	if ca.w != c.w {
		panic("tensorops: cuda: matrix of another CUDA backend")
	}
	if ca.freed || ca.batch != nil && ca.batch.freed {
		panic("tensorops: cuda: use of a freed matrix")
	}
	return ca
}

// distinct panics unless the written pointers differ from each other and
// from the read ones: the kernels declare them __restrict__.
func distinct(op string, written []cu.DevicePtr, read ...cu.DevicePtr) {
	for i, w := range written {
		for _, o := range written[i+1:] {
			if w == o {
				panic("tensorops: " + op + ": two outputs are the same vector")
			}
		}
		for _, r := range read {
			if w == r {
				panic("tensorops: " + op + ": an output aliases an input")
			}
		}
	}
}

// NewMatrix copies a row-major float64 or float32 tensor to the device (see
// CheckMatrix for what it accepts) and allocates the partial buffers of its
// passes. Synchronous: three cuMemAlloc and one cuMemcpyHtoD of m·n·4 or
// m·n·8 bytes; no kernel. An allocation that fails says how many bytes it
// asked and how many are free.
func (c *CUDA) NewMatrix(t *tensor.Dense) (Matrix, error) {
	m, n, err := CheckMatrix(t)
	if err != nil {
		return nil, err
	}
	dt, host := hostMatrix(t)
	a, err := c.newMatrix(m, n, dt)
	if err != nil {
		return nil, err
	}
	if err := c.upload(a, host); err != nil {
		c.Free(a)
		return nil, err
	}
	runtime.KeepAlive(t)
	return a, nil
}

// hostMatrix returns the storage type and the first element of a tensor
// CheckMatrix accepted.
func hostMatrix(t *tensor.Dense) (kernels.Dtype, unsafe.Pointer) {
	switch d := t.Data().(type) {
	case []float64:
		return kernels.F64, unsafe.Pointer(&d[0])
	case []float32:
		return kernels.F32, unsafe.Pointer(&d[0])
	}
	panic("tensorops: cuda: a matrix CheckMatrix accepted holds neither float64 nor float32")
}

// newMatrix allocates an m×n matrix of type dt and the partial buffers of
// its passes (three cuMemAlloc), its entries undefined.
func (c *CUDA) newMatrix(m, n int, dt kernels.Dtype) (*cudaMatrix, error) {
	return c.newMatrices(1, m, n, dt, "payoff matrix")
}

// newMatrices is newMatrix for b matrices of m×n stored one after the
// other from a.a (a batch: what names them in errors), with the partial
// buffers of one pass.
func (c *CUDA) newMatrices(b, m, n int, dt kernels.Dtype, what string) (*cudaMatrix, error) {
	a := &cudaMatrix{w: c.w, m: m, n: n, dt: dt}
	var err error
	if a.op, err = kernels.Op(int64(m), int64(n), a.dt, c.kdev); err != nil {
		return nil, fmt.Errorf("tensorops: cuda: %w", err)
	}
	bytes := int64(b) * a.bytes()
	err = c.do(func() error {
		var err error
		defer func() {
			if err != nil {
				for _, p := range []cu.DevicePtr{a.a, a.rowPart, a.colPart} {
					if p != 0 {
						cu.MemFree(p)
					}
				}
			}
		}()
		if a.a, err = cu.MemAlloc(bytes); err != nil {
			err = allocErr(err, bytes, fmt.Sprintf("a %d×%d %v %s", m, n, a.dt, what))
			return err
		}
		if a.rowPart, err = cu.MemAlloc(8 * a.op.RowPartialLen); err != nil {
			err = allocErr(err, 8*a.op.RowPartialLen, fmt.Sprintf("the row partial sums of a %d×%d pass", m, n))
			return err
		}
		if a.colPart, err = cu.MemAlloc(8 * a.op.ColPartialLen); err != nil {
			err = allocErr(err, 8*a.op.ColPartialLen, fmt.Sprintf("the column partial sums of a %d×%d pass", m, n))
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// bytes returns the size of the entries in bytes.
func (a *cudaMatrix) bytes() int64 { return a.op.M * a.op.N * a.dt.Size() }

// upload copies the entries at host into a: one synchronous cuMemcpyHtoD
// (ordered after the work in flight).
func (c *CUDA) upload(a *cudaMatrix, host unsafe.Pointer) error {
	return c.htod(a.a, host, a.bytes(), false)
}

// htod copies bytes at host to dst: one synchronous cuMemcpyHtoD (ordered
// after the work in flight). With pend, an error is kept for the next
// synchronization point instead of returned.
func (c *CUDA) htod(dst cu.DevicePtr, host unsafe.Pointer, bytes int64, pend bool) error {
	c.check()
	c.w.ch <- cudaCmd{kind: cmdHtoD, dst: dst, host: host, bytes: bytes, pend: pend}
	return <-c.w.done
}

// SetMatrix copies src's entries into dst's device memory. Synchronous: one
// cuMemcpyHtoD of m·n·4 or m·n·8 bytes, which waits for the kernels in
// flight; no allocation, no kernel. The cached launch shapes stay valid
// (same shape).
func (c *CUDA) SetMatrix(dst Matrix, src *tensor.Dense) error {
	a := c.mat(dst)
	m, n, err := CheckMatrix(src)
	if err != nil {
		return err
	}
	if m != a.m || n != a.n {
		return fmt.Errorf("tensorops: SetMatrix: a %d×%d tensor for a %d×%d matrix", m, n, a.m, a.n)
	}
	dt, host := hostMatrix(src)
	if dt != a.dt {
		return fmt.Errorf("tensorops: SetMatrix: a %v tensor for a %v matrix", src.Dtype(), a.Precision())
	}
	err = c.upload(a, host)
	runtime.KeepAlive(src)
	return err
}

// Transpose allocates an n×m matrix (three cuMemAlloc, synchronous) and
// fills it on the device: gpump_transpose_{f32,f64} with
// kernels.Transpose(m, n) (block 256, grid min(tiles of 32×32, 32·SMs)),
// async. No host copy.
func (c *CUDA) Transpose(am Matrix) (Matrix, error) {
	a := c.mat(am)
	t, err := c.newMatrix(a.n, a.m, a.dt)
	if err != nil {
		return nil, err
	}
	sh, err := kernels.Transpose(int64(a.m), int64(a.n), c.kdev)
	if err != nil {
		c.Free(t)
		return nil, fmt.Errorf("tensorops: cuda: %w", err)
	}
	l := c.newLaunch(c.w.k.transpose[a.dt], sh)
	l.ptr(t.a).ptr(a.a).i64(int64(a.m)).i64(int64(a.n))
	c.submit(&l)
	return t, nil
}

// NewVector allocates n zeroed float64 on the device. Synchronous:
// cuMemAlloc and cuMemsetD32; no kernel. A zero-length vector allocates
// nothing.
func (c *CUDA) NewVector(n int) (Vector, error) {
	if n < 0 {
		return nil, fmt.Errorf("tensorops: negative vector length %d", n)
	}
	c.check()
	v := &cudaVector{w: c.w, n: n}
	if n == 0 {
		return v, nil
	}
	if err := c.shapeVector(v); err != nil {
		return nil, err
	}
	bytes := 8 * int64(n)
	err := c.do(func() error {
		p, err := cu.MemAlloc(bytes)
		if err != nil {
			return allocErr(err, bytes, fmt.Sprintf("a vector of %d float64", n))
		}
		if err := cu.MemsetD32(p, 0, 2*int64(n)); err != nil {
			cu.MemFree(p)
			return cuErr("cuMemsetD32", err)
		}
		v.ptr = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// shapeVector computes the launch shapes of v (v.n ≥ 1).
func (c *CUDA) shapeVector(v *cudaVector) error {
	var err error
	if v.vs, err = kernels.Vector(int64(v.n), c.kdev); err != nil {
		return fmt.Errorf("tensorops: cuda: %w", err)
	}
	if v.el, err = kernels.Elementwise(int64(v.n), c.kdev); err != nil {
		return fmt.Errorf("tensorops: cuda: %w", err)
	}
	if v.sx, err = kernels.Simplex(int64(v.n), c.kdev); err != nil {
		return fmt.Errorf("tensorops: cuda: %w", err)
	}
	if v.vs.WorkspaceLen() > cudaWorkspaceLen {
		panic("tensorops: cuda: workspace too small for the chunking of package kernels")
	}
	return nil
}

// Free releases vectors, matrices, batch matrices and selections of this
// backend (nil entries, ones already freed and views are skipped; anything
// else panics). Synchronous:
// cuMemFree (which waits for the kernels using the memory); an error is
// reported by the next synchronization point. After Close it only marks
// them freed: destroying the context released their memory.
func (c *CUDA) Free(xs ...any) {
	var ptrs []cu.DevicePtr
	for _, x := range xs {
		switch v := x.(type) {
		case nil:
		case *cudaVector:
			if v == nil || v.freed {
				continue
			}
			if v.w != c.w {
				panic("tensorops: cuda: Free of a vector of another CUDA backend")
			}
			if v.root != nil {
				continue // a view: its root owns the memory
			}
			if v.ptr != 0 {
				ptrs = append(ptrs, v.ptr)
			}
			v.freed, v.ptr = true, 0
		case *cudaMatrix:
			if v == nil || v.freed {
				continue
			}
			if v.w != c.w {
				panic("tensorops: cuda: Free of a matrix of another CUDA backend")
			}
			if v.batch != nil {
				continue // a view: its batch owns the memory
			}
			ptrs = append(ptrs, v.a, v.rowPart, v.colPart)
			v.freed, v.a, v.rowPart, v.colPart = true, 0, 0, 0
		case *cudaBatchMatrix, *cudaSelection:
			ptrs = c.freeBatched(ptrs, v)
		default:
			panic(fmt.Sprintf("tensorops: cuda: Free of a %T, not a vector or matrix of this backend", x))
		}
	}
	if len(ptrs) == 0 || c.closed {
		return
	}
	c.do(func() error {
		for _, p := range ptrs {
			if err := cu.MemFree(p); err != nil && c.w.pending == nil {
				c.w.pending = cuErr("cuMemFree", err)
			}
		}
		return nil
	})
}

// Load copies src into dst. Synchronous: one cuMemcpyHtoD of 8n bytes
// (ordered after the work in flight); no kernel.
func (c *CUDA) Load(dst Vector, src []float64) error {
	d := c.vecN(dst, len(src), "Load")
	if d.n == 0 {
		return nil
	}
	return c.htod(d.ptr, unsafe.Pointer(&src[0]), 8*int64(d.n), false)
}

// Store copies src into dst. The synchronization point: one cuMemcpyDtoH
// of 8n bytes, which waits for the work in flight; no kernel. It returns
// the first error since the previous synchronization point.
func (c *CUDA) Store(dst []float64, src Vector) error {
	s := c.vecN(src, len(dst), "Store")
	if s.n == 0 {
		return c.sync(nil, 0, 0)
	}
	return c.sync(unsafe.Pointer(&dst[0]), s.ptr, 8*int64(s.n))
}

// Copy sets dst = src. Async: one cuMemcpyDtoDAsync of 8n bytes on the
// default stream; no kernel, no synchronization.
func (c *CUDA) Copy(dst, src Vector) {
	d := c.vec(dst)
	s := c.vecN(src, d.n, "Copy")
	if d.n == 0 || d.ptr == s.ptr {
		return
	}
	c.check()
	c.w.ch <- cudaCmd{kind: cmdDtoD, dst: d.ptr, src: s.ptr, bytes: 8 * int64(d.n)}
}

// Axpby sets dst = alpha x + beta y. Async: gpump_axpby, Elementwise(n)
// (block 256, grid min(⌈n/256⌉, 32·SMs)).
func (c *CUDA) Axpby(dst Vector, alpha float64, x Vector, beta float64, y Vector) {
	d := c.vec(dst)
	xs, ys := c.vecN(x, d.n, "Axpby"), c.vecN(y, d.n, "Axpby")
	if d.n == 0 {
		return
	}
	l := c.newLaunch(c.w.k.axpby, d.el)
	l.ptr(d.ptr).f64(alpha).ptr(xs.ptr).f64(beta).ptr(ys.ptr).i64(int64(d.n))
	c.submit(&l)
}

// Operator sets fp = −A q and fq = Aᵀ p in one pass over A. Async, two
// launches: gpump_op_fused_{f32,f64} with OpShape.Pass (block 256, grid
// min(GX·GY, 32·SMs)) writing both partial buffers, then gpump_op_finish
// with OpShape.Finish (block 256, grid min(⌈m/32⌉ + ⌈n/32⌉, 32·SMs)) and
// sign −1.
func (c *CUDA) Operator(fp, fq Vector, a Matrix, p, q Vector) {
	am := c.mat(a)
	fpv, fqv := c.vecN(fp, am.m, "Operator"), c.vecN(fq, am.n, "Operator")
	pv, qv := c.vecN(p, am.m, "Operator"), c.vecN(q, am.n, "Operator")
	c.pass(kernels.Fused, am, fpv.ptr, fqv.ptr, pv.ptr, qv.ptr, -1)
}

// MulVec sets dst = A q. Async, two launches: gpump_op_mulvec_{f32,f64}
// with OpShape.Pass (row partials only), then gpump_op_finish with
// OpShape.Finish, sign +1 and no fq.
func (c *CUDA) MulVec(dst Vector, a Matrix, q Vector) {
	am := c.mat(a)
	d, qv := c.vecN(dst, am.m, "MulVec"), c.vecN(q, am.n, "MulVec")
	c.pass(kernels.MulVec, am, d.ptr, 0, 0, qv.ptr, 1)
}

// MulTVec sets dst = Aᵀ p. Async, two launches:
// gpump_op_multvec_{f32,f64} with OpShape.Pass (column partials only),
// then gpump_op_finish with OpShape.Finish and no fp.
func (c *CUDA) MulTVec(dst Vector, a Matrix, p Vector) {
	am := c.mat(a)
	d, pv := c.vecN(dst, am.n, "MulTVec"), c.vecN(p, am.m, "MulTVec")
	c.pass(kernels.MulTVec, am, 0, d.ptr, pv.ptr, 0, 1)
}

// pass launches one pass over A and its finish (fp or fq 0 to skip one).
func (c *CUDA) pass(kind kernels.OpKind, a *cudaMatrix, fp, fq, p, q cu.DevicePtr, sign float64) {
	s := &a.op
	rowPart, colPart := a.rowPart, a.colPart
	switch kind {
	case kernels.MulVec:
		colPart = 0 // not written; p is not read
	case kernels.MulTVec:
		rowPart = 0 // not written; q is not read
	}
	l := c.newLaunch(c.w.k.op[kind][a.dt], s.Pass)
	l.ptr(a.a).i64(s.M).i64(s.N).ptr(p).ptr(q).ptr(rowPart).ptr(colPart).
		i64(s.RowsPerBlock).i64(s.TilesPerSlice).i64(s.GX).i64(s.GY)
	c.submit(&l)
	// The finish reads only the partials of the outputs it writes; both
	// buffers exist, so both pointers are always valid.
	f := c.newLaunch(c.w.k.opFinish, s.Finish)
	f.ptr(fp).ptr(a.rowPart).i64(s.GX).i64(s.M).f64(sign).
		ptr(fq).ptr(a.colPart).i64(s.GY).i64(s.N)
	c.submit(&f)
}

// Start sets dst to argmin R over the set. Async.
//   - Entropic: gpump_fill of 1/n into Value and of −log n into State,
//     Elementwise(n) each (2 launches). The constants are computed on the
//     host, so they are the CPU backend's bits.
//   - Euclidean: gpump_fill of 1/n (1 launch).
//   - Box: gpump_box_prox with c = 0, Elementwise(n): clip(0, Lo, Hi) (1
//     launch).
//   - Ball: a cuMemcpyDtoDAsync of Center (no kernel).
func (c *CUDA) Start(dst Point, s Set) {
	v := c.vec(dst.Value)
	n := v.n
	checkSet(&s, n, "Start")
	switch s.Setup {
	case Entropic:
		l := c.vecN(dst.State, n, "Start")
		if n == 0 {
			return
		}
		c.fill(v, 1/float64(n))
		c.fill(l, -math.Log(float64(n)))
	case Euclidean:
		if n == 0 {
			return
		}
		c.fill(v, 1/float64(n))
	case Box:
		lo, hi := c.vecN(s.Lo, n, "Start"), c.vecN(s.Hi, n, "Start")
		if n == 0 {
			return
		}
		distinct("Start", []cu.DevicePtr{v.ptr}, lo.ptr, hi.ptr)
		l := c.newLaunch(c.w.k.box, v.el)
		l.ptr(v.ptr).ptr(0).ptr(0).f64(0).ptr(lo.ptr).ptr(hi.ptr).i64(int64(n))
		c.submit(&l)
	case Ball:
		c.Copy(v, c.vecN(s.Center, n, "Start"))
	}
}

func (c *CUDA) fill(v *cudaVector, value float64) {
	l := c.newLaunch(c.w.k.fill, v.el)
	l.ptr(v.ptr).f64(value).i64(int64(v.n))
	c.submit(&l)
}

// Prox sets dst = P_center(eta g). Async.
//   - Entropic: gpump_logprox_partial (State = center.State − eta g, and per
//     chunk the max and the sum of exponentials into workspace 0), then
//     gpump_logprox_finish (log-sum-exp of the chunk records, normalized
//     State and its probabilities in Value); both with VectorShape(n)
//     (block 256, grid min(chunks, 32·SMs), chunks ≤ 1024). 2 launches.
//   - Euclidean: gpump_simplex_prox (projection of center − eta g onto the
//     simplex), one block of 1024 threads. 1 launch.
//   - Box: gpump_box_prox, Elementwise(n). 1 launch.
//   - Ball: gpump_ball_partial (d = center − eta g − Center into dst, per
//     chunk Σ d² into workspace 0), then gpump_ball_finish (dst = Center +
//     min(1, Radius/‖d‖) d); both with VectorShape(n). 2 launches.
func (c *CUDA) Prox(dst, center Point, g Vector, eta float64, s Set) {
	if s.Setup == Entropic {
		dl := c.vec(dst.State)
		n := dl.n
		dp := c.vecN(dst.Value, n, "Prox")
		cl := c.vecN(center.State, n, "Prox")
		gv := c.vecN(g, n, "Prox")
		if n == 0 {
			return
		}
		if dl.ptr == dp.ptr {
			panic("tensorops: Prox: entropic point with State and Value the same vector")
		}
		ws := c.w.ws[0]
		l := c.newLaunch(c.w.k.logProxPartial, dl.vs.Launch)
		l.ptr(ws).ptr(dl.ptr).ptr(cl.ptr).ptr(gv.ptr).f64(eta).i64(int64(n)).i64(dl.vs.ChunkLen)
		c.submit(&l)
		f := c.newLaunch(c.w.k.logProxFinish, dl.vs.Launch)
		f.ptr(dl.ptr).ptr(dp.ptr).ptr(ws).i64(int64(n)).i64(dl.vs.ChunkLen)
		c.submit(&f)
		return
	}
	d := c.vec(dst.Value)
	n := d.n
	cv := c.vecN(center.Value, n, "Prox")
	gv := c.vecN(g, n, "Prox")
	checkSet(&s, n, "Prox")
	lo, hi, o, _ := c.setPtrs(&s, n, "Prox")
	if n == 0 {
		return
	}
	distinct("Prox", []cu.DevicePtr{d.ptr}, lo, hi, o)
	switch s.Setup {
	case Euclidean:
		l := c.newLaunch(c.w.k.simplex, d.sx)
		l.ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).f64(eta).i64(int64(n))
		c.submit(&l)
	case Box:
		l := c.newLaunch(c.w.k.box, d.el)
		l.ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).f64(eta).ptr(lo).ptr(hi).i64(int64(n))
		c.submit(&l)
	case Ball:
		ws := c.w.ws[0]
		l := c.newLaunch(c.w.k.ballPartial, d.vs.Launch)
		l.ptr(ws).ptr(d.ptr).ptr(cv.ptr).ptr(gv.ptr).ptr(o).f64(eta).i64(int64(n)).i64(d.vs.ChunkLen)
		c.submit(&l)
		f := c.newLaunch(c.w.k.ballFinish, d.vs.Launch)
		f.ptr(d.ptr).ptr(o).ptr(ws).f64(s.Radius).i64(int64(n)).i64(d.vs.ChunkLen)
		c.submit(&f)
	}
}

// setPtrs returns the device pointers of a set's vectors (0 where the set
// has none, as the stats kernels take them) and its gpump_stats_finish mode
// bits. The set must have passed checkSet.
func (c *CUDA) setPtrs(s *Set, n int, op string) (lo, hi, o cu.DevicePtr, bits int64) {
	switch s.Setup {
	case Box:
		return c.vecN(s.Lo, n, op).ptr, c.vecN(s.Hi, n, op).ptr, 0, kernels.StatsSetBox
	case Ball:
		return 0, 0, c.vecN(s.Center, n, op).ptr, kernels.StatsSetBall
	}
	return 0, 0, 0, kernels.StatsSetSimplex
}

// statsBlocks prepares the device results for k strategy blocks: it grows
// the result buffer (outside the per-iteration path: only when a call has
// more blocks than any before) and returns the host copy to fill.
func (c *CUDA) statsBlocks(k int) ([]float64, error) {
	if k > c.w.outCap {
		if err := c.do(func() error { return c.w.growOut(k) }); err != nil {
			return nil, err
		}
	}
	return c.w.host[:k*kernels.StatsWords], nil
}

// statsFinish launches gpump_stats_finish for blocks j and j+1 (or j alone,
// when part[1].chunks is 0) into the result words of block j.
func (c *CUDA) statsFinish(j int, part [2]statsPart) {
	nb := 1
	if part[1].chunks > 0 {
		nb = 2
	}
	sl, _, err := kernels.Stats(nb)
	if err != nil {
		panic(err)
	}
	var ws1 cu.DevicePtr
	if nb == 2 {
		ws1 = c.w.ws[1]
	}
	out := c.w.out + cu.DevicePtr(j*kernels.StatsWords*8)
	l := c.newLaunch(c.w.k.statsFinish, sl)
	l.ptr(out).ptr(c.w.ws[0]).i64(part[0].chunks).i64(part[0].mode).f64(part[0].radius).
		ptr(ws1).i64(part[1].chunks).i64(part[1].mode).f64(part[1].radius)
	c.submit(&l)
}

// statsPart is what gpump_stats_finish needs of one block's first stage:
// its chunk count, its mode (record kind and set) and a ball's radius.
type statsPart struct {
	chunks, mode int64
	radius       float64
}

// runStats runs the launches and the synchronization point shared by
// ProxStats and Average on nb blocks, taken in pairs: partial(k, ws)
// launches the first stage of block k into workspace ws and returns what
// the finish needs of it, then gpump_stats_finish reduces the pair. It
// returns the host copy of the results, kernels.StatsWords per block. It
// does not keep partial, so the callers' closures stay on their stacks and
// the per-iteration path does not allocate.
func (c *CUDA) runStats(nb int, partial func(k int, ws cu.DevicePtr) statsPart) ([]float64, error) {
	h, err := c.statsBlocks(nb)
	if err != nil {
		return nil, err
	}
	for j := 0; j < nb; j += 2 {
		var part [2]statsPart
		for i := 0; i < 2 && j+i < nb; i++ {
			part[i] = partial(j+i, c.w.ws[i])
		}
		c.statsFinish(j, part)
	}
	if len(h) == 0 {
		return h, c.sync(nil, 0, 0)
	}
	if err := c.sync(unsafe.Pointer(&h[0]), c.w.out, 8*int64(len(h))); err != nil {
		return nil, err
	}
	return h, nil
}

// gapStats reads the GapStats words of one block's result.
func gapStats(r []float64) GapStats {
	return GapStats{MinG: r[kernels.StatMinG], MinAvgG: r[kernels.StatMinAvgG],
		LinX: r[kernels.StatLinX], LinAvgX: r[kernels.StatLinAvgX]}
}

// ProxStats computes the trial scalars and the candidate averages. Per
// pair of blocks (the solver has one pair): for each block,
// gpump_proxstats_entropic (Entropic) or gpump_proxstats_euclidean (the
// other setups, with the set's vectors) with VectorShape(n) (block 256,
// grid min(chunks, 32·SMs)), writing one record of 12 float64 per chunk
// into workspace 0 or 1 and the new averages; then gpump_stats_finish (grid
// = blocks of the pair, block 256) reducing the records into 10 float64 per
// block. Then the synchronization point: one cuMemcpyDtoH of 80 bytes per
// block. Two blocks: 3 launches, 1 copy.
func (c *CUDA) ProxStats(dst []BlockStats, w float64, blocks []ProxBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: ProxStats length mismatch")
	}
	// Check every block before launching anything.
	for k := range blocks {
		c.checkProxBlock(&blocks[k])
	}
	h, err := c.runStats(len(blocks), func(k int, ws cu.DevicePtr) statsPart {
		return c.proxStatsPartial(&blocks[k], w, ws)
	})
	if err != nil {
		return err
	}
	for k := range dst {
		dst[k] = blockStats(h[k*kernels.StatsWords:])
	}
	return nil
}

// blockStats reads the BlockStats words of one block's result.
func blockStats(r []float64) BlockStats {
	return BlockStats{
		GapStats: gapStats(r),
		DivXY:    r[kernels.StatDivXY], DivYX: r[kernels.StatDivYX],
		DistXY: r[kernels.StatDistXY], DistXYNew: r[kernels.StatDistXYNew],
		DualGM: r[kernels.StatDualGM], InnerGM: r[kernels.StatInnerGM],
	}
}

// checkProxBlock panics on a block the kernels cannot take: vectors of
// another backend, lengths that differ, an empty block, an invalid set,
// new averages aliasing an input.
func (c *CUDA) checkProxBlock(b *ProxBlock) {
	x := c.vec(b.X.Value)
	n := x.n
	if n == 0 {
		panic("tensorops: ProxStats on an empty block")
	}
	checkSet(&b.Set, n, "ProxStats")
	lo, hi, o, _ := c.setPtrs(&b.Set, n, "ProxStats")
	// Fixed arrays: the per-iteration path does not allocate.
	in := [14]cu.DevicePtr{
		c.vecN(b.Y.Value, n, "ProxStats").ptr, x.ptr, c.vecN(b.YNew.Value, n, "ProxStats").ptr,
		c.vecN(b.M, n, "ProxStats").ptr, c.vecN(b.G, n, "ProxStats").ptr,
		c.vecN(b.AvgX, n, "ProxStats").ptr, c.vecN(b.AvgG, n, "ProxStats").ptr,
		c.optVecN(b.Lin, n, "ProxStats"), lo, hi, o,
	}
	nin := 11
	if b.Set.Setup == Entropic {
		in[11] = c.vecN(b.Y.State, n, "ProxStats").ptr
		in[12] = c.vecN(b.X.State, n, "ProxStats").ptr
		in[13] = c.vecN(b.YNew.State, n, "ProxStats").ptr
		nin = 14
	}
	out := [2]cu.DevicePtr{c.vecN(b.NewAvgX, n, "ProxStats").ptr, c.vecN(b.NewAvgG, n, "ProxStats").ptr}
	distinct("ProxStats", out[:], in[:nin]...)
}

// proxStatsPartial launches the first stage of ProxStats for one block
// into workspace ws.
func (c *CUDA) proxStatsPartial(b *ProxBlock, w float64, ws cu.DevicePtr) statsPart {
	x := c.vec(b.X.Value)
	vs := &x.vs
	lo, hi, o, set := c.setPtrs(&b.Set, x.n, "ProxStats")
	p := statsPart{chunks: vs.Chunks, mode: kernels.StatsModeEuclidean | set, radius: b.Set.Radius}
	var l launch
	if b.Set.Setup == Entropic {
		l = c.newLaunch(c.w.k.proxStatsEnt, vs.Launch)
		l.ptr(ws).ptr(c.vec(b.Y.Value).ptr).ptr(x.ptr).ptr(c.vec(b.YNew.Value).ptr).
			ptr(c.vec(b.Y.State).ptr).ptr(c.vec(b.X.State).ptr).ptr(c.vec(b.YNew.State).ptr)
		p.mode = kernels.StatsModeEntropic | set
	} else {
		l = c.newLaunch(c.w.k.proxStatsEuc, vs.Launch)
		l.ptr(ws).ptr(c.vec(b.Y.Value).ptr).ptr(x.ptr).ptr(c.vec(b.YNew.Value).ptr)
	}
	l.ptr(c.vec(b.M).ptr).ptr(c.vec(b.G).ptr).ptr(c.vec(b.AvgX).ptr).ptr(c.vec(b.AvgG).ptr).
		ptr(c.vec(b.NewAvgX).ptr).ptr(c.vec(b.NewAvgG).ptr)
	if b.Set.Setup != Entropic {
		l.ptr(lo).ptr(hi).ptr(o)
	}
	l.ptr(c.optVecN(b.Lin, x.n, "ProxStats")).f64(w).i64(int64(x.n)).i64(vs.ChunkLen)
	c.submit(&l)
	return p
}

// Average updates the running averages in place and returns the gap
// quantities. Per pair of blocks: gpump_average_partial per block with
// VectorShape(n) (block 256, grid min(chunks, 32·SMs); averages and the
// linear term skipped where nil), then gpump_stats_finish (grid = blocks of
// the pair, block 256; MinAvgG NaN for a block without AvgG, as on the CPU).
// Then the synchronization point: one cuMemcpyDtoH of 80 bytes per block.
// Two blocks: 3 launches, 1 copy.
func (c *CUDA) Average(dst []GapStats, w float64, blocks []AvgBlock) error {
	if len(dst) != len(blocks) {
		panic("tensorops: Average length mismatch")
	}
	for k := range blocks {
		c.checkAvgBlock(&blocks[k])
	}
	h, err := c.runStats(len(blocks), func(k int, ws cu.DevicePtr) statsPart {
		return c.averagePartial(&blocks[k], w, ws)
	})
	if err != nil {
		return err
	}
	for k := range dst {
		dst[k] = gapStats(h[k*kernels.StatsWords:])
	}
	return nil
}

// averagePartial launches the first stage of Average for one block into
// workspace ws.
func (c *CUDA) averagePartial(b *AvgBlock, w float64, ws cu.DevicePtr) statsPart {
	g := c.vec(b.G)
	n := g.n
	x := c.optVecN(b.X, n, "Average")
	ax, ag := c.optVecN(b.AvgX, n, "Average"), c.optVecN(b.AvgG, n, "Average")
	lo, hi, o, set := c.setPtrs(&b.Set, n, "Average")
	p := statsPart{chunks: g.vs.Chunks, mode: kernels.StatsModeCurrent | set, radius: b.Set.Radius}
	if ag != 0 {
		p.mode = kernels.StatsModeAverage | set
	}
	l := c.newLaunch(c.w.k.avgPartial, g.vs.Launch)
	l.ptr(ws).ptr(x).ptr(g.ptr).ptr(ax).ptr(ag).ptr(lo).ptr(hi).ptr(o).ptr(c.optVecN(b.Lin, n, "Average")).
		f64(w).i64(int64(n)).i64(g.vs.ChunkLen)
	c.submit(&l)
	return p
}

// checkAvgBlock panics on a block the kernels cannot take.
func (c *CUDA) checkAvgBlock(b *AvgBlock) {
	g := c.vec(b.G)
	n := g.n
	if n == 0 {
		panic("tensorops: Average on an empty block")
	}
	if (b.AvgX != nil || b.Lin != nil) && b.X == nil {
		panic("tensorops: Average with AvgX or Lin and no X")
	}
	checkSet(&b.Set, n, "Average")
	lo, hi, o, _ := c.setPtrs(&b.Set, n, "Average")
	x, lin := c.optVecN(b.X, n, "Average"), c.optVecN(b.Lin, n, "Average")
	ax, ag := c.optVecN(b.AvgX, n, "Average"), c.optVecN(b.AvgG, n, "Average")
	out, nout := nonNull(ax, ag)
	distinct("Average", out[:nout], x, g.ptr, lin, lo, hi, o)
}

// nonNull returns the nonzero ones of two pointers, first first, and how
// many there are.
func nonNull(a, b cu.DevicePtr) ([2]cu.DevicePtr, int) {
	var out [2]cu.DevicePtr
	n := 0
	for _, p := range [2]cu.DevicePtr{a, b} {
		if p != 0 {
			out[n] = p
			n++
		}
	}
	return out, n
}

// RegretMatch performs one RM+ or PRM+ update. Async, three launches with
// VectorShape(n) (block 256, grid min(chunks, 32·SMs)): gpump_rm_dot
// (chunk sums of x·u into workspace 0), gpump_rm_update (v, the regrets r,
// and the chunk sums of the new numerators into workspace 1),
// gpump_rm_normalize (x = numerators / their sum, unless the sum is at
// most tiny). No synchronization: the "leave x unchanged" decision is taken
// on the device.
func (c *CUDA) RegretMatch(x, r, u Vector, sign, tiny float64, predictive bool) {
	xv := c.vec(x)
	n := xv.n
	rv, uv := c.vecN(r, n, "RegretMatch"), c.vecN(u, n, "RegretMatch")
	if n == 0 {
		return
	}
	distinct("RegretMatch", []cu.DevicePtr{xv.ptr, rv.ptr}, uv.ptr)
	pred := int64(0)
	if predictive {
		pred = 1
	}
	vs := &xv.vs
	dot, sum := c.w.ws[0], c.w.ws[1]
	l := c.newLaunch(c.w.k.rmDot, vs.Launch)
	l.ptr(dot).ptr(xv.ptr).ptr(uv.ptr).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
	l = c.newLaunch(c.w.k.rmUpdate, vs.Launch)
	l.ptr(rv.ptr).ptr(uv.ptr).ptr(dot).ptr(sum).f64(sign).i64(pred).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
	l = c.newLaunch(c.w.k.rmNormalize, vs.Launch)
	l.ptr(xv.ptr).ptr(rv.ptr).ptr(uv.ptr).ptr(dot).ptr(sum).f64(sign).f64(tiny).i64(pred).i64(int64(n)).i64(vs.ChunkLen)
	c.submit(&l)
}
