//go:build unix

package datasets

import (
	"os"

	"golang.org/x/sys/unix"
)

// mmapSupported reports whether MapNPY can map files on this system.
const mmapSupported = true

// Advice for madvise.
const (
	adviceSequential = unix.MADV_SEQUENTIAL
	adviceNormal     = unix.MADV_NORMAL
)

// mmapFile maps the first length bytes of f read-only and shared.
func mmapFile(f *os.File, length int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, length, unix.PROT_READ, unix.MAP_SHARED)
}

// munmap unmaps b, returned by mmapFile.
func munmap(b []byte) error {
	return unix.Munmap(b)
}

// madvise gives the kernel advice about b, a mapping; it is only advice,
// so errors are ignored.
func madvise(b []byte, advice int) {
	unix.Madvise(b, advice)
}
