package datasets

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

func TestStackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		a := tensor.New(tensor.Of(dt), tensor.WithShape(3, 4, 5))
		for k := range 60 {
			v := float64(k)*0.25 - 7
			if k == 33 {
				v = math.NaN() // kept: the solver fails that game alone
			}
			if dt == tensor.Float64 {
				a.Float64s()[k] = v
			} else {
				a.Float32s()[k] = float32(v)
			}
		}
		p := filepath.Join(dir, dt.String()+".npy")
		if err := WriteStack(p, a); err != nil {
			t.Fatal(err)
		}
		if d, err := NPYDims(p); err != nil || d != 3 {
			t.Fatalf("NPYDims = %d, %v", d, err)
		}
		got, err := ReadStack(p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Shape(), a.Shape()) || got.Dtype() != dt {
			t.Fatalf("shape %v %v, want %v %v", got.Shape(), got.Dtype(), a.Shape(), dt)
		}
		for k := range 60 {
			x, _ := got.Data(), 0
			var g, w float64
			if dt == tensor.Float64 {
				g, w = x.([]float64)[k], a.Float64s()[k]
			} else {
				g, w = float64(x.([]float32)[k]), float64(a.Float32s()[k])
			}
			if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Fatalf("entry %d: %v, want %v", k, g, w)
			}
		}
	}
	m := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 2, 3, 4}))
	p := filepath.Join(dir, "m.npy")
	if err := WriteNPY(p, m); err != nil {
		t.Fatal(err)
	}
	if d, err := NPYDims(p); err != nil || d != 2 {
		t.Fatalf("NPYDims of a matrix = %d, %v", d, err)
	}
	if _, err := ReadStack(p); !errors.Is(err, ErrFormat) {
		t.Fatalf("a matrix read as a stack: %v", err)
	}
	if err := WriteStack(p, m); err == nil {
		t.Fatal("a matrix written as a stack")
	}
}

func TestDecodeStackRefuses(t *testing.T) {
	for _, c := range []struct{ name, header string }{
		{"fortran", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }"},
		{"4-D", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2, 2), }"},
		{"empty", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2, 2), }"},
		{"truncated", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 3), }"},
	} {
		var b bytes.Buffer
		b.Write(npyHeaderForTest(c.header))
		b.Write(make([]byte, 8*8))
		if _, err := DecodeStack(bytes.NewReader(b.Bytes()), -1); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// npyHeaderForTest returns a version 1.0 header with the given dictionary.
func npyHeaderForTest(dict string) []byte {
	hlen := len(dict) + 1
	b := append([]byte(npyMagic), 1, 0, byte(hlen), byte(hlen>>8))
	return append(append(b, dict...), '\n')
}

func FuzzDecodeStack(f *testing.F) {
	var b bytes.Buffer
	a := tensor.New(tensor.WithShape(2, 2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
	if err := EncodeStack(&b, a); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(npyHeaderForTest("{'descr': '>i2', 'fortran_order': False, 'shape': (1, 1, 2), }\x00\x01\x00\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeStack(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		s := got.Shape()
		if len(s) != 3 || s[0]*s[1]*s[2] != got.DataSize() || s[0] < 1 || s[1] < 1 || s[2] < 1 {
			t.Fatalf("shape %v with %d entries", s, got.DataSize())
		}
	})
}

// Errors name a stack's own 3-D shape, and NPYDims says 3 for a 3-D header
// that ReadStack refuses, so that its reason reaches the user.
func TestStackMessages(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.npy")
	var b bytes.Buffer
	b.Write(npyHeaderForTest("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }"))
	b.Write(make([]byte, 64))
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := NPYDims(p); err != nil || d != 3 {
		t.Fatalf("NPYDims of a Fortran stack = %d, %v", d, err)
	}
	if _, err := ReadStack(p); err == nil || !strings.Contains(err.Error(), "Fortran") {
		t.Fatalf("ReadStack: %v", err)
	}
	b.Reset()
	b.Write(npyHeaderForTest("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }"))
	b.Write(make([]byte, 40))
	if _, err := DecodeStack(bytes.NewReader(b.Bytes()), -1); err == nil || !strings.Contains(err.Error(), "(2, 2, 2)") {
		t.Fatalf("truncated stack: %v", err)
	}
}
