//go:build cuda

package tensorops

import (
	"fmt"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
)

// SampledOperator draws and sums on the device; nothing crosses to the
// host. Async, five launches: gpump_sample_scan_partial and
// gpump_sample_scan_finish (the running sums of q and p into the sampling
// scratch, their chunk records in workspaces 0 and 1; grid
// kernels.SampleScan), gpump_sample_draw (the 2b indices; grid
// kernels.SampleDraw(b)), gpump_sample_rows_{f32,f64} for fq
// (Elementwise(n)), and for fp gpump_sample_rows_* over at (Elementwise(m))
// or, without at, gpump_sample_cols_* over A (kernels.SampleCols(m)). The
// sampling scratch (running sums, 4 scalars, 2b indices) is allocated on
// the first call and grown, synchronously, when a call needs more.
func (c *CUDA) SampledOperator(fp, fq Vector, a, at Matrix, p, q Vector, d Draw) {
	am := c.mat(a)
	m, n := am.m, am.n
	fpv, fqv := c.vecN(fp, m, "SampledOperator"), c.vecN(fq, n, "SampledOperator")
	pv, qv := c.vecN(p, m, "SampledOperator"), c.vecN(q, n, "SampledOperator")
	var atm *cudaMatrix
	if at != nil {
		if atm = c.mat(at); atm.m != n || atm.n != m {
			panic(fmt.Sprintf("tensorops: SampledOperator: a %d×%d transpose of a %d×%d matrix", atm.m, atm.n, m, n))
		}
	}
	if d.Batch < 1 {
		panic(fmt.Sprintf("tensorops: SampledOperator: batch %d", d.Batch))
	}
	distinct("SampledOperator", []cu.DevicePtr{fpv.ptr, fqv.ptr}, pv.ptr, qv.ptr)
	b := int64(d.Batch)
	scan, err := kernels.SampleScan(qv.vs, pv.vs, c.kdev)
	if err != nil {
		panic(err)
	}
	draw, err := kernels.SampleDraw(b, c.kdev)
	if err != nil {
		panic(err)
	}
	// Scratch: S_q (n), S_p (m), info (4), then the 2b indices.
	words := int64(n) + int64(m) + 4
	if !c.growSample(8 * (words + 2*b)) {
		return
	}
	sq := c.w.smp
	sp := sq + cu.DevicePtr(8*n)
	info := sp + cu.DevicePtr(8*m)
	idx := info + 4*8
	ws0, ws1 := c.w.ws[0], c.w.ws[1]

	l := c.newLaunch(c.w.k.sampleScanPartial, scan)
	l.ptr(ws0).ptr(qv.ptr).i64(int64(n)).i64(qv.vs.ChunkLen).ptr(ws1).ptr(pv.ptr).i64(int64(m)).i64(pv.vs.ChunkLen)
	c.submit(&l)
	l = c.newLaunch(c.w.k.sampleScanFinish, scan)
	l.ptr(sq).ptr(qv.ptr).ptr(ws0).i64(int64(n)).i64(qv.vs.ChunkLen).
		ptr(sp).ptr(pv.ptr).ptr(ws1).i64(int64(m)).i64(pv.vs.ChunkLen).ptr(info)
	c.submit(&l)
	l = c.newLaunch(c.w.k.sampleDraw, draw)
	l.ptr(idx).ptr(sq).i64(int64(n)).ptr(sp).i64(int64(m)).ptr(info).i64(b).i64(int64(d.Seed)).i64(int64(d.Counter))
	c.submit(&l)
	// fq: the sampled rows of A.
	l = c.newLaunch(c.w.k.sampleRows[am.dt], fqv.el)
	l.ptr(fqv.ptr).ptr(am.a).i64(int64(n)).ptr(idx + cu.DevicePtr(8*b)).i64(b).f64(float64(b))
	c.submit(&l)
	// fp: the sampled columns, as rows of Aᵀ or strided in A.
	if atm != nil {
		l = c.newLaunch(c.w.k.sampleRows[atm.dt], fpv.el)
		l.ptr(fpv.ptr).ptr(atm.a).i64(int64(m)).ptr(idx).i64(b).f64(-float64(b))
	} else {
		cols, err := kernels.SampleCols(int64(m), c.kdev)
		if err != nil {
			panic(err)
		}
		l = c.newLaunch(c.w.k.sampleCols[am.dt], cols)
		l.ptr(fpv.ptr).ptr(am.a).i64(int64(m)).i64(int64(n)).ptr(idx).i64(b).f64(-float64(b))
	}
	c.submit(&l)
}

// growSample makes the sampling scratch hold at least bytes and reports
// whether it does (caller side; synchronous when it allocates, which a
// sequence of evaluations does only on its first call). A failure becomes
// the error of the next synchronization point, as a failed launch would.
func (c *CUDA) growSample(bytes int64) bool {
	if bytes <= c.w.smpBytes {
		return true
	}
	ok := false
	c.do(func() error {
		w := c.w
		p, err := cu.MemAlloc(bytes)
		if err == nil && w.smp != 0 {
			if err = cu.MemFree(w.smp); err != nil {
				cu.MemFree(p)
				err = cuErr("cuMemFree", err)
			}
		} else if err != nil {
			err = allocErr(err, bytes, "the sampled operator's scratch")
		}
		if err != nil {
			if w.pending == nil {
				w.pending = err
			}
			return nil
		}
		w.smp, w.smpBytes, ok = p, bytes, true
		return nil
	})
	return ok
}
