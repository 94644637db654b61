//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gpump/gpump/internal/atomicfile"
)

// fullDiskEnv makes the test binary run the command of its arguments, its
// files unable to grow beyond the variable's value in bytes (RLIMIT_FSIZE):
// writes past it fail as on a full disk.
const fullDiskEnv = "GPUMP_TEST_FILE_LIMIT"

func TestMain(m *testing.M) {
	if limit := os.Getenv(fullDiskEnv); limit != "" {
		n, _ := strconv.ParseUint(limit, 10, 64)
		syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		os.Exit(run(context.Background(), append([]string{"gpump"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestFullDisk: when an output cannot be written (the disk is full), the
// command says so in one line and exits with status 1, and the previous
// content of every output is intact, with no temporary file left.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	r, s := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.npz")
	for _, p := range []string{r, s} {
		os.WriteFile(p, []byte("previous\n"), 0o644)
	}
	// A batch's previous results: appended to, never lost.
	res := filepath.Join(dir, "res.jsonl")
	manifest := writeManifest(t, strings.Repeat("gen:cyclic:n=3\n", 60))
	if code, _, stderr := gpump(t, "batch", "gen:cyclic:n=3", "-o", res, "-q"); code != exitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(res)
	for _, c := range []struct {
		args []string
		kept map[string]string
	}{
		{[]string{"solve", "--gen", "uniform:m=3000,n=20", "--algo", "rm+", "--eps", "1e-2", "-o", r, "-q"}, map[string]string{r: "previous\n"}},
		{[]string{"solve", "--gen", "uniform:m=3000,n=20", "--algo", "rm+", "--eps", "1e-2", "-o", r, "--strategies", s, "-q"}, map[string]string{r: "previous\n", s: "previous\n"}},
		{[]string{"batch", "--manifest", manifest, "-o", res, "--resume", "-q"}, nil},
	} {
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Env = append(os.Environ(), fullDiskEnv+"=16384")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if code != exitError || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "file too large") ||
			strings.Contains(stderr.String(), ".tmp-") {
			t.Errorf("%s: exit %d (%v), stderr %q", c.args[0], code, err, stderr.String())
		}
		for p, want := range c.kept {
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("%s: %s now holds %.40q", c.args[0], p, b)
			}
		}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if atomicfile.IsTemp(e.Name()) {
				t.Errorf("%s: temporary %s left", c.args[0], e.Name())
			}
		}
	}
	// The batch kept its previous results, and resumes to the end once
	// there is room.
	if b, _ := os.ReadFile(res); !bytes.HasPrefix(b, before) {
		t.Errorf("the previous results were changed")
	}
	if code, _, stderr := gpump(t, "batch", "--manifest", manifest, "-o", res, "--resume", "-q"); code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	lines := readLines(t, res)
	seen := map[float64]int{}
	for _, l := range lines[1:] {
		seen[l["index"].(float64)]++
	}
	if len(seen) != 60 || lines[0]["status"] != "error" {
		t.Errorf("%d instances after the resume", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("instance %v: %d results", k, n)
		}
	}
}
