package solver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/solver/polish"
	"github.com/gpump/gpump/tensorops"
)

// stack returns B generated m×n games, each from its own seed, as one
// (B, m, n) tensor; game bad (if ≥ 0) gets a NaN.
func stack(t testing.TB, dt tensor.Dtype, b, m, n, bad int) *tensor.Dense {
	t.Helper()
	out := tensor.New(tensor.Of(dt), tensor.WithShape(b, m, n))
	for k := range b {
		var g *tensor.Dense
		var err error
		switch k % 3 {
		case 0:
			g, err = datasets.Uniform(dt, m, n, -1, 1, uint64(k+1))
		case 1:
			g, err = datasets.Gaussian(dt, m, n, uint64(k+1))
		default:
			g, err = datasets.Uniform(dt, m, n, 0, 1e-3, uint64(k+1)) // another scale
		}
		if err != nil {
			t.Fatal(err)
		}
		if dt == tensor.Float64 {
			copy(out.Float64s()[k*m*n:], g.Float64s())
		} else {
			copy(out.Float32s()[k*m*n:], g.Float32s())
		}
	}
	if bad >= 0 {
		if dt == tensor.Float64 {
			out.Float64s()[bad*m*n+m*n/2] = math.NaN()
		} else {
			out.Float32s()[bad*m*n+m*n/2] = float32(math.NaN())
		}
	}
	return out
}

// float64Batch is the batch of stack's float64 games, none bad.
func float64Batch(t testing.TB, b, m, n int) *solver.Batch {
	t.Helper()
	batch, err := solver.NewBatch(stack(t, tensor.Float64, b, m, n, -1))
	if err != nil {
		t.Fatal(err)
	}
	return batch
}

// solveAlone solves one game on its own, placed on a one-thread CPU
// backend (a batch worker's), with a fresh method.
func solveAlone(t *testing.T, a *tensor.Dense, s *solver.Settings, name string) (*solver.Result, error) {
	t.Helper()
	g, err := solver.NewMatrixGame(a)
	if err != nil {
		return nil, err
	}
	be := tensorops.NewCPU(1)
	defer be.Close()
	if err := g.Place(be); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m, err := solver.NewMethod(name)
	if err != nil {
		t.Fatal(err)
	}
	return solver.Solve(context.Background(), g, s, m)
}

// Every game of a batch gets, bit for bit, the result of solving it alone
// with the same method and settings, whatever worker solved it after
// whichever other games, and as well in lockstep on a batched backend
// (where games leave the selection as they finish); a game with a NaN
// fails alone.
func TestSolveBatchSameAsAlone(t *testing.T) {
	const b, m, n, bad = 9, 23, 17, 4
	lockstep := tensorops.NewCPU(2)
	defer lockstep.Close()
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		a := stack(t, dt, b, m, n, bad)
		batch, err := solver.NewBatch(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range solver.MethodNames() {
			for _, eps := range []float64{1e-3, 1e-7} {
				if eps < 1e-4 && name != "auto" && name != "rm+" {
					continue // the others take long to 1e-7, and the loop is the same
				}
				for _, path := range []string{"workers", "lockstep"} {
					t.Run(fmt.Sprintf("%v/%s/%g/%s", dt, name, eps, path), func(t *testing.T) {
						s := &solver.Settings{RelGap: eps, MaxIterations: 20000}
						meth, _ := solver.NewMethod(name)
						var calls, inCall atomic.Int32
						var be tensorops.Batched
						if path == "lockstep" {
							be = lockstep
						}
						got, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{
							Settings: *s, Workers: 3, Threads: 1, Backend: be,
							Done: func(k int, r *solver.BatchResult) {
								if inCall.Add(1) != 1 {
									t.Error("Done calls overlap")
								}
								calls.Add(1)
								inCall.Add(-1)
							},
						}, meth)
						if err != nil {
							t.Fatal(err)
						}
						if len(got) != b || calls.Load() != b {
							t.Fatalf("%d results, %d Done calls, want %d", len(got), calls.Load(), b)
						}
						for k := range b {
							want, werr := solveAlone(t, batch.Game(k), s, name)
							r := &got[k]
							if k == bad {
								if r.Err == nil || werr == nil || r.X != nil {
									t.Fatalf("game %d with a NaN: batch error %v, alone %v", k, r.Err, werr)
								}
								continue
							}
							if werr != nil || r.Err != nil {
								t.Fatalf("game %d: batch error %v, alone %v", k, r.Err, werr)
							}
							if !slices.Equal(r.X, want.X) || r.Gap != want.Gap || r.Iterations != want.Iterations ||
								r.MatrixPasses != want.MatrixPasses || r.Status != want.Status || r.Route != want.Route ||
								r.ValueLower != want.ValueLower || r.ValueUpper != want.ValueUpper {
								t.Fatalf("game %d: batch gap %g, %d iterations, route %q; alone %g, %d, %q",
									k, r.Gap, r.Iterations, r.Route, want.Gap, want.Iterations, want.Route)
							}
							if g, err := solver.NewMatrixGame(batch.Game(k)); err != nil || r.MaxAbs != g.MaxAbs() {
								t.Fatalf("game %d: MaxAbs %g, the game's %v (%v)", k, r.MaxAbs, g, err)
							}
							if len(r.Row) != m || len(r.Column) != n {
								t.Fatalf("game %d: strategies of lengths %d, %d", k, len(r.Row), len(r.Column))
							}
						}
					})
				}
			}
		}
	}
}

