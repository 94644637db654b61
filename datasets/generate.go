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
// result is the same for any GOMAXPROCS. Saddle uses one more stream,
// rand.New(rand.NewPCG(seed, math.MaxUint64)), for its saddle point.

// saddleStream is the stream index of Saddle's saddle point draw.
const saddleStream = math.MaxUint64

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

// generate returns a new m×n row-major matrix whose rows are filled in
// parallel by fill(i, row).
func generate[T float](m, n int, fill func(i int, row []T)) *tensor.Dense {
	data := makeFloats[T](m * n)
	parallelRows(m, n, func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			fill(i, data[i*n:(i+1)*n])
		}
	})
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(data))
}

// generateRand is generate with row i's random stream (see the package
// documentation) passed to fill.
func generateRand[T float](m, n int, seed uint64, fill func(i int, row []T, r *rand.Rand)) *tensor.Dense {
	data := makeFloats[T](m * n)
	parallelRows(m, n, func(i0, i1 int) {
		src := rand.NewPCG(seed, 0)
		r := rand.New(src)
		for i := i0; i < i1; i++ {
			src.Seed(seed, uint64(i)) // r is now rand.New(rand.NewPCG(seed, uint64(i)))
			fill(i, data[i*n:(i+1)*n], r)
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
		return uniform(m, n, lo, hi, lo32, hi32, seed), nil
	}
	return uniform(m, n, lo, hi, lo, math.Nextafter(hi, math.Inf(-1)), seed), nil
}

// uniform fills a Uniform matrix; loT and hiT are the least and the
// greatest T in [lo, hi).
func uniform[T float](m, n int, lo, hi float64, loT, hiT T, seed uint64) *tensor.Dense {
	w := hi - lo
	return generateRand(m, n, seed, func(_ int, row []T, r *rand.Rand) {
		for j := range row {
			v := lo + w*r.Float64()
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
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return gaussian[float32](m, n, seed), nil
	}
	return gaussian[float64](m, n, seed), nil
}

func gaussian[T float](m, n int, seed uint64) *tensor.Dense {
	return generateRand(m, n, seed, func(_ int, row []T, r *rand.Rand) {
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
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return identity[float32](n), nil
	}
	return identity[float64](n), nil
}

func identity[T float](n int) *tensor.Dense {
	return generate(n, n, func(i int, row []T) { row[i] = 1 })
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
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("datasets: cyclic game size %d is not an odd number >= 3", n)
	}
	if dt == tensor.Float32 {
		return cyclic[float32](n), nil
	}
	return cyclic[float64](n), nil
}

func cyclic[T float](n int) *tensor.Dense {
	return generate(n, n, func(i int, row []T) {
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
	v = 0.25 + 0.5*r.Float64()
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
	if err := checkDims(dt, m, n); err != nil {
		return nil, err
	}
	si, sj, v, err := SaddleInfo(m, n, seed)
	if err != nil {
		return nil, err
	}
	if dt == tensor.Float32 {
		return saddle[float32](m, n, si, sj, v, seed), nil
	}
	return saddle[float64](m, n, si, sj, v, seed), nil
}

func saddle[T float](m, n, si, sj int, v float64, seed uint64) *tensor.Dense {
	return generateRand(m, n, seed, func(i int, row []T, r *rand.Rand) {
		for j := range row {
			u := r.Float64()
			switch {
			case i == si && j == sj:
				row[j] = T(v)
			case i == si:
				row[j] = T(v + (1-v)*u)
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
		return nemirovski[float32](n, family, tab), nil
	}
	return nemirovski[float64](n, family, tab), nil
}

func nemirovski[T float](n, family int, tab []float64) *tensor.Dense {
	return generate(n, n, func(i int, row []T) {
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
	n := len(wealth)
	if err := checkDims(dt, n, n); err != nil {
		return nil, err
	}
	if !(theta > 0) || math.IsInf(theta, 1) {
		return nil, fmt.Errorf("datasets: invalid police-burglar theta %v: want a positive finite number", theta)
	}
	limit := math.MaxFloat64
	if dt == tensor.Float32 {
		limit = math.MaxFloat32
	}
	for i, w := range wealth {
		if !(math.Abs(w) <= limit) {
			return nil, fmt.Errorf("datasets: wealth[%d] = %v is not finite in %v", i, w, dt)
		}
	}
	tab := make([]float64, n) // tab[d] = 1 - exp(-theta*d)
	for d := range tab {
		tab[d] = -math.Expm1(-theta * float64(d))
	}
	if dt == tensor.Float32 {
		return policeBurglar[float32](wealth, tab), nil
	}
	return policeBurglar[float64](wealth, tab), nil
}

func policeBurglar[T float](wealth, tab []float64) *tensor.Dense {
	n := len(wealth)
	return generate(n, n, func(i int, row []T) {
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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
