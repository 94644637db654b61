package tensorops_test

import (
	"testing"

	"github.com/gpump/gpump/tensorops"
)

// subBackend is a backend that views part of a vector.
type subBackend interface {
	tensorops.Backend
	Sub(v tensorops.Vector, lo, hi int) tensorops.Vector
}

// testSub checks Sub on be: a view of [lo, hi) reads those elements,
// writes through to them and to nothing else, and works as an operand of
// a product (as a rank's rows of p do); a range outside the vector panics.
func testSub(t *testing.T, be subBackend) {
	const n = 11
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
	}
	v, err := be.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(v)
	if err := be.Load(v, x); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, n}, {3, 8}, {4, 5}, {10, 11}, {6, 6}} {
		lo, hi := r[0], r[1]
		s := be.Sub(v, lo, hi)
		if s.Len() != hi-lo {
			t.Fatalf("Sub(%d, %d): length %d", lo, hi, s.Len())
		}
		if hi == lo {
			continue
		}
		got := make([]float64, hi-lo)
		if err := be.Store(got, s); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g != x[lo+i] {
				t.Fatalf("Sub(%d, %d)[%d] = %g, want %g", lo, hi, i, g, x[lo+i])
			}
		}
	}
	// Doubling [3, 8) in place changes those elements only.
	s := be.Sub(v, 3, 8)
	be.Axpby(s, 2, s, 0, s)
	all := make([]float64, n)
	if err := be.Store(all, v); err != nil {
		t.Fatal(err)
	}
	for i, g := range all {
		want := x[i]
		if i >= 3 && i < 8 {
			want *= 2
		}
		if g != want {
			t.Fatalf("after doubling [3, 8): element %d = %g, want %g", i, g, want)
		}
	}
	for _, r := range [][2]int{{-1, 2}, {5, 4}, {0, n + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Sub(%d, %d) of %d did not panic", r[0], r[1], n)
				}
			}()
			be.Sub(v, r[0], r[1])
		}()
	}
}

func TestCPUSub(t *testing.T) {
	c := tensorops.NewCPU(1)
	defer c.Close()
	testSub(t, c)
}
