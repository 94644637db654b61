package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSolveFile(t *testing.T) {
	// Value 1 at p = (0.6, 0.4) (see solver.ExampleSolve).
	path := writeMatrix(t, "game.npy", 2, 3, []float64{3, -1, 2, -2, 4, 1})
	out := filepath.Join(t.TempDir(), "result.json")
	// Flags after the file, as people write them.
	code, stdout, stderr := gpump(t, "solve", path, "--algo", "ga-bounded", "--eps", "1e-6", "--output", out, "--quiet")
	if code != exitOK || stderr != "" || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	o := decode(t, string(b))
	if o.Status != "converged" || o.M != 2 || o.N != 3 || o.Algorithm != "ga-bounded" || o.Precision != "f64" {
		t.Errorf("unexpected result %+v", o)
	}
	if o.RelativeGap > 1e-6 || o.ValueLower > 1+1e-12 || o.ValueUpper < 1-1e-12 {
		t.Errorf("gap %g, bracket [%g, %g] for v* = 1", o.RelativeGap, o.ValueLower, o.ValueUpper)
	}
	if len(o.RowStrategy) != 2 || len(o.ColumnStrategy) != 3 {
		t.Errorf("strategies %v %v", o.RowStrategy, o.ColumnStrategy)
	}
	for _, key := range []string{"status", "gap", "relative_gap", "value_lower", "value_upper", "iterations",
		"operator_evaluations", "matrix_passes", "seconds", "algorithm", "m", "n", "precision", "row_strategy", "column_strategy"} {
		if !strings.Contains(string(b), `"`+key+`"`) {
			t.Errorf("result lacks %q", key)
		}
	}
}

func TestSolveGenerated(t *testing.T) {
	for _, prec := range []string{"f64", "f32"} {
		code, stdout, stderr := gpump(t, "solve", "--gen", "uniform", "--m", "40", "--n", "30", "--seed", "3", "--algo", "rm+", "--precision", prec)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		o := decode(t, stdout)
		if o.Precision != prec || o.Source != "uniform:m=40,n=30,lo=-1,hi=1,seed=3" || o.Status != "converged" || o.RelativeGap > 1e-4 {
			t.Errorf("%s: %+v", prec, o)
		}
	}
}

