package tensorops

import "fmt"

type opKind int

const (
	opFused   opKind = iota // fp = −A q and fq = Aᵀ p
	opMulVec                // fp = A q
	opMulTVec               // fq = Aᵀ p
)

// opJob describes one pass over A; it lives inside the CPU so that handing it
// to the workers (as a pointer in an interface) allocates nothing.
type opJob struct {
	c      *CPU
	kind   opKind
	a      *cpuMatrix
	fp, fq []float64 // outputs: row block (A q, negated for opFused), column block (Aᵀ p)
	p, q   []float64
	nw     int  // workers taking part
	cols   bool // split by columns instead of rows
	// dots[w] receives the dot products of worker w's current row group
	// (up to eight). It lives here rather than on the stack because the
	// kernels are called through function values, which makes a stack
	// pointer escape (one allocation per call); 8 words per worker keep the
	// workers' slots on separate cache lines.
	dots [][8]float64
}

// pass runs one pass over A on the workers.
func (c *CPU) pass(kind opKind, am Matrix, fp, fq, p, q []float64) {
	a, ok := am.(*cpuMatrix)
	if !ok {
		panic(fmt.Sprintf("tensorops: %T is not a CPU matrix", am))
	}
	if (kind != opMulTVec && (len(fp) != a.m || len(q) != a.n)) ||
		(kind != opMulVec && (len(fq) != a.n || len(p) != a.m)) {
		panic("tensorops: matrix-vector length mismatch")
	}
	j := &c.job
	j.kind, j.a, j.fp, j.fq, j.p, j.q = kind, a, fp, fq, p, q
	j.nw, j.cols = 1, false
	if c.pool != nil && a.bytes() >= c.passMinBytes {
		j.nw = c.threads
		j.cols = a.m < 4*c.threads
	}
	if j.nw == 1 {
		j.run(0)
	} else {
		c.pool.do(j, j.nw)
	}
	j.finish()
	j.fp, j.fq, j.p, j.q, j.a = nil, nil, nil, nil, nil
}

// span splits [0, total) into nw chunks whose boundaries are multiples of
// align and returns chunk w. The ⌈total/align⌉ groups are dealt out evenly,
// so chunks differ by at most one group (rounding the chunk length up to a
// multiple of align instead would give, for 9 rows in groups of 8 on two
// workers, 8 rows to one and 1 to the other).
func span(total, nw, w, align int) (lo, hi int) {
	groups := (total + align - 1) / align
	lo = min(w*groups/nw*align, total)
	hi = min((w+1)*groups/nw*align, total)
	return lo, hi
}

func (j *opJob) run(w int) {
	a := j.a
	if j.cols {
		// Every worker walks all rows over its own columns: its part of Aᵀp
		// goes straight to the output, its part of each row's dot product to
		// rowDots[w], summed by finish.
		c0, c1 := span(a.n, j.nw, w, 8)
		var fq []float64
		if j.kind != opMulVec {
			fq = j.fq[c0:c1]
			clear(fq)
		}
		var dots []float64
		if j.kind != opMulTVec {
			dots = j.c.rowDots[w][:a.m]
		}
		j.accumulate(w, 0, a.m, c0, c1, dots, fq, true)
		return
	}
	// Whole 8-row groups for every worker but the last.
	r0, r1 := span(a.m, j.nw, w, 8)
	var dots, acc []float64
	if j.kind != opMulTVec {
		dots = j.fp[r0:r1]
	}
	if j.kind != opMulVec {
		if w == 0 {
			acc = j.fq
		} else {
			acc = j.c.partial[w][:a.n]
		}
		clear(acc)
	}
	if r0 == r1 {
		return
	}
	if a.n <= 2*colBlock {
		j.accumulate(w, r0, r1, 0, a.n, dots, acc, true)
		return
	}
	nb := (a.n + colBlock - 1) / colBlock
	for b := range nb {
		c0, c1 := b*colBlock, min((b+1)*colBlock, a.n)
		var s []float64
		if acc != nil {
			s = acc[c0:c1]
		}
		j.accumulate(w, r0, r1, c0, c1, dots, s, b == 0)
	}
}

