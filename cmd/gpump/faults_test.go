package main

// The fault-injection tests that run anywhere: outputs that are inputs or
// each other, batch inputs and --resume, temporaries created late. Those
// that need Linux (FIFOs, signals, a full disk, leases, a terminal) are in
// faults_linux_test.go; .ci/faults kills real processes.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpump/gpump/internal/atomicfile"
)

// TestSolveAliasing: an output that is the input or another output, by any
// path (a symbolic link, ./, a hard link, a file not yet created), is
// refused before any work with one line, and nothing is changed.
func TestSolveAliasing(t *testing.T) {
	dir := t.TempDir()
	game := writeMatrix(t, "good.npy", 2, 3, []float64{3, -1, 2, -2, 4, 1})
	gameDir := filepath.Dir(game)
	link := filepath.Join(dir, "link.npy")
	hard := filepath.Join(dir, "hard.npy")
	if err := os.Symlink(game, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(game, hard); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "link.svg")
	if err := os.Symlink(game, svg); err != nil {
		t.Fatal(err)
	}
	r := filepath.Join(dir, "r.json")
	st := filepath.Join(dir, "st.npz")
	prev := filepath.Join(t.TempDir(), "prev.json") // a warm start's result
	prevSt := filepath.Join(filepath.Dir(prev), "prev.npz")
	if code, _, stderr := gpump(t, "solve", game, "-o", prev, "--strategies", prevSt, "-q"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cases := [][]string{
		{game, "--init", prev, "-o", prev},
		{game, "--init", prev, "--strategies", prevSt}, // the archive the result names
		{game, "-o", game},
		{game, "-o", link},
		{game, "-o", hard},
		{link, "-o", game},
		{game, "-o", filepath.Join(gameDir, ".", "good.npy")},
		{game, "--trace", game},
		{game, "--plot", svg},
		{game, "-o", r, "--trace", r},
		{game, "-o", r, "--trace", filepath.Join(dir, "..", filepath.Base(dir), "r.json")},
		{game, "--strategies", st, "-o", st},
	}
	want, _ := os.ReadFile(game)
	for _, args := range cases {
		code, stdout, stderr := gpump(t, append([]string{"solve"}, args...)...)
		if code != exitError || stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "loaded") ||
			!strings.Contains(stderr, "would overwrite") && !strings.Contains(stderr, "same file") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if got, _ := os.ReadFile(game); !bytes.Equal(got, want) {
			t.Fatalf("%q changed the input", args)
		}
		if es, _ := os.ReadDir(dir); len(es) != 3 {
			t.Errorf("%q left %d entries in the directory", args, len(es))
		}
	}

	// Standard output appended to the input by the shell.
	f, err := os.OpenFile(game, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errOut bytes.Buffer
	if code := run(t.Context(), []string{"gpump", "solve", game}, f, &errOut); code != exitError || !strings.Contains(errOut.String(), "standard output") {
		t.Errorf(">> input: exit %d, %q", code, errOut.String())
	}
	if got, _ := os.ReadFile(game); !bytes.Equal(got, want) {
		t.Fatal(">> input: changed the input")
	}

	// Different files, and character devices shared by outputs, are fine.
	if code, _, stderr := gpump(t, "solve", game, "-o", "/dev/null", "--trace", "/dev/null", "--plot", filepath.Join(dir, "p.svg"), "--strategies", st, "-q"); code != exitOK {
		t.Errorf("distinct outputs: exit %d: %s", code, stderr)
	}
}

// TestLateTemporaries: during the solve the only temporary file is the
// trace's; the result, the strategies and the plot are created when they
// are written, and nothing is left behind.
func TestLateTemporaries(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	done := make(chan int)
	go func() {
		var out, errOut bytes.Buffer
		done <- run(ctx, []string{"gpump", "solve", "--gen", "uniform:m=200,n=200", "--eps", "0", "--max-iter", "100000000", "-q",
			"-o", filepath.Join(dir, "r.json"), "--strategies", filepath.Join(dir, "s.npz"),
			"--plot", filepath.Join(dir, "p.svg"), "--trace", filepath.Join(dir, "t.csv")}, &out, &errOut)
	}()
	seen := map[string]bool{}
	for running := true; running; {
		select {
		case code := <-done:
			if code != exitCanceled {
				t.Errorf("exit %d", code)
			}
			running = false
		case <-time.After(5 * time.Millisecond):
		}
		es, _ := os.ReadDir(dir)
		if ctx.Err() != nil { // the solve may be over: writing begins
			continue
		}
		// Before the solve, atomicfile.Check creates and removes a probe
		// temporary for each output: the solve has begun once the
		// trace's temporary is there.
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".t.csv.tmp-") {
				seen[e.Name()] = true
			}
		}
		if len(seen) == 0 {
			continue
		}
		for _, e := range es {
			if atomicfile.IsTemp(e.Name()) {
				seen[e.Name()] = true
			}
		}
	}
	if len(seen) == 0 {
		t.Error("the trace's temporary file was never seen during the solve")
	}
	for name := range seen {
		if !strings.HasPrefix(name, ".t.csv.tmp-") {
			t.Errorf("temporary %s existed during the solve", name)
		}
	}
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "p.svg r.json s.npz t.csv" {
		t.Errorf("after the solve: %q", names)
	}
}

