// Package atomicfile writes output files that appear complete or not at
// all, and cleans up after the writers that were killed before they
// finished.
//
// A File is written to a temporary file in the directory of its path,
// named ".NAME.tmp-PID-RANDOM" (NAME the final file's name, PID the
// writer's process id; a NAME too long for that is cut and followed by a
// hash of it, so that any legal name has a temporary) and created with mode
// 0600; Commit syncs it, gives it the mode (and, for root, the owner) of the
// file it replaces, or 0644 for a new file, and renames it over the path, so
// that the path holds either its old content or the complete new file. A
// symbolic link at the path is followed, so that its target is replaced and
// the link kept (a loop of links is an error); a device, a pipe or a socket
// (a FIFO, /dev/null) is written in place, since renaming over it would
// replace it, and so is a descriptor of this process named by path
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, as the shell's
// >(...) gives), through that descriptor, at its offset: what the shell
// redirected there before and after stays.
//
// A regular file is replaced only if this process's user owns it and its
// mode lets its owner write it, whatever privileges the process has (root
// may write anything): a file made read-only (chmod 444) or another user's
// file is refused with ErrProtected, unless SetReplaceProtected(true) says
// that the user asked for it.
//
// Abandoned writers are cleaned up: AbortAll, called when the process
// exits early (an interrupt), removes every temporary file not yet
// committed, even one whose writer is still running.
//
// A writer killed with SIGKILL, or by a power cut, leaves its temporary
// file behind. Each writer holds an exclusive flock(2) on its temporary
// file for as long as it lives, and Create and Check remove, in the
// directory they write to, the temporaries of this naming whose writer is
// gone: the process named in the file name no longer exists and nothing
// holds the lock (on Unix; elsewhere nothing is removed).
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// ErrProtected is the cause of the error for a regular file that the
// process's user does not own or whose mode says read-only.
var ErrProtected = errors.New("read-only or owned by another user")

// replaceProtected is SetReplaceProtected's setting.
var replaceProtected struct {
	sync.Mutex
	on bool
}

// SetReplaceProtected sets whether Create and Check replace a regular file
// that is read-only or owned by another user (see the package comment):
// the process-wide policy of a command line's --force.
func SetReplaceProtected(on bool) {
	replaceProtected.Lock()
	replaceProtected.on = on
	replaceProtected.Unlock()
}

func replacing() bool {
	replaceProtected.Lock()
	defer replaceProtected.Unlock()
	return replaceProtected.on
}

// live holds the temporary files not yet committed or aborted, for
// AbortAll; closed is set by AbortAll, after which nothing is committed.
var live struct {
	sync.Mutex
	files  map[*File]struct{}
	closed bool
}

// AbortAll removes the temporary file of every File of this process not
// yet committed, and makes every later Create and Commit fail: call it
// when the process is about to exit early (an interrupt), so that a writer
// abandoned in another goroutine leaves nothing behind. A Commit under
// way finishes first: its path then holds the complete new file.
func AbortAll() {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	for f := range live.files {
		os.Remove(f.Name())
	}
	live.files = nil
}

// errAborted is the cause of the errors after AbortAll.
var errAborted = errors.New("the process is exiting: output abandoned")

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
	old    fs.FileInfo // the file replaced, or nil
}

// Create creates the temporary file of the output at path, after removing
// the stale temporaries of its directory (see the package comment). A path
// that is a directory, a loop of symbolic links or a protected file is an
// error. Creating the file opens a device or a pipe at path for writing,
// which for a FIFO waits for a reader: see CreateContext.
func Create(path string) (*File, error) {
	return CreateContext(context.Background(), path)
}

