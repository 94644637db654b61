//go:build !unix

package datasets

import (
	"errors"
	"os"
)

// mmapSupported reports whether MapNPY can map files on this system.
const mmapSupported = false

// Advice for madvise (unused here).
const (
	adviceSequential = 0
	adviceNormal     = 0
)

var errNoMmap = errors.New("memory mapping is not supported on this system")

func mmapFile(*os.File, int) ([]byte, error) { return nil, errNoMmap }

func munmap([]byte) error { return errNoMmap }

func madvise([]byte, int) {}
