package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gorgonia.org/tensor"
)

// Random streams. Every random generator of this package fills row i of
// its matrix from the stream
//
//	rand.New(rand.NewPCG(seed, uint64(i)))
//
// of math/rand/v2, drawing the row's entries from left to right. Rows are
// filled in parallel, but each depends only on its own stream, so the
// result is the same for any GOMAXPROCS. Saddle and RankOne use one more
// stream, rand.New(rand.NewPCG(seed, math.MaxUint64)), for what is shared
// by all rows: Saddle's saddle point, RankOne's column factor v.
//
// Arithmetic. Every entry is computed in float64 with each operation
// rounded separately (explicit float64 conversions keep the compiler from
// fusing a*b+c into one fused multiply-add, which it does on arm64 and on
// amd64 with GOAMD64=v3), then converted to the matrix's dtype, so the
// Float32 matrix is the Float64 matrix rounded.

// saddleStream is the stream index of Saddle's saddle point draw.
const saddleStream = math.MaxUint64

// rankOneStream is the stream index of RankOne's column factor v.
const rankOneStream = math.MaxUint64

// entriesPerTask is the number of entries per task of parallelRows.
const entriesPerTask = 1 << 16

// parallelRows calls fill(i0, i1) on disjoint row ranges covering [0, m)
// of an m×n matrix, from up to runtime.GOMAXPROCS(0) goroutines.
func parallelRows(m, n int, fill func(i0, i1 int)) {
	per := max(1, entriesPerTask/n)
	tasks := (m + per - 1) / per
	workers := min(runtime.GOMAXPROCS(0), tasks)
	if workers <= 1 {
		fill(0, m)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				t := int(next.Add(1)) - 1
				if t >= tasks {
					return
				}
				fill(t*per, min(m, (t+1)*per))
			}
		})
	}
	wg.Wait()
}

// checkDims checks the dtype and the dimensions of a matrix to generate.
func checkDims(dt tensor.Dtype, m, n int) error {
	if dt != tensor.Float64 && dt != tensor.Float32 {
		return fmt.Errorf("datasets: unsupported dtype %v: want float64 or float32", dt)
	}
	if m <= 0 || n <= 0 {
		return fmt.Errorf("datasets: invalid matrix dimensions %d×%d", m, n)
	}
	if m > math.MaxInt/8/n {
		return fmt.Errorf("datasets: matrix of %d×%d entries is too large", m, n)
	}
	return nil
}

// span is the rows [lo, hi) of a matrix to generate: generators make any
// block of their rows alone, each row the same as in the whole matrix.
type span struct{ lo, hi int }

// all is the span of every row of an m-row matrix.
func all(m int) span { return span{0, m} }

// generate returns the rows rs of a new row-major matrix with n columns,
// filled in parallel by fill(i, row) (i counts the whole matrix's rows).
func generate[T float](rs span, n int, fill func(i int, row []T)) *tensor.Dense {
	m := rs.hi - rs.lo
	data := makeFloats[T](m * n)
	parallelRows(m, n, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			fill(rs.lo+i, data[i*n:(i+1)*n])
		}
	})
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(data))
}

// generateRand is generate with row i's random stream (see the package
// documentation) passed to fill.
func generateRand[T float](rs span, n int, seed uint64, fill func(i int, row []T, r *rand.Rand)) *tensor.Dense {
	m := rs.hi - rs.lo
	data := makeFloats[T](m * n)
	parallelRows(m, n, func(i0, i1 int) {
		src := rand.NewPCG(seed, 0)
		r := rand.New(src)
		for i := i0; i < i1; i++ {
			src.Seed(seed, uint64(rs.lo+i)) // r is now rand.New(rand.NewPCG(seed, uint64(rs.lo+i)))
			fill(rs.lo+i, data[i*n:(i+1)*n], r)
		}
	})
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(data))
}

