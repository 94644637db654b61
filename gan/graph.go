//go:build !cuda

package gan

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graphs are the reference gradient graphs of both sides (Config.Graphs).
// They are left out of cuda builds, where gorgonia compiles its own CUDA
// engine, which needs cuDNN (graph_cuda.go).
type graphs struct {
	gg *genGraph
	dg *discGraph
}

func newGraphs(gen, disc Arch, k, j, b int, loss Loss) (*graphs, error) {
	gg, err := newGenGraph(gen, disc, k, j, b, loss)
	if err != nil {
		return nil, err
	}
	dg, err := newDiscGraph(disc, j, b, k*b, loss)
	if err != nil {
		return nil, err
	}
	return &graphs{gg: gg, dg: dg}, nil
}

// graphSteps is steps by the reference graphs.
func (t *trainer) graphSteps(scale float64) error {
	c := &t.cfg
	k, j, b := c.Generators, c.Discriminators, c.Batch
	d := t.data.Dim
	keep := 1 - c.explore() // the weight of p against the uniform mixture
	for range max(c.DiscSteps, 0) {
		t.data.Sample(data(t.gr.dg.vals[t.gr.dg.inputIndex(t.gr.dg.x)]), t.rng)
		// Every generator's fakes of one batch of noise, by the batched
		// forward pass.
		normals(t.z, t.rng)
		t.gfwd.load(t.mix.Generators)
		t.gfwd.firstLayer(&t.gwork, t.z, b)
		y, w := data(t.gr.dg.vals[t.gr.dg.inputIndex(t.gr.dg.y)]), data(t.gr.dg.vals[t.gr.dg.inputIndex(t.gr.dg.w)])
		for i := range k {
			t.gfwd.rest(&t.gwork, i, b, y[i*b*d:(i+1)*b*d])
			for r := range b {
				w[i*b+r] = (keep*t.mix.P[i] + (1-keep)/float64(k)) / float64(b)
			}
		}
		for i := range j {
			t.gr.dg.own[i].set(t.mix.Discriminators[i])
		}
		if _, err := t.gr.dg.run(t.dgrad); err != nil {
			return err
		}
		t.discSteps(scale)
	}
	for range max(c.GenSteps, 0) {
		for i := range k {
			normals(data(t.gr.gg.vals[t.gr.gg.inputIndex(t.gr.gg.z[i])]), t.rng)
			t.gr.gg.own[i].set(t.mix.Generators[i])
		}
		for i := range j {
			t.gr.gg.other[i].set(t.mix.Discriminators[i])
			t.gr.gg.setScalar(t.gr.gg.c[i], t.mix.Q[i]/float64(b))
		}
		if _, err := t.gr.gg.run(t.ggrad); err != nil {
			return err
		}
		t.genSteps(scale)
	}
	return nil
}

// A graph is a gorgonia expression graph of one side's loss over every
// particle at once, with the gradient of that loss with respect to the
// side's parameters. The loss is a sum of one term per particle of the
// side, each depending on that particle's parameters alone, so that its
// gradient with respect to one particle is the gradient of that particle's
// own loss: one run of the graph gives every particle's step.
type graph struct {
	g      *G.ExprGraph
	vm     G.VM
	loss   *G.Node
	own    []netNodes // the parameters differentiated
	other  []netNodes // the opposing particles, constants of the step
	inputs []*G.Node  // batches and weights, set before each run
	vals   []G.Value
}

// netNodes are the six parameter nodes of one network.
type netNodes struct {
	arch  Arch
	nodes [6]*G.Node
	vals  [6]*tensor.Dense
}

func newNetNodes(g *G.ExprGraph, a Arch, name string) netNodes {
	var n netNodes
	n.arch = a
	for i, l := range a.layers() {
		w := tensor.New(tensor.WithShape(l.in, l.out), tensor.Of(tensor.Float64))
		b := tensor.New(tensor.WithShape(l.out), tensor.Of(tensor.Float64))
		n.vals[2*i], n.vals[2*i+1] = w, b
		n.nodes[2*i] = G.NewMatrix(g, tensor.Float64, G.WithShape(l.in, l.out), G.WithName(fmt.Sprintf("%s_w%d", name, i+1)), G.WithValue(w))
		n.nodes[2*i+1] = G.NewVector(g, tensor.Float64, G.WithShape(l.out), G.WithName(fmt.Sprintf("%s_b%d", name, i+1)), G.WithValue(b))
	}
	return n
}