// TestSolveRoundingBound: float32 storage of a matrix defined in float64
// reports the bound by which the bracket may move against the original.
func TestSolveRoundingBound(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--gen", "uniform", "--m", "20", "--n", "20", "--precision", "f32"}, true},
		{[]string{"--gen", "uniform", "--m", "20", "--n", "20"}, false},
		{[]string{writeMatrix(t, "f64.npy", 2, 2, []float64{1, 0, 0, 1}), "--precision", "f32"}, true},
		{[]string{writeMatrix(t, "f32.npy", 2, 2, []float32{1, 0, 0, 1})}, false},
	} {
		code, stdout, stderr := gpump(t, append([]string{"solve"}, c.args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		o := decode(t, stdout)
		if got := o.RoundingBound > 0; got != c.want || got && o.RoundingBound > 1.2e-7*o.MaxAbsEntry {
			t.Errorf("%v: rounding bound %g", c.args, o.RoundingBound)
		}
	}
}

func TestSolveLimitExitStatus(t *testing.T) {
	code, stdout, _ := gpump(t, "solve", "--gen", "gaussian", "--m", "50", "--n", "60", "--max-iter", "3")
	if code != exitLimit {
		t.Fatalf("exit %d, want %d", code, exitLimit)
	}
	if o := decode(t, stdout); o.Status != "iteration_limit" || o.Iterations != 3 {
		t.Errorf("%+v", o)
	}
}

// TestSolveBadInput: each bad input gives one error line naming the
// problem and exit status 1.
func TestSolveBadInput(t *testing.T) {
	dir := t.TempDir()
	nan := writeMatrix(t, "nan.npy", 2, 3, []float64{1, 2, 3, 4, math.NaN(), 6})
	oneD := rawNPY(t, dir, "<f8", "(4,)", 32)
	emptyFile := rawNPY(t, dir, "<f8", "(0, 3)", 0)
	inf := writeMatrix(t, "inf.npy", 1, 2, []float32{1, float32(math.Inf(-1))})
	complexFile := rawNPY(t, dir, "<c16", "(1, 1)", 16)
	truncated := filepath.Join(dir, "short.npy")
	full, _ := os.ReadFile(nan)
	if err := os.WriteFile(truncated, full[:len(full)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"solve", filepath.Join(dir, "nope.npy")}, "no such file"},
		{"directory", []string{"solve", dir + "/x.npy/.."}, ""},
		{"NaN", []string{"solve", nan}, "(1, 1)"},
		{"1-D", []string{"solve", oneD}, "shape"},
		{"truncated", []string{"solve", truncated}, "short.npy"},
		{"unknown format", []string{"solve", "payoff.xyz"}, "unknown format"},
		{"format flag", []string{"solve", "payoff.npy", "--format", "xls"}, "--format"},
		{"key for npy", []string{"solve", nan, "--key", "a"}, "--key applies"},
		{"mmap for csv", []string{"solve", "payoff.csv", "--mmap"}, "--mmap applies"},
		{"gen flag for file", []string{"solve", nan, "--theta", "1"}, "--theta applies"},
		{"gen param", []string{"solve", "--gen", "identity", "--theta", "1"}, "theta"},
		{"unknown generator", []string{"solve", "--gen", "nosuch"}, "nosuch"},
		{"strategies", []string{"solve", "--gen", "uniform", "--strategies", "s.json"}, "--strategies"},
		{"plot", []string{"solve", "--gen", "uniform", "--plot", "p.pdf"}, "--plot"},
		{"trace-every", []string{"solve", "--gen", "uniform", "--trace-every", "0"}, "--trace-every"},
		{"no input", []string{"solve"}, "no payoff matrix"},
		{"both inputs", []string{"solve", nan, "--gen", "uniform"}, "not both"},
		{"unknown algo", []string{"solve", "--gen", "uniform", "--algo", "nope"}, "unknown method"},
		{"bad precision", []string{"solve", "--gen", "uniform", "--precision", "f16"}, "precision"},
		{"negative eps", []string{"solve", "--gen", "uniform", "--eps", "-1"}, "--eps"},
		{"empty", []string{"solve", "--gen", "uniform", "--m", "0"}, "dimensions"},
		{"empty file", []string{"solve", emptyFile}, "empty"},
		{"Inf", []string{"solve", inf}, "(0, 1)"},
		{"absurd header", []string{"solve", "testdata/absurd.npy"}, "too large"},
		{"wrong dtype", []string{"solve", "testdata/complex.npy"}, "<c16"},
		{"npz without key", []string{"solve", "testdata/games.npz"}, "skew, other"},
		{"npz bad key", []string{"solve", "testdata/games.npz", "--key", "nope"}, "nope"},
		{"complex dtype", []string{"solve", complexFile}, "unsupported dtype"},
		{"too large", []string{"solve", "--gen", "uniform", "--m", "10000000", "--n", "10000000"}, "GB"},
		{"c for ga-smooth", []string{"solve", "--gen", "uniform", "--algo", "ga-smooth", "--c", "2"}, "--c applies"},
		{"eta for rm+", []string{"solve", "--gen", "uniform", "--algo", "rm+", "--eta", "2"}, "--eta applies"},
		{"threads", []string{"solve", "--gen", "uniform", "--threads", "100000"}, "--threads"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := gpump(t, c.args...)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "gpump: ") || !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr, c.want)
			}
		})
	}
}

func TestInterspersed(t *testing.T) {
	app := newApp(nil, nil)
	got := interspersed(app, strings.Fields("gpump solve a.npy --algo rm+ --eps=1e-3 --output o.json"))
	want := strings.Fields("gpump solve --algo rm+ --eps=1e-3 --output o.json -- a.npy")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzInterspersed: reordering never panics, keeps every argument, and puts
// the positional ones last (after a "--").
func FuzzInterspersed(f *testing.F) {
	f.Add("solve a.npy --algo rm+ --eps=1e-3 -o out.json")
	f.Add("solve -- --weird.npy")
	f.Add("solve --output")
	f.Add("nosuch --x y z")
	app := newApp(nil, nil)
	f.Fuzz(func(t *testing.T, line string) {
		args := append([]string{"gpump"}, strings.Fields(line)...)
		got := interspersed(app, args)
		count := func(ss []string) map[string]int {
			c := map[string]int{}
			for _, s := range ss {
				if s != "--" {
					c[s]++
				}
			}
			return c
		}
		want, have := count(args), count(got)
		if len(want) != len(have) {
			t.Fatalf("%q became %q", args, got)
		}
		for k, v := range want {
			if have[k] != v {
				t.Fatalf("%q became %q", args, got)
			}
		}
	})
}
