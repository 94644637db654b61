package datasets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gorgonia.org/tensor"
)

// GenSpec describes a generated matrix; Generate builds it. A spec is
// written as a one-line string (String, ParseGenSpec):
//
//	name
//	name:key=value,key=value,...
//
// for example "uniform:m=2000,n=500,lo=0,hi=1,seed=7" or
// "police:n=400,layout=grid,theta=0.5,seed=1".
//
// Each generator uses only some of the fields (GeneratorParams, and the
// table below); Generate, Value and String ignore the others, while
// ParseGenSpec rejects a key that does not apply. The square generators
// (police, nemirovski, cyclic, identity) use N as their size: M must be 0
// (as DefaultGenSpec and ParseGenSpec leave it) or equal to N.
//
//	name        fields used                 matrix
//	uniform     M, N, Lo, Hi, Seed          Uniform(dt, M, N, Lo, Hi, Seed)
//	gaussian    M, N, Seed                  Gaussian(dt, M, N, Seed)
//	police      N, Layout, Theta, Seed      PoliceBurglar(dt, w, Theta) ("line") or
//	                                        PoliceBurglarGrid(dt, w, √N, Theta) ("grid"),
//	                                        w = PoliceBurglarWealth(N, Seed)
//	nemirovski  N, Family, Alpha            Nemirovski(dt, N, Family, Alpha)
//	cyclic      N                           Cyclic(dt, N)
//	identity    N                           Identity(dt, N)
//	saddle      M, N, Seed                  Saddle(dt, M, N, Seed)
//	rankone     M, N, Sigma, Seed           RankOne(dt, M, N, Sigma, Seed)
//	lowrank     M, N, Rank, Noise, Seed     LowRank(dt, M, N, Rank, Noise, Seed)
type GenSpec struct {
	Name   string  // one of GeneratorNames
	M, N   int     // rows, columns (square generators: N, with M 0 or N)
	Seed   uint64  // random seed (uniform, gaussian, police, saddle, rankone, lowrank)
	Lo, Hi float64 // uniform range [Lo, Hi)
	Sigma  float64 // rankone noise, >= 0
	Theta  float64 // police decay, > 0
	Layout string  // police: "line" or "grid" (grid: N must be a perfect square); "" means "line"
	Alpha  float64 // nemirovski exponent, > 0
	Family int     // nemirovski family, 1 or 2
	Rank   int     // lowrank rank, in [1, min(M, N)]
	Noise  float64 // lowrank noise, >= 0
}

// GeneratorNames lists the generator names of GenSpec, in the order the
// command line's help shows them.
var GeneratorNames = []string{"uniform", "gaussian", "police", "nemirovski", "cyclic", "identity", "saddle", "rankone", "lowrank"}

// genInfo describes a generator of the registry.
type genInfo struct {
	square bool     // uses N only
	params []string // the keys that apply, in canonical order
	def    GenSpec  // DefaultGenSpec
	help   string   // GeneratorHelp
}

