package datasets

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"gorgonia.org/tensor"
)

// This file reads the Matrix Market exchange format of NIST
// (https://math.nist.gov/MatrixMarket/formats.html): a banner line
//
//	%%MatrixMarket matrix <array|coordinate> <real|integer|pattern> <general|symmetric|skew-symmetric>
//
// then comment lines starting with '%', a size line ("M N" for the array
// format, "M N NNZ" for the coordinate format) and the entries, one per
// line: column-major values for the array format, "I J value" with
// 1-based indices for the coordinate format.

// Limits of the Matrix Market reader.
const (
	// mtxReadBuf is the size of the read buffer.
	mtxReadBuf = 256 << 10
	// mtxMaxLine bounds the length of a line other than a comment.
	mtxMaxLine = 1 << 20
	// mtxMinCoordLine and mtxMinPatternLine are the fewest bytes an entry
	// line of the coordinate format takes, newline included: "1 1 1\n"
	// and "1 1\n". An entry of the array format takes at least 2 ("1\n").
	mtxMinCoordLine   = 6
	mtxMinPatternLine = 4
	mtxMinArrayLine   = 2
)

// Fields and symmetries of a Matrix Market header.
const (
	mtxReal = iota
	mtxInteger
	mtxPattern
)

const (
	mtxGeneral = iota
	mtxSymmetric
	mtxSkew
)

var (
	mtxFieldNames = [...]string{"real", "integer", "pattern"}
	mtxSymNames   = [...]string{"general", "symmetric", "skew-symmetric"}
)

// mtxBanner describes the four banner fields after %%MatrixMarket: the
// words a field takes, in any case (the header keeps a word's index: the
// field and symmetry constants above, 1 for the coordinate format), a word
// it knows but refuses and why, and how an error names an unknown word.
var mtxBanner = [...]struct {
	words        []string
	refused, why string
	unknown      string
}{
	{words: []string{"matrix"}, unknown: "unsupported object"},
	{words: []string{"array", "coordinate"}, unknown: "unknown format"},
	{words: mtxFieldNames[:], refused: "complex", why: "complex matrices are not supported: payoffs are real", unknown: "unknown field"},
	{words: mtxSymNames[:], refused: "hermitian", why: "hermitian matrices are complex, which is not supported", unknown: "unknown symmetry"},
}

// mtxHeader is the decoded banner and size line of a Matrix Market file.
type mtxHeader struct {
	coordinate bool
	field      int // mtxReal, mtxInteger or mtxPattern
	sym        int // mtxGeneral, mtxSymmetric or mtxSkew
	m, n       int
	nnz        int // coordinate format: the number of entry lines
	entries    int // the number of entries listed
	sizeLine   int // line number of the size line
	// narrow: values read as float32, scaled by scale, their range
	// watched.
	narrow bool
	scale  float64
	rng    range32
}

// ReadMTX reads the Matrix Market file at path and returns its matrix as a
// row-major m×n matrix. See DecodeMTX for the accepted files, the dtype of
// the result and the errors. Error messages name the file. The size of a
// regular file caps what its size line may claim; a named pipe or a device
// is read as a stream of unknown size.
func ReadMTX(path string, opt *ReadOptions) (*tensor.Dense, error) {
	return read(context.Background(), path, opt, "mtx")
}

