package datasets

import (
	"bytes"
	"testing"

	"gorgonia.org/tensor"
)

// FuzzDecodeNPY checks that DecodeNPY never panics, that every error is
// ErrFormat or ErrNotFinite with the package prefix, that every result is
// a valid matrix, and that the memory allocated is bounded by a multiple
// of the input size.
func FuzzDecodeNPY(f *testing.F) {
	addFiles(f, "*.npy")
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opt := fuzzOptions(mode)
		known := mode&4 == 0
		var d *tensor.Dense
		var err error
		a := allocated(func() {
			if known {
				d, err = DecodeNPY(bytes.NewReader(data), int64(len(data)), opt)
			} else {
				d, err = DecodeNPY(onlyReader{bytes.NewReader(data)}, -1, opt)
			}
		})
		// The result takes at most 8 bytes per input byte, the read
		// buffers as much again, and the header is copied once. With
		// an unknown size the first allocation of the result (and of
		// the conversion buffer, up to twice as large) is made before
		// any data is seen, and later ones grow with the data.
		bound := uint64(24*len(data) + 64<<10)
		if !known {
			bound += 3*initialUnknown + 2*uint64(len(data))
		}
		if a > bound {
			t.Errorf("allocated %d bytes for %d input bytes (bound %d)", a, len(data), bound)
		}
		if !checkDecoded(t, d, err, opt) {
			return
		}
		// What was read writes back and reads again to the same.
		var buf bytes.Buffer
		if err := EncodeNPY(&buf, d); err != nil {
			t.Fatal(err)
		}
		e, err := DecodeNPY(&buf, -1, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameEntries(t, d, e)
	})
}
