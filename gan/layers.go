package gan

import (
	"fmt"

	"github.com/gpump/gpump/internal/sgemm"
)

// Layers is the backend contract of the batched operator: each method runs
// one dense layer of n networks of the same shape at once, so that a
// round's gradients take one call per layer for all particles (one kernel
// launch on a device) instead of one graph node per particle and layer.
//
// Every matrix is row-major float32. The networks' weights w are n blocks
// of in×out and their biases b n blocks of out. A batched matrix of rows
// (x, y, dy, dx) is n blocks of rows×cols, block i starting at i·rows·cols;
// x is read at i·xStride instead, so that a stride of 0 shares one input
// among all networks. Implementations panic on short slices.
type Layers interface {
	// Forward sets y_i = act(x_i·w_i + b_i) (rows×out), act tanh or the
	// identity.
	Forward(n, rows, in, out int, x []float32, xStride int, w, b []float32, tanh bool, y []float32)
	// Backward sets dx_i = dy_i·w_iᵀ (rows×in), the gradient of a layer's
	// input from that of its pre-activation output.
	Backward(n, rows, in, out int, dy, w, dx []float32)
	// Grad sets dw_i = x_iᵀ·dy_i (in×out) and db_i = Σ_r dy_i[r] (out),
	// the gradients of a layer's weights and bias.
	Grad(n, rows, in, out int, x []float32, xStride int, dy, dw, db []float32)
}

// cpuLayers implements Layers on the float32 kernels of internal/sgemm,
// one network after another; its buffers are kept between calls, so a
// call of the sizes of an earlier one allocates nothing.
type cpuLayers struct {
	p    sgemm.Panels
	t    []float32 // a transposed operand
	zero []float32 // a zero bias
}

// NewCPULayers returns the CPU's implementation of Layers, on the float32
// kernels the payoff matrix uses (AVX-512, AVX2 or portable Go, as
// GPUMP_KERNELS selects). It is not safe for concurrent use.
func NewCPULayers() Layers { return &cpuLayers{} }

func (c *cpuLayers) Forward(n, rows, in, out int, x []float32, xStride int, w, b []float32, tanh bool, y []float32) {
	checkLayer("Forward", n, rows, in, out, len(x), xStride, rows*in, len(w), len(b), len(y), rows*out)
	act := sgemm.Identity
	if tanh {
		act = sgemm.Tanh
	}
	for i := range n {
		c.p.Pack(in, out, w[i*in*out:], out, b[i*out:])
		sgemm.Gemm(rows, x[i*xStride:], in, &c.p, act, y[i*rows*out:], out)
	}
}

func (c *cpuLayers) Backward(n, rows, in, out int, dy, w, dx []float32) {
	checkLayer("Backward", n, rows, in, out, len(dy), rows*out, rows*out, len(w), n*out, len(dx), rows*in)
	c.t, c.zero = grow32(c.t, in*out), grow32(c.zero, max(in, out))
	clear(c.zero)
	for i := range n {
		wi := w[i*in*out : (i+1)*in*out]
		for r := range in {
			for s := range out {
				c.t[s*in+r] = wi[r*out+s]
			}
		}
		c.p.Pack(out, in, c.t, in, c.zero)
		sgemm.Gemm(rows, dy[i*rows*out:], out, &c.p, sgemm.Identity, dx[i*rows*in:], in)
	}
}

func (c *cpuLayers) Grad(n, rows, in, out int, x []float32, xStride int, dy, dw, db []float32) {
	checkLayer("Grad", n, rows, in, out, len(x), xStride, rows*in, len(dw), len(db), len(dy), rows*out)
	c.t, c.zero = grow32(c.t, in*rows), grow32(c.zero, max(in, out))
	clear(c.zero)
	for i := range n {
		// A shared input is transposed once.
		if i == 0 || xStride != 0 {
			xi := x[i*xStride:]
			for r := range rows {
				for s := range in {
					c.t[s*rows+r] = xi[r*in+s]
				}
			}
		}
		dyi := dy[i*rows*out : (i+1)*rows*out]
		c.p.Pack(rows, out, dyi, out, c.zero)
		sgemm.Gemm(in, c.t, rows, &c.p, sgemm.Identity, dw[i*in*out:], out)
		dbi := db[i*out : (i+1)*out]
		clear(dbi)
		for r := range rows {
			for s, v := range dyi[r*out : (r+1)*out] {
				dbi[s] += v
			}
		}
	}
}

// checkLayer panics unless a layer call's slices hold its n networks: the
// batched x (length lx, stride xs, block xb), the weights (lw), the biases
// or their gradients (lb) and the batched output (ly, block yb).
func checkLayer(op string, n, rows, in, out, lx, xs, xb, lw, lb, ly, yb int) {
	if n < 1 || rows < 1 || in < 1 || out < 1 || xs < 0 || lx < (n-1)*xs+xb || lw < n*in*out || lb < n*out || ly < n*yb {
		panic(fmt.Sprintf("gan: Layers.%s of %d networks of %d rows, %d×%d, with slices of %d (stride %d), %d, %d and %d", op, n, rows, in, out, lx, xs, lw, lb, ly))
	}
}

// grow32 returns s resliced to n, or a new slice if s is too short.
func grow32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
