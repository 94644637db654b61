package datasets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"unsafe"
)

// The Matrix Market reader's lexical layer: the line scanner, the splitting
// of entry lines into fields and the parsers of their numbers.

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
