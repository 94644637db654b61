package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/gpump/gpump/tensorops"
)

// The sampled oracle on the host (see SampledGame): it reads A from the
// game's tensor and p, q from the backend, copying them through the host
// when the backend's vectors are not host slices.
type sampledOracle struct {
	base *gameBase
	m, n int
	b    int
	a64  []float64
	a32  []float32
	// at64 or at32 is Aᵀ (n×m, row-major) with SampledGame.Transposed.
	at64 []float64
	at32 []float32
	rng  *rand.Rand
	u    []float64 // the b uniforms of one draw
	// idx[k] lists the distinct indices drawn for block k's estimate
	// (k = 0: columns j ~ q, for −A q; k = 1: rows i ~ p, for Aᵀp), in
	// increasing order, and cnt[k] how many times each was drawn.
	idx [2][]int
	cnt [2][]float64
	// host holds p and q, and out the estimate, when the backend's
	// vectors are not host slices.
	host, out [2][]float64
}

// sampledStream is the PCG stream constant of the sampled oracle's draws.
const sampledStream = 0x5851f42d4c957f2d

// newSampledOracle returns the oracle of batch size batch; with transposed
// it first copies A transposed, with threads goroutines.
func newSampledOracle(b *gameBase, batch int, seed uint64, transposed bool, threads int) *sampledOracle {
	m, n := b.size[0], b.size[1]
	o := &sampledOracle{
		base: b, m: m, n: n, b: batch,
		rng: rand.New(rand.NewPCG(seed, sampledStream)),
		u:   make([]float64, batch),
	}
	switch d := b.pl.g.a.Data().(type) {
	case []float64:
		o.a64 = d[:m*n]
		if transposed {
			o.at64 = transpose(o.a64, m, n, threads)
		}
	case []float32:
		o.a32 = d[:m*n]
		if transposed {
			o.at32 = transpose(o.a32, m, n, threads)
		}
	}
	for k := range 2 {
		o.idx[k] = make([]int, 0, batch)
		o.cnt[k] = make([]float64, 0, batch)
		o.host[k] = make([]float64, b.size[k])
		o.out[k] = make([]float64, b.size[k])
	}
	return o
}

// reseed restarts the draws from seed.
func (o *sampledOracle) reseed(seed uint64) { o.rng = rand.New(rand.NewPCG(seed, sampledStream)) }

// hostSlice returns v's elements in host memory: v itself for a CPU vector,
// else a copy in buf.
func (o *sampledOracle) hostSlice(v tensorops.Vector, buf []float64) ([]float64, error) {
	if c, ok := v.(tensorops.CPUVector); ok {
		return c, nil
	}
	if err := o.base.be.Store(buf, v); err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	return buf, nil
}

// evaluate sets f to the sampled estimate of F(p, q) (the columns are drawn
// first, then the rows).
func (o *sampledOracle) evaluate(f [2]tensorops.Vector, p, q tensorops.Vector) error {
	ps, err := o.hostSlice(p, o.host[0])
	if err != nil {
		return err
	}
	qs, err := o.hostSlice(q, o.host[1])
	if err != nil {
		return err
	}
	if err := o.draw(0, qs); err != nil {
		return err
	}
	if err := o.draw(1, ps); err != nil {
		return err
	}
	var dst [2][]float64
	for k := range 2 {
		if c, ok := f[k].(tensorops.CPUVector); ok {
			dst[k] = c
		} else {
			dst[k] = o.out[k]
		}
	}
	fb := float64(o.b)
	switch {
	case o.at64 != nil:
		sumRows(dst[0], o.at64, o.m, o.idx[0], o.cnt[0], -fb)
	case o.at32 != nil:
		sumRows(dst[0], o.at32, o.m, o.idx[0], o.cnt[0], -fb)
	case o.a64 != nil:
		gatherColumns(dst[0], o.a64, o.n, o.idx[0], o.cnt[0], -fb)
	default:
		gatherColumns(dst[0], o.a32, o.n, o.idx[0], o.cnt[0], -fb)
	}
	if o.a64 != nil {
		sumRows(dst[1], o.a64, o.n, o.idx[1], o.cnt[1], fb)
	} else {
		sumRows(dst[1], o.a32, o.n, o.idx[1], o.cnt[1], fb)
	}
	for k := range 2 {
		if _, ok := f[k].(tensorops.CPUVector); !ok {
			if err := o.base.be.Load(f[k], dst[k]); err != nil {
				return fmt.Errorf("solver: %w", err)
			}
		}
	}
	o.base.evals++
	return nil
}

