package gan

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Arch is the shape of a network: In inputs, two hidden layers of Hidden
// tanh units, Out linear outputs. Its parameters are held flat, layer after
// layer: W1 (In×Hidden, row-major), b1, W2 (Hidden×Hidden), b2, W3
// (Hidden×Out), b3; a layer maps a row x to x·W + b.
type Arch struct {
	In, Hidden, Out int
}

// NumParams is the length of the flat parameter vector.
func (a Arch) NumParams() int {
	return a.In*a.Hidden + a.Hidden + a.Hidden*a.Hidden + a.Hidden + a.Hidden*a.Out + a.Out
}

// layer is one affine map's place in the flat parameters.
type layer struct {
	in, out int
	w, b    int // offsets of W (in×out) and b (out)
}

// layers returns the three affine maps of a.
func (a Arch) layers() [3]layer {
	var ls [3]layer
	dims := [4]int{a.In, a.Hidden, a.Hidden, a.Out}
	off := 0
	for i := range ls {
		ls[i] = layer{in: dims[i], out: dims[i+1], w: off, b: off + dims[i]*dims[i+1]}
		off = ls[i].b + dims[i+1]
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

// float is the element type of a forward pass: float64 for sampling and
// the gradient steps' inputs, float32 for the payoff matrix.
type float interface{ ~float32 | ~float64 }

// gemm sets c = a·b + beta·c for row-major a (m×k, leading dimension lda),
// b (k×n, ldb) and c (m×n, ldc), through gonum's BLAS.
func gemm[T float](m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// stack is the parameters of several networks of one Arch in the layout
// of a batched forward pass over all of them: the first layers' weights
// side by side (In × n·Hidden), so that one product maps a batch through
// every network's first layer, and the other layers' per network.
type stack[T float] struct {
	arch   Arch
	n      int
	w1, b1 []T   // In × n·Hidden; n·Hidden
	w2, b2 [][]T // per network: Hidden×Hidden; Hidden
	w3, b3 [][]T // per network: Hidden×Out; Out
}

// newStack allocates a stack of n networks.
func newStack[T float](a Arch, n int) *stack[T] {
	s := &stack[T]{arch: a, n: n, w1: make([]T, a.In*n*a.Hidden), b1: make([]T, n*a.Hidden)}
	for range n {
		s.w2 = append(s.w2, make([]T, a.Hidden*a.Hidden))
		s.b2 = append(s.b2, make([]T, a.Hidden))
		s.w3 = append(s.w3, make([]T, a.Hidden*a.Out))
		s.b3 = append(s.b3, make([]T, a.Out))
	}
	return s
}

// load copies the flat parameters of the networks into s.
func (s *stack[T]) load(params [][]float64) {
	a, h := s.arch, s.arch.Hidden
	ls := a.layers()
	for k, theta := range params {
		for i := range a.In {
			for u := range h {
				s.w1[i*s.n*h+k*h+u] = T(theta[ls[0].w+i*h+u])
			}
		}
		conv(s.b1[k*h:(k+1)*h], theta[ls[0].b:ls[0].b+h])
		conv(s.w2[k], theta[ls[1].w:ls[1].b])
		conv(s.b2[k], theta[ls[1].b:ls[1].b+h])
		conv(s.w3[k], theta[ls[2].w:ls[2].b])
		conv(s.b3[k], theta[ls[2].b:ls[2].b+a.Out])
	}
}

func conv[T float](dst []T, src []float64) {
	for i, v := range src {
		dst[i] = T(v)
	}
}

// work is the scratch of a batched forward pass of a stack over rows
// inputs.
type work[T float] struct {
	h1 []T // rows × n·Hidden
	h2 []T // rows × Hidden
}

func (w *work[T]) size(rows int, s *stack[T]) {
	if need := rows * s.n * s.arch.Hidden; cap(w.h1) < need {
		w.h1 = make([]T, need)
	}
	if need := rows * s.arch.Hidden; cap(w.h2) < need {
		w.h2 = make([]T, need)
	}
	w.h1 = w.h1[:rows*s.n*s.arch.Hidden]
	w.h2 = w.h2[:rows*s.arch.Hidden]
}

// firstLayer computes tanh(x·W1 + b1) for every network at once into
// w.h1 (rows × n·Hidden); x is rows × In.
func (s *stack[T]) firstLayer(w *work[T], x []T, rows int) {
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
func (s *stack[T]) rest(w *work[T], k, rows int, out []T) {
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

// flops is the number of floating-point operations of the matrix products
// of a forward pass of every network of s over rows inputs.
func (s *stack[T]) flops(rows int) float64 {
	a := s.arch
	return 2 * float64(rows) * float64(s.n) * float64(a.In*a.Hidden+a.Hidden*a.Hidden+a.Hidden*a.Out)
}

// tanhInPlace applies tanh to every entry of v: in float64 with math.Tanh,
// in float32 with a rational approximation (Eigen's, within 4e-7, a few units in
// the last place of float32), since math.Tanh would cost more than the
// matrix products of the payoff's small layers.
func tanhInPlace[T float](v []T) {
	if v32, ok := any(v).([]float32); ok {
		for i, x := range v32 {
			v32[i] = tanh32(x)
		}
		return
	}
	for i, x := range v {
		v[i] = T(math.Tanh(float64(x)))
	}
}

func tanh32(x float32) float32 {
	const clamp = 7.90531110763549805
	x = min(max(x, -clamp), clamp)
	if x > -0.0004 && x < 0.0004 {
		return x
	}
	x2 := x * x
	p := x2*-2.76076847742355e-16 + 2.00018790482477e-13
	p = x2*p + -8.60467152213735e-11
	p = x2*p + 5.12229709037114e-08
	p = x2*p + 1.48572235717979e-05
	p = x2*p + 6.37261928875436e-04
	p = x2*p + 4.89352455891786e-03
	p = x * p
	q := x2*1.19825839466702e-06 + 1.18534705686654e-04
	q = x2*q + 2.26843463243900e-03
	q = x2*q + 4.89352518554385e-03
	return p / q
}

// forward maps the rows of x (rows × In) through one network with flat
// parameters theta into out (rows × Out), in float64: the simple reference
// the batched passes and the gradient graphs are tested against, and the
// sampler.
func (a Arch) forward(out, theta, x []float64, rows int) {
	s := newStack[float64](a, 1)
	s.load([][]float64{theta})
	var w work[float64]
	s.firstLayer(&w, x, rows)
	s.rest(&w, 0, rows, out)
}
