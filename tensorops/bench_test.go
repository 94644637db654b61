package tensorops

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpump/gpump/internal/memread"
	"gorgonia.org/tensor"
)

// Benchmarks of whole passes over matrices larger than the last-level cache
// (12000×12000: 1.15 GB in float64, 576 MB in float32), next to a plain
// read of the same bytes by the same number of goroutines. Run with
//
//	go test -run XXX -bench Pass -benchtime 20x ./tensorops/
//
// MB/s is the rate at which A is moved.

var passMats = map[string]*tensor.Dense{}
var passMu sync.Mutex

func passMatrix(b *testing.B, m, n int, f32 bool) *tensor.Dense {
	key := fmt.Sprint(m, n, f32)
	passMu.Lock()
	defer passMu.Unlock()
	if a, ok := passMats[key]; ok {
		return a
	}
	// Free the other sizes first: two 1 GB matrices need not coexist.
	clear(passMats)
	runtime.GC()
	rng := rand.New(rand.NewPCG(1, 1))
	var a *tensor.Dense
	if f32 {
		d := make([]float32, m*n)
		for i := range d {
			d[i] = float32(rng.Float64()*2 - 1)
		}
		a = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	} else {
		d := make([]float64, m*n)
		for i := range d {
			d[i] = rng.Float64()*2 - 1
		}
		a = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(d))
	}
	passMats[key] = a
	return a
}

// readJob reads the bytes of worker w's rows with memread, the fastest
// plain read there is.
type readJob struct {
	a    *cpuMatrix
	nw   int
	sums [][8]uint64 // one cache line per worker
}

func (r *readJob) run(w int) {
	lo, hi := span(r.a.m, r.nw, w, 4)
	if r.a.f32 != nil {
		r.sums[w][0] = memread.Slice(r.a.f32[lo*r.a.n : hi*r.a.n])
	} else {
		r.sums[w][0] = memread.Slice(r.a.f64[lo*r.a.n : hi*r.a.n])
	}
}

func BenchmarkPass(b *testing.B) {
	threads := runtime.GOMAXPROCS(0)
	for _, sh := range [][2]int{{12000, 12000}, {5000, 5000}} {
		for _, f32 := range []bool{false, true} {
			prec := "f64"
			size := 8
			if f32 {
				prec, size = "f32", 4
			}
			m, n := sh[0], sh[1]
			name := fmt.Sprintf("%dx%d/%s", m, n, prec)
			cpu := NewCPU(threads)
			rng := rand.New(rand.NewPCG(2, 2))
			// Boxed once: converting a slice to an interface allocates.
			var p, q Vector = randCPUVec(rng, m), randCPUVec(rng, n)
			var fp, fq Vector = make(CPUVector, m), make(CPUVector, n)
			setup := func(b *testing.B) Matrix {
				a, err := cpu.NewMatrix(passMatrix(b, m, n, f32))
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(m * n * size))
				b.ReportAllocs()
				return a
			}
			b.Run(name+"/read", func(b *testing.B) {
				a := setup(b).(*cpuMatrix)
				job := &readJob{a: a, nw: threads, sums: make([][8]uint64, threads)}
				for b.Loop() {
					if cpu.pool != nil {
						cpu.pool.do(job, threads)
					} else {
						job.run(0)
					}
				}
			})
			b.Run(name+"/operator", func(b *testing.B) {
				a := setup(b)
				for b.Loop() {
					cpu.Operator(fp, fq, a, p, q)
				}
			})
			b.Run(name+"/mulvec", func(b *testing.B) {
				a := setup(b)
				for b.Loop() {
					cpu.MulVec(fp, a, q)
				}
			})
			b.Run(name+"/multvec", func(b *testing.B) {
				a := setup(b)
				for b.Loop() {
					cpu.MulTVec(fq, a, p)
				}
			})
			cpu.Close()
		}
	}
}

// BenchmarkPassVsRead alternates each kind of pass (Operator, MulVec,
// MulTVec) with plain reads of the same matrix by the same goroutines, a
// read right before every pass, and reports each pass's rate as a
// percentage of the rate of the reads next to it: on a shared machine whose
// bandwidth drifts, interleaving is what makes the rates comparable.
func BenchmarkPassVsRead(b *testing.B) {
	threads := runtime.GOMAXPROCS(0)
	for _, f32 := range []bool{false, true} {
		prec := "f64"
		if f32 {
			prec = "f32"
		}
		b.Run("12000x12000/"+prec, func(b *testing.B) {
			m, n := 12000, 12000
			cpu := NewCPU(threads)
			defer cpu.Close()
			at, err := cpu.NewMatrix(passMatrix(b, m, n, f32))
			if err != nil {
				b.Fatal(err)
			}
			a := at.(*cpuMatrix)
			rng := rand.New(rand.NewPCG(2, 2))
			var p, q Vector = randCPUVec(rng, m), randCPUVec(rng, n)
			var fp, fq Vector = make(CPUVector, m), make(CPUVector, n)
			job := &readJob{a: a, nw: threads, sums: make([][8]uint64, threads)}
			ops := []struct {
				name string
				pass func()
			}{
				{"operator", func() { cpu.Operator(fp, fq, a, p, q) }},
				{"mulvec", func() { cpu.MulVec(fp, a, q) }},
				{"multvec", func() { cpu.MulTVec(fq, a, p) }},
			}
			tRead := make([]time.Duration, len(ops))
			tOp := make([]time.Duration, len(ops))
			for b.Loop() {
				for k, op := range ops {
					t0 := time.Now()
					if cpu.pool != nil {
						cpu.pool.do(job, threads)
					} else {
						job.run(0)
					}
					t1 := time.Now()
					op.pass()
					tRead[k] += t1.Sub(t0)
					tOp[k] += time.Since(t1)
				}
			}
			size := 8
			if f32 {
				size = 4
			}
			bytes := float64(m*n*size) * float64(b.N)
			var read time.Duration
			for k, op := range ops {
				read += tRead[k]
				b.ReportMetric(bytes/tOp[k].Seconds()/1e6, op.name+"-MB/s")
				b.ReportMetric(100*tRead[k].Seconds()/tOp[k].Seconds(), op.name+"-%-of-read")
			}
			b.ReportMetric(float64(len(ops))*bytes/read.Seconds()/1e6, "read-MB/s")
		})
	}
}
