// Package payoff evaluates the payoff matrix of package gan's game: K
// generator networks against J discriminator networks on one shared
// minibatch,
//
//	M_kj = mean_b f_r(D_j(x_b)) − mean_b f_f(D_j(G_k(z_b))),
//
// in float32, on the CPU (CPU, with internal/sgemm's kernels) or, in a
// build with the tag cuda, on a CUDA device (CUDA, with the tensorops
// backend's gpump_payoff_* kernels). It does not depend on gorgonia, whose
// own files under the tag cuda need cuDNN: so the device evaluator can be
// built, vetted and tested (on CI's fake driver) where gan cannot.
package payoff

import (
	"fmt"
	"sync"

	"github.com/gpump/gpump/internal/sgemm"
)

// Net is the shape of a network: In inputs, two hidden layers of Hidden
// tanh units, Out linear outputs. Its parameters are held flat, layer after
// layer: W1 (In×Hidden, row-major), b1, W2 (Hidden×Hidden), b2, W3
// (Hidden×Out), b3; a layer maps a row x to x·W + b.
type Net struct {
	In, Hidden, Out int
}

// NumParams is the length of the flat parameter vector.
func (n Net) NumParams() int {
	l := n.Layers()[2]
	return l.B + l.Out
}

// Layer is one affine map's place in the flat parameters: W (In×Out) at
// offset W, b (Out) at offset B.
type Layer struct {
	In, Out int
	W, B    int
}

// Layers returns the three affine maps of n.
func (n Net) Layers() [3]Layer {
	var ls [3]Layer
	dims := [4]int{n.In, n.Hidden, n.Hidden, n.Out}
	off := 0
	for i := range ls {
		ls[i] = Layer{In: dims[i], Out: dims[i+1], W: off, B: off + dims[i]*dims[i+1]}
		off = ls[i].B + dims[i+1]
	}
	return ls
}

// Shape is a payoff game: K generators of Gen (noise in, points out) and J
// discriminators of Disc (points in, one output), on minibatches of Batch
// points; Log selects the log loss, f_r(t) = −softplus(−t) and
// f_f(t) = softplus(t), otherwise the WGAN critic, f_r(t) = f_f(t) = t.
type Shape struct {
	Gen, Disc   Net
	K, J, Batch int
	Log         bool
}

// Check returns an error unless the sizes are positive and the networks
// fit together (Disc.In = Gen.Out, Disc.Out = 1).
func (s Shape) Check() error {
	for _, v := range []int{s.Gen.In, s.Gen.Hidden, s.Gen.Out, s.Disc.Hidden, s.K, s.J, s.Batch} {
		if v < 1 {
			return fmt.Errorf("payoff: a shape with a size %d", v)
		}
	}
	if s.Disc.In != s.Gen.Out || s.Disc.Out != 1 {
		return fmt.Errorf("payoff: discriminators of %d inputs and %d outputs for generators of %d outputs", s.Disc.In, s.Disc.Out, s.Gen.Out)
	}
	return nil
}

// Flops is the number of floating-point operations of the matrix products
// of one evaluation.
func (s Shape) Flops() float64 {
	per := func(a Net) float64 { return 2 * float64(a.In*a.Hidden+a.Hidden*a.Hidden+a.Hidden*a.Out) }
	return float64(s.Batch*s.K)*per(s.Gen) + float64((s.K+1)*s.Batch*s.J)*per(s.Disc)
}

// CPU evaluates the payoff matrix of a Shape on the CPU, in float32, as
// blocked, batched matrix products over all particles: the noise goes
// through every generator, then the real batch and all K generated
// batches, stacked ((K+1)·B rows), through every discriminator. Rows are independent, so
// the rows are split among the threads, and each thread takes its rows in
// blocks of chunkRows through every network in turn: a block's hidden
// layers (chunkRows × Hidden) stay in the core's cache between the layers,
// where a whole batch's would not. The hidden layers are products with
// sgemm's register-tiled kernels, with the bias and tanh applied in
// registers; the weights are packed for them once per evaluation.
type CPU struct {
	s            Shape
	gen, disc    Net
	k, j, b      int
	gnets, dnets []net32
	stage        []float32 // a layer's weights and bias in float32, before packing
	z, x         []float32 // B×In noise; (K+1)·B×d: the real batch, then each generator's
	terms        []float64 // J × (K+1)·B: the loss term of every discriminator output
	ws           []payWorker
	// run[w] runs worker w ≥ 1 of the current phase and signals wg; the
	// closures are made once so that starting a phase allocates nothing.
	run   []func()
	wg    sync.WaitGroup
	fakes bool // the phase: the generators (true) or the discriminators
}

