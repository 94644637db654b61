package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/games"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// The harness of the command's tests: gpump run in-process, and the files
// the tests of every subcommand write and read back.

// gpump runs the command line in-process and returns its exit status and
// outputs.
func gpump(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"gpump"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// decode parses the JSON result of gpump solve.
func decode(t *testing.T, s string) games.Report {
	t.Helper()
	var o games.Report
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	return o
}

// writeMatrix writes the m×n matrix of data ([]float64 or []float32) to a
// new .npy file named name and returns its path.
func writeMatrix(t *testing.T, name string, m, n int, data any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	writeAt(t, path, m, n, data)
	return path
}

// writeAt writes the m×n matrix of data ([]float64 or []float32) to path as
// .npy.
func writeAt(t *testing.T, path string, m, n int, data any) {
	t.Helper()
	if err := datasets.WriteNPY(path, tensor.New(tensor.WithShape(m, n), tensor.WithBacking(data))); err != nil {
		t.Fatal(err)
	}
}

// genFile writes the float64 matrix of the generator spec to a new file
// named name, and returns its path and the matrix.
func genFile(t *testing.T, spec, name string) (string, *tensor.Dense) {
	t.Helper()
	a, err := datasets.Generate(tensor.Float64, mustSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := datasets.Write(path, a, nil); err != nil {
		t.Fatal(err)
	}
	return path, a
}

// mustSpec parses a generator spec.
func mustSpec(t *testing.T, s string) datasets.GenSpec {
	t.Helper()
	spec, err := datasets.ParseGenSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// rawNPY writes a version 1.0 .npy file with the given dtype and shape and
// a zero payload of the given size: the files WriteNPY refuses to make.
func rawNPY(t *testing.T, dir, descr, shape string, payload int) string {
	t.Helper()
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	hdr += strings.Repeat(" ", 117-len(hdr)) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00\x76\x00"), hdr...)
	b = append(b, make([]byte, payload)...)
	path := filepath.Join(dir, strings.NewReplacer("<", "", "(", "", ")", "", ",", "", " ", "x").Replace(descr+shape)+".npy")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeManifest writes a batch manifest to a new file and returns its path.
func writeManifest(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readLines parses the JSON lines of the file at path.
func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		out = append(out, v)
	}
	return out
}

// TestSolveOutputs: --trace, --plot and --strategies write complete files
// that agree with the JSON result.
func TestSolveOutputs(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.csv")
	strat := filepath.Join(dir, "strategies.npz")
	for _, plot := range []string{"gap.png", "gap.svg"} {
		code, stdout, stderr := gpump(t, "solve", "--gen", "uniform:m=30,n=20", "--seed", "4", "--quiet",
			"--trace", trace, "--trace-every", "7", "--plot", filepath.Join(dir, plot), "--strategies", strat)
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		o := decode(t, stdout)
		if o.Strategies != strat || o.RowStrategy != nil || o.ColumnStrategy != nil {
			t.Errorf("strategies %q in the JSON with %d/%d entries", o.Strategies, len(o.RowStrategy), len(o.ColumnStrategy))
		}
		b, err := os.ReadFile(filepath.Join(dir, plot))
		if err != nil {
			t.Fatal(err)
		}
		if plot == "gap.png" && !strings.HasPrefix(string(b), "\x89PNG") || plot == "gap.svg" && !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is not a %s image", plot, filepath.Ext(plot))
		}

		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rows[0], ",")+"\n" != traceHeader {
			t.Errorf("trace header %q", rows[0])
		}
		last := rows[len(rows)-1]
		iters, _ := strconv.Atoi(last[0])
		gap, _ := strconv.ParseFloat(last[4], 64)
		if iters != o.Iterations || math.Abs(gap-o.Gap) > 1e-12*math.Max(1, o.Gap) {
			t.Errorf("trace ends at iteration %d with gap %g; the result has %d and %g", iters, gap, o.Iterations, o.Gap)
		}
		// Rows every 7 iterations, plus the start and the last one.
		if want := o.Iterations/7 + 1 + btoi(o.Iterations%7 != 0); len(rows)-1 != want {
			t.Errorf("%d trace rows for %d iterations every 7, want %d", len(rows)-1, o.Iterations, want)
		}

		for _, member := range []struct {
			key  string
			size int
		}{{"row", o.M}, {"column", o.N}} {
			v, err := readVector(strat, member.key)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0.0
			for _, x := range v {
				sum += x
			}
			if len(v) != member.size || math.Abs(sum-1) > 1e-9 {
				t.Errorf("%s strategy: %d entries summing to %g", member.key, len(v), sum)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
}

// readVector reads a 1-D little-endian float64 member of an .npz file, the
// way numpy would: the datasets readers take matrices only.
func readVector(path, key string) ([]float64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	f, err := z.Open(key + ".npy")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	end := bytes.IndexByte(b, '\n')
	if end < 0 || !bytes.Contains(b[:end], []byte("'descr': '<f8'")) || !bytes.Contains(b[:end], []byte("'shape': (")) {
		return nil, fmt.Errorf("%s: unexpected header %q", key, b[:max(end, 0)])
	}
	payload := b[end+1:]
	v := make([]float64, len(payload)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(payload[8*i:]))
	}
	return v, nil
}

// TestSolveLogs: log lines on stderr, as text or JSON, and none with --quiet.
func TestSolveLogs(t *testing.T) {
	for _, c := range []struct {
		args  []string
		check func(string) bool
	}{
		{[]string{"--log-format", "text"}, func(s string) bool {
			return strings.Contains(s, "msg=\"loaded matrix\"") && strings.Contains(s, "msg=finished")
		}},
		{[]string{"--log-format", "json"}, func(s string) bool {
			sc := bufio.NewScanner(strings.NewReader(s))
			n := 0
			for sc.Scan() {
				var v map[string]any
				if json.Unmarshal(sc.Bytes(), &v) != nil || v["msg"] == nil {
					return false
				}
				n++
			}
			return n >= 3
		}},
		{[]string{"--quiet"}, func(s string) bool { return s == "" }},
	} {
		code, _, stderr := gpump(t, append([]string{"solve", "--gen", "cyclic:n=3"}, c.args...)...)
		if code != exitOK || !c.check(stderr) {
			t.Errorf("%v: exit %d, stderr:\n%s", c.args, code, stderr)
		}
	}
	if code, _, stderr := gpump(t, "solve", "--gen", "cyclic:n=3", "--log-format", "xml"); code != exitError || !strings.Contains(stderr, "log-format") {
		t.Errorf("--log-format xml: exit %d, %s", code, stderr)
	}
}

// TestGenFormats: gpump gen writes every writable format, and solve reads
// each back to the same game.
func TestGenFormats(t *testing.T) {
	dir := t.TempDir()
	want, err := datasets.Generate(tensor.Float64, mustSpec(t, "police:n=9,layout=grid,seed=3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		args []string
	}{
		{"p.npy", nil},
		{"p_be_f.npy", []string{"--big-endian", "--fortran"}},
		{"p.npz", []string{"--compress", "--key", "police"}},
		{"p.csv", []string{"--header"}},
		{"p.tsv", nil},
	} {
		path := filepath.Join(dir, c.file)
		args := append([]string{"gen", "police", "--n", "9", "--layout", "grid", "--seed", "3", "-o", path, "--quiet"}, c.args...)
		if code, _, stderr := gpump(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		got, err := datasets.Read(path, &datasets.ReadOptions{Key: map[bool]string{true: "police"}[strings.HasSuffix(c.file, ".npz")]})
		if err != nil {
			t.Fatal(err)
		}
		if !equalDense(got, want) {
			t.Errorf("%s: read back a different matrix", c.file)
		}
	}
	// The low-rank generator's flags --rank and --noise are its spec's
	// keys, and a file argument refuses them.
	lr, err := datasets.Generate(tensor.Float64, mustSpec(t, "lowrank:m=12,n=7,rank=2,noise=0.5,seed=4"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gen", "lowrank", "--m", "12", "--n", "7", "--rank", "2", "--noise", "0.5", "--seed", "4"},
		{"gen", "lowrank:m=12,n=7,rank=2,noise=0.5,seed=4"},
	} {
		path := filepath.Join(dir, "lr.npy")
		if code, _, stderr := gpump(t, append(args, "-o", path, "-q")...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		got, err := datasets.Read(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !equalDense(got, lr) {
			t.Errorf("%v: a different matrix", args)
		}
	}
	if code, _, stderr := gpump(t, "solve", filepath.Join(dir, "lr.npy"), "--rank", "2", "-q"); code != exitError || !strings.Contains(stderr, "--rank applies to a generated matrix") {
		t.Errorf("solve FILE --rank: exit %d, %s", code, stderr)
	}
	if code, _, stderr := gpump(t, "gen", "lowrank:m=3,n=5,rank=4", "-o", filepath.Join(dir, "x.npy"), "-q"); code != exitError || !strings.Contains(stderr, "rank 4") {
		t.Errorf("gen lowrank rank 4 of 3×5: exit %d, %s", code, stderr)
	}
	for _, bad := range [][]string{
		{"gen", "nosuch", "-o", filepath.Join(dir, "x.npy")},
		{"gen", "uniform", "-o", filepath.Join(dir, "x.mtx")},
		{"gen", "uniform", "--header", "-o", filepath.Join(dir, "x.npy")},
		{"gen", "identity", "--theta", "2", "-o", filepath.Join(dir, "x.npy")},
		{"gen", "uniform"},
	} {
		if code, _, stderr := gpump(t, bad...); code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

func equalDense(a, b *tensor.Dense) bool {
	x, y := a.Data().([]float64), b.Data().([]float64)
	if len(x) != len(y) || a.Shape()[0] != b.Shape()[0] {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// TestBatchResume: a resumed batch skips what is done and retries what
// failed.
func TestBatchResume(t *testing.T) {
	dir := t.TempDir()
	good := writeMatrix(t, "good.npy", 2, 2, []float64{1, -1, -1, 1})
	missing := filepath.Join(dir, "later.npy")
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := gpump(t, "batch", good, missing, "-o", out, "--quiet")
	if code != exitError || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	writeAt(t, missing, 2, 2, []float64{2, 0, 0, 1})
	code, _, stderr = gpump(t, "batch", good, missing, "-o", out, "--resume", "--jobs", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := readLines(t, out)
	if len(lines) != 3 || lines[0]["status"] != "converged" || lines[1]["status"] != "error" || lines[2]["status"] != "converged" || lines[2]["instance"] != missing {
		t.Errorf("lines %v", lines)
	}
	if !strings.Contains(stderr, "skipped") {
		t.Errorf("no summary: %s", stderr)
	}
}

// TestBatchInputs: directories, globs and parallel jobs.
func TestBatchInputs(t *testing.T) {
	dir := t.TempDir()
	for i, d := range [][]float64{{1, 0, 0, 1}, {0, 1, 1, 0}, {3, 1, 2, 2}} {
		writeAt(t, filepath.Join(dir, "g"+strconv.Itoa(i)+".npy"), 2, 2, d)
	}
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("not a game"), 0o644)
	for _, args := range [][]string{
		{"batch", dir, "--jobs", "3", "--threads", "2"},
		{"batch", filepath.Join(dir, "g*.npy"), "--algo", "rm+"},
	} {
		code, stdout, stderr := gpump(t, append(args, "--quiet")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		seen := map[float64]bool{}
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatal(err)
			}
			if v["status"] != "converged" || v["threads"] != 1.0 && args[3] == "3" {
				t.Errorf("%v: %s", args, l)
			}
			seen[v["index"].(float64)] = true
		}
		if len(seen) != 3 {
			t.Errorf("%v: indices %v", args, seen)
		}
	}
	if code, _, stderr := gpump(t, "batch", filepath.Join(dir, "*.xyz")); code != exitError || !strings.Contains(stderr, "no file matches") {
		t.Errorf("empty glob: exit %d, %s", code, stderr)
	}
	if code, _, stderr := gpump(t, "batch", "--algo", "nope", dir); code != exitError || strings.Count(stderr, "\n") != 1 {
		t.Errorf("bad batch flag: exit %d, %s", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := gpump(t, "version")
	for _, want := range []string{"gpump ", "go: go1.", "build tags:", "backends: cpu"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, output %q lacks %q", code, stdout, want)
		}
	}
}

// TestHelp: every subcommand has help text with an example (help --help,
// like help alone, lists the commands, help among them).
func TestHelp(t *testing.T) {
	for _, cmd := range newApp(nil, nil).Commands {
		code, stdout, stderr := gpump(t, cmd.Name, "--help")
		if cmd.Name == "help" {
			if _, list, _ := gpump(t, "help"); code != exitOK || stdout != list || !strings.Contains(list, "help, h") {
				t.Errorf("help --help: exit %d, stderr %q, output:\n%s", code, stderr, stdout)
			}
			continue
		}
		if code != exitOK || !strings.Contains(stdout, "Example") || !strings.Contains(stdout, "gpump "+cmd.Name) {
			t.Errorf("%s --help: exit %d, stderr %q, output:\n%s", cmd.Name, code, stderr, stdout)
		}
	}
}

// TestSolveCanceled: an interrupted solve writes its best point, with
// status canceled, and exits with status 3; so does an interrupted batch.
func TestSolveCanceled(t *testing.T) {
	for _, args := range [][]string{
		{"solve", "--gen", "uniform:m=300,n=300", "--eps", "0", "--max-iter", "100000000", "--quiet"},
		{"batch", "--manifest", writeManifest(t, "gen:uniform:m=300,n=300 --eps 0 --max-iter 100000000\ngen:identity:n=3\n"), "--quiet"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var out, errOut bytes.Buffer
		start := time.Now()
		code := run(ctx, append([]string{"gpump"}, args...), &out, &errOut)
		cancel()
		if code != exitCanceled || time.Since(start) > 5*time.Second {
			t.Fatalf("%s: exit %d after %v: %s", args[0], code, time.Since(start), errOut.String())
		}
		var v map[string]any
		if err := json.Unmarshal(bytes.SplitN(out.Bytes(), []byte("\n{"), 2)[0], &v); err != nil && args[0] == "solve" {
			t.Fatalf("%v: %s", err, out.String())
		}
		if args[0] == "solve" && (v["status"] != "canceled" || v["gap"].(float64) <= 0 || v["iterations"].(float64) < 1) {
			t.Errorf("solve: %s", out.String())
		}
		if args[0] == "batch" && !strings.Contains(out.String(), `"status":"canceled"`) {
			t.Errorf("batch: %s", out.String())
		}
	}
}

// TestSolveMmap: a mapped file gives the same solve as a read one, and
// --mmap refuses what it cannot map.
func TestSolveMmap(t *testing.T) {
	path, a := genFile(t, "gaussian:m=40,n=50,seed=9", "g.npy")
	var outs []games.Report
	for _, extra := range [][]string{nil, {"--mmap"}} {
		code, stdout, stderr := gpump(t, append([]string{"solve", path, "--threads", "1", "--quiet"}, extra...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		outs = append(outs, decode(t, stdout))
	}
	if outs[0].Gap != outs[1].Gap || outs[0].Iterations != outs[1].Iterations {
		t.Errorf("read: gap %g after %d iterations; mapped: %g after %d", outs[0].Gap, outs[0].Iterations, outs[1].Gap, outs[1].Iterations)
	}
	be := filepath.Join(t.TempDir(), "be.npy")
	if err := datasets.WriteNPYOptions(be, a, &datasets.WriteOptions{BigEndian: true}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{be}, {path, "--precision", "f32"}} {
		code, _, stderr := gpump(t, append([]string{"solve", "--mmap"}, args...)...)
		if code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--mmap %v: exit %d, %q", args, code, stderr)
		}
	}
}

// TestReviewedEdges pins behaviour found in review: each case once went
// wrong.
func TestReviewedEdges(t *testing.T) {
	dir := t.TempDir()
	game := writeMatrix(t, "g.npy", 2, 3, []float64{3, -1, 2, -2, 4, 1})

	// An absolute target alone is the target.
	code, stdout, _ := gpump(t, "solve", game, "--algo", "rm+", "--abs-eps", "1e-7", "-q")
	if o := decode(t, stdout); code != exitOK || o.Gap > 1e-7 || o.TargetRelativeGap != 0 || o.TargetAbsoluteGap != 1e-7 {
		t.Errorf("--abs-eps: exit %d, gap %g, targets %g/%g", code, o.Gap, o.TargetRelativeGap, o.TargetAbsoluteGap)
	}
	// A plot of a single evaluation, and a bad output path found before the
	// solve (a huge iteration limit would show as a hang).
	if code, _, stderr := gpump(t, "solve", game, "--max-evals", "1", "--plot", filepath.Join(dir, "one.png"), "-q"); code != exitLimit {
		t.Errorf("plot of one evaluation: exit %d: %s", code, stderr)
	}
	for _, flag := range []string{"--output", "--plot", "--strategies", "--trace"} {
		ext := map[string]string{"--output": ".json", "--plot": ".svg", "--strategies": ".npz", "--trace": ".csv"}[flag]
		code, _, stderr := gpump(t, "solve", "--gen", "uniform:m=300,n=300", "--eps", "0", "--max-iter", "100000000", flag, filepath.Join(dir, "nodir", "x"+ext), "-q")
		if code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s in a missing directory: exit %d, %q", flag, code, stderr)
		}
	}
	// The result goes through a symbolic link, which stays.
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err == nil {
		if code, _, stderr := gpump(t, "solve", game, "-o", link, "-q"); code != exitOK {
			t.Errorf("-o link: exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced")
		}
		if _, err := os.Stat(target); err != nil {
			t.Errorf("the link's target was not written: %v", err)
		}
	}
	// Flags that a method does not use are refused, not ignored.
	for _, args := range [][]string{
		{"--algo", "rm+", "--setup", "euclidean"}, {"--algo", "prm+", "--g0", "2"},
		{"--algo", "constant", "--diameter", "3"}, {"--algo", "omwu", "--g0", "2"}, {"--algo", "rm+", "--c", "2"},
	} {
		if code, _, stderr := gpump(t, append([]string{"solve", game}, args...)...); code != exitError || !strings.Contains(stderr, "applies to") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	// Values a method cannot mean are refused too.
	for _, args := range [][]string{{"--algo", "omwu", "--averaging", "step"}, {"--algo", "ga-bounded", "--c", "0"}, {"--algo", "omwu", "--eta", "-1"}} {
		if code, _, stderr := gpump(t, append([]string{"solve", game}, args...)...); code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	// A mistyped flag is one line.
	if code, _, stderr := gpump(t, "solve", game, "--epss", "1"); code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--epss") {
		t.Errorf("unknown flag: exit %d, %q", code, stderr)
	}

	// Batch: its --eta reaches the lines that use it; its --mmap the .npy
	// files only; a file named twice runs once.
	manifest := writeManifest(t, game+" --algo omwu\ngen:cyclic:n=3\n"+game+" --algo rm+\n")
	code, stdout, stderr := gpump(t, "batch", "--manifest", manifest, "--eta", "0.5", "--mmap", "--max-iter", "50")
	if code == exitError || strings.Count(stdout, "\n") != 3 {
		t.Errorf("batch-level flags: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, _ := gpump(t, "batch", game, game, filepath.Dir(game), "-q"); code != exitOK || strings.Count(stdout, "\n") != 1 {
		t.Errorf("the same file three ways: exit %d, %d lines", code, strings.Count(stdout, "\n"))
	}
	// Resume after a crash that cut the last line.
	out := filepath.Join(dir, "cut.jsonl")
	if code, _, _ := gpump(t, "batch", game, "gen:x", "-o", out, "-q"); code != exitError {
		t.Fatalf("exit %d", code)
	}
	b, _ := os.ReadFile(out)
	os.WriteFile(out, b[:len(b)-10], 0o644)
	if code, _, stderr := gpump(t, "batch", game, "-o", out, "--resume", "-q"); code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if lines := readLines(t, out); len(lines) != 1 || lines[0]["status"] != "converged" {
		t.Errorf("after resume: %v", lines)
	}
}

// TestDeviceCommands: devices, selftest and bench run their CPU parts, and
// --device cuda in a CPU build is one clear error.
func TestDeviceCommands(t *testing.T) {
	if code, stdout, _ := gpump(t, "devices"); code != exitOK || !strings.Contains(stdout, "cpu") {
		t.Errorf("devices: exit %d\n%s", code, stdout)
	}
	if code, stdout, stderr := gpump(t, "selftest", "--threads", "2"); code != exitOK || !strings.Contains(stdout, "0 failed") {
		t.Errorf("selftest: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := gpump(t, "bench", "--m", "200", "--n", "300", "--min-time", "20ms", "--json")
	var b map[string]any
	if code != exitOK || json.Unmarshal([]byte(stdout), &b) != nil || b["operator_gb_s"].(float64) <= 0 || b["peak_gb_s"].(float64) <= 0 {
		t.Errorf("bench: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, ok := openers["cuda"]; !ok {
		for _, args := range [][]string{
			{"solve", "--gen", "cyclic:n=3", "--device", "cuda"},
			{"selftest", "--device", "cuda"},
			{"bench", "--device", "cuda"},
		} {
			code, _, stderr := gpump(t, args...)
			if code != exitError || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "-tags cuda") {
				t.Errorf("%v: exit %d, %q", args, code, stderr)
			}
		}
	}
}

// TestSolveProblem: the paper's other settings from the command line, with
// the paper's rule by default and the error of the point against the known
// optimum.
func TestSolveProblem(t *testing.T) {
	for _, name := range []string{"lad-lasso", "capacity", "center"} {
		code, stdout, stderr := gpump(t, "solve", "--problem", name, "--max-iter", "300", "-q")
		if code != exitOK && code != exitLimit {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var o problemOutput
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatal(err)
		}
		if o.Problem != name || o.Algorithm != o.PaperRule || len(o.Solution) != o.Dim || o.Error < 0 || o.Error > o.Gap*(1+1e-9)+1e-12 {
			t.Errorf("%s: %+v", name, o)
		}
	}
	for _, args := range [][]string{
		{"--problem", "nosuch"}, {"--problem", "capacity", "--algo", "rm+"},
		{"--problem", "capacity", "--gen", "uniform"}, {"--problem", "capacity", "--setup", "euclidean"},
		{"--problem", "capacity", "--size", "-1"}, {"--problem", "capacity", "--m", "10"},
		{"--problem", "capacity", "--oracle", "sampled"}, {"--problem", "capacity", "--batch", "8"},
		{"--problem", "capacity", "--threads", "1"}, {"--problem", "capacity", "--sample-transposed"},
	} {
		if code, _, stderr := gpump(t, append([]string{"solve", "-q"}, args...)...); code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

// TestSolveSampled: the sampled oracle certifies with full passes only, and
// its flags are refused without it.
func TestSolveSampled(t *testing.T) {
	code, stdout, stderr := gpump(t, "solve", "--gen", "uniform:m=300,n=200", "--oracle", "sampled", "--batch", "32", "--gap-every", "50", "--eps", "2e-2", "--threads", "1", "-q")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	o := decode(t, stdout)
	if o.Oracle != "sampled" || o.Batch != 32 || o.GapPasses < 2 || o.GapPasses != o.MatrixPasses || o.RelativeGap > 2e-2 {
		t.Errorf("%+v", o)
	}
	for _, args := range [][]string{
		{"--batch", "8"}, {"--gap-every", "3"}, {"--oracle", "noisy"},
		{"--oracle", "sampled", "--algo", "prm+"}, {"--oracle", "sampled", "--batch", "-1"},
	} {
		if code, _, stderr := gpump(t, append([]string{"solve", "--gen", "cyclic:n=3", "-q"}, args...)...); code != exitError || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}
