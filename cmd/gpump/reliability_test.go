package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpump/gpump/games"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// TestBatchF32Certificate: every batch path that stores float64 games as
// float32 (a stack, small files grouped into a batch, the members of an
// archive, files solved one by one) reports each game's rounding_bound δ
// as a lone solve does, and the certificate holds against the float64
// game: its value (bracketed by a float64 solve to 1e-13) and the returned
// pair's true bracket lie within the reported bracket widened by δ, so the
// pair's true gap is at most gap + 2δ.
func TestBatchF32Certificate(t *testing.T) {
	const b, m, n = 6, 17, 23
	dir := t.TempDir()
	stack := filepath.Join(dir, "st.npy")
	if code, _, stderr := gpump(t, "gen", "uniform", "--m", "17", "--n", "23", "--count", "6", "--seed", "5", "-o", stack, "-q"); code != exitOK {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	a, err := datasets.ReadStack(stack)
	if err != nil {
		t.Fatal(err)
	}
	games := a.Float64s()
	game := func(k int) []float64 { return games[k*m*n : (k+1)*m*n] }
	// The float64 games' values, to 1e-13.
	ref := filepath.Join(dir, "ref.jsonl")
	if code, _, stderr := gpump(t, "batch", stack, "--eps", "1e-13", "-o", ref, "-q"); code != exitOK {
		t.Fatalf("float64 batch: exit %d: %s", code, stderr)
	}
	value := map[int][2]float64{}
	for _, l := range readLines(t, ref) {
		value[int(l["index"].(float64))] = [2]float64{l["value_lower"].(float64), l["value_upper"].(float64)}
	}
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	var arrays []datasets.Array
	for k := range b {
		g := tensor.New(tensor.WithShape(m, n), tensor.WithBacking(append([]float64(nil), game(k)...)))
		writeAt(t, filepath.Join(files, fmt.Sprintf("g%d.npy", k)), m, n, game(k))
		arrays = append(arrays, datasets.Array{Name: fmt.Sprintf("g%d", k), T: g})
	}
	archive := filepath.Join(dir, "games.npz")
	if err := datasets.WriteNPZ(archive, arrays, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		game func(l map[string]any) int // the line's game
	}{
		{"stack", []string{stack}, func(l map[string]any) int { return int(l["index"].(float64)) }},
		{"grouped files", []string{files}, gameOfFile},
		{"files one by one", []string{files, "--batch-size", "1"}, gameOfFile},
		{"archive", []string{archive}, func(l map[string]any) int { return int(l["key"].(string)[1] - '0') }},
	} {
		out := filepath.Join(dir, "out.jsonl")
		strat := filepath.Join(dir, "s.npz")
		args := append([]string{"batch", "--precision", "f32", "--eps", "1e-6", "-o", out, "--strategies", strat, "-q", "--threads", "2"}, c.args...)
		if code, _, stderr := gpump(t, args...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		lines := readLines(t, out)
		if len(lines) != b {
			t.Fatalf("%s: %d lines, want %d", c.name, len(lines), b)
		}
		for _, l := range lines {
			k := c.game(l)
			d, _ := l["rounding_bound"].(float64)
			maxAbs := 0.0
			for _, v := range game(k) {
				maxAbs = max(maxAbs, math.Abs(v))
			}
			if d <= 0 || d > 1.2e-7*maxAbs || l["precision"] != "f32" {
				t.Errorf("%s: game %d: precision %v, rounding_bound %v, want (0, %g]", c.name, k, l["precision"], l["rounding_bound"], 1.2e-7*maxAbs)
				continue
			}
			row, err := readVector(strat, l["row_member"].(string))
			if err != nil {
				t.Fatal(err)
			}
			col, err := readVector(strat, l["column_member"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if at, ok := l["member_row"].(float64); ok {
				row, col = row[int(at)*m:(int(at)+1)*m], col[int(at)*n:(int(at)+1)*n]
			}
			lo, hi := trueBracket(game(k), m, n, row, col)
			tol := 70 * 0x1p-52 * maxAbs // the float64 evaluations' own rounding
			vl, vu, gap := l["value_lower"].(float64), l["value_upper"].(float64), l["gap"].(float64)
			switch {
			case value[k][0] < vl-d-tol || value[k][1] > vu+d+tol:
				t.Errorf("%s: game %d: float64 value in [%.17g, %.17g], outside [%.17g, %.17g] ± %g", c.name, k, value[k][0], value[k][1], vl, vu, d)
			case lo < vl-d-tol || hi > vu+d+tol:
				t.Errorf("%s: game %d: the pair's float64 bracket [%.17g, %.17g] outside [%.17g, %.17g] ± %g", c.name, k, lo, hi, vl, vu, d)
			case hi-lo > gap+2*d+tol:
				t.Errorf("%s: game %d: the pair's float64 gap %g exceeds %g + 2·%g", c.name, k, hi-lo, gap, d)
			}
		}
	}
	// A float32 stack is exact in float32: no bound, as for a float32 file.
	st32 := filepath.Join(dir, "st32.npy")
	if code, _, stderr := gpump(t, "gen", "uniform", "--m", "5", "--n", "4", "--count", "3", "--precision", "f32", "-o", st32, "-q"); code != exitOK {
		t.Fatalf("gen f32: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "out32.jsonl")
	if code, _, stderr := gpump(t, "batch", st32, "--precision", "f32", "-o", out, "-q"); code != exitOK {
		t.Fatalf("f32 stack: exit %d: %s", code, stderr)
	}
	for _, l := range readLines(t, out) {
		if _, ok := l["rounding_bound"]; ok || l["precision"] != "f32" {
			t.Errorf("float32 stack: %v", l)
		}
	}
}

// gameOfFile is the game of a line of file gK.npy.
func gameOfFile(l map[string]any) int {
	name := filepath.Base(l["instance"].(string))
	return int(strings.TrimSuffix(name, ".npy")[1] - '0')
}

// TestNonFiniteResult: a result with numbers JSON cannot hold (a float32
// game of entries ±1.8e308, whose gaps overflow) is written all the same,
// those numbers as null, by solve and by batch.
func TestNonFiniteResult(t *testing.T) {
	const big = 1.7976931348623157e308
	path := writeMatrix(t, "big.npy", 2, 2, []float64{big, -big, -big, big})
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := gpump(t, "solve", path, "--precision", "f32", "-o", out, "-q")
	b, err := os.ReadFile(out)
	if err != nil || code == exitError {
		t.Fatalf("solve: exit %d, %q, %v", code, stderr, err)
	}
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil || o["status"] == nil || o["m"] != 2.0 {
		t.Errorf("solve wrote %v (%v)", o, err)
	}
	res := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, stderr = gpump(t, "batch", path, "--precision", "f32", "-o", res, "-q")
	if lines := readLines(t, res); code == exitError || len(lines) != 1 || lines[0]["status"] == "error" {
		t.Errorf("batch: exit %d, %q, %v", code, stderr, lines)
	}
	// The policy itself, on every kind of field.
	v := struct {
		A float64            `json:"a"`
		B *float64           `json:"b,omitempty"`
		C []float64          `json:"c"`
		D map[string]float64 `json:"d"`
		E string             `json:"e"`
		*games.Report
	}{A: math.Inf(1), B: new(float64), C: []float64{1, math.NaN()}, D: map[string]float64{"x": math.Inf(-1)}, E: "<&>", Report: &games.Report{Gap: math.NaN(), Status: "limit"}}
	*v.B = math.NaN()
	got, err := games.Marshal(v, false)
	if err != nil || !strings.HasPrefix(string(got), `{"a":null,"b":null,"c":[1,null],"d":{"x":null},"e":"<&>","status":"limit","gap":null,`) {
		t.Errorf("encodeJSON: %s, %v", got, err)
	}
}

// TestMemoryMessage: a matrix larger than what the process may take is
// refused before it is allocated, in one line (a tall 3·10⁹×1 game counts
// its vectors, 408 GB).
func TestMemoryMessage(t *testing.T) {
	code, _, stderr := gpump(t, "solve", "--gen", "uniform:m=3000000000,n=1", "-q")
	if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "408.0 GB") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestMessages: errors name the user's words and files, the real cause,
// and what to do; never a Go identifier or a temporary file.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	tiny := write("tiny.csv", "1e-320,2e-320\n3e-320,1e-320\n")
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"solve", tiny, "--precision", "f32"}, "--precision f64", "pipe"},
		{[]string{"solve", write("cr.csv", "1,2\r3,4\r"), "-q"}, "carriage return", "mixes numbers and text"},
		{[]string{"solve", "--gen", "cyclic:n=3", "--handover", "2"}, "handover (Handover) must be in [0, 1), got 2", "got 0 and 2"},
		{[]string{"bench", "--threads", "-3", "--m", "10", "--n", "10"}, "--threads must be at least 0", "goroutine"},
	} {
		code, _, stderr := gpump(t, c.args...)
		if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) {
			t.Errorf("%q: exit %d, %q; want %q, not %q", c.args, code, stderr, c.want, c.not)
		}
	}
	// Manifest lines: a flag of the batch's, and flags without a file.
	for _, c := range []struct{ line, want string }{
		{"gen:cyclic:n=3 --output x.json", "--output (outputs are the batch's own"},
		{"--algo rm+ --eps 1e-3", "starts with the flag --algo"},
	} {
		out := filepath.Join(dir, "m.jsonl")
		gpump(t, "batch", "--manifest", writeManifest(t, c.line+"\n"), "-o", out, "-q")
		if l := readLines(t, out); len(l) != 1 || !strings.Contains(l[0]["error"].(string), c.want) {
			t.Errorf("manifest line %q: %v", c.line, l)
		}
	}
	// Small float64 files of entries near 1e-40, grouped as float32: each
	// is scaled and solved as alone, not failed naming a Go function.
	files := filepath.Join(dir, "small")
	os.Mkdir(files, 0o755)
	for k := range 3 {
		writeAt(t, filepath.Join(files, fmt.Sprintf("g%d.npy", k)), 2, 2, []float64{1e-40, 0, 0, 1e-40 * float64(k+1)})
	}
	out := filepath.Join(dir, "small.jsonl")
	code, _, stderr := gpump(t, "batch", files, "--precision", "f32", "-o", out, "-q")
	for _, l := range readLines(t, out) {
		if l["status"] != "converged" || l["rounding_bound"] == nil {
			t.Errorf("exit %d, %q: %v", code, stderr, l)
		}
	}
}