// DecodeMTX reads a Matrix Market stream from r and returns its matrix as
// a row-major m×n matrix. size is the number of bytes available from r, or
// -1 if unknown; when it is -1 and r has a Len method or is an io.Seeker,
// the size is found from it.
//
// The banner must be "%%MatrixMarket matrix FORMAT FIELD SYMMETRY", in
// any letter case, with FORMAT array or coordinate, FIELD real, integer
// or pattern, and SYMMETRY general, symmetric or skew-symmetric. Complex
// matrices and the hermitian symmetry are refused (payoffs are real), as
// are the vector objects of some extensions. Lines whose first non-blank
// character is '%' are comments and, like blank lines, are skipped
// anywhere after the banner. Fields are separated by blanks (spaces,
// tabs, '\r', '\v', '\f'), so lines may end with "\n" or "\r\n"; a UTF-8
// byte-order mark before the banner is ignored. Comments may be of any
// length, other lines of at most 1 MiB.
//
// Array format: the size line is "M N" and the entries follow one per
// line in column-major order (a line holding several values is an error,
// since reading it row by row would silently transpose the matrix). A
// symmetric matrix lists only its lower triangle with the diagonal, and a
// skew-symmetric one its lower triangle without the diagonal (which is
// zero), each column by column; the other entries are mirrored (negated
// for skew-symmetric). The pattern field is not allowed.
//
// Coordinate format: the size line is "M N NNZ" and NNZ lines "I J V"
// (or "I J" for pattern) follow, with 1-based row I and column J;
// entries not listed are zero and pattern entries are 1. In a symmetric
// matrix each off-diagonal entry (I, J) also sets (J, I), and in a
// skew-symmetric one it sets (J, I) to -V; a skew-symmetric matrix may
// not list diagonal entries. An entry listed more than once is the sum of
// its values (as scipy.io.mmread(...).toarray() and MATLAB's sparse give),
// added in the dtype of the result; in a symmetric or skew-symmetric
// matrix an entry of the upper triangle counts as its mirror image. The
// pattern field with skew-symmetric symmetry is refused.
//
// Real entries are anything strconv.ParseFloat accepts, and also Fortran
// exponents such as 1.5D+03; integer entries are decimal integers (those
// beyond 2⁵³ are rounded to nearest). The result is tensor.Float64 unless
// opt.DType is tensor.Float32, in which case each entry is the float64
// value rounded to float32 (sums of duplicate entries excepted).
//
// Before the result is allocated, the size line is checked: an array file
// must have at least 2 bytes per listed entry left ("1\n"), a coordinate
// file at least 6 per claimed entry line ("1 1 1\n"; 4 for pattern), and
// the dense result must fit in the machine's memory (MemTotal in
// /proc/meminfo; where that is unknown, 2³¹ entries). A coordinate file
// can describe a large dense matrix in a few bytes, so the size of its
// result is only bounded by the latter. With an unknown size only the
// latter applies, and the result is allocated at once.
//
// Errors give the 1-based line and, where it applies, the field
// ("column") of the line at fault. A malformed or unsupported banner or
// size line, a wrong number of fields, a malformed number, an index out
// of range, a diagonal entry of a skew-symmetric matrix, too many or too
// few entries (a truncated input) give an error matching ErrFormat. A NaN
// or infinite entry, a number too large for float64, an entry too large
// for float32 when the result is Float32, and a sum of duplicates that
// overflows give an error matching ErrNotFinite that names the 0-based
// (row, column) of the entry, as for ReadNPY.
func DecodeMTX(r io.Reader, size int64, opt *ReadOptions) (*tensor.Dense, error) {
	return decodeStream(r, size, opt, decodeMTX)
}

func decodeMTX(r io.Reader, size int64, tg target) (*tensor.Dense, error) {
	dt := tg.dt
	if dt.Type == nil {
		dt = tensor.Float64
	}
	s := newMTXScanner(r, size)
	esize := 8
	if dt == tensor.Float32 {
		esize = 4
	}
	h, err := readMTXHeader(s, size, esize)
	if err != nil {
		return nil, err
	}
	h.narrow, h.scale = esize == 4, tg.scale()
	if h.field == mtxPattern && tg.note != nil {
		tg.note("pattern entries read as 1, the entries not listed as 0")
	}
	var backing any
	if esize == 4 {
		backing, err = readMTXData[float32](s, h)
	} else {
		backing, err = readMTXData[float64](s, h)
	}
	if err == nil && h.narrow {
		err = h.rng.err(h.scale)
	}
	if err != nil {
		return nil, err
	}
	return tensor.New(tensor.WithShape(h.m, h.n), tensor.WithBacking(backing)), nil
}

