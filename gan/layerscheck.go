package gan

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// LayerCheck is one operation of a Layers on one shape, checked against
// the float64 products of its contract.
type LayerCheck struct {
	// Op is "Forward", "Forward tanh", "Backward", "Grad w" or "Grad b".
	Op string
	// Shape is "n×rows×in×out", with " shared" when every network reads
	// one input (stride 0).
	Shape string
	// MaxErr is the largest |got − want| / (s + 1) over the outputs, s the
	// sum of the magnitudes of the output's terms: float32 rounding makes
	// it about 1e-7.
	MaxErr float64
}

// LayerTolerance is the MaxErr a Layers must keep within: float32
// rounding of sums of up to about a thousand terms.
const LayerTolerance = 1e-6

// CheckLayers runs every operation of ops on random operands (seeded by
// seed) of shapes below, at and above the kernels' tiles, one and many
// networks, separate and shared inputs, and returns each operation's
// largest error per shape against float64 products. It is the test of
// every implementation of Layers (the CPU's and a device's, in gpump
// selftest too).
func CheckLayers(ops Layers, seed uint64) []LayerCheck {
	var out []LayerCheck
	for _, sz := range []struct{ n, rows, in, out int }{{1, 1, 1, 1}, {3, 5, 2, 7}, {2, 64, 32, 32}, {12, 64, 2, 32}, {4, 13, 32, 1}, {2, 832, 32, 2}, {3, 33, 17, 19}} {
		for _, shared := range []bool{false, true} {
			out = append(out, checkShape(ops, seed, sz.n, sz.rows, sz.in, sz.out, shared)...)
		}
	}
	return out
}

func checkShape(ops Layers, seed uint64, n, rows, in, out int, shared bool) []LayerCheck {
	rng := rand.New(rand.NewPCG(seed^uint64(n*1000+rows), uint64(in*100+out)))
	xs := rows * in
	shape := fmt.Sprintf("%d×%d×%d×%d", n, rows, in, out)
	if shared {
		xs = 0
		shape += " shared"
	}
	x := rand32((n-1)*xs+rows*in, rng)
	w, b := rand32(n*in*out, rng), rand32(n*out, rng)
	dy := rand32(n*rows*out, rng)
	y, yt, dx := make([]float32, n*rows*out), make([]float32, n*rows*out), make([]float32, n*rows*in)
	dw, db := make([]float32, n*in*out), make([]float32, n*out)
	ops.Forward(n, rows, in, out, x, xs, w, b, false, y)
	ops.Forward(n, rows, in, out, x, xs, w, b, true, yt)
	ops.Backward(n, rows, in, out, dy, w, dx)
	ops.Grad(n, rows, in, out, x, xs, dy, dw, db)
	errs := map[string]float64{}
	note := func(op string, got float32, want, scale float64) {
		d := math.Abs(float64(got)-want) / (scale + 1)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		errs[op] = max(errs[op], d)
	}
	for i := range n {
		xi := x[i*xs:]
		wi, bi := w[i*in*out:(i+1)*in*out], b[i*out:(i+1)*out]
		dyi := dy[i*rows*out : (i+1)*rows*out]
		for r := range rows {
			for s := range out {
				v, sc := float64(bi[s]), math.Abs(float64(bi[s]))
				for p := range in {
					t := float64(xi[r*in+p]) * float64(wi[p*out+s])
					v, sc = v+t, sc+math.Abs(t)
				}
				note("Forward", y[i*rows*out+r*out+s], v, sc)
				note("Forward tanh", yt[i*rows*out+r*out+s], math.Tanh(v), sc)
			}
			// dx = dy·wᵀ: the product with the transposed weights.
			for p := range in {
				v, sc := 0.0, 0.0
				for q := range out {
					t := float64(dyi[r*out+q]) * float64(wi[p*out+q])
					v, sc = v+t, sc+math.Abs(t)
				}
				note("Backward", dx[i*rows*in+r*in+p], v, sc)
			}
		}
		for q := range out {
			for p := range in {
				v, sc := 0.0, 0.0
				for r := range rows {
					t := float64(xi[r*in+p]) * float64(dyi[r*out+q])
					v, sc = v+t, sc+math.Abs(t)
				}
				note("Grad w", dw[i*in*out+p*out+q], v, sc)
			}
			v, sc := 0.0, 0.0
			for r := range rows {
				v, sc = v+float64(dyi[r*out+q]), sc+math.Abs(float64(dyi[r*out+q]))
			}
			note("Grad b", db[i*out+q], v, sc)
		}
	}
	var res []LayerCheck
	for _, op := range []string{"Forward", "Forward tanh", "Backward", "Grad w", "Grad b"} {
		res = append(res, LayerCheck{Op: op, Shape: shape, MaxErr: errs[op]})
	}
	return res
}

func rand32(n int, rng *rand.Rand) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}
