package gan

import (
	"fmt"
	"math"
)

// batched computes the particles' gradients (the operator of the
// particles' problem) as batched float32 layers through a Layers: the
// forward and backward passes of the K generators and J discriminators on
// a step's minibatches take one call per layer for all networks. It
// computes the gradients of the losses the graphs of graph.go define (the
// reference, against which it is tested) and allocates nothing after its
// construction.
type batched struct {
	ops       Layers
	gen, disc Arch
	k, j, b   int
	loss      Loss
	g, d      params32  // the particles' parameters
	gg, dg    params32  // their gradients
	x         []float32 // the discriminators' input: B real rows, then K·B fakes
	z         []float32 // the generators' noise, K blocks of B×NoiseDim
	a1, a2    []float32 // the generators' hidden layers, K·B×Hidden
	dy        []float32 // the gradient of the fakes, K·B×Out
	h1, h2, o []float32 // the discriminators' layers, J blocks of rows×Hidden (o: rows)
	dh        []float32 // a hidden layer's gradient, as large as h1
	dyj       []float32 // each discriminator's gradient of the fakes, J blocks of K·B×Out
	rowW      []float32 // the discriminators' loss weights of their rows
	da1, da2  []float32 // the generators' hidden layers' gradients, K·B×Hidden
}

// params32 is the float32 parameters (or gradients) of n networks of one
// Arch, laid out by layer for Layers: w[l] holds the n networks' weights of
// layer l, b[l] their biases.
type params32 struct {
	w, b [3][]float32
}

func newParams32(a Arch, n int) params32 {
	var p params32
	for i, l := range a.layers() {
		p.w[i], p.b[i] = make([]float32, n*l.in*l.out), make([]float32, n*l.out)
	}
	return p
}

// load converts the flat parameters of the networks into p.
func (p *params32) load(a Arch, thetas [][]float64) {
	for i, l := range a.layers() {
		nw, nb := l.in*l.out, l.out
		for k, th := range thetas {
			for q, v := range th[l.w:l.b] {
				p.w[i][k*nw+q] = float32(v)
			}
			for q, v := range th[l.b : l.b+l.out] {
				p.b[i][k*nb+q] = float32(v)
			}
		}
	}
}

// store converts p into the flat vectors of the networks.
func (p *params32) store(a Arch, flat [][]float64) {
	for i, l := range a.layers() {
		nw, nb := l.in*l.out, l.out
		for k, th := range flat {
			for q := range nw {
				th[l.w+q] = float64(p.w[i][k*nw+q])
			}
			for q := range nb {
				th[l.b+q] = float64(p.b[i][k*nb+q])
			}
		}
	}
}

func newBatched(ops Layers, gen, disc Arch, k, j, b int, loss Loss) *batched {
	h := gen.Hidden
	rows := (k + 1) * b // the discriminators' step has the most rows
	return &batched{
		ops: ops, gen: gen, disc: disc, k: k, j: j, b: b, loss: loss,
		g: newParams32(gen, k), d: newParams32(disc, j),
		gg: newParams32(gen, k), dg: newParams32(disc, j),
		x: make([]float32, rows*disc.In), z: make([]float32, k*b*gen.In),
		a1: make([]float32, k*b*h), a2: make([]float32, k*b*h),
		dy:   make([]float32, k*b*gen.Out),
		h1:   make([]float32, j*rows*disc.Hidden),
		h2:   make([]float32, j*rows*disc.Hidden),
		o:    make([]float32, j*rows),
		dh:   make([]float32, j*rows*disc.Hidden),
		dyj:  make([]float32, j*k*b*disc.In),
		rowW: make([]float32, rows),
		da1:  make([]float32, k*b*h), da2: make([]float32, k*b*h),
	}
}

// generate maps the noise in z (K blocks of B rows, or one block shared by
// every generator when shared) through every generator into the fakes,
// K·B rows from fakes on, keeping the hidden layers in a1 and a2.
func (o *batched) generate(shared bool, fakes []float32) {
	a, ls := o.gen, o.gen.layers()
	zs := o.b * a.In
	if shared {
		zs = 0
	}
	o.ops.Forward(o.k, o.b, ls[0].in, ls[0].out, o.z, zs, o.g.w[0], o.g.b[0], true, o.a1)
	o.ops.Forward(o.k, o.b, ls[1].in, ls[1].out, o.a1, o.b*a.Hidden, o.g.w[1], o.g.b[1], true, o.a2)
	o.ops.Forward(o.k, o.b, ls[2].in, ls[2].out, o.a2, o.b*a.Hidden, o.g.w[2], o.g.b[2], false, fakes)
}

