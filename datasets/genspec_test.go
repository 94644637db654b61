package datasets

import (
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// defaultStrings are the canonical strings of the default specs.
var defaultStrings = map[string]string{
	"uniform":    "uniform:m=1000,n=1000,lo=-1,hi=1,seed=1",
	"gaussian":   "gaussian:m=1000,n=1000,seed=1",
	"police":     "police:n=1024,layout=line,theta=0.1,seed=1",
	"nemirovski": "nemirovski:n=1000,family=2,alpha=1",
	"cyclic":     "cyclic:n=1001",
	"identity":   "identity:n=1000",
	"saddle":     "saddle:m=1000,n=1000,seed=1",
	"rankone":    "rankone:m=1000,n=1000,sigma=0.1,seed=1",
	"lowrank":    "lowrank:m=1000,n=1000,rank=3,noise=0.05,seed=1",
}

func TestDefaultGenSpec(t *testing.T) {
	if len(registry) != len(GeneratorNames) || len(defaultStrings) != len(GeneratorNames) {
		t.Fatalf("%d generators registered, %d names, %d defaults in the test", len(registry), len(GeneratorNames), len(defaultStrings))
	}
	for _, name := range GeneratorNames {
		s, err := DefaultGenSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != name {
			t.Errorf("DefaultGenSpec(%q).Name = %q", name, s.Name)
		}
		if got := s.String(); got != defaultStrings[name] {
			t.Errorf("DefaultGenSpec(%q) = %s, want %s", name, got, defaultStrings[name])
		}
		p, err := ParseGenSpec(name)
		if err != nil || p != s {
			t.Errorf("ParseGenSpec(%q) = %+v, %v; want %+v", name, p, err, s)
		}
		// The parameters that apply, and nothing else, are set.
		zeroOthers := s
		fields := reflect.ValueOf(&zeroOthers).Elem()
		for _, key := range GeneratorParams(name) {
			f := fields.FieldByName(strings.ToUpper(key[:1]) + key[1:]) // "lo": Lo
			if !f.IsValid() {
				t.Fatalf("%s: parameter %s has no GenSpec field", name, key)
			}
			f.SetZero()
		}
		if zeroOthers != (GenSpec{Name: name}) {
			t.Errorf("DefaultGenSpec(%q) sets fields that do not apply: %+v", name, s)
		}
		// Every default generates.
		a, err := Generate(tensor.Float32, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Validate(a); err != nil {
			t.Fatal(err)
		}
		h := GeneratorHelp(name)
		if !strings.HasPrefix(h, name+": ") || strings.Count(h, "\n") != 1 || strings.HasSuffix(h, "\n") {
			t.Errorf("GeneratorHelp(%q) = %q: want two lines starting with the name", name, h)
		}
		for _, key := range GeneratorParams(name) {
			if !strings.Contains(h, key) {
				t.Errorf("GeneratorHelp(%q) does not mention %s", name, key)
			}
		}
	}
	for _, name := range []string{"", "Uniform", "nope", "police:n=4"} {
		if _, err := DefaultGenSpec(name); err == nil || !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("DefaultGenSpec(%q): error %v", name, err)
		}
		if GeneratorHelp(name) != "" || GeneratorParams(name) != nil {
			t.Errorf("%q: help or parameters for an unknown generator", name)
		}
	}
	// GeneratorParams returns a copy.
	GeneratorParams("uniform")[0] = "x"
	if GeneratorParams("uniform")[0] != "m" {
		t.Error("GeneratorParams returns the registry's slice")
	}
}

func TestParseGenSpec(t *testing.T) {
	cases := []struct {
		in        string
		want      GenSpec
		canonical string
	}{
		{"uniform", GenSpec{Name: "uniform", M: 1000, N: 1000, Lo: -1, Hi: 1, Seed: 1}, "uniform:m=1000,n=1000,lo=-1,hi=1,seed=1"},
		{"uniform:m=3,n=4,lo=0,hi=2.5,seed=18446744073709551615",
			GenSpec{Name: "uniform", M: 3, N: 4, Lo: 0, Hi: 2.5, Seed: math.MaxUint64},
			"uniform:m=3,n=4,lo=0,hi=2.5,seed=18446744073709551615"},
		// Any order, spaces, other number syntaxes; only the given keys change.
		{" uniform : seed = 7 , hi=1e3,lo=-0.1e1 ", GenSpec{Name: "uniform", M: 1000, N: 1000, Lo: -1, Hi: 1000, Seed: 7}, "uniform:m=1000,n=1000,lo=-1,hi=1000,seed=7"},
		{"uniform:n=500", GenSpec{Name: "uniform", M: 1000, N: 500, Lo: -1, Hi: 1, Seed: 1}, "uniform:m=1000,n=500,lo=-1,hi=1,seed=1"},
		{"uniform:lo=0x1p-3,hi=+5", GenSpec{Name: "uniform", M: 1000, N: 1000, Lo: 0.125, Hi: 5, Seed: 1}, "uniform:m=1000,n=1000,lo=0.125,hi=5,seed=1"},
		{"uniform:lo=0.1,hi=0.30000000000000004", GenSpec{Name: "uniform", M: 1000, N: 1000, Lo: 0.1, Hi: 0.30000000000000004, Seed: 1}, "uniform:m=1000,n=1000,lo=0.1,hi=0.30000000000000004,seed=1"},
		{"gaussian:m=5000,n=3000,seed=7", GenSpec{Name: "gaussian", M: 5000, N: 3000, Seed: 7}, "gaussian:m=5000,n=3000,seed=7"},
		{"police:n=400,layout=grid,theta=0.5", GenSpec{Name: "police", N: 400, Layout: "grid", Theta: 0.5, Seed: 1}, "police:n=400,layout=grid,theta=0.5,seed=1"},
		{"police:layout=grid", GenSpec{Name: "police", N: 1024, Layout: "grid", Theta: 0.1, Seed: 1}, "police:n=1024,layout=grid,theta=0.1,seed=1"},
		{"police:m=10,seed=0", GenSpec{Name: "police", N: 10, Layout: "line", Theta: 0.1}, "police:n=10,layout=line,theta=0.1,seed=0"},
		{"nemirovski:n=50,family=1,alpha=2", GenSpec{Name: "nemirovski", N: 50, Family: 1, Alpha: 2}, "nemirovski:n=50,family=1,alpha=2"},
		{"cyclic:n=5", GenSpec{Name: "cyclic", N: 5}, "cyclic:n=5"},
		{"cyclic:m=9,n=9", GenSpec{Name: "cyclic", N: 9}, "cyclic:n=9"},
		{"identity:m=7", GenSpec{Name: "identity", N: 7}, "identity:n=7"},
		{"identity:n=1", GenSpec{Name: "identity", N: 1}, "identity:n=1"},
		{"saddle:m=30,n=40,seed=2", GenSpec{Name: "saddle", M: 30, N: 40, Seed: 2}, "saddle:m=30,n=40,seed=2"},
		{"rankone:sigma=0", GenSpec{Name: "rankone", M: 1000, N: 1000, Seed: 1}, "rankone:m=1000,n=1000,sigma=0,seed=1"},
		{"rankone:m=2,n=3,sigma=1.5e-3,seed=4", GenSpec{Name: "rankone", M: 2, N: 3, Sigma: 0.0015, Seed: 4}, "rankone:m=2,n=3,sigma=0.0015,seed=4"},
		{"lowrank:m=900,n=600,rank=3,noise=0.05,seed=1", GenSpec{Name: "lowrank", M: 900, N: 600, Rank: 3, Noise: 0.05, Seed: 1}, "lowrank:m=900,n=600,rank=3,noise=0.05,seed=1"},
		{"lowrank: noise = 0 , rank=1", GenSpec{Name: "lowrank", M: 1000, N: 1000, Rank: 1, Seed: 1}, "lowrank:m=1000,n=1000,rank=1,noise=0,seed=1"},
		{"lowrank:m=2,n=5,rank=2", GenSpec{Name: "lowrank", M: 2, N: 5, Rank: 2, Noise: 0.05, Seed: 1}, "lowrank:m=2,n=5,rank=2,noise=0.05,seed=1"},
	}
	for _, c := range cases {
		s, err := ParseGenSpec(c.in)
		if err != nil {
			t.Errorf("ParseGenSpec(%q): %v", c.in, err)
			continue
		}
		if s != c.want {
			t.Errorf("ParseGenSpec(%q) = %+v, want %+v", c.in, s, c.want)
		}
		if got := s.String(); got != c.canonical {
			t.Errorf("ParseGenSpec(%q).String() = %s, want %s", c.in, got, c.canonical)
		}
		// The canonical string parses back to the same spec and string.
		s2, err := ParseGenSpec(c.canonical)
		if err != nil || s2 != s || s2.String() != c.canonical {
			t.Errorf("ParseGenSpec(%q) = %+v, %v; want %+v", c.canonical, s2, err, s)
		}
	}
}

func TestParseGenSpecErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "no generator name (want uniform, gaussian, police, nemirovski, cyclic, identity, saddle, rankone or lowrank)"},
		{":m=3", "no generator name"},
		{"unifrom", `unknown generator "unifrom" (want uniform, gaussian, police, nemirovski, cyclic, identity, saddle, rankone or lowrank)`},
		{"Uniform", "unknown generator"},
		{"uniform:", `parameter "" is not key=value`},
		{"uniform:m=3,", `parameter "" is not key=value`},
		{"uniform:m", `parameter "m" is not key=value`},
		{"uniform:=3", `parameter "=3" is not key=value`},
		{"uniform:m=3;n=4", `m="3;n=4" is not an integer`},
		{"uniform:rows=3", `unknown parameter "rows" (want m, n, lo, hi or seed)`},
		{"uniform:sigma=1", "parameter sigma does not apply (want m, n, lo, hi or seed)"},
		{"gaussian:lo=0", "parameter lo does not apply (want m, n or seed)"},
		{"police:alpha=1", "parameter alpha does not apply (want n, layout, theta or seed)"},
		{"nemirovski:seed=1", "parameter seed does not apply (want n, family or alpha)"},
		{"cyclic:seed=1", "parameter seed does not apply (want n)"},
		{"identity:theta=1", "parameter theta does not apply (want n)"},
		{"saddle:sigma=0", "parameter sigma does not apply (want m, n or seed)"},
		{"rankone:layout=grid", "parameter layout does not apply (want m, n, sigma or seed)"},
		{"rankone:noise=1", "parameter noise does not apply (want m, n, sigma or seed)"},
		{"lowrank:sigma=1", "parameter sigma does not apply (want m, n, rank, noise or seed)"},
		{"uniform:rank=2", "parameter rank does not apply"},
		{"uniform:m=3,m=3", "parameter m given twice"},
		{"uniform:m=", `m="" is not an integer`},
		{"uniform:m=3.0", `m="3.0" is not an integer`},
		{"uniform:m=99999999999999999999", "is not an integer"},
		{"uniform:seed=-1", `seed="-1" is not an integer in [0, 2^64)`},
		{"uniform:seed=18446744073709551616", "is not an integer in [0, 2^64)"},
		{"uniform:lo=x", `lo="x" is not a number`},
		{"uniform:hi=1e999", `hi="1e999" is out of the range of float64`},
		{"uniform:m=0", "invalid matrix dimensions 0×1000"},
		{"uniform:n=-2", "invalid matrix dimensions 1000×-2"},
		{"uniform:m=4000000000,n=4000000000", "too large"},
		{"uniform:lo=1,hi=1", "invalid uniform range [1, 1)"},
		{"uniform:lo=2,hi=1", "invalid uniform range"},
		{"uniform:lo=nan", "invalid uniform range"},
		{"uniform:hi=inf", "invalid uniform range"},
		{"uniform:lo=-1e308,hi=1e308", "invalid uniform range"},
		{"gaussian:m=-1", "invalid matrix dimensions"},
		{"police:n=0", "generator police: invalid size n=0"},
		{"police:theta=0", "invalid police-burglar theta 0"},
		{"police:theta=-1", "invalid police-burglar theta"},
		{"police:theta=+Inf", "invalid police-burglar theta"},
		{"police:theta=NaN", "invalid police-burglar theta"},
		{"police:layout=ring", `unknown layout "ring" (want line or grid)`},
		{"police:layout=Grid", "unknown layout"},
		{"police:layout=grid,n=1000", "police grid needs n a perfect square, got 1000 (e.g. 961 or 1024)"},
		{"police:layout=grid,n=2", "police grid needs n a perfect square, got 2 (e.g. 1 or 4)"},
		{"police:m=3,n=4", "generator police is square: m=3 differs from n=4"},
		{"nemirovski:family=3", "unknown Nemirovski family 3"},
		{"nemirovski:family=0", "unknown Nemirovski family 0"},
		{"nemirovski:alpha=0", "invalid Nemirovski exponent 0"},
		{"nemirovski:alpha=inf", "invalid Nemirovski exponent"},
		{"nemirovski:n=-5", "invalid size n=-5"},
		{"cyclic:n=1000", "cyclic game size 1000 is not an odd number >= 3"},
		{"cyclic:n=1", "cyclic game size 1"},
		{"cyclic:m=5,n=7", "generator cyclic is square: m=5 differs from n=7"},
		{"identity:n=0", "generator identity: invalid size n=0"},
		{"identity:m=3000000000", "too large"},
		{"saddle:n=0", "invalid matrix dimensions"},
		{"rankone:sigma=-1", "invalid rank-one noise sigma -1"},
		{"rankone:sigma=-inf", "invalid rank-one noise sigma"},
		{"rankone:sigma=nan", "invalid rank-one noise sigma"},
		{"lowrank:rank=0", "invalid low-rank rank 0: want 1 <= rank <= min(m, n) = 1000"},
		{"lowrank:rank=-1", "invalid low-rank rank -1"},
		{"lowrank:m=3,n=5,rank=4", "invalid low-rank rank 4: want 1 <= rank <= min(m, n) = 3"},
		{"lowrank:rank=2.5", `rank="2.5" is not an integer`},
		{"lowrank:noise=-0.1", "invalid low-rank noise -0.1"},
		{"lowrank:noise=inf", "invalid low-rank noise"},
		{"lowrank:noise=nan", "invalid low-rank noise"},
		{"lowrank:m=0", "invalid matrix dimensions 0×1000"},
	}
	for _, c := range cases {
		s, err := ParseGenSpec(c.in)
		if err == nil {
			t.Errorf("ParseGenSpec(%q) = %+v, want an error", c.in, s)
			continue
		}
		if s != (GenSpec{}) {
			t.Errorf("ParseGenSpec(%q): spec %+v with the error", c.in, s)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "datasets: ") || !strings.Contains(msg, c.want) {
			t.Errorf("ParseGenSpec(%q): error %q, want it to contain %q", c.in, msg, c.want)
		}
		if msg[10:11] != strings.ToLower(msg[10:11]) {
			t.Errorf("ParseGenSpec(%q): error %q is not lowercase", c.in, msg)
		}
	}
}

