//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// descriptor returns the descriptor of this process that path names, if
// it names one that is open: /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N, /proc/thread-self/fd/N or /proc/PID/fd/N with this
// process's PID.
func descriptor(path string) (int, bool) {
	path = filepath.Clean(path)
	fd := -1
	switch path {
	case "/dev/stdout":
		fd = 1
	case "/dev/stderr":
		fd = 2
	default:
		dir, num := filepath.Split(path)
		switch dir {
		case "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/":
		default:
			return 0, false
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || strings.HasPrefix(num, "+") {
			return 0, false
		}
		fd = n
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil {
		return 0, false // not open: an ordinary path, which will fail
	}
	return fd, true
}

// writableFD reports whether descriptor fd is open for writing.
func writableFD(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		return syscall.EBADF
	}
	return nil
}

// dupWriter returns a duplicate of descriptor fd, named name, checked
// writable: writes share its offset with the descriptor's other users.
func dupWriter(fd int, name string) (*os.File, error) {
	if err := writableFD(fd); err != nil {
		return nil, err
	}
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), name), nil
}

// errNoReader is openFIFO's error for a FIFO without a reader.
var errNoReader = errors.New("no reader")

// openFIFO opens the FIFO at path for writing without waiting for a
// reader: errNoReader if there is none yet.
func openFIFO(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, errNoReader
	}
	return f, err
}

// protected returns ErrProtected for a file, of info fi, that this
// process's user does not own or whose mode denies its owner writing,
// decided from the mode and owner alone: root may write any file.
func protected(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o200 == 0 {
		return ErrProtected
	}
	return nil
}

// keepOwner gives f the owner and group of the file it replaces, of info
// old, where they differ from the process's and it may (root may; a user
// may give its own file one of its groups); failures leave f as it is.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		return
	}
	if f.Chown(int(st.Uid), int(st.Gid)) != nil {
		f.Chown(-1, int(st.Gid))
	}
}
