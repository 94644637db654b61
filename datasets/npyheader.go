package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

const (
	// npyMagic starts every .npy file.
	npyMagic = "\x93NUMPY"
	// maxHeaderLen bounds the header length a file may claim.
	maxHeaderLen = 1 << 20
	// maxNesting bounds the nesting depth of literals in a header.
	maxNesting = 8
	// maxItems bounds the length of a tuple or list in a header (NumPy
	// arrays have at most 64 dimensions).
	maxItems = 64
)

// npyKeys are the keys of a header dictionary, each required once.
var npyKeys = [...]string{"descr", "fortran_order", "shape"}

// npyHeader is the decoded header of a .npy file.
type npyHeader struct {
	major, minor int
	dataOff      int64 // byte offset of the payload
	descr        string
	kind         byte // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
	itemSize     int  // bytes per element
	bigEndian    bool // byte order of multi-byte elements
	fortran      bool
	shape        []int64
	vector       bool // a 1-D array is accepted as a 1×n matrix
	stack        bool // a 3-D array (B, m, n) is read as B·m × n; games = B
	games        int
	ndim         int     // the number of dimensions the header gave
	shown        []int64 // the shape for messages, when not shape (a stack)
	lenient      bool    // non-finite entries are left for the caller to find
	shapeOff     int64   // byte offset of the shape in the header
	nbytes       int64   // m*n*itemSize
	m, n         int     // set by checkPlatform
	rowOff       int     // the first row of a block of rows (ReadNPYRows), for messages
	count        int     // m*n, set by checkPlatform
}

// checkPayload checks that the input of size bytes (−1: unknown) holds the
// header's payload and that the result fits the platform (checkPlatform).
func (h *npyHeader) checkPayload(size int64) error {
	if size >= 0 && h.nbytes > size-h.dataOff {
		return h.truncated(size - h.dataOff)
	}
	return h.checkPlatform()
}

// checkPlatform checks that a result of the header's shape can be indexed
// with ints and sets m, n and count.
func (h *npyHeader) checkPlatform() error {
	count := h.shape[0] * h.shape[1] // no overflow: checked by parseDict
	if uint64(count) > uint64(math.MaxInt)/8 {
		noun := "matrix"
		if h.shown != nil {
			noun = "stack"
		}
		return formatErr(h.shapeOff, fmt.Sprintf("%s of shape %s is too large for this platform", noun, h.shapeText()))
	}
	h.m, h.n, h.count = int(h.shape[0]), int(h.shape[1]), int(count)
	return nil
}

// readNPYHeader reads and checks the header of a .npy stream holding a 2-D
// array. size is the number of bytes available from r, or -1 if unknown.
func readNPYHeader(r io.Reader, size int64) (*npyHeader, error) { return readHeader(r, size, false) }

// readHeader is readNPYHeader; with vector, a 1-D array of length n is
// accepted too, as a 1×n matrix.
func readHeader(r io.Reader, size int64, vector bool) (*npyHeader, error) {
	return readHeaderOf(r, size, &npyHeader{vector: vector})
}