// sameMatrix fails unless a and b have the same dtype, shape and entries
// (bit for bit).
func sameMatrix(t *testing.T, what string, a, b *tensor.Dense) {
	t.Helper()
	if a.Dtype() != b.Dtype() || !a.Shape().Eq(b.Shape()) {
		t.Fatalf("%s: %v %v, want %v %v", what, a.Dtype(), a.Shape(), b.Dtype(), b.Shape())
	}
	x, y := float64s(t, a), float64s(t, b)
	for k := range x {
		if math.Float64bits(x[k]) != math.Float64bits(y[k]) {
			t.Fatalf("%s: entry %d = %v, want %v", what, k, x[k], y[k])
		}
	}
}

func TestGenerate(t *testing.T) {
	type direct func(dt tensor.Dtype) (*tensor.Dense, error)
	grid := func(dt tensor.Dtype) (*tensor.Dense, error) {
		return PoliceBurglarGrid(dt, PoliceBurglarWealth(36, 3), 6, 0.7)
	}
	line := func(dt tensor.Dtype) (*tensor.Dense, error) {
		return PoliceBurglar(dt, PoliceBurglarWealth(36, 3), 0.7)
	}
	cases := []struct {
		spec GenSpec
		want direct
	}{
		{GenSpec{Name: "uniform", M: 5, N: 7, Lo: 2, Hi: 3, Seed: 4},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Uniform(dt, 5, 7, 2, 3, 4) }},
		// Fields that do not apply are ignored.
		{GenSpec{Name: "uniform", M: 5, N: 7, Lo: 2, Hi: 3, Seed: 4, Sigma: -1, Theta: math.NaN(), Layout: "ring", Alpha: -2, Family: 9},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Uniform(dt, 5, 7, 2, 3, 4) }},
		{GenSpec{Name: "gaussian", M: 6, N: 2, Seed: 9, Lo: 5, Hi: 1},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Gaussian(dt, 6, 2, 9) }},
		{GenSpec{Name: "police", N: 36, Layout: "grid", Theta: 0.7, Seed: 3}, grid},
		{GenSpec{Name: "police", M: 36, N: 36, Layout: "grid", Theta: 0.7, Seed: 3}, grid},
		{GenSpec{Name: "police", N: 36, Layout: "line", Theta: 0.7, Seed: 3}, line},
		{GenSpec{Name: "police", N: 36, Theta: 0.7, Seed: 3, Sigma: 4}, line}, // "" is line
		{GenSpec{Name: "nemirovski", N: 9, Family: 1, Alpha: 0.5, Seed: 4},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Nemirovski(dt, 9, 1, 0.5) }},
		{GenSpec{Name: "cyclic", N: 7, Seed: 3},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Cyclic(dt, 7) }},
		{GenSpec{Name: "identity", M: 4, N: 4},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Identity(dt, 4) }},
		{GenSpec{Name: "saddle", M: 8, N: 3, Seed: 2, Layout: "x"},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return Saddle(dt, 8, 3, 2) }},
		{GenSpec{Name: "rankone", M: 8, N: 3, Seed: 2, Sigma: 0.3},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return RankOne(dt, 8, 3, 0.3, 2) }},
		{GenSpec{Name: "rankone", M: 8, N: 3, Seed: 2},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return RankOne(dt, 8, 3, 0, 2) }},
		{GenSpec{Name: "lowrank", M: 8, N: 5, Rank: 2, Noise: 0.3, Seed: 2, Sigma: 7},
			func(dt tensor.Dtype) (*tensor.Dense, error) { return LowRank(dt, 8, 5, 2, 0.3, 2) }},
	}
	for _, c := range cases {
		for _, dt := range dtypes {
			got, err := Generate(dt, c.spec)
			if err != nil {
				t.Fatalf("%+v: %v", c.spec, err)
			}
			want, err := c.want(dt)
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, c.spec.String()+" "+dt.String(), got, want)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		dt   tensor.Dtype
		spec GenSpec
		want string
	}{
		{tensor.Float64, GenSpec{}, "no generator name"},
		{tensor.Float64, GenSpec{Name: "zeros", M: 2, N: 2}, `unknown generator "zeros"`},
		{tensor.Int, GenSpec{Name: "identity", N: 2}, "unsupported dtype int"},
		{tensor.Dtype{}, GenSpec{Name: "identity", N: 2}, "unsupported dtype"},
		{tensor.Float64, GenSpec{Name: "uniform", N: 2, Lo: 0, Hi: 1}, "invalid matrix dimensions 0×2"},
		{tensor.Float64, GenSpec{Name: "uniform", M: 2, N: 2}, "invalid uniform range [0, 0)"},
		{tensor.Float32, GenSpec{Name: "uniform", M: 2, N: 2, Lo: 0.1, Hi: 0.1 + 1e-9}, "contains no float32"},
		{tensor.Float64, GenSpec{Name: "gaussian", M: math.MaxInt / 4, N: 4}, "too large"},
		{tensor.Float64, GenSpec{Name: "identity", M: 3, N: 2}, "square: m=3 differs from n=2"},
		{tensor.Float64, GenSpec{Name: "identity", M: 3}, "square: m=3 differs from n=0"},
		{tensor.Float64, GenSpec{Name: "identity", N: -1}, "invalid size n=-1"},
		{tensor.Float64, GenSpec{Name: "police", N: 4, Seed: 1}, "invalid police-burglar theta 0"},
		{tensor.Float64, GenSpec{Name: "police", N: 5, Layout: "grid", Theta: 1}, "perfect square, got 5 (e.g. 4 or 9)"},
		{tensor.Float64, GenSpec{Name: "police", N: 4, Layout: "Grid", Theta: 1}, `unknown police layout "Grid"`},
		{tensor.Float64, GenSpec{Name: "nemirovski", N: 4, Alpha: 1}, "unknown Nemirovski family 0"},
		{tensor.Float64, GenSpec{Name: "nemirovski", N: 4, Family: 1}, "invalid Nemirovski exponent 0"},
		{tensor.Float64, GenSpec{Name: "cyclic", N: 4}, "not an odd number"},
		{tensor.Float64, GenSpec{Name: "saddle", M: 4}, "invalid matrix dimensions 4×0"},
		{tensor.Float64, GenSpec{Name: "rankone", M: 4, N: 4, Sigma: math.NaN()}, "invalid rank-one noise sigma NaN"},
		{tensor.Float64, GenSpec{Name: "lowrank", M: 4, N: 4}, "invalid low-rank rank 0"},
		{tensor.Float64, GenSpec{Name: "lowrank", M: 4, N: 4, Rank: 2, Noise: -1}, "invalid low-rank noise -1"},
	}
	for _, c := range cases {
		a, err := Generate(c.dt, c.spec)
		if err == nil || a != nil {
			t.Errorf("Generate(%v, %+v) = %v, %v; want an error", c.dt, c.spec, a, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "datasets: ") || !strings.Contains(msg, c.want) {
			t.Errorf("Generate(%v, %+v): error %q, want it to contain %q", c.dt, c.spec, msg, c.want)
		}
	}
}