// readMTXHeader reads the banner and the size line and checks the claimed
// size against size (the bytes of the input, or -1) and the memory limit
// for elements of esize bytes.
func readMTXHeader(s *mtxScanner, size int64, esize int) (*mtxHeader, error) {
	line, err := s.next()
	if err == io.EOF {
		return nil, &dataError{msg: "empty input: no Matrix Market banner", line: 1, off: -1, kind: ErrFormat, cause: io.ErrUnexpectedEOF}
	}
	if err != nil {
		return nil, err
	}
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	var f [6][]byte
	nf := mtxFields(line, f[:])
	if nf == 0 || !bytes.EqualFold(f[0], []byte("%%MatrixMarket")) {
		return nil, lineErr(1, 0, "not a Matrix Market file: the first line does not start with %%MatrixMarket")
	}
	const want = "(%%MatrixMarket matrix FORMAT FIELD SYMMETRY)"
	if nf < 5 {
		return nil, lineErr(1, 0, fmt.Sprintf("banner has %d fields, want 5 %s", nf, want))
	}
	if nf > 5 {
		return nil, lineErr(1, 6, fmt.Sprintf("unexpected banner field %q: want 5 fields %s", clip(string(f[5])), want))
	}
	var word [len(mtxBanner)]int
	for k, field := range mtxBanner {
		w := f[k+1]
		word[k] = slices.IndexFunc(field.words, func(s string) bool { return bytes.EqualFold(w, []byte(s)) })
		switch {
		case word[k] >= 0:
		case field.refused != "" && bytes.EqualFold(w, []byte(field.refused)):
			return nil, lineErr(1, k+2, field.why)
		default:
			return nil, lineErr(1, k+2, fmt.Sprintf("%s %q: want %s", field.unknown, clip(string(w)), orList(field.words)))
		}
	}
	h := &mtxHeader{coordinate: word[1] == 1, field: word[2], sym: word[3]}
	switch {
	case h.field == mtxPattern && !h.coordinate:
		return nil, lineErr(1, 4, "the pattern field requires the coordinate format")
	case h.field == mtxPattern && h.sym == mtxSkew:
		return nil, lineErr(1, 5, "a pattern matrix cannot be skew-symmetric")
	}

	// The size line, after comments and blank lines.
	for {
		line, err = s.next()
		if err == io.EOF {
			return nil, &dataError{msg: "input ends before the size line", line: s.line, off: -1, kind: ErrFormat, cause: io.ErrUnexpectedEOF}
		}
		if err != nil {
			return nil, err
		}
		nf = mtxFields(line, f[:4])
		if nf > 0 && f[0][0] != '%' {
			break
		}
	}
	h.sizeLine = s.line
	wantFields, what := 2, "rows columns"
	if h.coordinate {
		wantFields, what = 3, "rows columns entries"
	}
	if nf != wantFields {
		return nil, lineErr(s.line, 0, fmt.Sprintf("size line has %s fields, want %d (%s)", countString(nf, len(f[:4])), wantFields, what))
	}
	var dims [3]int64
	names := [3]string{"row count", "column count", "entry count"}
	for k := range wantFields {
		v, ok := parseMTXCount(f[k])
		if !ok {
			return nil, lineErr(s.line, k+1, fmt.Sprintf("bad %s %q", names[k], clip(string(f[k]))))
		}
		dims[k] = v
	}
	shape := []int64{dims[0], dims[1]}
	if dims[0] == 0 || dims[1] == 0 {
		return nil, lineErr(s.line, 0, fmt.Sprintf("empty matrix of shape %s", shapeString(shape)))
	}
	if h.sym != mtxGeneral && dims[0] != dims[1] {
		return nil, lineErr(s.line, 0, fmt.Sprintf("%s matrix of shape %s is not square", mtxSymNames[h.sym], shapeString(shape)))
	}
	hi, count := bits.Mul64(uint64(dims[0]), uint64(dims[1]))
	limit, why := entryLimit(esize)
	if hi != 0 || count > uint64(limit) {
		n := "too many entries"
		if hi == 0 {
			n = fmt.Sprintf("%d entries", count)
		}
		return nil, lineErr(s.line, 0, fmt.Sprintf("matrix of shape %s has %s, more than %s", shapeString(shape), n, why))
	}
	h.m, h.n = int(dims[0]), int(dims[1])
	left := int64(-1) // bytes after the size line
	if size >= 0 {
		left = max(0, size-s.offset())
	}
	if h.coordinate {
		if int64(int(dims[2])) != dims[2] {
			return nil, lineErr(s.line, 3, fmt.Sprintf("entry count %d is too large for this platform", dims[2]))
		}
		h.nnz = int(dims[2])
		h.entries = h.nnz
		per := int64(mtxMinCoordLine) // dims[2]*per does not overflow: see parseMTXCount
		if h.field == mtxPattern {
			per = mtxMinPatternLine
		}
		if left >= 0 && dims[2] > 0 && dims[2] > (left+1)/per {
			return nil, lineErr(s.line, 3, fmt.Sprintf("size line claims %d entries, which take at least %d bytes (%d per line), but only %d bytes follow",
				dims[2], dims[2]*per-1, per, left))
		}
		return h, nil
	}
	// count <= limit <= math.MaxInt/8: no overflow below.
	switch h.sym {
	case mtxGeneral:
		h.entries = int(count)
	case mtxSymmetric:
		h.entries = int(dims[0] * (dims[0] + 1) / 2)
	default:
		h.entries = int(dims[0] * (dims[0] - 1) / 2)
	}
	if e := int64(h.entries); left >= 0 && e > 0 && e > (left+1)/mtxMinArrayLine {
		return nil, lineErr(s.line, 0, fmt.Sprintf("size line claims a %s array of %d listed entries, which take at least %d bytes, but only %d bytes follow",
			mtxSymNames[h.sym], e, e*mtxMinArrayLine-1, left))
	}
	return h, nil
}

