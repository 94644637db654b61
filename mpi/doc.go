// Package mpi is gpump's link to MPI, the engine that launches and
// connects the ranks of a job (mpirun, srun, the Kubernetes MPI Operator):
// Init joins the job and returns its World, a shard.Comm.
//
// Built with the tag mpi, the package calls the MPI C library through cgo
// (build with CC=mpicc, which supplies mpi.h and -lmpi for Open MPI and
// MPICH alike: on Debian, apt-get install openmpi-bin libopenmpi-dev, then
// CC=mpicc go build -tags mpi). Without the tag it is pure Go and World is
// a single rank, so that the same caller code builds both ways; an MPI
// build run without a launcher is a single rank too (MPI's singleton
// start).
//
// # Why a thin cgo layer and no Go binding
//
// gpump needs a handful of calls: MPI_Init_thread, MPI_Comm_rank and
// MPI_Comm_size, MPI_Allgatherv and MPI_Bcast, MPI_Barrier, MPI_Abort,
// MPI_Finalize, and MPI_Get_library_version for the version line. The Go bindings found were either unmaintained for years
// (github.com/yoo/go-mpi, formerly JohannWeging/go-mpi: no release) or part
// of a large module whose other packages gpump would carry in its go.sum
// (cogentcore.org/lab/base/mpi, BSD-3-Clause). A file of cgo over the
// standard C API builds against any MPI that has mpicc, adds no Go
// dependency, and its licence is gpump's own; Open MPI (BSD-3-Clause-style)
// and MPICH (a permissive licence) are linked dynamically.
//
// # Reductions
//
// MPI_Allreduce is deliberately not offered: its order of summation is the
// implementation's, so its sums may differ between runs and between ranks.
// Package shard gathers the ranks' partial sums (MPI_Allgatherv) and adds
// them on every rank in rank order, which makes a solve reproducible bit
// for bit for a given number of ranks.
//
// # Failures
//
// MPI's default error handler (MPI_ERRORS_ARE_FATAL) stays in place: a
// collective that fails, for instance because a rank died, ends the whole
// job, which is what a solve with a rank missing must do. Abort ends it on
// purpose, from any rank.
package mpi
