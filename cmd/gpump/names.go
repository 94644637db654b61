package main

import (
	"strings"
	"unicode/utf8"
)

// displayName is name as results name it, byte-exact in JSON, whose
// strings are UTF-8: a name that is valid UTF-8 and holds no `\x` stays as
// it is; any other has each backslash doubled and each byte that is not
// part of valid UTF-8 written \xHH. Two names never share a display name
// (only the escaped ones hold `\x`), and a name's is the same in every
// run, so that --resume recognizes instances whose file names are not
// UTF-8 (a\xff.npy and a\xfe.npy), which JSON would both turn into
// a\ufffd.npy.
func displayName(name string) string {
	if utf8.ValidString(name) && !strings.Contains(name, `\x`) {
		return name
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[name[i]>>4])
			b.WriteByte(hex[name[i]&15])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(name[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}
