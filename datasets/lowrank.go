package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/tensor"
)

// lowRankStream is the stream index of LowRank's column factor V.
const lowRankStream = math.MaxUint64

// LowRankFactors returns the factors U (m×rank, row-major) and V (n×rank,
// row-major) of LowRank(dt, m, n, rank, noise, seed), both standard
// normal:
//
//	U[i][k] the (k+1)-th draw (r.NormFloat64) of row i's stream
//	        r = rand.New(rand.NewPCG(seed, uint64(i))),
//	V[j][k] the (j·rank+k+1)-th draw of the shared stream
//	        s = rand.New(rand.NewPCG(seed, math.MaxUint64))
//
// (math/rand/v2). It returns nil, nil unless m, n >= 1 and 1 <= rank.
func LowRankFactors(m, n, rank int, seed uint64) (u, v []float64) {
	if m <= 0 || n <= 0 || rank <= 0 || rank > math.MaxInt/8/max(m, n) {
		return nil, nil
	}
	u = make([]float64, m*rank)
	src := rand.NewPCG(seed, 0)
	r := rand.New(src)
	for i := range m {
		src.Seed(seed, uint64(i))
		for k := range rank {
			u[i*rank+k] = r.NormFloat64()
		}
	}
	return u, lowRankColumns(n, rank, seed)
}

// lowRankColumns returns LowRank's factor V.
func lowRankColumns(n, rank int, seed uint64) []float64 {
	v := make([]float64, n*rank)
	s := rand.New(rand.NewPCG(seed, lowRankStream))
	for j := range v {
		v[j] = s.NormFloat64()
	}
	return v
}

// LowRank returns the m×n low-rank-plus-noise matrix of dtype dt
// (tensor.Float64 or tensor.Float32)
//
//	A = U Vᵀ / √rank + noise G,
//	A[i][j] = (Σ_k U[i][k] V[j][k]) · (1/√rank) + noise · G[i][j],
//
// where U (m×rank) and V (n×rank) are LowRankFactors(m, n, rank, seed) and
// G is standard normal: row i draws U[i][0], …, U[i][rank-1] and then, if
// noise > 0, G[i][0], …, G[i][n-1] with r.NormFloat64() from its stream.
// The scale 1/√rank makes the low-rank part's entries standard normal
// whatever the rank, so noise is relative to entries of order 1, and the
// factors do not depend on noise: the same seed gives the same U Vᵀ with
// more or less noise. The sum over k is taken in order, each product
// rounded before it is added. rank must be in [1, min(m, n)] (a larger
// rank is no longer low), noise finite and non-negative. For Float32 each
// entry is the float64 entry rounded to float32.
//
// Such games are where first-order methods stagnate: their equilibria
// mix few strategies, many of them nearly tied.
func LowRank(dt tensor.Dtype, m, n, rank int, noise float64, seed uint64) (*tensor.Dense, error) {
	return lowRankRows(all(m), dt, m, n, rank, noise, seed)
}

// lowRankRows is LowRank's rows rs.
func lowRankRows(rs span, dt tensor.Dtype, m, n, rank int, noise float64, seed uint64) (*tensor.Dense, error) {
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	if err := checkLowRank(m, n, rank, noise); err != nil {
		return nil, err
	}
	v := lowRankColumns(n, rank, seed)
	if dt == tensor.Float32 {
		return lowRank[float32](rs, n, rank, v, noise, seed), nil
	}
	return lowRank[float64](rs, n, rank, v, noise, seed), nil
}

// checkLowRank checks LowRank's rank and noise.
func checkLowRank(m, n, rank int, noise float64) error {
	if rank < 1 || rank > min(m, n) {
		return fmt.Errorf("datasets: invalid low-rank rank %d: want 1 <= rank <= min(m, n) = %d", rank, min(m, n))
	}
	if !(noise >= 0) || math.IsInf(noise, 1) {
		return fmt.Errorf("datasets: invalid low-rank noise %v: want a finite number >= 0", noise)
	}
	return nil
}

func lowRank[T float](rs span, n, rank int, v []float64, noise float64, seed uint64) *tensor.Dense {
	scale := 1 / math.Sqrt(float64(rank))
	return generateRand(rs, n, seed, func(_ int, row []T, r *rand.Rand) {
		var ub [8]float64
		u := ub[:0]
		if rank > len(ub) {
			u = make([]float64, 0, rank)
		}
		for range rank {
			u = append(u, r.NormFloat64())
		}
		for j := range row {
			vj := v[j*rank : (j+1)*rank]
			var s float64
			for k, uk := range u {
				s += float64(uk * vj[k])
			}
			x := float64(s * scale)
			if noise > 0 {
				x += float64(noise * r.NormFloat64())
			}
			row[j] = T(x)
		}
	})
}
