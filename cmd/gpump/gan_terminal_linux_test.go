//go:build linux && !cuda

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/internal/progress"
)

// ganSmall is a gan run of a second.
var ganSmall = []string{"gan", "--data", "grid25", "-K", "3", "-J", "2", "--rounds", "4", "--batch", "32", "--hidden", "8", "--num-samples", "500", "--algo", "rm+"}

// TestGanOnTerminal: on a terminal gpump gan prints a summary (modes,
// high-quality share, MMD², the last round's gap, the time), never the
// networks' parameters; with -o FILE the summary too, the JSON in the
// file; --json and -o - print the JSON; a pipe gets the JSON as before.
func TestGanOnTerminal(t *testing.T) {
	summaryOK := func(name, shown string) {
		t.Helper()
		for _, want := range []string{"4 rounds on grid25", "modes", "of 25 covered", "high quality", "MMD²", "last game", "certified gap", "generators"} {
			if !strings.Contains(shown, want) {
				t.Errorf("%s: the summary lacks %q:\n%s", name, want, shown)
			}
		}
		if len(shown) > 2000 || strings.Contains(shown, "mixture") || strings.Contains(shown, "{") {
			t.Errorf("%s: %d bytes, more than a summary:\n%s", name, len(shown), shown)
		}
	}
	code, shown, stderr := onTerminals(t, true, false, append(ganSmall, "-q")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summaryOK("terminal", shown)

	out := filepath.Join(t.TempDir(), "r.json")
	code, shown, stderr = onTerminals(t, true, false, append(ganSmall, "-q", "-o", out)...)
	if code != exitOK {
		t.Fatalf("-o: exit %d: %s", code, stderr)
	}
	summaryOK("-o", shown)
	var r ganOutput
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &r) != nil || r.Mixture == nil || !strings.Contains(shown, "in "+out) {
		t.Errorf("-o: the file lacks the result, or the summary its name: %v\n%s", err, shown)
	}

	for _, flags := range [][]string{{"--json"}, {"-o", "-"}} {
		code, shown, _ := onTerminals(t, true, false, append(append(ganSmall, "-q"), flags...)...)
		var r ganOutput
		if code != exitOK || json.Unmarshal([]byte(shown), &r) != nil || r.Mixture == nil {
			t.Errorf("%v: exit %d, not the JSON:\n%.300s", flags, code, shown)
		}
	}
	// A pipe: the JSON, parameters and all, for programs.
	code, stdout, _ := gpump(t, append(ganSmall, "-q")...)
	if code != exitOK || json.Unmarshal([]byte(stdout), &r) != nil || r.Mixture == nil {
		t.Errorf("pipe: exit %d, not the JSON:\n%.300s", code, stdout)
	}
}

// TestGanProgress: gpump gan's progress bar counts rounds, out of
// --rounds, at rounds per second.
func TestGanProgress(t *testing.T) {
	var buf bytes.Buffer
	p := progress.New(&buf)
	p.Every = 0 // redraw every round
	g := &ganRecorder{prog: p}
	g.Init(&gan.Info{Config: &gan.Config{Rounds: 20}, Method: "rm+"})
	for k := 1; k <= 3; k++ {
		g.Record(&gan.Round{Round: k, RelGap: 1e-3, MatrixPasses: 10 * k, Elapsed: time.Duration(k) * time.Second})
	}
	shown := buf.String()
	if !strings.Contains(shown, "round  3/20") || !strings.Contains(shown, "1 rounds/s") || strings.Contains(shown, "it/s") || strings.Contains(shown, "iter") {
		t.Errorf("progress:\n%q", shown)
	}
}
