package datasets

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unsafe"

	"gorgonia.org/tensor"
)

// csvMaxLine bounds the length of a CSV line, so that an input without
// line breaks (a device, a binary file) cannot take unbounded memory; a
// sixteenth of the machine's memory bounds it too. A line of 100 000
// float64 entries printed in full takes about 2.5 MB. It is a variable so
// that tests can change it.
var csvMaxLine = 1 << 30

// csvLineLimit returns the longest line the CSV reader holds.
func csvLineLimit() int {
	if mem := memTotal(); mem > 0 && mem/16 < int64(csvMaxLine) {
		return int(mem / 16)
	}
	return csvMaxLine
}

// csvBuffer is the size of the read buffer; longer lines are gathered in
// a buffer of their own.
const csvBuffer = 256 << 10

// ReadCSV reads the matrix in the CSV file at path (also tab- or
// space-separated text, such as .tsv and numpy.savetxt files); see
// DecodeCSV for the accepted text, the dtype of the result and the
// errors. Error messages name the file and the line.
func ReadCSV(path string, opt *ReadOptions) (*tensor.Dense, error) {
	return read(context.Background(), path, opt, "csv")
}

// DecodeCSV reads a dense matrix written as text from r, one row per
// line, and returns it as a row-major m×n matrix of dtype opt.DType:
// tensor.Float64 (the default) or tensor.Float32, parsed straight to
// the nearest float32.
//
// Fields are separated by commas or by runs of spaces and tabs: if the
// first row holds a comma, the text is comma-separated, and otherwise
// whitespace-separated. Blank lines and lines starting with '#' (after
// optional blanks) are skipped; spaces and tabs around fields, "\r\n"
// line ends, a UTF-8 byte order mark and double quotes around a field
// are allowed. Numbers have the syntax of strconv.ParseFloat ("1",
// "-2.5", "1e-3", ".5", "0x1p-2").
//
// The first line that is not skipped is a header row, and is skipped
// too, if none of its non-empty fields is a number: "a,b,c" or ",c0,c1"
// (ReadOptions.Note hears of it). A first line that mixes numbers and text,
// such as "1,2x,3" or "x, 2020", is an error matching ErrFormat: a typo in
// the first row would otherwise drop it silently. The header's separator
// is found by the same rule, on its own, and it must have as many fields
// as the rows. There is no way to have a header row of numbers skipped:
// remove it, or make it a comment.
//
// Every row must have as many fields as the first. A ragged row, an empty
// or unparsable field, a line longer than 1 GiB (or a sixteenth of the
// machine's memory), more entries than the machine's memory holds and an
// input with no rows give errors matching ErrFormat that name the 1-based line and, for a
// field, its 1-based column (field number): "bad number \"x\" at line 7,
// column 2". A NaN or infinite entry ("nan", "Inf", "-inf",
// "infinity"), or a number too large for the result's dtype ("1e999";
// "1e39" in Float32), gives an error matching ErrNotFinite naming the
// entry's (row, column) in the matrix, from 0, and its line and column.
//
// The memory taken is about the size of the result, plus that of the
// longest line when it is longer than 256 KiB. Each field takes at least
// 2 bytes of input, so however many fields a line has, the result takes
// at most 4 bytes (float64) per input byte. When the size of the input is
// not known (see DecodeNPY) the result grows as rows arrive, which can
// take up to twice its final size for a while.
func DecodeCSV(r io.Reader, opt *ReadOptions) (*tensor.Dense, error) {
	return decodeStream(r, -1, opt, decodeCSV)
}

func decodeCSV(r io.Reader, size int64, tg target) (*tensor.Dense, error) {
	if tg.dt == tensor.Float32 {
		return parseCSV[float32](r, size, tg)
	}
	return parseCSV[float64](r, size, tg)
}

