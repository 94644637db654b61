package gapplot

import (
	"strings"
	"testing"
)

// TestDecadeTicks: a logarithmic axis is labelled at its powers of ten as
// people write them, and between them only when it holds fewer than two.
func TestDecadeTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var l []string
		for _, tk := range (decadeTicks{}).Ticks(lo, hi) {
			if tk.Value < lo*(1-1e-12) || tk.Value > hi*(1+1e-12) {
				t.Errorf("[%g, %g]: tick %g outside", lo, hi, tk.Value)
			}
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return strings.Join(l, " ")
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{1e-6, 1, "1e-6 1e-5 1e-4 1e-3 1e-2 1e-1 1"},
		{3e-5, 0.5, "1e-4 1e-3 1e-2 1e-1"},
		{1, 2e6, "1 10 100 1000 1e4 1e5 1e6"},
		{2e-5, 8e-5, "2e-5 3e-5 4e-5 5e-5 6e-5 7e-5 8e-5"},
		{5e-5, 3e-4, "5e-5 6e-5 7e-5 8e-5 9e-5 1e-4 2e-4 3e-4"},
		{1e-16, 1, "1e-16 1e-14 1e-12 1e-10 1e-8 1e-6 1e-4 1e-2 1"},
		{0, 1, ""},
	} {
		if got := labels(c.lo, c.hi); got != c.want {
			t.Errorf("[%g, %g]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
