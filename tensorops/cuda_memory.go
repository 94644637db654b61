//go:build cuda

package tensorops

import (
	"fmt"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/kernels"
)

// The CUDA backend's memory: its vectors and matrices, their allocation,
// placement and freeing, and the copies between host and device (Load,
// Store). The operations on them are in cuda_ops.go.

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
