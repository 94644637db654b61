package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Shared by the kernels and the read loop.

// pfDist is the prefetch distance in bytes. 1-4 KiB all measured the same
// within noise (6000x6000 float64, best of 25 passes: 15.0 GB/s without
// prefetching, 17.7 GB/s with), as did PREFETCHT1 instead of PREFETCHT0;
// PREFETCHNTA ran at a third to a half of the read rate.
const pfDist = 2048

// lineBytes is the size of a cache line.
const lineBytes = 64

// A form is the width an instruction works at: a ZMM or YMM register of
// float64 lanes, or the low float64 of an XMM register (sd, the AVX2 scalar
// tails).
type form struct {
	spec  reg.Spec
	lanes int
}

var (
	zmm = form{reg.S512, 8}
	ymm = form{reg.S256, 4}
	sd  = form{reg.S128, 1}
)

// v returns vector register i at this width (Z4, Y4 or X4 for 4).
func (f form) v(i int) reg.VecPhysical {
	return reg.Vector.Lookup(reg.Index(i), f.spec).(reg.VecPhysical)
}

// asm wraps the avo context with the helpers the emitters share.
type asm struct{ *build.Context }

// addr returns the address of a Go argument or result.
func addr(c gotypes.Component) operand.Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
