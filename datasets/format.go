package datasets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"gorgonia.org/tensor"
)

// Formats lists the file formats this package knows, by the names Read,
// Write and FormatOf use. All are read; WritableFormats are also written.
var Formats = []string{"npy", "npz", "csv", "mtx"}

// WritableFormats lists the formats Write writes.
var WritableFormats = []string{"npy", "npz", "csv"}

// FormatOf returns the format of the file at path from its extension
// (.npy, .npz, .csv, .tsv and .txt as CSV, .mtx), ignoring case. An unknown
// extension gives an error matching ErrFormat that lists the known ones.
func FormatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".npy":
		return "npy", nil
	case ".npz":
		return "npz", nil
	case ".csv", ".tsv", ".txt":
		return "csv", nil
	case ".mtx":
		return "mtx", nil
	default:
		if ext == "" {
			ext = "no extension"
		} else {
			ext = fmt.Sprintf("extension %q", ext)
		}
		return "", &dataError{file: path, msg: fmt.Sprintf("unknown format (%s): want .npy, .npz, .csv, .tsv, .txt or .mtx, or name the format", ext), off: -1, kind: ErrFormat}
	}
}

// checkFormat returns the format opt names, or the one of path's
// extension when it names none.
func checkFormat(path, format string, known []string) (string, error) {
	if format == "" {
		return FormatOf(path)
	}
	format = strings.ToLower(format)
	for _, f := range known {
		if f == format {
			return format, nil
		}
	}
	return "", fmt.Errorf("datasets: unknown format %q: want one of %s", format, strings.Join(known, ", "))
}

// Read reads the payoff matrix in the file at path, in the format opt
// names or, by default, the one of its extension (see FormatOf), with
// ReadNPY, ReadNPZ, ReadCSV or ReadMTX. The result is a row-major m×n
// matrix of the dtype opt asks for: by default float64 and float32 files
// keep their type, and every other file is read as float64.
func Read(path string, opt *ReadOptions) (*tensor.Dense, error) {
	var format string
	if opt != nil {
		format = opt.Format
	}
	format, err := checkFormat(path, format, Formats)
	if err != nil {
		return nil, err
	}
	return read(context.Background(), path, opt, format)
}

// Write writes the matrix t to the file at path, atomically, in the format
// o names or, by default, the one of its extension: .npy (WriteNPYOptions),
// .npz (WriteNPZMatrix) or .csv, .tsv and .txt (WriteCSV; a .tsv file is
// tab-separated unless o.Comma says otherwise). Matrix Market is read only.
func Write(path string, t *tensor.Dense, o *WriteOptions) error {
	var opt WriteOptions
	if o != nil {
		opt = *o
	}
	format, err := checkFormat(path, opt.Format, WritableFormats)
	if err != nil {
		return err
	}
	switch format {
	case "npz":
		return WriteNPZMatrix(path, t, &opt)
	case "csv":
		if opt.Comma == 0 && strings.EqualFold(filepath.Ext(path), ".tsv") {
			opt.Comma = '\t'
		}
		return WriteCSV(path, t, &opt)
	case "mtx":
		return fmt.Errorf("datasets: %s: Matrix Market files are read, not written: use .npy, .npz or .csv", path)
	default:
		return WriteNPYOptions(path, t, &opt)
	}
}