// The defaults are m = n = 1000 and seed 1 except where a generator needs
// otherwise: cyclic needs an odd n (1001), and police's 1024 = 32² lets
// "police:layout=grid" work without giving n.
var registry = map[string]genInfo{
	"uniform": {
		params: []string{"m", "n", "lo", "hi", "seed"},
		def:    GenSpec{Name: "uniform", M: 1000, N: 1000, Lo: -1, Hi: 1, Seed: 1},
		help: "uniform: entries uniform in [lo, hi), row i from its own random stream.\n" +
			"Parameters m, n, lo, hi, seed (defaults 1000, 1000, -1, 1, 1); value not known in closed form.",
	},
	"gaussian": {
		params: []string{"m", "n", "seed"},
		def:    GenSpec{Name: "gaussian", M: 1000, N: 1000, Seed: 1},
		help: "gaussian: standard normal entries, row i from its own random stream.\n" +
			"Parameters m, n, seed (defaults 1000, 1000, 1); value not known in closed form.",
	},
	"police": {
		square: true,
		params: []string{"n", "layout", "theta", "seed"},
		def:    GenSpec{Name: "police", N: 1024, Layout: "line", Theta: 0.1, Seed: 1},
		help: "police: police and burglar, A[i][j] = w_i (1 - exp(-theta d(i,j))), wealth w_i uniform in [0, 1), houses on a line (d = |i-j|) or a √n×√n grid (Euclidean d).\n" +
			"Parameters n, layout (line or grid; grid needs a square n), theta, seed (defaults 1024, line, 0.1, 1); value not known in closed form.",
	},
	"nemirovski": {
		square: true,
		params: []string{"n", "family", "alpha"},
		def:    GenSpec{Name: "nemirovski", N: 1000, Family: 2, Alpha: 1},
		help: "nemirovski: Nemirovski's matrices, family 1 ((i+j-1)/(2n-1))^alpha, family 2 ((|i-j|+1)/(2n-1))^alpha, i, j = 1..n.\n" +
			"Parameters n, family, alpha (defaults 1000, 2, 1); value (n+1)/(2(2n-1)) for family 2 with alpha 1, (n/(2n-1))^alpha for family 1.",
	},
	"cyclic": {
		square: true,
		params: []string{"n"},
		def:    GenSpec{Name: "cyclic", N: 1001},
		help: "cyclic: rock-paper-scissors on n strategies, A[i][j] = 1 if (i-j) mod n is odd, -1 if it is even and not 0, 0 if i = j.\n" +
			"Parameter n (odd, default 1001); value 0.",
	},
	"identity": {
		square: true,
		params: []string{"n"},
		def:    GenSpec{Name: "identity", N: 1000},
		help: "identity: the n×n identity matrix (hide and seek).\n" +
			"Parameter n (default 1000); value 1/n.",
	},
	"saddle": {
		params: []string{"m", "n", "seed"},
		def:    GenSpec{Name: "saddle", M: 1000, N: 1000, Seed: 1},
		help: "saddle: uniform [0, 1) entries with a planted pure saddle point of value in [0.25, 0.75).\n" +
			"Parameters m, n, seed (defaults 1000, 1000, 1); value the saddle entry.",
	},
	"rankone": {
		params: []string{"m", "n", "sigma", "seed"},
		def:    GenSpec{Name: "rankone", M: 1000, N: 1000, Sigma: 0.1, Seed: 1},
		help: "rankone: A = u vᵀ + sigma G, u and v uniform in [-1, 1), G standard normal.\n" +
			"Parameters m, n, sigma, seed (defaults 1000, 1000, 0.1, 1); value for sigma = 0: max over a in {min u, max u, 0 if between} of min(a min v, a max v), 0 when u and v both change sign.",
	},
	"lowrank": {
		params: []string{"m", "n", "rank", "noise", "seed"},
		def:    GenSpec{Name: "lowrank", M: 1000, N: 1000, Rank: 3, Noise: 0.05, Seed: 1},
		help: "lowrank: A = U Vᵀ/√rank + noise G, U (m×rank), V (n×rank) and G standard normal.\n" +
			"Parameters m, n, rank (1 to min(m, n)), noise, seed (defaults 1000, 1000, 3, 0.05, 1); value not known in closed form.",
	},
}

// paramKeys are all the keys of ParseGenSpec.
var paramKeys = []string{"m", "n", "lo", "hi", "seed", "sigma", "theta", "layout", "alpha", "family", "rank", "noise"}

// DefaultGenSpec returns the spec ParseGenSpec(name) stands for: the named
// generator with its default parameters and every field that does not
// apply to it zero (M too, for the square generators):
//
//	uniform     m=1000,n=1000,lo=-1,hi=1,seed=1
//	gaussian    m=1000,n=1000,seed=1
//	police      n=1024,layout=line,theta=0.1,seed=1
//	nemirovski  n=1000,family=2,alpha=1
//	cyclic      n=1001
//	identity    n=1000
//	saddle      m=1000,n=1000,seed=1
//	rankone     m=1000,n=1000,sigma=0.1,seed=1
//	lowrank     m=1000,n=1000,rank=3,noise=0.05,seed=1
//
// The sizes are 1000 except where a generator needs otherwise: cyclic needs
// an odd n, and police's 1024 = 32² is a perfect square, so that
// "police:layout=grid" is a valid spec. Police's theta = 0.1 makes the
// chance of being caught fall from 1 to 1/e over 10 units of distance, a
// third of the side of the 32×32 grid: the policeman's position matters for
// many houses but he cannot cover the town from one place. (With seed 1
// the grid game's value is about 0.77 and both players mix over 20 to 35
// houses; on the line, where houses are farther apart on average, about
// 0.95 over some 40. Larger theta raises both, to about 0.95 at theta = 1;
// smaller theta lowers the grid's, to about 0.32 at theta = 0.02.)
func DefaultGenSpec(name string) (GenSpec, error) {
	g, ok := registry[name]
	if !ok {
		return GenSpec{}, unknownGenerator(name)
	}
	return g.def, nil
}

