//go:build cuda

package tensorops

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
)

// PayoffShape is the shape of the payoff game of package gan (see
// gan/payoff, which wraps CUDAPayoff): K generator and J discriminator
// networks with two hidden layers of Hidden tanh units each, generators
// mapping GenIn noise inputs to Dim outputs, discriminators Dim inputs to
// one, on minibatches of Batch; Log selects the log loss, else the WGAN
// critic. Parameters are float64 vectors laid out layer after layer (W
// row-major, then b), as package gan holds them.
type PayoffShape struct {
	K, J, Batch        int
	GenIn, Hidden, Dim int
	Log                bool
}

// CUDAPayoff evaluates the payoff matrix of a PayoffShape on the backend's
// device: every generator's layers at once for all networks
// (gpump_payoff_layer, three launches), the real and generated batches
// through every discriminator (three more), and the matrix from the
// discriminators' outputs (gpump_payoff_reduce), in float32 with float64
// sums. Each evaluation copies the parameters and the batches in (four
// synchronous copies) and the matrix out (the synchronization point). It
// has run on CI's fake driver only, never on a GPU.
type CUDAPayoff struct {
	c               *CUDA
	s               PayoffShape
	gp, dp          int // parameters of a generator, a discriminator
	gen, disc, z, x cu.DevicePtr
	h1, h2, out, m  cu.DevicePtr
	hGen, hDisc     []float32 // float32 staging of the parameters
	hZ, hX          []float32 // and of the noise and the real batch
	layers          [6]payoffLayer
	reduce          kernels.Launch
	freed           bool
}

// payoffLayer is one launch of gpump_payoff_layer.
type payoffLayer struct {
	l                   kernels.Launch
	nets, rows, in, out int64
	x                   cu.DevicePtr
	xstride             int64
	params              cu.DevicePtr
	pstride, woff       int64
	y                   cu.DevicePtr
	ystride, act        int64
}

