package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

func solveCommand() *cli.Command {
	return &cli.Command{
		Name:      "solve",
		Usage:     "approximate an equilibrium of the game with a payoff matrix",
		ArgsUsage: "[PAYOFF.npy]",
		Description: `The row player maximizes p'Aq, the column player minimizes it. The result
is a JSON object with the strategies, the certified duality gap and the value
bracket value_lower <= v* <= value_upper.

Exit status: 0 when the gap target was reached, 1 on an error, 2 when a limit
stopped the solve first, 3 when interrupted (the result is still written).

Examples:
   gpump solve --gen uniform --m 2000 --n 2000 --seed 1
   gpump solve payoff.npy --algo ga-bounded --eps 1e-4 --output result.json
   gpump solve payoff.npy --algo rm+ --precision f32 --threads 2`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "gen", Usage: "generate the matrix instead of reading it: uniform (entries in [-1, 1]) or gaussian"},
			&cli.IntFlag{Name: "m", Value: 1000, Usage: "rows of a generated matrix"},
			&cli.IntFlag{Name: "n", Value: 1000, Usage: "columns of a generated matrix"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of a generated matrix"},
			&cli.StringFlag{Name: "algo", Value: solver.DefaultMethodName, Usage: "method: " + strings.Join(solver.MethodNames, ", ")},
			&cli.Float64Flag{Name: "c", Usage: "constant c of the ga-bounded and ga-stochastic rules", DefaultText: "1 for ga-bounded, 5 for ga-stochastic"},
			&cli.Float64Flag{Name: "eta", Usage: "step of the constant rule and of omwu, gamma0 of adaprox", DefaultText: "1/max|A_ij|; D/G0 for adaprox"},
			&cli.Float64Flag{Name: "g0", Usage: "G0 of the universal rules: the first step is D/G0", DefaultText: "max|A_ij|"},
			&cli.Float64Flag{Name: "diameter", Usage: "D of the step rules, with D^2 = sup R - inf R", DefaultText: "sqrt(log m + log n) in the entropic setup"},
			&cli.StringFlag{Name: "averaging", Value: "auto", Usage: "mirror-prox averaging: auto (the rule's choice), uniform or step"},
			&cli.StringFlag{Name: "setup", Value: "entropic", Usage: "geometry of both players: entropic or euclidean"},
			&cli.Float64Flag{Name: "eps", Value: 1e-4, Usage: "target relative gap, gap / max|A_ij| (0: none)"},
			&cli.Float64Flag{Name: "abs-eps", Usage: "target absolute gap", DefaultText: "none"},
			&cli.IntFlag{Name: "max-iter", Value: 100000, Usage: "iteration limit (0: none)"},
			&cli.IntFlag{Name: "max-evals", Usage: "operator evaluation limit", DefaultText: "none"},
			&cli.DurationFlag{Name: "time-limit", Usage: "wall-time limit of the iterations, e.g. 30s", DefaultText: "none"},
			&cli.StringFlag{Name: "precision", Value: "auto", Usage: "storage of A: f64, f32, or auto (the file's type; f64 for generators and integer files)"},
			&cli.IntFlag{Name: "threads", Usage: "CPU worker threads", DefaultText: "all cores"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the JSON result to this file, atomically", DefaultText: "stdout"},
		},
		Action: solveAction,
	}
}

// solveOutput is the JSON result of gpump solve.
type solveOutput struct {
	Status              string    `json:"status"`
	Gap                 float64   `json:"gap"`
	RelativeGap         float64   `json:"relative_gap"`
	ValueLower          float64   `json:"value_lower"`
	ValueUpper          float64   `json:"value_upper"`
	Point               string    `json:"point"`
	ColumnPoint         string    `json:"column_point"`
	Iterations          int       `json:"iterations"`
	OperatorEvaluations int       `json:"operator_evaluations"`
	MatrixPasses        int       `json:"matrix_passes"`
	Rejections          int       `json:"rejections,omitempty"`
	Step                float64   `json:"step,omitempty"`
	Seconds             float64   `json:"seconds"`
	LoadSeconds         float64   `json:"load_seconds"`
	Algorithm           string    `json:"algorithm"`
	Source              string    `json:"source"`
	M                   int       `json:"m"`
	N                   int       `json:"n"`
	Precision           string    `json:"precision"`
	MaxAbsEntry         float64   `json:"max_abs_entry"`
	RoundingBound       float64   `json:"rounding_bound,omitempty"`
	TargetRelativeGap   float64   `json:"target_relative_gap"`
	Threads             int       `json:"threads"`
	Kernels             string    `json:"kernels"`
	RowStrategy         []float64 `json:"row_strategy"`
	ColumnStrategy      []float64 `json:"column_strategy"`
}

