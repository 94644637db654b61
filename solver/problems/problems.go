// Package problems is a registry of test problems for the settings of the
// paper "Geometry-Aware Universal Mirror-Prox" beyond the matrix game (which
// is solver.MatrixGame): one solver.Monotone problem per setting, each with
// a known solution computed independently of the solver, so that rates and
// step rules can be compared on the problems the theory is about. gpump
// solve --problem NAME runs them.
package problems

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gpump/gpump/solver"
)

// The settings of the paper (Babanezhad and Lacoste-Julien, GA-UMP): the
// assumptions under which it proves a rate, and the step rule it prescribes
// for each. Info.Setting is one of them.
const (
	// LipschitzSmooth: F Lipschitz (A2), rate O(1/T), rule ga-smooth
	// (Theorem 3.1). The matrix game (solver.MatrixGame) is this setting's
	// problem.
	LipschitzSmooth = "lipschitz-smooth"
	// LipschitzBounded: ‖F‖_* ≤ G' on the set (A4) but F not Lipschitz,
	// rate O(√(log T / T)), rule ga-bounded (Theorem 3.2).
	LipschitzBounded = "lipschitz-bounded"
	// BregmanSmooth: F Bregman smooth (B1, Antonakopoulos et al. 2019),
	// possibly singular at the boundary, rate O(1/T), rule ga-smooth
	// (Theorem 4.1).
	BregmanSmooth = "bregman-smooth"
	// BregmanBounded: F Bregman bounded (C1, relative continuity of Lu
	// 2019), possibly unbounded on an unbounded domain, rate
	// O(√(log T / T)), rule ga-bounded (Theorem 5.1).
	BregmanBounded = "bregman-bounded"
)

// Info describes a problem of the registry (New): what it is,
// where it comes from, its known solution and how to measure a point
// against it.
type Info struct {
	// Name is the registry name.
	Name string
	// Setting is the paper's setting the problem exercises (the setting
	// constants).
	Setting string
	// Rule is the step rule the paper prescribes for that setting.
	Rule string
	// Summary is a one-line definition; Source names its references.
	Summary, Source string
	// Size is the size parameter the problem was built with and Dim the
	// dimension of its points.
	Size, Dim int
	// Optimum returns the known optimal value (of the objective, or the
	// saddle value), computed independently of the solver: in closed form,
	// or by a linear program on first use (see each problem).
	Optimum func() (float64, error)
	// Solution is the known solution, or nil where it is not unique or not
	// known in closed form.
	Solution []float64
	// Objective returns the problem's objective at a point (for a saddle
	// point, the primal objective max_w f(u, w)).
	Objective func(x []float64) float64
	// Error returns the exact error of a point against the optimum, always
	// ≥ 0 up to rounding: f(x) − f* for a minimization, the saddle (duality)
	// gap for a saddle point. solver.Solve's certified gap is an upper bound of it
	// (for the bregman-bounded problem, when the solution lies in the
	// certification ball, which the registry's problems ensure).
	Error func(x []float64) float64
	// ErrorKind says what Error measures, in words.
	ErrorKind string
	// GapKind says what solver.Solve's certified gap is on this problem.
	GapKind string
}

// Spec describes a problem of the registry.
type Spec struct {
	// Name is the name New accepts.
	Name string
	// Setting is the paper's setting the problem exercises (the setting
	// constants) and Rule the step rule the paper prescribes for it.
	Setting, Rule string
	// Summary is a one-line definition.
	Summary string
	// SizeParam says what New's size parameter is, and DefaultSize
	// is its default.
	SizeParam   string
	DefaultSize int

	build func(size int, seed uint64) (*solver.Monotone, Info, error)
}

// problemSpecs is the registry, in the order of the paper's settings.
var problemSpecs = []Spec{
	{
		Name: "lad-lasso", Setting: LipschitzBounded, Rule: "ga-bounded",
		Summary:   "LAD-lasso regression min_u λ‖u‖₁ + ‖Bu − c‖₁ as a saddle point on boxes (non-smooth, bounded operator)",
		SizeParam: "d, the number of coefficients (k = 2d observations)", DefaultSize: 20,
		build: NewLADLasso,
	},
	{
		Name: "capacity", Setting: BregmanSmooth, Rule: "ga-smooth",
		Summary:   "square-root capacity assignment min_{x∈simplex} Σ w_i/x_i (operator singular at the boundary), entropic setup",
		SizeParam: "n, the number of links (the simplex dimension)", DefaultSize: 50,
		build: NewCapacity,
	},
	{
		Name: "center", Setting: BregmanBounded, Rule: "ga-bounded",
		Summary:   "minimax location min_{x∈R^d} max_k ⅔‖x − b_k‖^{3/2} (unbounded domain and operator), cubic setup",
		SizeParam: "d, the dimension (3d points)", DefaultSize: 10,
		build: NewCenter,
	},
}

// All returns the registry: one problem per setting of the paper beyond
// the matrix game (the Lipschitz smooth setting's problem, see
// solver.MatrixGame): lad-lasso (Lipschitz bounded), capacity (Bregman
// smooth), center (Bregman bounded).
func All() []Spec { return slices.Clone(problemSpecs) }

// Names returns the names New accepts.
func Names() []string {
	names := make([]string, len(problemSpecs))
	for i, p := range problemSpecs {
		names[i] = p.Name
	}
	return names
}

// New builds the named problem of the registry (Names) with
// the given size (≤ 0: the problem's default; see Spec.SizeParam) and
// seed. The same name, size and seed give the same problem on every
// machine. The problem's Bound (the default G0), Scale (the divisor of the
// relative gap: the certified gap of the start point, so the relative gap
// starts at 1) and set are filled in; solve it with any mirror-prox rule.
func New(name string, size int, seed uint64) (*solver.Monotone, Info, error) {
	for _, p := range problemSpecs {
		if strings.EqualFold(p.Name, name) {
			if size <= 0 {
				size = p.DefaultSize
			}
			return p.build(size, seed)
		}
	}
	return nil, Info{}, fmt.Errorf("problems: unknown problem %q (known: %s)", name, strings.Join(Names(), ", "))
}

// newRNG returns the generator of a problem's data: PCG seeded with the
// seed and a per-problem stream constant.
func newRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// startGap returns the certified (strong) gap of the start point y₀ of p,
// ⟨F(y₀), y₀⟩ + Support(−F(y₀)): the registry's problems use it as Scale,
// so that the relative gap is the gap as a fraction of the start's.
func startGap(p *solver.Monotone) float64 {
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

// minimization is the Info of a minimization with objective f, known
// optimal value fs and solution xs: its error is f(x) − f*.
func minimization(f func([]float64) float64, fs float64, xs []float64) Info {
	return Info{
		Optimum: known(fs), Solution: xs, Objective: f,
		Error:     func(x []float64) float64 { return f(x) - fs },
		ErrorKind: "objective error f(x) − f*",
	}
}

// known returns an Optimum function for a value known in closed form.
func known(v float64) func() (float64, error) { return func() (float64, error) { return v, nil } }

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