// judge maps the rows of x (shared) through every discriminator into o.h1,
// o.h2 and o.o.
func (o *batched) judge(rows int, x []float32) {
	ls := o.disc.layers()
	h := o.disc.Hidden
	o.ops.Forward(o.j, rows, ls[0].in, ls[0].out, x, 0, o.d.w[0], o.d.b[0], true, o.h1)
	o.ops.Forward(o.j, rows, ls[1].in, ls[1].out, o.h1, rows*h, o.d.w[1], o.d.b[1], true, o.h2)
	o.ops.Forward(o.j, rows, ls[2].in, ls[2].out, o.h2, rows*h, o.d.w[2], o.d.b[2], false, o.o)
}

// tanhBack multiplies the gradient of a tanh layer's output by the
// derivative 1 − y² of its output y, making that of its pre-activation.
func tanhBack(grad, y []float32) {
	for i, v := range y {
		grad[i] *= 1 - v*v
	}
}

// discBack backpropagates o.o's gradient (in o.o, J blocks of rows)
// through every discriminator, into the parameters' gradients when grads,
// else into the gradient of the input rows in o.dyj.
func (o *batched) discBack(rows int, x []float32, grads bool) {
	ls := o.disc.layers()
	h := o.disc.Hidden
	dh, do := o.dh[:o.j*rows*h], o.o[:o.j*rows]
	if grads {
		o.ops.Grad(o.j, rows, ls[2].in, ls[2].out, o.h2, rows*h, do, o.dg.w[2], o.dg.b[2])
	}
	o.ops.Backward(o.j, rows, ls[2].in, ls[2].out, do, o.d.w[2], dh)
	tanhBack(dh, o.h2[:o.j*rows*h])
	if grads {
		o.ops.Grad(o.j, rows, ls[1].in, ls[1].out, o.h1, rows*h, dh, o.dg.w[1], o.dg.b[1])
	}
	// The second hidden layer's gradient becomes the first's in h2, whose
	// values are no longer needed.
	dh1 := o.h2[:o.j*rows*h]
	o.ops.Backward(o.j, rows, ls[1].in, ls[1].out, dh, o.d.w[1], dh1)
	tanhBack(dh1, o.h1[:o.j*rows*h])
	if grads {
		o.ops.Grad(o.j, rows, ls[0].in, ls[0].out, x, 0, dh1, o.dg.w[0], o.dg.b[0])
		return
	}
	o.ops.Backward(o.j, rows, ls[0].in, ls[0].out, dh1, o.d.w[0], o.dyj)
}

// sigmoid is the logistic function, the derivative of softplus.
func sigmoid(t float32) float32 { return float32(1 / (1 + math.Exp(-float64(t)))) }

// discGrads sets grads (J flat vectors) to the gradients of the
// discriminators' loss (see discGraph) for the discriminators discs
// against the fakes of the generators gens from the noise z (B×NoiseDim,
// shared by every generator) on the real batch real (B×Dim), the fakes of
// generator k weighted w_k/B.
func (o *batched) discGrads(grads, discs, gens [][]float64, real, z, w []float64) {
	b, d := o.b, o.disc.In
	rows := (o.k + 1) * b
	o.g.load(o.gen, gens)
	o.d.load(o.disc, discs)
	for i, v := range real {
		o.x[i] = float32(v)
	}
	for i, v := range z {
		o.z[i] = float32(v)
	}
	o.generate(true, o.x[b*d:])
	o.judge(rows, o.x)
	for r := range b {
		o.rowW[r] = float32(1 / float64(b))
	}
	for k := range o.k {
		wk := float32(w[k] / float64(b))
		for r := range b {
			o.rowW[(k+1)*b+r] = wk
		}
	}
	// The loss's gradient by each discriminator's output: −(1/B)·σ(−t) on
	// a real row and w_r·σ(t) on a fake one under Log; −1/B and w_r
	// under WGAN.
	for j := range o.j {
		out := o.o[j*rows : (j+1)*rows]
		for r, t := range out {
			g := o.rowW[r]
			if o.loss == Log {
				if r < b {
					g *= sigmoid(-t)
				} else {
					g *= sigmoid(t)
				}
			}
			if r < b {
				g = -g
			}
			out[r] = g
		}
	}
	o.discBack(rows, o.x, true)
	o.dg.store(o.disc, grads)
}