// countString formats a field count n found by mtxFields with at most max
// fields.
func countString(n, max int) string {
	if n > max {
		return fmt.Sprintf("more than %d", max)
	}
	return strconv.Itoa(n)
}

// readMTXData reads the entries described by h into a new row-major []T.
func readMTXData[T float](s *mtxScanner, h *mtxHeader) ([]T, error) {
	dst := makeFloats[T](h.m * h.n)
	var err error
	if h.coordinate {
		err = readMTXCoordinate(s, h, dst)
	} else {
		err = readMTXArray(s, h, dst)
	}
	if err != nil {
		return nil, err
	}
	// Only comments and blank lines may follow.
	var f [1][]byte
	for {
		line, err := s.next()
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, err
		}
		if nf := mtxFields(line, f[:]); nf > 0 && f[0][0] != '%' {
			if h.coordinate {
				return nil, lineErr(s.line, 0, fmt.Sprintf("more entry lines than the %d of the size line (line %d)", h.nnz, h.sizeLine))
			}
			return nil, lineErr(s.line, 0, fmt.Sprintf("more entries than the %d that a %d×%d %s array lists", h.entries, h.m, h.n, mtxSymNames[h.sym]))
		}
	}
}

// readMTXArray reads the h.entries values of an array file, column by
// column, into dst.
func readMTXArray[T float](s *mtxScanner, h *mtxHeader, dst []T) error {
	m, n := h.m, h.n
	// Column j lists rows j+first .. m-1 (first is 0 for a symmetric and
	// 1 for a skew-symmetric matrix), or all rows for a general one.
	first := 0
	if h.sym == mtxSkew {
		first = 1
	}
	i, j := first, 0
	if h.sym == mtxGeneral {
		i = 0
	}
	var f [2][]byte
	for k := 0; k < h.entries; {
		line, err := s.next()
		if err != nil {
			return s.endErr(err, k, h)
		}
		tok := trimMTXBlanks(line)
		if len(tok) == 0 || tok[0] == '%' {
			continue
		}
		x, err := mtxValue[T](h, tok, s.line, 1, i, j)
		if err != nil {
			// Several fields are not a number either.
			if mtxFields(tok, f[:]) != 1 {
				return lineErr(s.line, 2, "the array format has one entry per line, found more")
			}
			return err
		}
		dst[i*n+j] = x
		switch h.sym {
		case mtxSymmetric:
			dst[j*n+i] = x
		case mtxSkew:
			dst[j*n+i] = -x
		}
		k++
		if i++; i == m {
			j++
			i = 0
			if h.sym != mtxGeneral {
				i = j + first
			}
		}
	}
	return nil
}

// readMTXCoordinate reads the h.nnz entry lines of a coordinate file into
// dst, which is zero.
func readMTXCoordinate[T float](s *mtxScanner, h *mtxHeader, dst []T) error {
	m, n := h.m, h.n
	want := 3
	if h.field == mtxPattern {
		want = 2
	}
	for k := 0; k < h.nnz; {
		line, err := s.next()
		if err != nil {
			return s.endErr(err, k, h)
		}
		i, j, tok, ok := mtxCoordFast(line, m, n, want)
		if !ok {
			var skip bool
			i, j, tok, skip, err = mtxCoordSlow(line, s.line, m, n, want)
			if err != nil {
				return err
			}
			if skip {
				continue
			}
		}
		x := T(h.scale) // a pattern entry: 1
		if want == 3 {
			if x, err = mtxValue[T](h, tok, s.line, 3, i, j); err != nil {
				return err
			}
		}
		if i == j && h.sym == mtxSkew {
			return lineErr(s.line, 0, fmt.Sprintf("diagonal entry (%d, %d) in a skew-symmetric matrix", i, j))
		}
		if err := addEntry(dst, i*n+j, x, s.line, i, j); err != nil {
			return err
		}
		if i != j {
			switch h.sym {
			case mtxSymmetric:
				err = addEntry(dst, j*n+i, x, s.line, j, i)
			case mtxSkew:
				err = addEntry(dst, j*n+i, -x, s.line, j, i)
			}
			if err != nil {
				return err
			}
		}
		k++
	}
	return nil
}