// NewPayoff allocates the device buffers of an evaluator of s
// (synchronous: eight cuMemAlloc).
func (c *CUDA) NewPayoff(s PayoffShape) (*CUDAPayoff, error) {
	for _, v := range []int{s.K, s.J, s.Batch, s.GenIn, s.Hidden, s.Dim} {
		if v < 1 {
			return nil, fmt.Errorf("tensorops: a payoff shape with a size %d", v)
		}
	}
	c.check()
	h := s.Hidden
	np := func(in, out int) int { return in*h + h + h*h + h + h*out + out }
	p := &CUDAPayoff{c: c, s: s, gp: np(s.GenIn, s.Dim), dp: np(s.Dim, 1)}
	p.hGen, p.hDisc = make([]float32, s.K*p.gp), make([]float32, s.J*p.dp)
	p.hZ, p.hX = make([]float32, s.Batch*s.GenIn), make([]float32, s.Batch*s.Dim)
	rows := (s.K + 1) * s.Batch
	hidden := max(s.K*s.Batch, s.J*rows) * h
	sizes := []struct {
		dst   *cu.DevicePtr
		bytes int64
		what  string
	}{
		{&p.gen, 4 * int64(len(p.hGen)), "the generators' parameters"},
		{&p.disc, 4 * int64(len(p.hDisc)), "the discriminators' parameters"},
		{&p.z, 4 * int64(len(p.hZ)), "the noise"},
		{&p.x, 4 * int64(rows*s.Dim), "the real and generated batches"},
		{&p.h1, 4 * int64(hidden), "the first hidden layers"},
		{&p.h2, 4 * int64(hidden), "the second hidden layers"},
		{&p.out, 4 * int64(s.J*rows), "the discriminators' outputs"},
		{&p.m, 8 * int64(s.K*s.J), "the payoff matrix"},
	}
	err := c.do(func() error {
		for i, sz := range sizes {
			var err error
			if *sz.dst, err = cu.MemAlloc(sz.bytes); err != nil {
				for _, done := range sizes[:i] {
					cu.MemFree(*done.dst)
				}
				return allocErr(err, sz.bytes, sz.what)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The layers: W1 at 0, W2 after W1 and b1, W3 after W2 and b2.
	off2 := func(in int) int64 { return int64(in*h + h) }
	off3 := func(in int) int64 { return off2(in) + int64(h*h+h) }
	b, r := int64(s.Batch), int64(rows)
	k, j, hh := int64(s.K), int64(s.J), int64(h)
	layers := []payoffLayer{
		{nets: k, rows: b, in: int64(s.GenIn), out: hh, x: p.z, params: p.gen, pstride: int64(p.gp), y: p.h1, ystride: b * hh, act: 1},
		{nets: k, rows: b, in: hh, out: hh, x: p.h1, xstride: b * hh, params: p.gen, pstride: int64(p.gp), woff: off2(s.GenIn), y: p.h2, ystride: b * hh, act: 1},
		// The generated batches land after the real one.
		{nets: k, rows: b, in: hh, out: int64(s.Dim), x: p.h2, xstride: b * hh, params: p.gen, pstride: int64(p.gp), woff: off3(s.GenIn),
			y: p.x + cu.DevicePtr(4*b*int64(s.Dim)), ystride: b * int64(s.Dim)},
		{nets: j, rows: r, in: int64(s.Dim), out: hh, x: p.x, params: p.disc, pstride: int64(p.dp), y: p.h1, ystride: r * hh, act: 1},
		{nets: j, rows: r, in: hh, out: hh, x: p.h1, xstride: r * hh, params: p.disc, pstride: int64(p.dp), woff: off2(s.Dim), y: p.h2, ystride: r * hh, act: 1},
		{nets: j, rows: r, in: hh, out: 1, x: p.h2, xstride: r * hh, params: p.disc, pstride: int64(p.dp), woff: off3(s.Dim), y: p.out, ystride: r},
	}
	for i, l := range layers {
		if l.l, err = kernels.PayoffLayer(l.nets, l.rows, l.out, c.kdev); err != nil {
			p.Free()
			return nil, fmt.Errorf("tensorops: cuda: %w", err)
		}
		p.layers[i] = l
	}
	if p.reduce, err = kernels.PayoffReduce(k, j, c.kdev); err != nil {
		p.Free()
		return nil, fmt.Errorf("tensorops: cuda: %w", err)
	}
	return p, nil
}

// Eval writes the payoff matrix M (K×J, row-major) of the generators' and
// discriminators' float64 parameters, the real batch (Batch×Dim) and the
// noise (Batch×GenIn) into m. It returns the first error of the device
// work. It panics on slices of the wrong lengths or after Free.
func (p *CUDAPayoff) Eval(m []float64, gens, discs [][]float64, real, z []float64) error {
	s := p.s
	if p.freed {
		panic("tensorops: cuda: use of a freed payoff evaluator")
	}
	if len(m) != s.K*s.J || len(gens) != s.K || len(discs) != s.J || len(real) != len(p.hX) || len(z) != len(p.hZ) {
		panic(fmt.Sprintf("tensorops: cuda: payoff of %d generators, %d discriminators, %d real and %d noise values into %d entries for a shape %+v",
			len(gens), len(discs), len(real), len(z), len(m), s))
	}
	stage := func(dst []float32, per int, src [][]float64) {
		for i, v := range src {
			if len(v) != per {
				panic(fmt.Sprintf("tensorops: cuda: a network of %d parameters, the shape's have %d", len(v), per))
			}
			conv32(dst[i*per:(i+1)*per], v)
		}
	}
	stage(p.hGen, p.gp, gens)
	stage(p.hDisc, p.dp, discs)
	conv32(p.hZ, z)
	conv32(p.hX, real)
	for _, cp := range []struct {
		dst cu.DevicePtr
		src []float32
	}{{p.gen, p.hGen}, {p.disc, p.hDisc}, {p.z, p.hZ}, {p.x, p.hX}} {
		if err := p.c.htod(cp.dst, unsafe.Pointer(&cp.src[0]), 4*int64(len(cp.src)), false); err != nil {
			return err
		}
	}
	k := p.c.w.k.byName[kernels.PayoffLayerKernel]
	for _, l := range p.layers {
		q := p.c.newLaunch(k, l.l)
		q.i64(l.nets).i64(l.rows).i64(l.in).i64(l.out).ptr(l.x).i64(l.xstride).
			ptr(l.params).i64(l.pstride).i64(l.woff).ptr(l.y).i64(l.ystride).i64(l.act)
		p.c.submit(&q)
	}
	logloss := int64(0)
	if s.Log {
		logloss = 1
	}
	q := p.c.newLaunch(p.c.w.k.byName[kernels.PayoffReduceKernel], p.reduce)
	q.i64(int64(s.K)).i64(int64(s.J)).i64(int64(s.Batch)).ptr(p.out).i64(logloss).ptr(p.m)
	p.c.submit(&q)
	return p.c.sync(unsafe.Pointer(&m[0]), p.m, 8*int64(len(m)))
}

// Free releases the device buffers (synchronous); freeing twice is a
// no-op.
func (p *CUDAPayoff) Free() error {
	if p.freed {
		return nil
	}
	p.freed = true
	return p.c.do(func() error {
		var first error
		for _, d := range []cu.DevicePtr{p.gen, p.disc, p.z, p.x, p.h1, p.h2, p.out, p.m} {
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

func conv32(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}
