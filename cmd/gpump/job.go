package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// inputFlags choose and read the payoff matrix; solve and batch share them.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Usage: "format of the payoff file: npy, npz, csv or mtx", DefaultText: "from the extension"},
		&cli.StringFlag{Name: "key", Usage: "member of an .npz archive to read", DefaultText: "its only member"},
		&cli.BoolFlag{Name: "mmap", Usage: "memory-map a little-endian C-order float64/float32 .npy file read-only instead of reading it (for matrices near the size of RAM)"},
		&cli.StringFlag{Name: "precision", Value: "auto", Usage: "storage of A: f64, f32, or auto (the file's type; f64 for generators, integer and text files)"},
	}
}

// genFlags are the generator's parameters; their defaults are the
// generator's (datasets.DefaultGenSpec).
func genFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "gen", Usage: "generate the matrix: NAME or NAME:key=value,... with NAME one of " + strings.Join(datasets.GeneratorNames, ", ") + " (see gpump gen --help)"},
		&cli.IntFlag{Name: "m", Usage: "rows of a generated matrix", DefaultText: "1000"},
		&cli.IntFlag{Name: "n", Usage: "columns of a generated matrix (the size of a square one)", DefaultText: "1000"},
		&cli.Uint64Flag{Name: "seed", Usage: "seed of a random generator", DefaultText: "1"},
		&cli.Float64Flag{Name: "lo", Usage: "uniform: lower end of the range", DefaultText: "-1"},
		&cli.Float64Flag{Name: "hi", Usage: "uniform: upper end of the range", DefaultText: "1"},
		&cli.Float64Flag{Name: "sigma", Usage: "rankone: standard deviation of the noise", DefaultText: "the generator's"},
		&cli.Float64Flag{Name: "theta", Usage: "police: decay of the catch probability with distance", DefaultText: "the generator's"},
		&cli.StringFlag{Name: "layout", Usage: "police: houses on a line or a grid (n a perfect square)", DefaultText: "line"},
		&cli.Float64Flag{Name: "alpha", Usage: "nemirovski: exponent", DefaultText: "the generator's"},
		&cli.IntFlag{Name: "family", Usage: "nemirovski: family 1 or 2", DefaultText: "the generator's"},
	}
}

// genKeys maps generator flags to datasets.ParseGenSpec keys.
var genKeys = []string{"m", "n", "seed", "lo", "hi", "sigma", "theta", "layout", "alpha", "family"}

// solverFlags configure the method and its stopping; solve and batch share
// them.
func solverFlags() []cli.Flag {
	return []cli.Flag{
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
		&cli.IntFlag{Name: "threads", Usage: "CPU worker threads", DefaultText: "all cores"},
		&cli.StringFlag{Name: "device", Value: "cpu", Usage: deviceFlagUsage},
		&cli.StringFlag{Name: "oracle", Value: "exact", Usage: "operator of a game: exact (a pass over A) or sampled (b columns j ~ q and b rows i ~ p per evaluation, SPEC section 4)"},
		&cli.IntFlag{Name: "batch", Usage: "sampled oracle: b, the rows and columns drawn per evaluation", DefaultText: "solver.DefaultBatch"},
		&cli.IntFlag{Name: "gap-every", Usage: "sampled oracle: certify the average with a full pass every K iterations", DefaultText: "the smallest K with K·b·(m+n) >= 2·m·n"},
		&cli.Uint64Flag{Name: "oracle-seed", Value: 1, Usage: "sampled oracle: seed of the draws"},
		&cli.BoolFlag{Name: "sample-transposed", Usage: "sampled oracle: keep a transposed copy of A (as much memory again) so sampled columns are contiguous"},
	}
}

// flagGetter is what a job needs from parsed flags: *cli.Context.
type flagGetter interface {
	String(name string) string
	Int(name string) int
	Uint64(name string) uint64
	Float64(name string) float64
	Bool(name string) bool
	Duration(name string) time.Duration
	IsSet(name string) bool
}

var _ flagGetter = (*cli.Context)(nil)