// mtxCoordFast parses the entry line of a coordinate file with want
// fields (3, or 2 for pattern) of an m×n matrix when it is well-formed,
// returning the 0-based indices and the value field. ok is false for any
// other line, which mtxCoordSlow then handles.
func mtxCoordFast(line []byte, m, n, want int) (i, j int, tok []byte, ok bool) {
	p := skipMTXBlanks(line, 0)
	if i, p = scanMTXIndex(line, p, m); i < 0 || p == len(line) || !isMTXBlank(line[p]) {
		return 0, 0, nil, false
	}
	p = skipMTXBlanks(line, p)
	if j, p = scanMTXIndex(line, p, n); j < 0 {
		return 0, 0, nil, false
	}
	if want == 3 {
		if p == len(line) || !isMTXBlank(line[p]) {
			return 0, 0, nil, false
		}
		p = skipMTXBlanks(line, p)
		start := p
		for p < len(line) && !isMTXBlank(line[p]) {
			p++
		}
		tok = line[start:p]
	}
	return i, j, tok, skipMTXBlanks(line, p) == len(line) && (want == 2 || len(tok) > 0)
}

// mtxCoordSlow handles the entry lines that mtxCoordFast does not: it
// reports blank lines and comments with skip, returns the error for a
// malformed line, and parses any other.
func mtxCoordSlow(line []byte, lineNo, m, n, want int) (i, j int, tok []byte, skip bool, err error) {
	var f [4][]byte
	nf := mtxFields(line, f[:])
	if nf == 0 || f[0][0] == '%' {
		return 0, 0, nil, true, nil
	}
	if nf != want {
		msg := "entry line has %s fields, want 3 (row column value)"
		if want == 2 {
			msg = "entry line has %s fields, want 2 (row column) for a pattern matrix"
		}
		col := 0
		if nf > want {
			col = want + 1
		}
		return 0, 0, nil, false, lineErr(lineNo, col, fmt.Sprintf(msg, countString(nf, len(f))))
	}
	if i = parseMTXIndex(f[0], m); i < 0 {
		return 0, 0, nil, false, lineErr(lineNo, 1, fmt.Sprintf("row index %q is not in [1, %d]", clip(string(f[0])), m))
	}
	if j = parseMTXIndex(f[1], n); j < 0 {
		return 0, 0, nil, false, lineErr(lineNo, 2, fmt.Sprintf("column index %q is not in [1, %d]", clip(string(f[1])), n))
	}
	return i, j, f[2], false, nil
}

// scanMTXIndex parses the 1-based index in [1, max] starting at line[p]
// and returns it 0-based, or -1, and the position after its digits.
func scanMTXIndex(line []byte, p, max int) (int, int) {
	start := p
	var v uint64
	for p < len(line) && line[p]-'0' <= 9 && p-start < 19 {
		v = v*10 + uint64(line[p]-'0')
		p++
	}
	if p == start || v < 1 || v > uint64(max) {
		return -1, p
	}
	return int(v) - 1, p
}

// skipMTXBlanks returns the position of the first non-blank byte of line
// from p on, or len(line).
func skipMTXBlanks(line []byte, p int) int {
	for p < len(line) && isMTXBlank(line[p]) {
		p++
	}
	return p
}

// trimMTXBlanks returns line without its leading and trailing blanks.
func trimMTXBlanks(line []byte) []byte { return trimBytes(line, isMTXBlank) }

// addEntry adds x to dst[p], entry (i, j) listed at line, and checks that
// the sum is finite.
func addEntry[T float](dst []T, p int, x T, line, i, j int) error {
	y := dst[p] + x
	if y-y != 0 {
		return &dataError{msg: fmt.Sprintf("sum of duplicate entries at (%d, %d) overflows %s", i, j, floatName[T]()),
			line: line, off: -1, kind: ErrNotFinite}
	}
	dst[p] = y
	return nil
}

// floatName returns the name of T: "float64" or "float32".
func floatName[T float]() string {
	var z T
	return esizeName(int(unsafe.Sizeof(z)))
}

