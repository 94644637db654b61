package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpump/gpump/games"

	"github.com/gpump/gpump/internal/atomicfile"
)

// namedFile is a file a command reads or writes, with what names it in
// messages: a flag ("--output") or a role ("the payoff file").
type namedFile struct {
	what  string
	path  string
	where string // more context, or ""
	input bool
	id    fileID
}

// name is the file as messages name it.
func (f namedFile) name() string {
	if f.where != "" {
		return fmt.Sprintf("%s %s (%s)", f.what, f.path, f.where)
	}
	return f.what + " " + f.path
}

// fileID identifies the file a path leads to: by device and inode when it
// exists (links, hard links and other spellings of the path all lead
// there), else by its canonical path (see atomicfile.Canonical).
type fileID struct {
	info  os.FileInfo // of the existing file, links followed, or nil
	canon string
	// chardev is a character device (/dev/null, a terminal), which any
	// number of outputs may share.
	chardev bool
}

func identify(path string) fileID {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{canon: atomicfile.Canonical(path)} // only same compares it
	}
	return idOf(fi)
}

// idOf is the identity of an existing file of info fi.
func idOf(fi os.FileInfo) fileID {
	return fileID{info: fi, chardev: fi.Mode()&os.ModeCharDevice != 0}
}

// same reports whether a and b are the same file; character devices never
// count.
func (a fileID) same(b fileID) bool {
	switch {
	case a.chardev || b.chardev:
		return false
	case a.info != nil && b.info != nil:
		return os.SameFile(a.info, b.info)
	}
	return a.info == nil && b.info == nil && a.canon == b.canon
}

// fileList gathers the files of a command to check them against each
// other before any work.
type fileList []namedFile

// add lists the file at path, unless path is empty (the flag was not
// given).
func (l *fileList) add(what, path string, input bool) {
	if path != "" {
		*l = append(*l, namedFile{what: what, path: path, input: input, id: identify(path)})
	}
}

// addWriter lists w, standard output, when it is a file: a shell
// redirection may point it at an input ("gpump solve g.npy >> g.npy").
func (l *fileList) addWriter(what string, w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		return
	}
	*l = append(*l, namedFile{what: what, path: f.Name(), id: fileID{info: fi, chardev: fi.Mode()&os.ModeCharDevice != 0}})
}

// check refuses an output that is an input or another output: writing it
// would destroy the input, or one output would replace the other.
func (l fileList) check() error {
	for i, a := range l {
		if a.input {
			continue
		}
		for j, b := range l {
			if j == i || !a.id.same(b.id) || !b.input && j < i {
				continue
			}
			if b.input {
				return fmt.Errorf("%s would overwrite %s: give another path", a.name(), b.name())
			}
			return fmt.Errorf("%s and %s are the same file: give them different paths", a.name(), b.name())
		}
	}
	return nil
}

// inputs lists the files the job reads, for the checks of its outputs
// against them.
func (j *job) inputs() fileList {
	var l fileList
	if j.src != nil {
		// Stated once, when it was opened.
		l = append(l, namedFile{what: "the payoff file", path: j.path, input: true, id: idOf(j.src.Info)})
	} else {
		l.add("the payoff file", j.path, true)
	}
	l.add("--init", j.initPath, true)
	if j.initPath != "" {
		// A result whose strategies went to an archive names it.
		if name := games.WarmStartArchive(j.initPath); name != "" {
			l.add("the strategies of --init", name, true)
		}
	}
	return l
}

// listedFiles lists a batch's manifest and its instances' payoff files, to
// check the batch's output against them.
func listedFiles(l *games.Listing, manifest string) fileList {
	var files fileList
	files.add("the manifest", manifest, true)
	for _, in := range l.Instances {
		if in.Info != nil {
			files = append(files, namedFile{what: "the payoff file", path: in.File, input: true, id: idOf(in.Info)})
		} else {
			files.add("the payoff file", in.File, true)
		}
		if len(files) > 0 && in.File != "" {
			files[len(files)-1].where = fmt.Sprintf("instance %d: %s", in.Index, in.Name)
		}
	}
	return files
}