func TestGenSpecValue(t *testing.T) {
	known := []string{
		"identity:n=1", "identity:n=7",
		"cyclic:n=3", "cyclic:n=9",
		"saddle:m=1,n=1,seed=3", "saddle:m=6,n=9,seed=3", "saddle:m=9,n=6,seed=4",
		"nemirovski:n=1,family=2,alpha=1", "nemirovski:n=12,family=2,alpha=1",
		"nemirovski:n=1,family=1,alpha=1", "nemirovski:n=9,family=1,alpha=1",
		"nemirovski:n=9,family=1,alpha=0.3", "nemirovski:n=9,family=1,alpha=2.5",
		"rankone:m=6,n=8,sigma=0,seed=1", "rankone:m=1,n=8,sigma=0,seed=2", "rankone:m=3,n=2,sigma=0,seed=4",
	}
	for _, str := range known {
		s, err := ParseGenSpec(str)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := s.Value()
		if !ok {
			t.Errorf("%s: value not known", str)
			continue
		}
		a, err := Generate(tensor.Float64, s)
		if err != nil {
			t.Fatal(err)
		}
		n := a.Shape()
		if lp := gameValue(t, float64s(t, a), n[0], n[1]); math.Abs(lp-v) > 1e-9 {
			t.Errorf("%s: Value %v, the linear program's %v", str, v, lp)
		}
	}
	// Exact values.
	for _, c := range []struct {
		spec GenSpec
		want float64
	}{
		{GenSpec{Name: "identity", N: 7}, 1.0 / 7},
		{GenSpec{Name: "identity", M: 7, N: 7}, 1.0 / 7},
		{GenSpec{Name: "cyclic", N: 1001}, 0},
		{GenSpec{Name: "nemirovski", N: 50, Family: 2, Alpha: 1}, Nemirovski2Value(50)},
		{GenSpec{Name: "nemirovski", N: 50, Family: 1, Alpha: 3}, math.Pow(50.0/99, 3)},
		{GenSpec{Name: "rankone", M: 40, N: 50, Seed: 9}, RankOneValue(40, 50, 9)},
		{GenSpec{Name: "rankone", M: 40, N: 50, Seed: 9, Lo: 4, Theta: 2}, RankOneValue(40, 50, 9)},
	} {
		if v, ok := c.spec.Value(); !ok || v != c.want {
			t.Errorf("%+v: Value() = %v, %v; want %v", c.spec, v, ok, c.want)
		}
	}
	if _, _, v, _ := SaddleInfo(30, 40, 5); true {
		if got, ok := (GenSpec{Name: "saddle", M: 30, N: 40, Seed: 5}).Value(); !ok || got != v {
			t.Errorf("saddle Value() = %v, %v; want %v", got, ok, v)
		}
	}
	// Unknown values and invalid specs.
	for _, s := range []GenSpec{
		{Name: "uniform", M: 3, N: 3, Lo: 0, Hi: 1},
		{Name: "gaussian", M: 3, N: 3},
		{Name: "police", N: 4, Theta: 1},
		{Name: "nemirovski", N: 4, Family: 2, Alpha: 2},
		{Name: "rankone", M: 3, N: 3, Sigma: 0.1},
		{Name: "identity", N: 0},
		{Name: "identity", M: 2, N: 3},
		{Name: "cyclic", N: 4},
		{Name: "saddle", M: 0, N: 3},
		{Name: "rankone", M: 3, N: 3, Sigma: -1},
		{Name: "lowrank", M: 3, N: 3, Rank: 1},
		{Name: "bogus", N: 3},
	} {
		if v, ok := s.Value(); ok || !math.IsNaN(v) {
			t.Errorf("%+v: Value() = %v, %v; want NaN, false", s, v, ok)
		}
	}
}

