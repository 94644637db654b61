package datasets

// hugeAlloc is the size from which allocations of matrices ask the
// operating system for huge pages.
const hugeAlloc = 8 << 20

// makeFloats returns a new zeroed []T of length n. Large slices are
// advised to use huge pages where the system supports it, which makes
// the page faults of filling a large matrix several times cheaper.
func makeFloats[T float](n int) []T {
	s := make([]T, n)
	if b := bytesOf(s); len(b) >= hugeAlloc {
		adviseHugePages(b)
	}
	return s
}
