package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpump/gpump/tensorops"
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

// golden compares got with testdata/golden/KERNELS/name, or rewrites it
// with -update. The CPU kernels (AVX-512, AVX2, portable Go) sum in
// different orders, and a rounding difference can change an iteration
// count or which of two tied iterates is kept, so each set has its own
// golden files. Refresh all three after a deliberate change with
//
//	for k in avx512 avx2 generic; do GPUMP_KERNELS=$k go test -run Golden -update ./cmd/gpump; done
//
// (a machine without AVX-512 makes only the last two).
func golden(t *testing.T, name, got string) {
	t.Helper()
	cpu := tensorops.NewCPU(1)
	kernels := cpu.Kernels()
	cpu.Close()
	path := filepath.Join("testdata", "golden", kernels, name)
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
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it after a deliberate change)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
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
		{"gen_limit", []string{"--gen", "nemirovski:n=6", "--max-iter", "5", "--algo", "ga-stochastic"}},
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
