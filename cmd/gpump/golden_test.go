package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// normalize makes a JSON document (or JSON lines) comparable across runs
// and machines: timings, thread counts and kernel names are replaced, and
// numbers are rounded to 7 significant digits, since the kernels of
// another CPU may round differently in the last bits.
func normalize(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var v any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			// A pretty-printed document: decode it whole.
			d = json.NewDecoder(strings.NewReader(out))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			b.Reset()
			writeNormalized(&b, v)
			return b.String()
		}
		writeNormalized(&b, v)
	}
	return b.String()
}

func writeNormalized(b *strings.Builder, v any) {
	v = scrub(v, "")
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func scrub(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = scrub(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = scrub(e, key)
		}
		return x
	case json.Number:
		switch key {
		case "seconds", "load_seconds", "subgame_seconds", "threads":
			return json.Number("0")
		}
		f, err := x.Float64()
		if err != nil || f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return x
		}
		if math.Abs(f) < 1e-12 { // rounding noise around zero
			return json.Number("0")
		}
		return json.Number(strconv.FormatFloat(f, 'g', 7, 64))
	case string:
		if key == "kernels" {
			return "*"
		}
		return x
	}
	return v
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update (after a deliberate change: go test ./cmd/gpump -run Golden
// -update).
//
// One set of golden files serves every CPU: the kernel sets (AVX-512, AVX2,
// portable Go) sum in different orders and arm64 fuses multiply-adds, and
// an iterative method carries such rounding differences into its iteration
// count and its last digits. So the comparison is exact for the document's
// shape, its keys, strings and booleans, and tolerant for numbers (see
// closeEnough); the cases are games without ties between iterates, whose
// choice a rounding difference could flip.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/gpump -run %s -update creates it)", err, t.Name())
	}
	if msg := goldenDiff(string(want), got); msg != "" {
		t.Errorf("%s differs from the golden file: %s (go test ./cmd/gpump -run %s -update rewrites it after a deliberate change)\ngot:\n%s\nwant:\n%s", path, msg, t.Name(), got, want)
	}
}

// goldenDiff returns "" when got matches want (normalized documents, one
// or more JSON values) and otherwise the first difference.
func goldenDiff(want, got string) string {
	dw, dg := json.NewDecoder(strings.NewReader(want)), json.NewDecoder(strings.NewReader(got))
	dw.UseNumber()
	dg.UseNumber()
	for k := 0; ; k++ {
		var w, g any
		ew, eg := dw.Decode(&w), dg.Decode(&g)
		if ew == io.EOF && eg == io.EOF {
			return ""
		}
		if ew != nil || eg != nil {
			return fmt.Sprintf("document %d: %v, %v", k, ew, eg)
		}
		if msg := valueDiff(w, g, fmt.Sprintf("document %d", k), gapOf(w)); msg != "" {
			return msg
		}
	}
}

// gapOf returns the "gap" of a result document, 0 for another value.
func gapOf(v any) float64 {
	if m, ok := v.(map[string]any); ok {
		if n, ok := m["gap"].(json.Number); ok {
			f, _ := n.Float64()
			return f
		}
	}
	return 0
}

func valueDiff(w, g any, at string, gap float64) string {
	switch x := w.(type) {
	case map[string]any:
		y, ok := g.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v, want %v", at, g, w)
		}
		for k, e := range x {
			if _, ok := y[k]; !ok {
				return fmt.Sprintf("%s: no key %q", at, k)
			}
			if msg := valueDiff(e, y[k], at+"."+k, gap); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		y, ok := g.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v, want %v", at, g, w)
		}
		for i := range x {
			if msg := valueDiff(x[i], y[i], fmt.Sprintf("%s[%d]", at, i), gap); msg != "" {
				return msg
			}
		}
		return ""
	case json.Number:
		y, ok := g.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: %v, want %v", at, g, w)
		}
		a, _ := x.Float64()
		b, _ := y.Float64()
		// A pass count may differ by one pass: whether the route tidies a
		// polished pair's rounding debris with one more certifying pass
		// depends on that debris, which the kernel sets round differently
		// (the batch's 6×6 skew game: 26 passes on AVX-512, 25 generic).
		if strings.HasSuffix(at, "_passes") && math.Abs(a-b) <= 1 {
			return ""
		}
		if !closeEnough(a, b, gap) {
			return fmt.Sprintf("%s: %v, want %v", at, y, x)
		}
		return ""
	}
	if w != g {
		return fmt.Sprintf("%s: %v, want %v", at, g, w)
	}
	return ""
}