// draw samples b indices from the distribution w (nonnegative weights, not
// necessarily summing to 1: they are normalized by their sum) into idx[k]
// and cnt[k]. Index i is drawn when a uniform falls in [S_{i−1}, S_i) with
// S the running sum, so an index of weight 0 never is.
func (o *sampledOracle) draw(k int, w []float64) error {
	var total float64
	for _, v := range w {
		if v > 0 {
			total += v
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return errors.New("solver: the sampled oracle got a strategy that is not a probability vector")
	}
	u := o.u
	for i := range u {
		u[i] = o.rng.Float64() * total
	}
	slices.Sort(u)
	idx, cnt := o.idx[k][:0], o.cnt[k][:0]
	var s float64
	next, last := 0, -1
	for i, v := range w {
		if !(v > 0) {
			continue
		}
		s += v // the additions of total, in the same order: S_last = total
		last = i
		c := next
		for next < len(u) && u[next] < s {
			next++
		}
		if next > c {
			idx = append(idx, i)
			cnt = append(cnt, float64(next-c))
		}
	}
	if next < len(u) {
		// A uniform rounded up to the total itself (u·total with u just
		// below 1): it belongs to the last index of positive weight.
		if len(idx) == 0 || idx[len(idx)-1] != last {
			idx = append(idx, last)
			cnt = append(cnt, 0)
		}
		cnt[len(cnt)-1] += float64(len(u) - next)
	}
	o.idx[k], o.cnt[k] = idx, cnt
	return nil
}

// gatherColumns sets dst_i = Σ_u cnt_u a[i, idx_u] / div for every row i of
// the row-major a with n columns: the weighted sum of the sampled columns,
// read row by row.
func gatherColumns[T float32 | float64](dst []float64, a []T, n int, idx []int, cnt []float64, div float64) {
	for i := range dst {
		row := a[i*n : i*n+n]
		var s float64
		for u, j := range idx {
			s += cnt[u] * float64(row[j])
		}
		dst[i] = s / div
	}
}

// sumRows sets dst = Σ_u cnt_u a[idx_u, :] / div: the weighted sum of the
// sampled rows of the row-major a with n columns, four rows per sweep of
// dst.
func sumRows[T float32 | float64](dst []float64, a []T, n int, idx []int, cnt []float64, div float64) {
	dst = dst[:n]
	clear(dst)
	u := 0
	for ; u+4 <= len(idx); u += 4 {
		c0, c1, c2, c3 := cnt[u], cnt[u+1], cnt[u+2], cnt[u+3]
		r0, r1 := a[idx[u]*n:][:n], a[idx[u+1]*n:][:n]
		r2, r3 := a[idx[u+2]*n:][:n], a[idx[u+3]*n:][:n]
		for j := range dst {
			dst[j] += c0*float64(r0[j]) + c1*float64(r1[j]) + c2*float64(r2[j]) + c3*float64(r3[j])
		}
	}
	for ; u < len(idx); u++ {
		c, r := cnt[u], a[idx[u]*n:][:n]
		for j := range dst {
			dst[j] += c * float64(r[j])
		}
	}
	for j := range dst {
		dst[j] /= div
	}
}

// transpose returns the n×m row-major transpose of the m×n row-major a,
// copied by 64×64 tiles, the bands of 64 columns of a shared among
// threads goroutines.
func transpose[T float32 | float64](a []T, m, n, threads int) []T {
	const tile = 64
	t := make([]T, m*n)
	bands := (n + tile - 1) / tile
	var wg sync.WaitGroup
	for w := range min(max(threads, 1), bands) {
		wg.Go(func() {
			for band := w; band < bands; band += max(threads, 1) {
				j0 := band * tile
				j1 := min(j0+tile, n)
				for i0 := 0; i0 < m; i0 += tile {
					i1 := min(i0+tile, m)
					for i := i0; i < i1; i++ {
						row := a[i*n : i*n+n]
						for j := j0; j < j1; j++ {
							t[j*m+i] = row[j]
						}
					}
				}
			}
		})
	}
	wg.Wait()
	return t
}