// csvParser holds the state of parseCSV.
type csvParser[T float] struct {
	br      *bufio.Reader
	long    []byte // a line longer than br's buffer
	lineMax int    // the longest line held
	valsMax int    // the most entries held
	line    int    // 1-based number of the current line
	size    int64  // input size, or -1
	read    int64  // bytes read
	bits    int    // 32 or 64
	comma   bool   // comma- (or whitespace-) separated
	sepSet  bool   // comma is known
	hline   int    // line of the first line with fields (the header row)
	header  int    // fields of the header row, or 0
	cols    int    // fields per row, 0 before the first row
	rows    int
	vals    []T
	// narrow: text read as float32, scaled by scale, its range watched.
	narrow bool
	scale  float64
	rng    range32
	col    int // of the field being narrowed
	note   func(string)
}

// parseCSV reads a CSV stream of size bytes (-1 if unknown) into a
// matrix of element type T, converted as tg says.
func parseCSV[T float](r io.Reader, size int64, tg target) (*tensor.Dense, error) {
	var zero T
	bits := 8 * int(unsafe.Sizeof(zero))
	bufSize := csvBuffer
	if size >= 0 && size < csvBuffer {
		bufSize = int(size) + 1
	}
	p := &csvParser[T]{br: bufio.NewReaderSize(r, bufSize), size: size, bits: bits, lineMax: csvLineLimit()}
	limit, _ := entryLimit(bits / 8)
	p.valsMax = int(min(limit, math.MaxInt/16))
	p.narrow, p.scale, p.note = bits == 32, tg.scale(), tg.note
	for {
		raw, err := p.nextLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		p.line++
		s := raw
		if p.line == 1 {
			s = bytes.TrimPrefix(s, []byte("\xef\xbb\xbf"))
		}
		s = trimBlanks(s)
		if len(s) == 0 || s[0] == '#' {
			continue
		}
		if !p.sepSet {
			// The separator of the first row; a header row is split
			// with its own.
			p.comma = bytes.IndexByte(s, ',') >= 0
			if p.hline == 0 {
				p.hline = p.line
				n, ok, err := p.headerFields(s)
				if err != nil {
					return nil, err
				}
				if ok {
					p.header = n
					if p.note != nil {
						p.note(fmt.Sprintf("line %d is a header row, skipped: %s", p.line, clip(string(s))))
					}
					continue
				}
			}
			p.sepSet = true
		}
		if err := p.row(s); err != nil {
			return nil, err
		}
		if p.rows == 1 {
			if p.header > 0 && p.header != p.cols {
				return nil, lineErr(p.hline, 0, fmt.Sprintf("header row has %d fields, the first row %d", p.header, p.cols))
			}
		}
	}
	if p.narrow {
		if err := p.rng.err(p.scale); err != nil {
			return nil, err
		}
	}
	if p.rows == 0 {
		msg := "no rows of numbers"
		if p.header > 0 {
			msg += " after the header row"
		}
		return nil, formatErr(-1, msg)
	}
	vals := p.vals
	if c, l := cap(vals), len(vals); c-l > l/4+1024 {
		vals = append(makeFloats[T](l)[:0], vals...)
	}
	return tensor.New(tensor.WithShape(p.rows, p.cols), tensor.WithBacking(vals[:len(vals):len(vals)])), nil
}

// nextLine returns the next line without its line end, or io.EOF at the
// end of the input. The line is valid until the next call.
func (p *csvParser[T]) nextLine() ([]byte, error) {
	s, err := p.br.ReadSlice('\n')
	p.read += int64(len(s))
	if err == bufio.ErrBufferFull {
		p.long = append(p.long[:0], s...)
		for err == bufio.ErrBufferFull {
			s, err = p.br.ReadSlice('\n')
			p.read += int64(len(s))
			if len(p.long)+len(s) > p.lineMax {
				return nil, lineErr(p.line+1, 0, fmt.Sprintf("line longer than %d bytes", p.lineMax))
			}
			p.long = append(p.long, s...)
		}
		s = p.long
	}
	if err != nil && err != bufio.ErrBufferFull {
		if err != io.EOF {
			return nil, &dataError{msg: "reading", off: p.read, cause: err}
		}
		if len(s) == 0 {
			return nil, io.EOF
		}
	}
	s = bytes.TrimSuffix(s, []byte{'\n'})
	s = bytes.TrimSuffix(s, []byte{'\r'})
	if k := bytes.IndexByte(s, '\r'); k >= 0 {
		// Lines ended by a bare carriage return (classic Mac OS): say so,
		// rather than see numbers and text mixed in one long line.
		return nil, lineErr(p.line+1, k+1, `a carriage return (\r) inside the line: the file ends its lines with a bare \r; convert them to \n (tr '\r' '\n')`)
	}
	return s, nil
}

