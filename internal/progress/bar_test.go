package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/solver"
)

// TestProgressFits: the progress line fits every width, keeps a whole bar
// or none, and drops the least useful parts first.
func TestProgressFits(t *testing.T) {
	p := &Bar{s: &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}}
	r := &solver.Record{Iteration: 12345, Evaluations: 24690, RelGap: 3.21e-3, Elapsed: 7 * time.Second}
	p.est.observe(&solver.Record{Iteration: 6000, RelGap: 6.5e-3})
	for width := 10; width <= 200; width++ {
		line := fitLine(p.parts(r, width < 60), width)
		open, closed := strings.Count(line, "["), strings.Count(line, "]")
		if len(line) > width || open != closed || !strings.HasPrefix(line, "iter 12345"[:min(10, width)]) ||
			width >= 40 && !strings.Contains(line, "rel gap 0.00321/0.0001") && !strings.Contains(line, "rel gap 0.00321 (target 0.0001)") {
			t.Errorf("width %d: %q", width, line)
		}
		if width >= 80 && (open != 1 || !strings.Contains(line, "rel gap 0.00321 (target 0.0001)") || !strings.Contains(line, "left")) {
			t.Errorf("width %d: %q lacks the bar, the gap or the time left", width, line)
		}
	}
}

// TestProgressLog: without a terminal, a progress line every LogEvery.
func TestProgressLog(t *testing.T) {
	var buf bytes.Buffer
	p := NewLog(slog.New(slog.NewTextHandler(&buf, nil)), "instance", "a.npy")
	p.Init(&solver.Info{Settings: &solver.Settings{RelGap: 1e-4}})
	for s := range 23 {
		p.Record(&solver.Record{Iteration: s * 100, RelGap: 1 / float64(s+1), Elapsed: time.Duration(s) * time.Second})
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "msg=progress instance=a.npy iteration=500") || !strings.Contains(lines[3], "iteration=2000") {
		t.Errorf("%d lines:\n%s", len(lines), buf.String())
	}
}

// TestProgressSteady: from one redraw to the next the progress line keeps
// its length and the bar its width and place, whatever the numbers; it
// is laid out again when the terminal's width changes.
func TestProgressSteady(t *testing.T) {
	var buf bytes.Buffer
	cols := 100
	p := New(&buf)
	p.Width = func() int { return cols }
	p.Every = 0 // redraw every record
	p.Init(&solver.Info{Settings: &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}})
	recs := []solver.Record{
		{Iteration: 1, Evaluations: 2, RelGap: 0.5, Elapsed: time.Millisecond},
		{Iteration: 40, Evaluations: 80, RelGap: 0.0123, Elapsed: 100 * time.Millisecond},
		{Iteration: 900, Evaluations: 1800, RelGap: 3.21e-3, Elapsed: 2 * time.Second},
		{Iteration: 15000, Evaluations: 30000, RelGap: 1.5e-4, Elapsed: 65 * time.Second},
		{Iteration: 99999, Evaluations: 199998, RelGap: 1.01e-4, Elapsed: 3 * time.Hour},
	}
	draw := func() []string {
		buf.Reset()
		for i := range recs {
			p.Record(&recs[i])
		}
		var lines []string
		for _, l := range strings.Split(buf.String(), "\r") {
			if l = strings.TrimSuffix(l, "\x1b[K"); l != "" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	for _, c := range []int{100, 70, 50} {
		cols = c
		lines := draw()
		if len(lines) != len(recs) {
			t.Fatalf("%d columns: %d lines drawn, want %d", c, len(lines), len(recs))
		}
		for _, l := range lines {
			if len(l) != len(lines[0]) || len(l) > c-1 || strings.Index(l, "[") != strings.Index(lines[0], "[") ||
				strings.Index(l, "]") != strings.Index(lines[0], "]") || c >= 70 && strings.Count(l, "[") != 1 {
				t.Errorf("%d columns: the line changed its layout:\n%q\n%q", c, lines[0], l)
			}
		}
	}
}
