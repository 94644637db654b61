package tensorops

import "math"

// MinLogProb is log(1e-300): probabilities whose log-weight is below it are
// materialized as 0, so a vector of an entropic method never holds denormals
// (a denormal-laden vector made a reference matrix-vector product 2.7x
// slower).
const MinLogProb = -690.7755278982137

// LogProx is the entropic prox-mapping in log space on host slices:
//
//	dstLog = center − eta g − logsumexp(center − eta g)
//	dstProb = exp(dstLog), with values below 1e-300 set to 0
//
// center holds normalized log-weights. All slices must have the same length.
// dstLog may alias center and dstProb may alias g; dstLog and dstProb must be
// distinct. It panics on a length mismatch.
func LogProx(dstLog, dstProb, center, g []float64, eta float64) {
	n := len(center)
	if len(dstLog) != n || len(dstProb) != n || len(g) != n {
		panic("tensorops: LogProx length mismatch")
	}
	mx := math.Inf(-1)
	for i, c := range center {
		l := c - eta*g[i]
		dstLog[i] = l
		if l > mx {
			mx = l
		}
	}
	normalizeLog(dstLog, dstProb, mx)
}

// normalizeLog subtracts logsumexp from l (whose maximum is mx) and writes the
// probabilities: one exp per element, stored in prob by the summing pass and
// rescaled in place.
func normalizeLog(l, prob []float64, mx float64) {
	var s float64
	for i, v := range l {
		e := math.Exp(v - mx)
		prob[i] = e
		s += e
	}
	lse := mx + math.Log(s)
	inv := 1 / s
	for i := range l {
		v := l[i] - lse
		l[i] = v
		if v < MinLogProb {
			prob[i] = 0
		} else {
			prob[i] *= inv
		}
	}
}

// ProjectSimplex sets dst to the Euclidean projection of v onto the
// probability simplex. dst may alias v. It panics on a length mismatch or an
// empty v.
//
// It uses Michelot's active-set iteration: the threshold τ with Σ max(v_i − τ,
// 0) = 1 is approached from below by τ = (Σ_{v_i>τ} v_i − 1)/|{v_i > τ}|, which
// never discards a coordinate of the final support and needs no scratch
// memory. The iteration count is small in practice; after 64 rounds a
// bisection on τ to full precision takes over, so the worst case stays
// O(n log(1/ε)).
func ProjectSimplex(dst, v []float64) {
	n := len(v)
	if n == 0 || len(dst) != n {
		panic("tensorops: ProjectSimplex length mismatch")
	}
	var s float64
	for _, x := range v {
		s += x
	}
	tau := (s - 1) / float64(n)
	k := n
	for round := 0; ; round++ {
		sum, cnt := sumAbove(v, tau)
		if cnt == k || cnt == 0 {
			break
		}
		k = cnt
		next := (sum - 1) / float64(cnt)
		if next <= tau {
			break
		}
		tau = next
		if round == 64 {
			tau = bisectSimplex(v, tau)
			break
		}
	}
	for i, x := range v {
		dst[i] = max(x-tau, 0)
	}
}

// bisectSimplex finds τ ≥ lo with Σ max(v_i − τ, 0) = 1 by bisection and one
// exact step on the resulting support.
func bisectSimplex(v []float64, lo float64) float64 {
	hi := math.Inf(-1)
	for _, x := range v {
		hi = max(hi, x)
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		var s float64
		for _, x := range v {
			if x > mid {
				s += x - mid
			}
		}
		if s > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	sum, cnt := sumAbove(v, lo)
	return (sum - 1) / float64(cnt)
}

// sumAbove returns the sum and the number of the entries of v above tau.
func sumAbove(v []float64, tau float64) (sum float64, cnt int) {
	for _, x := range v {
		if x > tau {
			sum += x
			cnt++
		}
	}
	return sum, cnt
}