// mtxValue parses tok, field col of line, the entry (i, j), as a value of
// the field of h converted to T.
func mtxValue[T float](h *mtxHeader, tok []byte, line, col, i, j int) (T, error) {
	var v float64
	var st int
	if h.field == mtxInteger {
		v, st = parseMTXInt(tok)
	} else {
		v, st = parseMTXReal(tok)
	}
	if h.narrow && st == numOK && v-v == 0 {
		h.rng.observe(v)
		x := T(v * h.scale)
		if x-x != 0 { // a RangeError at the end
			h.rng.overflow(&dataError{msg: fmt.Sprintf("entry %g at (%d, %d) overflows float32", v, i, j), line: line, col: col, off: -1, kind: ErrNotFinite})
			return 0, nil
		}
		return x, nil
	}
	x := T(v)
	if st == numOK && x-x == 0 {
		return x, nil
	}
	e := &dataError{line: line, col: col, off: -1, kind: ErrNotFinite}
	switch {
	case st == numSyntax:
		e.kind = ErrFormat
		e.msg = fmt.Sprintf("bad %s number %q", mtxFieldNames[h.field], clip(string(tok)))
	case st == numRange:
		e.msg = fmt.Sprintf("entry %s at (%d, %d) overflows float64", clip(string(tok)), i, j)
	case v-v != 0:
		e.msg = fmt.Sprintf("non-finite entry %v at (%d, %d)", v, i, j)
	default:
		e.msg = fmt.Sprintf("entry %g at (%d, %d) overflows float32", v, i, j)
	}
	return 0, e
}

// Results of the number parsers.
const (
	numOK = iota
	numSyntax
	numRange // finite syntax, too large for float64
)

// parseMTXReal parses a real number: anything strconv.ParseFloat accepts,
// and Fortran exponents (1.5D+03).
func parseMTXReal(tok []byte) (float64, int) {
	if v, ok := parseDecimal(tok); ok {
		return v, numOK
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	if err == nil {
		return v, numOK
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return v, numRange
	}
	var buf [64]byte
	if len(tok) > len(buf) {
		return 0, numSyntax
	}
	b := buf[:len(tok)]
	swapped := false
	for k, c := range tok {
		if c == 'd' || c == 'D' {
			c = 'e'
			swapped = true
		}
		b[k] = c
	}
	if !swapped {
		return 0, numSyntax
	}
	v, err = strconv.ParseFloat(string(b), 64)
	if err == nil {
		return v, numOK
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return v, numRange
	}
	return 0, numSyntax
}

// parseMTXInt parses a decimal integer with an optional sign.
func parseMTXInt(tok []byte) (float64, int) {
	d := tok
	neg := false
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg = d[0] == '-'
		d = d[1:]
	}
	if len(d) == 0 {
		return 0, numSyntax
	}
	var u int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, numSyntax
		}
		u = u*10 + int64(c-'0') // may wrap; only used for <= 18 digits
	}
	if len(d) <= 18 {
		if neg {
			u = -u
		}
		return float64(u), numOK
	}
	// Correctly rounded, like every decimal integer ParseFloat reads.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	if err != nil {
		return v, numRange // the syntax is that of a valid integer
	}
	return v, numOK
}

