package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