// TestBatchAliasing: batch refuses an output that is one of its inputs (a
// file argument, a file of an input directory, the manifest or a file it
// names), before any work and without touching it.
func TestBatchAliasing(t *testing.T) {
	dir := t.TempDir()
	g1, g2 := filepath.Join(dir, "g1.npy"), filepath.Join(dir, "g2.npy")
	writeAt(t, g1, 2, 2, []float64{1, -1, -1, 1})
	writeAt(t, g2, 2, 2, []float64{2, 0, 0, 1})
	manifest := filepath.Join(dir, "m.txt")
	os.WriteFile(manifest, []byte("g2.npy --algo rm+\n"), 0o644)
	link := filepath.Join(dir, "link.npy")
	os.Symlink(g1, link)
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{g1, g2, "-o", g1},
		{dir, "-o", g1},
		{dir, "-o", link},
		{g1, "--resume", "-o", g1},
		{g2, "--resume", "-o", g1},
		{"--manifest", manifest, "-o", manifest},
		{"--manifest", manifest, "-o", g2},
	} {
		code, stdout, stderr := gpump(t, append([]string{"batch"}, args...)...)
		if code != exitError || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "would overwrite") && !strings.Contains(stderr, "not the output of gpump batch") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if after := snapshot(t, dir); after != before {
			t.Fatalf("%q changed the directory:\n%s\nwas\n%s", args, after, before)
		}
	}
}

// snapshot describes the files of dir and their contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		c, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256(c))
	}
	return b.String()
}

// TestBatchResumeForeign: --resume refuses a file that is not batch
// output, whatever its last line, and changes nothing in it; a result cut
// short by a crash is removed, and a whole last result without its line
// end is kept.
func TestBatchResumeForeign(t *testing.T) {
	dir := t.TempDir()
	game := filepath.Join(dir, "g.npy")
	writeAt(t, game, 2, 2, []float64{1, -1, -1, 1})
	for _, text := range []string{
		"# notes\nsome text",
		"# notes\nsome text\n",
		`{"instance":"x"}` + "\n",
		`{"a": 1}`,
		"\n",
	} {
		notes := filepath.Join(dir, "notes.md")
		os.WriteFile(notes, []byte(text), 0o644)
		code, _, stderr := gpump(t, "batch", game, "--resume", "-o", notes)
		if got, _ := os.ReadFile(notes); code != exitError || string(got) != text || !strings.Contains(stderr, "not the output of gpump batch") {
			t.Errorf("%q: exit %d, %q, file now %q", text, code, stderr, got)
		}
	}
	out := filepath.Join(dir, "out.jsonl")
	if code, _, stderr := gpump(t, "batch", game, "gen:identity:n=2", "-o", out, "-q"); code != exitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	whole, _ := os.ReadFile(out)
	// Cut 1 byte: the line end of the last result, which is kept; cut 20:
	// the last result is removed. Either way the failed instance is retried.
	for cut, want := range map[int]int{1: 3, 20: 2} {
		os.WriteFile(out, whole[:len(whole)-cut], 0o644)
		if code, _, stderr := gpump(t, "batch", game, "gen:identity:n=2", "-o", out, "--resume", "-q"); code != exitError {
			t.Fatalf("cut %d: exit %d: %s", cut, code, stderr)
		}
		lines := readLines(t, out)
		if len(lines) != want || lines[0]["status"] != "converged" || lines[want-1]["status"] != "error" {
			t.Errorf("cut %d: %v", cut, lines)
		}
	}
}

// TestBatchListing: a file reached by several paths runs once; hidden
// files, batch results files and the batch's own output in an input
// directory are not read.
func TestBatchListing(t *testing.T) {
	dir := t.TempDir()
	g1 := filepath.Join(dir, "g1.npy")
	writeAt(t, g1, 2, 2, []float64{1, -1, -1, 1})
	other := t.TempDir()
	os.Symlink(g1, filepath.Join(other, "a.npy"))
	os.Link(g1, filepath.Join(other, "b.npy"))
	res := filepath.Join(dir, "results.txt")
	os.WriteFile(res, nil, 0o644)
	code, stdout, stderr := gpump(t, "batch", dir, other, g1, filepath.Join(other, "a.npy"), "-o", res)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "left out "+res+": it is this batch's output") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := readLines(t, res); len(lines) != 1 {
		t.Errorf("%d results for one file reached four ways", len(lines))
	}
	writeAt(t, filepath.Join(dir, ".hidden.npy"), 2, 2, []float64{1, 2, 3, 4})
	code, stdout, stderr = gpump(t, "batch", dir)
	if code != exitOK || strings.Count(stdout, "\n") != 1 || !strings.Contains(stderr, "left out "+res+": it holds gpump batch results") {
		t.Errorf("second run: exit %d\n%s%s", code, stdout, stderr)
	}
}
