package backendtest

import (
	"math"
	"sort"

	"github.com/gpump/gpump/tensorops"
)

// refDraw returns the indices draw d selects from the weights w with the
// uniforms k0, k0 + 1, ... by the rule of tensorops.SampledOperator, or nil
// when the weights have no positive finite total.
func refDraw(w []float64, d tensorops.Draw, k0 int) []int {
	last := -1
	for i := range w {
		if w[i] > 0 {
			last = i
		}
	}
	s := make([]float64, len(w))
	var t float64
	for i := range w {
		t += max(w[i], 0)
		s[i] = t
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return nil
	}
	idx := make([]int, d.Batch)
	for k := range idx {
		x := tensorops.DrawUniform(d.Seed, d.Counter, uint64(k0+k)) * t
		i := sort.Search(len(s), func(i int) bool { return x < s[i] })
		if i == len(s) {
			i = last
		}
		idx[k] = i
	}
	return idx
}

// weights returns n dyadic weights in {−1/8, 0, …, 3/8}, some positive: the
// running sums are exact in any order of addition, so no uniform falls
// within rounding of a boundary and every backend must draw exactly the
// reference's indices, zero and negative weights never among them.
func (st *selfTest) weights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = float64(st.rng.IntN(5)-1) / 8
	}
	w[st.rng.IntN(n)] = 0.25
	return w
}

// sampledOperator checks SampledOperator against the reference on the
// current matrix, with and without its transposed copy, for batches of 1 to
// more than either dimension, and with a weight vector whose total is not
// positive (its output must be NaN, the other one not).
func (st *selfTest) sampledOperator() error {
	var e errAccum
	for _, c := range []struct {
		b          int
		transposed bool
		bad        int // 1: q has no positive weight; 2: p holds a NaN
	}{{1, false, 0}, {7, true, 0}, {300, false, 0}, {300, true, 0}, {7, false, 1}, {7, true, 2}} {
		ph, qh := st.weights(st.m), st.weights(st.n)
		switch c.bad {
		case 1:
			for j := range qh {
				qh[j] = -math.Abs(qh[j])
			}
		case 2:
			ph[st.rng.IntN(st.m)] = math.NaN()
		}
		vs, err := st.vecs(ph, qh, nans(st.m), nans(st.n))
		if err != nil {
			return err
		}
		p, q, fp, fq := vs[0], vs[1], vs[2], vs[3]
		d := tensorops.Draw{Batch: c.b, Seed: st.rng.Uint64(), Counter: st.rng.Uint64N(1 << 20)}
		var at tensorops.Matrix
		if c.transposed {
			at = st.at
		}
		st.b.SampledOperator(fp, fq, st.mat, at, p, q, d)
		cols, rows := refDraw(qh, d, 0), refDraw(ph, d, c.b)
		wp, sp := st.sampledSum(cols, st.m, func(i, j int) float64 { return -st.a[i*st.n+j] })
		wq, sq := st.sampledSum(rows, st.n, func(j, i int) float64 { return st.a[i*st.n+j] })
		for _, out := range []struct {
			v           tensorops.Vector
			want, scale []float64
		}{{fp, wp, sp}, {fq, wq, sq}} {
			h, err := st.store(out.v)
			if err != nil {
				return err
			}
			if out.want != nil {
				e.addVec(h, out.want, out.scale)
				continue
			}
			for _, x := range h {
				if !math.IsNaN(x) {
					e.max = math.Inf(1)
				}
			}
		}
	}
	st.record("SampledOperator", reductionTol(300), e)
	return nil
}

// sampledSum returns out_r = (1/b) Σ_k entry(r, idx_k) for r < n in draw
// order, and the scales (1/b) Σ_k |entry(r, idx_k)|; nil for nil idx.
func (st *selfTest) sampledSum(idx []int, n int, entry func(r, k int) float64) (out, scale []float64) {
	if idx == nil {
		return nil, nil
	}
	out, scale = make([]float64, n), make([]float64, n)
	b := float64(len(idx))
	for r := range n {
		for _, k := range idx {
			x := entry(r, k)
			out[r] += x
			scale[r] += math.Abs(x)
		}
		out[r] /= b
		scale[r] /= b
	}
	return out, scale
}