// Uniform returns an m×n matrix of dtype dt (tensor.Float64 or
// tensor.Float32) with entries uniformly distributed in [lo, hi).
//
// Row i is filled from left to right with lo + (hi-lo)*r.Float64(), where
// r = rand.New(rand.NewPCG(seed, uint64(i))) (math/rand/v2); a value that
// rounds to hi is replaced by the largest float64 below hi. For Float32
// each entry is the float64 entry rounded to float32, except that a
// rounded value outside [lo, hi) is replaced by the nearest float32 inside
// it. lo < hi must hold, hi-lo must be finite and, for Float32, [lo, hi)
// must contain a float32.
func Uniform(dt tensor.Dtype, m, n int, lo, hi float64, seed uint64) (*tensor.Dense, error) {
	return uniformRows(all(m), dt, m, n, lo, hi, seed)
}

// uniformRows is Uniform's rows rs.
func uniformRows(rs span, dt tensor.Dtype, m, n int, lo, hi float64, seed uint64) (*tensor.Dense, error) {
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	if !(lo < hi) || math.IsInf(hi-lo, 0) {
		return nil, fmt.Errorf("datasets: invalid uniform range [%v, %v)", lo, hi)
	}
	if dt == tensor.Float32 {
		lo32 := float32(lo)
		if float64(lo32) < lo {
			lo32 = math.Nextafter32(lo32, float32(math.Inf(1)))
		}
		hi32 := float32(hi)
		if float64(hi32) >= hi {
			hi32 = math.Nextafter32(hi32, float32(math.Inf(-1)))
		}
		if lo32 > hi32 {
			return nil, fmt.Errorf("datasets: uniform range [%v, %v) contains no float32", lo, hi)
		}
		return uniform(rs, n, lo, hi, lo32, hi32, seed), nil
	}
	return uniform(rs, n, lo, hi, lo, math.Nextafter(hi, math.Inf(-1)), seed), nil
}

// uniform fills a Uniform matrix; loT and hiT are the least and the
// greatest T in [lo, hi).
func uniform[T float](rs span, n int, lo, hi float64, loT, hiT T, seed uint64) *tensor.Dense {
	w := hi - lo
	return generateRand(rs, n, seed, func(_ int, row []T, r *rand.Rand) {
		for j := range row {
			v := lo + float64(w*r.Float64())
			if v >= hi {
				v = float64(hiT)
			}
			x := T(v)
			if float64(x) >= hi {
				x = hiT
			} else if float64(x) < lo {
				x = loT
			}
			row[j] = x
		}
	})
}

// Gaussian returns an m×n matrix of dtype dt (tensor.Float64 or
// tensor.Float32) with standard normal entries: row i is filled from left
// to right with r.NormFloat64(), where r = rand.New(rand.NewPCG(seed,
// uint64(i))) (math/rand/v2). For Float32 each entry is the float64 entry
// rounded to float32.
func Gaussian(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
	return gaussianRows(all(m), dt, m, n, seed)
}

// gaussianRows is Gaussian's rows rs.
func gaussianRows(rs span, dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return gaussian[float32](rs, n, seed), nil
	}
	return gaussian[float64](rs, n, seed), nil
}

func gaussian[T float](rs span, n int, seed uint64) *tensor.Dense {
	return generateRand(rs, n, seed, func(_ int, row []T, r *rand.Rand) {
		for j := range row {
			row[j] = T(r.NormFloat64())
		}
	})
}

// Identity returns the n×n identity matrix of dtype dt (tensor.Float64 or
// tensor.Float32): the hide-and-seek game in which the row player scores 1
// by picking the column player's choice. Both players' optimal strategies
// are uniform and the value of the game is 1/n.
func Identity(dt tensor.Dtype, n int) (*tensor.Dense, error) {
	return identityRows(all(n), dt, n)
}

// identityRows is Identity's rows rs.
func identityRows(rs span, dt tensor.Dtype, n int) (*tensor.Dense, error) {
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return identity[float32](rs, n), nil
	}
	return identity[float64](rs, n), nil
}

