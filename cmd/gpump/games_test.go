package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// A 3-D array is solved as a batch: a line per game with its index, a game
// with a NaN failing alone, the strategies in members row and column that
// certify each line's gap, and --resume solving only what is missing.
func TestBatchStack(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "games.npy")
	code, _, stderr := gpump(t, "gen", "uniform", "--m", "7", "--n", "5", "--count", "6", "-o", games, "--quiet")
	if code != exitOK {
		t.Fatalf("gen --count: exit %d: %s", code, stderr)
	}
	a, err := datasets.ReadStack(games)
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Shape(); s[0] != 6 || s[1] != 7 || s[2] != 5 {
		t.Fatalf("gen --count wrote shape %v", s)
	}
	// Game k of the array is the generator's game of seed 1+k.
	g3, err := datasets.Generate(tensor.Float64, mustSpec(t, "uniform:m=7,n=5,seed=4"))
	if err != nil {
		t.Fatal(err)
	}
	if !equalSlices(a.Float64s()[3*35:4*35], g3.Float64s()) {
		t.Fatal("game 3 is not the generator's game of seed 4")
	}
	if code, _, stderr := gpump(t, "solve", games); code != exitError || !strings.Contains(stderr, "gpump batch") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("solve of a 3-D array: exit %d: %s", code, stderr)
	}
	a.Float64s()[4*35+9] = math.NaN()
	bad := filepath.Join(dir, "bad.npy")
	if err := datasets.WriteStack(bad, a); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	strat := filepath.Join(dir, "s.npz")
	code, _, stderr = gpump(t, "batch", bad, "--eps", "1e-8", "-o", out, "--strategies", strat, "--threads", "2")
	if code != exitError {
		t.Fatalf("exit %d, want %d (one game failed): %s", code, exitError, stderr)
	}
	lines := readLines(t, out)
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	row, err := readVector(strat, "row") // the datasets readers refuse NaN rows
	if err != nil {
		t.Fatal(err)
	}
	col, err := readVector(strat, "column")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, l := range lines {
		k := int(l["index"].(float64))
		seen[k] = true
		if l["games"] != 6.0 || l["instance"] != bad {
			t.Errorf("line %v", l)
		}
		if k == 4 {
			if l["status"] != "error" || !strings.Contains(l["error"].(string), "NaN") {
				t.Errorf("game 4 (NaN): %v", l)
			}
			if !math.IsNaN(row[4*7]) {
				t.Error("game 4's strategies are not NaN")
			}
			continue
		}
		if l["status"] != "converged" || l["member_row"] != float64(k) || l["row_member"] != "row" {
			t.Fatalf("game %d: %v", k, l)
		}
		// The archive's strategies certify the line's gap on the game.
		p, q := row[k*7:(k+1)*7], col[k*5:(k+1)*5]
		g := a.Float64s()[k*35 : (k+1)*35]
		lo, hi := math.Inf(1), math.Inf(-1)
		for j := range 5 {
			v := 0.0
			for i := range 7 {
				v += p[i] * g[i*5+j]
			}
			lo = min(lo, v)
		}
		for i := range 7 {
			u := 0.0
			for j := range 5 {
				u += g[i*5+j] * q[j]
			}
			hi = max(hi, u)
		}
		if gap := hi - lo; math.Abs(gap-l["gap"].(float64)) > 1e-12 || gap > 1e-8 {
			t.Errorf("game %d: strategies' gap %g, line's %v", k, gap, l["gap"])
		}
	}
	if len(seen) != 6 {
		t.Fatalf("indices %v", seen)
	}
	// Resuming solves only game 4, which fails again.
	code, _, stderr = gpump(t, "batch", bad, "--eps", "1e-8", "-o", out, "--resume")
	if code != exitError || !strings.Contains(stderr, "      5 ") {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if lines := readLines(t, out); len(lines) != 7 || lines[6]["index"] != 4.0 {
		t.Fatalf("resume appended %d lines: %v", len(lines)-6, lines[6:])
	}
}

