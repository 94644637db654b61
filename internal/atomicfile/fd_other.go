//go:build !unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// descriptor recognizes no path here.
func descriptor(string) (int, bool) { return 0, false }

func writableFD(int) error { return errors.ErrUnsupported }

func dupWriter(int, string) (*os.File, error) { return nil, errors.ErrUnsupported }

var errNoReader = errors.New("no reader")

// openFIFO opens path for writing.
func openFIFO(path string) (*os.File, error) { return os.OpenFile(path, os.O_WRONLY, 0) }

// protected returns ErrProtected for a read-only file.
func protected(fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return ErrProtected
	}
	return nil
}

func keepOwner(*os.File, fs.FileInfo) {}
