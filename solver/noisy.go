package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Noisy returns the stochastic operator F + σξ, the generic noisy oracle:
// each Apply sets dst = F(z) + sigma·ξ, where ξ is a fresh standard normal
// vector, its entries independent of each other and of every
// other call. It meets the paper's assumptions for stochastic operators
// (section 6): unbiased, E[F̃(z)] = F(z), with bounded variance, E‖F̃(z) −
// F(z)‖₂² = σ²·d in dimension d (in the l∞ dual norm of the simplex setups,
// about σ²·2 ln d). Use it to study rates under noise, for instance with
// the ga-stochastic rule, on any Monotone problem; matrix games have the
// sampled oracle (SampledGame).
//
// The noise comes from a math/rand/v2 PCG stream seeded with seed, so a
// solve is reproducible: the same seed and the same sequence of calls give
// the same values. The returned Operator holds that stream: it is not safe
// for concurrent use, and a second solve with it continues the stream (make
// a new one per solve to repeat a run).
//
// Solve treats it like any operator, so the gaps it reports for the problem
// (Result.Gap, the Record gaps) are computed from the noisy values: they are
// estimates, not certificates of F's gap. Set Monotone.Exact to op to have
// them certified, at one evaluation of op per iteration.
//
// sigma must be finite and ≥ 0 (Noisy panics otherwise); 0 gives F's
// values unchanged.
func Noisy(op Operator, sigma float64, seed uint64) Operator {
	if !(sigma >= 0) || math.IsInf(sigma, 0) {
		panic(fmt.Sprintf("solver: Noisy needs a finite sigma ≥ 0, got %g", sigma))
	}
	if op == nil {
		panic("solver: Noisy of a nil operator")
	}
	return &noisyOperator{op: op, sigma: sigma, rng: rand.New(rand.NewPCG(seed, noisyStream))}
}

// noisyStream is the PCG stream constant of Noisy.
const noisyStream = 0xda3e39cb94b95bdb

type noisyOperator struct {
	op    Operator
	sigma float64
	rng   *rand.Rand
}

// Apply sets dst = F(z) + σξ.
func (n *noisyOperator) Apply(dst, z []float64) {
	n.op.Apply(dst, z)
	if n.sigma == 0 {
		return
	}
	for i := range dst {
		dst[i] += n.sigma * n.rng.NormFloat64()
	}
}