// isBlank reports whether c separates whitespace-separated fields.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// trimBlanks returns s without leading and trailing spaces and tabs.
func trimBlanks(s []byte) []byte { return trimBytes(s, isBlank) }

// trimBytes returns s without the leading and trailing bytes c for which
// blank(c) holds.
func trimBytes(s []byte, blank func(byte) bool) []byte {
	for len(s) > 0 && blank(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && blank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// nextField returns the field of the line s (trimmed of blanks) that
// starts at pos, without blanks and quotes around it, and the position of
// the next field, or -1 after the last. bad is the problem with a
// malformed quoted field, at the field's position.
func nextField(s []byte, pos int, comma bool) (f []byte, next int, bad string) {
	for pos < len(s) && isBlank(s[pos]) {
		pos++
	}
	if pos < len(s) && s[pos] == '"' {
		i := pos + 1
		for {
			k := bytes.IndexByte(s[i:], '"')
			if k < 0 {
				return nil, 0, "unterminated quoted field"
			}
			i += k + 1
			if i < len(s) && s[i] == '"' { // "" stands for "
				i++
				continue
			}
			break
		}
		f = s[pos+1 : i-1]
		e := i
		for e < len(s) && isBlank(s[e]) {
			e++
		}
		switch {
		case e == len(s):
			return f, -1, ""
		case comma && s[e] == ',':
			return f, e + 1, ""
		case !comma && e > i:
			return f, e, ""
		}
		return nil, 0, "text after a quoted field"
	}
	if comma {
		k := bytes.IndexByte(s[pos:], ',')
		if k < 0 {
			return trimBlanks(s[pos:]), -1, ""
		}
		return trimBlanks(s[pos : pos+k]), pos + k + 1, ""
	}
	e := pos
	for e < len(s) && !isBlank(s[e]) {
		e++
	}
	f = s[pos:e]
	for e < len(s) && isBlank(s[e]) {
		e++
	}
	if e == len(s) {
		return f, -1, ""
	}
	return f, e, ""
}

// parseNumber parses f with strconv.ParseFloat without copying it.
func parseNumber(f []byte, bits int) (float64, error) {
	if len(f) == 0 {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(unsafe.String(unsafe.SliceData(f), len(f)), bits)
}

// headerFields reports whether the first line s is a header row: it has
// non-empty fields and none of them is a number. n is its number of
// fields. A line that mixes numbers and text is neither a header nor a
// row: the error names its first text field, most likely a typo.
func (p *csvParser[T]) headerFields(s []byte) (n int, ok bool, err error) {
	numbers, text, textCol := 0, []byte(nil), 0
	for pos := 0; pos >= 0; n++ {
		f, next, bad := nextField(s, pos, p.comma)
		if bad != "" {
			return 0, false, nil // row reports it
		}
		if len(f) > 0 {
			if _, err := parseNumber(f, 64); err == nil || errors.Is(err, strconv.ErrRange) {
				numbers++
			} else if text == nil {
				text, textCol = f, n+1
			}
		}
		pos = next
	}
	switch {
	case text == nil:
		return n, false, nil
	case numbers > 0:
		return 0, false, lineErr(p.line, textCol, fmt.Sprintf("the first row mixes numbers and text (%q): a header row has no numbers and a data row no text; fix it, or make it a comment with '#'", clip(string(text))))
	}
	return n, true, nil
}

// row parses the data row s, found on line p.line.
func (p *csvParser[T]) row(s []byte) error {
	j := 0
	for pos := 0; pos >= 0; j++ {
		f, next, bad := nextField(s, pos, p.comma)
		if bad != "" {
			return lineErr(p.line, j+1, bad)
		}
		if p.cols > 0 && j == p.cols {
			// Too many fields: count them for the message.
			n := j + 1
			for pos = next; pos >= 0; n++ {
				if _, pos, bad = nextField(s, pos, p.comma); bad != "" {
					return lineErr(p.line, n+1, bad)
				}
			}
			return p.ragged(n)
		}
		v, err := parseNumber(f, p.bits)
		if p.narrow {
			p.col = j
			v, err = p.narrowed(f, v, err)
		}
		if err != nil || v-v != 0 {
			return p.badNumber(f, j, v, err)
		}
		if len(p.vals) == cap(p.vals) {
			if err := p.grow(len(s) - pos + 1); err != nil {
				return err
			}
		}
		p.vals = append(p.vals, T(v))
		pos = next
	}
	if p.cols == 0 {
		p.cols = j
	} else if j != p.cols {
		return p.ragged(j)
	}
	p.rows++
	return nil
}

func (p *csvParser[T]) ragged(n int) error {
	return lineErr(p.line, 0, fmt.Sprintf("row has %d fields, want %d", n, p.cols))
}

// badNumber returns the error for field f, number j of the current row,
// which parsed to v with error err.
func (p *csvParser[T]) badNumber(f []byte, j int, v float64, err error) error {
	switch {
	case len(f) == 0:
		return lineErr(p.line, j+1, "empty field")
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return lineErr(p.line, j+1, fmt.Sprintf("bad number %q", clip(string(f))))
	}
	msg := fmt.Sprintf("non-finite entry %v at (%d, %d)", v, p.rows, j)
	if err != nil {
		// Narrowed numbers that overflow float32 are a RangeError.
		msg = fmt.Sprintf("entry %s at (%d, %d) overflows float64", clip(string(f)), p.rows, j)
	}
	return &dataError{msg: msg, line: p.line, col: j + 1, off: -1, kind: ErrNotFinite}
}

// narrowed returns the float32 value of the field f, which
// parseNumber(f, 32) parsed to v with error err, scaled by p.scale, and
// records its magnitude. A number that overflows float32 is recorded (the
// read ends in a RangeError) and stored as 0; the magnitude of one that
// float32 rounds to a subnormal or zero comes from its float64 value.
func (p *csvParser[T]) narrowed(f []byte, v float64, err error) (float64, error) {
	if p.scale == 1 && err == nil && math.Abs(v) >= minNormal32 {
		p.rng.observe(v)
		return v, nil
	}
	x, err64 := parseNumber(f, 64)
	if err64 != nil || x-x != 0 {
		return x, err64
	}
	p.rng.observe(x)
	if p.scale != 1 {
		// Rounded twice, through float64: the error stays within the
		// bound of 2⁻²⁴ max|A| that float32 storage reports.
		v = float64(float32(x * p.scale))
	} else if err != nil {
		v = math.Inf(1)
	}
	if math.IsInf(v, 0) {
		p.rng.overflow(&dataError{msg: fmt.Sprintf("entry %s at (%d, %d) overflows float32", clip(string(f)), p.rows, p.col),
			line: p.line, col: p.col + 1, off: -1, kind: ErrNotFinite})
		return 0, nil
	}
	return v, nil
}

// grow makes room for more values when lineLeft unparsed bytes of the
// line just read are left. It estimates the number of values that the
// rest of the input holds (with an unknown size, the rest of the line) at
// the mean length of the values so far, and grows by at least a quarter
// (with an unknown size, doubles), up to the memory limit: an endless
// input stops there with an error.
func (p *csvParser[T]) grow(lineLeft int) error {
	l := len(p.vals)
	if l >= p.valsMax {
		_, why := entryLimit(p.bits / 8)
		return lineErr(p.line, 0, fmt.Sprintf("more than %d entries, more than %s", p.valsMax, why))
	}
	done := p.read - int64(lineLeft)
	left := int64(lineLeft)
	if p.size >= 0 {
		left = max(0, p.size-done)
	}
	need := left/2 + 1 // the most values the rest can hold
	if l > 0 && done > 0 {
		need = min(need, int64(float64(left)/float64(done)*float64(l)*1.0625))
	} else {
		need = 0
	}
	atLeast := l / 4
	if p.size < 0 {
		atLeast = l
	}
	c := l + max(int(min(need, math.MaxInt/16)), atLeast, 1024)
	v := makeFloats[T](min(c, p.valsMax))[:l]
	copy(v, p.vals)
	p.vals = v
	return nil
}

// WriteCSV writes the matrix t to the file at path as text that
// ReadCSV reads back exactly; see EncodeCSV for the format. The file is
// written atomically, like WriteNPYOptions: to a temporary file in the
// same directory, synced, then renamed to path; the new file has mode
// 0644.
func WriteCSV(path string, t *tensor.Dense, o *WriteOptions) error {
	if err := checkMatrix(t); err != nil {
		err.(*dataError).file = path
		return err
	}
	if _, err := csvComma(o); err != nil {
		return inFile(path, err)
	}
	return writeFileAtomic(path, func(w io.Writer) error { return encodeCSV(w, t, o) })
}

// EncodeCSV writes the matrix t to w as text, one row per line ending in
// "\n", fields separated by o.Comma: ',' (the default, for o.Comma 0),
// '\t' or ' '. With o.Header, a first row names the columns c0, c1, ...
// Each entry is written in the shortest form that strconv.ParseFloat
// reads back to the same value ('g' format of strconv.FormatFloat, with
// the bit size of t's dtype), so that DecodeCSV with the same dtype
// returns the same matrix. t must be a non-empty 2-D tensor of dtype
// tensor.Float64 or tensor.Float32, of any layout (an error matching
// ErrFormat otherwise); NaN and infinities are written as "NaN", "+Inf"
// and "-Inf", which DecodeCSV refuses. Other separators give an error.
func EncodeCSV(w io.Writer, t *tensor.Dense, o *WriteOptions) error {
	if err := checkMatrix(t); err != nil {
		return err
	}
	return encodeCSV(w, t, o)
}

// csvComma returns the separator o asks for.
func csvComma(o *WriteOptions) (byte, error) {
	if o == nil || o.Comma == 0 {
		return ',', nil
	}
	switch o.Comma {
	case ',', '\t', ' ':
		return byte(o.Comma), nil
	}
	return 0, &dataError{msg: fmt.Sprintf("unsupported CSV separator %q: want ',', '\\t' or ' '", o.Comma), off: -1}
}

func encodeCSV(w io.Writer, t *tensor.Dense, o *WriteOptions) error {
	sep, err := csvComma(o)
	if err != nil {
		return err
	}
	header := o != nil && o.Header
	if t.Dtype() == tensor.Float32 {
		return writeCSVData[float32](w, t, sep, header, 32)
	}
	return writeCSVData[float64](w, t, sep, header, 64)
}

func writeCSVData[T float](w io.Writer, t *tensor.Dense, sep byte, header bool, bits int) error {
	const flushAt = 60 << 10
	m, n := t.Shape()[0], t.Shape()[1]
	buf := make([]byte, 0, flushAt+4<<10)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		if err != nil {
			return &dataError{msg: "writing", off: -1, cause: err}
		}
		return nil
	}
	if header {
		for j := range n {
			if j > 0 {
				buf = append(buf, sep)
			}
			buf = append(buf, 'c')
			buf = strconv.AppendInt(buf, int64(j), 10)
			if len(buf) >= flushAt {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		buf = append(buf, '\n')
	}
	src := newView[T](t)
	for i := range m {
		for j := range n {
			v, err := src.at(i, j)
			if err != nil {
				return err
			}
			if j > 0 {
				buf = append(buf, sep)
			}
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, bits)
			if len(buf) >= flushAt {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		buf = append(buf, '\n')
	}
	return flush()
}