// set copies the flat parameters theta into the nodes' values.
func (n *netNodes) set(theta []float64) {
	for i, l := range n.arch.layers() {
		copy(n.vals[2*i].Data().([]float64), theta[l.w:l.b])
		copy(n.vals[2*i+1].Data().([]float64), theta[l.b:l.b+l.out])
	}
}

// grad copies the gradient held by the nodes into the flat dst.
func (n *netNodes) grad(dst []float64) error {
	for i, l := range n.arch.layers() {
		for k, off := range [2]int{l.w, l.b} {
			gv, err := n.nodes[2*i+k].Grad()
			if err != nil {
				return fmt.Errorf("gan: gradient of %s: %w", n.nodes[2*i+k].Name(), err)
			}
			copy(dst[off:], gv.Data().([]float64))
			// The tape machine adds each run's gradient to the last: clear
			// it for the next run.
			t, ok := gv.(tensor.Tensor)
			if !ok {
				return fmt.Errorf("gan: gradient of %s is a %T", n.nodes[2*i+k].Name(), gv)
			}
			t.Zero()
		}
	}
	return nil
}

// apply builds the network's map of the rows of x.
func (n *netNodes) apply(x *G.Node) *G.Node {
	h := x
	for i := range 3 {
		h = G.Must(G.BroadcastAdd(G.Must(G.Mul(h, n.nodes[2*i])), n.nodes[2*i+1], nil, []byte{0}))
		if i < 2 {
			h = G.Must(G.Tanh(h))
		}
	}
	return h
}

// input makes an input node with a value of the given shape.
func (gr *graph) input(name string, shape ...int) *G.Node {
	var v G.Value
	var n *G.Node
	if len(shape) == 0 {
		v = G.NewF64(0)
		n = G.NewScalar(gr.g, tensor.Float64, G.WithName(name), G.WithValue(v))
	} else {
		v = tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
		n = G.NewMatrix(gr.g, tensor.Float64, G.WithShape(shape...), G.WithName(name), G.WithValue(v))
	}
	gr.inputs = append(gr.inputs, n)
	gr.vals = append(gr.vals, v)
	return n
}

// finish differentiates the loss and compiles the graph.
func (gr *graph) finish() error {
	var wrt G.Nodes
	for _, n := range gr.own {
		wrt = append(wrt, n.nodes[:]...)
	}
	if _, err := G.Grad(gr.loss, wrt...); err != nil {
		return fmt.Errorf("gan: differentiating the loss: %w", err)
	}
	gr.vm = G.NewTapeMachine(gr.g, G.BindDualValues(wrt...))
	return nil
}

// run evaluates the loss and the gradients, written into grads (one flat
// vector per own particle), and returns the loss.
func (gr *graph) run(grads [][]float64) (float64, error) {
	// Values set with WithValue are the tensors filled by set and by the
	// callers of the inputs: rebind them, since a run may replace them.
	for _, n := range append(gr.own, gr.other...) {
		for i, node := range n.nodes {
			if err := G.Let(node, n.vals[i]); err != nil {
				return 0, fmt.Errorf("gan: %w", err)
			}
		}
	}
	for i, node := range gr.inputs {
		if err := G.Let(node, gr.vals[i]); err != nil {
			return 0, fmt.Errorf("gan: %w", err)
		}
	}
	defer gr.vm.Reset()
	if err := gr.vm.RunAll(); err != nil {
		return 0, fmt.Errorf("gan: running the gradient graph: %w", err)
	}
	for k := range gr.own {
		if err := gr.own[k].grad(grads[k]); err != nil {
			return 0, err
		}
	}
	return gr.loss.Value().Data().(float64), nil
}

