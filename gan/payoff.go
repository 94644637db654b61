package gan

// payoff evaluates the payoff matrix M of every generator against every
// discriminator on one shared minibatch, in float32, as batched matrix
// products: the noise goes through every generator's first layer in one
// product (B × In·(K·Hidden)), then through each generator's other layers;
// the real batch and all K generated batches, stacked ((K+1)·B rows), go
// through every discriminator's first layer in one product and then through
// each discriminator's other layers. That is K + J + 2 products of the
// hidden width, instead of the K·J separate passes of a pair at a time.
type payoff struct {
	gen, disc Arch
	k, j, b   int
	loss      Loss
	gs, ds    *stack[float32]
	gw, dw    work[float32]
	z, x, out []float32
}

func newPayoff(gen, disc Arch, k, j, batch int, loss Loss) *payoff {
	return &payoff{
		gen: gen, disc: disc, k: k, j: j, b: batch, loss: loss,
		gs: newStack[float32](gen, k), ds: newStack[float32](disc, j),
		z:   make([]float32, batch*gen.In),
		x:   make([]float32, (k+1)*batch*disc.In),
		out: make([]float32, (k+1)*batch),
	}
}

// eval writes M (K×J, row-major) for the generators' and discriminators'
// flat parameters, the real batch (B×d) and the noise z (B×In) shared by
// every generator:
//
//	M_kj = mean_b f_r(D_j(x_b)) − mean_b f_f(D_j(G_k(z_b))).
func (p *payoff) eval(m []float64, gens, discs [][]float64, real, z []float64) {
	p.gs.load(gens)
	p.ds.load(discs)
	conv(p.z, z)
	conv(p.x[:p.b*p.disc.In], real)
	p.gs.firstLayer(&p.gw, p.z, p.b)
	blk := p.b * p.disc.In
	for k := range p.k {
		p.gs.rest(&p.gw, k, p.b, p.x[(k+1)*blk:(k+2)*blk])
	}
	rows := (p.k + 1) * p.b
	p.ds.firstLayer(&p.dw, p.x, rows)
	inv := 1 / float64(p.b)
	for j := range p.j {
		p.ds.rest(&p.dw, j, rows, p.out)
		r := 0.0
		for _, t := range p.out[:p.b] {
			r += p.loss.realTerm(float64(t))
		}
		for k := range p.k {
			f := 0.0
			for _, t := range p.out[(k+1)*p.b : (k+2)*p.b] {
				f += p.loss.fakeTerm(float64(t))
			}
			m[k*p.j+j] = (r - f) * inv
		}
	}
}

// flops is the number of floating-point operations of the matrix products
// of one eval.
func (p *payoff) flops() float64 {
	return p.gs.flops(p.b) + p.ds.flops((p.k+1)*p.b)
}