// explicit reports whether a flag was given for this solve itself: a
// batch's own flags are defaults for its instances, applied only where
// they fit (its --eta to the lines that run omwu, its --mmap to the .npy
// files), while a flag given for one instance must fit it.
func explicit(c flagGetter, name string) bool {
	if o, ok := c.(interface{ ownSet(string) bool }); ok {
		return o.ownSet(name)
	}
	return c.IsSet(name)
}

// lenient checks a batch's flags before its instances are known: no flag
// is explicit for an instance yet.
type lenient struct{ flagGetter }

func (lenient) ownSet(string) bool { return false }

// methodFlags lists, for the flags that only some methods use, the methods
// that use them; giving one to another method is an error rather than
// silently doing nothing.
var methodFlags = map[string][]string{
	"c":         {"ga-bounded", "ga-stochastic"},
	"eta":       {"constant", "omwu", "adaprox"},
	"g0":        {"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy", "amp", "adaprox", "backtracking"},
	"diameter":  {"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy", "amp", "adaprox", "backtracking"},
	"averaging": {"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy", "constant", "amp", "adaprox", "backtracking"},
	"setup":     {"ga-smooth", "ga-bounded", "ga-stochastic", "bach-levy", "constant", "amp", "adaprox", "backtracking"},
}

// job is one solve: its input and every setting, checked.
type job struct {
	path    string            // payoff file, or "" for a generator
	gen     *datasets.GenSpec // generator, or nil for a file
	read    datasets.ReadOptions
	mmap    bool
	method  solver.Method
	setup   tensorops.Setup
	s       solver.Settings // without Backend and Recorder
	threads int
	device  string
}

// newJob checks the flags and the positional arguments of a solve.
func newJob(c flagGetter, args []string) (*job, error) {
	j := &job{}
	if err := j.configure(c); err != nil {
		return nil, err
	}
	if err := j.input(c, args); err != nil {
		return nil, err
	}
	return j, nil
}

