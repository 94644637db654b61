package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpump/gpump/internal/memlimit"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/solver"

	"github.com/gpump/gpump/internal/bench"
	"github.com/gpump/gpump/internal/memread"
	"github.com/gpump/gpump/tensorops"
)

// peakers give a device's peak memory bandwidth in bytes per second, with
// where the figure comes from; files behind build tags add theirs.
var peakers = map[string]func(ctx context.Context, o *benchOptions, b tensorops.Backend, bytes int64) (float64, string, error){
	"cpu": func(ctx context.Context, o *benchOptions, _ tensorops.Backend, bytes int64) (float64, string, error) {
		r, err := bench.ReadRate(ctx, threadsOr(o.threads), bytes, o.minTime)
		return r, fmt.Sprintf("a plain %s read of the same bytes by the same threads", memread.Name()), err
	},
}

// benchOptions are gpump bench's flags.
type benchOptions struct {
	device, precision    string
	m, n, threads, games int
	minTime              time.Duration
	seed                 uint64
	eps                  float64
	json, lockstep       bool
	given                map[string]bool // the flags the command line gave
}

func benchCommand() *cli.Command {
	o := &benchOptions{}
	return &cli.Command{
		Name:  "bench",
		Usage: "time operator evaluations and iterations on a device",
		Description: `Times one operator evaluation (A q and A'p in one pass over A) and one
mirror-prox iteration (two evaluations, two proxes and the per-iteration
reductions, as the solver runs them) on a seeded random matrix, and reports
the bytes of A moved per second and their share of the device's peak memory
bandwidth: on a CPU the rate of a plain read of the same bytes by the same
threads, on a GPU the figure from its memory clock and bus width. Use a
matrix much larger than the caches (the default is 1.15 GB in float64).

With --games B it times a batch instead: B seeded uniform m×n games
(entries in [-1, 1)) solved by solver.SolveBatch to relative gap --eps with
the default method, a game per core, and reports games per second and the
FLOP/s of their passes over the matrices (2mn multiply-adds per product).
With --device cuda, or --lockstep on the CPU, the games run in lockstep
(one batched call per operation for every running game); it then also
reports the batched calls and the time spent in them, the rest being the
host's share (the games' step logic and the dispatch).

Examples:
   gpump bench
   gpump bench --games 4000 --m 64 --n 64 --eps 1e-6
   gpump bench --games 4000 --m 64 --n 64 --eps 1e-6 --device cuda
   gpump bench --m 20000 --n 20000 --precision f32 --threads 2
   gpump bench --device cuda --m 32768 --n 32768 --precision f32`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Destination: &o.device, Value: "cpu", Usage: deviceFlagUsage},
			&cli.IntFlag{Name: "m", Destination: &o.m, Value: 12000, Usage: "rows"},
			&cli.IntFlag{Name: "n", Destination: &o.n, Value: 12000, Usage: "columns"},
			&cli.StringFlag{Name: "precision", Destination: &o.precision, Value: "f64", Usage: "storage of A: f64 or f32"},
			&cli.DurationFlag{Name: "min-time", Destination: &o.minTime, Value: 2 * time.Second, Usage: "least time of each measurement"},
			&cli.IntFlag{Name: "threads", Destination: &o.threads, Usage: "CPU worker threads", DefaultText: "all cores"},
			&cli.Uint64Flag{Name: "seed", Destination: &o.seed, Value: 1, Usage: "seed of the matrix"},
			&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print the result as JSON"},
			&cli.IntFlag{Name: "games", Destination: &o.games, Usage: "time a batch of this many m×n games instead (see above)"},
			&cli.Float64Flag{Name: "eps", Destination: &o.eps, Value: 1e-6, Usage: "with --games: the relative gap each game is solved to"},
			&cli.BoolFlag{Name: "lockstep", Destination: &o.lockstep, Usage: "with --games on the CPU: run the batch in lockstep, as on a device"},
		},
		Action: func(c *cli.Context) error {
			o.given = givenFlags(c)
			return benchAction(c, o)
		},
	}
}

// benchOutput is the result of gpump bench.
type benchOutput struct {
	*bench.Result
	Kernels string `json:"kernels"`
	Threads int    `json:"threads"`
	// PeakGBs is the larger of the device's figure (FigureGBs, from
	// PeakSource) and the operator's own rate (see bench.Peak), so that
	// OperatorPeak never exceeds 1; OperatorFigure is the operator's rate
	// as a share of the figure itself, which can.
	PeakGBs        float64 `json:"peak_gb_s,omitempty"`
	PeakSource     string  `json:"peak_source,omitempty"`
	OperatorPeak   float64 `json:"operator_share_of_peak,omitempty"`
	FigureGBs      float64 `json:"figure_gb_s,omitempty"`
	OperatorFigure float64 `json:"operator_share_of_figure,omitempty"`
}

