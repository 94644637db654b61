//go:build !mpi

package mpi_test

import (
	"fmt"

	"github.com/gpump/gpump/mpi"
)

// A program joins the job, learns its rank, and leaves; run without a
// launcher (or built without the tag mpi) it is rank 0 of 1.
func ExampleInit() {
	w, err := mpi.Init()
	if err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	fmt.Printf("rank %d of %d\n", w.Rank(), w.Size())
	// Output:
	// rank 0 of 1
}
