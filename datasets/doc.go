// Package datasets reads, writes, validates and generates payoff matrices
// for two-player zero-sum matrix games.
//
// A payoff matrix A is an m×n *tensor.Dense (gorgonia.org/tensor) of dtype
// tensor.Float64 or tensor.Float32, stored row-major: entry (i, j) is at
// index i*n+j of the backing slice. The row player chooses a mixed strategy
// p over the m rows and maximizes pᵀAq; the column player chooses q over the
// n columns and minimizes it.
//
// # Files
//
// Matrices are exchanged as NumPy .npy files (format versions 1.0, 2.0 and
// 3.0). ReadNPY and DecodeNPY accept 2-D arrays of float64, float32, the
// signed and unsigned integer types of 1, 2, 4 and 8 bytes and bool, in
// either byte order and in C or Fortran order; the result is always
// row-major. Every entry must be finite: a NaN or ±Inf entry is an error
// naming its (row, column) position. WriteNPY and EncodeNPY write format
// 1.0, little-endian, C order files that NumPy's np.load reads.
//
// Reading is designed for matrices of billions of entries: the payload is
// read in chunks of a few MiB straight into the result's backing array
// (or, when converting between types, through small reusable buffers), so
// the peak memory is about the size of the result, and each chunk is
// checked while a second goroutine reads the next. The element count
// claimed by a header is checked against the size of the input before
// anything is allocated. On Linux, large results are backed by
// transparent huge pages (madvise), which makes filling them faster.
//
// Errors returned by this package have messages prefixed "datasets: ".
// Errors about malformed or unsupported data match ErrFormat and errors
// about NaN or infinite entries match ErrNotFinite under errors.Is.
//
// # Generators
//
// The generators (Uniform, Gaussian, Identity, Cyclic, Saddle, Nemirovski,
// PoliceBurglar) build classic test games directly in float64 or float32.
// Random generators are seeded and deterministic: row i is drawn from its
// own stream rand.New(rand.NewPCG(seed, uint64(i))) of math/rand/v2, so the
// result does not depend on GOMAXPROCS although rows are filled in parallel,
// and the Float32 matrix is the Float64 matrix rounded to float32 (except
// where a doc comment says otherwise).
package datasets
