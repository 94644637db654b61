package datasets

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// split is the contiguous block of rank of size over m rows (the first
// m mod size one row longer), as package shard splits a game.
func split(m, size, rank int) (int, int) {
	q, x := m/size, m%size
	lo := rank*q + min(rank, x)
	hi := lo + q
	if rank < x {
		hi++
	}
	return lo, hi
}

// TestReadNPYRows checks that the blocks of rows read by 1 to 4 ranks put
// together are the whole matrix ReadNPY reads, for float64 and float32
// files and results.
func TestReadNPYRows(t *testing.T) {
	dir := t.TempDir()
	for _, fileDT := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		a, err := Uniform(fileDT, 23, 7, -3, 3, 11)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fileDT.String()+".npy")
		if err := WriteNPY(path, a); err != nil {
			t.Fatal(err)
		}
		for _, dt := range []tensor.Dtype{{}, tensor.Float64, tensor.Float32} {
			opt := &ReadOptions{DType: dt}
			whole, err := ReadNPY(path, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := bytesOfTensor(whole)
			for size := 1; size <= 4; size++ {
				var got []byte
				for r := range size {
					blk, m, err := ReadNPYRows(path, func(m int) (int, int) { return split(m, size, r) }, opt)
					if err != nil {
						t.Fatalf("%v file, rank %d of %d: %v", fileDT, r, size, err)
					}
					lo, hi := split(23, size, r)
					if m != 23 || blk.Shape()[0] != hi-lo || blk.Shape()[1] != 7 || blk.Dtype() != whole.Dtype() {
						t.Fatalf("%v file, rank %d of %d: m %d, block %v %v", fileDT, r, size, m, blk.Shape(), blk.Dtype())
					}
					got = append(got, bytesOfTensor(blk)...)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%v file read as %v over %d ranks: the blocks differ from ReadNPY's matrix", fileDT, dt, size)
				}
			}
		}
	}
}

// TestReadNPYRowsErrors: a non-finite entry is found in the block that
// holds it and named by its row in the whole array; the other blocks read;
// a Fortran-order file and a block out of range are refused.
func TestReadNPYRowsErrors(t *testing.T) {
	dir := t.TempDir()
	a, err := Uniform(tensor.Float64, 10, 4, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	a.Float64s()[7*4+2] = math.NaN()
	path := filepath.Join(dir, "nan.npy")
	if err := WriteNPY(path, a); err != nil {
		t.Fatal(err)
	}
	_, _, err = ReadNPYRows(path, func(int) (int, int) { return 5, 10 }, nil)
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "(7, 2)") {
		t.Errorf("block [5, 10) with NaN at (7, 2): %v", err)
	}
	if _, _, err := ReadNPYRows(path, func(int) (int, int) { return 0, 5 }, nil); err != nil {
		t.Errorf("block [0, 5) without the NaN: %v", err)
	}
	for _, c := range [][2]int{{-1, 3}, {4, 4}, {6, 11}} {
		if _, _, err := ReadNPYRows(path, func(int) (int, int) { return c[0], c[1] }, nil); err == nil {
			t.Errorf("rows [%d, %d) of 10 accepted", c[0], c[1])
		}
	}
	_, _, err = ReadNPYRows(filepath.Join("testdata", "f64_fortran.npy"), func(m int) (int, int) { return 0, m }, nil)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "Fortran") {
		t.Errorf("a Fortran-order file: %v", err)
	}
}

// FuzzReadNPYRows checks that reading a block of rows of any input never
// panics and, when it succeeds, gives exactly those rows of DecodeNPY's
// matrix.
func FuzzReadNPYRows(f *testing.F) {
	addFiles(f, "*.npy", 0x10, 0x31, 0xf2)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		// mode's nibbles choose the block: lo the low one, hi the high.
		rows := func(m int) (int, int) { return int(mode&15) % (m + 1), int(mode>>4) % (m + 1) }
		blk, m, err := readRows(bytes.NewReader(data), int64(len(data)), rows, target{})
		if err != nil {
			return
		}
		whole, err := DecodeNPY(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			// Only entries outside the block can make the whole fail.
			if !errors.Is(err, ErrNotFinite) && !errors.Is(err, ErrFormat) {
				t.Fatalf("the block read, the whole failed: %v", err)
			}
			return
		}
		if m != whole.Shape()[0] {
			t.Fatalf("m %d, the whole has %d rows", m, whole.Shape()[0])
		}
		lo, hi := rows(m)
		n := whole.Shape()[1]
		want := bytesOfTensor(whole)
		sz := len(want) / (m * n)
		if got := bytesOfTensor(blk); !bytes.Equal(got, want[lo*n*sz:hi*n*sz]) {
			t.Fatalf("rows [%d, %d) differ from the whole's", lo, hi)
		}
	})
}
