package tensorops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The CPU's batched operations give every selected game, bit for bit, the
// result of the single-game operation on a one-thread backend, also when
// the work is large enough to be shared over the workers (batchParallelMin),
// and leave the games out of the selection untouched: the contract's
// promise that a lockstep batch solves each game as alone. The selection
// skips game 1 and lists the others in reverse order.
func TestCPUBatchedBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	one, two := NewCPU(1), NewCPU(2)
	defer one.Close()
	defer two.Close()
	// fill returns a batch vector of b parts of length n drawn in [lo, hi).
	fill := func(b, n int, lo, hi float64) CPUVector {
		v := make(CPUVector, b*n)
		for i := range v {
			v[i] = lo + (hi-lo)*rng.Float64()
		}
		return v
	}
	// check compares part k of got with want and the parts of unselected
	// games with was.
	check := func(label string, got, was CPUVector, n int, sel []int, want func(k int) []float64) {
		t.Helper()
		for k := range len(got) / n {
			part := got[k*n : (k+1)*n]
			ref := was[k*n : (k+1)*n]
			if slices.Contains(sel, k) {
				ref = want(k)
			}
			if !slices.EqualFunc(part, ref, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
				t.Errorf("%s: game %d differs from the one-thread backend's (selected %v)", label, k, sel)
			}
		}
	}
	for _, f32 := range []bool{false, true} {
		for _, sh := range [][3]int{{3, 300, 250}, {3, 7, 13}, {3, 1, 40000}, {3, 40000, 1}} {
			b, m, n := sh[0], sh[1], sh[2]
			at, _ := randMatrix(rng, b*m, n, f32)
			if err := at.Reshape(b, m, n); err != nil {
				t.Fatal(err)
			}
			a, err := two.NewBatchMatrix(at)
			if err != nil {
				t.Fatal(err)
			}
			sel, _ := two.NewSelection(b)
			games := []int{2, 0}
			if err := two.Select(sel, games); err != nil {
				t.Fatal(err)
			}
			p, q := fill(b, m, 0, 1), fill(b, n, 0, 1)
			fp0, fq0 := fill(b, m, -1, 1), fill(b, n, -1, 1)
			fp, fq := slices.Clone(fp0), slices.Clone(fq0)
			two.BatchOperator(fp, fq, a, p, q, sel)
			ref := func(k int) (CPUVector, CPUVector) {
				rp, rq := make(CPUVector, m), make(CPUVector, n)
				one.Operator(rp, rq, two.GameMatrix(a, k), p[k*m:(k+1)*m], q[k*n:(k+1)*n])
				return rp, rq
			}
			label := fmt.Sprintf("%v %d×%d×%d", at.Dtype(), b, m, n)
			check(label+" BatchOperator fp", fp, fp0, m, games, func(k int) []float64 { rp, _ := ref(k); return rp })
			check(label+" BatchOperator fq", fq, fq0, n, games, func(k int) []float64 { _, rq := ref(k); return rq })
			fp, fq = slices.Clone(fp0), slices.Clone(fq0)
			two.BatchMulVec(fp, a, q, sel)
			two.BatchMulTVec(fq, a, p, sel)
			check(label+" BatchMulVec", fp, fp0, m, games, func(k int) []float64 {
				r := make(CPUVector, m)
				one.MulVec(r, two.GameMatrix(a, k), q[k*n:(k+1)*n])
				return r
			})
			check(label+" BatchMulTVec", fq, fq0, n, games, func(k int) []float64 {
				r := make(CPUVector, n)
				one.MulTVec(r, two.GameMatrix(a, k), p[k*m:(k+1)*m])
				return r
			})
		}
	}

	// The vector operations, on blocks long enough for the workers.
	const b, n = 3, 40000
	sel, _ := two.NewSelection(b)
	games := []int{2, 0}
	if err := two.Select(sel, games); err != nil {
		t.Fatal(err)
	}
	part := func(v CPUVector, k int) CPUVector { return v[k*n : (k+1)*n] }
	x, y := fill(b, n, -1, 1), fill(b, n, -1, 1)
	d0 := fill(b, n, -1, 1)
	d := slices.Clone(d0)
	alpha, beta := []float64{0.3, -1.7}, []float64{2.1, 0.6}
	two.BatchAxpby(d, alpha, x, beta, y, sel)
	check("BatchAxpby", d, d0, n, games, func(k int) []float64 {
		i := slices.Index(games, k)
		r := make(CPUVector, n)
		one.Axpby(r, alpha[i], part(x, k), beta[i], part(y, k))
		return r
	})
	eta := []float64{0.4, 2.5}
	for _, s := range []Setup{Entropic, Euclidean} {
		cl, cv := fill(b, n, -3, 0), fill(b, n, 0, 2.0/n)
		g := fill(b, n, -1, 1)
		dl0, dv0 := fill(b, n, -1, 1), fill(b, n, -1, 1)
		dl, dv := slices.Clone(dl0), slices.Clone(dv0)
		dst, center := Point{State: dl, Value: dv}, Point{State: cl, Value: cv}
		if s != Entropic {
			dst, center = Point{State: dv, Value: dv}, Point{State: cv, Value: cv}
		}
		two.BatchProx(dst, center, g, eta, s, sel)
		want := func(k int) (CPUVector, CPUVector) {
			rl, rv := make(CPUVector, n), make(CPUVector, n)
			rd, rc := Point{State: rl, Value: rv}, Point{State: part(cl, k), Value: part(cv, k)}
			if s != Entropic {
				rd, rc = Point{State: rv, Value: rv}, Point{State: part(cv, k), Value: part(cv, k)}
			}
			one.Prox(rd, rc, part(g, k), eta[slices.Index(games, k)], Set{Setup: s})
			return rl, rv
		}
		check(s.String()+" BatchProx value", dv, dv0, n, games, func(k int) []float64 { _, v := want(k); return v })
		if s == Entropic {
			check(s.String()+" BatchProx state", dl, dl0, n, games, func(k int) []float64 { l, _ := want(k); return l })
		}
	}
	r0, u := fill(b, n, 0, 1), fill(b, n, -1, 1)
	sign, tiny := []float64{-1, 0.5}, []float64{1e-300, 1e-12}
	for _, pred := range []bool{false, true} {
		xs0 := fill(b, n, 0, 1)
		xs, r := slices.Clone(xs0), slices.Clone(r0)
		two.BatchRegretMatch(xs, r, u, sign, tiny, pred, sel)
		want := func(k int) (CPUVector, CPUVector) {
			i := slices.Index(games, k)
			rx, rr := slices.Clone(part(xs0, k)), slices.Clone(part(r0, k))
			one.RegretMatch(rx, rr, part(u, k), sign[i], tiny[i], pred)
			return rx, rr
		}
		check("BatchRegretMatch x", xs, xs0, n, games, func(k int) []float64 { v, _ := want(k); return v })
		check("BatchRegretMatch r", r, r0, n, games, func(k int) []float64 { _, v := want(k); return v })
	}
	w := []float64{0.25, 0.75}
	ax0, ag0 := fill(b, n, 0, 2.0/n), fill(b, n, -1, 1)
	ax, ag := slices.Clone(ax0), slices.Clone(ag0)
	xv, gv := fill(b, n, 0, 2.0/n), fill(b, n, -1, 1)
	gs := make([]GapStats, len(games))
	if err := two.BatchAverage(gs, w, []AvgBlock{{Set: Set{Setup: Euclidean}, X: xv, G: gv, AvgX: ax, AvgG: ag}}, sel); err != nil {
		t.Fatal(err)
	}
	for i, k := range games {
		rx, rg := slices.Clone(part(ax0, k)), slices.Clone(part(ag0, k))
		want := make([]GapStats, 1)
		if err := one.Average(want, w[i], []AvgBlock{{Set: Set{Setup: Euclidean}, X: part(xv, k), G: part(gv, k), AvgX: rx, AvgG: rg}}); err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(gs[i].MinG) != math.Float64bits(want[0].MinG) || math.Float64bits(gs[i].MinAvgG) != math.Float64bits(want[0].MinAvgG) {
			t.Errorf("BatchAverage game %d: %+v, one thread %+v", k, gs[i], want[0])
		}
	}
}

// The CPU's Select refuses a repeated game, one out of range and more
// games than the batch holds, keeping the selection it had; an empty
// selection runs nothing.
func TestCPUSelect(t *testing.T) {
	c := NewCPU(2)
	defer c.Close()
	sel, err := c.NewSelection(3)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Select(sel, []int{2, 0}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int{{1, 1}, {3}, {-1}, {0, 1, 2, 0}} {
		if err := c.Select(sel, bad); err == nil {
			t.Errorf("Select(%v) accepted", bad)
		}
		if g := c.sel(sel).games; !slices.Equal(g, []int{2, 0}) {
			t.Fatalf("a refused Select(%v) left the selection %v", bad, g)
		}
	}
	if err := c.Select(sel, nil); err != nil || sel.Len() != 0 {
		t.Fatalf("empty selection: %v, %d games", err, sel.Len())
	}
	v := CPUVector{1, 2, 3}
	c.BatchAxpby(v, nil, v, nil, v, sel)
	if !slices.Equal(v, CPUVector{1, 2, 3}) {
		t.Fatalf("an empty selection changed %v", v)
	}
	if _, err := c.NewSelection(0); err == nil {
		t.Fatal("a selection over no games")
	}
}
