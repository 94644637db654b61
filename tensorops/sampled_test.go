package tensorops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/tensor"
)

// The CUDA kernels and the emulator harness (kernels/testdata/emu) check
// the same three values: the device and the host must draw the same bits.
func TestDrawUniformGolden(t *testing.T) {
	for _, c := range []struct {
		seed, counter, k uint64
		bits             uint64
	}{
		{0, 0, 0, 0x3fc1c13ade1c7e5c},
		{1, 2, 3, 0x3fea0e68ea1fbc6c},
		{0x9e3779b97f4a7c15, 1 << 40, 511, 0x3fbfe8f025a1c668},
	} {
		if got := math.Float64bits(DrawUniform(c.seed, c.counter, c.k)); got != c.bits {
			t.Errorf("DrawUniform(%#x, %#x, %d) = %#x, want %#x", c.seed, c.counter, c.k, got, c.bits)
		}
	}
}

// DrawUniform over many (counter, k) of one seed: in [0, 1), mean 1/2 and
// variance 1/12 within 5 standard errors, a chi-square over 1000 equal
// buckets within 5 standard deviations of its mean, neighbouring counters
// and neighbouring k uncorrelated, and no two words alike.
func TestDrawUniformUniform(t *testing.T) {
	const counters, ks, buckets = 1 << 10, 1 << 10, 1000
	const n = counters * ks
	var sum, sum2, corrK, corrC float64
	hist := make([]int, buckets)
	seen := make(map[float64]bool, n)
	for c := range uint64(counters) {
		for k := range uint64(ks) {
			u := DrawUniform(7, c, k)
			if !(u >= 0 && u < 1) {
				t.Fatalf("DrawUniform(7, %d, %d) = %v", c, k, u)
			}
			sum += u
			sum2 += u * u
			hist[int(u*buckets)]++
			corrK += (u - 0.5) * (DrawUniform(7, c, k+1) - 0.5)
			corrC += (u - 0.5) * (DrawUniform(7, c+1, k) - 0.5)
			seen[u] = true
		}
	}
	mean, variance := sum/n, sum2/n-(sum/n)*(sum/n)
	if se := math.Sqrt(1.0 / 12 / n); math.Abs(mean-0.5) > 5*se {
		t.Errorf("mean %v, want 0.5 ± %.2g", mean, 5*se)
	}
	// The variance of u² is 1/5 − 1/9 = 4/45.
	if se := math.Sqrt(4.0 / 45 / n); math.Abs(variance-1.0/12) > 5*se {
		t.Errorf("variance %v, want 1/12 ± %.2g", variance, 5*se)
	}
	var chi2 float64
	want := float64(n) / buckets
	for _, h := range hist {
		chi2 += (float64(h) - want) * (float64(h) - want) / want
	}
	if sd := math.Sqrt(2 * (buckets - 1)); math.Abs(chi2-(buckets-1)) > 5*sd {
		t.Errorf("chi-square over %d buckets %.1f, want %d ± %.0f", buckets, chi2, buckets-1, 5*sd)
	}
	// Each correlation has standard error (1/12)/√n.
	for name, c := range map[string]float64{"k, k+1": corrK / n, "counter, counter+1": corrC / n} {
		if math.Abs(c) > 5*(1.0/12)/math.Sqrt(n) {
			t.Errorf("covariance of %s: %.3g", name, c)
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct uniforms in %d draws", len(seen), n)
	}
	if DrawUniform(8, 0, 0) == DrawUniform(7, 0, 0) {
		t.Error("the seed does not change the draw")
	}
}

// eye returns the m×n matrix with ones on the diagonal: through it the
// sampled operator returns the histograms of the indices it drew.
func eye(m, n int) *tensor.Dense {
	d := make([]float64, m*n)
	for i := range min(m, n) {
		d[i*n+i] = 1
	}
	return tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
}

// Over many draws the sampled indices follow the weights, and an index of
// weight zero (or negative) is never drawn: with A the identity, fp = −(the
// histogram of the columns)/b and fq = (the histogram of the rows)/b, with
// and without the transposed copy.
func TestSampledOperatorFrequencies(t *testing.T) {
	const m, n, b, draws = 6, 6, 16, 4000
	cpu := NewCPU(1)
	a, _ := cpu.NewMatrix(eye(m, n))
	at, _ := cpu.Transpose(a)
	p := CPUVector{0.1, 0, 0.3, -0.2, 0.4, 0.2}
	q := CPUVector{0, 0.5, 0, 0.25, 0.25, 0}
	for _, tr := range []Matrix{nil, at} {
		fp, fq := make(CPUVector, m), make(CPUVector, n)
		hp, hq := make([]float64, m), make([]float64, n)
		for c := range uint64(draws) {
			cpu.SampledOperator(fp, fq, a, tr, p, q, Draw{Batch: b, Seed: 3, Counter: c})
			var sp, sq float64
			for i := range fp {
				hq[i] -= fp[i] * b
				hp[i] += fq[i] * b
				sq -= fp[i]
				sp += fq[i]
			}
			if sp != 1 || sq != 1 {
				t.Fatalf("draw %d: the histograms hold %v and %v of b", c, sp, sq)
			}
		}
		for _, c := range []struct {
			name string
			w    CPUVector
			h    []float64
		}{{"rows", p, hp}, {"columns", q, hq}} {
			var total float64
			for _, x := range c.w {
				total += max(x, 0)
			}
			for i, x := range c.w {
				f := max(x, 0) / total
				if x <= 0 && c.h[i] != 0 {
					t.Errorf("transposed=%v: %s index %d of weight %g drawn %g times", tr != nil, c.name, i, x, c.h[i])
				}
				// A binomial count: 5 standard deviations.
				if nd := float64(draws * b); math.Abs(c.h[i]-f*nd) > 5*math.Sqrt(nd*f*(1-f))+1e-9 {
					t.Errorf("transposed=%v: %s index %d drawn %g times, expected %.0f", tr != nil, c.name, i, c.h[i], f*nd)
				}
			}
		}
	}
}

// A weight vector with no positive finite total makes the output drawn from
// it NaN, and only that one.
func TestSampledOperatorNaN(t *testing.T) {
	cpu := NewCPU(1)
	a, _ := cpu.NewMatrix(eye(3, 4))
	fp, fq := make(CPUVector, 3), make(CPUVector, 4)
	good3, good4 := CPUVector{1, 1, 1}, CPUVector{1, 1, 1, 1}
	for name, c := range map[string]struct {
		p, q         CPUVector
		fpNaN, fqNaN bool
	}{
		"q all zero":     {good3, CPUVector{0, -1, 0, 0}, true, false},
		"p with a NaN":   {CPUVector{1, math.NaN(), 1}, good4, false, true},
		"q with an Inf":  {good3, CPUVector{1, math.Inf(1), 0, 0}, true, false},
		"both fine":      {good3, good4, false, false},
		"p all negative": {CPUVector{-1, -2, -3}, good4, false, true},
	} {
		cpu.SampledOperator(fp, fq, a, nil, c.p, c.q, Draw{Batch: 5})
		if math.IsNaN(fp[0]) != c.fpNaN || math.IsNaN(fq[0]) != c.fqNaN {
			t.Errorf("%s: fp %v, fq %v", name, fp, fq)
		}
	}
	mustPanic(t, "batch 0", func() { cpu.SampledOperator(fp, fq, a, nil, good3, good4, Draw{}) })
	mustPanic(t, "a transpose of the wrong shape", func() { cpu.SampledOperator(fp, fq, a, a, good3, good4, Draw{Batch: 1}) })
	mustPanic(t, "a short q", func() { cpu.SampledOperator(fp, fq, a, nil, good3, good3, Draw{Batch: 1}) })
}

// On a matrix large enough for the workers, an evaluation allocates nothing
// after the first, and the result does not depend on the thread count.
func TestSampledOperatorThreadsNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const m, n, b = 300, 2000, 64
	at, _ := randMatrix(rng, m, n, true)
	p, q := randCPUVec(rng, m), randCPUVec(rng, n)
	var ref [2][]float64
	for _, threads := range []int{1, 3} {
		cpu := NewCPU(threads)
		a, _ := cpu.NewMatrix(at)
		tr, _ := cpu.Transpose(a)
		for k, trm := range []Matrix{nil, tr} {
			fp, fq := make(CPUVector, m), make(CPUVector, n)
			var fpv, fqv, pv, qv Vector = fp, fq, p, q
			d := Draw{Batch: b, Seed: 5}
			if allocs := testing.AllocsPerRun(10, func() {
				cpu.SampledOperator(fpv, fqv, a, trm, pv, qv, d)
			}); allocs != 0 {
				t.Errorf("threads=%d transposed=%v: %v allocations per evaluation", threads, trm != nil, allocs)
			}
			got := append(slices.Clone(fp), fq...)
			if ref[k] == nil {
				ref[k] = got
			} else if !slices.Equal(got, ref[k]) {
				t.Errorf("transposed=%v: 3 threads give other bits than 1", trm != nil)
			}
		}
		cpu.Close()
	}
}