func solveAction(c *cli.Context) error {
	method, err := solver.NewMethod(c.String("algo"), solver.Params{C: c.Float64("c"), Eta: c.Float64("eta")})
	if err != nil {
		return err
	}
	if algo := method.Name(); c.IsSet("c") && algo != "ga-bounded" && algo != "ga-stochastic" {
		return fmt.Errorf("--c applies to ga-bounded and ga-stochastic, not %s", algo)
	}
	if algo := method.Name(); c.IsSet("eta") && algo != "constant" && algo != "omwu" && algo != "adaprox" {
		return fmt.Errorf("--eta applies to constant, omwu and adaprox, not %s", algo)
	}
	avg, err := solver.ParseAveraging(c.String("averaging"))
	if err != nil {
		return err
	}
	var setup tensorops.Setup
	switch c.String("setup") {
	case "entropic":
		setup = tensorops.Entropic
	case "euclidean":
		setup = tensorops.Euclidean
	default:
		return fmt.Errorf("unknown setup %q (want entropic or euclidean)", c.String("setup"))
	}
	for _, name := range []string{"c", "eta", "g0", "diameter", "eps", "abs-eps"} {
		if v := c.Float64(name); !(v >= 0) {
			return fmt.Errorf("--%s must be >= 0, got %v", name, v)
		}
	}
	for _, name := range []string{"max-iter", "max-evals", "threads"} {
		if c.Int(name) < 0 {
			return fmt.Errorf("--%s must be >= 0, got %d", name, c.Int(name))
		}
	}
	if c.Int("threads") > maxThreads {
		return fmt.Errorf("--threads must be at most %d, got %d", maxThreads, c.Int("threads"))
	}
	if c.Duration("time-limit") < 0 {
		return fmt.Errorf("--time-limit must be >= 0, got %v", c.Duration("time-limit"))
	}

	t0 := time.Now()
	a, source, rounding, err := loadMatrix(c)
	if err != nil {
		return err
	}
	load := time.Since(t0)
	game, err := solver.NewMatrixGame(a)
	if err != nil {
		return err
	}
	if err := game.SetSetups(setup, setup); err != nil {
		return err
	}

	threads := c.Int("threads")
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	cpu := tensorops.NewCPU(threads)
	defer cpu.Close()
	s := &solver.Settings{
		RelGap:         c.Float64("eps"),
		AbsGap:         c.Float64("abs-eps"),
		MaxIterations:  c.Int("max-iter"),
		MaxEvaluations: c.Int("max-evals"),
		TimeLimit:      c.Duration("time-limit"),
		G0:             c.Float64("g0"),
		Diameter:       c.Float64("diameter"),
		Averaging:      avg,
		Backend:        cpu,
	}
	res, err := solver.Solve(c.Context, game, s, method)
	if err != nil {
		return err
	}
	m, n := game.Dims()
	out := solveOutput{
		Status: res.Status.String(), Gap: res.Gap, RelativeGap: res.RelGap,
		ValueLower: res.ValueLower, ValueUpper: res.ValueUpper, Point: res.Point.String(),
		ColumnPoint: res.ColumnPoint.String(),
		Iterations:  res.Iterations, OperatorEvaluations: res.Evaluations, MatrixPasses: res.MatrixPasses,
		Rejections: res.Rejections, Step: res.Step,
		Seconds: res.Runtime.Seconds(), LoadSeconds: load.Seconds(),
		Algorithm: res.Method, Source: source, M: m, N: n,
		Precision: precisionName(a.Dtype()), MaxAbsEntry: game.MaxAbs(), TargetRelativeGap: s.RelGap,
		Threads: threads, Kernels: cpu.Kernels(),
		RoundingBound: rounding * game.MaxAbs(),
		RowStrategy:   res.Row, ColumnStrategy: res.Column,
	}
	if err := writeJSON(c.String("output"), c.App.Writer, &out); err != nil {
		return err
	}
	switch res.Status {
	case solver.Converged:
		return nil
	case solver.Canceled:
		return exitStatus(exitCanceled)
	default:
		return exitStatus(exitLimit)
	}
}