// configure checks and sets the method, the solver settings, the threads
// and the precision.
func (j *job) configure(c flagGetter) error {
	var err error
	j.method, err = solver.NewMethod(c.String("algo"), solver.Params{C: c.Float64("c"), Eta: c.Float64("eta")})
	if err != nil {
		return err
	}
	for _, name := range []string{"c", "eta", "g0", "diameter", "averaging", "setup"} {
		if explicit(c, name) && !slices.Contains(methodFlags[name], j.method.Name()) {
			return fmt.Errorf("--%s applies to %s, not %s", name, strings.Join(methodFlags[name], ", "), j.method.Name())
		}
	}
	avg, err := solver.ParseAveraging(c.String("averaging"))
	if err != nil {
		return err
	}
	switch c.String("setup") {
	case "entropic":
		j.setup = tensorops.Entropic
	case "euclidean":
		j.setup = tensorops.Euclidean
	default:
		return fmt.Errorf("unknown setup %q (want entropic or euclidean)", c.String("setup"))
	}
	for _, name := range []string{"c", "eta", "g0", "diameter", "eps", "abs-eps"} {
		if v := c.Float64(name); !(v >= 0) || v > 1e300 {
			return fmt.Errorf("--%s must be a finite number >= 0, got %v", name, v)
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
	j.device = c.String("device")
	if _, ok := openers[j.device]; !ok {
		if _, _, err := openDevice(j.device, 1); err != nil {
			return err
		}
	}
	j.threads = c.Int("threads")
	if j.threads == 0 {
		j.threads = runtime.GOMAXPROCS(0)
	}
	// An absolute target alone replaces the default relative one: both
	// would stop at whichever is met first.
	rel := c.Float64("eps")
	if c.IsSet("abs-eps") && !c.IsSet("eps") {
		rel = 0
	}
	oracle, err := solver.ParseOracle(c.String("oracle"))
	if err != nil {
		return err
	}
	if oracle != solver.Sampled {
		for _, name := range []string{"batch", "gap-every", "oracle-seed", "sample-transposed"} {
			if explicit(c, name) {
				return fmt.Errorf("--%s applies to --oracle sampled", name)
			}
		}
	} else if !slices.Contains(methodFlags["setup"], j.method.Name()) {
		return fmt.Errorf("--oracle sampled needs a mirror-prox rule (%s), not %s", strings.Join(methodFlags["setup"], ", "), j.method.Name())
	}
	for _, name := range []string{"batch", "gap-every"} {
		if c.Int(name) < 0 {
			return fmt.Errorf("--%s must be >= 0, got %d", name, c.Int(name))
		}
	}
	j.s = solver.Settings{
		Oracle:           oracle,
		Batch:            c.Int("batch"),
		GapEvery:         c.Int("gap-every"),
		Seed:             c.Uint64("oracle-seed"),
		SampleTransposed: c.Bool("sample-transposed"),
		RelGap:           rel,
		AbsGap:           c.Float64("abs-eps"),
		MaxIterations:    c.Int("max-iter"),
		MaxEvaluations:   c.Int("max-evals"),
		TimeLimit:        c.Duration("time-limit"),
		G0:               c.Float64("g0"),
		Diameter:         c.Float64("diameter"),
		Averaging:        avg,
	}

	j.read.DType, err = parsePrecision(c.String("precision"), true)
	return err
}

// input checks and sets the payoff matrix's source: a file or --gen.
func (j *job) input(c flagGetter, args []string) error {
	gen := c.String("gen")
	switch {
	case gen != "" && len(args) > 0:
		return errors.New("give a payoff file or --gen, not both")
	case gen == "" && len(args) == 0:
		return errors.New("no payoff matrix: give a file (.npy, .npz, .csv, .mtx) or --gen NAME (see gpump solve --help)")
	case len(args) > 1:
		return fmt.Errorf("one payoff file expected, got %d arguments", len(args))
	}
	if gen == "" {
		for _, k := range genKeys {
			if c.IsSet(k) {
				return fmt.Errorf("--%s applies to a generated matrix (--gen), not to a file", k)
			}
		}
		j.path = args[0]
		fi, statErr := os.Stat(j.path)
		if statErr == nil && fi.IsDir() {
			return fmt.Errorf("%s is a directory, not a payoff file", j.path)
		}
		j.read.Format = c.String("format")
		j.read.Key = c.String("key")
		j.mmap = c.Bool("mmap")
		format, err := inputFormat(j.path, j.read.Format)
		if err != nil {
			return err
		}
		if j.read.Key != "" && format != "npz" {
			return fmt.Errorf("--key applies to .npz archives, not to %s files", format)
		}
		if j.mmap && format != "npy" {
			if explicit(c, "mmap") {
				return fmt.Errorf("--mmap applies to .npy files, not to %s files", format)
			}
			j.mmap = false
		}
		var pe *fs.PathError
		if errors.As(statErr, &pe) {
			return fmt.Errorf("%s: %w", j.path, pe.Err)
		}
		return statErr
	}
	for _, name := range []string{"format", "key", "mmap"} {
		if explicit(c, name) {
			return fmt.Errorf("--%s applies to a payoff file, not to --gen", name)
		}
	}
	spec, err := genSpec(c, gen)
	if err != nil {
		return err
	}
	j.gen = &spec
	return nil
}

// genSpec returns the generator spec of --gen NAME[:params] with the
// generator flags that are set applied over it.
func genSpec(c flagGetter, gen string) (datasets.GenSpec, error) {
	var kv []string
	for _, k := range genKeys {
		if !c.IsSet(k) {
			continue
		}
		var v string
		switch k {
		case "m", "n", "family":
			v = strconv.Itoa(c.Int(k))
		case "seed":
			v = strconv.FormatUint(c.Uint64(k), 10)
		case "layout":
			v = c.String(k)
		default:
			v = strconv.FormatFloat(c.Float64(k), 'g', -1, 64)
		}
		kv = append(kv, k+"="+v)
	}
	spec := gen
	if len(kv) > 0 {
		sep := ":"
		if strings.Contains(gen, ":") {
			sep = ","
		}
		spec += sep + strings.Join(kv, ",")
	}
	s, err := datasets.ParseGenSpec(spec)
	if err != nil {
		return datasets.GenSpec{}, err
	}
	return s, nil
}

// inputFormat is the format of a payoff file: --format, or its extension.
func inputFormat(path, format string) (string, error) {
	if format == "" {
		return datasets.FormatOf(path)
	}
	format = strings.ToLower(format)
	for _, f := range datasets.Formats {
		if f == format {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown --format %q (want %s)", format, strings.Join(datasets.Formats, ", "))
}