func benchAction(c *cli.Context, o *benchOptions) error {
	if c.NArg() > 0 {
		return fmt.Errorf("bench takes no arguments, got %q", c.Args().First())
	}
	m, n := o.m, o.n
	if m <= 0 || n <= 0 {
		return fmt.Errorf("--m and --n must be positive, got %d and %d", m, n)
	}
	dt, err := parsePrecision(o.precision, false)
	if err != nil {
		return err
	}
	if o.threads < 0 {
		return fmt.Errorf("--threads must be at least 0 (0: all cores), got %d", o.threads)
	}
	if o.minTime <= 0 {
		return fmt.Errorf("--min-time must be positive, got %v", o.minTime)
	}
	if o.given["games"] {
		return benchGames(c, o, m, n, dt)
	}
	if err := memlimit.Check(m, n, int(dt.Size())); err != nil {
		return err
	}
	b, closeB, err := openDevice(o.device, threadsOr(o.threads))
	if err != nil {
		return err
	}
	defer closeB()
	res, err := bench.Run(c.Context, b, &bench.Options{M: m, N: n, Dtype: dt, MinTime: o.minTime, Seed: o.seed})
	if err != nil {
		return err
	}
	out := benchOutput{Result: res, Kernels: kernelsOf(b), Threads: threadsOr(o.threads)}
	if peak, ok := peakers[b.Name()]; ok {
		bw, src, err := peak(c.Context, o, b, res.BytesPerOperator)
		if err != nil {
			return err
		}
		if bw > 0 {
			out.FigureGBs, out.PeakSource = bw/1e9, src
			out.OperatorFigure = res.OperatorGBs / out.FigureGBs
			out.PeakGBs, out.OperatorPeak = bench.Peak(out.FigureGBs, res.OperatorGBs)
		}
	}
	if o.json {
		return writeJSON(c.App.Writer, &out)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "device %s (%s), %d threads, %d x %d %s, %.2f GB\n", res.Backend, out.Kernels, out.Threads, m, n, res.Dtype, float64(res.BytesPerOperator)/1e9)
	fmt.Fprintf(w, "operator evaluation  %9.3f ms  %7.2f GB/s of A\n", res.OperatorSeconds*1e3, res.OperatorGBs)
	fmt.Fprintf(w, "mirror-prox iteration %8.3f ms  %7.2f GB/s of A\n", res.IterationSeconds*1e3, res.IterationGBs)
	switch {
	case out.PeakGBs == 0:
	case out.OperatorFigure > 1:
		fmt.Fprintf(w, "peak %.2f GB/s, the operator itself: faster than %s (%.2f GB/s, measured at another moment)\n", out.PeakGBs, out.PeakSource, out.FigureGBs)
	default:
		fmt.Fprintf(w, "peak %.2f GB/s (%s): the operator reaches %.1f%%\n", out.PeakGBs, out.PeakSource, 100*out.OperatorPeak)
	}
	return nil
}

// benchGamesOutput is the result of gpump bench --games.
type benchGamesOutput struct {
	Games         int     `json:"games"`
	M             int     `json:"m"`
	N             int     `json:"n"`
	Precision     string  `json:"precision"`
	Eps           float64 `json:"target_relative_gap"`
	Workers       int     `json:"workers"`
	Seconds       float64 `json:"seconds"`
	GamesPerSec   float64 `json:"games_per_second"`
	Converged     int     `json:"converged"`
	WorstRelGap   float64 `json:"worst_relative_gap"`
	MeanPasses    float64 `json:"mean_matrix_passes"`
	PassGFLOPs    float64 `json:"pass_gflop_s"`
	SubgameSolves int     `json:"subgame_solves"`
	// SubgameSeconds is the time of the exact subgame solves, summed over
	// the games (core-seconds), and MaxIterations the most iterations a
	// game took: a lockstep batch would run that many.
	SubgameSeconds float64 `json:"subgame_seconds"`
	MaxIterations  int     `json:"max_iterations"`
	// Device and Mode ("workers", "lockstep") say how the batch ran; in
	// lockstep, BatchedCalls counts the batched operations (BatchedPasses
	// the passes over the matrices among them) over Rounds rounds,
	// BackendSeconds the time spent in them and HostSeconds the rest: the
	// games' own code (GameCoreSeconds, core time, spread over the cores)
	// and the serial dispatch around the calls (DispatchSeconds).
	Device          string  `json:"device"`
	Mode            string  `json:"mode"`
	BatchedCalls    int     `json:"batched_calls,omitempty"`
	BatchedPasses   int     `json:"batched_passes,omitempty"`
	BackendSeconds  float64 `json:"backend_seconds,omitempty"`
	HostSeconds     float64 `json:"host_seconds,omitempty"`
	Rounds          int     `json:"rounds,omitempty"`
	GameCoreSeconds float64 `json:"game_core_seconds,omitempty"`
	DispatchSeconds float64 `json:"dispatch_seconds,omitempty"`
}

