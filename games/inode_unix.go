//go:build unix

package games

import (
	"os"
	"syscall"
)

// inodeKey returns the device and inode of fi, a file's FileInfo, as a map
// key; ok is false where the system does not give them.
func inodeKey(fi os.FileInfo) (key [2]uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return key, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
