package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
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
