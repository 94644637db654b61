package shard

import (
	"context"
	"encoding/binary"
	"time"
)

// Clock returns a solver.Settings.Clock that every rank of c reads alike:
// each reading broadcasts rank 0's time since Clock was called and whether
// rank 0's ctx is done. Every rank makes the same readings in the same
// order (the ranks take the same steps), so a time limit or an interrupt
// stops them all at the same iteration, with the same result; each
// reading costs a broadcast of 9 bytes.
func Clock(c Comm, ctx context.Context) func() (time.Duration, bool) {
	t0 := time.Now()
	buf := make([]byte, 9)
	return func() (time.Duration, bool) {
		if c.Rank() == 0 {
			binary.LittleEndian.PutUint64(buf, uint64(time.Since(t0)))
			buf[8] = 0
			if ctx.Err() != nil {
				buf[8] = 1
			}
		}
		c.Bcast(buf, 0)
		return time.Duration(binary.LittleEndian.Uint64(buf)), buf[8] != 0
	}
}