// chunkRows is the block of rows a thread takes through every network in
// turn: its hidden layers (chunkRows × Hidden float32s, 120 KiB at 128
// units) stay in L2, and it is a multiple of every kernel's tile height
// (12, 6 and 4 rows).
const chunkRows = 240

// net32 is one network's parameters in float32, its hidden layers packed
// for sgemm and its output layer transposed (Out × Hidden), so that each
// output is a dot product with a contiguous row.
type net32 struct {
	l1, l2 sgemm.Panels
	w3t    []float32
	b3     []float32
}

// payWorker is one thread's scratch: a block's two hidden layers and its
// outputs.
type payWorker struct {
	h1, h2, out []float32
}

// NewCPU returns the evaluator of s on threads threads (at least one).
func NewCPU(s Shape, threads int) (*CPU, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	gen, disc, k, j, batch := s.Gen, s.Disc, s.K, s.J, s.Batch
	p := &CPU{
		s: s, gen: gen, disc: disc, k: k, j: j, b: batch,
		gnets: make([]net32, k), dnets: make([]net32, j),
		z:     make([]float32, batch*gen.In),
		x:     make([]float32, (k+1)*batch*disc.In),
		terms: make([]float64, j*(k+1)*batch),
	}
	h := max(gen.Hidden, disc.Hidden)
	p.stage = make([]float32, max(gen.In, disc.In, h)*h+h)
	for i := range p.gnets {
		p.gnets[i].alloc(gen, p.stage)
	}
	for i := range p.dnets {
		p.dnets[i].alloc(disc, p.stage)
	}
	// More threads than blocks of the (K+1)·B rows would idle.
	threads = max(1, min(threads, ((k+1)*batch+chunkRows-1)/chunkRows))
	p.ws = make([]payWorker, threads)
	for w := range p.ws {
		p.ws[w] = payWorker{
			h1: make([]float32, chunkRows*h), h2: make([]float32, chunkRows*h),
			out: make([]float32, chunkRows*max(gen.Out, disc.Out)),
		}
	}
	p.run = make([]func(), threads)
	for w := 1; w < threads; w++ {
		p.run[w] = func() {
			p.phase(w)
			p.wg.Done()
		}
	}
	return p, nil
}

// alloc allocates n's storage, packed panels included, so that loading
// parameters allocates nothing.
func (n *net32) alloc(a Net, stage []float32) {
	n.w3t = make([]float32, a.Out*a.Hidden)
	n.b3 = make([]float32, a.Out)
	n.load(a, make([]float64, a.NumParams()), stage)
}

// load converts and packs the flat parameters theta of a network of a.
func (n *net32) load(a Net, theta []float64, stage []float32) {
	ls := a.Layers()
	for i, l := range ls[:2] {
		st := stage[:l.In*l.Out+l.Out]
		conv(st, theta[l.W:l.B+l.Out])
		pn := &n.l1
		if i == 1 {
			pn = &n.l2
		}
		pn.Pack(l.In, l.Out, st, l.Out, st[l.In*l.Out:])
	}
	l := ls[2]
	for c := range l.In {
		for o := range l.Out {
			n.w3t[o*l.In+c] = float32(theta[l.W+c*l.Out+o])
		}
	}
	conv(n.b3, theta[l.B:l.B+l.Out])
	if l.Out == 1 {
		n.l2.PackOut(n.w3t)
	}
}

// forward maps rows rows of x (rows × In) through the network into out
// (rows × Out), with w's hidden layers as scratch. A single output (the
// discriminators') is computed with the second hidden layer, in registers.
func (n *net32) forward(w *payWorker, a Net, x []float32, rows int, out []float32) {
	h := a.Hidden
	sgemm.Gemm(rows, x, a.In, &n.l1, sgemm.Tanh, w.h1, h)
	if a.Out == 1 {
		out = out[:rows]
		for r := range out {
			out[r] = n.b3[0]
		}
		sgemm.GemmTanhDot(rows, w.h1, h, &n.l2, out)
		return
	}
	sgemm.Gemm(rows, w.h1, h, &n.l2, sgemm.Tanh, w.h2, h)
	for o := range a.Out {
		wt, b := n.w3t[o*h:(o+1)*h], n.b3[o]
		for r := range rows {
			out[r*a.Out+o] = b + dot32(w.h2[r*h:(r+1)*h], wt)
		}
	}
}

