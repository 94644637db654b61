package gan

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStraddles: the 2-means test calls two modes with a bridge between
// them straddled, and one blob, one streak or a mode with a few strays
// not.
func TestStraddles(t *testing.T) {
	const n = 64
	rng := rand.New(rand.NewPCG(3, 4))
	blob := func(x []float64, cx, cy, s float64) {
		x[0], x[1] = cx+s*rng.NormFloat64(), cy+s*rng.NormFloat64()
	}
	for _, c := range []struct {
		name string
		draw func(i int, x []float64)
		want bool
	}{
		{"one blob", func(i int, x []float64) { blob(x, 2, -4, 0.05) }, false},
		{"one wide blob", func(i int, x []float64) { blob(x, 0, 0, 1) }, false},
		{"a streak", func(i int, x []float64) { u := rng.Float64(); x[0], x[1] = 2*u, 0.01*rng.NormFloat64() }, false},
		{"two modes", func(i int, x []float64) { blob(x, 2*float64(i%2), 0, 0.05) }, true},
		{"two modes and a bridge", func(i int, x []float64) {
			switch {
			case i%10 == 0:
				x[0], x[1] = 2*rng.Float64(), 0.02*rng.NormFloat64()
			default:
				blob(x, 2*float64(i%2), 0, 0.05)
			}
		}, true},
		{"two ring8 modes", func(i int, x []float64) {
			a := math.Pi / 4 * float64(i%2)
			blob(x, 2*math.Cos(a), 2*math.Sin(a), 0.02)
		}, true},
		{"a mode and a few strays", func(i int, x []float64) {
			if i < 6 {
				blob(x, 2, 2, 0.05)
			} else {
				blob(x, 0, 0, 0.05)
			}
		}, false},
	} {
		x := make([]float64, 2*n)
		for i := range n {
			c.draw(i, x[2*i:2*i+2])
		}
		var m twoMeans
		a, b, got := m.straddles(x, n, 2, 5)
		if got != c.want {
			t.Errorf("%s: straddles %v, want %v (centres %v, %v)", c.name, got, c.want, a, b)
		}
	}
}

// TestSplit: a generator made to straddle two points is restarted, with
// the lighter of the two other generators nearest each other (not the
// lightest, which may hold a light mode alone), as two blobs, one on each
// point; the other generators are left alone.
func TestSplit(t *testing.T) {
	cfg := &Config{Generators: 4, Discriminators: 2, Rounds: 100, Batch: 64, Hidden: 8, Seed: 5, Threads: 1, SplitEvery: 10}
	tr, err := newTrainer(Grid25(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	// Generator 1 maps the sign of z_0 to (3, 1) ± (1, 0).
	th := tr.mix.Generators[1]
	clear(th)
	ls := tr.gen.layers()
	th[ls[0].w+0*ls[0].out+0] = 50 // z_0 → first hidden unit, saturated
	th[ls[1].w+0*ls[1].out+0] = 50 // → second layer's first unit, ±1
	th[ls[2].w+0*ls[2].out+0] = 1  // → x ± 1
	th[ls[2].b], th[ls[2].b+1] = 3, 1
	// Generator 0, the lightest, holds a mode of its own at (-4, -4), as
	// the generator of a light mode does; generators 2 and 3 share one at
	// (0, 0), and 2 is the lighter: 2 is the spare restarted.
	for g, at := range map[int][2]float64{0: {-4, -4}, 2: {0, 0}, 3: {0.01, 0}} {
		th := tr.mix.Generators[g]
		clear(th)
		th[ls[2].b], th[ls[2].b+1] = at[0], at[1]
	}
	copy(tr.recentP, []float64{0.05, 0.3, 0.1, 0.3})
	before := [][]float64{append([]float64(nil), tr.mix.Generators[0]...), append([]float64(nil), tr.mix.Generators[3]...)}
	if n := tr.split(9); n != 0 {
		t.Fatalf("split between checks restarted %d generators", n)
	}
	if n := tr.split(10); n != 2 {
		t.Fatalf("split restarted %d generators, want 2", n)
	}
	if !slicesEqual(before[0], tr.mix.Generators[0]) || !slicesEqual(before[1], tr.mix.Generators[3]) {
		t.Error("split moved a generator that does not straddle")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	z := make([]float64, 2*256)
	normals(z, rng)
	x := make([]float64, 2*256)
	var centres [][2]float64
	for _, g := range []int{1, 2} {
		tr.gen.forward(x, tr.mix.Generators[g], z, 256)
		var c [2]float64
		for i := range 256 {
			c[0] += x[2*i] / 256
			c[1] += x[2*i+1] / 256
			if d := math.Hypot(x[2*i]-x[0], x[2*i+1]-x[1]); d > 0.5 {
				t.Errorf("generator %d is not a blob after the split: points %v and %v", g, x[:2], x[2*i:2*i+2])
				break
			}
		}
		centres = append(centres, c)
	}
	// One blob on each of (2, 1) and (4, 1), in either order.
	for _, want := range [][2]float64{{2, 1}, {4, 1}} {
		ok := false
		for _, c := range centres {
			ok = ok || math.Hypot(c[0]-want[0], c[1]-want[1]) < 0.1
		}
		if !ok {
			t.Errorf("no blob at %v: centres %v", want, centres)
		}
	}
	if n := tr.split(20); n != 0 {
		t.Errorf("the restarted blobs were split again (%d)", n)
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
