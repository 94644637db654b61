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