func precisionName(dt tensor.Dtype) string {
	if dt == tensor.Float32 {
		return "f32"
	}
	return "f64"
}

// maxThreads bounds --threads: more workers than this only add overhead.
const maxThreads = 1024

// f32Rounding bounds |x − fl32(x)| / max |fl32(A)|: 2⁻²⁴ relative rounding,
// with max |A| itself possibly rounded down by that much.
const f32Rounding = 0x1p-24 * (1 + 0x1p-24)

// loadMatrix reads the matrix named by the argument or generates it, in the
// requested precision; source describes where it came from. rounding is
// f32Rounding when float32 storage rounded a matrix defined in float64 (a
// float64 or wide-integer file, or a generator, whose float32 matrix is its
// float64 one rounded), else 0.
func loadMatrix(c *cli.Context) (a *tensor.Dense, source string, rounding float64, err error) {
	var dt tensor.Dtype
	switch p := c.String("precision"); p {
	case "auto":
	case "f64":
		dt = tensor.Float64
	case "f32":
		dt = tensor.Float32
	default:
		return nil, "", 0, fmt.Errorf("unknown precision %q (want auto, f64 or f32)", p)
	}
	gen := c.String("gen")
	switch {
	case gen != "" && c.Args().Present():
		return nil, "", 0, errors.New("give a payoff file or --gen, not both")
	case gen == "" && !c.Args().Present():
		return nil, "", 0, errors.New("no payoff matrix: give a .npy file or --gen uniform|gaussian (see gpump solve --help)")
	case c.NArg() > 1:
		return nil, "", 0, fmt.Errorf("one payoff file expected, got %d arguments", c.NArg())
	}
	if gen == "" {
		path := c.Args().First()
		if ext := strings.ToLower(filepath.Ext(path)); ext != ".npy" {
			return nil, "", 0, fmt.Errorf("%s: unsupported format %q (this version reads .npy)", path, ext)
		}
		info, err := datasets.StatNPY(path)
		if err != nil {
			return nil, "", 0, err
		}
		size := 8
		if dt == tensor.Float32 || (dt == tensor.Dtype{}) && strings.HasSuffix(info.Descr, "f4") {
			size = 4
		}
		if err := checkMemory(info.Rows, info.Cols, size); err != nil {
			return nil, "", 0, fmt.Errorf("%s: %w", path, err)
		}
		if dt == tensor.Float32 && !info.Exact32 {
			rounding = f32Rounding
		}
		a, err := datasets.ReadNPY(path, &datasets.ReadOptions{DType: dt})
		return a, path, rounding, err
	}
	if (dt == tensor.Dtype{}) {
		dt = tensor.Float64
	}
	m, n, seed := c.Int("m"), c.Int("n"), c.Uint64("seed")
	if m <= 0 || n <= 0 {
		return nil, "", 0, fmt.Errorf("--m and --n must be positive, got %d and %d", m, n)
	}
	size := 8
	if dt == tensor.Float32 {
		size, rounding = 4, f32Rounding
	}
	if err := checkMemory(m, n, size); err != nil {
		return nil, "", 0, err
	}
	source = fmt.Sprintf("%s:m=%d,n=%d,seed=%d", gen, m, n, seed)
	switch gen {
	case "uniform":
		a, err = datasets.Uniform(dt, m, n, -1, 1, seed)
	case "gaussian":
		a, err = datasets.Gaussian(dt, m, n, seed)
	default:
		return nil, "", 0, fmt.Errorf("unknown generator %q (want uniform or gaussian)", gen)
	}
	return a, source, rounding, err
}

// checkMemory refuses a matrix larger than the machine's memory: the
// allocation would otherwise end the process with an out-of-memory crash
// instead of an error.
func checkMemory(m, n, size int) error {
	total := totalMemory()
	if total == 0 {
		return nil
	}
	need := float64(m) * float64(n) * float64(size)
	if need > float64(total) {
		return fmt.Errorf("a %d×%d matrix needs %.1f GB, more than the machine's %.1f GB", m, n, need/1e9, float64(total)/1e9)
	}
	return nil
}

// writeJSON writes v as indented JSON to path, atomically (a temporary file
// in the same directory, synced, then renamed), or to w when path is empty.
func writeJSON(path string, w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "" {
		_, err := w.Write(b)
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// CreateTemp makes the file 0600; a result file is an ordinary file.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