// accumulate processes rows [r0, r1) over columns [c0, c1): the rows' dot
// products with q go to dots (indexed from r0 in row mode, from 0 in column
// mode; nil to skip), set when first is true and added to otherwise (later
// column blocks), and s (columns c0..c1) accumulates Σ_i p_i A_i (nil to
// skip). Rows go to the kernels eight at a time, then at most one group of
// four, then single rows.
func (j *opJob) accumulate(wk, r0, r1, c0, c1 int, dots, s []float64, first bool) {
	a := j.a
	n, w := a.n, c1-c0
	var q []float64
	if dots != nil {
		q = j.q[c0:c1]
	}
	p := j.p
	d8 := &j.dots[wk]
	d4 := (*[4]float64)(d8[:4])
	for i := r0; i < r1; {
		rows := 8
		switch left := r1 - i; {
		case left < 4:
			rows = left
		case left < 8:
			rows = 4
		}
		off := i*n + c0
		switch rows {
		case 8:
			switch {
			case dots != nil && s != nil:
				if a.f32 != nil {
					fused8(a.f32[off:], n, w, q, s, (*[8]float64)(p[i:i+8]), d8)
				} else {
					fused8(a.f64[off:], n, w, q, s, (*[8]float64)(p[i:i+8]), d8)
				}
			case dots != nil:
				if a.f32 != nil {
					dot8(a.f32[off:], n, w, q, d8)
				} else {
					dot8(a.f64[off:], n, w, q, d8)
				}
			default:
				if a.f32 != nil {
					axpy8(a.f32[off:], n, w, s, (*[8]float64)(p[i:i+8]))
				} else {
					axpy8(a.f64[off:], n, w, s, (*[8]float64)(p[i:i+8]))
				}
			}
		case 4:
			switch {
			case dots != nil && s != nil:
				if a.f32 != nil {
					fused4(a.f32[off:], n, w, q, s, (*[4]float64)(p[i:i+4]), d4)
				} else {
					fused4(a.f64[off:], n, w, q, s, (*[4]float64)(p[i:i+4]), d4)
				}
			case dots != nil:
				if a.f32 != nil {
					dot4(a.f32[off:], n, w, q, d4)
				} else {
					dot4(a.f64[off:], n, w, q, d4)
				}
			default:
				if a.f32 != nil {
					axpy4(a.f32[off:], n, w, s, (*[4]float64)(p[i:i+4]))
				} else {
					axpy4(a.f64[off:], n, w, s, (*[4]float64)(p[i:i+4]))
				}
			}
		default:
			for k := range rows {
				o := off + k*n
				switch {
				case dots != nil && s != nil:
					if a.f32 != nil {
						d8[k] = fused1(a.f32[o:o+w], w, q, s, p[i+k])
					} else {
						d8[k] = fused1(a.f64[o:o+w], w, q, s, p[i+k])
					}
				case dots != nil:
					if a.f32 != nil {
						d8[k] = dot1(a.f32[o:o+w], w, q)
					} else {
						d8[k] = dot1(a.f64[o:o+w], w, q)
					}
				default:
					if a.f32 != nil {
						axpy1(a.f32[o:o+w], w, s, p[i+k])
					} else {
						axpy1(a.f64[o:o+w], w, s, p[i+k])
					}
				}
			}
		}
		if dots != nil {
			base := i - r0
			if j.cols {
				base = i
			}
			for k := range rows {
				if first {
					dots[base+k] = d8[k]
				} else {
					dots[base+k] += d8[k]
				}
			}
		}
		i += rows
	}
}

// finish combines the workers' partial results and applies the sign of the
// operator.
func (j *opJob) finish() {
	a := j.a
	if j.cols && j.nw > 1 {
		if j.kind != opMulTVec {
			for i := range j.fp {
				var s float64
				for w := range j.nw {
					s += j.c.rowDots[w][i]
				}
				j.fp[i] = s
			}
		}
	} else if j.nw > 1 && j.kind != opMulVec {
		for w := 1; w < j.nw; w++ {
			part := j.c.partial[w][:a.n]
			for i, v := range part {
				j.fq[i] += v
			}
		}
	}
	if j.kind == opFused {
		for i, v := range j.fp {
			j.fp[i] = -v
		}
	}
}
