package gan

import "math"

// The loss terms in float64, the reference of the payoff tests (the
// payoff itself computes them in float32 with sgemm.Softplus).

// softplus is log(1 + e^t), without overflow.
func softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// realTerm is f_r(t), the payoff's term of a data point with
// discriminator output t.
func (l Loss) realTerm(t float64) float64 {
	if l == Log {
		return -softplus(-t)
	}
	return t
}

// fakeTerm is f_f(t), the term of a generated point (subtracted).
func (l Loss) fakeTerm(t float64) float64 {
	if l == Log {
		return softplus(t)
	}
	return t
}
