package backendtest

import (
	"math"
	"slices"

	"github.com/gpump/gpump/tensorops"
)

// exactCheck records, for wild data of both lengths placed on the backend,
// the bits of the vector move returns against the data.
func (st *selfTest) exactCheck(op string, move func(src tensorops.Vector) (tensorops.Vector, error)) error {
	var e errAccum
	for _, n := range st.lens() {
		data := st.wild(n)
		src, err := st.vec(data)
		if err != nil {
			return err
		}
		dst, err := move(src)
		if err != nil {
			return err
		}
		if err := st.checkBits(&e, dst, data); err != nil {
			return err
		}
	}
	st.record(op, ExactTol, e)
	return nil
}

func (st *selfTest) loadStore() error {
	return st.exactCheck("Load/Store", func(v tensorops.Vector) (tensorops.Vector, error) { return v, nil })
}

func (st *selfTest) copy() error {
	return st.exactCheck("Copy", func(src tensorops.Vector) (tensorops.Vector, error) {
		dst, err := st.nanVec(src.Len())
		if err != nil {
			return nil, err
		}
		st.b.Copy(dst, src)
		return dst, nil
	})
}

// refAxpby returns alpha x + beta y and the per-element scales |αx| + |βy|.
func refAxpby(alpha float64, x []float64, beta float64, y []float64) (want, scale []float64) {
	want, scale = make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		want[i] = alpha*x[i] + beta*y[i]
		scale[i] = math.Abs(alpha*x[i]) + math.Abs(beta*y[i])
	}
	return want, scale
}

// axpby checks dst = αx + βy into a fresh vector, then into x and into y
// (the contract lets dst alias either).
func (st *selfTest) axpby() error {
	var e errAccum
	for _, n := range st.lens() {
		xs, ys := st.uniform(n, -3, 3), st.uniform(n, -1, 1)
		vs, err := st.vecs(xs, ys, nans(n))
		if err != nil {
			return err
		}
		x, y, dst := vs[0], vs[1], vs[2]
		for _, alias := range []int{0, 1, 2} {
			alpha, beta := 4*st.rng.Float64()-2, 4*st.rng.Float64()-2
			want, scale := refAxpby(alpha, xs, beta, ys)
			d := dst
			switch alias {
			case 1:
				d = x
			case 2:
				d = y
			}
			st.b.Axpby(d, alpha, x, beta, y)
			got, err := st.store(d)
			if err != nil {
				return err
			}
			e.addVec(got, want, scale)
			// Continue from what the backend computed, so that one error is
			// not counted again by the next call.
			switch alias {
			case 1:
				xs = got
			case 2:
				ys = got
			}
		}
	}
	st.record("Axpby", ElementwiseTol, e)
	return nil
}

// refMulVec returns A q and the per-row scales Σ_j |A_ij q_j|.
func refMulVec(a []float64, m, n int, q []float64) (aq, scale []float64) {
	aq, scale = make([]float64, m), make([]float64, m)
	for i := range m {
		var s, abs float64
		for j := range n {
			t := a[i*n+j] * q[j]
			s += t
			abs += math.Abs(t)
		}
		aq[i], scale[i] = s, abs
	}
	return aq, scale
}

// refMulTVec returns Aᵀ p and the per-column scales Σ_i |A_ij p_i|.
func refMulTVec(a []float64, m, n int, p []float64) (atp, scale []float64) {
	atp, scale = make([]float64, n), make([]float64, n)
	for i := range m {
		for j := range n {
			t := a[i*n+j] * p[i]
			atp[j] += t
			scale[j] += math.Abs(t)
		}
	}
	return atp, scale
}

// matRef computes a reference output of a matrix operation, with its
// scales, from the host copies of p and q.
type matRef func(p, q []float64) (want, scale []float64)

// aq and atp are the references A q and Aᵀ p.
func (st *selfTest) aq(_, q []float64) (want, scale []float64) {
	return refMulVec(st.a, st.m, st.n, q)
}

