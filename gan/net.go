package gan

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/gpump/gpump/gan/payoff"
)

// Arch is the shape of a network: In inputs, two hidden layers of Hidden
// tanh units, Out linear outputs. Its parameters are held flat, layer after
// layer: W1 (In×Hidden, row-major), b1, W2 (Hidden×Hidden), b2, W3
// (Hidden×Out), b3; a layer maps a row x to x·W + b.
type Arch struct {
	In, Hidden, Out int
}

// NumParams is the length of the flat parameter vector.
func (a Arch) NumParams() int { return payoff.Net(a).NumParams() }

// layer is one affine map's place in the flat parameters.
type layer struct {
	in, out int
	w, b    int // offsets of W (in×out) and b (out)
}

// layers returns the three affine maps of a, in the layout package payoff
// reads.
func (a Arch) layers() [3]layer {
	var ls [3]layer
	for i, l := range payoff.Net(a).Layers() {
		ls[i] = layer{in: l.In, out: l.Out, w: l.W, b: l.B}
	}
	return ls
}

// initParams fills theta with Glorot-uniform weights and zero biases.
func (a Arch) initParams(theta []float64, rng *rand.Rand) {
	for _, l := range a.layers() {
		r := math.Sqrt(6 / float64(l.in+l.out))
		for i := l.w; i < l.b; i++ {
			theta[i] = r * (2*rng.Float64() - 1)
		}
		for i := l.b; i < l.b+l.out; i++ {
			theta[i] = 0
		}
	}
}

// gemm sets c = a·b + beta·c for row-major a (m×k, leading dimension lda),
// b (k×n, ldb) and c (m×n, ldc), through gonum's BLAS.
func gemm(m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

// stack is the float64 parameters of several networks of one Arch in the
// layout of a batched forward pass over all of them: the first layers' weights
// side by side (In × n·Hidden), so that one product maps a batch through
// every network's first layer, and the other layers' per network.
type stack struct {
	arch   Arch
	n      int
	w1, b1 []float64   // In × n·Hidden; n·Hidden
	w2, b2 [][]float64 // per network: Hidden×Hidden; Hidden
	w3, b3 [][]float64 // per network: Hidden×Out; Out
}

// newStack allocates a stack of n networks.
func newStack(a Arch, n int) *stack {
	s := &stack{arch: a, n: n, w1: make([]float64, a.In*n*a.Hidden), b1: make([]float64, n*a.Hidden)}
	for range n {
		s.w2 = append(s.w2, make([]float64, a.Hidden*a.Hidden))
		s.b2 = append(s.b2, make([]float64, a.Hidden))
		s.w3 = append(s.w3, make([]float64, a.Hidden*a.Out))
		s.b3 = append(s.b3, make([]float64, a.Out))
	}
	return s
}

// load copies the flat parameters of the networks into s.
func (s *stack) load(params [][]float64) {
	a, h := s.arch, s.arch.Hidden
	ls := a.layers()
	for k, theta := range params {
		for i := range a.In {
			for u := range h {
				s.w1[i*s.n*h+k*h+u] = theta[ls[0].w+i*h+u]
			}
		}
		copy(s.b1[k*h:(k+1)*h], theta[ls[0].b:ls[0].b+h])
		copy(s.w2[k], theta[ls[1].w:ls[1].b])
		copy(s.b2[k], theta[ls[1].b:ls[1].b+h])
		copy(s.w3[k], theta[ls[2].w:ls[2].b])
		copy(s.b3[k], theta[ls[2].b:ls[2].b+a.Out])
	}
}

// work is the scratch of a batched forward pass of a stack over rows
// inputs.
type work struct {
	h1 []float64 // rows × n·Hidden
	h2 []float64 // rows × Hidden
}

func (w *work) size(rows int, s *stack) {
	if need := rows * s.n * s.arch.Hidden; cap(w.h1) < need {
		w.h1 = make([]float64, need)
	}
	if need := rows * s.arch.Hidden; cap(w.h2) < need {
		w.h2 = make([]float64, need)
	}
	w.h1 = w.h1[:rows*s.n*s.arch.Hidden]
	w.h2 = w.h2[:rows*s.arch.Hidden]
}

// firstLayer computes tanh(x·W1 + b1) for every network at once into
// w.h1 (rows × n·Hidden); x is rows × In.
func (s *stack) firstLayer(w *work, x []float64, rows int) {
	nh := s.n * s.arch.Hidden
	w.size(rows, s)
	for r := range rows {
		copy(w.h1[r*nh:(r+1)*nh], s.b1)
	}
	gemm(rows, nh, s.arch.In, x, s.arch.In, s.w1, nh, 1, w.h1, nh)
	tanhInPlace(w.h1)
}

// rest maps network k's first hidden layer (in w.h1) through its other
// layers into out (rows × Out).
func (s *stack) rest(w *work, k, rows int, out []float64) {
	h, nh, o := s.arch.Hidden, s.n*s.arch.Hidden, s.arch.Out
	for r := range rows {
		copy(w.h2[r*h:(r+1)*h], s.b2[k])
	}
	gemm(rows, h, h, w.h1[k*h:], nh, s.w2[k], h, 1, w.h2, h)
	tanhInPlace(w.h2)
	for r := range rows {
		copy(out[r*o:(r+1)*o], s.b3[k])
	}
	gemm(rows, o, h, w.h2, h, s.w3[k], o, 1, out, o)
}

// tanhInPlace applies tanh to every entry of v.
func tanhInPlace(v []float64) {
	for i, x := range v {
		v[i] = math.Tanh(x)
	}
}

// forward maps the rows of x (rows × In) through one network with flat
// parameters theta into out (rows × Out), in float64: the simple reference
// the batched passes and the gradient graphs are tested against, and the
// sampler.
func (a Arch) forward(out, theta, x []float64, rows int) {
	s := newStack(a, 1)
	s.load([][]float64{theta})
	var w work
	s.firstLayer(&w, x, rows)
	s.rest(&w, 0, rows, out)
}
