package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Settings of the paper (Babanezhad and Lacoste-Julien, GA-UMP): the
// assumptions under which it proves a rate, and the step rule it prescribes
// for each. ProblemInfo.Setting is one of them.
const (
	// SettingLipschitzSmooth: F Lipschitz (A2), rate O(1/T), rule ga-smooth
	// (Theorem 3.1). The matrix game (MatrixGame) is this setting's problem.
	SettingLipschitzSmooth = "lipschitz-smooth"
	// SettingLipschitzBounded: ‖F‖_* ≤ G' on the set (A4) but F not
	// Lipschitz, rate O(√(log T / T)), rule ga-bounded (Theorem 3.2).
	SettingLipschitzBounded = "lipschitz-bounded"
	// SettingBregmanSmooth: F Bregman smooth (B1, Antonakopoulos et al.
	// 2019), possibly singular at the boundary, rate O(1/T), rule ga-smooth
	// (Theorem 4.1).
	SettingBregmanSmooth = "bregman-smooth"
	// SettingBregmanBounded: F Bregman bounded (C1, relative continuity of
	// Lu 2019), possibly unbounded on an unbounded domain, rate
	// O(√(log T / T)), rule ga-bounded (Theorem 5.1).
	SettingBregmanBounded = "bregman-bounded"
)

// ProblemInfo describes a problem of the registry (NewProblem): what it is,
// where it comes from, its known solution and how to measure a point
// against it.
type ProblemInfo struct {
	// Name is the registry name.
	Name string
	// Setting is the paper's setting the problem exercises (Setting…
	// constants).
	Setting string
	// Rule is the step rule the paper prescribes for that setting.
	Rule string
	// Summary is a one-line definition; Source names its references.
	Summary, Source string
	// Size is the size parameter the problem was built with and Dim the
	// dimension of its points.
	Size, Dim int
	// Optimum is the known optimal value (of the objective, or the saddle
	// value), computed independently of the solver: in closed form or by
	// a linear program (see each problem).
	Optimum float64
	// Solution is the known solution, or nil where it is not unique or not
	// known in closed form.
	Solution []float64
	// Objective returns the problem's objective at a point (for a saddle
	// point, the primal objective max_w f(u, w)).
	Objective func(x []float64) float64
	// Error returns the exact error of a point against the optimum, always
	// ≥ 0 up to rounding: f(x) − f* for a minimization, the saddle (duality)
	// gap for a saddle point. Solve's certified gap is an upper bound of it
	// (for the bregman-bounded problem, when the solution lies in the
	// certification ball, which the registry's problems ensure).
	Error func(x []float64) float64
	// ErrorKind says what Error measures, in words.
	ErrorKind string
	// GapKind says what Solve's certified gap is on this problem.
	GapKind string
}

// ProblemSpec describes a problem of the registry.
type ProblemSpec struct {
	// Name is the name NewProblem accepts.
	Name string
	// Setting is the paper's setting the problem exercises (Setting…
	// constants) and Rule the step rule the paper prescribes for it.
	Setting, Rule string
	// Summary is a one-line definition.
	Summary string
	// SizeParam says what NewProblem's size parameter is, and DefaultSize
	// is its default.
	SizeParam   string
	DefaultSize int

	build func(size int, seed uint64) (*Monotone, ProblemInfo, error)
}

// problemSpecs is the registry, in the order of the paper's settings.
var problemSpecs = []ProblemSpec{
	{
		Name: "lad-lasso", Setting: SettingLipschitzBounded, Rule: "ga-bounded",
		Summary:   "LAD-lasso regression min_u λ‖u‖₁ + ‖Bu − c‖₁ as a saddle point on boxes (non-smooth, bounded operator)",
		SizeParam: "d, the number of coefficients (k = 2d observations)", DefaultSize: 20,
		build: NewLADLasso,
	},
	{
		Name: "capacity", Setting: SettingBregmanSmooth, Rule: "ga-smooth",
		Summary:   "square-root capacity assignment min_{x∈simplex} Σ w_i/x_i (operator singular at the boundary), entropic setup",
		SizeParam: "n, the number of links (the simplex dimension)", DefaultSize: 50,
		build: NewCapacity,
	},
	{
		Name: "center", Setting: SettingBregmanBounded, Rule: "ga-bounded",
		Summary:   "minimax location min_{x∈R^d} max_k ⅔‖x − b_k‖^{3/2} (unbounded domain and operator), cubic setup",
		SizeParam: "d, the dimension (3d points)", DefaultSize: 10,
		build: NewCenter,
	},
}

// Problems returns the registry: one problem per setting of the paper
// beyond the matrix game (the Lipschitz smooth setting's problem, see
// MatrixGame): lad-lasso (Lipschitz bounded), capacity (Bregman smooth),
// center (Bregman bounded).
func Problems() []ProblemSpec { return slices.Clone(problemSpecs) }

// ProblemNames returns the names NewProblem accepts.
func ProblemNames() []string {
	names := make([]string, len(problemSpecs))
	for i, p := range problemSpecs {
		names[i] = p.Name
	}
	return names
}

// NewProblem builds the named problem of the registry (ProblemNames) with
// the given size (≤ 0: the problem's default; see ProblemSpec.SizeParam) and
// seed. The same name, size and seed give the same problem on every
// machine. The problem's Bound (the default G0), Scale (the divisor of the
// relative gap: the certified gap of the start point, so the relative gap
// starts at 1) and set are filled in; Solve it with any mirror-prox rule.
func NewProblem(name string, size int, seed uint64) (*Monotone, ProblemInfo, error) {
	for _, p := range problemSpecs {
		if strings.EqualFold(p.Name, name) {
			if size <= 0 {
				size = p.DefaultSize
			}
			return p.build(size, seed)
		}
	}
	return nil, ProblemInfo{}, fmt.Errorf("solver: unknown problem %q (known: %s)", name, strings.Join(ProblemNames(), ", "))
}

// problemRNG returns the generator of a problem's data: PCG seeded with the
// seed and a per-problem stream constant.
func problemRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// problemStartGap returns the certified (strong) gap of the start point y₀ of p,
// ⟨F(y₀), y₀⟩ + Support(−F(y₀)): the registry's problems use it as Scale,
// so that the relative gap is the gap as a fraction of the start's.
func problemStartGap(p *Monotone) float64 {
	d := p.Set.Dim()
	s, y, g := make([]float64, d), make([]float64, d), make([]float64, d)
	p.Set.Start(s)
	p.Set.Point(y, s)
	p.F.Apply(g, y)
	for i := range g {
		g[i] = -g[i]
	}
	return -dot(g, y) + p.Set.Support(g)
}

// problemBound is SPEC section 3's default G0 for a general operator, twice
// the largest ‖F‖_* at y₀ and at four random points of the set, computed
// once at construction (with the problem's own generator) so that the
// problem carries it as Monotone.Bound and every rule sees the same G0.
func problemBound(f Operator, geo Geometry, rng *rand.Rand) float64 {
	d := geo.Dim()
	s, z, g := make([]float64, d), make([]float64, d), make([]float64, d)
	geo.Start(s)
	geo.Point(z, s)
	f.Apply(g, z)
	b := geo.DualNorm(g)
	if smp, ok := geo.(Sampler); ok {
		for range 4 {
			smp.Sample(z, rng)
			f.Apply(g, z)
			b = math.Max(b, geo.DualNorm(g))
		}
	}
	return 2 * b
}