func (st *selfTest) atp(p, _ []float64) (want, scale []float64) {
	return refMulTVec(st.a, st.m, st.n, p)
}

// matCheck checks one matrix operation: run gets fresh signed p (length m)
// and q (length n) and NaN-filled outputs fp (length m) and fq (length n);
// fp is recorded against refP and fq against refQ, where a nil reference
// leaves out an output the operation does not write.
func (st *selfTest) matCheck(op string, tol float64, run func(fp, fq, p, q tensorops.Vector), refP, refQ matRef) error {
	ph, qh := st.uniform(st.m, -1, 1), st.uniform(st.n, -1, 1)
	vs, err := st.vecs(ph, qh, nans(st.m), nans(st.n))
	if err != nil {
		return err
	}
	p, q, fp, fq := vs[0], vs[1], vs[2], vs[3]
	run(fp, fq, p, q)
	var e errAccum
	for _, out := range [2]struct {
		v   tensorops.Vector
		ref matRef
	}{{fp, refP}, {fq, refQ}} {
		if out.ref == nil {
			continue
		}
		want, scale := out.ref(ph, qh)
		if err := st.check(&e, out.v, want, scale); err != nil {
			return err
		}
	}
	st.record(op, tol, e)
	return nil
}

func (st *selfTest) operator() error {
	minusAq := func(p, q []float64) (want, scale []float64) {
		want, scale = st.aq(p, q)
		for i := range want {
			want[i] = -want[i]
		}
		return want, scale
	}
	return st.matCheck("Operator", reductionTol(max(st.m, st.n)),
		func(fp, fq, p, q tensorops.Vector) { st.b.Operator(fp, fq, st.mat, p, q) }, minusAq, st.atp)
}

func (st *selfTest) mulVec() error {
	return st.matCheck("MulVec", reductionTol(st.n),
		func(fp, _, _, q tensorops.Vector) { st.b.MulVec(fp, st.mat, q) }, st.aq, nil)
}

func (st *selfTest) mulTVec() error {
	return st.matCheck("MulTVec", reductionTol(st.m),
		func(_, fq, p, _ tensorops.Vector) { st.b.MulTVec(fq, st.mat, p) }, nil, st.atp)
}

// point allocates a NaN-filled point of the setup: two vectors for the
// entropic setup, one shared vector for the Euclidean one.
func (st *selfTest) point(n int, s tensorops.Setup) (tensorops.Point, error) {
	var logw []float64
	if s != tensorops.Euclidean {
		logw = nans(n)
	}
	return st.loadPoint(logw, nans(n))
}

// loadPoint allocates a point holding the given log-weights (entropic; nil
// for Euclidean) and values.
func (st *selfTest) loadPoint(logw, value []float64) (tensorops.Point, error) {
	v, err := st.vec(value)
	if err != nil {
		return tensorops.Point{}, err
	}
	if logw == nil {
		return tensorops.Point{State: v, Value: v}, nil
	}
	l, err := st.vec(logw)
	if err != nil {
		return tensorops.Point{}, err
	}
	return tensorops.Point{State: l, Value: v}, nil
}

func (st *selfTest) start() error {
	for _, s := range []tensorops.Setup{tensorops.Entropic, tensorops.Euclidean} {
		var e errAccum
		for _, n := range st.lens() {
			pt, err := st.point(n, s)
			if err != nil {
				return err
			}
			st.b.Start(pt, s)
			val, err := st.store(pt.Value)
			if err != nil {
				return err
			}
			u := 1 / float64(n)
			for _, v := range val {
				e.add(v, u, u)
			}
			if s == tensorops.Entropic {
				lw, err := st.store(pt.State)
				if err != nil {
					return err
				}
				lu := -math.Log(float64(n))
				for _, v := range lw {
					e.add(v, lu, max(1, -lu))
				}
			}
		}
		st.record("Start/"+s.String(), ElementwiseTol, e)
	}
	return nil
}

// refLogSumExp returns log Σ exp(v).
func refLogSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = max(mx, x)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}

