package backendtest

import (
	"math"
	"slices"

	"github.com/gpump/gpump/tensorops"
)

// The references of the prox self-tests: the prox mappings and the ProxStats
// and Average scalars computed naively on the host, each with the scale
// (the sum of the magnitudes of its terms) its tolerance is relative to.

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

// refBall projects v onto the ball of radius r around o by its definition,
// o + min(1, r/‖v − o‖)(v − o).
func refBall(v, o []float64, r float64) []float64 {
	var ss float64
	for i, x := range v {
		ss += (x - o[i]) * (x - o[i])
	}
	f := 1.0
	if norm := math.Sqrt(ss); norm > r {
		f = r / norm
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = o[i] + f*(x-o[i])
	}
	return out
}

// stepped returns c − eta g and the per-element scales |c_i| + |eta g_i|.
func stepped(c, g []float64, eta float64) (v, scale []float64) {
	v, scale = make([]float64, len(c)), make([]float64, len(c))
	for i := range c {
		v[i] = c[i] - eta*g[i]
		scale[i] = math.Abs(c[i]) + math.Abs(eta*g[i])
	}
	return v, scale
}

// proxInputs are the host copies of one ProxStats block's inputs.
type proxInputs struct {
	set                    *setCase
	yl, xl, nl             []float64 // log-weights (entropic only)
	y, x, yn, m, g, ax, ag []float64
	lin                    []float64 // nil: no linear term
}

// refStats holds the reference tensorops.BlockStats and the scale of each
// field.
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
	var divXY, divYX, distXY, distXYNew, dual, inner float64
	var sDivXY, sDivYX, sDistXY, sDistXYNew, sDual, sInner float64
	for i := range n {
		d := in.g[i] - in.m[i]
		sd := math.Abs(in.g[i]) + math.Abs(in.m[i])
		dx := in.x[i] - in.yn[i]
		sdx := math.Abs(in.x[i]) + math.Abs(in.yn[i])
		inner += d * dx
		sInner += sd * sdx
		if in.set.setup == tensorops.Entropic {
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
			continue
		}
		dy := in.x[i] - in.y[i]
		sdy := math.Abs(in.x[i]) + math.Abs(in.y[i])
		distXY += dy * dy
		sDistXY += sdy * sdy
		distXYNew += dx * dx
		sDistXYNew += sdx * sdx
		dual += d * d
		sDual += sd * sd
	}
	if in.set.setup != tensorops.Entropic {
		divXY, divYX = distXY/2, distXYNew/2
		sDivXY, sDivYX = sDistXY/2, sDistXYNew/2
		distXY, distXYNew, dual = math.Sqrt(distXY), math.Sqrt(distXYNew), math.Sqrt(dual)
		sDistXY, sDistXYNew, sDual = math.Sqrt(sDistXY), math.Sqrt(sDistXYNew), math.Sqrt(sDual)
	}
	r := averageRef(in, w)
	r.want.DivXY, r.want.DivYX = max(divXY, 0), max(divYX, 0)
	r.want.DistXY, r.want.DistXYNew, r.want.DualGM, r.want.InnerGM = distXY, distXYNew, dual, inner
	r.scale.DivXY, r.scale.DivYX = sDivXY, sDivYX
	r.scale.DistXY, r.scale.DistXYNew, r.scale.DualGM, r.scale.InnerGM = sDistXY, sDistXYNew, sDual, sInner
	return r
}

// averageRef returns the averages of in updated with weight fraction w and
// the gap quantities: the supports of g and of the new average of g, the
// linear term at x and at the new average of x, with their scales. Without
// ax (ag) the average of x (g) is left out: LinAvgX is 0 (MinAvgG NaN).
func averageRef(in *proxInputs, w float64) refStats {
	n := len(in.x)
	var r refStats
	gs := make([]float64, n)
	for i, x := range in.g {
		gs[i] = math.Abs(x)
	}
	r.want.MinG, r.scale.MinG = in.set.minInner(in.g, gs)
	r.want.MinAvgG = math.NaN()
	if in.ag != nil {
		r.nag, r.sag = make([]float64, n), make([]float64, n)
		for i := range n {
			r.nag[i] = in.ag[i] + w*(in.g[i]-in.ag[i])
			r.sag[i] = math.Abs(in.ag[i]) + math.Abs(w)*(math.Abs(in.g[i])+math.Abs(in.ag[i]))
		}
		r.want.MinAvgG, r.scale.MinAvgG = in.set.minInner(r.nag, r.sag)
	}
	if in.ax != nil {
		r.nax, r.sax = make([]float64, n), make([]float64, n)
		for i := range n {
			r.nax[i] = in.ax[i] + w*(in.x[i]-in.ax[i])
			r.sax[i] = math.Abs(in.ax[i]) + math.Abs(w)*(math.Abs(in.x[i])+math.Abs(in.ax[i]))
		}
	}
	for i, l := range in.lin {
		r.want.LinX += l * in.x[i]
		r.scale.LinX += math.Abs(l * in.x[i])
		if in.ax != nil {
			r.want.LinAvgX += l * r.nax[i]
			r.scale.LinAvgX += math.Abs(l) * r.sax[i]
		}
	}
	return r
}