// parseMTXCount parses a non-negative decimal integer of the size line; ok
// is false for bad syntax and values above math.MaxInt64/10.
func parseMTXCount(tok []byte) (int64, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range tok {
		if c < '0' || c > '9' || v > math.MaxInt64/100 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseMTXIndex parses a 1-based index in [1, max] and returns it 0-based,
// or -1 if tok is not such an index.
func parseMTXIndex(tok []byte, max int) int {
	if len(tok) == 0 || len(tok) > 19 {
		return -1
	}
	var v uint64
	for _, c := range tok {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + uint64(c-'0') // 19 digits do not overflow a uint64
	}
	if v < 1 || v > uint64(max) {
		return -1
	}
	return int(v) - 1
}

// isMTXBlank reports whether c separates fields: a space, a tab, '\r',
// '\v' or '\f' ('\n' ends lines before fields are split).
func isMTXBlank(c byte) bool { return c == ' ' || c-'\t' <= '\r'-'\t' }

// mtxFields splits line into fields separated by blanks, storing up to
// len(f) of them in f, and returns their number, or len(f)+1 if there are
// more.
func mtxFields(line []byte, f [][]byte) int {
	nf, i := 0, 0
	for {
		for i < len(line) && isMTXBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return nf
		}
		if nf == len(f) {
			return nf + 1
		}
		j := i
		for j < len(line) && !isMTXBlank(line[j]) {
			j++
		}
		f[nf] = line[i:j]
		nf++
		i = j
	}
}

// esizeName returns the name of the float type of esize bytes.
func esizeName(esize int) string {
	if esize == 4 {
		return "float32"
	}
	return "float64"
}

// byteString formats n bytes with a binary unit.
func byteString(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// mtxScanner splits its input into lines.
type mtxScanner struct {
	r       io.Reader
	buf     []byte
	lo, hi  int   // buf[lo:hi] is read and not yet returned
	scanned int   // buf[lo:scanned] holds no '\n'
	base    int64 // input offset of buf[0]
	eof     bool
	line    int // 1-based number of the line last returned
}

func newMTXScanner(r io.Reader, size int64) *mtxScanner {
	n := mtxReadBuf
	if size >= 0 && size < int64(n) {
		n = max(int(size)+1, 512) // the whole input and EOF in one read
	}
	return &mtxScanner{r: r, buf: make([]byte, n)}
}

// offset returns the input offset of the next line.
func (s *mtxScanner) offset() int64 { return s.base + int64(s.lo) }

// next returns the next line without its '\n', or io.EOF at the end of
// the input. The line is valid until the next call.
func (s *mtxScanner) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(s.buf[s.scanned:s.hi], '\n'); i >= 0 {
			end := s.scanned + i
			line := s.buf[s.lo:end]
			s.lo, s.scanned = end+1, end+1
			s.line++
			return line, nil
		}
		s.scanned = s.hi
		if s.eof {
			if s.lo == s.hi {
				return nil, io.EOF
			}
			line := s.buf[s.lo:s.hi]
			s.lo = s.hi
			s.line++
			return line, nil
		}
		if s.lo == 0 && s.hi == len(s.buf) {
			// A line fills the buffer.
			if len(s.buf) < mtxMaxLine {
				nb := make([]byte, min(2*len(s.buf), mtxMaxLine))
				copy(nb, s.buf[:s.hi])
				s.buf = nb
			} else if isComment(s.buf[:s.hi]) {
				if err := s.skipLine(); err != nil {
					return nil, err
				}
				s.line++
				return s.buf[s.lo:s.lo], nil
			} else {
				return nil, lineErr(s.line+1, 0, fmt.Sprintf("line longer than %d bytes", mtxMaxLine))
			}
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// isComment reports whether the start of a line b is that of a comment.
func isComment(b []byte) bool {
	for _, c := range b {
		if !isMTXBlank(c) {
			return c == '%'
		}
	}
	return false
}

// skipLine discards the rest of the current line, up to its '\n'.
func (s *mtxScanner) skipLine() error {
	for {
		s.base += int64(s.hi)
		s.lo, s.hi, s.scanned = 0, 0, 0
		if err := s.fill(); err != nil {
			return err
		}
		if i := bytes.IndexByte(s.buf[:s.hi], '\n'); i >= 0 {
			s.lo, s.scanned = i+1, i+1
			return nil
		}
		if s.eof {
			s.lo, s.scanned = s.hi, s.hi
			return nil
		}
	}
}

// fill moves the unread data to the start of the buffer and reads more.
func (s *mtxScanner) fill() error {
	if s.lo > 0 {
		copy(s.buf, s.buf[s.lo:s.hi])
		s.base += int64(s.lo)
		s.hi -= s.lo
		s.scanned -= s.lo
		s.lo = 0
	}
	for empty := 0; ; empty++ {
		k, err := s.r.Read(s.buf[s.hi:])
		s.hi += k
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil {
			return &dataError{msg: "reading input", line: s.line + 1, off: -1, cause: err}
		}
		if k > 0 {
			return nil
		}
		if empty == 100 {
			return &dataError{msg: "reading input", line: s.line + 1, off: -1, cause: io.ErrNoProgress}
		}
	}
}

// endErr returns the error for err, returned by next after k of the
// entries of h were read.
func (s *mtxScanner) endErr(err error, k int, h *mtxHeader) error {
	if err != io.EOF {
		return err
	}
	return &dataError{
		msg:   fmt.Sprintf("input ends after %d of the %d entries", k, h.entries),
		line:  s.line,
		off:   -1,
		kind:  ErrFormat,
		cause: io.ErrUnexpectedEOF,
	}
}

// parseDecimal parses the common forms of decimal numbers, an optional
// sign, digits with an optional decimal point and an optional exponent,
// as strconv.ParseFloat does (correctly rounded) but several times
// faster. ok is false for anything else, including numbers of more than
// 19 significant digits, overflows and the rare cases that need more
// precision than 128 bits, which are left to strconv.ParseFloat.
func parseDecimal(s []byte) (v float64, ok bool) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] == '0' {
		i++
	}
	// The significant digits are accumulated in man; a 20th digit is
	// refused below, before the overflowed man is used.
	var man uint64
	d0 := i
	for i < len(s) && s[i]-'0' <= 9 {
		man = man*10 + uint64(s[i]-'0')
		i++
	}
	nd := i - d0
	digits := i > start
	exp := 0
	if i < len(s) && s[i] == '.' {
		i++
		f0 := i
		if nd == 0 {
			for i < len(s) && s[i] == '0' {
				i++
			}
		}
		d1 := i
		// Eight digits at a time (Lemire's SWAR parsing).
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[i:])
			if (x&0xF0F0F0F0F0F0F0F0)|(((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) != 0x3333333333333333 {
				break
			}
			x -= 0x3030303030303030
			x = x*10 + x>>8
			x = ((x&0x000000FF000000FF)*(100+(1000000<<32)) + (x>>16&0x000000FF000000FF)*(1+(10000<<32))) >> 32
			man = man*100000000 + x
			i += 8
		}
		for i < len(s) && s[i]-'0' <= 9 {
			man = man*10 + uint64(s[i]-'0')
			i++
		}
		nd += i - d1
		exp = f0 - i
		digits = digits || i > f0
	}
	if !digits || nd > 19 {
		return 0, false
	}
	if i < len(s) {
		if s[i]|0x20 != 'e' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, false
		}
		x := 0
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return 0, false
			}
			if x < 100000 {
				x = x*10 + int(c)
			}
		}
		if eneg {
			x = -x
		}
		exp += x
	}
	if man>>53 == 0 {
		// Clinger's fast path: man and 10^|exp| are exact float64s, so
		// one correctly rounded operation gives the result.
		f := float64(man)
		if neg {
			f = -f
		}
		switch {
		case exp == 0 || man == 0:
			return f, true
		case exp > 0 && exp <= 22:
			return f * exactPow10[exp], true
		case exp < 0 && exp >= -22:
			return f / exactPow10[-exp], true
		}
	}
	return eiselLemire(man, exp, neg)
}

