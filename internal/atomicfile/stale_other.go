//go:build !unix

package atomicfile

import "os"

// lock does nothing here: without flock(2), stale temporaries are not
// told apart from live ones and are never removed.
func lock(*os.File) error { return nil }

// alive reports every process as alive, so that nothing is removed.
func alive(int) bool { return true }

func removeIfUnlocked(string) bool { return false }

// writable tries to open the file at path for writing; it is used only
// for devices and pipes.
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
