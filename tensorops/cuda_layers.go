//go:build cuda

package tensorops

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
)

// CUDALayers runs the dense layers of many small networks of one shape on
// the backend's device, one launch of gpump_payoff_layer per call for all
// the networks: the batched operator of package gan (gan.Layers, which it
// implements; gan.NewCUDALayers wraps it). Each call copies its operands in
// from host slices, staged so that the one kernel serves all three
// operations, and its result out:
//
//   - Forward, y_i = act(x_i·w_i + b_i): the weights and bias of each
//     network side by side, as the kernel reads a network's parameters;
//   - Backward, dx_i = dy_i·w_iᵀ: the transposed weights and a zero bias;
//   - Grad, dw_i = x_iᵀ·dy_i and db_i = Σ_r dy_i[r]: the transposed input
//     with a row of ones below it times dy_i, whose last row is db_i.
//
// The sums are float32 fma chains in index order, as on the CPU. Device
// buffers grow to the largest call and are kept, so calls of the sizes of
// an earlier one allocate nothing. It is not safe for concurrent use; it
// has run on CI's fake driver (the kernel run by a CPU emulator), never on
// a GPU.
type CUDALayers struct {
	c *CUDA
	// Device buffers and their capacities in floats: the staged input,
	// parameters and output of a call.
	x, p, y          cu.DevicePtr
	xCap, pCap, yCap int
	// Host staging.
	hx, hp, hy []float32
	first      error
	freed      bool
}

// NewLayers returns the device's batched layers; Free releases them.
func (c *CUDA) NewLayers() *CUDALayers {
	c.check()
	return &CUDALayers{c: c}
}

// Err returns the first error of the device work since the last call,
// nil if none: the calls themselves return nothing, as on the CPU.
func (l *CUDALayers) Err() error {
	err := l.first
	l.first = nil
	return err
}

func (l *CUDALayers) fail(err error) {
	if err != nil && l.first == nil {
		l.first = err
	}
}

// reserve makes the device buffers hold x, p and y floats.
func (l *CUDALayers) reserve(x, p, y int) bool {
	if l.freed {
		panic("tensorops: cuda: use of freed layers")
	}
	if x <= l.xCap && p <= l.pCap && y <= l.yCap {
		return true // the calls after the first of their sizes allocate nothing
	}
	bufs := []struct {
		ptr  *cu.DevicePtr
		cap  *int
		need int
		what string
	}{{&l.x, &l.xCap, x, "a layer's input"}, {&l.p, &l.pCap, p, "a layer's parameters"}, {&l.y, &l.yCap, y, "a layer's output"}}
	err := l.c.do(func() error {
		for _, b := range bufs {
			if b.need <= *b.cap {
				continue
			}
			if *b.ptr != 0 {
				if err := cu.MemFree(*b.ptr); err != nil {
					return cuErr("cuMemFree", err)
				}
				*b.ptr, *b.cap = 0, 0
			}
			bytes := 4 * int64(b.need)
			ptr, err := cu.MemAlloc(bytes)
			if err != nil {
				return allocErr(err, bytes, b.what)
			}
			*b.ptr, *b.cap = ptr, b.need
		}
		return nil
	})
	l.fail(err)
	return err == nil
}

// run copies hx and hp in, launches the kernel for n networks of a
// rows×in by in×out layer (input stride xstride, parameters every pstride,
// outputs every ystride) and copies ny floats of the output into hy.
func (l *CUDALayers) run(n, rows, in, out, xstride, pstride, ystride int, act bool, ny int) bool {
	if !l.reserve(len(l.hx), len(l.hp), ny) {
		return false
	}
	c := l.c
	if err := c.htod(l.x, unsafe.Pointer(&l.hx[0]), 4*int64(len(l.hx)), false); err != nil {
		l.fail(err)
		return false
	}
	if err := c.htod(l.p, unsafe.Pointer(&l.hp[0]), 4*int64(len(l.hp)), false); err != nil {
		l.fail(err)
		return false
	}
	shape, err := kernels.PayoffLayer(int64(n), int64(rows), int64(out), c.kdev)
	if err != nil {
		l.fail(fmt.Errorf("tensorops: cuda: %w", err))
		return false
	}
	a := int64(0)
	if act {
		a = 1
	}
	q := c.newLaunch(c.w.k.byName[kernels.PayoffLayerKernel], shape)
	q.i64(int64(n)).i64(int64(rows)).i64(int64(in)).i64(int64(out)).ptr(l.x).i64(int64(xstride)).
		ptr(l.p).i64(int64(pstride)).i64(0).ptr(l.y).i64(int64(ystride)).i64(a)
	c.submit(&q)
	l.hy = grow32(l.hy, ny)
	if err := c.sync(unsafe.Pointer(&l.hy[0]), l.y, 4*int64(ny)); err != nil {
		l.fail(err)
		return false
	}
	return true
}

