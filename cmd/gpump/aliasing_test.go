package main

import (
	"bytes"
	"context"
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
	cases := [][]string{
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
	ctx, cancel := context.WithTimeout(t.Context(), 400*time.Millisecond)
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