func TestSolveBatchCanceled(t *testing.T) {
	batch := float64Batch(t, 5, 8, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := solver.SolveBatch(ctx, batch, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range res {
		if !errors.Is(r.Err, context.Canceled) || r.Status != solver.Canceled || r.X != nil {
			t.Fatalf("game %d: %v, %v", k, r.Status, r.Err)
		}
	}
}

func TestSolveBatchRefuses(t *testing.T) {
	good := float64Batch(t, 2, 3, 4)
	var noop solver.Recorder = nopRecorder{}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"2-D", func() error {
			_, err := solver.NewBatch(tensor.New(tensor.WithShape(3, 4), tensor.Of(tensor.Float64)))
			return err
		}},
		{"empty", func() error {
			_, err := solver.NewBatch(tensor.New(tensor.WithShape(0, 4, 4), tensor.WithBacking([]float64{})))
			return err
		}},
		{"int", func() error {
			_, err := solver.NewBatch(tensor.New(tensor.WithShape(1, 2, 2), tensor.Of(tensor.Int)))
			return err
		}},
		{"no criterion", func() error {
			_, err := solver.SolveBatch(context.Background(), good, &solver.BatchSettings{Workers: 1}, nil)
			return err
		}},
		{"recorder", func() error {
			_, err := solver.SolveBatch(context.Background(), good, &solver.BatchSettings{Settings: solver.Settings{RelGap: 1e-3, Recorder: noop}}, nil)
			return err
		}},
		{"workers", func() error {
			_, err := solver.SolveBatch(context.Background(), good, &solver.BatchSettings{Settings: solver.Settings{RelGap: 1e-3}, Workers: -1}, nil)
			return err
		}},
		{"method", func() error {
			_, err := solver.SolveBatch(context.Background(), good, nil, &solver.RegretMatching{Averaging: solver.StepWeighted})
			return err
		}},
	} {
		if err := c.run(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

type nopRecorder struct{}

func (nopRecorder) Init(*solver.Info) error     { return nil }
func (nopRecorder) Record(*solver.Record) error { return nil }

// Warm starts per game: each game starts from its own pair, as alone.
func TestSolveBatchInits(t *testing.T) {
	const b, m, n = 4, 12, 10
	batch := float64Batch(t, b, m, n)
	s := solver.Settings{RelGap: 1e-3, MaxIterations: 100000}
	coarse, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s}, &solver.RegretMatching{})
	if err != nil {
		t.Fatal(err)
	}
	inits := make([][]float64, b)
	for k := range b {
		if k != 2 { // game 2 starts from Settings.Init: the uniform pair
			inits[k] = coarse[k].X
		}
	}
	s.RelGap = 1e-5
	got, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s, Inits: inits, Workers: 2}, &solver.RegretMatching{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range b {
		alone := s
		alone.Init = inits[k]
		want, err := solveAlone(t, batch.Game(k), &alone, "rm+")
		if err != nil || got[k].Err != nil {
			t.Fatal(err, got[k].Err)
		}
		if !slices.Equal(got[k].X, want.X) || got[k].Iterations != want.Iterations {
			t.Fatalf("game %d: %d iterations, alone %d", k, got[k].Iterations, want.Iterations)
		}
	}
	if _, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s, Inits: inits[:2]}, nil); err == nil {
		t.Fatal("2 warm starts for 4 games accepted")
	}
}

