//go:build !mpi

package mpi

import (
	"fmt"
	"os"
)

// Enabled is false in the default build: World is a single rank.
const Enabled = false

var world = &World{}

// Init returns the single-rank World of a build without MPI.
func Init() (*World, error) { return world, nil }

// World is the job's ranks; in a build without MPI, this process alone.
// It implements shard.Comm.
type World struct{}

// Rank returns 0.
func (w *World) Rank() int { return 0 }

// Size returns 1.
func (w *World) Size() int { return 1 }

// LocalRank returns 0.
func (w *World) LocalRank() int { return 0 }

// LocalSize returns 1.
func (w *World) LocalSize() int { return 1 }

// Allgather copies send into recv.
func (w *World) Allgather(send, recv []float64, counts []int) {
	if len(counts) != 1 || len(send) != counts[0] || len(recv) != len(send) {
		panic(fmt.Sprintf("mpi: Allgather of %d into %d with counts %v on one rank", len(send), len(recv), counts))
	}
	copy(recv, send)
}

// Bcast leaves buf as it is: this rank is the root.
func (w *World) Bcast(buf []byte, root int) {
	if root != 0 {
		panic(fmt.Sprintf("mpi: Bcast from rank %d of 1", root))
	}
}

// Send panics: a single rank has no other to send to.
func (w *World) Send(b []byte, dest, tag int) {
	panic(fmt.Sprintf("mpi: Send to rank %d of 1", dest))
}

// Recv panics: a single rank has no other to receive from.
func (w *World) Recv(tag int) ([]byte, int) { panic("mpi: Recv on one rank") }

// Barrier returns at once.
func (w *World) Barrier() {}

// Abort ends the process with code, as MPI_Abort ends a job.
func (w *World) Abort(code int) { os.Exit(code) }

// Finalize does nothing.
func Finalize() error { return nil }

// Library is "" without MPI.
func Library() string { return "" }
