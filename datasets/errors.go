package datasets

import (
	"errors"
	"strconv"
	"strings"
)

// ErrFormat is matched (with errors.Is) by the errors about malformed or
// unsupported data: a bad magic string or header, an unsupported format
// version or dtype, a truncated file, an array that is not 2-D or is
// empty, or a tensor of an unsupported dtype.
var ErrFormat = errors.New("datasets: malformed or unsupported matrix data")

// ErrNotFinite is matched (with errors.Is) by the errors about a NaN or
// infinite matrix entry, including a float64 entry too large for float32
// when converting to Float32.
var ErrNotFinite = errors.New("datasets: non-finite matrix entry")

// dataError is the error type of this package. Its message is
//
//	datasets: [file: ]msg[ at line L[, column C]][ at byte offset N][: cause]
//
// Text formats (CSV, Matrix Market) give the 1-based line and, where it
// applies, the 1-based column: the field number in a CSV row, the token
// number in a Matrix Market line.
// and it unwraps to its kind (ErrFormat, ErrNotFinite or nil) and its
// cause.
type dataError struct {
	file  string // file name, or "" when decoding a stream
	msg   string
	line  int   // 1-based line of a text input, or 0
	col   int   // 1-based column (field) of a text input, or 0
	off   int64 // byte offset in the input, or -1
	kind  error // ErrFormat, ErrNotFinite or nil
	cause error // underlying error or nil
}

func (e *dataError) Error() string {
	var b strings.Builder
	b.WriteString("datasets: ")
	if e.file != "" {
		b.WriteString(e.file)
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	if e.line > 0 {
		b.WriteString(" at line ")
		b.WriteString(strconv.Itoa(e.line))
		if e.col > 0 {
			b.WriteString(", column ")
			b.WriteString(strconv.Itoa(e.col))
		}
	}
	if e.off >= 0 {
		b.WriteString(" at byte offset ")
		b.WriteString(strconv.FormatInt(e.off, 10))
	}
	if e.cause != nil {
		b.WriteString(": ")
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

// Unwrap returns the kind and the cause of e.
func (e *dataError) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

// formatErr returns an ErrFormat error at byte offset off (-1 for none).
func formatErr(off int64, msg string) *dataError {
	return &dataError{msg: msg, off: off, kind: ErrFormat}
}

// lineErr returns an ErrFormat error at 1-based line and column (col 0
// for the whole line) of a text input.
func lineErr(line, col int, msg string) *dataError {
	return &dataError{msg: msg, line: line, col: col, off: -1, kind: ErrFormat}
}

// shapeString formats a shape the way NumPy prints tuples: (3,), (3, 4).
func shapeString(shape []int64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// clip shortens s for inclusion in an error message.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