// A polish subgame given by the caller is copied per worker (its work space
// is per solve): each game still gets the result of solving it alone.
func TestSolveBatchOwnSubgame(t *testing.T) {
	const b, m, n = 8, 40, 40
	batch := float64Batch(t, b, m, n)
	s := solver.Settings{RelGap: 1e-9, MaxIterations: 100000}
	method := &solver.Auto{Polish: &polish.Options{Subgame: &polish.Subgame{}}}
	got, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{Settings: s, Workers: 2, Threads: 1}, method)
	if err != nil {
		t.Fatal(err)
	}
	polished := 0
	for k := range b {
		want, err := solveAlone(t, batch.Game(k), &s, "auto")
		if err != nil || got[k].Err != nil {
			t.Fatal(err, got[k].Err)
		}
		if !slices.Equal(got[k].X, want.X) || got[k].Iterations != want.Iterations {
			t.Fatalf("game %d: %d iterations (%s), alone %d (%s)", k, got[k].Iterations, got[k].Route, want.Iterations, want.Route)
		}
		polished += got[k].SubgameSolves
	}
	if polished == 0 {
		t.Fatal("no game was polished: the test tests nothing")
	}
}

// A batch allocates per worker, not per game: a game is a SetPayoff and a
// SolveInto on a placed game, which allocate nothing after the first.
func TestSolveBatchAllocs(t *testing.T) {
	if solver.RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	allocs := func(b int) float64 {
		batch := float64Batch(t, b, 12, 10)
		s := &solver.BatchSettings{Settings: solver.Settings{RelGap: 1e-3, MaxIterations: 10000}, Workers: 2, Threads: 1}
		return testing.AllocsPerRun(3, func() {
			if _, err := solver.SolveBatch(context.Background(), batch, s, &solver.RegretMatching{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(4), allocs(64)
	t.Logf("%.0f allocations for 4 games, %.0f for 64", few, many)
	if perGame := (many - few) / 60; perGame >= 1 {
		t.Fatalf("%.0f allocations for 4 games, %.0f for 64: %.2f a game", few, many, perGame)
	}
}

// A lockstep batch allocates per game at its start (the game's lane,
// method and views), never per iteration.
func TestSolveBatchLockstepAllocs(t *testing.T) {
	if solver.RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	batch := float64Batch(t, 16, 12, 10)
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	allocs := func(name string, iters int) float64 {
		s := &solver.BatchSettings{Settings: solver.Settings{RelGap: 1e-300, MaxIterations: iters}, Backend: cpu}
		return testing.AllocsPerRun(2, func() {
			m, _ := solver.NewMethod(name)
			if _, err := solver.SolveBatch(context.Background(), batch, s, m); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, name := range []string{"rm+", "ga-smooth", "omwu"} {
		few, many := allocs(name, 50), allocs(name, 1050)
		t.Logf("%s: %.0f allocations for 50 iterations, %.0f for 1050", name, few, many)
		if perIter := (many - few) / 1000; perIter >= 0.5 {
			t.Errorf("%s: %.2f allocations an iteration", name, perIter)
		}
	}
}

func BenchmarkSolveBatch(b *testing.B) {
	for _, c := range []struct {
		games, n int
		eps      float64
	}{{256, 16, 1e-9}, {256, 64, 1e-6}} {
		for _, path := range []string{"workers", "lockstep"} {
			b.Run(fmt.Sprintf("%dx%d²/%g/%s", c.games, c.n, c.eps, path), func(b *testing.B) {
				batch := float64Batch(b, c.games, c.n, c.n)
				s := &solver.BatchSettings{Settings: solver.Settings{RelGap: c.eps, MaxIterations: 1000000}}
				if path == "lockstep" {
					cpu := tensorops.NewCPU(0)
					defer cpu.Close()
					s.Backend = cpu
				}
				b.ReportAllocs()
				b.SetBytes(int64(c.games * c.n * c.n * 8))
				for b.Loop() {
					if _, err := solver.SolveBatch(context.Background(), batch, s, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.games)*float64(b.N)/b.Elapsed().Seconds(), "games/s")
			})
		}
	}
}

// countingBackend counts the batched calls and the single-game passes a
// lockstep batch makes.
type countingBackend struct {
	*tensorops.CPU
	batched, single map[string]int
}

func (c *countingBackend) BatchOperator(fp, fq tensorops.Vector, a tensorops.BatchMatrix, p, q tensorops.Vector, sel tensorops.Selection) {
	c.batched["pass"]++
	c.CPU.BatchOperator(fp, fq, a, p, q, sel)
}

func (c *countingBackend) BatchMulVec(dst tensorops.Vector, a tensorops.BatchMatrix, q tensorops.Vector, sel tensorops.Selection) {
	c.batched["pass"]++
	c.CPU.BatchMulVec(dst, a, q, sel)
}

func (c *countingBackend) BatchMulTVec(dst tensorops.Vector, a tensorops.BatchMatrix, p tensorops.Vector, sel tensorops.Selection) {
	c.batched["pass"]++
	c.CPU.BatchMulTVec(dst, a, p, sel)
}

func (c *countingBackend) BatchProxStats(dst []tensorops.BlockStats, w []float64, blocks []tensorops.ProxBlock, sel tensorops.Selection) error {
	c.batched["sync"]++
	return c.CPU.BatchProxStats(dst, w, blocks, sel)
}

func (c *countingBackend) BatchAverage(dst []tensorops.GapStats, w []float64, blocks []tensorops.AvgBlock, sel tensorops.Selection) error {
	c.batched["sync"]++
	return c.CPU.BatchAverage(dst, w, blocks, sel)
}

func (c *countingBackend) Operator(fp, fq tensorops.Vector, a tensorops.Matrix, p, q tensorops.Vector) {
	c.single["pass"]++
	c.CPU.Operator(fp, fq, a, p, q)
}

func (c *countingBackend) MulVec(dst tensorops.Vector, a tensorops.Matrix, q tensorops.Vector) {
	c.single["pass"]++
	c.CPU.MulVec(dst, a, q)
}

func (c *countingBackend) MulTVec(dst tensorops.Vector, a tensorops.Matrix, p tensorops.Vector) {
	c.single["pass"]++
	c.CPU.MulTVec(dst, a, p)
}

func (c *countingBackend) ProxStats(dst []tensorops.BlockStats, w float64, blocks []tensorops.ProxBlock) error {
	c.single["sync"]++
	return c.CPU.ProxStats(dst, w, blocks)
}

func (c *countingBackend) Average(dst []tensorops.GapStats, w float64, blocks []tensorops.AvgBlock) error {
	c.single["sync"]++
	return c.CPU.Average(dst, w, blocks)
}

// In lockstep, the passes over the games' matrices and the trial
// statistics run as one batched call for the whole batch: none per game,
// and about as many calls as the slowest game makes alone (2 % more
// allowed: a game that certifies or restarts at its own time runs that
// step's calls alone).
func TestSolveBatchLockstepCalls(t *testing.T) {
	const b, m, n = 24, 16, 12
	batch := float64Batch(t, b, m, n)
	for _, name := range []string{"rm+", "ga-smooth", "omwu"} {
		cpu := tensorops.NewCPU(1)
		be := &countingBackend{CPU: cpu, batched: map[string]int{}, single: map[string]int{}}
		meth, _ := solver.NewMethod(name)
		var stats solver.BatchStats
		res, err := solver.SolveBatch(context.Background(), batch, &solver.BatchSettings{
			Settings: solver.Settings{RelGap: 1e-4, MaxIterations: 5000}, Backend: be, Stats: &stats}, meth)
		cpu.Close()
		if err != nil {
			t.Fatal(err)
		}
		most, total := 0, 0
		for k := range res {
			if res[k].Err != nil {
				t.Fatalf("%s game %d: %v", name, k, res[k].Err)
			}
			most = max(most, res[k].MatrixPasses)
			total += res[k].MatrixPasses
		}
		if be.single["pass"] != 0 || be.single["sync"] != 0 {
			t.Errorf("%s: %d passes and %d statistics run game by game", name, be.single["pass"], be.single["sync"])
		}
		if got := be.batched["pass"]; got > most+most/50 || got == 0 {
			t.Errorf("%s: %d batched passes for %d games, the slowest needing %d passes alone", name, got, b, most)
		}
		// Every round ends with the statistics of the games still running.
		if stats.Rounds < be.batched["sync"]/2 || stats.Rounds > be.batched["sync"]+1 || stats.GameTime <= 0 || stats.DispatchTime <= 0 {
			t.Errorf("%s: stats %+v for %d batched statistics", name, stats, be.batched["sync"])
		}
		t.Logf("%s: %d batched passes (slowest game %d passes, all games %d), %d batched statistics, %+v",
			name, be.batched["pass"], most, total, be.batched["sync"], stats)
	}
}
