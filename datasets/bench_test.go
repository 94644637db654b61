package datasets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gorgonia.org/tensor"
)

// benchRows×benchCols float64 is 1 GiB.
const benchRows, benchCols = 16384, 8192

// benchFile writes a new file named name with write and returns its path,
// with the file's size as b's bytes per operation.
func benchFile(b *testing.B, name string, write func(path string) error) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	if err := write(path); err != nil {
		b.Fatal(err)
	}
	fileBytes(b, path)
	return path
}

// fileBytes sets b's bytes per operation to the size of the file at path,
// and reports allocations.
func fileBytes(b *testing.B, path string) {
	b.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
}

// BenchmarkReadNPY reads 1 GiB .npy files written to os.TempDir(), which
// are in the page cache right after they are written, with several chunk
// sizes and conversions. It is skipped in -short mode. Run it with
//
//	go test -run X -bench ReadNPY -benchtime 5x ./datasets/
func BenchmarkReadNPY(b *testing.B) {
	if testing.Short() {
		b.Skip("skipping 1 GiB files in -short mode")
	}
	dir, err := os.MkdirTemp("", "datasets-bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	var a *tensor.Dense
	files := map[string]string{}
	file := func(b *testing.B, name string, o *WriteOptions) string {
		if p, ok := files[name]; ok {
			return p
		}
		if a == nil {
			if a, err = Uniform(tensor.Float64, benchRows, benchCols, -1, 1, 1); err != nil {
				b.Fatal(err)
			}
		}
		p := filepath.Join(dir, name+".npy")
		if err := WriteNPYOptions(p, a, o); err != nil {
			b.Fatal(err)
		}
		files[name] = p
		return p
	}
	read := func(b *testing.B, path string, opt *ReadOptions, chunk int) {
		defer func(c int) { readChunk = c }(readChunk)
		readChunk = chunk
		fileBytes(b, path)
		runtime.GC()
		b.ResetTimer()
		for b.Loop() {
			if _, err := ReadNPY(path, opt); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Baseline: the file read into a reused buffer, no checks.
	b.Run("baseline-read", func(b *testing.B) {
		path := file(b, "le", nil)
		fi, _ := os.Stat(path)
		buf := make([]byte, fi.Size())
		b.SetBytes(fi.Size())
		b.ResetTimer()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(f, buf); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	for _, chunk := range []int{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 64 << 20, math.MaxInt} {
		name := fmt.Sprintf("f64/chunk=%dMiB", chunk>>20)
		if chunk == math.MaxInt {
			name = "f64/whole"
		}
		b.Run(name, func(b *testing.B) { read(b, file(b, "le", nil), nil, chunk) })
	}
	b.Run("f64-to-f32", func(b *testing.B) {
		read(b, file(b, "le", nil), &ReadOptions{DType: tensor.Float32}, readChunk)
	})
	b.Run("f64-big-endian", func(b *testing.B) {
		read(b, file(b, "be", &WriteOptions{BigEndian: true}), nil, readChunk)
	})
	b.Run("f64-fortran", func(b *testing.B) {
		read(b, file(b, "fortran", &WriteOptions{Fortran: true}), nil, readChunk)
	})
}

// BenchmarkDecodeNPYSmall decodes a 16 MiB matrix from memory.
func BenchmarkDecodeNPYSmall(b *testing.B) {
	a, err := Uniform(tensor.Float64, 1024, 2048, -1, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeNPY(&buf, a); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeNPY(bytes.NewReader(data), int64(len(data)), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUniform generates a 4096×4096 float64 matrix.
func BenchmarkUniform(b *testing.B) {
	b.SetBytes(4096 * 4096 * 8)
	for b.Loop() {
		if _, err := Uniform(tensor.Float64, 4096, 4096, -1, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
}
