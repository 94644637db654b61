package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// outFile is an output file that appears complete or not at all: it is
// written to a temporary file in the same directory, synced, and renamed
// over its path by commit. Opening it before a long solve makes a bad path
// fail at once instead of after the work. A symbolic link is followed (its
// target is replaced, the link kept), and a device, pipe or socket
// (/dev/stdout, a FIFO) is written in place, since renaming over it would
// replace it.
type outFile struct {
	*os.File
	path   string // the final path, links followed
	direct bool   // written in place
	done   bool
}

// createOut opens the temporary file of an output.
func createOut(path string) (*outFile, error) {
	real := followLinks(path)
	if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
		f, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &outFile{File: f, path: real, direct: true}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &outFile{File: f, path: real}, nil
}

// commit moves the finished file into place.
func (o *outFile) commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.direct {
		return o.Close()
	}
	err := o.Chmod(0o644) // CreateTemp makes 0600; an output is an ordinary file
	if err == nil {
		err = o.Sync()
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.Name())
		return err
	}
	// Make the rename durable; not every system can sync a directory.
	if d, err := os.Open(filepath.Dir(o.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// abort removes an output that was not committed; after commit it does
// nothing, so it can be deferred.
func (o *outFile) abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	o.Close()
	if !o.direct {
		os.Remove(o.Name())
	}
}

// followLinks returns the file a chain of symbolic links at path points to,
// which need not exist yet, or path itself.
func followLinks(path string) string {
	for range 40 { // the limit of Linux's own resolution
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path
		}
		t, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return path
}
