package solver

import (
	"fmt"
	"slices"
	"strings"
)

// Method is an algorithm Solve can run: a *MirrorProx (with a step rule),
// *RegretMatching (RM+, PRM+) or *OMWU. Methods other than MirrorProx apply
// to matrix games only.
type Method interface {
	// Name returns the method's command-line name.
	Name() string
}

// MirrorProx is mirror-prox (paper Algorithm 1, SPEC section 3) with the
// given step rule; a nil Rule means the default rule (see DefaultMethod).
type MirrorProx struct {
	Rule StepRule
}

// Name returns the step rule's name.
func (m *MirrorProx) Name() string {
	if m.Rule == nil {
		return DefaultMethodName
	}
	return m.Rule.Name()
}

// RegretMatching is regret matching+ with alternating updates and linearly
// weighted averages (Tammelin 2014), or, with Predictive, predictive regret
// matching+ (Farina, Kroer and Sandholm 2021) whose prediction is the last
// instantaneous regret, also alternating. Each iteration reads A twice (A q_t,
// then Aᵀ p_{t+1}) and counts as one operator evaluation.
type RegretMatching struct {
	Predictive bool
}

// Name returns "rm+" or "prm+".
func (m *RegretMatching) Name() string {
	if m.Predictive {
		return "prm+"
	}
	return "rm+"
}

// OMWU is optimistic multiplicative weights (Rakhlin and Sridharan 2013;
// Daskalakis and Panageas 2019): z_{t+1} ∝ z_t exp(−Eta (2 g_t − g_{t−1})) for
// both players at once, one pass over A per iteration. Eta = 0 means
// 1/max |A_ij|, the classic step 1/L; steps up to about D/G0 are often three
// times faster on random games but lose the last iterate's convergence on
// some games (README). The result is the better certified of the uniform average
// and the last iterate.
type OMWU struct {
	Eta float64
}

// Name returns "omwu".
func (m *OMWU) Name() string { return "omwu" }

// DefaultMethodName is the method Solve uses when given none: the GA-UMP rule
// that measured best on deterministic matrix games. On deterministic games
// every universal rule ends near the constant step D/G0 and the ga-* rules
// differ by 1–3% in evaluations; ga-stochastic (c = 5), whose Z_t grow
// slowest, needed the fewest on every game of the README's comparison.
const DefaultMethodName = "ga-stochastic"

// Params are the optional constants of NewMethod.
type Params struct {
	// C is the constant of the ga-bounded and ga-stochastic rules (0: their
	// defaults 1 and 5).
	C float64
	// Eta is the step of the constant rule and of OMWU, and gamma0 of
	// adaprox (0: their defaults).
	Eta float64
}

// MethodNames lists the names NewMethod accepts.
var MethodNames = []string{
	"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy", "constant", "amp", "adaprox", "backtracking",
	"rm+", "prm+", "omwu",
}

// NewMethod returns the method with the given command-line name.
func NewMethod(name string, p Params) (Method, error) {
	var r StepRule
	switch strings.ToLower(name) {
	case "ga-smooth":
		r = &GASmooth{}
	case "ga-bounded":
		r = &GABounded{C: p.C}
	case "ga-stochastic":
		r = &GAStochastic{C: p.C}
	case "bach-levy":
		r = &BachLevy{}
	case "constant":
		r = &Constant{Eta: p.Eta}
	case "amp":
		r = &AMP{}
	case "adaprox":
		r = &AdaProx{Gamma0: p.Eta}
	case "backtracking":
		r = &Backtracking{}
	case "rm+":
		return &RegretMatching{}, nil
	case "prm+":
		return &RegretMatching{Predictive: true}, nil
	case "omwu":
		return &OMWU{Eta: p.Eta}, nil
	default:
		return nil, fmt.Errorf("solver: unknown method %q (known: %s)", name, strings.Join(slices.Clone(MethodNames), ", "))
	}
	return &MirrorProx{Rule: r}, nil
}