func unknownGenerator(name string) error {
	if name == "" {
		return fmt.Errorf("datasets: no generator name (want %s)", orList(GeneratorNames))
	}
	return fmt.Errorf("datasets: unknown generator %q (want %s)", name, orList(GeneratorNames))
}

// orList returns "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// GeneratorParams returns the keys of the parameters that apply to the
// named generator, in the order String writes them, or nil for an unknown
// name. For the square generators it is "n" and not "m", although
// ParseGenSpec accepts "m" for them too.
func GeneratorParams(name string) []string {
	g, ok := registry[name]
	if !ok {
		return nil
	}
	return slices.Clone(g.params)
}

// GeneratorHelp returns two lines about the named generator, separated by
// "\n" and not ending in one: its definition, then the parameters that
// apply with their defaults and its value when it is known in closed form.
// It returns "" for an unknown name.
func GeneratorHelp(name string) string {
	return registry[name].help
}

// Generate returns the matrix s describes, of dtype dt (tensor.Float64 or
// tensor.Float32): see the table of GenSpec. The fields that do not apply
// to s.Name are ignored. Errors are those of ParseGenSpec's validation and
// those of the generator, such as a uniform range that holds no float32. A
// Float32 matrix whose float64 one float32 cannot hold (an entry
// overflows, or every entry lies below float32's normal range, 2⁻¹²⁶, where
// rounding loses its relative precision) is refused.
func Generate(dt tensor.Dtype, s GenSpec) (*tensor.Dense, error) {
	if dt != tensor.Float64 && dt != tensor.Float32 {
		return nil, fmt.Errorf("datasets: unsupported dtype %v: want float64 or float32", dt)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	a, err := s.build(dt, all(s.rows()))
	if err != nil || dt != tensor.Float32 {
		return a, err
	}
	return a, s.checkRange32(a, all(s.rows()))
}

// GenerateRows returns rows [lo, hi) of Generate(dt, s), made alone: each
// row is the very row of the whole matrix (every generator makes row i from
// its own stream or formula), so that the processes of a sharded solve
// (package shard) each make their block and together hold the matrix one
// process would generate. 0 ≤ lo < hi ≤ the matrix's rows must hold. With
// dt Float32, the range check of Generate covers these rows only.
func GenerateRows(dt tensor.Dtype, s GenSpec, lo, hi int) (*tensor.Dense, error) {
	if dt != tensor.Float64 && dt != tensor.Float32 {
		return nil, fmt.Errorf("datasets: unsupported dtype %v: want float64 or float32", dt)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	if m := s.rows(); lo < 0 || lo >= hi || hi > m {
		return nil, fmt.Errorf("datasets: rows [%d, %d) of %s, which has %d rows", lo, hi, s, m)
	}
	rs := span{lo, hi}
	a, err := s.build(dt, rs)
	if err != nil || dt != tensor.Float32 {
		return a, err
	}
	return a, s.checkRange32(a, rs)
}

// Rows returns the number of rows of the matrix s describes (N for the
// square generators), once s is valid.
func (s GenSpec) Rows() int { return s.rows() }

// rows is the row count of the valid spec s.
func (s GenSpec) rows() int {
	if g, ok := registry[s.Name]; ok && g.square {
		return s.N
	}
	return s.M
}

// checkRange32 refuses the float32 matrix a of s when its float64 matrix
// does not fit float32's normal range (see RangeError): an entry that
// overflows, or a largest entry below 2⁻¹²⁶, where rounding to float32 is
// no longer within 2⁻²⁴ of it.
func (s GenSpec) checkRange32(a *tensor.Dense, rs span) error {
	m := 0.0
	for _, v := range a.Data().([]float32) {
		m = max(m, math.Abs(float64(v)))
	}
	if m >= minNormal32 && !math.IsInf(m, 0) {
		return nil
	}
	// The float64 matrix tells what float32 lost.
	a64, err := s.build(tensor.Float64, rs)
	if err != nil {
		return err
	}
	m = 0
	for _, v := range a64.Data().([]float64) {
		m = max(m, math.Abs(v))
	}
	switch {
	case m > math.MaxFloat32:
		return fmt.Errorf("datasets: %s: entries reach %g and overflow float32 (at most %g): generate it as float64", s, m, math.MaxFloat32)
	case m > 0 && m < minNormal32:
		return fmt.Errorf("datasets: %s: entries are at most %g, below float32's normal range (%g): generate it as float64", s, m, minNormal32)
	}
	return nil
}

// build builds the rows rs of the matrix of the checked spec s.
func (s GenSpec) build(dt tensor.Dtype, rs span) (*tensor.Dense, error) {
	switch s.Name {
	case "uniform":
		return uniformRows(rs, dt, s.M, s.N, s.Lo, s.Hi, s.Seed)
	case "gaussian":
		return gaussianRows(rs, dt, s.M, s.N, s.Seed)
	case "police":
		w := PoliceBurglarWealth(s.N, s.Seed)
		if s.Layout == "grid" {
			return policeBurglarGridRows(rs, dt, w, isqrt(s.N), s.Theta)
		}
		return policeBurglarRows(rs, dt, w, s.Theta)
	case "nemirovski":
		return nemirovskiRows(rs, dt, s.N, s.Family, s.Alpha)
	case "cyclic":
		return cyclicRows(rs, dt, s.N)
	case "identity":
		return identityRows(rs, dt, s.N)
	case "saddle":
		return saddleRows(rs, dt, s.M, s.N, s.Seed)
	case "rankone":
		return rankOneRows(rs, dt, s.M, s.N, s.Sigma, s.Seed)
	default: // "lowrank"
		return lowRankRows(rs, dt, s.M, s.N, s.Rank, s.Noise, s.Seed)
	}
}

// validate checks s as Generate would, without generating anything.
func (s GenSpec) validate() error {
	g, ok := registry[s.Name]
	if !ok {
		return unknownGenerator(s.Name)
	}
	m, n := s.M, s.N
	if g.square {
		if m != 0 && m != n {
			return fmt.Errorf("datasets: generator %s is square: m=%d differs from n=%d", s.Name, m, n)
		}
		m = n
	}
	if m <= 0 || n <= 0 {
		if g.square {
			return fmt.Errorf("datasets: generator %s: invalid size n=%d", s.Name, n)
		}
		return fmt.Errorf("datasets: generator %s: invalid matrix dimensions %d×%d", s.Name, m, n)
	}
	if m > math.MaxInt/8/n {
		return fmt.Errorf("datasets: generator %s: matrix of %d×%d entries is too large", s.Name, m, n)
	}
	switch s.Name {
	case "uniform":
		if !(s.Lo < s.Hi) || math.IsInf(s.Hi-s.Lo, 0) {
			return fmt.Errorf("datasets: invalid uniform range [%v, %v): want lo < hi, both finite, hi-lo finite", s.Lo, s.Hi)
		}
	case "police":
		if !(s.Theta > 0) || math.IsInf(s.Theta, 1) {
			return fmt.Errorf("datasets: invalid police-burglar theta %v: want a positive finite number", s.Theta)
		}
		switch s.Layout {
		case "", "line":
		case "grid":
			if r := isqrt(n); r*r != n {
				return fmt.Errorf("datasets: police grid needs n a perfect square, got %d (e.g. %d or %d)", n, r*r, (r+1)*(r+1))
			}
		default:
			return fmt.Errorf("datasets: unknown police layout %q (want line or grid)", s.Layout)
		}
	case "nemirovski":
		if s.Family != 1 && s.Family != 2 {
			return fmt.Errorf("datasets: unknown Nemirovski family %d: want 1 or 2", s.Family)
		}
		if !(s.Alpha > 0) || math.IsInf(s.Alpha, 1) {
			return fmt.Errorf("datasets: invalid Nemirovski exponent %v: want a positive finite number", s.Alpha)
		}
	case "cyclic":
		if n < 3 || n%2 == 0 {
			return fmt.Errorf("datasets: cyclic game size %d is not an odd number >= 3", n)
		}
	case "rankone":
		if !(s.Sigma >= 0) || math.IsInf(s.Sigma, 1) {
			return fmt.Errorf("datasets: invalid rank-one noise sigma %v: want a finite number >= 0", s.Sigma)
		}
	case "lowrank":
		return checkLowRank(m, n, s.Rank, s.Noise)
	}
	return nil
}

// isqrt returns the integer square root of n >= 0: the largest r with
// r*r <= n.
func isqrt(n int) int {
	r := int(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// Value returns the value of the game s describes when it is known in
// closed form, and ok = false (with NaN) otherwise or when s is invalid:
//
//	identity              1/n
//	cyclic                0
//	saddle                the saddle entry v of SaddleInfo(m, n, seed)
//	nemirovski family 1   (n/(2n-1))^alpha, its entry (n, 1) (1-based), a pure saddle point:
//	                      the matrix increases along rows and columns
//	nemirovski family 2   Nemirovski2Value(n), for alpha = 1 only
//	rankone               RankOneValue(m, n, seed), for sigma = 0 only (O(m+n) time)
//
// It is the value of the game with the float64 entries (those of identity
// and cyclic are exact in both dtypes); the Float32 matrix's value differs
// by at most the rounding of its entries, 2^-24 max |A_ij| (for the pure
// saddle points of saddle, nemirovski family 1 and rankone with a nonzero
// value it is exactly float32(v)).
func (s GenSpec) Value() (v float64, ok bool) {
	if s.validate() != nil {
		return math.NaN(), false
	}
	switch s.Name {
	case "identity":
		return 1 / float64(s.N), true
	case "cyclic":
		return 0, true
	case "saddle":
		_, _, v, err := SaddleInfo(s.M, s.N, s.Seed)
		return v, err == nil
	case "nemirovski":
		if s.Family == 1 {
			// The same expression as the matrix's entry (n, 1).
			return math.Pow(float64(s.N)/float64(2*s.N-1), s.Alpha), true
		}
		if s.Alpha == 1 {
			return Nemirovski2Value(s.N), true
		}
	case "rankone":
		if s.Sigma == 0 {
			return RankOneValue(s.M, s.N, s.Seed), true
		}
	}
	return math.NaN(), false
}

// String returns the canonical one-line form of s: its name, a colon and
// every parameter that applies to it as key=value, separated by commas, in
// the order of GeneratorParams; for example
//
//	uniform:m=1000,n=1000,lo=-1,hi=1,seed=1
//	police:n=400,layout=grid,theta=0.5,seed=1
//
// Numbers are written in the shortest form that parses back to the same
// value (strconv 'g' format), and an empty Layout as "line". The
// parameters that do not apply are left out, so the string does not
// describe them. ParseGenSpec(s.String()) returns s for every valid s whose
// fields that do not apply are zero and, for square generators, whose M is
// 0 (every spec of DefaultGenSpec and ParseGenSpec). An unknown name is
// returned as it is.
func (s GenSpec) String() string {
	g, ok := registry[s.Name]
	if !ok {
		return s.Name
	}
	var b strings.Builder
	b.WriteString(s.Name)
	for k, key := range g.params {
		if k == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(s.param(key))
	}
	return b.String()
}

// param returns the value of key as String writes it.
func (s GenSpec) param(key string) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch key {
	case "m":
		return strconv.Itoa(s.M)
	case "n":
		return strconv.Itoa(s.N)
	case "lo":
		return f(s.Lo)
	case "hi":
		return f(s.Hi)
	case "seed":
		return strconv.FormatUint(s.Seed, 10)
	case "sigma":
		return f(s.Sigma)
	case "theta":
		return f(s.Theta)
	case "layout":
		if s.Layout == "" {
			return "line"
		}
		return s.Layout
	case "alpha":
		return f(s.Alpha)
	case "rank":
		return strconv.Itoa(s.Rank)
	case "noise":
		return f(s.Noise)
	default: // "family"
		return strconv.Itoa(s.Family)
	}
}

// ParseGenSpec parses a generator spec, the inverse of GenSpec.String:
// either a generator name alone, meaning DefaultGenSpec(name), or
//
//	name:key=value,key=value,...
//
// which sets the given parameters of DefaultGenSpec(name). The keys are
// those of GeneratorParams(name):
//
//	m, n, family, rank
//	               decimal integers
//	seed           a decimal integer in [0, 2^64)
//	lo, hi, sigma, theta, alpha, noise
//	               floating-point numbers (strconv.ParseFloat syntax)
//	layout         line or grid
//
// Spaces around names, keys and values are ignored. A square generator
// (police, nemirovski, cyclic, identity) takes its size as n, or as m, or
// as both if they are equal, and the result has M = 0. The result is
// validated as Generate would validate it (only a uniform range that holds
// no float32 is found by Generate alone). Errors: an unknown name or key,
// a key that does not apply to the generator, a key given twice, an item
// that is not key=value, a malformed value, an invalid spec.
func ParseGenSpec(str string) (GenSpec, error) {
	name, rest, hasParams := strings.Cut(str, ":")
	name = strings.TrimSpace(name)
	s, err := DefaultGenSpec(name)
	if err != nil {
		return GenSpec{}, err
	}
	g := registry[name]
	if hasParams {
		seen := make(map[string]bool)
		for _, item := range strings.Split(rest, ",") {
			key, val, ok := strings.Cut(item, "=")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if !ok || key == "" {
				return GenSpec{}, fmt.Errorf("datasets: generator %s: parameter %q is not key=value", name, strings.TrimSpace(item))
			}
			if !slices.Contains(paramKeys, key) {
				return GenSpec{}, fmt.Errorf("datasets: generator %s: unknown parameter %q (want %s)", name, key, orList(g.params))
			}
			if !slices.Contains(g.params, key) && !(g.square && key == "m") {
				return GenSpec{}, fmt.Errorf("datasets: generator %s: parameter %s does not apply (want %s)", name, key, orList(g.params))
			}
			if seen[key] {
				return GenSpec{}, fmt.Errorf("datasets: generator %s: parameter %s given twice", name, key)
			}
			seen[key] = true
			if err := s.set(key, val); err != nil {
				return GenSpec{}, fmt.Errorf("datasets: generator %s: %w", name, err)
			}
		}
		if g.square && seen["m"] {
			if seen["n"] && s.M != s.N {
				return GenSpec{}, fmt.Errorf("datasets: generator %s is square: m=%d differs from n=%d", name, s.M, s.N)
			}
			s.N = s.M
		}
	}
	if g.square {
		s.M = 0
	}
	if err := s.validate(); err != nil {
		return GenSpec{}, err
	}
	return s, nil
}

// set parses val as the value of key.
func (s *GenSpec) set(key, val string) error {
	switch key {
	case "m", "n", "family", "rank":
		x, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("%s=%q is not an integer", key, val)
		}
		switch key {
		case "m":
			s.M = x
		case "n":
			s.N = x
		case "rank":
			s.Rank = x
		default:
			s.Family = x
		}
	case "seed":
		x, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("seed=%q is not an integer in [0, 2^64)", val)
		}
		s.Seed = x
	case "layout":
		if val != "line" && val != "grid" {
			return fmt.Errorf("unknown layout %q (want line or grid)", val)
		}
		s.Layout = val
	default:
		x, err := strconv.ParseFloat(val, 64)
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s=%q is out of the range of float64", key, val)
		}
		if err != nil {
			return fmt.Errorf("%s=%q is not a number", key, val)
		}
		switch key {
		case "lo":
			s.Lo = x
		case "hi":
			s.Hi = x
		case "sigma":
			s.Sigma = x
		case "theta":
			s.Theta = x
		case "noise":
			s.Noise = x
		default: // "alpha"
			s.Alpha = x
		}
	}
	return nil
}
