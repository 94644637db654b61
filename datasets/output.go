package datasets

import (
	"fmt"
	"os"
	"path/filepath"
)

// Output is an output file that appears complete or not at all: it is
// written to a temporary file in the directory of its path, and Commit
// syncs it, makes it mode 0644 and renames it over the path. A symbolic
// link at the path is followed, so that its target is replaced and the
// link kept; a device, a pipe or a socket (/dev/stdout, a FIFO) is written
// in place, since renaming over it would replace it. Creating it before a
// long computation makes a bad path fail at once instead of after the work.
//
// The embedded *os.File is the temporary file: write to it, but close it
// only through Commit or Abort.
type Output struct {
	*os.File
	path   string // the final path, links followed
	direct bool   // written in place
	done   bool
}

// CreateOutput creates the temporary file of the output at path. A path
// that is a directory is an error.
func CreateOutput(path string) (*Output, error) {
	real := followLinks(path)
	if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, &dataError{file: path, msg: "is a directory", off: -1}
		}
		f, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("datasets: %w", err)
		}
		return &Output{File: f, path: real, direct: true}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	return &Output{File: f, path: real}, nil
}

// Path returns the path the output is committed to, symbolic links
// followed.
func (o *Output) Path() string { return o.path }

// Commit moves the finished file into place. After Commit or Abort it does
// nothing and returns nil. On error the temporary file is removed and the
// path keeps its old content.
func (o *Output) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.direct {
		if err := o.Close(); err != nil {
			return fmt.Errorf("datasets: %w", err)
		}
		return nil
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
		return fmt.Errorf("datasets: %w", err)
	}
	// Make the rename durable. Not every system can sync a directory, so
	// failures are ignored.
	if d, err := os.Open(filepath.Dir(o.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes an output that was not committed. After Commit it does
// nothing, so it can be deferred; it may be called on a nil *Output.
func (o *Output) Abort() {
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
