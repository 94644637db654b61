//go:build unix

// The guard pages need mmap/mprotect, hence the unix-only build.

package memread

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpump/gpump/internal/guardpage"
)

// testLens returns the byte lengths the read is tested at. The assembly
// reads 16 segments of seg bytes, seg = 1/16 of the whole words rounded
// down to 64 bytes (so fewer than 128 words leave no segment at all), with
// a prefetching stage once seg > 2048 and seg shortened to 320 bytes past a
// multiple of 4 KiB once it reaches 8 KiB; each edge is tried with every
// length of the rest loops (8 and 4 words, single words) and with a
// partial last word. The portable version's 8 segments are covered by the
// same lengths.
func testLens() []int {
	var lens []int
	for _, seg := range []int{0, 64, 128, 2048, 2112, 8128, 8192, 12224, 1 << 16} {
		for _, words := range []int{-1, 0, 1, 3, 4, 7, 8, 9, 15, 17, 127, 133} {
			for _, extra := range []int{0, 5} {
				if n := 16*seg + 8*words + extra; n >= 0 {
					lens = append(lens, n)
				}
			}
		}
	}
	return lens
}

// wantXOR is the plain reference: the XOR of b's words, the last one
// zero-extended.
func wantXOR(b []byte) uint64 {
	var x uint64
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		copy(w[:], b[i:])
		x ^= binary.NativeEndian.Uint64(w[:])
	}
	return x
}

// TestBytes checks that every implementation reads every word of b exactly
// once and nothing outside b. The words are random, so a word left out or
// read twice (XOR cancels it) changes the result; b lies flush against a
// PROT_NONE page (after it, then before it), so a stray load faults.
func TestBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			defer use(im)()
			for _, n := range testLens() {
				for _, flushEnd := range []bool{true, false} {
					g, err := guardpage.New(n, flushEnd)
					if err != nil {
						t.Fatal(err)
					}
					b := guardpage.Slice[byte](g, n)
					for i := range b {
						b[i] = byte(r.Uint32())
					}
					var got uint64
					if guardpage.Faults(func() { got = Bytes(b) }) {
						t.Fatalf("n=%d flushEnd=%v: read memory outside b", n, flushEnd)
					}
					if want := wantXOR(b); got != want {
						t.Fatalf("n=%d flushEnd=%v: got %#x, want %#x", n, flushEnd, got, want)
					}
					g.Free()
				}
			}
		})
	}
}

// TestGuardFaults checks that the harness of TestBytes sees a fault from
// inside the assembly: a slice that claims one word more than is mapped.
func TestGuardFaults(t *testing.T) {
	for _, im := range impls {
		g, err := guardpage.New(4096, true)
		if err != nil {
			t.Fatal(err)
		}
		b := guardpage.Slice[byte](g, 4096+8)
		if !guardpage.Faults(func() { im.xor(b) }) {
			t.Errorf("%s: reading past a guard page did not fault; TestBytes cannot detect over-reads", im.name)
		}
		g.Free()
	}
}

// use makes Bytes use im until the returned function is called.
func use(im impl) (restore func()) {
	old := impls[0]
	impls[0] = im
	return func() { impls[0] = old }
}

func TestSlice(t *testing.T) {
	f := []float32{1, -2, 3.5}
	var b []byte
	for _, x := range f {
		b = binary.NativeEndian.AppendUint32(b, math.Float32bits(x))
	}
	if got, want := Slice(f), Bytes(b); got != want {
		t.Errorf("Slice(%v) = %#x, want %#x", f, got, want)
	}
	if got := Slice([]uint64{}); got != 0 {
		t.Errorf("Slice of nothing = %#x, want 0", got)
	}
	if got := Slice([]uint64{1 << 60, 3, 1 << 60}); got != 3 {
		t.Errorf("Slice = %#x, want 3", got)
	}
}

func TestBytesAllocs(t *testing.T) {
	b := make([]byte, 1<<16+5)
	if n := testing.AllocsPerRun(10, func() { Bytes(b) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

// BenchmarkBytes reads buffers that fit in L2, that fit in L3, and that do
// not, with every implementation, on one goroutine.
func BenchmarkBytes(b *testing.B) {
	for _, size := range []int{256 << 10, 16 << 20, 512 << 20} {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(i)
		}
		for _, im := range impls {
			b.Run(fmt.Sprintf("%dKiB/%s", size>>10, im.name), func(b *testing.B) {
				defer use(im)()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					Bytes(buf)
				}
			})
		}
	}
}