func identity[T float](rs span, n int) *tensor.Dense {
	return generate(rs, n, func(i int, row []T) { row[i] = 1 })
}

// Cyclic returns the n×n generalized rock-paper-scissors matrix of dtype dt
// (tensor.Float64 or tensor.Float32), for odd n >= 3:
//
//	A[i][j] = +1 if (i-j) mod n is odd,
//	A[i][j] = -1 if (i-j) mod n is even and not 0,
//	A[i][j] =  0 if i == j,
//
// with 0-based i and j: strategy i beats the (n-1)/2 strategies at odd
// distances behind it on the cycle and loses to the others. For odd n the
// matrix is skew-symmetric (A = -Aᵀ) and every row and column has (n-1)/2
// entries +1 and (n-1)/2 entries -1, so the value of the game is 0 and the
// uniform strategy is optimal for both players. For n = 3, with the order
// rock, paper, scissors, it is rock-paper-scissors.
func Cyclic(dt tensor.Dtype, n int) (*tensor.Dense, error) {
	return cyclicRows(all(n), dt, n)
}

// cyclicRows is Cyclic's rows rs.
func cyclicRows(rs span, dt tensor.Dtype, n int) (*tensor.Dense, error) {
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("datasets: cyclic game size %d is not an odd number >= 3", n)
	}
	if dt == tensor.Float32 {
		return cyclic[float32](rs, n), nil
	}
	return cyclic[float64](rs, n), nil
}

func cyclic[T float](rs span, n int) *tensor.Dense {
	return generate(rs, n, func(i int, row []T) {
		for j := range row {
			d := i - j
			if d < 0 {
				d += n
			}
			switch {
			case d == 0:
				row[j] = 0
			case d%2 == 1:
				row[j] = 1
			default:
				row[j] = -1
			}
		}
	})
}

// SaddleInfo returns the position (i, j) and the value v of the saddle
// entry of Saddle(dt, m, n, seed), for either dtype: i, j and v are drawn
// from the stream r = rand.New(rand.NewPCG(seed, math.MaxUint64))
// (math/rand/v2) as i = r.IntN(m), j = r.IntN(n), v = 0.25 + 0.5*r.Float64().
// The value of the Float32 game is float32(v).
func SaddleInfo(m, n int, seed uint64) (i, j int, v float64, err error) {
	if m <= 0 || n <= 0 {
		return 0, 0, 0, fmt.Errorf("datasets: invalid matrix dimensions %d×%d", m, n)
	}
	r := rand.New(rand.NewPCG(seed, saddleStream))
	i = r.IntN(m)
	j = r.IntN(n)
	v = 0.25 + float64(0.5*r.Float64())
	return i, j, v, nil
}

// Saddle returns an m×n random matrix of dtype dt (tensor.Float64 or
// tensor.Float32) with a pure saddle point: an entry that is the least of
// its row and the greatest of its column, so that the game has that
// entry's row and column as optimal pure strategies and that entry as its
// value. SaddleInfo gives its position (i*, j*) and value v.
//
// Row i draws n uniform numbers u_0, ..., u_{n-1} with r.Float64() from
// r = rand.New(rand.NewPCG(seed, uint64(i))) and sets
//
//	A[i][j]   = u_j              for i != i*, j != j*,
//	A[i][j*]  = v*u_{j*}         for i != i* (below v),
//	A[i*][j]  = v + (1-v)*u_j    for j != j* (at least v),
//	A[i*][j*] = v
//
// (u_{j*} is drawn and unused in row i*). All entries lie in [0, 1). For Float32 each entry is the float64 entry
// rounded to float32; rounding keeps the saddle property.
func Saddle(dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
	return saddleRows(all(m), dt, m, n, seed)
}

