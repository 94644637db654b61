package datasets

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"sync"
)

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

// fallbackEntries is the limit on the entries of a result when the size of
// the machine's memory is unknown.
const fallbackEntries = 1 << 31

// entryLimit returns the largest number of entries of esize bytes that a
// result whose size the input does not bound (a Matrix Market coordinate
// file, a stream) may have, and what the limit is, for error messages ("more than
// ..."). The limit is the machine's memory, or 2³¹ entries where its size
// is unknown, and at most what the platform can index. It is a variable
// so that tests can lower it.
var entryLimit = func(esize int) (int64, string) {
	limit := int64(math.MaxInt / 8)
	why := "this platform can index"
	if mem := memTotal(); mem > 0 {
		if l := mem / int64(esize); l < limit {
			limit = l
			why = fmt.Sprintf("this machine's memory holds as %s (MemTotal %s in /proc/meminfo)", esizeName(esize), byteString(mem))
		}
	} else if fallbackEntries < limit {
		limit = fallbackEntries
		why = fmt.Sprintf("the limit of %d entries (the size of this machine's memory is unknown)", limit)
	}
	return limit, why
}

// memTotal returns the size of the machine's memory in bytes from the
// MemTotal line of /proc/meminfo, or 0 where that is not available.
var memTotal = sync.OnceValue(func() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		rest, ok := bytes.CutPrefix(line, []byte("MemTotal:"))
		if !ok {
			continue
		}
		var f [3][]byte
		nf := mtxFields(rest, f[:])
		if nf != 2 || !bytes.Equal(f[1], []byte("kB")) {
			return 0
		}
		kb, ok := parseMTXCount(f[0])
		if !ok || kb > math.MaxInt64/1024 {
			return 0
		}
		return kb * 1024
	}
	return 0
})