func TestGenSpecString(t *testing.T) {
	for _, c := range []struct {
		spec GenSpec
		want string
	}{
		// Fields that do not apply are left out; an empty layout is line.
		{GenSpec{Name: "police", M: 9, N: 9, Theta: 2, Seed: 3, Sigma: 1}, "police:n=9,layout=line,theta=2,seed=3"},
		{GenSpec{Name: "identity", N: 7, Seed: 5}, "identity:n=7"},
		{GenSpec{Name: "uniform", M: 1, N: 2, Lo: math.Copysign(0, -1), Hi: 1e-300, Seed: 3}, "uniform:m=1,n=2,lo=-0,hi=1e-300,seed=3"},
		{GenSpec{Name: "rankone", M: 1, N: 2, Sigma: 1.0 / 3}, "rankone:m=1,n=2,sigma=0.3333333333333333,seed=0"},
		{GenSpec{Name: "lowrank", M: 1, N: 2, Rank: 1, Noise: 0.1, Sigma: 4}, "lowrank:m=1,n=2,rank=1,noise=0.1,seed=0"},
		// Unknown names come back as they are.
		{GenSpec{Name: "bogus", M: 1}, "bogus"},
		{GenSpec{}, ""},
	} {
		if got := c.spec.String(); got != c.want {
			t.Errorf("%+v: String() = %s, want %s", c.spec, got, c.want)
		}
	}
}

