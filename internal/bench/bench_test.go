package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

func TestBench(t *testing.T) {
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	for _, c := range []struct {
		dt    tensor.Dtype
		name  string
		bytes int64
	}{{tensor.Float64, "f64", 200 * 300 * 8}, {tensor.Float32, "f32", 200 * 300 * 4}} {
		r, err := Run(context.Background(), cpu, &Options{M: 200, N: 300, Dtype: c.dt, MinTime: 10 * time.Millisecond, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", *r)
		if r.Backend != "cpu" || r.M != 200 || r.N != 300 || r.Dtype != c.name || r.BytesPerOperator != c.bytes {
			t.Errorf("%s: result %+v", c.name, *r)
		}
		for _, v := range []float64{r.OperatorSeconds, r.IterationSeconds, r.OperatorGBs, r.IterationGBs} {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s: non-positive or infinite measurement in %+v", c.name, *r)
			}
		}
		// An iteration makes two evaluations, so it takes longer than one.
		// On a loaded machine one measurement once reversed them: the
		// order must show in one of three.
		slower := r.IterationSeconds > r.OperatorSeconds
		for try := 1; try < 3 && !slower; try++ {
			again, err := Run(context.Background(), cpu, &Options{M: 200, N: 300, Dtype: c.dt, MinTime: 10 * time.Millisecond, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			slower = again.IterationSeconds > again.OperatorSeconds
		}
		if !slower {
			t.Errorf("%s: an iteration is not slower than an operator evaluation in three measurements", c.name)
		}
		if g := float64(r.BytesPerOperator) / r.OperatorSeconds / 1e9; math.Abs(g-r.OperatorGBs) > 1e-9*g {
			t.Errorf("%s: OperatorGBs %g, want %g", c.name, r.OperatorGBs, g)
		}
		if g := 2 * float64(r.BytesPerOperator) / r.IterationSeconds / 1e9; math.Abs(g-r.IterationGBs) > 1e-9*g {
			t.Errorf("%s: IterationGBs %g, want %g", c.name, r.IterationGBs, g)
		}
	}
}

func TestBenchErrors(t *testing.T) {
	cpu := tensorops.NewCPU(1)
	ctx := context.Background()
	for _, o := range []Options{
		{M: -1, N: 3},
		{M: 3, N: 3, Dtype: tensor.Int},
	} {
		if _, err := Run(ctx, cpu, &o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(canceled, cpu, &Options{M: 3, N: 3}); err != context.Canceled {
		t.Errorf("canceled context: error %v", err)
	}
	// A context canceled while timing stops the measurement.
	short, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	t0 := time.Now()
	if _, err := Run(short, cpu, &Options{M: 50, N: 50, MinTime: time.Minute}); err != context.DeadlineExceeded {
		t.Errorf("expired context: error %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestBenchIteration checks that the timed loops allocate nothing on the
// CPU, and that the iteration they time is real mirror-prox: the iterates
// stay on the simplex and the gap of the average, which ProxStats reports
// for free, falls well below the start point's.
func TestBenchIteration(t *testing.T) {
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	m, n := 40, 60
	s, err := NewIteration(cpu, m, n, false, 3, tensorops.Entropic)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	if a := testing.AllocsPerRun(20, func() {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("an iteration allocates %v times", a)
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := s.Operators(3); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("the operator loop allocates %v times", a)
	}

	// The gap of the uniform start point.
	p, q := make(tensorops.CPUVector, m), make(tensorops.CPUVector, n)
	for i := range p {
		p[i] = 1 / float64(m)
	}
	for j := range q {
		q[j] = 1 / float64(n)
	}
	fp, fq := make(tensorops.CPUVector, m), make(tensorops.CPUVector, n)
	cpu.Operator(fp, fq, s.a, p, q)
	gap0 := -minOf(fp) - minOf(fq)
	if err := s.Steps(500); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	gap := -st[0].MinAvgG - st[1].MinAvgG
	for k := range 2 {
		var sum float64
		for _, v := range s.y[k].Value.(tensorops.CPUVector) {
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("block %d: y sums to %v", k, sum)
		}
	}
	if !(gap >= 0 && gap < gap0/10) {
		t.Errorf("gap of the average after %d iterations %g, start %g", s.iter, gap, gap0)
	}
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func TestFillUniform(t *testing.T) {
	a, b := make([]float64, 1000), make([]float64, 1000)
	ma := fillUniform(a, 7)
	fillUniform(b, 7)
	c := make([]float32, 1000)
	fillUniform(c, 7)
	var mx, sum float64
	for i, v := range a {
		if v < -1 || v >= 1 || v != b[i] || c[i] != float32(v) {
			t.Fatalf("entry %d: %v %v %v", i, v, b[i], c[i])
		}
		mx = max(mx, math.Abs(v))
		sum += v
	}
	if mx != ma || mx < 0.99 || math.Abs(sum/1000) > 0.1 {
		t.Errorf("max %v (returned %v), mean %v", mx, ma, sum/1000)
	}
	fillUniform(b, 8)
	if a[0] == b[0] && a[1] == b[1] {
		t.Error("the seed does not change the entries")
	}
}

func TestReadRate(t *testing.T) {
	ctx := context.Background()
	for _, threads := range []int{1, 2, 0} {
		r, err := ReadRate(ctx, threads, 1<<20, 10*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("threads=%d: %.1f GB/s", threads, r/1e9)
		if !(r > 0) || math.IsInf(r, 0) {
			t.Errorf("threads=%d: rate %v", threads, r)
		}
	}
	// A buffer that does not divide into the workers' groups.
	if r, err := ReadRate(ctx, 3, 8*1001, time.Millisecond); err != nil || !(r > 0) {
		t.Errorf("odd buffer: %v, %v", r, err)
	}
	if _, err := ReadRate(ctx, 1, 4, time.Millisecond); err == nil {
		t.Error("a 4-byte buffer is accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadRate(canceled, 1, 1<<10, time.Millisecond); err != context.Canceled {
		t.Errorf("canceled context: error %v", err)
	}
}

func TestPeak(t *testing.T) {
	for _, tc := range []struct {
		figure, achieved, peak, share float64
	}{
		{10, 5, 10, 0.5},
		{10, 10, 10, 1},
		{12.1, 14.4, 14.4, 1}, // faster than the figure: the pass is the peak
		{10, 0, 10, 0},
		{10, math.NaN(), 10, 0},
		{0, 5, 0, 0},
		{-1, 5, 0, 0},
		{math.NaN(), 5, 0, 0},
	} {
		peak, share := Peak(tc.figure, tc.achieved)
		if peak != tc.peak || share != tc.share {
			t.Errorf("Peak(%v, %v) = %v, %v, want %v, %v", tc.figure, tc.achieved, peak, share, tc.peak, tc.share)
		}
	}
	// Whatever the two rates, the share is in [0, 1] and the peak is no
	// less than either.
	r := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		figure, achieved := math.Exp(40*r.Float64()-20), math.Exp(40*r.Float64()-20)
		peak, share := Peak(figure, achieved)
		if !(share >= 0 && share <= 1) || peak < figure || peak < achieved {
			t.Fatalf("Peak(%v, %v) = %v, %v", figure, achieved, peak, share)
		}
	}
}