// readHeaderOf reads a header into h, whose vector and stack fields say
// which shapes are accepted.
func readHeaderOf(r io.Reader, size int64, h *npyHeader) (*npyHeader, error) {
	var pre [12]byte
	if size >= 0 && size < 10 {
		return nil, &dataError{msg: fmt.Sprintf("input of %d bytes is too short for an npy header", size), off: -1, kind: ErrFormat, cause: io.ErrUnexpectedEOF}
	}
	if k, err := io.ReadFull(r, pre[:10]); err != nil {
		return nil, readErr(err, 0, "npy preamble", 10, int64(k))
	}
	if string(pre[:6]) != npyMagic {
		return nil, formatErr(0, fmt.Sprintf("not an npy file: bad magic %q", pre[:6]))
	}
	h.major, h.minor = int(pre[6]), int(pre[7])
	var hlen int64
	switch {
	case h.major == 1 && h.minor == 0:
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		h.dataOff = 10 + hlen
	case (h.major == 2 || h.major == 3) && h.minor == 0:
		if k, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, readErr(err, 10, "npy header length", 2, int64(k))
		}
		hlen = int64(binary.LittleEndian.Uint32(pre[8:12]))
		if hlen > maxHeaderLen {
			return nil, formatErr(8, fmt.Sprintf("header length %d exceeds the limit of %d bytes", hlen, maxHeaderLen))
		}
		h.dataOff = 12 + hlen
	default:
		return nil, formatErr(6, fmt.Sprintf("unsupported npy format version %d.%d", h.major, h.minor))
	}
	start := h.dataOff - hlen
	if size >= 0 && h.dataOff > size {
		return nil, &dataError{
			msg:   fmt.Sprintf("header starting at byte offset %d truncated: expected %d bytes, found %d", start, hlen, max(0, size-start)),
			off:   -1,
			kind:  ErrFormat,
			cause: io.ErrUnexpectedEOF,
		}
	}
	var buf []byte
	if size >= 0 {
		buf = make([]byte, hlen)
		if k, err := io.ReadFull(r, buf); err != nil {
			return nil, readErr(err, start, "header", hlen, int64(k))
		}
	} else {
		// The header length is unchecked: let the buffer grow with
		// the data rather than trust it.
		var err error
		buf, err = io.ReadAll(io.LimitReader(r, hlen))
		if err == nil && int64(len(buf)) < hlen {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, readErr(err, start, "header", hlen, int64(len(buf)))
		}
	}
	if err := h.parseDict(buf, start); err != nil {
		return nil, err
	}
	return h, nil
}

// readErr converts an error of io.ReadFull reading want bytes at offset off
// into a *dataError: a short read is a truncation (ErrFormat), anything
// else an I/O error.
func readErr(err error, off int64, what string, want, got int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &dataError{
			msg:   fmt.Sprintf("%s starting at byte offset %d truncated: expected %d bytes, found %d", what, off, want, got),
			off:   -1,
			kind:  ErrFormat,
			cause: io.ErrUnexpectedEOF,
		}
	}
	return &dataError{msg: "reading " + what, off: off + got, cause: err}
}