// go test -run XXX -bench SampledOperator ./tensorops/ : one evaluation at
// b = 256 on a 4000×4000 float64 matrix, the sampled columns strided or
// from the transposed copy; MB/s counts the 2b(m + n) entries read.
func BenchmarkSampledOperator(b *testing.B) {
	const m, n, batch = 4000, 4000, 256
	rng := rand.New(rand.NewPCG(19, 20))
	at, _ := randMatrix(rng, m, n, false)
	cpu := NewCPU(0)
	defer cpu.Close()
	a, _ := cpu.NewMatrix(at)
	tr, _ := cpu.Transpose(a)
	p, q := randCPUVec(rng, m), randCPUVec(rng, n)
	for i := range p {
		p[i] = math.Abs(p[i])
	}
	for j := range q {
		q[j] = math.Abs(q[j])
	}
	// Boxed once: converting a slice to an interface allocates.
	var fp, fq, pv, qv Vector = make(CPUVector, m), make(CPUVector, n), p, q
	for _, c := range []struct {
		name string
		at   Matrix
	}{{"strided", nil}, {"transposed", tr}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(8 * batch * (m + n))
			d := Draw{Batch: batch, Seed: 1}
			for b.Loop() {
				d.Counter++
				cpu.SampledOperator(fp, fq, a, c.at, pv, qv, d)
			}
		})
	}
}
