package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tempPID returns the process id in the name of a temporary file of this
// package (".NAME.tmp-PID-RANDOM"), and whether name is one.
func tempPID(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	k := strings.LastIndex(name, tempSuffix)
	if k < 2 {
		return 0, false
	}
	pid, random, ok := strings.Cut(name[k+len(tempSuffix):], "-")
	if !ok || !digits(pid) || !digits(random) {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsTemp reports whether name (a base name) has the form of this package's
// temporary files, whether or not their writer is alive.
func IsTemp(name string) bool {
	_, ok := tempPID(name)
	return ok
}

// CleanStale removes from dir the temporary files of this package whose
// writer is gone: a regular file of this user, named by IsTemp, whose
// process no longer exists and which nobody holds locked. It returns the
// paths it removed; errors (an unreadable directory, say) leave files in
// place and are not reported, since cleaning up is a courtesy.
func CleanStale(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, ok := tempPID(e.Name())
		if !ok || !e.Type().IsRegular() || alive(pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if removeIfUnlocked(path) {
			removed = append(removed, path)
		}
	}
	return removed
}
