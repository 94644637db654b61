package datasets

import (
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

// readInput opens the input file at path (see openInput) and decodes it
// with decode, which gets the size or -1; errors name the file.
func readInput(path, what string, decode func(f *os.File, size int64) (*tensor.Dense, error)) (*tensor.Dense, error) {
	f, size, err := openInput(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := decode(f, size)
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
