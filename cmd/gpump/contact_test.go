package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
)

// TestFlagsAsTyped: an unknown or bad flag is named as it was typed, and a
// file name that starts with a dash is told to go after "--".
func TestFlagsAsTyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "-x.npy"}, "unknown flag -x.npy: a file whose name starts with a dash goes after --: gpump solve -- -x.npy"},
		{[]string{"solve", "--epss", "1"}, "unknown flag --epss (see gpump solve --help)"},
		{[]string{"batch", "-zz", "x.npy"}, "unknown flag -zz (see gpump batch --help)"},
		{[]string{"solve", "-time-limit=5", "--gen", "cyclic:n=3"}, `invalid value "5" for -time-limit: parse error (a duration has a unit`},
		{[]string{"solve", "--m", "x", "--gen", "uniform"}, `invalid value "x" for --m: parse error`},
	} {
		code, _, stderr := gpump(t, c.args...)
		if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q, want %q", c.args, code, stderr, c.want)
		}
	}
	// After "--" the dash-named file is a file.
	dir := t.TempDir()
	game := writeMatrix(t, "g.npy", 2, 2, []float64{1, -1, -1, 1})
	dashed := filepath.Join(dir, "-g.npy")
	b, _ := os.ReadFile(game)
	os.WriteFile(dashed, b, 0o644)
	t.Chdir(dir)
	if code, stdout, stderr := gpump(t, "solve", "-q", "--", "-g.npy"); code != exitOK || decode(t, stdout).M != 2 {
		t.Errorf("-- -g.npy: exit %d: %s", code, stderr)
	}
}

// TestAssumptions: what cannot be meant is refused; what was assumed is
// said in one log line.
func TestAssumptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	typo := write("typo.csv", "1,2,x\n3,4,5\n")
	if code, _, stderr := gpump(t, "solve", typo); code != exitError || !strings.Contains(stderr, "mixes numbers and text") {
		t.Errorf("1,2,x: exit %d, %q", code, stderr)
	}
	for file, note := range map[string]string{
		write("h.csv", "a,b\n1,-1\n-1,1\n"): "line 1 is a header row, skipped: a,b",
		rawNPY(t, dir, "|b1", "(2, 2)", 4):  "bool entries read as 0 (false) and 1 (true)",
	} {
		code, _, stderr := gpump(t, "solve", file)
		if code != exitOK || strings.Count(stderr, note) != 1 {
			t.Errorf("%s: exit %d, log %q lacks %q", file, code, stderr, note)
		}
	}
}

