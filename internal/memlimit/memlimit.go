// Package memlimit says whether the process can hold a matrix: the machine's
// memory, the memory available, the room under its control group's limit
// and under ulimit -v. Allocating a matrix beyond them would end the
// process with the runtime's "out of memory" and a dump of every goroutine,
// or with the kernel's SIGKILL and no word at all; refused, it is one line.
package memlimit

import "fmt"

// Limit is a bound on the memory the process may still take, in bytes,
// and what it is, in words.
type Limit struct {
	Bytes uint64
	What  string
}

// Margin is what a matrix needs on top of its entries: the runtime's
// own (its heap grows in 64 MiB arenas, and the address space an
// allocation reserves is larger than the allocation), the strategies and
// the buffers of the read (4000×4000 float64, 128 MB, needed 250 MB more
// address space than the process had mapped, measured with ulimit -v).
const Margin = 192 << 20

// Check refuses a matrix of m×n entries of size bytes that the
// process cannot hold: one that needs more than the machine's memory, the
// memory available now, the room under its control group's limit or under
// ulimit -v (see Limits). Allocating it would end the process with
// the runtime's "out of memory" and a dump of every goroutine, or with
// the kernel's SIGKILL and no word at all; refused, it is one line and
// exit status 1.
func Check(m, n, size int) error {
	return CheckBytes(m, n, float64(m)*float64(n)*float64(size))
}

// SolveVectors bounds the float64 vectors of length m + n a solve holds
// (strategies, their averages, the products A q and Aᵀp, the best points):
// for a tall matrix (3·10⁹×1) they, not the entries, are what counts.
const SolveVectors = 16

// CheckSolve is Check for a solve: the matrix and its vectors.
func CheckSolve(m, n, size int) error {
	return CheckBytes(m, n, float64(m)*float64(n)*float64(size)+SolveVectors*8*(float64(m)+float64(n)))
}

// CheckBytes refuses an m×n matrix whose work needs need bytes.
func CheckBytes(m, n int, need float64) error {
	for _, l := range Limits() {
		if need+Margin > float64(l.Bytes) {
			return fmt.Errorf("a %d×%d matrix needs %s (and %s more to work), more than %s", m, n, gb(uint64(need)), gb(Margin), l.What)
		}
	}
	return nil
}

// gb writes a number of bytes in GB, or MB below 1 GB.
func gb(b uint64) string {
	if b < 1e9 {
		return fmt.Sprintf("%.0f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(b)/1e9)
}