// TestGeneratorsDeterminism: Generate gives the same matrix for any
// GOMAXPROCS, and its Float32 matrix is its Float64 matrix rounded, for
// every generator.
func TestGeneratorsDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	specs := []string{
		"uniform:m=200,n=400,lo=-3,hi=5,seed=8",
		"gaussian:m=200,n=400,seed=8",
		"police:n=400,layout=line,theta=0.2,seed=8",
		"police:n=400,layout=grid,theta=0.2,seed=8",
		"nemirovski:n=300,family=1,alpha=0.7",
		"nemirovski:n=300,family=2,alpha=1.3",
		"cyclic:n=301",
		"identity:n=300",
		"saddle:m=200,n=400,seed=8",
		"rankone:m=200,n=400,sigma=0.3,seed=8",
		"rankone:m=200,n=400,sigma=0,seed=8",
		"lowrank:m=200,n=400,rank=3,noise=0.05,seed=8",
		"lowrank:m=200,n=400,rank=11,noise=0,seed=8",
	}
	for _, str := range specs {
		s, err := ParseGenSpec(str)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(1)
		ref, err := Generate(tensor.Float64, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{2, 7} {
			runtime.GOMAXPROCS(procs)
			a, err := Generate(tensor.Float64, s)
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, str, a, ref)
		}
		a32, err := Generate(tensor.Float32, s)
		if err != nil {
			t.Fatal(err)
		}
		r := float64s(t, ref)
		for k, v := range float64s(t, a32) {
			if v != float64(float32(r[k])) {
				t.Fatalf("%s: float32 entry %d = %v, want %v", str, k, v, float32(r[k]))
			}
		}
	}
}