// genGrads sets grads (K flat vectors) to the gradients of the
// generators' loss (see genGraph) for the generators gens, generator k
// mapping its own noise z[k] (B×NoiseDim), against the discriminators
// discs weighted c.
func (o *batched) genGrads(grads, gens, discs, z [][]float64, c []float64) {
	b, h, dim := o.b, o.gen.Hidden, o.gen.Out
	rows := o.k * b
	o.g.load(o.gen, gens)
	o.d.load(o.disc, discs)
	zs := b * o.gen.In
	for k, zk := range z {
		for i, v := range zk {
			o.z[k*zs+i] = float32(v)
		}
	}
	fakes := o.x[:rows*dim]
	o.generate(false, fakes)
	o.judge(rows, fakes)
	// The loss's gradient by each output: c_j·(−σ(−t)) under Log, −c_j
	// under WGAN.
	for j := range o.j {
		cj := float32(c[j])
		out := o.o[j*rows : (j+1)*rows]
		for r, t := range out {
			if o.loss == Log {
				out[r] = -cj * sigmoid(-t)
			} else {
				out[r] = -cj
			}
		}
	}
	o.discBack(rows, fakes, false)
	copy(o.dy, o.dyj[:rows*dim])
	for j := 1; j < o.j; j++ {
		for i, v := range o.dyj[j*rows*dim : (j+1)*rows*dim] {
			o.dy[i] += v
		}
	}
	ls := o.gen.layers()
	o.ops.Grad(o.k, b, ls[2].in, ls[2].out, o.a2, b*h, o.dy, o.gg.w[2], o.gg.b[2])
	o.ops.Backward(o.k, b, ls[2].in, ls[2].out, o.dy, o.g.w[2], o.da2)
	tanhBack(o.da2, o.a2)
	o.ops.Grad(o.k, b, ls[1].in, ls[1].out, o.a1, b*h, o.da2, o.gg.w[1], o.gg.b[1])
	o.ops.Backward(o.k, b, ls[1].in, ls[1].out, o.da2, o.g.w[1], o.da1)
	tanhBack(o.da1, o.a1)
	o.ops.Grad(o.k, b, ls[0].in, ls[0].out, o.z, zs, o.da1, o.gg.w[0], o.gg.b[0])
	o.gg.store(o.gen, grads)
}

// batchedSteps is steps by the batched operator: the same draws, in the
// same order, and the same losses.
// err returns the first error of the layers' device work since the last
// call (Layers that report errors have an Err method, as
// tensorops.CUDALayers does; the CPU's cannot fail).
func (o *batched) err() error {
	if e, ok := o.ops.(interface{ Err() error }); ok {
		if err := e.Err(); err != nil {
			return fmt.Errorf("gan: the batched layers: %w", err)
		}
	}
	return nil
}

func (t *trainer) batchedSteps(scale float64) error {
	c := &t.cfg
	k, b := c.Generators, c.Batch
	keep := 1 - c.explore()
	for range max(c.DiscSteps, 0) {
		t.data.Sample(t.real, t.rng)
		normals(t.z, t.rng)
		for i := range k {
			t.wk[i] = keep*t.mix.P[i] + (1-keep)/float64(k)
		}
		t.op.discGrads(t.dgrad, t.mix.Discriminators, t.mix.Generators, t.real, t.z, t.wk)
		if err := t.op.err(); err != nil {
			return err
		}
		t.discSteps(scale)
	}
	for range max(c.GenSteps, 0) {
		for i := range k {
			normals(t.zk[i], t.rng)
		}
		for i, q := range t.mix.Q {
			t.cj[i] = q / float64(b)
		}
		t.op.genGrads(t.ggrad, t.mix.Generators, t.mix.Discriminators, t.zk, t.cj)
		if err := t.op.err(); err != nil {
			return err
		}
		t.genSteps(scale)
	}
	return nil
}