// genGraph is the generators' loss: for each generator k, with its own
// batch z_k of noise, sum_j c_j · sum_b g(D_j(G_k(z_kb))), where c_j = q_j/B
// and g(t) = −t (wgan) or softplus(−t) (log, the non-saturating loss).
type genGraph struct {
	graph
	z []*G.Node
	c []*G.Node
}

func newGenGraph(gen, disc Arch, k, j, batch int, loss Loss) (*genGraph, error) {
	gg := &genGraph{}
	gg.g = G.NewGraph()
	var fakes G.Nodes
	for i := range k {
		gg.own = append(gg.own, newNetNodes(gg.g, gen, fmt.Sprintf("g%d", i)))
		z := gg.input(fmt.Sprintf("z%d", i), batch, gen.In)
		gg.z = append(gg.z, z)
		fakes = append(fakes, gg.own[i].apply(z))
	}
	for i := range j {
		gg.other = append(gg.other, newNetNodes(gg.g, disc, fmt.Sprintf("d%d", i)))
		gg.c = append(gg.c, gg.input(fmt.Sprintf("c%d", i)))
	}
	// Each discriminator judges each generator's fakes apart: joining the
	// fakes along the batch axis (Concat) gave wrong gradients to the
	// generators past the fourth at 64 rows each.
	for _, fake := range fakes {
		for i := range j {
			o := G.Must(G.Neg(gg.other[i].apply(fake)))
			if loss == Log {
				o = G.Must(G.Softplus(o))
			}
			term := G.Must(G.Mul(G.Must(G.Sum(o)), gg.c[i]))
			if gg.loss == nil {
				gg.loss = term
			} else {
				gg.loss = G.Must(G.Add(gg.loss, term))
			}
		}
	}
	return gg, gg.finish()
}

// discGraph is the discriminators' loss, to be minimized: for each
// discriminator j, −mean_b f(D_j(x_b)) + sum_r w_r f'(D_j(y_r)) over the real
// batch x and the fakes y of every generator, weighted w_r = p_k/B on the
// rows of generator k; wgan has f(t) = f'(t) = t, log the cross-entropy
// softplus(−t) on real and softplus(t) on fake rows (signs folded in).
type discGraph struct {
	graph
	x, y, w *G.Node
}

func newDiscGraph(disc Arch, j, real, fake int, loss Loss) (*discGraph, error) {
	dg := &discGraph{}
	dg.g = G.NewGraph()
	dg.x = dg.input("x", real, disc.In)
	dg.y = dg.input("y", fake, disc.In)
	dg.w = dg.input("w", fake, 1)
	for i := range j {
		dg.own = append(dg.own, newNetNodes(dg.g, disc, fmt.Sprintf("d%d", i)))
		or, of := dg.own[i].apply(dg.x), dg.own[i].apply(dg.y)
		var term *G.Node
		if loss == Log {
			term = G.Must(G.Add(G.Must(G.Mean(G.Must(G.Softplus(G.Must(G.Neg(or)))))), G.Must(G.Sum(G.Must(G.HadamardProd(G.Must(G.Softplus(of)), dg.w))))))
		} else {
			term = G.Must(G.Add(G.Must(G.Neg(G.Must(G.Mean(or)))), G.Must(G.Sum(G.Must(G.HadamardProd(of, dg.w))))))
		}
		if dg.loss == nil {
			dg.loss = term
		} else {
			dg.loss = G.Must(G.Add(dg.loss, term))
		}
	}
	return dg, dg.finish()
}

// setScalar sets the value of the scalar input n to x.
func (gr *graph) setScalar(n *G.Node, x float64) {
	gr.vals[gr.inputIndex(n)] = G.NewF64(x)
}

// data returns the float64 backing of an input's value.
func data(v G.Value) []float64 { return v.Data().([]float64) }

// inputIndex is the index in gr.inputs (and gr.vals) of an input node.
func (gr *graph) inputIndex(n *G.Node) int {
	for i, in := range gr.inputs {
		if in == n {
			return i
		}
	}
	panic("gan: not an input of the graph")
}