// An archive of several arrays: grouped by shape, a line per member with
// its key.
func TestBatchArchive(t *testing.T) {
	dir := t.TempDir()
	var arrays []datasets.Array
	for k, shape := range [][2]int{{3, 4}, {2, 2}, {3, 4}, {3, 4}} {
		g, err := datasets.Generate(tensor.Float64, mustSpec(t, "gaussian:m="+strconv.Itoa(shape[0])+",n="+strconv.Itoa(shape[1])+",seed="+strconv.Itoa(k+1)))
		if err != nil {
			t.Fatal(err)
		}
		arrays = append(arrays, datasets.Array{Name: "g" + strconv.Itoa(k), T: g})
	}
	path := filepath.Join(dir, "games.npz")
	if err := datasets.WriteNPZ(path, arrays, nil); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gpump(t, "batch", path, "--quiet", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	keys := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		v := decodeLine(t, l)
		keys[v["key"].(string)] = true
		if v["status"] != "converged" || v["games"] != 4.0 || "g"+strconv.Itoa(int(v["index"].(float64))) != v["key"] {
			t.Errorf("line %v", v)
		}
		if v["key"] == "g1" && v["m"] != 2.0 || v["key"] != "g1" && v["m"] != 3.0 {
			t.Errorf("shape of %v: %v×%v", v["key"], v["m"], v["n"])
		}
	}
	if len(keys) != 4 {
		t.Fatalf("keys %v", keys)
	}
	if code, _, stderr := gpump(t, "batch", path, "--device", "nope"); code == exitOK {
		t.Fatalf("a bad device: exit %d: %s", code, stderr)
	}
	if code, _, stderr := gpump(t, "batch", path, "-o", filepath.Join(dir, "o"), "--resume", "--strategies", filepath.Join(dir, "s.npz")); code == exitOK || !strings.Contains(stderr, "--resume") {
		t.Fatalf("--strategies with --resume: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.npz")); err == nil {
		t.Fatal("--strategies written by a refused batch")
	}
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func decodeLine(t *testing.T, l string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(l), &v); err != nil {
		t.Fatalf("%v: %q", err, l)
	}
	return v
}

