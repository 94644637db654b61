package datasets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

func TestParseHeader(t *testing.T) {
	const base = 10 // the dictionary of a version 1.0 header starts here
	cases := []struct {
		dict     string
		m, n     int
		descr    string
		fortran  bool
		big      bool
		errMsg   string // substring of the error, "" if valid
		errAtOff int64  // byte offset in the error, -1 for none checked
	}{
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", m: 2, n: 3, descr: "<f8"},
		{dict: `{"descr": ">f4", "fortran_order": True, "shape": [2, 3]}`, m: 2, n: 3, descr: ">f4", fortran: true, big: true},
		{dict: "\t{ 'shape':(2,3,),'descr':'f8' ,'fortran_order' : False ,}\r\n  ", m: 2, n: 3, descr: "f8"},
		{dict: "{'descr': '=i2', 'fortran_order': False, 'shape': (+2, 3)}", m: 2, n: 3, descr: "=i2"},
		{dict: `{'descr': '<\f8', 'fortran_order': False, 'shape': (1, 1)}`, m: 1, n: 1, descr: "<f8"},
		{dict: "{'descr': '|b1', 'fortran_order': False, 'shape': (1l, 1)}", m: 1, n: 1, descr: "|b1"},
		{dict: "{'descr': '?', 'fortran_order': False, 'shape': (1, 1)}", m: 1, n: 1, descr: "?"},

		{dict: "", errMsg: "does not start with '{'", errAtOff: base},
		{dict: "[]", errMsg: "does not start with '{'", errAtOff: base},
		{dict: "{", errMsg: "unexpected end of header", errAtOff: base + 1},
		{dict: "{}", errMsg: "no 'descr' key", errAtOff: base},
		{dict: "{'descr': '<f8', 'fortran_order': False}", errMsg: "no 'shape' key"},
		{dict: "{1: 2}", errMsg: "header key is not a string", errAtOff: base + 1},
		{dict: "{'descr' '<f8'}", errMsg: "expected ':' after key \"descr\"", errAtOff: base + 9},
		{dict: "{'descr: '<f8'}", errMsg: "expected ':' after key"},
		{dict: "{'descr\n': 1}", errMsg: "unterminated string", errAtOff: base + 1},
		{dict: "{'descr': '<f8", errMsg: "unterminated string", errAtOff: base + 10},
		{dict: "{'descr': None}", errMsg: "'descr' is not a string"},
		{dict: "{'descr': '<f8', 'fortran_order': 0}", errMsg: "'fortran_order' is not True or False"},
		{dict: "{'descr': '<f8', 'fortran_order': Maybe}", errMsg: `unexpected name "Maybe"`},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': 3}", errMsg: "'shape' is not a tuple"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (3)}", errMsg: "'shape' is not a tuple"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': ((3, 2), 2)}", errMsg: "tuple of non-negative integers"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (3, True)}", errMsg: "tuple of non-negative integers"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2.0)}", errMsg: "expected ',' or ')'"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (3 2)}", errMsg: "expected ',' or ')'"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (-, 2)}", errMsg: "malformed integer"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 2)}", errMsg: "integer out of range"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)} x", errMsg: "unexpected data after the header dictionary"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}\x00", errMsg: "unexpected data after the header dictionary"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': " + strings.Repeat("(", 20) + "1" + strings.Repeat(")", 20) + "}", errMsg: "nested too deeply"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (" + strings.Repeat("1,", 65) + ")}", errMsg: "more than 64 items"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (" + strings.Repeat("1,", 64) + ")}", errMsg: "is not a 2-D matrix"},
		{dict: "{'descr': '" + strings.Repeat("x", 100) + "', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."`},
		{dict: "{'descr': '', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype ""`},
		{dict: "{'descr': '<f8 ', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype "<f8 "`},
		{dict: "{'descr': '<M8', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype "<M8"`},
		{dict: "{'descr': '|S3', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype "|S3"`},
		{dict: "{'descr': '|V8', 'fortran_order': False, 'shape': (1, 1)}", errMsg: `unsupported dtype "|V8"`},
		{dict: "{'descr': ('<f8', (2,)), 'fortran_order': False, 'shape': (1, 1)}", errMsg: "structured arrays"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (3037000500, 3037000500)}", errMsg: "too large"},
		{dict: "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 0)}", errMsg: "empty matrix of shape (1, 0)"},
		{dict: "{'shape': (1, 1), 'shape': (1, 1)}", errMsg: "duplicate header key 'shape'", errAtOff: base + 18},
		{dict: "{'fortran_order': True, 'fortran_order': True}", errMsg: "duplicate header key 'fortran_order'"},
	}
	for _, c := range cases {
		h := &npyHeader{}
		err := h.parseDict([]byte(c.dict), base)
		if c.errMsg != "" {
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.errMsg) {
				t.Errorf("%q: error %v, want %q", c.dict, err, c.errMsg)
				continue
			}
			var de *dataError
			if c.errAtOff != 0 && (!errors.As(err, &de) || de.off != c.errAtOff) {
				t.Errorf("%q: error %v, want byte offset %d", c.dict, err, c.errAtOff)
			}
			continue
		}
		if err == nil {
			err = h.checkPlatform()
		}
		if err != nil {
			t.Errorf("%q: %v", c.dict, err)
			continue
		}
		if h.m != c.m || h.n != c.n || h.descr != c.descr || h.fortran != c.fortran || h.bigEndian != c.big {
			t.Errorf("%q: parsed %+v", c.dict, h)
		}
	}
}

// TestDecodeFromFile decodes from an *os.File positioned after other
// data, whose remaining size DecodeNPY finds by seeking.
func TestDecodeFromFile(t *testing.T) {
	good := npyBytes(1, numpyDict("<f8", false, "(2, 3)"), enc("<f8", m23...))
	huge := npyBytes(1, numpyDict("<f8", false, "(100000, 100000)"), make([]byte, 64))
	path := filepath.Join(t.TempDir(), "concat")
	if err := os.WriteFile(path, append(append([]byte("prefix"), good...), huge...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(6, 0); err != nil {
		t.Fatal(err)
	}
	d, err := DecodeNPY(f, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrixEquals(t, d, tensor.Float64, 2, 3, m23)
	// The second matrix claims far more than the rest of the file.
	_, err = DecodeNPY(f, -1, nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "found 64") {
		t.Errorf("error %v, want a truncation with 64 bytes found", err)
	}
	// Decoding a buffer with trailing data leaves the reader after the
	// payload.
	buf := bytes.NewBuffer(append(append([]byte(nil), good...), good...))
	for range 2 {
		d, err := DecodeNPY(buf, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkMatrixEquals(t, d, tensor.Float64, 2, 3, m23)
	}
}
