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
// Read and Write choose the format from the file's extension, or from
// ReadOptions.Format and WriteOptions.Format:
//
//	format         read  write  notes
//	.npy           yes   yes    f8, f4, integer and bool dtypes, either byte order, C or Fortran order; MapNPY maps one read-only
//	.npz           yes   yes    stored or deflated (numpy.savez, savez_compressed); one member, or the one named by Key
//	.csv .tsv .txt yes   yes    dense rows, comma or whitespace separated, optional header row, '#' comments
//	.mtx           yes   no     Matrix Market array and coordinate; real, integer, pattern; general, symmetric, skew-symmetric
//
// ReadNPY and DecodeNPY accept 2-D .npy arrays (format versions 1.0, 2.0
// and 3.0) of float64, float32, the signed and unsigned integer types of
// 1, 2, 4 and 8 bytes and bool, in either byte order and in C or Fortran
// order; the result is always row-major. WriteNPY and EncodeNPY write
// format 1.0 files that NumPy's np.load reads, little-endian and C order
// unless WriteOptions asks for big-endian or Fortran order.
//
// ReadNPZ reads a member of a zip archive as numpy writes them, stored or
// deflated; WriteNPZ writes any number of 1-D or 2-D arrays (strategies,
// say) and WriteNPZMatrix one matrix. A member's claimed size is checked
// against the archive before anything is allocated (a deflated member may
// claim at most 1032 times its compressed size, deflate's limit), and its
// CRC is always checked.
//
// ReadCSV reads dense rows separated by commas, or by runs of spaces and
// tabs when the first data row holds no comma. A first line with a field
// that is not a number is a header and is skipped; blank lines, lines
// starting with '#', quotes around fields, CRLF line ends and a byte-order
// mark are accepted. WriteCSV writes the shortest decimal form that reads
// back to the same float, so round trips are exact.
//
// ReadMTX reads the Matrix Market exchange format of NIST: the array
// format (column-major values) and the coordinate format (1-based "i j
// value" lines; entries not given are zero), with real, integer or
// pattern (entries of 1) fields and general, symmetric or skew-symmetric
// symmetry (mirrored, negated for skew). Duplicate coordinate entries are
// summed, as scipy.io.mmread(...).toarray() does; array files hold one
// value per line. Complex and Hermitian matrices are refused.
//
// Every entry must be finite: a NaN or ±Inf entry is an error naming its
// (row, column) position, and for text files its line. Every reader caps
// what a header may claim (dimensions, entry counts, member sizes) against
// the real size of its input before allocating, so a hostile header
// cannot make it allocate more than the input can fill. Where the input
// does not bound the result (the dense result of a Matrix Market
// coordinate file, which a few bytes can describe; a pipe or a device of
// unknown size), it is capped by the machine's memory (MemTotal, or 2³¹
// entries where unknown), so that an endless input ends in an error, and
// a text line by 1 GiB and a sixteenth of that memory. Errors name the
// file and, where it applies, the byte offset, or the line and column of a
// text file.
//
// Reading .npy is designed for matrices of billions of entries: the
// payload is read in chunks of a few MiB straight into the result's
// backing array (or, when converting between types, through small
// reusable buffers), so the peak memory is about the size of the result,
// and each chunk is checked while a second goroutine reads the next. On
// Linux, large results are backed by transparent huge pages (madvise),
// which makes filling them faster. For matrices near the size of RAM,
// MapNPY maps a little-endian C-order float64 or float32 file read-only
// instead (Unix only): the operating system then pages the matrix in and
// out. MapNPY checks every entry once, in parallel, when opening; the
// tensor from Mapped.Dense is backed by the mapping, so writing to it
// faults, it must not be used after Close, and the file must not change
// while it is mapped.
//
// Errors returned by this package have messages prefixed "datasets: ".
// Errors about malformed or unsupported data match ErrFormat and errors
// about NaN or infinite entries match ErrNotFinite under errors.Is.
//
// # Generators
//
// The generators (Uniform, Gaussian, Identity, Cyclic, Saddle, Nemirovski,
// PoliceBurglar, PoliceBurglarGrid, RankOne, LowRank) build classic test games
// directly in float64 or float32. GenSpec names a generator and its
// parameters, ParseGenSpec reads one from text such as
// "police:n=400,layout=grid", and Generate builds it; GenSpec.Value gives
// the value of the game where it is known in closed form.
//
// Random generators are seeded and deterministic: row i is drawn from its
// own stream rand.New(rand.NewPCG(seed, uint64(i))) of math/rand/v2, so the
// result does not depend on GOMAXPROCS although rows are filled in
// parallel, and the Float32 matrix is the Float64 matrix rounded to float32
// (except where a doc comment says otherwise). Draws shared by all rows
// (Saddle's saddle point, RankOne's and LowRank's column factors) come from the stream
// (seed, math.MaxUint64). Products are rounded before they are added, so
// that compilers that fuse multiply-adds (arm64, GOAMD64=v3) give the same
// matrix.
package datasets