// Small same-shape files are solved together, each line as the file's own
// solve gives it; a file with a NaN fails alone; --resume skips the done.
func TestBatchGroupsFiles(t *testing.T) {
	dir := t.TempDir()
	for k := range 5 {
		g, err := datasets.Generate(tensor.Float64, mustSpec(t, "gaussian:m=4,n=3,seed="+strconv.Itoa(k+1)))
		if err != nil {
			t.Fatal(err)
		}
		writeAt(t, filepath.Join(dir, "g"+strconv.Itoa(k)+".npy"), 4, 3, g.Float64s())
	}
	writeAt(t, filepath.Join(dir, "h.npy"), 2, 2, []float64{1, 0, 0, 1})
	writeAt(t, filepath.Join(dir, "nan.npy"), 4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	// A NaN written after the fact: WriteNPY keeps it, the reader refuses it.
	b, err := os.ReadFile(filepath.Join(dir, "nan.npy"))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[len(b)-8:], math.Float64bits(math.NaN()))
	if err := os.WriteFile(filepath.Join(dir, "nan.npy"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	byName := func(args ...string) map[string]map[string]any {
		code, stdout, stderr := gpump(t, append([]string{"batch", dir, "--json", "--quiet", "--eps", "1e-9"}, args...)...)
		if code != exitError {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, exitError, stderr)
		}
		out := map[string]map[string]any{}
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			v := decodeLine(t, l)
			out[filepath.Base(v["instance"].(string))] = v
		}
		return out
	}
	alone := byName("--batch-size", "1")
	for _, size := range []string{"2", "1000"} {
		together := byName("--batch-size", size)
		if len(together) != 7 || len(alone) != 7 {
			t.Fatalf("%d and %d lines, want 7", len(together), len(alone))
		}
		for name, a := range alone {
			g := together[name]
			if name == "nan.npy" {
				if g["status"] != "error" || a["status"] != "error" {
					t.Errorf("nan.npy: %v", g)
				}
				continue
			}
			for _, f := range []string{"status", "gap", "iterations", "matrix_passes", "value_lower", "value_upper", "index", "route"} {
				if g[f] != a[f] {
					t.Errorf("--batch-size %s: %s: %s %v, alone %v", size, name, f, g[f], a[f])
				}
			}
			if g["games"] != nil {
				t.Errorf("%s: a file's line has games: %v", name, g["games"])
			}
		}
	}
	out := filepath.Join(dir, "out.jsonl")
	gpump(t, "batch", filepath.Join(dir, "g*.npy"), "--batch-size", "3", "-o", out, "--quiet")
	if lines := readLines(t, out); len(lines) != 5 {
		t.Fatalf("%d lines", len(lines))
	}
	os.WriteFile(out, []byte(strings.Join(strings.SplitAfter(string(mustRead(t, out)), "\n")[:3], "")), 0o644)
	code, _, stderr := gpump(t, "batch", filepath.Join(dir, "g*.npy"), "--batch-size", "3", "-o", out, "--resume")
	if code != exitOK || len(readLines(t, out)) != 5 || !strings.Contains(stderr, "      3 ") {
		t.Fatalf("resume: exit %d, %d lines: %s", code, len(readLines(t, out)), stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBenchGames(t *testing.T) {
	code, stdout, stderr := gpump(t, "bench", "--games", "20", "--m", "9", "--n", "7", "--eps", "1e-8", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	v := decodeLine(t, stdout)
	if v["games"] != 20.0 || v["converged"] != 20.0 || v["worst_relative_gap"].(float64) > 1e-8 || v["games_per_second"].(float64) <= 0 {
		t.Fatalf("bench --games: %s", stdout)
	}
	for _, args := range [][]string{{"--games", "0"}, {"--games", "3", "--eps", "2"}, {"--games", "3", "--device", "cuda"}} {
		if code, _, _ := gpump(t, append([]string{"bench", "--m", "3", "--n", "3"}, args...)...); code == exitOK {
			t.Errorf("%v: exit 0", args)
		}
	}
}

// Regressions of a review: --resume counts each skipped game once with
// jobs running at once; an archive with two groups of one shape (float64
// and float32) writes one pair of members for them; --precision applies to
// a 3-D file.
func TestBatchReviewed(t *testing.T) {
	dir := t.TempDir()
	stackPath := filepath.Join(dir, "S.npy")
	if code, _, stderr := gpump(t, "gen", "gaussian", "--m", "4", "--n", "3", "--count", "3", "-o", stackPath, "-q"); code != exitOK {
		t.Fatal(stderr)
	}
	var singles []string
	for k, name := range []string{"a", "b", "x1", "x2"} {
		p := filepath.Join(dir, name+".npy")
		writeAt(t, p, 2, 2, []float64{1, float64(k), 0, 1})
		singles = append(singles, p)
	}
	out := filepath.Join(dir, "out.jsonl")
	args := append([]string{"batch", stackPath}, singles...)
	args = append(args, "-o", out, "--jobs", "2", "--batch-size", "1")
	if code, _, stderr := gpump(t, append(args, "-q")...); code != exitOK {
		t.Fatal(stderr)
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(mustRead(t, out)), "\n") {
		if strings.Contains(l, `"index":0,"games"`) || strings.Contains(l, "a.npy") || strings.Contains(l, "b.npy") {
			keep = append(keep, l)
		}
	}
	if len(keep) != 3 {
		t.Fatalf("kept %d lines", len(keep))
	}
	os.WriteFile(out, []byte(strings.Join(keep, "")), 0o644)
	code, _, stderr := gpump(t, append(args, "--resume")...)
	summary := strings.Split(strings.TrimSpace(stderr), "\n")
	fields := strings.Fields(summary[len(summary)-1])
	if code != exitOK || len(fields) < 7 || fields[6] != "3" {
		t.Fatalf("resume: exit %d, want 3 skipped: %s", code, stderr)
	}
	if n := len(readLines(t, out)); n != 7 {
		t.Fatalf("%d lines after resume, want 7", n)
	}

	var arrays []datasets.Array
	for k, spec := range []string{"gaussian:m=3,n=4,seed=1", "gaussian:m=5,n=6,seed=2"} {
		g, err := datasets.Generate(tensor.Float64, mustSpec(t, spec))
		if err != nil {
			t.Fatal(err)
		}
		arrays = append(arrays, datasets.Array{Name: "g" + strconv.Itoa(k), T: g})
	}
	g32, err := datasets.Generate(tensor.Float32, mustSpec(t, "gaussian:m=5,n=6,seed=3"))
	if err != nil {
		t.Fatal(err)
	}
	arrays = append(arrays, datasets.Array{Name: "g2", T: g32})
	mixed := filepath.Join(dir, "mixed.npz")
	if err := datasets.WriteNPZ(mixed, arrays, nil); err != nil {
		t.Fatal(err)
	}
	strat := filepath.Join(dir, "s.npz")
	code, stdout, stderr := gpump(t, "batch", mixed, "--strategies", strat, "--json", "-q")
	if code != exitOK {
		t.Fatalf("mixed archive: exit %d: %s", code, stderr)
	}
	members := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		v := decodeLine(t, l)
		members[v["key"].(string)] = v["row_member"].(string)
	}
	if members["g0"] != "row" || members["g1"] != "row_5x6" || members["g2"] != "row_5x6" {
		t.Fatalf("members %v", members)
	}
	if names, err := datasets.NPZMembers(strat); err != nil || len(names) != 4 {
		t.Fatalf("archive members %v, %v", names, err)
	}

	st32 := filepath.Join(dir, "st32.npy")
	if code, _, stderr := gpump(t, "gen", "uniform", "--m", "4", "--n", "4", "--count", "2", "--precision", "f32", "-o", st32, "-q"); code != exitOK {
		t.Fatal(stderr)
	}
	code, stdout, stderr = gpump(t, "batch", st32, "--precision", "f64", "--json", "-q")
	if code != exitOK || strings.Count(stdout, `"precision":"f64"`) != 2 {
		t.Fatalf("--precision f64 on a float32 stack: exit %d: %s %s", code, stdout, stderr)
	}
	big := tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking([]float64{1, 2, 3, 4, 1e39, 0, 0, 1}))
	bigPath := filepath.Join(dir, "big.npy")
	if err := datasets.WriteStack(bigPath, big); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = gpump(t, "batch", bigPath, "--precision", "f32", "--json", "-q")
	if code != exitError || !strings.Contains(stdout, "overflow float32") || strings.Count(stdout, `"status":"converged"`) != 1 {
		t.Fatalf("--precision f32 on a stack with a game beyond float32: exit %d: %s", code, stdout)
	}
}