// TestProgressFits: the progress line fits every width, keeps a whole bar
// or none, and drops the least useful parts first.
func TestProgressFits(t *testing.T) {
	p := &progress{s: &solver.Settings{RelGap: 1e-4, MaxIterations: 100000}}
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

// TestProgressLog: without a terminal, a progress line every logEvery.
func TestProgressLog(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressLog(slog.New(slog.NewTextHandler(&buf, nil)), "instance", "a.npy")
	p.Init(&solver.Info{Settings: &solver.Settings{RelGap: 1e-4}})
	for s := range 23 {
		p.Record(&solver.Record{Iteration: s * 100, RelGap: 1 / float64(s+1), Elapsed: time.Duration(s) * time.Second})
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "msg=progress instance=a.npy iteration=500") || !strings.Contains(lines[3], "iteration=2000") {
		t.Errorf("%d lines:\n%s", len(lines), buf.String())
	}
}

// TestGenStdout: gen -o - writes the matrix to standard output in the
// format --format names.
func TestGenStdout(t *testing.T) {
	code, stdout, stderr := gpump(t, "gen", "cyclic", "--n", "3", "-o", "-", "--format", "csv", "-q")
	if code != exitOK || stdout != "0,-1,1\n1,0,-1\n-1,1,0\n" {
		t.Errorf("csv: exit %d, %q, %s", code, stdout, stderr)
	}
	code, stdout, _ = gpump(t, "gen", "cyclic", "--n", "3", "-o", "-", "--format", "npy", "-q")
	if a, err := datasets.DecodeNPY(strings.NewReader(stdout), -1, nil); code != exitOK || err != nil || a.Shape()[0] != 3 {
		t.Errorf("npy: exit %d, %v", code, err)
	}
	if code, _, stderr := gpump(t, "gen", "cyclic", "-o", "-"); code != exitError || !strings.Contains(stderr, "--format") {
		t.Errorf("no format: exit %d, %q", code, stderr)
	}
}

// TestHelpVersionTypos: help, version and a mistyped command as git and gh
// users expect them.
func TestHelpVersionTypos(t *testing.T) {
	code, list, stderr := gpump(t, "help")
	if code != exitOK || stderr != "" || !strings.Contains(list, "COMMANDS:") || !strings.Contains(list, "solve") || !strings.Contains(list, "batch") {
		t.Errorf("help: exit %d, %q:\n%s", code, stderr, list)
	}
	// gpump --help and -h print what gpump help prints.
	for _, flag := range []string{"--help", "-h"} {
		if code, out, stderr := gpump(t, flag); code != exitOK || stderr != "" || out != list {
			t.Errorf("%s: exit %d, %q, and not what gpump help prints:\n%s", flag, code, stderr, out)
		}
	}
	_, want, _ := gpump(t, "solve", "--help")
	for _, args := range [][]string{{"help", "solve"}, {"h", "solve"}} {
		if code, out, stderr := gpump(t, args...); code != exitOK || stderr != "" || out != want {
			t.Errorf("%q: exit %d, %q, and not what solve --help prints:\n%s", args, code, stderr, out)
		}
	}
	for _, flag := range []string{"--version", "-v"} {
		code, out, stderr := gpump(t, flag)
		if code != exitOK || stderr != "" || out != versionText() {
			t.Errorf("%s: exit %d, %q:\n%s", flag, code, stderr, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slove"}, `gpump: unknown command "slove"; did you mean "solve"?`},
		{[]string{"slove", "--gen", "cyclic"}, `gpump: unknown command "slove"; did you mean "solve"?`},
		{[]string{"help", "slove"}, `gpump: unknown command "slove"; did you mean "solve"?`},
		{[]string{"bacth"}, `gpump: unknown command "bacth"; did you mean "batch"?`},
		{[]string{"gun"}, `gpump: unknown command "gun"; did you mean "gan" or "gen"?`},
		{[]string{"frobnicate"}, `gpump: unknown command "frobnicate" (see gpump help)`},
		{[]string{"g.npy"}, `gpump: unknown command "g.npy"; to solve the game in a file: gpump solve g.npy`},
		{[]string{"--verison"}, `gpump: unknown flag --verison (see gpump help)`},
	} {
		code, out, stderr := gpump(t, c.args...)
		if code != exitError || out != "" || stderr != c.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", c.args, code, out, stderr, c.want)
		}
	}
}

// TestEditDistance: the distance that picks the suggested command.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"solve", "solve", 0}, {"slove", "solve", 1}, {"solv", "solve", 1}, {"sollve", "solve", 1},
		{"salve", "solve", 1}, {"", "gen", 3}, {"gan", "gen", 1}, {"ca", "abc", 3}, {"bench", "batch", 2},
	} {
		if d := editDistance(c.a, c.b); d != c.d || editDistance(c.b, c.a) != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}

// TestProgressSteady: from one redraw to the next the progress line keeps
// its length and the bar its width and place, whatever the numbers; it
// is laid out again when the terminal's width changes.
func TestProgressSteady(t *testing.T) {
	var buf bytes.Buffer
	cols := 100
	p := newProgress(&buf)
	p.width = func() int { return cols }
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
			p.last = time.Time{} // redraw every record
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

// TestValueText: the value is the middle of the bracket, with the digits
// that tell the bracket's ends apart, and the bracket shown holds the
// certified one.
func TestValueText(t *testing.T) {
	for _, c := range []struct {
		lo, hi       float64
		mid, bracket string
	}{
		{0.33328, 0.33338, "0.33333", "[0.33328, 0.33338]"},
		{0.333283, 0.333383, "0.333333", "[0.333283, 0.333383]"},
		{-1e-5, 1e-5, "0", "[-1e-05, 1e-05]"},
		{0.5, 0.5, "0.5", "[0.5, 0.5]"},
		{1234.56781, 1234.56989, "1234.5689", "[1234.5678, 1234.5699]"},
		{-2.0000014, -1.9999986, "-2", "[-2.0000014, -1.9999986]"},
		{0.1, 0.9, "0.5", "[0.1, 0.9]"},
		{0, 0, "0", "[0, 0]"},
		{0.238644209237082, 0.238644209237083, "0.2386442092", "[0.2386442092, 0.2386442093]"},
	} {
		mid, bracket := valueText(c.lo, c.hi)
		if mid != c.mid || bracket != c.bracket {
			t.Errorf("valueText(%v, %v) = %s %s, want %s %s", c.lo, c.hi, mid, bracket, c.mid, c.bracket)
		}
		var lo, hi float64
		if _, err := fmt.Sscanf(bracket, "[%g, %g]", &lo, &hi); err != nil || lo > c.lo || hi < c.hi {
			t.Errorf("valueText(%v, %v): the bracket %s does not hold it (%v)", c.lo, c.hi, bracket, err)
		}
	}
}

// writeIn writes text to the file name in dir and returns its path.
func writeIn(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
