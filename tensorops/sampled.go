package tensorops

import (
	"fmt"
	"math"
	"slices"
)

// Draw selects one sample of SampledOperator: Batch (b ≥ 1) column indices
// j_k ~ q and b row indices i_k ~ p, from uniforms that are a pure function
// of (Seed, Counter, k).
type Draw struct {
	Batch   int
	Seed    uint64
	Counter uint64 // the solver gives each evaluation its own counter
}

// DrawUniform returns the k-th uniform in [0, 1) of draw (seed, counter): k
// in [0, b) for the columns, [b, 2b) for the rows. Every backend uses
// exactly this function (integer arithmetic only, so CPU and CUDA draw the
// same uniforms): three rounds of SplitMix64, over the seed, then the
// counter, then k, each round a bijection of its 64-bit input, so that for
// one draw distinct k give distinct words; the top 53 bits make the
// uniform.
func DrawUniform(seed, counter, k uint64) float64 {
	z := splitMix(splitMix(splitMix(seed)^counter) ^ k)
	return float64(z>>11) * 0x1p-53
}

// splitMix is one step of SplitMix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", 2014): the golden-ratio
// increment and the variant-13 finalizer of MurmurHash3.
func splitMix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// sampleScratch is the CPU backend's memory for SampledOperator, grown on
// the first call with a larger shape or batch: block 0 is the columns (drawn
// from q), block 1 the rows (drawn from p).
type sampleScratch struct {
	prefix [2][]float64 // the running sums S
	draws  [2][]int     // the b indices drawn, sorted
	idx    [2][]int     // the distinct indices drawn, increasing
	cnt    [2][]float64 // how many times each was drawn
}

// grow makes block k hold n running sums and b draws.
func (s *sampleScratch) grow(k, n, b int) {
	if cap(s.prefix[k]) < n {
		s.prefix[k] = make([]float64, n)
	}
	if cap(s.draws[k]) < b {
		s.draws[k] = make([]int, b)
		s.idx[k] = make([]int, 0, b)
		s.cnt[k] = make([]float64, 0, b)
	}
}

// draw selects block k's b indices from the weights w with the uniforms k0,
// k0 + 1, ... of d, by the rule of SampledOperator, sorts them and groups
// repeats into idx[k] and cnt[k]. It reports false, drawing nothing, when
// the weights have no positive finite total.
func (s *sampleScratch) draw(k int, w []float64, d Draw, k0 int) bool {
	draws := s.draws[k][:d.Batch]
	if !DrawIndices(draws, s.prefix[k][:len(w)], w, d, k0) {
		return false
	}
	idx, cnt := s.idx[k][:0], s.cnt[k][:0]
	for _, i := range draws {
		if n := len(idx); n > 0 && idx[n-1] == i {
			cnt[n-1]++
			continue
		}
		idx, cnt = append(idx, i), append(cnt, 1)
	}
	s.idx[k], s.cnt[k] = idx, cnt
	return true
}