// saddleRows is Saddle's rows rs.
func saddleRows(rs span, dt tensor.Dtype, m, n int, seed uint64) (*tensor.Dense, error) {
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	si, sj, v, err := SaddleInfo(m, n, seed)
	if err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return saddle[float32](rs, n, si, sj, v, seed), nil
	}
	return saddle[float64](rs, n, si, sj, v, seed), nil
}

func saddle[T float](rs span, n, si, sj int, v float64, seed uint64) *tensor.Dense {
	return generateRand(rs, n, seed, func(i int, row []T, r *rand.Rand) {
		for j := range row {
			u := r.Float64()
			switch {
			case i == si && j == sj:
				row[j] = T(v)
			case i == si:
				row[j] = T(v + float64((1-v)*u))
			case j == sj:
				row[j] = T(v * u)
			default:
				row[j] = T(u)
			}
		}
	})
}

// Nemirovski returns the n×n test matrix of dtype dt (tensor.Float64 or
// tensor.Float32) of the given family used by Nemirovski for matrix game
// solvers, with 1-based i and j:
//
//	family 1: A[i][j] = ((i + j - 1) / (2n - 1))^alpha,
//	family 2: A[i][j] = ((|i - j| + 1) / (2n - 1))^alpha.
//
// alpha must be positive and finite; all entries lie in (0, 1]. For family
// 2 with alpha = 1 the value of the game is Nemirovski2Value(n). For
// Float32 each entry is the float64 entry rounded to float32.
func Nemirovski(dt tensor.Dtype, n, family int, alpha float64) (*tensor.Dense, error) {
	return nemirovskiRows(all(n), dt, n, family, alpha)
}

// nemirovskiRows is Nemirovski's rows rs.
func nemirovskiRows(rs span, dt tensor.Dtype, n, family int, alpha float64) (*tensor.Dense, error) {
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if family != 1 && family != 2 {
		return nil, fmt.Errorf("datasets: unknown Nemirovski family %d: want 1 or 2", family)
	}
	if !(alpha > 0) || math.IsInf(alpha, 1) {
		return nil, fmt.Errorf("datasets: invalid Nemirovski exponent %v: want a positive finite number", alpha)
	}
	// Entries depend on i+j or |i-j| only: tabulate them. With 0-based
	// i and j, family 1 is tab[i+j] with tab[s] = ((s+1)/(2n-1))^alpha
	// and family 2 is tab[|i-j|] with tab[d] = ((d+1)/(2n-1))^alpha.
	size := 2*n - 1
	if family == 2 {
		size = n
	}
	tab := make([]float64, size)
	den := float64(2*n - 1)
	for s := range tab {
		tab[s] = math.Pow(float64(s+1)/den, alpha)
	}
	if dt == tensor.Float32 {
		return nemirovski[float32](rs, n, family, tab), nil
	}
	return nemirovski[float64](rs, n, family, tab), nil
}

func nemirovski[T float](rs span, n, family int, tab []float64) *tensor.Dense {
	return generate(rs, n, func(i int, row []T) {
		for j := range row {
			if family == 1 {
				row[j] = T(tab[i+j])
			} else {
				row[j] = T(tab[abs(i-j)])
			}
		}
	})
}

// Nemirovski2Value returns (n+1) / (2(2n-1)), the value of the game
// Nemirovski(dt, n, 2, 1), or NaN if n <= 0.
func Nemirovski2Value(n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return float64(n+1) / (2 * float64(2*n-1))
}

// PoliceBurglar returns the n×n policeman-and-burglar matrix of dtype dt
// (tensor.Float64 or tensor.Float32), n = len(wealth). A burglar (the row
// player, maximizing) picks one of n houses on a line to rob, house i
// holding wealth[i]; a policeman (the column player) picks a house j to
// guard, and catches the burglar with probability exp(-theta*|i-j|). The
// expected loot is
//
//	A[i][j] = wealth[i] * (1 - exp(-theta*|i-j|)),
//
// computed as -wealth[i]*math.Expm1(-theta*|i-j|), with 0-based i and j.
// theta must be positive and finite and the wealth finite in dt; use
// PoliceBurglarWealth for random wealth. For Float32 each entry is the
// float64 entry rounded to float32.
func PoliceBurglar(dt tensor.Dtype, wealth []float64, theta float64) (*tensor.Dense, error) {
	return policeBurglarRows(all(len(wealth)), dt, wealth, theta)
}

