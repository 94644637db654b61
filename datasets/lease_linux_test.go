package datasets

import (
	"os"
	"testing"
	"time"
)

// TestWatch: a truncation of a watched mapping's file closes the channel and
// waits for Close, so that the matrix is never read from a truncated file.
func TestWatch(t *testing.T) {
	mp, path := mapTemp(t, 64, 64)
	changed, err := mp.Watch()
	if err != nil {
		t.Skipf("no lease here: %v", err)
	}
	truncated := make(chan error, 1)
	go func() { truncated <- os.Truncate(path, 10) }()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the truncation was not signaled")
	}
	// The truncation waits for the lease: the matrix is still whole.
	if sum := sumOf(mp.Dense().Data().([]float64)); sum == 0 {
		t.Error("read zeros")
	}
	select {
	case err := <-truncated:
		t.Fatalf("the truncation went ahead under the lease: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := mp.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-truncated:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the truncation still waits after Close")
	}
	if fi, _ := os.Stat(path); fi.Size() != 10 {
		t.Errorf("size %d after the truncation", fi.Size())
	}
}

func sumOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}