// CreateContext is Create, with a FIFO's wait for a reader stopped by ctx
// (the error then wraps ctx.Err()).
func CreateContext(ctx context.Context, path string) (*File, error) {
	t, err := target(path)
	if err != nil {
		return nil, err
	}
	if t.fd >= 0 {
		f, err := dupWriter(t.fd, t.real)
		if err != nil {
			return nil, &Error{Path: path, Msg: "opening for writing", Err: err}
		}
		return &File{File: f, path: t.real, direct: true}, nil
	}
	if t.fi != nil && !t.fi.Mode().IsRegular() {
		f, err := openInPlace(ctx, t.real, t.fi)
		if err != nil {
			return nil, &Error{Path: path, Msg: "opening for writing", Err: unwrapPath(err)}
		}
		return &File{File: f, path: t.real, direct: true}, nil
	}
	dir := filepath.Dir(t.real)
	CleanStale(dir)
	// The temporary file is made and registered under live's lock, so that
	// an AbortAll never runs between its creation and its registration:
	// the process would exit with it left behind (an interrupt just after
	// the file appears).
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return nil, &Error{Path: path, Msg: "creating", Err: errAborted}
	}
	f, err := createTemp(dir, filepath.Base(t.real))
	if err != nil {
		return nil, createError(path, err)
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, &Error{Path: path, Msg: "locking the temporary file", Err: err}
	}
	af := &File{File: f, path: t.real, old: t.fi}
	if live.files == nil {
		live.files = map[*File]struct{}{}
	}
	live.files[af] = struct{}{}
	return af, nil
}

// openInPlace opens the device, pipe or socket at path, of info fi, for
// writing. A FIFO without a reader is polled for one, so that ctx can stop
// the wait (a blocking open could not be stopped).
func openInPlace(ctx context.Context, path string, fi fs.FileInfo) (*os.File, error) {
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		f, err := openFIFO(path)
		if err == nil || !errors.Is(err, errNoReader) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a reader: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// targetInfo is what Create writes to for a path.
type targetInfo struct {
	real string      // the path, symbolic links followed
	fi   fs.FileInfo // the existing file, or nil for a new one
	fd   int         // a descriptor of this process named by path, or -1
}

// target resolves path and checks that it may be written: not a
// directory, not a loop of links, not a protected file.
func target(path string) (targetInfo, error) {
	real, err := resolve(path)
	if err != nil {
		return targetInfo{}, &Error{Path: path, Msg: "resolving its symbolic links", Err: err}
	}
	t := targetInfo{real: real, fd: -1}
	if fd, ok := descriptor(real); ok {
		t.fd = fd
		return t, nil
	}
	fi, err := os.Stat(real)
	switch {
	case err == nil:
		t.fi = fi
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, syscall.ELOOP):
		return t, &Error{Path: path, Msg: "resolving its symbolic links", Err: syscall.ELOOP}
	default:
		// A directory on the way that cannot be searched, say: creating
		// the temporary says what is wrong.
	}
	switch {
	case t.fi == nil:
	case t.fi.IsDir():
		return t, &Error{Path: path, Msg: "is a directory"}
	case t.fi.Mode().IsRegular() && !replacing():
		if err := protected(t.fi); err != nil {
			return t, &Error{Path: path, Msg: "not replaced", Err: err}
		}
	}
	return t, nil
}

// Check reports whether Create(path) would succeed, without leaving
// anything behind: for a regular file or a new one it creates and removes
// a temporary file in the directory (removing that directory's stale
// temporaries first); a device, a pipe or a descriptor is only checked to
// be writable, since opening a FIFO would wait for a reader. Call it before
// long work whose result goes to path, and Create when the result is ready.
func Check(path string) error {
	t, err := target(path)
	switch {
	case err != nil:
		return err
	case t.fd >= 0:
		if err := writableFD(t.fd); err != nil {
			return &Error{Path: path, Msg: "not writable", Err: err}
		}
		return nil
	case t.fi != nil && !t.fi.Mode().IsRegular():
		if err := writable(t.real); err != nil {
			return &Error{Path: path, Msg: "not writable", Err: err}
		}
		return nil
	}
	dir := filepath.Dir(t.real)
	CleanStale(dir)
	f, err := createTemp(dir, filepath.Base(t.real))
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

// nameMax is the longest file name most file systems take (NAME_MAX).
const nameMax = 255

// createTemp creates a new temporary file for the file named base in dir,
// mode 0600.
func createTemp(dir, base string) (*os.File, error) {
	prefix := tempPrefix(base)
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary name")
}

// tempPrefix is the name of base's temporary files up to their random
// part: ".BASE.tmp-PID-", with BASE cut and followed by "~" and a hash of
// it where the name would be longer than nameMax.
func tempPrefix(base string) string {
	pid := strconv.Itoa(os.Getpid())
	const random = 10 // digits of a uint32
	if len(base)+len(tempSuffix)+len(pid)+2+random <= nameMax {
		return "." + base + tempSuffix + pid + "-"
	}
	h := fnv.New64a()
	h.Write([]byte(base))
	sum := strconv.FormatUint(h.Sum64(), 16)
	keep := nameMax - 1 - 1 - len(sum) - len(tempSuffix) - len(pid) - 1 - random
	for keep > 0 && !utf8.RuneStart(base[keep]) {
		keep-- // a whole character, for the people who list the directory
	}
	return "." + base[:keep] + "~" + sum + tempSuffix + pid + "-"
}

// Write writes to the temporary file; an error names the output's path,
// not the temporary file's.
func (f *File) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	return n, f.named("write", err)
}