// policeBurglarRows is PoliceBurglar's rows rs.
func policeBurglarRows(rs span, dt tensor.Dtype, wealth []float64, theta float64) (*tensor.Dense, error) {
	if err := checkPolice(dt, wealth, theta); err != nil {
		return nil, err
	}
	n := len(wealth)
	tab := make([]float64, n) // tab[d] = 1 - exp(-theta*d)
	for d := range tab {
		tab[d] = -math.Expm1(-theta * float64(d))
	}
	if dt == tensor.Float32 {
		return policeBurglar[float32](rs, wealth, tab), nil
	}
	return policeBurglar[float64](rs, wealth, tab), nil
}

func policeBurglar[T float](rs span, wealth, tab []float64) *tensor.Dense {
	n := len(wealth)
	return generate(rs, n, func(i int, row []T) {
		w := wealth[i]
		for j := range row {
			row[j] = T(w * tab[abs(i-j)])
		}
	})
}

// PoliceBurglarWealth returns n house values for PoliceBurglar, uniform in
// [0, 1): wealth[i] is the first r.Float64() of r =
// rand.New(rand.NewPCG(seed, uint64(i))) (math/rand/v2). It returns nil if
// n <= 0.
func PoliceBurglarWealth(n int, seed uint64) []float64 {
	if n <= 0 {
		return nil
	}
	w := make([]float64, n)
	src := rand.NewPCG(seed, 0)
	r := rand.New(src)
	for i := range w {
		src.Seed(seed, uint64(i))
		w[i] = r.Float64()
	}
	return w
}

// PoliceBurglarGrid is PoliceBurglar with the n = side*side houses on a
// side×side grid instead of a line: house k (0-based) stands at the grid
// point (r_k, c_k) = (k / side, k % side), one unit from its neighbours,
// holds wealth[k], and
//
//	A[k][l] = wealth[k] * (1 - exp(-theta*d(k, l))),
//	d(k, l) = sqrt((r_k - r_l)² + (c_k - c_l)²),
//
// computed as -wealth[k]*math.Expm1(-theta*math.Sqrt(dr*dr + dc*dc)) with
// the integer dr*dr + dc*dc exact. The distance is Euclidean: the chance of
// being caught decays with the straight-line distance to the policeman,
// the same in every direction. (With the Manhattan distance |dr| + |dc|
// the catch kernel exp(-theta*d) would be the Kronecker product of two line
// kernels, so the grid game would be built from line games; the Euclidean
// one is not.) Between two houses of the same grid row the distance is
// that of PoliceBurglar's line, |c_k - c_l|.
//
// len(wealth) must be side*side; theta must be positive and finite and the
// wealth finite in dt. Use PoliceBurglarWealth(side*side, seed) for random
// wealth. For Float32 each entry is the float64 entry rounded to float32.
func PoliceBurglarGrid(dt tensor.Dtype, wealth []float64, side int, theta float64) (*tensor.Dense, error) {
	return policeBurglarGridRows(all(len(wealth)), dt, wealth, side, theta)
}