// refProb materializes a log-weight as the contract says: probabilities
// below 1e-300 (log-weights below tensorops.MinLogProb) are 0.
func refProb(l float64) float64 {
	if l < tensorops.MinLogProb {
		return 0
	}
	return math.Exp(l)
}

// refLogProx returns the entropic prox center − eta g − logsumexp in log
// space, its probabilities, and the per-element scales of the log-weights
// 1 + |c_i| + |eta g_i| + |lse|.
func refLogProx(center, g []float64, eta float64) (logw, prob, scale []float64) {
	n := len(center)
	raw := make([]float64, n)
	for i := range raw {
		raw[i] = center[i] - eta*g[i]
	}
	lse := refLogSumExp(raw)
	logw, prob, scale = make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range raw {
		logw[i] = r - lse
		prob[i] = refProb(logw[i])
		scale[i] = 1 + math.Abs(center[i]) + math.Abs(eta*g[i]) + math.Abs(lse)
	}
	return logw, prob, scale
}

// refProjectSimplex projects v onto the probability simplex by sorting
// (Held, Wolfe and Crowder): τ = (Σ_{k≤ρ} s_k − 1)/ρ for the largest ρ with
// s_ρ > τ_ρ, where s is v sorted in decreasing order.
func refProjectSimplex(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	slices.Reverse(s)
	var cum, tau float64
	for k, x := range s {
		cum += x
		if t := (cum - 1) / float64(k+1); x > t {
			tau = t
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = max(x-tau, 0)
	}
	return out
}

// runProx places the center (log-weights cl, nil for the Euclidean setup,
// and values cv) and g on the backend and returns Prox's result, written
// into a NaN-filled point.
func (st *selfTest) runProx(cl, cv, gh []float64, eta float64, s tensorops.Setup) (tensorops.Point, error) {
	center, err := st.loadPoint(cl, cv)
	if err != nil {
		return tensorops.Point{}, err
	}
	g, err := st.vec(gh)
	if err != nil {
		return tensorops.Point{}, err
	}
	dst, err := st.point(len(cv), s)
	if err != nil {
		return tensorops.Point{}, err
	}
	st.b.Prox(dst, center, g, eta, s)
	return dst, nil
}

// prox checks both setups with a moderate step and a large one. The large
// entropic step spreads eta g over ±800, so most probabilities fall below
// 1e-300 and must be materialized as 0; the large Euclidean step makes the
// projection sparse.
func (st *selfTest) prox() error {
	tol := reductionTol(max(st.m, st.n))
	var e errAccum
	for _, n := range st.lens() {
		for _, eta := range []float64{0.9, 800} {
			cl, cp := st.logPoint(n, 3)
			gh := st.uniform(n, -1, 1)
			dst, err := st.runProx(cl, cp, gh, eta, tensorops.Entropic)
			if err != nil {
				return err
			}
			gl, err := st.store(dst.State)
			if err != nil {
				return err
			}
			gp, err := st.store(dst.Value)
			if err != nil {
				return err
			}
			wl, wp, scale := refLogProx(cl, gh, eta)
			e.addVec(gl, wl, scale)
			// A probability's relative error is its log-weight's absolute
			// error. One that is 0 where it should not be, or the reverse,
			// counts as an error of 1, unless its log-weight is within the
			// tolerance of the 1e-300 cut, where either is right.
			for i := range wp {
				if (gp[i] == 0) != (wp[i] == 0) {
					if math.Abs(wl[i]-tensorops.MinLogProb) > 10*tol*scale[i] {
						e.max = max(e.max, 1)
					}
					continue
				}
				e.add(gp[i], wp[i], wp[i]*scale[i])
			}
		}
	}
	st.record("Prox/entropic", tol, e)

	e = errAccum{}
	for _, n := range st.lens() {
		for _, eta := range []float64{0.5, 50} {
			ch := st.simplex(n, 0.2)
			gh := st.uniform(n, -1, 1)
			dst, err := st.runProx(nil, ch, gh, eta, tensorops.Euclidean)
			if err != nil {
				return err
			}
			v := make([]float64, n)
			scale := 1.0
			for i := range v {
				v[i] = ch[i] - eta*gh[i]
				scale = max(scale, math.Abs(ch[i])+math.Abs(eta*gh[i]))
			}
			if err := st.check(&e, dst.Value, refProjectSimplex(v), []float64{scale}); err != nil {
				return err
			}
		}
	}
	st.record("Prox/euclidean", tol, e)
	return nil
}

// proxInputs are the host copies of one ProxStats block's inputs.
type proxInputs struct {
	setup                  tensorops.Setup
	yl, xl, nl             []float64 // log-weights (entropic only)
	y, x, yn, m, g, ax, ag []float64
}

// refStats holds the reference tensorops.BlockStats and the scale of each field.
type refStats struct {
	want, scale tensorops.BlockStats
	nax, nag    []float64 // updated averages
	sax, sag    []float64 // their per-element scales
}

// refProxStats computes what ProxStats must return for one block, with
// naive loops, and the scale (sum of magnitudes of the terms) of each
// scalar.
func refProxStats(in *proxInputs, w float64) refStats {
	n := len(in.x)
	var r refStats
	var divXY, divYX, distXY, distXYNew, dual, inner float64
	var sDivXY, sDivYX, sDistXY, sDistXYNew, sDual, sInner float64
	for i := range n {
		d := in.g[i] - in.m[i]
		sd := math.Abs(in.g[i]) + math.Abs(in.m[i])
		dx := in.x[i] - in.yn[i]
		sdx := math.Abs(in.x[i]) + math.Abs(in.yn[i])
		inner += d * dx
		sInner += sd * sdx
		switch in.setup {
		case tensorops.Entropic:
			divXY += in.x[i] * (in.xl[i] - in.yl[i])
			sDivXY += math.Abs(in.x[i]) * (math.Abs(in.xl[i]) + math.Abs(in.yl[i]))
			divYX += in.yn[i] * (in.nl[i] - in.xl[i])
			sDivYX += math.Abs(in.yn[i]) * (math.Abs(in.nl[i]) + math.Abs(in.xl[i]))
			distXY += math.Abs(in.x[i] - in.y[i])
			sDistXY += math.Abs(in.x[i]) + math.Abs(in.y[i])
			distXYNew += math.Abs(dx)
			sDistXYNew += sdx
			dual = max(dual, math.Abs(d))
			sDual = max(sDual, sd)
		case tensorops.Euclidean:
			dy := in.x[i] - in.y[i]
			sdy := math.Abs(in.x[i]) + math.Abs(in.y[i])
			distXY += dy * dy
			sDistXY += sdy * sdy
			distXYNew += dx * dx
			sDistXYNew += sdx * sdx
			dual += d * d
			sDual += sd * sd
		}
	}
	if in.setup == tensorops.Euclidean {
		divXY, divYX = distXY/2, distXYNew/2
		sDivXY, sDivYX = sDistXY/2, sDistXYNew/2
		distXY, distXYNew, dual = math.Sqrt(distXY), math.Sqrt(distXYNew), math.Sqrt(dual)
		sDistXY, sDistXYNew, sDual = math.Sqrt(sDistXY), math.Sqrt(sDistXYNew), math.Sqrt(sDual)
	}
	minG, minAvg := math.Inf(1), math.Inf(1)
	var sMinG, sMinAvg float64
	r.nax, r.nag = make([]float64, n), make([]float64, n)
	r.sax, r.sag = make([]float64, n), make([]float64, n)
	for i := range n {
		minG = min(minG, in.g[i])
		sMinG = max(sMinG, math.Abs(in.g[i]))
		r.nax[i] = in.ax[i] + w*(in.x[i]-in.ax[i])
		r.sax[i] = math.Abs(in.ax[i]) + math.Abs(w)*(math.Abs(in.x[i])+math.Abs(in.ax[i]))
		r.nag[i] = in.ag[i] + w*(in.g[i]-in.ag[i])
		r.sag[i] = math.Abs(in.ag[i]) + math.Abs(w)*(math.Abs(in.g[i])+math.Abs(in.ag[i]))
		minAvg = min(minAvg, r.nag[i])
		sMinAvg = max(sMinAvg, r.sag[i])
	}
	r.want = tensorops.BlockStats{
		GapStats: tensorops.GapStats{MinG: minG, MinAvgG: minAvg},
		DivXY:    max(divXY, 0), DivYX: max(divYX, 0),
		DistXY: distXY, DistXYNew: distXYNew, DualGM: dual, InnerGM: inner,
	}
	r.scale = tensorops.BlockStats{
		GapStats: tensorops.GapStats{MinG: sMinG, MinAvgG: sMinAvg},
		DivXY:    sDivXY, DivYX: sDivYX,
		DistXY: sDistXY, DistXYNew: sDistXYNew, DualGM: sDual, InnerGM: sInner,
	}
	return r
}

// addStats records every field of got against the reference.
func (e *errAccum) addStats(got tensorops.BlockStats, r *refStats) {
	w, s := &r.want, &r.scale
	e.add(got.MinG, w.MinG, s.MinG)
	e.add(got.MinAvgG, w.MinAvgG, s.MinAvgG)
	e.add(got.DivXY, w.DivXY, s.DivXY)
	e.add(got.DivYX, w.DivYX, s.DivYX)
	e.add(got.DistXY, w.DistXY, s.DistXY)
	e.add(got.DistXYNew, w.DistXYNew, s.DistXYNew)
	e.add(got.DualGM, w.DualGM, s.DualGM)
	e.add(got.InnerGM, w.InnerGM, s.InnerGM)
}

// proxBlock draws one block's inputs and places them on the backend.
func (st *selfTest) proxBlock(n int, s tensorops.Setup) (*proxInputs, tensorops.ProxBlock, error) {
	in := &proxInputs{setup: s}
	pb := tensorops.ProxBlock{Setup: s}
	var err error
	pts := []struct {
		l, v *[]float64
		p    *tensorops.Point
	}{{&in.yl, &in.y, &pb.Y}, {&in.xl, &in.x, &pb.X}, {&in.nl, &in.yn, &pb.YNew}}
	for _, pt := range pts {
		if s == tensorops.Entropic {
			*pt.l, *pt.v = st.logPoint(n, 2)
		} else {
			*pt.v = st.simplex(n, 0.2)
		}
		if *pt.p, err = st.loadPoint(*pt.l, *pt.v); err != nil {
			return nil, pb, err
		}
	}
	in.m, in.g = st.uniform(n, -2, 2), st.uniform(n, -2, 2)
	in.ax, in.ag = st.simplex(n, 0), st.uniform(n, -2, 2)
	for _, v := range []struct {
		h []float64
		d *tensorops.Vector
	}{{in.m, &pb.M}, {in.g, &pb.G}, {in.ax, &pb.AvgX}, {in.ag, &pb.AvgG}} {
		if *v.d, err = st.vec(v.h); err != nil {
			return nil, pb, err
		}
	}
	if pb.NewAvgX, err = st.nanVec(n); err != nil {
		return nil, pb, err
	}
	if pb.NewAvgG, err = st.nanVec(n); err != nil {
		return nil, pb, err
	}
	return in, pb, nil
}

// checkAverages records the updated averages ax and ag against the
// reference.
func (st *selfTest) checkAverages(e *errAccum, ax, ag tensorops.Vector, r *refStats) error {
	if err := st.check(e, ax, r.nax, r.sax); err != nil {
		return err
	}
	return st.check(e, ag, r.nag, r.sag)
}

// proxStats runs two ProxStats calls with a block of each setup, the row
// block entropic and the column block Euclidean, then the reverse, and
// checks the scalars, the new averages, and that the old averages are
// untouched.
func (st *selfTest) proxStats() error {
	var acc [2]errAccum // by setup
	lens := st.lens()
	for _, sets := range [][2]tensorops.Setup{{tensorops.Entropic, tensorops.Euclidean}, {tensorops.Euclidean, tensorops.Entropic}} {
		var ins [2]*proxInputs
		var blocks [2]tensorops.ProxBlock
		for k := range 2 {
			var err error
			if ins[k], blocks[k], err = st.proxBlock(lens[k], sets[k]); err != nil {
				return err
			}
		}
		w := 0.05 + 0.9*st.rng.Float64()
		dst := make([]tensorops.BlockStats, 2)
		for k := range dst {
			dst[k] = tensorops.BlockStats{GapStats: tensorops.GapStats{MinG: math.NaN(), MinAvgG: math.NaN()}, DivXY: math.NaN(), DivYX: math.NaN(),
				DistXY: math.NaN(), DistXYNew: math.NaN(), DualGM: math.NaN(), InnerGM: math.NaN()}
		}
		if err := st.b.ProxStats(dst, w, blocks[:]); err != nil {
			return err
		}
		for k := range 2 {
			e := &acc[sets[k]]
			r := refProxStats(ins[k], w)
			e.addStats(dst[k], &r)
			if err := st.checkAverages(e, blocks[k].NewAvgX, blocks[k].NewAvgG, &r); err != nil {
				return err
			}
			if err := st.checkBits(e, blocks[k].AvgX, ins[k].ax); err != nil {
				return err
			}
			if err := st.checkBits(e, blocks[k].AvgG, ins[k].ag); err != nil {
				return err
			}
		}
	}
	tol := reductionTol(max(st.m, st.n))
	st.record("ProxStats/entropic", tol, acc[tensorops.Entropic])
	st.record("ProxStats/euclidean", tol, acc[tensorops.Euclidean])
	return nil
}

// average runs Average on both blocks with running averages (the pattern
// of the regret-matching baselines), then without (the pattern of the
// solver's certification, w = 0), checking the updated averages and the
// extremes.
func (st *selfTest) average() error {
	var e errAccum
	lens := st.lens()
	for _, withAvg := range []bool{true, false} {
		var blocks [2]tensorops.AvgBlock
		var xs, gs, axs, ags [2][]float64
		for k, n := range lens {
			xs[k], gs[k] = st.simplex(n, 0.2), st.uniform(n, -2, 2)
			vs, err := st.vecs(xs[k], gs[k])
			if err != nil {
				return err
			}
			blocks[k].X, blocks[k].G = vs[0], vs[1]
			if withAvg {
				axs[k], ags[k] = st.simplex(n, 0), st.uniform(n, -2, 2)
				if vs, err = st.vecs(axs[k], ags[k]); err != nil {
					return err
				}
				blocks[k].AvgX, blocks[k].AvgG = vs[0], vs[1]
			}
		}
		w := 0.0
		if withAvg {
			w = 0.05 + 0.9*st.rng.Float64()
		}
		nan := tensorops.GapStats{MinG: math.NaN(), MinAvgG: math.NaN()}
		dst := []tensorops.GapStats{nan, nan}
		if err := st.b.Average(dst, w, blocks[:]); err != nil {
			return err
		}
		for k := range 2 {
			minG, sG := math.Inf(1), 0.0
			for _, g := range gs[k] {
				minG = min(minG, g)
				sG = max(sG, math.Abs(g))
			}
			e.add(dst[k].MinG, minG, sG)
			if !withAvg {
				continue
			}
			in := proxInputs{x: xs[k], g: gs[k], ax: axs[k], ag: ags[k]}
			// The averaging part of ProxStats is the same update.
			r := averageRef(&in, w)
			e.add(dst[k].MinAvgG, r.want.MinAvgG, r.scale.MinAvgG)
			if err := st.checkAverages(&e, blocks[k].AvgX, blocks[k].AvgG, &r); err != nil {
				return err
			}
		}
	}
	st.record("Average", ElementwiseTol, e)
	return nil
}

// averageRef is the averaging part of refProxStats: the updated averages
// and min of the averaged g, with their scales.
func averageRef(in *proxInputs, w float64) refStats {
	n := len(in.x)
	r := refStats{nax: make([]float64, n), nag: make([]float64, n), sax: make([]float64, n), sag: make([]float64, n)}
	r.want.MinAvgG = math.Inf(1)
	for i := range n {
		r.nax[i] = in.ax[i] + w*(in.x[i]-in.ax[i])
		r.sax[i] = math.Abs(in.ax[i]) + math.Abs(w)*(math.Abs(in.x[i])+math.Abs(in.ax[i]))
		r.nag[i] = in.ag[i] + w*(in.g[i]-in.ag[i])
		r.sag[i] = math.Abs(in.ag[i]) + math.Abs(w)*(math.Abs(in.g[i])+math.Abs(in.ag[i]))
		r.want.MinAvgG = min(r.want.MinAvgG, r.nag[i])
		r.scale.MinAvgG = max(r.scale.MinAvgG, r.sag[i])
	}
	return r
}

// refRegretMatch performs one RM+ or PRM+ update on host copies and returns
// the new x and r with their scales (per element for r, one for x).
func refRegretMatch(x, r, u []float64, sign, tiny float64, predictive bool) (nx, nr, sr []float64, sx float64) {
	n := len(x)
	var v, sv float64
	for i := range n {
		v += x[i] * u[i]
		sv += math.Abs(x[i] * u[i])
	}
	v *= sign
	nr, sr = make([]float64, n), make([]float64, n)
	num := make([]float64, n)
	var sum, smax float64
	for i := range n {
		rho := sign*u[i] - v
		nr[i] = max(r[i]+rho, 0)
		sr[i] = math.Abs(r[i]) + math.Abs(u[i]) + sv
		num[i] = nr[i]
		if predictive {
			num[i] = max(nr[i]+rho, 0)
			sr[i] *= 2
		}
		sum += num[i]
		smax = max(smax, sr[i])
	}
	nx = slices.Clone(x)
	if !(sum > tiny) {
		return nx, nr, sr, 1
	}
	var xmax float64
	for i := range n {
		nx[i] = num[i] / sum
		xmax = max(xmax, nx[i])
	}
	return nx, nr, sr, xmax + smax/sum
}

// regretMatch checks RM+ and PRM+ with both signs (the row player with
// sign +1, the column player with −1, as the baselines call it), each once
// with a threshold the regrets clear and once with one they cannot, where
// x must stay exactly as it was.
func (st *selfTest) regretMatch() error {
	tol := reductionTol(max(st.m, st.n))
	for _, pred := range []bool{false, true} {
		var e errAccum
		for k, n := range st.lens() {
			sign := float64(1 - 2*k)
			for _, tiny := range []float64{1e-300, math.MaxFloat64} {
				xh := st.simplex(n, 0.2)
				rh := st.uniform(n, -0.2, 1)
				for i := range rh {
					rh[i] = max(rh[i], 0)
				}
				uh := st.uniform(n, -2, 2)
				vs, err := st.vecs(xh, rh, uh)
				if err != nil {
					return err
				}
				x, r, u := vs[0], vs[1], vs[2]
				st.b.RegretMatch(x, r, u, sign, tiny, pred)
				wx, wr, sr, sx := refRegretMatch(xh, rh, uh, sign, tiny, pred)
				if tiny == math.MaxFloat64 {
					err = st.checkBits(&e, x, wx)
				} else {
					err = st.check(&e, x, wx, []float64{sx})
				}
				if err != nil {
					return err
				}
				if err := st.check(&e, r, wr, sr); err != nil {
					return err
				}
			}
		}
		name := "RegretMatch/rm+"
		if pred {
			name = "RegretMatch/prm+"
		}
		st.record(name, tol, e)
	}
	return nil
}
