package solver

import (
	"errors"
	"fmt"
	"math"
)

// Constants are the problem constants a step rule may use.
type Constants struct {
	// D is the diameter (D² = sup R − inf R, or MirrorProx.Diameter).
	D float64
	// G0 bounds ‖F‖_* (MirrorProx.G0 or its default).
	G0 float64
	// L is a Lipschitz constant of F when known (max |A_ij| for a matrix
	// game), else 0.
	L float64
	// Unit is the factor from the problem's units to the solver's internal
	// ones (1 unless a matrix game's payoffs are tiny or huge; see
	// MatrixGame): D, G0, L and every Trial are internal, so a rule given a
	// step in the problem's units divides it by Unit. Zero means 1.
	Unit float64
}

// internalStep converts a user's step in the problem's units.
func (k Constants) internalStep(eta float64) float64 {
	if k.Unit > 0 {
		return eta / k.Unit
	}
	return eta
}

// Trial holds the scalars of one mirror-prox trial, combined
// over the blocks of a product (norms as the root of the sum of squares).
type Trial struct {
	Eta       float64 // the step eta_t used
	DivXY     float64 // D(x_t, y_{t−1})
	DivYX     float64 // D(y_t, x_t)
	DistXY    float64 // ‖x_t − y_{t−1}‖
	DistXYNew float64 // ‖x_t − y_t‖
	DualGM    float64 // ‖g_t − m_t‖_*
	InnerGM   float64 // ⟨g_t − m_t, x_t − y_t⟩
}

// StepRule chooses the step sizes of mirror-prox. Step is called before each
// trial and may only use what earlier trials reported; Observe receives the
// trial's scalars and returns false to reject the trial (only backtracking
// does), in which case the trial is redone from the same centre with a new
// Step. A rule holds state: use a new value (or Init again) for every solve.
type StepRule interface {
	// Name returns the rule's command-line name.
	Name() string
	// Init resets the rule for a solve.
	Init(k Constants) error
	// Step returns eta_t.
	Step() float64
	// Observe reports the trial done with the last Step.
	Observe(t *Trial) (accept bool)
}

// universal is eta_t = D / √(G0² + Σ_{i<t} Z_i²) (paper eq. (3.2)–(3.5)),
// computed as (D/G0) / √(1 + Σ Z_i²/G0²): Z_i²/G0² is a ratio of
// divergences to (eta_i G0)², which stays of the order of D², so neither G0²
// nor Z_i² is ever formed and payoffs of any magnitude (1e-200 or 1e200)
// give the same steps up to scale.
type universal struct {
	d, g0, sum float64 // sum is Σ Z_i²/G0²
}

// Step returns D / √(G0² + Σ Z_i²).
func (u *universal) Step() float64 { return u.step() }

func (u *universal) init(k Constants) error {
	if !(k.D > 0) || math.IsInf(k.D, 0) {
		return fmt.Errorf("solver: the step rule needs a finite diameter D > 0, got %g", k.D)
	}
	if !(k.G0 > 0) || math.IsInf(k.G0, 0) {
		return fmt.Errorf("solver: the step rule needs a finite G0 > 0, got %g", k.G0)
	}
	u.d, u.g0, u.sum = k.D, k.G0, 0
	return nil
}

func (u *universal) step() float64 { return u.d / u.g0 / math.Sqrt(1+u.sum) }

// add adds Z_t² = num / (den eta_t²) to the sum, in units of G0².
func (u *universal) add(num, den, eta float64) {
	eg := eta * u.g0
	u.sum += num / (den * eg * eg)
}

// GASmooth is the geometry-aware universal rule for smooth operators (paper
// eq. (3.2)–(3.3), Theorems 3.1 and 4.1): Z_t² = D(x_t, y_{t−1}) / (2 eta_t²).
type GASmooth struct{ universal }

// Name returns "ga-smooth".
func (r *GASmooth) Name() string { return "ga-smooth" }

// Init resets the rule.
func (r *GASmooth) Init(k Constants) error { return r.init(k) }

// Observe adds Z_t².
func (r *GASmooth) Observe(t *Trial) bool {
	r.add(t.DivXY, 2, t.Eta)
	return true
}

// GABounded is the geometry-aware universal rule for bounded operators
// (paper eq. (3.4)–(3.5), Theorems 3.2 and 5.1): Z_t² = (D(x_t, y_{t−1}) +
// D(y_t, x_t)) / (C² eta_t²). C = 0 means 1.
type GABounded struct {
	C float64
	universal
	c float64
}

// Name returns "ga-bounded".
func (r *GABounded) Name() string { return "ga-bounded" }

// Init resets the rule.
func (r *GABounded) Init(k Constants) error {
	r.c = defaultC(r.C, 1)
	return r.init(k)
}

// Observe adds Z_t².
func (r *GABounded) Observe(t *Trial) bool {
	r.add(t.DivXY+t.DivYX, r.c*r.c, t.Eta)
	return true
}

// GAStochastic is GABounded with the constant of the stochastic smooth
// setting (paper section 6, Theorem 6.1): C = 0 means 5.
type GAStochastic struct{ GABounded }

// Name returns "ga-stochastic".
func (r *GAStochastic) Name() string { return "ga-stochastic" }

// Init resets the rule.
func (r *GAStochastic) Init(k Constants) error {
	r.c = defaultC(r.C, 5)
	return r.init(k)
}

// firstStep is the universal rules' first step D/G0, which the rules with
// their own updates start from.
func firstStep(k Constants) (float64, error) {
	var u universal
	err := u.init(k)
	return u.step(), err
}