// closeEnough says whether a number of a golden file (want) and of a run
// (got) agree: within 2% (an iteration count, a gap, a time-free rate), or
// within ten times the document's certified gap (a strategy's entries and
// the value bracket move by about the gap when the rounding does).
func closeEnough(want, got, gap float64) bool {
	d := math.Abs(want - got)
	return d <= 0.02*math.Max(math.Abs(want), math.Abs(got)) || d <= 10*gap
}

// TestGoldenSolve runs gpump solve on tiny games of every input kind.
func TestGoldenSolve(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"rps_csv", []string{"testdata/rps.csv", "--algo", "ga-bounded", "--eps", "1e-6"}},
		{"matching_pennies_mtx", []string{"testdata/pennies.mtx", "--algo", "rm+", "--eps", "1e-6"}},
		{"npz_key", []string{"testdata/games.npz", "--key", "skew", "--algo", "prm+", "--eps", "1e-6"}},
		{"npy_f32", []string{"testdata/small_f32.npy", "--algo", "ga-stochastic", "--eps", "1e-5"}},
		{"gen_identity", []string{"--gen", "identity:n=4", "--algo", "ga-smooth"}},
		{"gen_saddle", []string{"--gen", "saddle", "--m", "5", "--n", "7", "--seed", "2", "--algo", "rm+"}},
		{"gen_limit", []string{"--gen", "uniform:m=5,n=6,seed=3", "--max-iter", "5", "--algo", "ga-stochastic"}},
		{"gen_default", []string{"--gen", "nemirovski:n=6"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"solve", "--threads", "1", "--quiet"}, c.args...)
			code, stdout, stderr := gpump(t, args...)
			if code != exitOK && code != exitLimit || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden(t, "solve_"+c.name+".json", normalize(t, stdout))
		})
	}
}

// TestGoldenBatch runs a manifest with good and bad instances.
func TestGoldenBatch(t *testing.T) {
	code, stdout, stderr := gpump(t, "batch", "--manifest", "testdata/manifest.txt", "--threads", "1", "--eps", "1e-5", "--log-format", "json")
	if code != exitError {
		t.Errorf("exit %d, want %d (the manifest has failing instances)", code, exitError)
	}
	golden(t, "batch.jsonl", normalize(t, stdout))
	if !strings.Contains(stderr, "instances") || !strings.Contains(stderr, "failed") {
		t.Errorf("no summary table on stderr:\n%s", stderr)
	}
}

// TestGoldenDiff checks the golden comparison itself: exact in shape, keys
// and strings, tolerant in numbers only as closeEnough says.
func TestGoldenDiff(t *testing.T) {
	const want = `{"status": "converged", "gap": 1e-6, "iterations": 1000, "row_strategy": [0.5, 0.5]}`
	for _, c := range []struct {
		got  string
		same bool
	}{
		{want, true},
		{`{"status": "converged", "gap": 1.01e-6, "iterations": 1015, "row_strategy": [0.500004, 0.499996]}`, true},
		{`{"status": "iteration_limit", "gap": 1e-6, "iterations": 1000, "row_strategy": [0.5, 0.5]}`, false},
		{`{"status": "converged", "gap": 1e-6, "iterations": 1030, "row_strategy": [0.5, 0.5]}`, false},
		{`{"status": "converged", "gap": 1e-6, "iterations": 1000, "row_strategy": [0.6, 0.4]}`, false},
		{`{"status": "converged", "gap": 1e-6, "iterations": 1000, "row_strategy": [0.5, 0.5, 0]}`, false},
		{`{"status": "converged", "gap": 1e-6, "iterations": 1000}`, false},
		{`{"status": "converged", "gap": 1e-6, "iterations": 1000, "column_strategy": [0.5, 0.5]}`, false},
		{want + "\n" + want, false},
	} {
		if msg := goldenDiff(want, c.got); (msg == "") != c.same {
			t.Errorf("goldenDiff(want, %s) = %q, want same %v", c.got, msg, c.same)
		}
	}
	// Pass counts may differ by one pass, other counts not.
	const passes = `{"matrix_passes": 25, "gap_passes": 4, "iterations": 12}`
	for _, c := range []struct {
		got  string
		same bool
	}{
		{`{"matrix_passes": 26, "gap_passes": 5, "iterations": 12}`, true},
		{`{"matrix_passes": 24, "gap_passes": 3, "iterations": 12}`, true},
		{`{"matrix_passes": 27, "gap_passes": 4, "iterations": 12}`, false},
		{`{"matrix_passes": 25, "gap_passes": 6, "iterations": 12}`, false},
		{`{"matrix_passes": 25, "gap_passes": 4, "iterations": 13}`, false},
	} {
		if msg := goldenDiff(passes, c.got); (msg == "") != c.same {
			t.Errorf("goldenDiff(%s, %s) = %q, want same %v", passes, c.got, msg, c.same)
		}
	}
}