// policeBurglarGridRows is PoliceBurglarGrid's rows rs.
func policeBurglarGridRows(rs span, dt tensor.Dtype, wealth []float64, side int, theta float64) (*tensor.Dense, error) {
	if side <= 0 {
		return nil, fmt.Errorf("datasets: invalid police-burglar grid side %d", side)
	}
	if side > math.MaxInt/side || len(wealth) != side*side {
		return nil, fmt.Errorf("datasets: police-burglar grid of side %d needs %d×%d house values, got %d", side, side, side, len(wealth))
	}
	if err := checkPolice(dt, wealth, theta); err != nil {
		return nil, err
	}
	// Entries depend on |dr| and |dc| only: tab[dr*side+dc].
	tab := make([]float64, side*side)
	for dr := range side {
		for dc := range side {
			tab[dr*side+dc] = -math.Expm1(-theta * math.Sqrt(float64(dr*dr+dc*dc)))
		}
	}
	if dt == tensor.Float32 {
		return policeBurglarGrid[float32](rs, wealth, side, tab), nil
	}
	return policeBurglarGrid[float64](rs, wealth, side, tab), nil
}

// checkPolice checks the arguments shared by PoliceBurglar and
// PoliceBurglarGrid.
func checkPolice(dt tensor.Dtype, wealth []float64, theta float64) error {
	n := len(wealth)
	if err := checkDims(dt, n, n); err != nil {
		return err
	}
	if !(theta > 0) || math.IsInf(theta, 1) {
		return fmt.Errorf("datasets: invalid police-burglar theta %v: want a positive finite number", theta)
	}
	limit := math.MaxFloat64
	if dt == tensor.Float32 {
		limit = math.MaxFloat32
	}
	for i, w := range wealth {
		if !(math.Abs(w) <= limit) {
			return fmt.Errorf("datasets: wealth[%d] = %v is not finite in %v", i, w, dt)
		}
	}
	return nil
}

func policeBurglarGrid[T float](rs span, wealth []float64, side int, tab []float64) *tensor.Dense {
	n := len(wealth)
	return generate(rs, n, func(k int, row []T) {
		w := wealth[k]
		rk, ck := k/side, k%side
		for rl := range side {
			t := tab[abs(rk-rl)*side:]
			out := row[rl*side : (rl+1)*side]
			for cl := range out {
				out[cl] = T(w * t[abs(ck-cl)])
			}
		}
	})
}

// RankOneFactors returns the factors u (length m) and v (length n) of
// RankOne(dt, m, n, sigma, seed), both uniform in [-1, 1):
//
//	u[i] = 2*r.Float64() - 1, the first draw of row i's stream
//	       r = rand.New(rand.NewPCG(seed, uint64(i))),
//	v[j] = 2*s.Float64() - 1, the (j+1)-th draw of the shared stream
//	       s = rand.New(rand.NewPCG(seed, math.MaxUint64))
//
// (math/rand/v2). It returns nil, nil if m <= 0 or n <= 0.
func RankOneFactors(m, n int, seed uint64) (u, v []float64) {
	if m <= 0 || n <= 0 {
		return nil, nil
	}
	u = make([]float64, m)
	src := rand.NewPCG(seed, 0)
	r := rand.New(src)
	for i := range u {
		src.Seed(seed, uint64(i))
		u[i] = 2*r.Float64() - 1
	}
	v = make([]float64, n)
	s := rand.New(rand.NewPCG(seed, rankOneStream))
	for j := range v {
		v[j] = 2*s.Float64() - 1
	}
	return u, v
}

// RankOne returns the m×n rank-one-plus-noise matrix of dtype dt
// (tensor.Float64 or tensor.Float32)
//
//	A = u vᵀ + sigma G,   A[i][j] = u[i]*v[j] + sigma*G[i][j],
//
// where u and v are RankOneFactors(m, n, seed), uniform in [-1, 1), and G
// is standard normal: row i draws u[i] and then, if sigma > 0, G[i][0], …,
// G[i][n-1] with r.NormFloat64() from its stream r =
// rand.New(rand.NewPCG(seed, uint64(i))). The factors do not depend on
// sigma, so RankOne(dt, m, n, sigma, seed) is the same u vᵀ with more or
// less noise. sigma must be finite and non-negative; with sigma = 0, A =
// u vᵀ and its value is RankOneValue(m, n, seed). For Float32 each entry is
// the float64 entry rounded to float32.
func RankOne(dt tensor.Dtype, m, n int, sigma float64, seed uint64) (*tensor.Dense, error) {
	return rankOneRows(all(m), dt, m, n, sigma, seed)
}

