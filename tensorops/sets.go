package tensorops

import (
	"fmt"
	"math"
)

// ClipBox sets dst to the Euclidean projection of v onto the box [lo, hi]:
// dst_i = min(max(v_i, lo_i), hi_i), NaN where v_i is NaN. dst may alias v.
// It panics on a length mismatch.
func ClipBox(dst, v, lo, hi []float64) {
	n := len(v)
	if len(dst) != n || len(lo) != n || len(hi) != n {
		panic("tensorops: ClipBox length mismatch")
	}
	for i, x := range v {
		dst[i] = min(max(x, lo[i]), hi[i])
	}
}

// ProjectBall sets dst to the Euclidean projection of v onto the ball of the
// given radius around center: center + f (v − center) with f = radius /
// ‖v − center‖₂ when that norm exceeds the radius, else 1. dst may alias v
// or center. It panics on a length mismatch.
func ProjectBall(dst, v, center []float64, radius float64) {
	n := len(v)
	if len(dst) != n || len(center) != n {
		panic("tensorops: ProjectBall length mismatch")
	}
	var r2 float64
	for i, x := range v {
		d := x - center[i]
		r2 += d * d
	}
	f := 1.0
	if r := math.Sqrt(r2); r > radius {
		f = radius / r
	}
	for i, x := range v {
		dst[i] = center[i] + f*(x-center[i])
	}
}

// checkSet panics unless s is a set of dimension n: a known setup, a box's
// bounds or a ball's centre of length n, a ball's radius finite and ≥ 0 (the
// O(1) checks; Lo ≤ Hi is the caller's promise).
func checkSet(s *Set, n int, op string) {
	switch s.Setup {
	case Entropic, Euclidean:
	case Box:
		if s.Lo == nil || s.Hi == nil || s.Lo.Len() != n || s.Hi.Len() != n {
			panic(fmt.Sprintf("tensorops: %s: box bounds missing or not of length %d", op, n))
		}
	case Ball:
		if s.Center == nil || s.Center.Len() != n {
			panic(fmt.Sprintf("tensorops: %s: ball centre missing or not of length %d", op, n))
		}
		if !(s.Radius >= 0) || math.IsInf(s.Radius, 1) {
			panic(fmt.Sprintf("tensorops: %s: ball radius %g", op, s.Radius))
		}
	default:
		panic(fmt.Sprintf("tensorops: %s: unknown setup %d", op, s.Setup))
	}
}

// checkLin panics unless lin is nil or of length n.
func checkLin(lin Vector, n int, op string) {
	if lin != nil && lin.Len() != n {
		panic("tensorops: " + op + " length mismatch")
	}
}

// minInner returns min over the set of ⟨g, z⟩ (GapStats.MinG) on CPU
// vectors.
func minInner(s *Set, g []float64) float64 {
	switch s.Setup {
	case Box:
		lo, hi := vec(s.Lo), vec(s.Hi)
		var t float64
		for i, v := range g {
			t += min(v*lo[i], v*hi[i])
		}
		return t
	case Ball:
		o := vec(s.Center)
		var t, t2 float64
		for i, v := range g {
			t += v * o[i]
			t2 += v * v
		}
		return t - s.Radius*math.Sqrt(t2)
	}
	m := math.Inf(1)
	for _, v := range g {
		m = min(m, v)
	}
	return m
}
