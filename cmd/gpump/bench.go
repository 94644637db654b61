package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/internal/bench"
	"github.com/gpump/gpump/tensorops"
)

// peakers give a device's peak memory bandwidth in bytes per second, with
// where the figure comes from; files behind build tags add theirs.
var peakers = map[string]func(c *cli.Context, b tensorops.Backend, bytes int64) (float64, string, error){
	"cpu": func(c *cli.Context, _ tensorops.Backend, bytes int64) (float64, string, error) {
		r, err := bench.ReadRate(c.Context, threadsOf(c), bytes, c.Duration("min-time"))
		return r, "a plain read of the same bytes by the same threads", err
	},
}

func benchCommand() *cli.Command {
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

Examples:
   gpump bench
   gpump bench --m 20000 --n 20000 --precision f32 --threads 2
   gpump bench --device cuda --m 32768 --n 32768 --precision f32`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Value: "cpu", Usage: deviceFlagUsage},
			&cli.IntFlag{Name: "m", Value: 12000, Usage: "rows"},
			&cli.IntFlag{Name: "n", Value: 12000, Usage: "columns"},
			&cli.StringFlag{Name: "precision", Value: "f64", Usage: "storage of A: f64 or f32"},
			&cli.DurationFlag{Name: "min-time", Value: 2 * time.Second, Usage: "least time of each measurement"},
			&cli.IntFlag{Name: "threads", Usage: "CPU worker threads", DefaultText: "all cores"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the matrix"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: benchAction,
	}
}

// benchOutput is the result of gpump bench.
type benchOutput struct {
	*bench.Result
	Kernels      string  `json:"kernels"`
	Threads      int     `json:"threads"`
	PeakGBs      float64 `json:"peak_gb_s,omitempty"`
	PeakSource   string  `json:"peak_source,omitempty"`
	OperatorPeak float64 `json:"operator_share_of_peak,omitempty"`
}

func benchAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("bench takes no arguments, got %q", c.Args().First())
	}
	m, n := c.Int("m"), c.Int("n")
	if m <= 0 || n <= 0 {
		return fmt.Errorf("--m and --n must be positive, got %d and %d", m, n)
	}
	dt, err := parsePrecision(c.String("precision"), false)
	if err != nil {
		return err
	}
	if c.Duration("min-time") <= 0 {
		return fmt.Errorf("--min-time must be positive, got %v", c.Duration("min-time"))
	}
	if err := checkMemory(m, n, int(dt.Size())); err != nil {
		return err
	}
	b, closeB, err := openDevice(c.String("device"), threadsOf(c))
	if err != nil {
		return err
	}
	defer closeB()
	res, err := bench.Run(c.Context, b, &bench.Options{M: m, N: n, Dtype: dt, MinTime: c.Duration("min-time"), Seed: c.Uint64("seed")})
	if err != nil {
		return err
	}
	out := benchOutput{Result: res, Kernels: kernelsOf(b), Threads: threadsOf(c)}
	if peak, ok := peakers[b.Name()]; ok {
		bw, src, err := peak(c, b, res.BytesPerOperator)
		if err != nil {
			return err
		}
		if bw > 0 {
			out.PeakGBs, out.PeakSource = bw/1e9, src
			out.OperatorPeak = res.OperatorGBs / out.PeakGBs
		}
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, &out)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "device %s (%s), %d threads, %d x %d %s, %.2f GB\n", res.Backend, out.Kernels, out.Threads, m, n, res.Dtype, float64(res.BytesPerOperator)/1e9)
	fmt.Fprintf(w, "operator evaluation  %9.3f ms  %7.2f GB/s of A\n", res.OperatorSeconds*1e3, res.OperatorGBs)
	fmt.Fprintf(w, "mirror-prox iteration %8.3f ms  %7.2f GB/s of A\n", res.IterationSeconds*1e3, res.IterationGBs)
	if out.PeakGBs > 0 {
		fmt.Fprintf(w, "peak %.2f GB/s (%s): the operator reaches %.1f%%\n", out.PeakGBs, out.PeakSource, 100*out.OperatorPeak)
	}
	return nil
}
