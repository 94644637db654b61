//go:build !cuda

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/gan"
)

// TestGan: a small gpump gan run writes the result, the samples, the trace
// and the plot, with one certified gap per round and the final game.
func TestGan(t *testing.T) {
	dir := t.TempDir()
	out, samples, trace, plot := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.npy"), filepath.Join(dir, "t.csv"), filepath.Join(dir, "p.png")
	code, _, stderr := gpump(t, "gan", "--data", "grid25", "-K", "3", "-J", "2", "--rounds", "4", "--batch", "32", "--hidden", "8",
		"--num-samples", "500", "--algo", "rm+", "-o", out, "--samples", samples, "--trace", trace, "--plot", plot, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r ganOutput
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "done" || r.Algorithm != "rm+" || len(r.P) != 3 || len(r.Q) != 2 || len(r.Gaps) != 5 || r.ModesTotal == nil || *r.ModesTotal != 25 ||
		r.HighQualityFraction == nil || r.EnergyDistance != nil || !(r.MMD2Bandwidth > 0) || r.Mixture == nil {
		t.Errorf("result: %s", b)
	}
	for i, g := range r.RelativeGaps {
		if !(g <= r.TargetRelativeGap) {
			t.Errorf("round %d: relative gap %g above the target %g", i+1, g, r.TargetRelativeGap)
		}
	}
	s, err := datasets.ReadNPY(samples, nil)
	if err != nil || s.Shape()[0] != 500 || s.Shape()[1] != 2 {
		t.Errorf("samples: %v, %v", err, s)
	}
	tb, err := os.ReadFile(trace)
	if lines := strings.Count(string(tb), "\n"); err != nil || lines != 6 || !strings.HasPrefix(string(tb), ganTraceHeader) {
		t.Errorf("trace: %v, %d lines", err, lines)
	}
	if pb, err := os.ReadFile(plot); err != nil || !strings.HasPrefix(string(pb), "\x89PNG") {
		t.Errorf("plot: %v", err)
	}
}

// TestGanFile: points from a file get MMD² and the energy distance, no mode
// counts.
func TestGanFile(t *testing.T) {
	pts := make([]float64, 200*2)
	for i := range 200 {
		pts[2*i], pts[2*i+1] = math.Cos(float64(i)), math.Sin(float64(i))
	}
	path := writeMatrix(t, "pts.npy", 200, 2, pts)
	code, stdout, stderr := gpump(t, "gan", "--data", path, "-K", "2", "-J", "2", "--rounds", "2", "--batch", "16", "--hidden", "4", "--num-samples", "100", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r ganOutput
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.EnergyDistance == nil || r.ModesCovered != nil || r.HighQualityFraction != nil {
		t.Errorf("result: %s", stdout)
	}
}

// TestGanBadInput: each bad input is one error line, exit status 1, and no
// output file.
func TestGanBadInput(t *testing.T) {
	dir := t.TempDir()
	oneD := rawNPY(t, dir, "<f8", "(10,)", 80)
	threeD := rawNPY(t, dir, "<f8", "(2, 5, 2)", 160)
	nan := make([]float64, 600)
	nan[5] = math.NaN()
	withNaN := writeMatrix(t, "nan.npy", 300, 2, nan)
	few := writeMatrix(t, "few.npy", 100, 2, make([]float64, 200))
	same := writeMatrix(t, "same.npy", 300, 2, make([]float64, 600))
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"1-D", []string{"--data", oneD}, "2-D"},
		{"3-D", []string{"--data", threeD}, "2-D"},
		{"NaN", []string{"--data", withNaN}, "NaN"},
		{"few points", []string{"--data", few, "--batch", "256"}, "has 100 points, fewer than the batch of 256"},
		{"identical points", []string{"--data", same}, "all 300 points are the same"},
		{"K", []string{"--data", "ring8", "-K", "0"}, "--generators must be at least 1"},
		{"J", []string{"--data", "ring8", "--discriminators", "0"}, "--discriminators must be at least 1"},
		{"loss", []string{"--data", "ring8", "--loss", "hinge"}, "unknown loss"},
		{"algo", []string{"--data", "ring8", "--algo", "sgd"}, "--algo"},
		{"data", []string{"--data", "ring9"}, "want ring8, grid25"},
		{"missing", []string{"--data", filepath.Join(dir, "none.npy")}, "none.npy"},
		{"samples", []string{"--data", "ring8", "--samples", filepath.Join(dir, "s.csv")}, ".npy"},
	} {
		out := filepath.Join(dir, "out.json")
		code, _, stderr := gpump(t, append([]string{"gan", "-o", out, "--quiet"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q (want one line with %q)", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", c.name, out)
		}
	}
}

// TestGanNonFinite: a training driven to overflow (a learning rate of
// 1e200 on points of a file) either ends with one line saying the networks
// diverged, or writes its result with its non-finite numbers as null (the
// result policy); it never loses a result to encoding. Which of the two
// depends on where the kernels' rounding first overflows.
func TestGanNonFinite(t *testing.T) {
	dir := t.TempDir()
	pts, out := filepath.Join(dir, "pts.npy"), filepath.Join(dir, "r.json")
	if code, _, stderr := gpump(t, "gen", "uniform", "--m", "300", "--n", "2", "-o", pts, "-q"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	code, _, stderr := gpump(t, "gan", "--data", pts, "-K", "3", "-J", "2", "--rounds", "2", "--batch", "32", "--hidden", "8",
		"--num-samples", "200", "--rate", "1e200", "-o", out, "--quiet")
	if code != 0 {
		if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "diverged") {
			t.Fatalf("exit %d: %q", code, stderr)
		}
		return
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
}

// TestGanUnequal: an unequal-weight set reports the data's mode weights,
// the high-quality samples' mode frequencies and their total-variation
// distance, as the gan package computes them; --graphs trains by the
// reference graphs to the same kind of result.
func TestGanUnequal(t *testing.T) {
	for _, extra := range [][]string{nil, {"--graphs"}} {
		args := append([]string{"gan", "--data", "ring8u", "-K", "4", "-J", "2", "--rounds", "3", "--batch", "32", "--hidden", "8", "--num-samples", "400", "--quiet"}, extra...)
		code, stdout, stderr := gpump(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var r ganOutput
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		want := gan.Ring8U().Weights
		if r.Data != "ring8u" || r.ModesHit == nil || len(r.ModeWeights) != 8 || len(r.ModeFrequencies) != 8 {
			t.Fatalf("%v: result %s", extra, stdout)
		}
		tv := 0.0
		for i, w := range want {
			if r.ModeWeights[i] != w {
				t.Errorf("%v: mode weights %v, want %v", extra, r.ModeWeights, want)
				break
			}
			tv += math.Abs(r.ModeFrequencies[i]-w) / 2
		}
		if r.ModeTV != nil && math.Abs(*r.ModeTV-tv) > 1e-12 || r.ModeTV == nil && *r.HighQualityFraction > 0 {
			t.Errorf("%v: TV %v, recomputed %v", extra, r.ModeTV, tv)
		}
	}
}
