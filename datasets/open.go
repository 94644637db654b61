package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"

	"gorgonia.org/tensor"
)

// openInput opens the input file at path. size is the file's size for a
// regular file and -1 for a named pipe or a device, whose size is unknown.
// A directory is refused with "is a directory, not <what>".
func openInput(path, what string) (f *os.File, size int64, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("datasets: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("datasets: %w", err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, 0, &dataError{file: path, msg: "is a directory, not " + what, off: -1}
	}
	if !fi.Mode().IsRegular() {
		return f, -1, nil
	}
	return f, fi.Size(), nil
}

// read reads the file at path in format as opt says. Canceling ctx closes
// the file, which stops a read that waits on a pipe as well as one that
// would never end, with an error wrapping ctx's cause.
func read(ctx context.Context, path string, opt *ReadOptions, format string) (*tensor.Dense, error) {
	tg, err := resultTarget(opt)
	if err != nil {
		return nil, err
	}
	f, size, err := openInput(path, whatOf[format])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(ctx, f, size, path, opt, tg, format)
}

// whatOf names what a file of each format is, for messages.
var whatOf = map[string]string{"npy": "an npy file", "npz": "an npz archive", "csv": "a csv file", "mtx": "a Matrix Market file"}

// readOpen is read of the open file f of size bytes (-1: a pipe or a
// device). Canceling ctx closes f.
func readOpen(ctx context.Context, f *os.File, size int64, path string, opt *ReadOptions, tg target, format string) (*tensor.Dense, error) {
	var err error
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	var t *tensor.Dense
	switch format {
	case "npz":
		if size < 0 {
			return nil, &dataError{file: path, msg: "is not a regular file: an npz archive is read from its end", off: -1}
		}
		t, err = decodeNPZ(f, size, keyOf(opt), tg)
	case "csv":
		t, err = decodeCSV(f, size, tg)
	case "mtx":
		t, err = decodeMTX(f, size, tg)
	default:
		t, err = decodeNPY(f, size, tg)
	}
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("datasets: %s: reading stopped: %w", path, context.Cause(ctx))
	}
	if err != nil {
		return nil, inFile(path, err)
	}
	return t, nil
}

// inFile returns err with the file name path added: before the member
// name that a *dataError may already carry, or as a prefix.
func inFile(path string, err error) error {
	var de *dataError
	if errors.As(err, &de) {
		if de.file == "" {
			de.file = path
		} else {
			de.file = path + ": " + de.file
		}
		return err // a *RangeError keeps its type
	}
	return fmt.Errorf("datasets: %s: %w", path, err)
}
