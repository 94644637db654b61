// Package atomicfile writes output files that appear complete or not at
// all, and cleans up after the writers that were killed before they
// finished.
//
// A File is written to a temporary file in the directory of its path,
// named ".NAME.tmp-PID-RANDOM" (NAME the final file's name, PID the
// writer's process id) and created with mode 0600; Commit syncs it, makes
// it mode 0644 and renames it over the path, so that the path holds either
// its old content or the complete new file. A symbolic link at the path is
// followed, so that its target is replaced and the link kept; a device, a
// pipe or a socket (/dev/stdout, a FIFO) is written in place, since
// renaming over it would replace it.
//
// A writer killed with SIGKILL, or by a power cut, leaves its temporary
// file behind. Each writer holds an exclusive flock(2) on its temporary
// file for as long as it lives, and Create and Check remove, in the
// directory they write to, the temporaries of this naming whose writer is
// gone: the process named in the file name no longer exists and nothing
// holds the lock (on Unix; elsewhere nothing is removed).
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Error is the error of this package: Path is the output's path as given,
// Msg says what went wrong, Err is the cause (nil or a syscall error, so
// that errors.Is(err, fs.ErrNotExist) and the like work).
type Error struct {
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return "atomicfile: " + e.Detail() }

// Detail is the message without the package prefix, for programs that
// name the output their own way.
func (e *Error) Detail() string {
	s := e.Path + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// File is an output file that appears complete or not at all. The
// embedded *os.File is the temporary file (or the device or pipe written
// in place): write to it, but close it only through Commit or Abort.
type File struct {
	*os.File
	path   string // the final path, links followed
	direct bool   // written in place
	done   bool
}

// Create creates the temporary file of the output at path, after removing
// the stale temporaries of its directory (see the package comment). A path
// that is a directory is an error. Creating the file opens a device or a
// pipe at path for writing, which for a FIFO waits for a reader.
func Create(path string) (*File, error) {
	real := Resolve(path)
	fi, err := os.Stat(real)
	if err == nil && fi.IsDir() {
		return nil, &Error{Path: path, Msg: "is a directory"}
	}
	if err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return nil, &Error{Path: path, Msg: "opening for writing", Err: unwrapPath(err)}
		}
		return &File{File: f, path: real, direct: true}, nil
	}
	dir := filepath.Dir(real)
	CleanStale(dir)
	f, err := createTemp(dir, filepath.Base(real))
	if err != nil {
		return nil, createError(path, err)
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, &Error{Path: path, Msg: "locking the temporary file", Err: err}
	}
	return &File{File: f, path: real}, nil
}

// Check reports whether Create(path) would succeed, without leaving
// anything behind: for a regular file or a new one it creates and removes
// a temporary file in the directory (removing that directory's stale
// temporaries first); a device or a pipe is only checked to be writable,
// since opening a FIFO would wait for a reader. Call it before long work
// whose result goes to path, and Create when the result is ready.
func Check(path string) error {
	real := Resolve(path)
	fi, err := os.Stat(real)
	switch {
	case err == nil && fi.IsDir():
		return &Error{Path: path, Msg: "is a directory"}
	case err == nil && !fi.Mode().IsRegular():
		if err := writable(real); err != nil {
			return &Error{Path: path, Msg: "not writable", Err: err}
		}
		return nil
	}
	dir := filepath.Dir(real)
	CleanStale(dir)
	f, err := createTemp(dir, filepath.Base(real))
	if err != nil {
		return createError(path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// createError explains why the temporary file of path could not be
// created, naming path rather than the temporary file.
func createError(path string, err error) error {
	err = unwrapPath(err)
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: path, Msg: "directory " + filepath.Dir(path), Err: err}
	}
	return &Error{Path: path, Msg: "creating a temporary file beside it", Err: err}
}

// tempSuffix is the part of a temporary file's name after ".NAME".
const tempSuffix = ".tmp-"

// createTemp creates a new temporary file for the file named base in dir,
// mode 0600.
func createTemp(dir, base string) (*os.File, error) {
	prefix := "." + base + tempSuffix + strconv.Itoa(os.Getpid()) + "-"
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary name")
}

// Path returns the path the output is committed to, symbolic links
// followed.
func (f *File) Path() string { return f.path }

// Commit moves the finished file into place. After Commit or Abort it does
// nothing and returns nil. On error the temporary file is removed and the
// path keeps its old content.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.direct {
		if err := f.Close(); err != nil {
			return &Error{Path: f.path, Msg: "writing", Err: unwrapPath(err)}
		}
		return nil
	}
	err := f.Chmod(0o644) // the temporary file is 0600; an output is an ordinary file
	if err == nil {
		err = f.Sync()
	}
	// Closing releases the lock; the process id in the name still keeps
	// cleaners away until the rename.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return &Error{Path: f.path, Msg: "writing", Err: unwrapPath(err)}
	}
	// Make the rename durable. Not every system can sync a directory, so
	// failures are ignored.
	if d, err := os.Open(filepath.Dir(f.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// unwrapPath returns the cause of a *fs.PathError or *os.LinkError, whose
// message would name the temporary file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// Abort removes an output that was not committed. After Commit it does
// nothing, so it can be deferred; it may be called on a nil *File.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	if !f.direct {
		os.Remove(f.Name())
	}
	f.Close()
}

// Resolve returns the file a chain of symbolic links at path points to,
// which need not exist yet, or path itself: the file that Create replaces.
func Resolve(path string) string {
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

// Canonical returns the absolute path of the file that Create(path) writes
// to, with every symbolic link followed, in the directories as at the end:
// two paths that name the same file, existing or not yet created, have the
// same Canonical path (hard links aside: compare os.SameFile for those).
func Canonical(path string) string {
	real := Resolve(path)
	dir, base := filepath.Split(real)
	if d, err := filepath.EvalSymlinks(filepath.Clean(dir + ".")); err == nil {
		dir = d
	}
	if abs, err := filepath.Abs(filepath.Join(dir, base)); err == nil {
		return abs
	}
	return filepath.Join(dir, base)
}
