//go:build !mpi

package mpi_test

import (
	"testing"

	"github.com/gpump/gpump/mpi"
	"github.com/gpump/gpump/shard"
)

var _ shard.Comm = (*mpi.World)(nil)

// TestSingle: without MPI the World is one rank whose gather copies and
// whose broadcast leaves the buffer as it is.
func TestSingle(t *testing.T) {
	w, err := mpi.Init()
	if err != nil {
		t.Fatal(err)
	}
	if mpi.Enabled || w.Rank() != 0 || w.Size() != 1 || mpi.Library() != "" {
		t.Fatalf("enabled %v, rank %d of %d, library %q", mpi.Enabled, w.Rank(), w.Size(), mpi.Library())
	}
	recv := make([]float64, 3)
	w.Allgather([]float64{1, 2, 3}, recv, []int{3})
	if recv[0] != 1 || recv[1] != 2 || recv[2] != 3 {
		t.Errorf("gathered %v", recv)
	}
	buf := []byte{7}
	w.Bcast(buf, 0)
	if buf[0] != 7 {
		t.Errorf("broadcast changed the root's buffer to %v", buf)
	}
}
