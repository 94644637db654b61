//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock takes the exclusive lock that marks f's writer as alive; it is
// released when f is closed or the process ends.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// alive reports whether process pid may exist: signal 0 is delivered
// (or refused for lack of permission) to a process that exists.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// removeIfUnlocked removes the file at path if it is this user's and
// nobody holds its lock, and reports whether it did.
func removeIfUnlocked(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	if lock(f) != nil {
		return false
	}
	return os.Remove(path) == nil
}

// writable reports whether this process may write to the file at path.
func writable(path string) error {
	return unix.Access(path, unix.W_OK)
}
