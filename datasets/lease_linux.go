package datasets

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Watch takes a read lease on the mapped file (fcntl F_SETLEASE, Linux) and
// returns a channel that is closed when another process opens the file for
// writing or truncates it. That process is held back until Close releases
// the lease, or for the system's lease-break time
// (/proc/sys/fs/lease-break-time, 45 s by default): stop using the matrix
// and Close the Mapped within it. The lease is taken on the file as it is
// when Watch is called.
//
// A lease needs the file to belong to this user (or the CAP_LEASE
// capability), a filesystem that supports leases (not NFS), and no process
// holding the file open for writing; otherwise Watch returns an error and
// nothing is watched. Lease breaks are signaled with SIGIO, which Watch
// starts to receive (os/signal) so that it does not end the program.
func (m *Mapped) Watch() (<-chan struct{}, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mem == nil {
		return nil, &dataError{file: m.path, msg: "watching a closed mapping", off: -1}
	}
	if m.changed != nil {
		return m.changed, nil
	}
	startLeases()
	fd := int(m.f.Fd())
	if err := fcntlRetry(fd, unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		return nil, &dataError{file: m.path, msg: "cannot watch the file for changes (a read lease)", off: -1, cause: err}
	}
	m.changed, m.leased = make(chan struct{}), true
	leases.Lock()
	leases.m[m] = true
	leases.Unlock()
	return m.changed, nil
}

// leases are the mappings under a lease.
var leases struct {
	sync.Mutex
	m    map[*Mapped]bool
	once sync.Once
}

// startLeases starts the goroutine that receives SIGIO and closes the
// channels of the mappings whose lease is being broken.
func startLeases() {
	leases.once.Do(func() {
		leases.m = map[*Mapped]bool{}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGIO)
		go func() {
			for range sig {
				leases.Lock()
				for m := range leases.m {
					// While a break is pending, F_GETLEASE gives the
					// lease it is broken to: F_UNLCK.
					if t, err := unix.FcntlInt(m.f.Fd(), unix.F_GETLEASE, 0); err == nil && t != unix.F_RDLCK {
						close(m.changed)
						delete(leases.m, m)
					}
				}
				leases.Unlock()
			}
		}()
	})
}

// unwatch forgets m, whose file is being closed.
func unwatch(m *Mapped) {
	leases.Lock()
	delete(leases.m, m)
	leases.Unlock()
}

func fcntlRetry(fd, cmd, arg int) error {
	for {
		_, err := unix.FcntlInt(uintptr(fd), cmd, arg)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
