package datasets

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
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
