//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errLocked is lockOutput's error when another process holds the lock.
var errLocked = errors.New("locked")

// lockOutput takes an exclusive advisory lock (flock(2)) on f, the results
// file of a batch, held until f is closed or the process ends: one writer
// per results file.
func lockOutput(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}
