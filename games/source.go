package games

import (
	"context"
	"errors"
	"fmt"
	"os"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// ErrDirectory is the error of Open on a directory.
var ErrDirectory = errors.New("is a directory, not a payoff file")

// Source is a payoff file opened once: one stat, and for a regular file
// one open and, for a .npy file, one header read, the format decided once.
// What the header says (a matrix's shape and type, or a stack) is known
// before the payload is read, and the payload is read through the same
// open file. A pipe or a device is not opened until Read (opening a FIFO
// waits for its writer, and a pipe is read once).
type Source struct {
	// Path is the file's path, Format its format (one of datasets.Formats).
	Path, Format string
	// Info is the file's, links followed.
	Info os.FileInfo
	// NPY is the header of a regular .npy file, and Dims its number of
	// dimensions: 3 for a stack of games, 2 for a matrix, 0 when not
	// known (another format, or not a regular file).
	NPY  datasets.NPYInfo
	Dims int
	f    *os.File
}

// Open stats the file at path and, when it is regular, opens it and reads
// a .npy header. format "" means the one of the file's extension
// (datasets.FormatOf). A directory is refused. Close the source after use.
func Open(path, format string) (*Source, error) { return OpenStated(path, format, nil) }

// OpenStated is Open of a file already stated: info, when not nil, is
// os.Stat(path)'s, taken by a caller that listed the file (a batch's
// directory or glob), so that the file is stated once in all.
func OpenStated(path, format string, info os.FileInfo) (*Source, error) {
	f, err := formatOf(path, format)
	if err != nil {
		return nil, err
	}
	s := &Source{Path: path, Format: f, Info: info}
	if s.Info == nil {
		if s.Info, err = os.Stat(path); err != nil {
			return nil, fmt.Errorf("games: %w", err)
		}
	}
	if s.Info.IsDir() {
		return nil, fmt.Errorf("%s %w", path, ErrDirectory)
	}
	if !s.Regular() {
		return s, nil
	}
	if s.f, err = os.Open(path); err != nil {
		return nil, fmt.Errorf("games: %w", err)
	}
	if s.Format == "npy" {
		if s.NPY, s.Dims, err = datasets.InspectNPY(s.f, s.Info.Size(), path); err != nil {
			s.f.Close()
			return nil, err
		}
	}
	return s, nil
}

// formatOf is format checked, or the extension's.
func formatOf(path, format string) (string, error) {
	if format == "" {
		return datasets.FormatOf(path)
	}
	for _, f := range datasets.Formats {
		if f == format {
			return f, nil
		}
	}
	return "", fmt.Errorf("games: unknown format %q", format)
}

// Regular reports whether the source is a regular file (not a pipe or a
// device): one that can be read twice, mapped, and read from its end.
func (s *Source) Regular() bool { return s.Info.Mode().IsRegular() }

// Read reads the source's matrix as datasets.ReadScaled does: the stored
// matrix holds the file's times 2^exp (solver.MatrixGame's
// SetStorageExponent). opt.Format is ignored: the source's is used.
// Canceling ctx stops the read and closes the source.
func (s *Source) Read(ctx context.Context, opt *datasets.ReadOptions) (a *tensor.Dense, exp int, err error) {
	var o datasets.ReadOptions
	if opt != nil {
		o = *opt
	}
	o.Format = s.Format
	if s.f == nil {
		return datasets.ReadScaled(ctx, s.Path, &o)
	}
	return datasets.ReadScaledFile(ctx, s.f, s.Info.Size(), s.Path, s.Format, &o)
}

// ReadStack reads the stack of games (B, m, n) of a source with Dims 3.
func (s *Source) ReadStack() (*tensor.Dense, error) {
	if s.f == nil || s.Dims != 3 {
		return nil, errors.New("games: " + s.Path + " is not a stack of games")
	}
	return datasets.ReadStackFile(s.f, s.Info.Size(), s.Path)
}

// Close closes the file.
func (s *Source) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	return f.Close()
}