// stageX copies the span of n inputs of rows×in every xStride (one when
// xStride is 0) into hx and returns the stride there.
func (l *CUDALayers) stageX(n, rows, in int, x []float32, xStride int) int {
	span := rows * in
	if xStride > 0 {
		span += (n - 1) * xStride
	}
	l.hx = grow32(l.hx, span)
	copy(l.hx, x[:span])
	return xStride
}

// Forward sets y_i = act(x_i·w_i + b_i) (rows×out) for the n networks,
// x_i = x[i·xStride:] (xStride 0: one input for all), act tanh or none.
func (l *CUDALayers) Forward(n, rows, in, out int, x []float32, xStride int, w, b []float32, tanh bool, y []float32) {
	checkLayers("Forward", n, rows, in, out, len(x), xStride, rows*in, len(w), len(b), len(y), rows*out)
	xs := l.stageX(n, rows, in, x, xStride)
	ps := in*out + out
	l.hp = grow32(l.hp, n*ps)
	for i := range n {
		copy(l.hp[i*ps:], w[i*in*out:(i+1)*in*out])
		copy(l.hp[i*ps+in*out:], b[i*out:(i+1)*out])
	}
	if l.run(n, rows, in, out, xs, ps, rows*out, tanh, n*rows*out) {
		copy(y, l.hy[:n*rows*out])
	}
}

// Backward sets dx_i = dy_i·w_iᵀ (rows×in).
func (l *CUDALayers) Backward(n, rows, in, out int, dy, w, dx []float32) {
	checkLayers("Backward", n, rows, in, out, len(dy), rows*out, rows*out, len(w), n*out, len(dx), rows*in)
	l.stageX(n, rows, out, dy, rows*out)
	ps := out*in + in
	l.hp = grow32(l.hp, n*ps)
	for i := range n {
		wi, ti := w[i*in*out:(i+1)*in*out], l.hp[i*ps:(i+1)*ps]
		for r := range in {
			for s := range out {
				ti[s*in+r] = wi[r*out+s]
			}
		}
		clear(ti[out*in:])
	}
	if l.run(n, rows, out, in, rows*out, ps, rows*in, false, n*rows*in) {
		copy(dx, l.hy[:n*rows*in])
	}
}

// Grad sets dw_i = x_iᵀ·dy_i (in×out) and db_i = Σ_r dy_i[r] (out).
func (l *CUDALayers) Grad(n, rows, in, out int, x []float32, xStride int, dy, dw, db []float32) {
	checkLayers("Grad", n, rows, in, out, len(x), xStride, rows*in, len(dw), len(db), len(dy), rows*out)
	// The kernel's input: x_iᵀ with a row of ones, (in+1)×rows, once for a
	// shared x.
	nx, xs := n, (in+1)*rows
	if xStride == 0 {
		nx, xs = 1, 0
	}
	l.hx = grow32(l.hx, nx*(in+1)*rows)
	for i := range nx {
		xi, ti := x[i*xStride:], l.hx[i*(in+1)*rows:(i+1)*(in+1)*rows]
		for r := range rows {
			for c := range in {
				ti[c*rows+r] = xi[r*in+c]
			}
		}
		for r := range rows {
			ti[in*rows+r] = 1
		}
	}
	// Its parameters: dy_i (rows×out) and a zero bias.
	ps := rows*out + out
	l.hp = grow32(l.hp, n*ps)
	for i := range n {
		copy(l.hp[i*ps:], dy[i*rows*out:(i+1)*rows*out])
		clear(l.hp[i*ps+rows*out : (i+1)*ps])
	}
	ys := (in + 1) * out
	if l.run(n, in+1, rows, out, xs, ps, ys, false, n*ys) {
		for i := range n {
			copy(dw[i*in*out:(i+1)*in*out], l.hy[i*ys:i*ys+in*out])
			copy(db[i*out:(i+1)*out], l.hy[i*ys+in*out:(i+1)*ys])
		}
	}
}

// Free releases the device buffers (synchronous); freeing twice is a
// no-op.
func (l *CUDALayers) Free() error {
	if l.freed {
		return nil
	}
	l.freed = true
	if l.c.closed {
		return nil
	}
	return l.c.do(func() error {
		var first error
		for _, d := range []cu.DevicePtr{l.x, l.p, l.y} {
			if d == 0 {
				continue
			}
			if err := cu.MemFree(d); err != nil && first == nil {
				first = cuErr("cuMemFree", err)
			}
		}
		return first
	})
}

// checkLayers panics unless a layer call's slices hold its n networks (as
// gan's CPU layers check).
func checkLayers(op string, n, rows, in, out, lx, xs, xb, lw, lb, ly, yb int) {
	if n < 1 || rows < 1 || in < 1 || out < 1 || xs < 0 || lx < (n-1)*xs+xb || lw < n*in*out || lb < n*out || ly < n*yb {
		panic(fmt.Sprintf("tensorops: cuda: Layers.%s of %d networks of %d rows, %d×%d, with slices of %d (stride %d), %d, %d and %d", op, n, rows, in, out, lx, xs, lw, lb, ly))
	}
}

func grow32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
