package main

import (
	"fmt"
	"runtime"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/tensorops"
	"github.com/gpump/gpump/tensorops/backendtest"
)

// selftestOptions are gpump selftest's flags.
type selftestOptions struct {
	device  string
	seed    uint64
	threads int
	all     bool
}

func selftestCommand() *cli.Command {
	o := &selftestOptions{}
	return &cli.Command{
		Name:  "selftest",
		Usage: "check every backend operation against a plain float64 reference",
		Description: `Runs every operation of the backend contract (the fused operator, A q, A'p,
the proxes, the per-iteration reductions, the averages, regret matching) on
fresh seeded random inputs of several shapes, odd sizes and 1 x n included,
for float64 and float32 storage, on the device and in plain Go, and prints
the largest relative error of each. The exit status is 1 if any exceeds its
tolerance (see package tensorops/backendtest for the tolerances).

Examples:
   gpump selftest
   gpump selftest --device cuda --seed 7`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Destination: &o.device, Value: "cpu", Usage: deviceFlagUsage},
			&cli.Uint64Flag{Name: "seed", Destination: &o.seed, Value: 1, Usage: "seed of the random inputs"},
			&cli.IntFlag{Name: "threads", Destination: &o.threads, Usage: "CPU worker threads", DefaultText: "all cores"},
			&cli.BoolFlag{Name: "all", Destination: &o.all, Usage: "print every check, not only the worst per operation"},
		},
		Action: func(c *cli.Context) error { return selftestAction(c, o) },
	}
}

func selftestAction(c *cli.Context, o *selftestOptions) error {
	if c.NArg() > 0 {
		return fmt.Errorf("selftest takes no arguments, got %q", c.Args().First())
	}
	b, closeB, err := openDevice(o.device, threadsOr(o.threads))
	if err != nil {
		return err
	}
	defer closeB()
	res, err := backendtest.Run(c.Context, b, &backendtest.Options{Seed: o.seed})
	if err != nil {
		return err
	}
	lres, err := layerChecks(b, o.seed)
	if err != nil {
		return err
	}
	res = append(res, lres...)
	shown := res
	if !o.all {
		shown = backendtest.Worst(res)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "OPERATION\tSHAPE\tSTORAGE\tMAX REL ERROR\tTOLERANCE\t\n")
	failed := 0
	for _, r := range res {
		if !r.Pass {
			failed++
		}
	}
	for _, r := range shown {
		mark := "ok"
		if !r.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2e\t%.0e\t%s\n", r.Op, r.Shape, r.Dtype, r.MaxRelErr, r.Tol, mark)
	}
	tw.Flush()
	fmt.Fprintf(c.App.Writer, "%s (%s): %d checks, %d failed\n", b.Name(), kernelsOf(b), len(res), failed)
	if failed > 0 {
		return fmt.Errorf("selftest: %d of %d checks exceed their tolerance", failed, len(res))
	}
	return nil
}

// threadsOr is t threads (--threads), or every core for 0.
func threadsOr(t int) int {
	if t > 0 {
		return min(t, maxThreads)
	}
	return runtime.GOMAXPROCS(0)
}

// layerChecks checks the batched layers gpump gan runs on b (the device's
// on a CUDA backend, the CPU's otherwise) as gan.CheckLayers does, one
// result per operation and shape, "gan/" before the operation's name,
// storage f32.
func layerChecks(b tensorops.Backend, seed uint64) ([]backendtest.Result, error) {
	l, free := ganLayers(b)
	if l == nil {
		l = gan.NewCPULayers()
	} else {
		defer free()
	}
	var res []backendtest.Result
	for _, c := range gan.CheckLayers(l, seed) {
		res = append(res, backendtest.Result{Op: "gan/" + c.Op, Shape: c.Shape, Dtype: "f32", MaxRelErr: c.MaxErr, Tol: gan.LayerTolerance, Pass: c.MaxErr <= gan.LayerTolerance})
	}
	if e, ok := l.(interface{ Err() error }); ok {
		if err := e.Err(); err != nil {
			return nil, fmt.Errorf("selftest: the batched layers of gpump gan: %w", err)
		}
	}
	return res, nil
}