// parseDict parses the header dictionary s found at byte offset base and
// fills in h.
func (h *npyHeader) parseDict(s []byte, base int64) error {
	p := &pyParser{s: s, base: base}
	p.skipSpace()
	if !p.consume('{') {
		return p.errorf("header does not start with '{'")
	}
	var seen [len(npyKeys)]bool
	var shape []int64
	var shapeOff int64
	for {
		p.skipSpace()
		if p.consume('}') {
			break
		}
		keyOff := p.off()
		key, err := p.value(0)
		if err != nil {
			return err
		}
		if key.kind != pyStr {
			return formatErr(keyOff, "header key is not a string")
		}
		p.skipSpace()
		if !p.consume(':') {
			return p.errorf("expected ':' after key %q", clip(key.s))
		}
		p.skipSpace()
		valOff := p.off()
		k := slices.Index(npyKeys[:], key.s)
		if k < 0 {
			return formatErr(keyOff, fmt.Sprintf("unexpected header key %q", clip(key.s)))
		}
		if key.s == "descr" && p.pos < len(p.s) && (p.s[p.pos] == '[' || p.s[p.pos] == '(') {
			return formatErr(valOff, "unsupported dtype: structured arrays are not supported")
		}
		val, err := p.value(0)
		if err != nil {
			return err
		}
		if seen[k] {
			return formatErr(keyOff, "duplicate header key '"+key.s+"'")
		}
		seen[k] = true
		switch key.s {
		case "descr":
			if val.kind != pyStr {
				return formatErr(valOff, "unsupported dtype: 'descr' is not a string")
			}
			if err := h.setDescr(val.s); err != nil {
				err.off = valOff
				return err
			}
		case "fortran_order":
			if val.kind != pyBool {
				return formatErr(valOff, "'fortran_order' is not True or False")
			}
			h.fortran = val.b
		default: // "shape"
			if val.kind != pyTuple && val.kind != pyList {
				return formatErr(valOff, "'shape' is not a tuple")
			}
			shape = make([]int64, len(val.items))
			for i, it := range val.items {
				if it.kind != pyInt || it.i < 0 {
					return formatErr(valOff, "'shape' is not a tuple of non-negative integers")
				}
				shape[i] = it.i
			}
			shapeOff = valOff
		}
		p.skipSpace()
		if p.consume(',') {
			continue
		}
		p.skipSpace()
		if p.consume('}') {
			break
		}
		return p.errorf("expected ',' or '}' in header")
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return p.errorf("unexpected data after the header dictionary")
	}
	for k, key := range npyKeys {
		if !seen[k] {
			return formatErr(base, "header has no '"+key+"' key")
		}
	}
	h.ndim = len(shape)
	if h.vector && len(shape) == 1 {
		shape = []int64{1, shape[0]}
	}
	if h.stack {
		if len(shape) != 3 {
			return formatErr(shapeOff, fmt.Sprintf("array of shape %s is not a 3-D stack of matrices (B, m, n)", shapeString(shape)))
		}
		if shape[0] == 0 || shape[1] == 0 || shape[2] == 0 {
			return formatErr(shapeOff, fmt.Sprintf("empty stack of shape %s", shapeString(shape)))
		}
		if h.fortran {
			return formatErr(shapeOff, "a 3-D stack in Fortran order is not supported: save it in C order (numpy.ascontiguousarray)")
		}
		hi, lo := bits.Mul64(uint64(shape[0]), uint64(shape[1]))
		if hi != 0 || lo > math.MaxInt64/8 || shape[0] > math.MaxInt32 {
			return formatErr(shapeOff, fmt.Sprintf("stack of shape %s is too large", shapeString(shape)))
		}
		h.games = int(shape[0])
		h.shown = shape
		shape = []int64{int64(lo), shape[2]}
		if hi, lo := bits.Mul64(lo, uint64(shape[1])); hi != 0 || lo > math.MaxInt64/8 {
			return formatErr(shapeOff, fmt.Sprintf("stack of shape %s is too large", shapeString(h.shown)))
		}
	}
	if len(shape) != 2 {
		return formatErr(shapeOff, fmt.Sprintf("array of shape %s is not a 2-D matrix", shapeString(shape)))
	}
	if shape[0] == 0 || shape[1] == 0 {
		return formatErr(shapeOff, fmt.Sprintf("empty matrix of shape %s", shapeString(shape)))
	}
	hi, lo := bits.Mul64(uint64(shape[0]), uint64(shape[1]))
	if hi != 0 || lo > math.MaxInt64/8 {
		return formatErr(shapeOff, fmt.Sprintf("matrix of shape %s is too large", shapeString(shape)))
	}
	// lo <= MaxInt64/8, so neither the element count nor the byte count
	// (itemSize <= 8) overflows, and a Float64 result of lo elements has a
	// byte size that fits in an int64. Whether it fits in an int is
	// checked by checkPlatform, after the size of the input.
	h.shape = shape
	h.shapeOff = shapeOff
	h.nbytes = int64(lo) * int64(h.itemSize)
	return nil
}

// setDescr sets the element type from a NumPy dtype string such as '<f8'.
func (h *npyHeader) setDescr(d string) *dataError {
	h.descr = d
	bad := func() *dataError {
		return formatErr(-1, fmt.Sprintf("unsupported dtype %q", clip(d)))
	}
	if d == "" {
		return bad()
	}
	t := d
	order := byte('=')
	switch t[0] {
	case '<', '>', '|', '=':
		order, t = t[0], t[1:]
	}
	switch t {
	case "f8", "f4", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1":
		h.kind = t[0]
		h.itemSize = int(t[1] - '0')
	case "?":
		h.kind, h.itemSize = 'b', 1
	default:
		return bad()
	}
	switch order {
	case '<':
		h.bigEndian = false
	case '>':
		h.bigEndian = true
	default: // '|' or '=': native
		h.bigEndian = hostBigEndian
	}
	return nil
}

// pyKind is the kind of a Python literal.
type pyKind int

const (
	pyStr pyKind = iota
	pyInt
	pyBool
	pyNone
	pyTuple
	pyList
)

// pyValue is a Python literal as found in .npy headers.
type pyValue struct {
	kind  pyKind
	s     string
	i     int64
	b     bool
	items []pyValue
}