// DrawIndices draws len(dst) indices from the weights w (a negative weight
// counts as 0) with the uniforms k0, k0 + 1, ... of d, by the rule of
// SampledOperator: index i for a uniform x·Σw below the prefix sum S_i and
// at least S_{i-1}. It sorts them into dst; prefix, of len(w), is scratch.
// It reports false, drawing nothing, when the weights have no positive
// finite total. Backends outside this package that sample as
// SampledOperator does (a sharded one) draw by it, so that every backend
// draws the same indices.
func DrawIndices(dst []int, prefix, w []float64, d Draw, k0 int) bool {
	sum := prefix[:len(w)]
	var t float64
	last := -1
	for i, v := range w {
		v = max(v, 0)
		t += v
		sum[i] = t
		if v > 0 {
			last = i
		}
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return false
	}
	for j := range dst {
		x := DrawUniform(d.Seed, d.Counter, uint64(k0+j)) * t
		lo, hi := 0, len(sum) // the smallest i with x < S_i
		for lo < hi {
			if mid := int(uint(lo+hi) >> 1); x < sum[mid] {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if lo == len(sum) {
			lo = last
		}
		dst[j] = lo
	}
	slices.Sort(dst)
	return true
}

// sampleJob is one sum of SampledOperator over the workers: each output
// element is formed alone in a fixed order, so the split does not change
// the result.
type sampleJob struct {
	dst  []float64
	a    *cpuMatrix
	rows bool // dst_j = Σ_u cnt_u a[idx_u, j]; else dst_i = Σ_u cnt_u a[i, idx_u]
	idx  []int
	cnt  []float64
	div  float64
	nw   int
}

func (j *sampleJob) run(w int) {
	lo, hi := span(len(j.dst), j.nw, w, 8)
	switch {
	case j.rows && j.a.f32 != nil:
		sumRows(j.dst[lo:hi], j.a.f32, j.a.n, lo, j.idx, j.cnt, j.div)
	case j.rows:
		sumRows(j.dst[lo:hi], j.a.f64, j.a.n, lo, j.idx, j.cnt, j.div)
	case j.a.f32 != nil:
		gatherColumns(j.dst[lo:hi], j.a.f32, j.a.n, lo, j.idx, j.cnt, j.div)
	default:
		gatherColumns(j.dst[lo:hi], j.a.f64, j.a.n, lo, j.idx, j.cnt, j.div)
	}
}

// sumRows sets dst_j = Σ_u cnt_u a[idx_u, c0 + j] / div: the weighted sum
// of the sampled rows of the row-major a with n columns over the columns
// c0 .. c0 + len(dst), four rows per sweep of dst.
func sumRows[T float32 | float64](dst []float64, a []T, n, c0 int, idx []int, cnt []float64, div float64) {
	clear(dst)
	row := func(u int) []T { return a[idx[u]*n+c0:][:len(dst)] }
	u := 0
	for ; u+4 <= len(idx); u += 4 {
		w0, w1, w2, w3 := cnt[u], cnt[u+1], cnt[u+2], cnt[u+3]
		r0, r1, r2, r3 := row(u), row(u+1), row(u+2), row(u+3)
		for j := range dst {
			dst[j] += w0*float64(r0[j]) + w1*float64(r1[j]) + w2*float64(r2[j]) + w3*float64(r3[j])
		}
	}
	for ; u < len(idx); u++ {
		c, r := cnt[u], row(u)
		for j := range dst {
			dst[j] += c * float64(r[j])
		}
	}
	for j := range dst {
		dst[j] /= div
	}
}

// gatherColumns sets dst_i = Σ_u cnt_u a[r0 + i, idx_u] / div for the rows
// r0 .. r0 + len(dst) of the row-major a with n columns: the weighted sum of
// the sampled columns, read row by row.
func gatherColumns[T float32 | float64](dst []float64, a []T, n, r0 int, idx []int, cnt []float64, div float64) {
	for i := range dst {
		row := a[(r0+i)*n:][:n]
		var s float64
		for u, j := range idx {
			s += cnt[u] * float64(row[j])
		}
		dst[i] = s / div
	}
}

// SampledOperator draws the indices on the host: running sums into scratch
// grown once per shape, a binary search per uniform, the indices sorted and
// grouped so that each sampled row or column is read once. The sums (four
// rows per sweep, float64) run on the workers once they are large enough.
func (c *CPU) SampledOperator(fp, fq Vector, a, at Matrix, p, q Vector, d Draw) {
	am := mat(a)
	fpv, fqv, pv, qv := vec(fp), vec(fq), vec(p), vec(q)
	if len(fpv) != am.m || len(pv) != am.m || len(fqv) != am.n || len(qv) != am.n {
		panic("tensorops: SampledOperator length mismatch")
	}
	var atm *cpuMatrix
	if at != nil {
		if atm = mat(at); atm.m != am.n || atm.n != am.m {
			panic(fmt.Sprintf("tensorops: SampledOperator: a %d×%d transpose of a %d×%d matrix", atm.m, atm.n, am.m, am.n))
		}
	}
	if d.Batch < 1 {
		panic(fmt.Sprintf("tensorops: SampledOperator: batch %d", d.Batch))
	}
	for _, out := range [2][]float64{fpv, fqv} {
		for _, in := range [2][]float64{pv, qv} {
			if len(out) == len(in) && &out[0] == &in[0] {
				panic("tensorops: SampledOperator: an output aliases an input")
			}
		}
	}
	s := &c.sample
	s.grow(0, am.n, d.Batch)
	s.grow(1, am.m, d.Batch)
	b := float64(d.Batch)
	// Columns j ~ q for fp = −(1/b) Σ A e_j, read as rows of Aᵀ when there
	// is one; rows i ~ p for fq = (1/b) Σ Aᵀ e_i.
	if s.draw(0, qv, d, 0) {
		if atm != nil {
			c.sampleSum(fpv, atm, true, s.idx[0], s.cnt[0], -b)
		} else {
			c.sampleSum(fpv, am, false, s.idx[0], s.cnt[0], -b)
		}
	} else {
		fill(fpv, math.NaN())
	}
	if s.draw(1, pv, d, d.Batch) {
		c.sampleSum(fqv, am, true, s.idx[1], s.cnt[1], b)
	} else {
		fill(fqv, math.NaN())
	}
}

// sampleSum runs one sum of SampledOperator, on the workers when it reads
// at least parallelMinEntries entries.
func (c *CPU) sampleSum(dst []float64, a *cpuMatrix, rows bool, idx []int, cnt []float64, div float64) {
	j := &c.sjob
	*j = sampleJob{dst: dst, a: a, rows: rows, idx: idx, cnt: cnt, div: div, nw: 1}
	if c.pool != nil && len(idx)*len(dst) >= parallelMinEntries {
		j.nw = min(c.threads, (len(dst)+7)/8)
		c.pool.do(j, j.nw)
	} else {
		j.run(0)
	}
	*j = sampleJob{}
}

func fill(v []float64, x float64) {
	for i := range v {
		v[i] = x
	}
}
