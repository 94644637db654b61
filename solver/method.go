package solver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Method is an algorithm Solve can run: *Auto (the default route), a
// *MirrorProx (with a step rule), *RegretMatching (RM+, PRM+) or *OMWU. Each method type holds its own
// constants (its knobs) with documented defaults for their zero values, and
// says which problems it accepts.
type Method interface {
	// Name returns the method's command-line name.
	Name() string
	// Uses returns nil if the method can solve p, and otherwise an error
	// saying why not (a problem kind it does not solve, an invalid knob).
	Uses(p Problem) error
	// engine returns the method's engine on p, ready to start. Solve calls
	// it after Uses accepted p.
	engine(p Problem, s *Settings) (engine, error)
}

// methods maps every command-line name to the method it stands for, in the
// order MethodNames lists them: the one place a new method is named.
var methods = []struct {
	name string
	new  func() Method
}{
	{"auto", func() Method { return &Auto{} }},
	{"ga-smooth", func() Method { return &MirrorProx{Rule: &GASmooth{}} }},
	{"ga-bounded", func() Method { return &MirrorProx{Rule: &GABounded{}} }},
	{"ga-stochastic", func() Method { return &MirrorProx{Rule: &GAStochastic{}} }},
	{"bach-levy", func() Method { return &MirrorProx{Rule: &BachLevy{}} }},
	{"constant", func() Method { return &MirrorProx{Rule: &Constant{}} }},
	{"amp", func() Method { return &MirrorProx{Rule: &AMP{}} }},
	{"adaprox", func() Method { return &MirrorProx{Rule: &AdaProx{}} }},
	{"backtracking", func() Method { return &MirrorProx{Rule: &Backtracking{}} }},
	{"rm+", func() Method { return &RegretMatching{} }},
	{"prm+", func() Method { return &RegretMatching{Predictive: true} }},
	{"omwu", func() Method { return &OMWU{} }},
}

// DefaultMethodName is the method Solve uses when given none: Auto, the
// fastest certified route gpump knows to the asked gap (see Auto;
// docs/benchmarks.md compares it with the single methods).
const DefaultMethodName = "auto"

// MethodNames returns the names NewMethod accepts.
func MethodNames() []string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	return names
}

// NewMethod returns a new method of the given command-line name with every
// knob at its default; set knobs on the returned value (its fields, or
// Knobs for values given as text).
func NewMethod(name string) (Method, error) {
	for _, m := range methods {
		if strings.EqualFold(m.name, name) {
			return m.new(), nil
		}
	}
	return nil, fmt.Errorf("solver: unknown method %q (known: %s)", name, strings.Join(MethodNames(), ", "))
}

// Knob is a tunable constant of a method or step rule, named for command
// lines and configuration files: gpump's method flags are the knobs of the
// methods, each refused for a method that does not have it.
type Knob struct {
	// Name is the flag name, e.g. "c" or "averaging".
	Name string
	// Usage says what the knob is, for this method.
	Usage string
	// Default says what the knob's zero value means.
	Default string
	// Bool marks a knob given without a value (a flag that is on or off).
	Bool bool
	// Set parses value and sets the knob on the method that listed it. It
	// refuses values that cannot be meant (a zero or negative constant).
	Set func(value string) error
}

// Tunable is implemented by the methods and step rules that have knobs.
type Tunable interface {
	// Knobs lists the knobs, each bound to the receiver.
	Knobs() []Knob
}

// positiveKnob is a knob for a finite constant > 0, whose zero value means
// def.
func positiveKnob(name, usage, def string, dst *float64) Knob {
	return Knob{Name: name, Usage: usage, Default: def, Set: func(v string) error {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("solver: %s must be a finite number > 0, got %q", name, v)
		}
		*dst = x
		return nil
	}}
}

// averagingKnob sets an Averaging among the accepted ones.
func averagingKnob(method, def string, dst *Averaging, accepted ...Averaging) Knob {
	names := []string{"auto"}
	for _, a := range accepted {
		names = append(names, a.String())
	}
	return Knob{Name: "averaging", Usage: "weights of the average: " + strings.Join(names, ", "), Default: def,
		Set: func(v string) error {
			a, err := ParseAveraging(v)
			if err == nil {
				err = a.check(method, accepted...)
			}
			if err == nil {
				*dst = a
			}
			return err
		}}
}

// restartKnobs set a Restart policy, allocated on first use.
func restartKnobs(dst **Restart) []Knob {
	policy := func() *Restart {
		if *dst == nil {
			*dst = &Restart{}
		}
		return *dst
	}
	return []Knob{
		{Name: "restart-every", Usage: "restart from the best certified point every K iterations", Default: "never",
			Set: func(v string) error {
				k, err := strconv.Atoi(v)
				if err != nil || k < 1 {
					return fmt.Errorf("solver: restart-every must be an integer ≥ 1, got %q", v)
				}
				policy().Every = k
				return nil
			}},
		{Name: "restart-factor", Usage: "restart when the average's gap has fallen to this fraction of the restart point's", Default: "never",
			Set: func(v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || !(f > 0 && f < 1) {
					return fmt.Errorf("solver: restart-factor must be in (0, 1), got %q", v)
				}
				policy().Factor = f
				return nil
			}},
	}
}