// exactPow10 holds the powers of 10 that are exact float64s.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// The range of powers of 10 of pow10Table.
const (
	pow10Min = -348
	pow10Max = 347
)

// pow10Table returns the 128 most significant bits of 10^q, rounded
// down, as {low, high} 64-bit words at index q-pow10Min. It is computed
// once, when first needed (in about a millisecond).
var pow10Table = sync.OnceValue(func() *[pow10Max - pow10Min + 1][2]uint64 {
	var t [pow10Max - pow10Min + 1][2]uint64
	ten := big.NewInt(10)
	mask := new(big.Int).SetUint64(math.MaxUint64)
	for q := pow10Min; q <= pow10Max; q++ {
		var x *big.Int
		if q >= 0 {
			x = new(big.Int).Exp(ten, big.NewInt(int64(q)), nil)
			if sh := x.BitLen() - 128; sh > 0 {
				x.Rsh(x, uint(sh))
			} else {
				x.Lsh(x, uint(-sh))
			}
		} else {
			// 2^k / 10^-q lies in (2^127, 2^128) for this k, since
			// 10^-q is not a power of 2.
			d := new(big.Int).Exp(ten, big.NewInt(int64(-q)), nil)
			x = new(big.Int).Lsh(big.NewInt(1), uint(d.BitLen()+127))
			x.Quo(x, d)
		}
		lo := new(big.Int).And(x, mask).Uint64()
		hi := new(big.Int).Rsh(x, 64).Uint64()
		t[q-pow10Min] = [2]uint64{lo, hi}
	}
	return &t
})

// eiselLemire returns the float64 nearest to man × 10^exp10, negated if
// neg, by the algorithm of Eisel and Lemire (D. Lemire, "Number parsing at
// a gigabyte per second", Software: Practice and Experience 51(8), 2021),
// as strconv does. ok is false when 128 bits of 10^exp10 do not decide
// the rounding, and for results that are subnormal, zero or infinite.
func eiselLemire(man uint64, exp10 int, neg bool) (v float64, ok bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	p := &pow10Table()[exp10-pow10Min]
	// Normalize man and estimate the binary exponent:
	// 217706/2^16 approximates log2(10).
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	exp2 := uint64(217706*exp10>>16+64+1023) - uint64(clz)
	xHi, xLo := bits.Mul64(man, p[1])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		// The low bits are inconclusive: bring in the next 64 bits
		// of 10^exp10.
		yHi, yLo := bits.Mul64(man, p[0])
		mHi, mLo := xHi, xLo+yHi
		if mLo < xLo {
			mHi++
		}
		if mHi&0x1FF == 0x1FF && mLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mHi, mLo
	}
	// Keep 54 bits, then round to 53.
	msb := xHi >> 63
	m := xHi >> (msb + 9)
	exp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && m&3 == 1 {
		return 0, false // halfway between two float64s
	}
	m += m & 1
	m >>= 1
	if m>>53 > 0 {
		m >>= 1
		exp2++
	}
	if exp2-1 >= 0x7FF-1 {
		return 0, false // subnormal, zero or infinite
	}
	b := exp2<<52 | m&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
