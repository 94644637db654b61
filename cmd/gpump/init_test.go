package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInit: --init warm-starts a solve from a result with the strategies
// inline, from one whose strategies went to an archive (named relative to
// the result), and from the archive itself: each reaches a target the cold
// start needed more iterations for. A --problem run starts from its
// solution. Files that are not results, or of another shape, are one error
// line each.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	game := []string{"--gen", "uniform:m=60,n=40", "--seed", "5", "-q"}
	inline, archived, strat := filepath.Join(dir, "inline.json"), filepath.Join(dir, "archived.json"), filepath.Join(dir, "s.npz")
	if code, _, stderr := gpump(t, append([]string{"solve", "--algo", "rm+", "--eps", "1e-3", "-o", inline}, game...)...); code != exitOK {
		t.Fatalf("first solve: exit %d: %s", code, stderr)
	}
	// The strategies archive is named by a relative path: from the
	// result's directory, not the command's.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := gpump(t, append([]string{"solve", "--algo", "rm+", "--eps", "1e-3", "-o", "archived.json", "--strategies", "s.npz"}, game...)...)
	if err := os.Chdir(wd); err != nil {
		t.Fatal(err)
	}
	if code != exitOK {
		t.Fatalf("solve with --strategies: exit %d: %s", code, stderr)
	}
	_, stdout, _ := gpump(t, append([]string{"solve", "--algo", "rm+", "--eps", "1e-5"}, game...)...)
	cold := decode(t, stdout)
	for _, init := range []string{inline, archived, strat} {
		code, stdout, stderr := gpump(t, append([]string{"solve", "--algo", "rm+", "--eps", "1e-5", "--init", init}, game...)...)
		warm := decode(t, stdout)
		if code != exitOK || warm.Iterations >= cold.Iterations {
			t.Errorf("--init %s: exit %d, %d iterations (cold %d): %s", filepath.Base(init), code, warm.Iterations, cold.Iterations, stderr)
		}
	}

	sol := filepath.Join(dir, "problem.json")
	if code, _, stderr := gpump(t, "solve", "--problem", "capacity", "--eps", "1e-4", "-q", "-o", sol); code != exitOK {
		t.Fatalf("problem: exit %d: %s", code, stderr)
	}
	if code, _, stderr := gpump(t, "solve", "--problem", "capacity", "--eps", "1e-4", "-q", "--init", sol); code != exitOK {
		t.Errorf("--problem --init: exit %d: %s", code, stderr)
	}

	notResult := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(notResult, []byte(`{"status": "converged"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"solve", "--init", inline, "--gen", "uniform:m=61,n=40"}, "-q"), "60×40 game, not 61×40"},
		{append([]string{"solve", "--init", notResult}, game...), "not a gpump result"},
		{append([]string{"solve", "--init", filepath.Join(dir, "missing.json")}, game...), "no such file"},
		{append([]string{"solve", "--init", sol}, game...), "not a game's strategies"},
		{[]string{"solve", "--problem", "capacity", "-q", "--init", inline}, "not a problem's solution"},
	} {
		code, _, stderr := gpump(t, c.args...)
		if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want one line with %q", c.args, code, stderr, c.want)
		}
	}
}