// benchGames times SolveBatch on seeded uniform games.
func benchGames(c *cli.Context, o *benchOptions, m, n int, dt tensor.Dtype) error {
	count, eps := o.games, o.eps
	switch {
	case count < 1:
		return fmt.Errorf("--games must be at least 1, got %d", count)
	case !(eps > 0 && eps < 1):
		return fmt.Errorf("--eps must be in (0, 1), got %v", eps)
	case o.lockstep && o.device != "cpu":
		return fmt.Errorf("--lockstep is for the CPU: a batch on --device %s always runs in lockstep", o.device)
	}
	if float64(m)*float64(n)*float64(count) > maxStackEntries {
		return fmt.Errorf("--games %d of %d×%d is more than 2⁵⁰ entries", count, m, n)
	}
	if err := memlimit.Check(m*count, n, int(dt.Size())); err != nil {
		return err
	}
	a := tensor.New(tensor.Of(dt), tensor.WithShape(count, m, n))
	for k := range count {
		g, err := datasets.Uniform(dt, m, n, -1, 1, o.seed+uint64(k))
		if err != nil {
			return err
		}
		games.CopyGame(a, k, g, 0)
	}
	batch, err := solver.NewBatch(a)
	if err != nil {
		return err
	}
	workers := threadsOr(o.threads)
	var timed *timedBatched
	if o.lockstep || o.device != "cpu" {
		be, closeBe, err := openDevice(o.device, workers)
		if err != nil {
			return err
		}
		defer closeBe()
		bb, ok := be.(tensorops.Batched)
		if !ok {
			return fmt.Errorf("--device %s runs no batched operations", o.device)
		}
		timed = &timedBatched{Batched: bb}
	}
	settings := &solver.BatchSettings{Settings: solver.Settings{RelGap: eps, MaxIterations: 1000000}, Workers: workers, Threads: 1}
	var stats solver.BatchStats
	if timed != nil {
		settings.Backend, settings.Stats = timed, &stats
	}
	t0 := time.Now()
	res, err := solver.SolveBatch(c.Context, batch, settings, nil)
	if err != nil {
		return err
	}
	el := time.Since(t0).Seconds()
	out := benchGamesOutput{Games: count, M: m, N: n, Precision: precisionName(dt), Eps: eps, Workers: workers, Seconds: el, GamesPerSec: float64(count) / el,
		Device: o.device, Mode: "workers"}
	if timed != nil {
		out.Mode, out.Workers = "lockstep", 0
		out.BatchedCalls, out.BatchedPasses = timed.calls, timed.passes
		out.BackendSeconds = timed.spent.Seconds()
		out.HostSeconds = el - out.BackendSeconds
		out.Rounds = stats.Rounds
		out.GameCoreSeconds = stats.GameTime.Seconds()
		out.DispatchSeconds = stats.DispatchTime.Seconds() - out.BackendSeconds
	}
	passes := 0
	for _, r := range res {
		if r.Err != nil {
			return r.Err
		}
		if r.Status == solver.Converged {
			out.Converged++
		}
		out.WorstRelGap = max(out.WorstRelGap, r.RelGap)
		passes += r.MatrixPasses
		out.SubgameSolves += r.SubgameSolves
		out.SubgameSeconds += r.SubgameTime.Seconds()
		out.MaxIterations = max(out.MaxIterations, r.Iterations)
	}
	out.MeanPasses = float64(passes) / float64(count)
	out.PassGFLOPs = float64(passes) * 2 * float64(m) * float64(n) / el / 1e9
	if o.json {
		return writeJSON(c.App.Writer, &out)
	}
	how := fmt.Sprintf("%d workers", workers)
	if timed != nil {
		how = "lockstep on " + out.Device
	}
	fmt.Fprintf(c.App.Writer, "%d games of %d x %d %s to relative gap %g, %s: %.3f s, %.0f games/s\n", count, m, n, out.Precision, eps, how, el, out.GamesPerSec)
	fmt.Fprintf(c.App.Writer, "converged %d, worst relative gap %.2g, %.0f passes a game, %.2f GFLOP/s in passes, %d subgame solves\n", out.Converged, out.WorstRelGap, out.MeanPasses, out.PassGFLOPs, out.SubgameSolves)
	if timed != nil {
		fmt.Fprintf(c.App.Writer, "%d batched calls (%d passes) in %d rounds, %.3f s in them, %.3f s on the host: the games' code %.3f core-s (parallel), the dispatch %.3f s (serial)\n",
			out.BatchedCalls, out.BatchedPasses, out.Rounds, out.BackendSeconds, out.HostSeconds, out.GameCoreSeconds, out.DispatchSeconds)
	}
	return nil
}
