package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpump/gpump/datasets"
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
