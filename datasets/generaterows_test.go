package datasets

import (
	"bytes"
	"testing"

	"gorgonia.org/tensor"
)

// TestGenerateRows checks that the blocks of rows of every generator, made
// alone as the ranks of a sharded solve make them (contiguous blocks, the
// first m mod N one row longer), put together are Generate's matrix bit
// for bit, for 1 to 4 ranks and both dtypes.
func TestGenerateRows(t *testing.T) {
	specs := []string{
		"uniform:m=37,n=11,lo=-2,hi=3,seed=5", "gaussian:m=37,n=11,seed=5",
		"police:n=25,seed=3", "police:n=25,layout=grid,seed=3",
		"nemirovski:n=23,family=1,alpha=2", "nemirovski:n=23,family=2",
		"cyclic:n=23", "identity:n=23", "saddle:m=37,n=11,seed=9",
		"rankone:m=37,n=11,sigma=0.5,seed=2", "rankone:m=37,n=11,sigma=0,seed=2",
		"lowrank:m=37,n=11,rank=3,noise=0.1,seed=4",
	}
	for _, str := range specs {
		s, err := ParseGenSpec(str)
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			whole, err := Generate(dt, s)
			if err != nil {
				t.Fatal(err)
			}
			want := bytesOfTensor(whole)
			m := s.Rows()
			if got := whole.Shape()[0]; got != m {
				t.Fatalf("%s: Rows() = %d, the matrix has %d", str, m, got)
			}
			for size := 1; size <= 4; size++ {
				var got []byte
				for r := range size {
					q, x := m/size, m%size
					lo := r*q + min(r, x)
					hi := lo + q
					if r < x {
						hi++
					}
					blk, err := GenerateRows(dt, s, lo, hi)
					if err != nil {
						t.Fatalf("%s rows [%d, %d): %v", str, lo, hi, err)
					}
					if sh := blk.Shape(); sh[0] != hi-lo || sh[1] != whole.Shape()[1] {
						t.Fatalf("%s rows [%d, %d): shape %v", str, lo, hi, sh)
					}
					got = append(got, bytesOfTensor(blk)...)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %v over %d ranks: the blocks differ from the whole matrix", str, dt, size)
				}
			}
		}
	}
}

func bytesOfTensor(a *tensor.Dense) []byte {
	if a.Dtype() == tensor.Float32 {
		return bytes.Clone(bytesOf(a.Float32s()))
	}
	return bytes.Clone(bytesOf(a.Float64s()))
}

// TestGenerateRowsRange refuses empty and out-of-range blocks.
func TestGenerateRowsRange(t *testing.T) {
	s, err := ParseGenSpec("uniform:m=10,n=3")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]int{{-1, 2}, {3, 3}, {4, 2}, {8, 11}} {
		if _, err := GenerateRows(tensor.Float64, s, c[0], c[1]); err == nil {
			t.Errorf("rows [%d, %d) of 10 accepted", c[0], c[1])
		}
	}
}
