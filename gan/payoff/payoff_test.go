package payoff

import "testing"

// TestLayers: the three layers tile the flat parameters without gaps, W
// before b, in the order W1 b1 W2 b2 W3 b3.
func TestLayers(t *testing.T) {
	n := Net{In: 3, Hidden: 5, Out: 2}
	off := 0
	for i, l := range n.Layers() {
		if l.W != off || l.B != l.W+l.In*l.Out {
			t.Errorf("layer %d at %+v, want W at %d", i, l, off)
		}
		off = l.B + l.Out
	}
	if want := 3*5 + 5 + 5*5 + 5 + 5*2 + 2; n.NumParams() != want || off != want {
		t.Errorf("NumParams %d, layers end at %d, want %d", n.NumParams(), off, want)
	}
}

// TestShapeCheck: shapes whose networks do not fit or whose sizes are not
// positive are refused, by NewCPU too.
func TestShapeCheck(t *testing.T) {
	good := Shape{Gen: Net{In: 2, Hidden: 4, Out: 2}, Disc: Net{In: 2, Hidden: 4, Out: 1}, K: 2, J: 3, Batch: 5, Log: true}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Shape){
		"no generators":       func(s *Shape) { s.K = 0 },
		"empty batch":         func(s *Shape) { s.Batch = 0 },
		"no hidden units":     func(s *Shape) { s.Disc.Hidden = 0 },
		"dimensions mismatch": func(s *Shape) { s.Disc.In = 3 },
		"two outputs":         func(s *Shape) { s.Disc.Out = 2 },
	} {
		s := good
		change(&s)
		if _, err := NewCPU(s, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestEvalLengths: Eval refuses slices of the wrong lengths (a panic, as
// the device evaluator's) instead of evaluating with the networks or rows
// a previous evaluation left.
func TestEvalLengths(t *testing.T) {
	s := Shape{Gen: Net{In: 2, Hidden: 4, Out: 2}, Disc: Net{In: 2, Hidden: 4, Out: 1}, K: 2, J: 3, Batch: 5, Log: true}
	p, err := NewCPU(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	nets := func(n, per int) [][]float64 {
		v := make([][]float64, n)
		for i := range v {
			v[i] = make([]float64, per)
		}
		return v
	}
	gp, dp := s.Gen.NumParams(), s.Disc.NumParams()
	type args struct {
		m           []float64
		gens, discs [][]float64
		real, z     []float64
	}
	good := func() args {
		return args{make([]float64, 6), nets(2, gp), nets(3, dp), make([]float64, 10), make([]float64, 10)}
	}
	g := good()
	if err := p.Eval(g.m, g.gens, g.discs, g.real, g.z); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*args){
		"one generator short":     func(a *args) { a.gens = a.gens[:1] },
		"one discriminator short": func(a *args) { a.discs = a.discs[:2] },
		"short real batch":        func(a *args) { a.real = a.real[:8] },
		"long noise":              func(a *args) { a.z = make([]float64, 12) },
		"short matrix":            func(a *args) { a.m = a.m[:5] },
		"short generator":         func(a *args) { a.gens[1] = a.gens[1][:gp-1] },
		"long discriminator":      func(a *args) { a.discs[0] = make([]float64, dp+1) },
	} {
		a := good()
		change(&a)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			p.Eval(a.m, a.gens, a.discs, a.real, a.z)
		}()
	}
}
