package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// TestGapPlotTicks: the gap plot's tick labels read 1e-4, not
// 9.999999999999999e-05.
func TestGapPlotTicks(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "gap.svg")
	code, _, stderr := gpump(t, "solve", "--gen", "uniform:m=60,n=40,seed=2", "--algo", "rm+", "--eps", "1e-5", "--plot", plot, "-q")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	// gonum/plot writes each label as the text of an SVG element.
	var labels []string
	for _, m := range regexp.MustCompile(`>([^<>]+)</text>`).FindAllStringSubmatch(string(b), -1) {
		labels = append(labels, m[1])
	}
	tick := regexp.MustCompile(`^(1e-?\d+|[1-9]0*)$`)
	n := 0
	for _, l := range labels {
		if tick.MatchString(l) {
			n++
		} else if regexp.MustCompile(`^[0-9.e+-]+$`).MatchString(l) {
			t.Errorf("tick label %q", l)
		}
	}
	if n < 4 || !strings.Contains(strings.Join(labels, " "), "1e-4") {
		t.Errorf("%d tick labels: %q", n, labels)
	}
}