// dot32 returns Σ x_i·y_i with four partial sums, which keeps the adds of
// the output layer independent.
func dot32(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Eval writes M (K×J, row-major) for the generators' and discriminators'
// flat parameters, the real batch (Batch×Gen.Out) and the noise z
// (Batch×Gen.In) shared by every generator. It allocates nothing; it
// never fails (the error is the device evaluator's). It panics on slices
// of the wrong lengths, as the device evaluator does: a short list of
// networks or a short batch would otherwise leave the last evaluation's
// networks or rows in place and return a wrong matrix.
func (p *CPU) Eval(m []float64, gens, discs [][]float64, real, z []float64) error {
	if len(m) != p.k*p.j || len(gens) != p.k || len(discs) != p.j || len(real) != p.b*p.disc.In || len(z) != p.b*p.gen.In {
		panic(fmt.Sprintf("payoff: %d generators, %d discriminators, %d real and %d noise values into %d entries for a shape %+v",
			len(gens), len(discs), len(real), len(z), len(m), p.s))
	}
	for _, nets := range [2]struct {
		thetas [][]float64
		per    int
	}{{gens, p.gen.NumParams()}, {discs, p.disc.NumParams()}} {
		for _, theta := range nets.thetas {
			if len(theta) != nets.per {
				panic(fmt.Sprintf("payoff: a network of %d parameters, the shape's have %d", len(theta), nets.per))
			}
		}
	}
	for i, theta := range gens {
		p.gnets[i].load(p.gen, theta, p.stage)
	}
	for i, theta := range discs {
		p.dnets[i].load(p.disc, theta, p.stage)
	}
	conv(p.z, z)
	conv(p.x[:p.b*p.disc.In], real)
	p.fakes = true
	p.parallel()
	p.fakes = false
	p.parallel()
	rows := (p.k + 1) * p.b
	inv := 1 / float64(p.b)
	for j := range p.j {
		t := p.terms[j*rows : (j+1)*rows]
		r := 0.0
		for _, v := range t[:p.b] {
			r += v
		}
		for k := range p.k {
			f := 0.0
			for _, v := range t[(k+1)*p.b : (k+2)*p.b] {
				f += v
			}
			m[k*p.j+j] = (r - f) * inv
		}
	}
	return nil
}

// parallel runs the current phase on every worker and waits for them.
func (p *CPU) parallel() {
	p.wg.Add(len(p.ws) - 1)
	for _, f := range p.run[1:] {
		go f()
	}
	p.phase(0)
	p.wg.Wait()
}

// phase runs worker w's share of the rows of the current phase.
func (p *CPU) phase(w int) {
	ws := &p.ws[w]
	rows := (p.k + 1) * p.b
	if p.fakes {
		rows = p.b
	}
	lo, hi := rows*w/len(p.ws), rows*(w+1)/len(p.ws)
	for r0 := lo; r0 < hi; r0 += chunkRows {
		n := min(chunkRows, hi-r0)
		if p.fakes {
			g, d := p.gen, p.disc.In
			for k := range p.gnets {
				p.gnets[k].forward(ws, g, p.z[r0*g.In:], n, p.x[((k+1)*p.b+r0)*d:])
			}
			continue
		}
		for j := range p.dnets {
			o := ws.out[:n]
			p.dnets[j].forward(ws, p.disc, p.x[r0*p.disc.In:], n, o)
			if p.s.Log {
				// f_r(t) = −softplus(−t) on the real rows, f_f(t) =
				// softplus(t) on the others.
				real := o[:min(n, max(0, p.b-r0))]
				negate(real)
				sgemm.Softplus(o)
				negate(real)
			}
			conv64(p.terms[j*rows+r0:j*rows+r0+n], o)
		}
	}
}

func negate(v []float32) {
	for i, x := range v {
		v[i] = -x
	}
}

func conv64(dst []float64, src []float32) {
	for i, v := range src {
		dst[i] = float64(v)
	}
}

func conv[T ~float32 | ~float64](dst []T, src []float64) {
	for i, v := range src {
		dst[i] = T(v)
	}
}
