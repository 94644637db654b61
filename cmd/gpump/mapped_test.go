package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// bigGame writes a game large enough for a solve to run a while.
func bigGame(t *testing.T) string {
	t.Helper()
	a, err := datasets.Generate(tensor.Float64, mustSpec(t, "uniform:m=600,n=600,seed=2"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.npy")
	if err := datasets.WriteNPY(path, a); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMmapTruncated: a truncation of the mapped file during the solve
// stops it (the lease holds the truncation back until the matrix is
// released), writes the best certified point, and exits with status 1 and
// one line; without a lease, a fault reading the matrix on one thread is an
// error, not a crash.
func TestMmapTruncated(t *testing.T) {
	for _, lease := range []bool{true, false} {
		path := bigGame(t)
		out := filepath.Join(t.TempDir(), "r.json")
		var writer *os.File
		if !lease {
			// A writer keeps the lease from being taken.
			var err error
			if writer, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
				t.Fatal(err)
			}
		}
		truncated := make(chan error, 1)
		go func() {
			time.Sleep(500 * time.Millisecond)
			if writer != nil {
				truncated <- writer.Truncate(100)
				return
			}
			truncated <- os.Truncate(path, 100)
		}()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"gpump", "solve", path, "--mmap", "--threads", "1", "--eps", "0",
			"--max-iter", "100000000", "-o", out, "-q"}, &stdout, &stderr)
		if err := <-truncated; err != nil {
			t.Fatal(err)
		}
		if writer != nil {
			writer.Close()
		}
		lines := strings.Count(stderr.String(), "\n")
		if code != exitError || lines != 1 {
			t.Errorf("lease %v: exit %d, %q", lease, code, stderr.String())
		}
		b, err := os.ReadFile(out)
		switch {
		case lease && (err != nil || decode(t, string(b)).Status != "canceled" || decode(t, string(b)).Iterations < 1):
			t.Errorf("lease: result %s, %v", b, err)
		case !lease && (err == nil || !strings.Contains(stderr.String(), "faulted")):
			t.Errorf("no lease: result %s, stderr %q", b, stderr.String())
		}
	}
}
