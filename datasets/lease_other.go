//go:build !linux

package datasets

import "runtime"

// Watch reports an error here: leases on files (fcntl F_SETLEASE) are
// Linux's. See the Linux documentation of Watch.
func (m *Mapped) Watch() (<-chan struct{}, error) {
	return nil, &dataError{file: m.path, msg: "cannot watch the file for changes on " + runtime.GOOS, off: -1}
}

func unwatch(*Mapped) {}