// rankOneRows is RankOne's rows rs.
func rankOneRows(rs span, dt tensor.Dtype, m, n int, sigma float64, seed uint64) (*tensor.Dense, error) {
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	if !(sigma >= 0) || math.IsInf(sigma, 1) {
		return nil, fmt.Errorf("datasets: invalid rank-one noise sigma %v: want a finite number >= 0", sigma)
	}
	_, v := RankOneFactors(1, n, seed)
	if dt == tensor.Float32 {
		return rankOne[float32](rs, v, sigma, seed), nil
	}
	return rankOne[float64](rs, v, sigma, seed), nil
}

func rankOne[T float](rs span, v []float64, sigma float64, seed uint64) *tensor.Dense {
	return generateRand(rs, len(v), seed, func(_ int, row []T, r *rand.Rand) {
		u := 2*r.Float64() - 1
		if sigma == 0 {
			for j := range row {
				row[j] = T(u * v[j])
			}
			return
		}
		for j := range row {
			row[j] = T(float64(u*v[j]) + float64(sigma*r.NormFloat64()))
		}
	})
}

// RankOneValue returns the value of the game RankOne(dt, m, n, 0, seed),
// A = u vᵀ with u, v = RankOneFactors(m, n, seed), or NaN if m <= 0 or
// n <= 0. It takes O(m + n) time.
//
// Since pᵀAq = (pᵀu)(vᵀq) and p ranges over the simplex, a = pᵀu takes
// every value in [u₋, u₊] = [min u, max u] and b = vᵀq every value in
// [v₋, v₊] = [min v, max v], so the value is that of the scalar game
// max_a min_b ab:
//
//	f(a) = min_b ab = min(a v₋, a v₊),   v* = max over a in [u₋, u₊] of f(a).
//
// f is concave and piecewise linear with its only kink at a = 0, where
// f(0) = 0, so the maximum is at u₋, at u₊ or, if u₋ <= 0 <= u₊, at 0:
//
//	v* = max(f(u₋), f(u₊), and 0 if u₋ <= 0 <= u₊).
//
// In particular v* = 0 when both u and v take both signs (then the
// optimal strategies mix a row with u[i] > 0 and one with u[i] < 0 so
// that pᵀu = 0, and likewise for the columns), which is the usual case
// for m, n >= 2 (each factor has one sign with probability 2^(1-m) or
// 2^(1-n)); otherwise the game has a pure saddle point, the entry
// u[i]v[j] at the row and column of the maximizing a and minimizing b.
//
// The value is that of the exact products u[i]v[j]. The stored entries are
// rounded, by at most 2^-53 max |A_ij| (Float64) or 2^-24 max |A_ij|
// (Float32), and the value of the stored game differs from v* by at most
// as much; when v* != 0 it is the saddle entry itself, so the difference
// is only its own rounding.
func RankOneValue(m, n int, seed uint64) float64 {
	if m <= 0 || n <= 0 {
		return math.NaN()
	}
	u, v := RankOneFactors(m, n, seed)
	return rankOneValue(u, v)
}

// rankOneValue is the value max_p min_q (pᵀu)(vᵀq) (see RankOneValue).
func rankOneValue(u, v []float64) float64 {
	ulo, uhi := minMax(u)
	vlo, vhi := minMax(v)
	f := func(a float64) float64 { return min(a*vlo, a*vhi) }
	val := max(f(ulo), f(uhi))
	if ulo <= 0 && 0 <= uhi {
		val = max(val, 0)
	}
	return val
}

func minMax(x []float64) (lo, hi float64) {
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