// WriteString is Write of a string.
func (f *File) WriteString(s string) (int, error) {
	n, err := f.File.WriteString(s)
	return n, f.named("write", err)
}

// ReadFrom copies r to the file (io.Copy uses it), with Write's errors.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	n, err := f.File.ReadFrom(r)
	return n, f.named("write", err)
}

// named is err, a *fs.PathError of the temporary file, as one of the
// output's path.
func (f *File) named(op string, err error) error {
	var pe *fs.PathError
	if err != nil && errors.As(err, &pe) && pe.Path == f.File.Name() {
		return &fs.PathError{Op: op, Path: f.path, Err: pe.Err}
	}
	return err
}

// Path returns the path the output is committed to, symbolic links
// followed.
func (f *File) Path() string { return f.path }

// Commit moves the finished file into place. After Commit or Abort it does
// nothing and returns nil. On error the temporary file is removed and the
// path keeps its old content. Errors name the path, never the temporary
// file.
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
	// The temporary file is 0600: an output gets the mode of the file it
	// replaces, else that of an ordinary file.
	mode := fs.FileMode(0o644)
	if f.old != nil {
		mode = f.old.Mode().Perm()
		keepOwner(f.File, f.old)
	}
	err := f.Chmod(mode)
	if err == nil {
		err = f.Sync()
	}
	// Closing releases the lock; the process id in the name still keeps
	// cleaners away until the rename.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	live.Lock()
	if err == nil && live.closed {
		err = errAborted
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	delete(live.files, f)
	live.Unlock()
	if err != nil {
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
		live.Lock()
		os.Remove(f.Name())
		delete(live.files, f)
		live.Unlock()
	}
	f.Close()
}

// Resolve returns the file a chain of symbolic links at path points to,
// which need not exist yet, or path itself: the file that Create replaces.
// A loop of links gives the path where it was found.
func Resolve(path string) string {
	real, _ := resolve(path)
	return real
}

// resolve is Resolve, with syscall.ELOOP for a loop of links. It stops at
// a descriptor of this process (/dev/stdout, /proc/self/fd/1), whose link
// names what the descriptor is (pipe:[N]) rather than a path.
func resolve(path string) (string, error) {
	for range 40 { // the limit of Linux's own resolution
		if _, ok := descriptor(path); ok {
			return path, nil
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return path, nil
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return path, syscall.ELOOP
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

// InPlace reports whether Create(path) writes in place: path names a
// device, a pipe, a socket or a descriptor of this process (/dev/stdout),
// links followed.
func InPlace(path string) bool {
	t, err := target(path)
	return err == nil && (t.fd >= 0 || t.fi != nil && !t.fi.Mode().IsRegular())
}

// CheckReplace reports whether a program that writes the regular file at
// path itself (appending, say) should: the error of Create for a loop of
// links, a directory or a protected file (see the package comment), nil
// for a new file.
func CheckReplace(path string) error {
	_, err := target(path)
	return err
}