// FuzzParseGenSpec checks that ParseGenSpec never panics, that its errors
// carry the package prefix, that every accepted spec round-trips through
// String, and that small accepted specs generate.
func FuzzParseGenSpec(f *testing.F) {
	for _, s := range defaultStrings {
		f.Add(s)
	}
	for _, s := range []string{
		"uniform", "police:n=400,layout=grid,theta=0.5,seed=1", "identity:m=7", "cyclic:m=5,n=5",
		"uniform: lo = -0 ,hi=0x1p-3", "rankone:m=3,n=2,sigma=0,seed=4", "nemirovski:n=3,family=1,alpha=1e-300",
		"lowrank:m=4,n=9,rank=4,noise=0,seed=3", "lowrank:rank=1001", "lowrank:m=64,n=64,rank=64,noise=2",
		"police:layout=grid,n=2", "uniform:m=3,m=3", "gaussian:m=,n=2", "saddle:seed=18446744073709551615",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseGenSpec(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "datasets: ") {
				t.Fatalf("ParseGenSpec(%q): error %q lacks the prefix", in, err)
			}
			if s != (GenSpec{}) {
				t.Fatalf("ParseGenSpec(%q): spec %+v with an error", in, s)
			}
			return
		}
		c := s.String()
		s2, err := ParseGenSpec(c)
		if err != nil {
			t.Fatalf("ParseGenSpec(%q) = %+v, whose String %q does not parse: %v", in, s, c, err)
		}
		if s2 != s {
			t.Fatalf("ParseGenSpec(%q) = %+v, ParseGenSpec(%q) = %+v", in, s, c, s2)
		}
		if c2 := s2.String(); c2 != c {
			t.Fatalf("String is not canonical: %q, then %q", c, c2)
		}
		m := s.M
		if m == 0 {
			m = s.N
		}
		if m*s.N <= 1<<12 {
			a, err := Generate(tensor.Float64, s)
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if err := Validate(a); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if v, ok := s.Value(); ok != !math.IsNaN(v) {
				t.Fatalf("%s: Value() = %v, %v", c, v, ok)
			}
		}
	})
}

// TestGenerateRange32: generators refuse float32 matrices whose float64
// ones float32 cannot hold.
func TestGenerateRange32(t *testing.T) {
	for spec, want := range map[string]string{
		"uniform:m=3,n=3,lo=1e-40,hi=2e-40":  "below float32's normal range",
		"police:n=9,theta=1e-50":             "below float32's normal range",
		"rankone:m=3,n=3,sigma=1e39,seed=2":  "overflow float32",
		"lowrank:m=3,n=3,rank=1,noise=1e39":  "overflow float32",
		"uniform:m=3,n=3,lo=1e-30,hi=2e-30":  "",
		"nemirovski:n=50,family=1,alpha=100": "",
	} {
		s, err := ParseGenSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Generate(tensor.Float32, s)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
		if _, err := Generate(tensor.Float64, s); err != nil {
			t.Errorf("%s as float64: %v", spec, err)
		}
	}
}
