package gan

import "math"

// adam is the state of Adam's moments for one particle.
type adam struct {
	m, v []float64
	t    int
}

// step moves theta against grad.
func (a *adam) step(theta, grad []float64, rate, beta1, beta2 float64) {
	if a.m == nil {
		a.m, a.v = make([]float64, len(theta)), make([]float64, len(theta))
	}
	a.t++
	c1 := 1 - math.Pow(beta1, float64(a.t))
	c2 := 1 - math.Pow(beta2, float64(a.t))
	for i, g := range grad {
		a.m[i] = beta1*a.m[i] + (1-beta1)*g
		a.v[i] = beta2*a.v[i] + (1-beta2)*g*g
		theta[i] -= rate * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + 1e-8)
	}
}