// pyParser parses the subset of Python literals used in .npy headers:
// strings, integers, True, False, None, tuples and lists.
type pyParser struct {
	s    []byte
	pos  int
	base int64 // file offset of s[0]
}

func (p *pyParser) off() int64 { return p.base + int64(p.pos) }

func (p *pyParser) errorf(format string, args ...any) *dataError {
	return formatErr(p.off(), "malformed header: "+fmt.Sprintf(format, args...))
}

func (p *pyParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

func (p *pyParser) consume(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// value parses one literal at nesting depth depth.
func (p *pyParser) value(depth int) (pyValue, error) {
	if depth > maxNesting {
		return pyValue{}, p.errorf("literals nested too deeply")
	}
	if p.pos >= len(p.s) {
		return pyValue{}, p.errorf("unexpected end of header")
	}
	switch c := p.s[p.pos]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(' || c == '[':
		return p.sequence(depth)
	case c == '-' || c == '+' || ('0' <= c && c <= '9'):
		return p.integer()
	case isIdentByte(c):
		start := p.pos
		for p.pos < len(p.s) && isIdentByte(p.s[p.pos]) {
			p.pos++
		}
		switch id := string(p.s[start:p.pos]); id {
		case "True":
			return pyValue{kind: pyBool, b: true}, nil
		case "False":
			return pyValue{kind: pyBool}, nil
		case "None":
			return pyValue{kind: pyNone}, nil
		default:
			p.pos = start
			return pyValue{}, p.errorf("unexpected name %q", clip(id))
		}
	default:
		return pyValue{}, p.errorf("unexpected character %q", c)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// str parses a quoted string. Backslash escapes keep the escaped byte.
func (p *pyParser) str() (pyValue, error) {
	start := p.pos
	q := p.s[p.pos]
	p.pos++
	var b []byte
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == q:
			p.pos++
			return pyValue{kind: pyStr, s: string(b)}, nil
		case c == '\n':
			p.pos = start
			return pyValue{}, p.errorf("unterminated string")
		case c == '\\' && p.pos+1 < len(p.s):
			b = append(b, p.s[p.pos+1])
			p.pos += 2
		default:
			b = append(b, c)
			p.pos++
		}
	}
	p.pos = start
	return pyValue{}, p.errorf("unterminated string")
}

// integer parses a decimal integer with an optional sign and an optional
// Python 2 'L' suffix.
func (p *pyParser) integer() (pyValue, error) {
	start := p.pos
	if c := p.s[p.pos]; c == '-' || c == '+' {
		p.pos++
	}
	digits := p.pos
	for p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return pyValue{}, p.errorf("malformed integer")
	}
	v, err := strconv.ParseInt(string(p.s[start:p.pos]), 10, 64)
	if err != nil {
		p.pos = start
		return pyValue{}, p.errorf("integer out of range")
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'L' || p.s[p.pos] == 'l') {
		p.pos++
	}
	return pyValue{kind: pyInt, i: v}, nil
}

// sequence parses a tuple or a list. A trailing comma is allowed; a
// parenthesized single value without a comma is that value, as in Python.
func (p *pyParser) sequence(depth int) (pyValue, error) {
	open := p.s[p.pos]
	closing, kind := byte(')'), pyTuple
	if open == '[' {
		closing, kind = ']', pyList
	}
	p.pos++
	var items []pyValue
	sawComma := false
	for {
		p.skipSpace()
		if p.consume(closing) {
			break
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return pyValue{}, err
		}
		if len(items) == maxItems {
			return pyValue{}, p.errorf("more than %d items in a tuple or list", maxItems)
		}
		items = append(items, v)
		p.skipSpace()
		if p.consume(',') {
			sawComma = true
			continue
		}
		if p.consume(closing) {
			break
		}
		return pyValue{}, p.errorf("expected ',' or %q", closing)
	}
	if kind == pyTuple && len(items) == 1 && !sawComma {
		return items[0], nil // (x) is x
	}
	return pyValue{kind: kind, items: items}, nil
}

// shapeText is the header's shape for messages: a stack's own 3-D shape,
// not the matrix it is read as.
func (h *npyHeader) shapeText() string {
	if h.shown != nil {
		return shapeString(h.shown)
	}
	return shapeString(h.shape)
}