func defaultC(c, def float64) float64 {
	if c > 0 {
		return c
	}
	return def
}

// BachLevy is the universal mirror-prox rule of Bach and Levy (2019), paper
// eq. (3.1): Z_t² = (‖x_t − y_{t−1}‖² + ‖x_t − y_t‖²) / (5 eta_t²) in the
// setup's norm.
type BachLevy struct{ universal }

// Name returns "bach-levy".
func (r *BachLevy) Name() string { return "bach-levy" }

// Init resets the rule.
func (r *BachLevy) Init(k Constants) error { return r.init(k) }

// Observe adds Z_t².
func (r *BachLevy) Observe(t *Trial) bool {
	r.add(t.DistXY*t.DistXY+t.DistXYNew*t.DistXYNew, 5, t.Eta)
	return true
}

// Constant is classic mirror-prox (Nemirovski 2004) with a fixed step: Eta,
// in the problem's units, or 1/L when Eta is 0 (L = max |A_ij| for a matrix
// game in the entropic setup, the Frobenius norm of A in the Euclidean one
// or with a box or ball block; a Monotone problem must give Lipschitz or
// Eta).
type Constant struct {
	Eta float64
	eta float64
}

// Name returns "constant".
func (r *Constant) Name() string { return "constant" }

// Init sets the step.
func (r *Constant) Init(k Constants) error {
	r.eta = k.internalStep(r.Eta)
	if r.eta <= 0 {
		if !(k.L > 0) {
			return errors.New("solver: the constant rule needs a step (Eta) or a Lipschitz constant")
		}
		r.eta = 1 / k.L
	}
	return nil
}

// Step returns the fixed step.
func (r *Constant) Step() float64 { return r.eta }

// Observe accepts every trial.
func (r *Constant) Observe(*Trial) bool { return true }

// AMP is the adaptive mirror-prox of Antonakopoulos et al. (2019), paper
// section 4: eta_{t+1} = min(eta_t, Theta / L_t) with the local estimate L_t =
// ‖g_t − m_t‖_* / √D(x_t, y_{t−1}). Theta = 0 means 0.9. The first step is D/G0
// (the universal rules' first step).
type AMP struct {
	Theta float64
	eta   float64
	theta float64
}

// Name returns "amp".
func (r *AMP) Name() string { return "amp" }

// Init resets the rule.
func (r *AMP) Init(k Constants) (err error) {
	r.eta, err = firstStep(k)
	r.theta = defaultC(r.Theta, 0.9)
	return err
}

// Step returns the current step.
func (r *AMP) Step() float64 { return r.eta }

// Observe shrinks the step to Theta / L_t when that is smaller. A trial
// with x_t = y_{t−1} carries no curvature information and leaves it alone.
func (r *AMP) Observe(t *Trial) bool {
	if t.DivXY > 0 && t.DualGM > 0 {
		r.eta = math.Min(r.eta, r.theta*math.Sqrt(t.DivXY)/t.DualGM)
	}
	return true
}

// AdaProx is the AdaProx rule of Antonakopoulos et al. (2021): gamma_t =
// Gamma0 / √(1 + Σ_{s<t} ‖g_s − m_s‖_*²). Gamma0 = 0 means D/G0. The rule is
// not invariant to the scale of F (the 1 is not scaled).
type AdaProx struct {
	Gamma0 float64
	g0     float64
	sum    float64
}

// Name returns "adaprox".
func (r *AdaProx) Name() string { return "adaprox" }

// Init resets the rule.
func (r *AdaProx) Init(k Constants) (err error) {
	r.g0, r.sum = k.internalStep(r.Gamma0), 0
	if r.g0 <= 0 {
		r.g0, err = firstStep(k)
	}
	return err
}

// Step returns gamma_t.
func (r *AdaProx) Step() float64 { return r.g0 / math.Sqrt(1+r.sum) }

// Observe adds ‖g_t − m_t‖_*².
func (r *AdaProx) Observe(t *Trial) bool {
	r.sum += t.DualGM * t.DualGM
	return true
}

// Backtracking is mirror-prox with Nemirovski's (2004) line search: a trial
// is accepted when eta ⟨g_t − m_t, x_t − y_t⟩ ≤ D(x_t, y_{t−1}) + D(y_t, x_t)
// and redone with half the step otherwise; after a trial accepted at the first
// try the next step grows by 1.2. The first step is D/G0. Its preferred
// average is step-weighted: with the uniform one it needs about 2.5 times the
// evaluations on uniform random games (docs/benchmarks.md, the table of evaluations).
type Backtracking struct {
	eta   float64
	tries int
}

// Name returns "backtracking".
func (r *Backtracking) Name() string { return "backtracking" }

// Averaging returns StepWeighted.
func (r *Backtracking) Averaging() Averaging { return StepWeighted }

// Init resets the rule.
func (r *Backtracking) Init(k Constants) (err error) {
	r.eta, err = firstStep(k)
	r.tries = 0
	return err
}

// Step returns the current step.
func (r *Backtracking) Step() float64 { return r.eta }

// Observe tests the acceptance inequality.
func (r *Backtracking) Observe(t *Trial) bool {
	if t.Eta*t.InnerGM <= t.DivXY+t.DivYX {
		if r.tries == 0 {
			r.eta = t.Eta * 1.2
		}
		r.tries = 0
		return true
	}
	r.eta = t.Eta / 2
	r.tries++
	return false
}
