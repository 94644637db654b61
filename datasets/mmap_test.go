//go:build unix

package datasets

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// mapTestMatrix returns an m×n matrix of dtype dt with distinct entries.
func mapTestMatrix(t testing.TB, dt tensor.Dtype, m, n int) *tensor.Dense {
	t.Helper()
	a, err := Uniform(dt, m, n, -100, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mapTemp maps a new float64 .npy file of an m×n matrix, unmapped when the
// test ends, and returns it and its path.
func mapTemp(t *testing.T, m, n int) (*Mapped, string) {
	t.Helper()
	path := writeMapTemp(t, mapTestMatrix(t, tensor.Float64, m, n), nil)
	mp, err := MapNPY(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mp.Close() })
	return mp, path
}

// writeMapTemp writes a to a new .npy file in a temporary directory.
func writeMapTemp(t testing.TB, a *tensor.Dense, o *WriteOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.npy")
	if err := WriteNPYOptions(path, a, o); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMapNPY(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			path := writeMapTemp(t, mapTestMatrix(t, dt, 37, 53), nil)
			want, err := ReadNPY(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			mp, err := MapNPY(path)
			if err != nil {
				t.Fatal(err)
			}
			d := mp.Dense()
			if d.Dtype() != dt || d.Shape()[0] != 37 || d.Shape()[1] != 53 || !d.DataOrder().IsRowMajor() {
				t.Fatalf("dtype %v, shape %v", d.Dtype(), d.Shape())
			}
			if mp.Dense() != d {
				t.Errorf("Dense returns a new tensor at each call")
			}
			// The backing array is the mapping, right after the header.
			data := mapBytes(t, d.Data())
			if &data[0] != &mp.mem[len(mp.mem)-len(data)] {
				t.Errorf("the tensor's backing array is not the mapping")
			}
			if string(data) != string(mapBytes(t, want.Data())) {
				t.Errorf("mapped matrix differs from ReadNPY's")
			}
			if err := Validate(d); err != nil {
				t.Error(err)
			}
			if err := mp.Close(); err != nil {
				t.Fatal(err)
			}
			if mp.Dense() != nil {
				t.Errorf("Dense after Close is not nil")
			}
			if err := mp.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

// mapBytes returns the memory of a []float64 or []float32.
func mapBytes(t testing.TB, s any) []byte {
	switch s := s.(type) {
	case []float64:
		return bytesOf(s)
	case []float32:
		return bytesOf(s)
	}
	t.Fatalf("data of type %T", s)
	return nil
}

// TestMapNPYReadOnly checks that writing to the mapped tensor faults.
func TestMapNPYReadOnly(t *testing.T) {
	mp, _ := mapTemp(t, 4, 4)
	data := mp.Dense().Data().([]float64)
	faulted := func() (faulted bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { faulted = recover() != nil }()
		data[5] = 1
		return false
	}()
	if !faulted {
		t.Errorf("writing to the mapping did not fault")
	}
}

func TestMapNPYTrailingData(t *testing.T) {
	mp, err := MapNPY(filepath.Join("testdata", "trailing_data.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	want, err := ReadNPY(filepath.Join("testdata", "trailing_data.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(mapBytes(t, mp.Dense().Data())) != string(mapBytes(t, want.Data())) {
		t.Errorf("mapped matrix differs from ReadNPY's")
	}
}

func TestMapNPYNonFinite(t *testing.T) {
	for _, c := range []struct {
		dt   tensor.Dtype
		v    float64
		i, j int
		msg  string
	}{
		{tensor.Float64, math.NaN(), 3, 5, "non-finite entry NaN at (3, 5)"},
		{tensor.Float32, math.Inf(-1), 6, 0, "non-finite entry -Inf at (6, 0)"},
		{tensor.Float64, math.Inf(1), 6, 6, "non-finite entry +Inf at (6, 6)"},
	} {
		a := mapTestMatrix(t, c.dt, 7, 7)
		set := func(i, j int, v float64) {
			var err error
			if c.dt == tensor.Float32 {
				err = a.SetAt(float32(v), i, j)
			} else {
				err = a.SetAt(v, i, j)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		set(c.i, c.j, c.v)
		set(6, 6, math.Inf(1)) // a later one
		path := writeMapTemp(t, a, nil)
		mp, err := MapNPY(path)
		if err == nil {
			mp.Close()
			t.Fatalf("%v: MapNPY accepted a non-finite entry", c.dt)
		}
		if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "datasets: "+path+": ") {
			t.Errorf("error %q, want one matching ErrNotFinite with %q", err, c.msg)
		}
	}
}

// TestMapNPYNonFiniteParallel checks that the first non-finite entry in
// row-major order is named when the check is split among goroutines.
func TestMapNPYNonFiniteParallel(t *testing.T) {
	const m, n = 1100, 1000 // more than parallelCheck entries
	a := mapTestMatrix(t, tensor.Float64, m, n)
	data := a.Data().([]float64)
	data[(m-1)*n+n-1] = math.NaN()
	path := writeMapTemp(t, a, nil)
	_, err := MapNPY(path)
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "non-finite entry NaN at (1099, 999)") {
		t.Errorf("error %v, want one naming (1099, 999)", err)
	}
	data[100*n+7] = math.Inf(1)
	data[600*n] = math.Inf(-1)
	path = writeMapTemp(t, a, nil)
	_, err = MapNPY(path)
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "non-finite entry +Inf at (100, 7)") {
		t.Errorf("error %v, want one naming (100, 7)", err)
	}
}

// TestMapNPYTruncatedLater checks that a fault reading a mapping whose
// file was truncated is reported by scanMapped, the check of MapNPY.
func TestMapNPYTruncatedLater(t *testing.T) {
	mp, path := mapTemp(t, 64, 64)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	j, fault := scanMapped(mp.Dense().Data().([]float64))
	if fault == nil || j != -1 {
		t.Errorf("scanMapped of a truncated file returned %d, %v; want a fault", j, fault)
	}
}

func TestMapNPYErrors(t *testing.T) {
	a := mapTestMatrix(t, tensor.Float64, 5, 3)
	check := func(path string, kind error, msg string) {
		t.Helper()
		mp, err := MapNPY(path)
		if err == nil {
			mp.Close()
			t.Fatalf("%s: MapNPY succeeded, want an error", path)
		}
		if kind != nil && !errors.Is(err, kind) {
			t.Errorf("error %q does not match %v", err, kind)
		}
		if !strings.HasPrefix(err.Error(), "datasets: ") || !strings.Contains(err.Error(), msg) {
			t.Errorf("error %q does not contain %q", err, msg)
		}
	}
	check(writeMapTemp(t, a, &WriteOptions{BigEndian: true}), ErrFormat, `cannot map dtype ">f8": only little-endian data can be memory-mapped here; use ReadNPY, which converts`)
	check(writeMapTemp(t, a, &WriteOptions{Fortran: true}), ErrFormat, "cannot map a Fortran-order (column-major) array; use ReadNPY, which converts")
	check(filepath.Join("testdata", "i4.npy"), ErrFormat, `cannot map dtype "<i4": only float64 and float32 can be memory-mapped; use ReadNPY, which converts`)
	check(filepath.Join("testdata", "b1.npy"), ErrFormat, "use ReadNPY")
	check(filepath.Join("testdata", "truncated.npy"), ErrFormat, "truncated")
	check(filepath.Join("testdata", "bad_magic.npy"), ErrFormat, "bad magic")
	check(filepath.Join("testdata", "3d.npy"), ErrFormat, "not a 2-D matrix")

	// A truncated payload.
	path := writeMapTemp(t, a, nil)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	check(path, ErrFormat, "needs 120 bytes, found 119")

	// A payload not aligned to its elements.
	dict := "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }"
	hdr := append([]byte(npyMagic), 1, 0)
	hlen := 128 - 10 + 4 // the payload starts at byte 132
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(hlen))
	hdr = append(hdr, dict...)
	hdr = append(hdr, strings.Repeat(" ", hlen-len(dict)-1)...)
	hdr = append(hdr, '\n')
	hdr = binary.LittleEndian.AppendUint64(hdr, math.Float64bits(2.5))
	path = filepath.Join(t.TempDir(), "unaligned.npy")
	if err := os.WriteFile(path, hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadNPY(path, nil); err != nil || d.Data().([]float64)[0] != 2.5 {
		t.Fatalf("ReadNPY of the unaligned file: %v", err)
	}
	check(path, ErrFormat, "cannot map a payload that is not aligned to its 8-byte elements; use ReadNPY")

	// Not a regular file, a directory, a missing file.
	check(os.DevNull, nil, "is not a regular file and cannot be memory-mapped")
	dir := t.TempDir()
	check(dir, nil, dir+": is a directory")
	_, err = MapNPY(filepath.Join(dir, "missing.npy"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// BenchmarkMapNPY maps and validates 1 GiB .npy files written to
// os.TempDir(), which are in the page cache right after they are
// written. It is skipped in -short mode. Run it with
//
//	go test -run X -bench MapNPY -benchtime 5x ./datasets/
func BenchmarkMapNPY(b *testing.B) {
	if testing.Short() {
		b.Skip("skipping 1 GiB files in -short mode")
	}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		b.Run(dt.String(), func(b *testing.B) {
			rows := 16384
			if dt == tensor.Float32 {
				rows *= 2
			}
			a, err := Uniform(dt, rows, 8192, -1, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			path := benchFile(b, "a.npy", func(p string) error { return WriteNPY(p, a) })
			a = nil
			for b.Loop() {
				mp, err := MapNPY(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := mp.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
