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
	"sync"
	"time"

	"github.com/gpump/gpump/games"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
)

// jobOptions are the flags of one solve: gpump solve's, a batch's (the
// defaults of its instances), or a manifest line's over its batch's. The
// flags write their values here (Destination); bind and lineOptions record
// which were given.
type jobOptions struct {
	format, key, precision string
	mmap                   bool
	gen                    string
	g                      genOptions
	algo                   string
	eps, absEps            float64
	maxIter, maxEvals      int
	timeLimit              time.Duration
	init                   string
	threads                int
	device, oracle         string
	batch, gapEvery        int
	oracleSeed             uint64
	sampleTransposed       bool
	knobs                  []string // each knob flag's value, by methodKnobs index
	knobBools              []bool
	// given holds the names of the flags set; own those set for this
	// solve itself (gpump solve's; a manifest line's, not its batch's): a
	// batch's flags are defaults applied where they fit (its --eta to the
	// lines that run omwu, its --mmap to the .npy files), while a flag
	// given for one instance must fit it.
	given, own map[string]bool
}

// genOptions are the generator's parameters.
type genOptions struct {
	m, n, family, rank                 int
	seed                               uint64
	lo, hi, sigma, theta, alpha, noise float64
	layout                             string
}

// newJobOptions returns options ready for their flags to be bound.
func newJobOptions() *jobOptions {
	k := len(methodKnobs())
	return &jobOptions{knobs: make([]string, k), knobBools: make([]bool, k)}
}

// bind records the flags c's command line gave; c has parsed them into o.
func (o *jobOptions) bind(c *cli.Context) {
	o.given = givenFlags(c)
	o.own = o.given
}

// givenFlags are the flags c's command line gave, by every name (aliases
// too): what an options struct cannot tell from a value equal to the
// default.
func givenFlags(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, name := range c.LocalFlagNames() {
		given[name] = true
	}
	return given
}

// copyFrom sets o to b's values, o's flags still bound to o.
func (o *jobOptions) copyFrom(b *jobOptions) {
	knobs, bools := o.knobs, o.knobBools
	*o = *b
	o.knobs, o.knobBools = knobs, bools
	copy(o.knobs, b.knobs)
	copy(o.knobBools, b.knobBools)
}

// inputFlags choose and read the payoff matrix; solve and batch share them.
func inputFlags(o *jobOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Destination: &o.format, Usage: "format of the payoff file: npy, npz, csv or mtx", DefaultText: "from the extension"},
		&cli.StringFlag{Name: "key", Destination: &o.key, Usage: "member of an .npz archive to read", DefaultText: "its only member"},
		&cli.BoolFlag{Name: "mmap", Destination: &o.mmap, Usage: "memory-map a little-endian C-order float64/float32 .npy file read-only instead of reading it (for matrices near the size of RAM)"},
		&cli.StringFlag{Name: "precision", Destination: &o.precision, Value: "auto", Usage: "storage of A: f64, f32, or auto (the file's type; f64 for generators, integer and text files)"},
	}
}

// genFlags are --gen and the generator's parameters; their defaults are
// the generator's (datasets.DefaultGenSpec).
func genFlags(gen *string, g *genOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "gen", Destination: gen, Usage: "generate the matrix: NAME or NAME:key=value,... with NAME one of " + strings.Join(datasets.GeneratorNames, ", ") + " (see gpump gen --help)"},
		&cli.IntFlag{Name: "m", Destination: &g.m, Usage: "rows of a generated matrix", DefaultText: "1000"},
		&cli.IntFlag{Name: "n", Destination: &g.n, Usage: "columns of a generated matrix (the size of a square one)", DefaultText: "1000"},
		&cli.Uint64Flag{Name: "seed", Destination: &g.seed, Usage: "seed of a random generator", DefaultText: "1"},
		&cli.Float64Flag{Name: "lo", Destination: &g.lo, Usage: "uniform: lower end of the range", DefaultText: "-1"},
		&cli.Float64Flag{Name: "hi", Destination: &g.hi, Usage: "uniform: upper end of the range", DefaultText: "1"},
		&cli.Float64Flag{Name: "sigma", Destination: &g.sigma, Usage: "rankone: standard deviation of the noise", DefaultText: "the generator's"},
		&cli.Float64Flag{Name: "theta", Destination: &g.theta, Usage: "police: decay of the catch probability with distance", DefaultText: "the generator's"},
		&cli.StringFlag{Name: "layout", Destination: &g.layout, Usage: "police: houses on a line or a grid (n a perfect square)", DefaultText: "line"},
		&cli.Float64Flag{Name: "alpha", Destination: &g.alpha, Usage: "nemirovski: exponent", DefaultText: "the generator's"},
		&cli.IntFlag{Name: "family", Destination: &g.family, Usage: "nemirovski: family 1 or 2", DefaultText: "the generator's"},
		&cli.IntFlag{Name: "rank", Destination: &g.rank, Usage: "lowrank: rank of the low-rank part", DefaultText: "the generator's"},
		&cli.Float64Flag{Name: "noise", Destination: &g.noise, Usage: "lowrank: standard deviation of the noise", DefaultText: "the generator's"},
	}
}

// genKeys are the generator flags, which are datasets.ParseGenSpec keys.
var genKeys = []string{"m", "n", "seed", "lo", "hi", "sigma", "theta", "layout", "alpha", "family", "rank", "noise"}

// values returns the generator parameters by their genKeys names, as
// datasets.ParseGenSpec reads them.
func (g *genOptions) values() map[string]string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return map[string]string{
		"m": strconv.Itoa(g.m), "n": strconv.Itoa(g.n), "seed": strconv.FormatUint(g.seed, 10),
		"lo": f(g.lo), "hi": f(g.hi), "sigma": f(g.sigma), "theta": f(g.theta), "layout": g.layout,
		"alpha": f(g.alpha), "family": strconv.Itoa(g.family), "rank": strconv.Itoa(g.rank), "noise": f(g.noise),
	}
}

// solverFlags configure the method and its stopping; solve and batch share
// them. The method's own constants are its knobs (knobFlags).
func solverFlags(o *jobOptions) []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "algo", Destination: &o.algo, Value: solver.DefaultMethodName, Usage: "method: " + strings.Join(solver.MethodNames(), ", ")},
		&cli.Float64Flag{Name: "eps", Destination: &o.eps, Value: 1e-4, Usage: "target relative gap, gap / max|A_ij| (0: none)"},
		&cli.Float64Flag{Name: "abs-eps", Destination: &o.absEps, Usage: "target absolute gap", DefaultText: "none"},
		&cli.IntFlag{Name: "max-iter", Destination: &o.maxIter, Value: 100000, Usage: "iteration limit (0: none)"},
		&cli.IntFlag{Name: "max-evals", Destination: &o.maxEvals, Usage: "operator evaluation limit", DefaultText: "none"},
		&cli.DurationFlag{Name: "time-limit", Destination: &o.timeLimit, Usage: "wall-time limit of the iterations, e.g. 30s", DefaultText: "none"},
		&cli.StringFlag{Name: "init", Destination: &o.init, Usage: "warm start from a gpump result (.json) or strategies archive (.npz with members row and column)", DefaultText: "the uniform pair"},
		&cli.IntFlag{Name: "threads", Destination: &o.threads, Usage: "CPU worker threads", DefaultText: "all cores"},
		&cli.StringFlag{Name: "device", Destination: &o.device, Value: "cpu", Usage: deviceFlagUsage},
		&cli.StringFlag{Name: "oracle", Destination: &o.oracle, Value: "exact", Usage: "operator of a game: exact (a pass over A) or sampled (b columns j ~ q and b rows i ~ p per evaluation; mirror-prox rules only)"},
		&cli.IntFlag{Name: "batch", Destination: &o.batch, Usage: "sampled oracle: b, the rows and columns drawn per evaluation", DefaultText: strconv.Itoa(solver.DefaultBatch)},
		&cli.IntFlag{Name: "gap-every", Destination: &o.gapEvery, Usage: "sampled oracle: certify the average with a full pass every K iterations", DefaultText: "the smallest K with K·b·(m+n) >= 2·m·n"},
		&cli.Uint64Flag{Name: "oracle-seed", Destination: &o.oracleSeed, Value: 1, Usage: "sampled oracle: seed of the draws"},
		&cli.BoolFlag{Name: "sample-transposed", Destination: &o.sampleTransposed, Usage: "sampled oracle: keep a transposed copy of A (as much memory again) so sampled columns are contiguous"},
	}
	return append(flags, knobFlags(o)...)
}

// knob is one method knob as a flag: its name and, for each usage text,
// the methods that have it.
type knob struct {
	name    string
	boolean bool
	methods []string
	usages  []string // "methods: usage (default ...)"
	def     string   // a boolean knob's default, shown by its flag
}

// methodKnobs lists the knobs of every method, in the order the methods
// and their knobs are listed: the one source of the method flags.
var methodKnobs = sync.OnceValue(func() []*knob {
	var list []*knob
	byName := map[string]*knob{}
	texts := map[string][]string{} // knob name + usage → methods
	for _, name := range solver.MethodNames() {
		m, _ := solver.NewMethod(name)
		t, ok := m.(solver.Tunable)
		if !ok {
			continue
		}
		for _, k := range t.Knobs() {
			kb := byName[k.Name]
			if kb == nil {
				kb = &knob{name: k.Name, boolean: k.Bool}
				byName[k.Name] = kb
				list = append(list, kb)
			}
			kb.methods = append(kb.methods, name)
			text := k.Usage + " (default " + k.Default + ")"
			if k.Bool {
				// The flag's own "(default: ...)" says it once.
				text, kb.def = k.Usage, k.Default
			}
			key := k.Name + "\x00" + text
			if texts[key] == nil {
				kb.usages = append(kb.usages, text)
			}
			texts[key] = append(texts[key], name)
		}
	}
	for _, kb := range list {
		for i, text := range kb.usages {
			kb.usages[i] = methodsLabel(texts[kb.name+"\x00"+text]) + ": " + text
		}
	}
	return list
})

// methodsLabel names a list of methods for a flag's usage, shortly where
// the list is a family.
func methodsLabel(names []string) string {
	var mp []string
	for _, name := range solver.MethodNames() {
		if m, _ := solver.NewMethod(name); m != nil {
			if _, ok := m.(*solver.MirrorProx); ok {
				mp = append(mp, name)
			}
		}
	}
	all := solver.MethodNames()
	switch {
	case len(names) == len(all):
		return "every method"
	case len(names) == len(all)-1:
		for _, n := range all {
			if !slices.Contains(names, n) {
				return "every method but " + n
			}
		}
	case slices.Equal(names, mp):
		return "mirror-prox rules"
	case len(names) == len(mp)-1 && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(mp, n) }):
		for _, n := range mp {
			if !slices.Contains(names, n) {
				return "mirror-prox rules but " + n
			}
		}
	}
	return strings.Join(names, ", ")
}

// knobFlags are the flags of the methods' knobs.
func knobFlags(o *jobOptions) []cli.Flag {
	var flags []cli.Flag
	for i, k := range methodKnobs() {
		usage := strings.Join(k.usages, "; ")
		if k.boolean {
			flags = append(flags, &cli.BoolFlag{Name: k.name, Destination: &o.knobBools[i], Usage: usage, DefaultText: k.def})
		} else {
			flags = append(flags, &cli.StringFlag{Name: k.name, Destination: &o.knobs[i], Usage: usage})
		}
	}
	return flags
}

// job is one solve: its input and every setting, checked.
type job struct {
	path     string            // payoff file, or "" for a generator
	gen      *datasets.GenSpec // generator, or nil for a file
	read     datasets.ReadOptions
	mmap     bool
	method   solver.Method
	s        solver.Settings // without Init and Recorder
	initPath string          // --init
	sampled  *solver.SampledGame
	threads  int
	device   string
	// src is the payoff file opened once (games.Open), nil for a
	// generator or a file that could not be stated: load then reads the
	// path, to report its error as the reader words it.
	src   *games.Source
	known os.FileInfo
}

// close closes the job's payoff file.
func (j *job) close() { j.src.Close() }

// newJob checks the options and the positional arguments of a solve.
// known, when not nil, is the payoff file's os.Stat, taken when it was
// listed.
func newJob(o *jobOptions, args []string, known os.FileInfo) (*job, error) {
	j := &job{known: known}
	if err := j.configure(o); err != nil {
		return nil, err
	}
	if err := j.input(o, args); err != nil {
		return nil, err
	}
	return j, nil
}

// configure checks and sets the method, the solver settings, the threads
// and the precision.
func (j *job) configure(o *jobOptions) error {
	var err error
	if j.method, err = configureMethod(o, o.algo); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"eps", o.eps}, {"abs-eps", o.absEps}} {
		if !(f.v >= 0) || f.v > 1e300 {
			return fmt.Errorf("--%s must be a finite number >= 0, got %v", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max-iter", o.maxIter}, {"max-evals", o.maxEvals}, {"threads", o.threads}, {"batch", o.batch}, {"gap-every", o.gapEvery}} {
		if f.v < 0 {
			return fmt.Errorf("--%s must be >= 0, got %d", f.name, f.v)
		}
	}
	if o.threads > maxThreads {
		return fmt.Errorf("--threads must be at most %d, got %d", maxThreads, o.threads)
	}
	if o.timeLimit < 0 {
		return fmt.Errorf("--time-limit must be >= 0, got %v", o.timeLimit)
	}
	j.device = o.device
	if _, ok := openers[j.device]; !ok {
		if _, _, err := openDevice(j.device, 1); err != nil {
			return err
		}
	}
	j.threads = o.threads
	if j.threads == 0 {
		j.threads = runtime.GOMAXPROCS(0)
	}
	// An absolute target alone replaces the default relative one: both
	// would stop at whichever is met first.
	rel := o.eps
	if o.given["abs-eps"] && !o.given["eps"] {
		rel = 0
	}
	switch o.oracle {
	case "exact":
		for _, name := range []string{"batch", "gap-every", "oracle-seed", "sample-transposed"} {
			if o.own[name] {
				return fmt.Errorf("--%s applies to --oracle sampled", name)
			}
		}
		if err := j.method.Uses(probeGame); err != nil {
			return err
		}
	case "sampled":
		j.sampled = &solver.SampledGame{Batch: o.batch, GapEvery: o.gapEvery, Seed: o.oracleSeed, Transposed: o.sampleTransposed}
		probe := *j.sampled
		probe.Game = probeGame
		if err := j.method.Uses(&probe); err != nil {
			return fmt.Errorf("--oracle sampled: %w", err)
		}
	default:
		return fmt.Errorf("unknown --oracle %q (want exact or sampled)", o.oracle)
	}
	j.initPath = o.init
	j.s = solver.Settings{
		RelGap:         rel,
		AbsGap:         o.absEps,
		MaxIterations:  o.maxIter,
		MaxEvaluations: o.maxEvals,
		TimeLimit:      o.timeLimit,
	}
	j.read.DType, err = parsePrecision(o.precision, true)
	return err
}

// probeGame is a 1×1 game on which a method's Uses checks its knobs and the
// problem kind before the payoff matrix is read.
var probeGame = func() *solver.MatrixGame {
	g, err := solver.NewMatrixGame(tensor.New(tensor.WithShape(1, 1), tensor.WithBacking([]float64{0})))
	if err != nil {
		panic(err)
	}
	return g
}()

// configureMethod returns the named method with the knob flags given set on
// it. A knob flag the method does not have is an error when given for this
// solve, and ignored when it is a batch-wide default (jobOptions.own).
func configureMethod(o *jobOptions, name string) (solver.Method, error) {
	m, err := solver.NewMethod(name)
	if err != nil {
		return nil, err
	}
	var own []solver.Knob
	if t, ok := m.(solver.Tunable); ok {
		own = t.Knobs()
	}
	for ki, kb := range methodKnobs() {
		if !o.given[kb.name] {
			continue
		}
		i := slices.IndexFunc(own, func(k solver.Knob) bool { return k.Name == kb.name })
		if i < 0 {
			if o.own[kb.name] {
				return nil, fmt.Errorf("--%s applies to %s, not %s", kb.name, strings.Join(kb.methods, ", "), m.Name())
			}
			continue
		}
		v := o.knobs[ki]
		if kb.boolean {
			v = strconv.FormatBool(o.knobBools[ki])
		}
		if err := own[i].Set(v); err != nil {
			return nil, fmt.Errorf("--%s: %w", kb.name, err)
		}
	}
	return m, nil
}

// input checks and sets the payoff matrix's source: a file or --gen.
func (j *job) input(o *jobOptions, args []string) error {
	gen := o.gen
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
			if o.given[k] {
				return fmt.Errorf("--%s applies to a generated matrix (--gen), not to a file", k)
			}
		}
		j.path = args[0]
		j.read.Format = o.format
		j.read.Key = o.key
		j.mmap = o.mmap
		format, err := inputFormat(j.path, j.read.Format)
		if err != nil {
			if fi, statErr := os.Stat(j.path); statErr == nil && fi.IsDir() {
				return fmt.Errorf("%s is a directory, not a payoff file", j.path)
			}
			return err
		}
		// The file is stated and opened once here; a file that cannot be
		// opened or whose header is bad is left to load, whose reader
		// words its error.
		var statErr error
		if j.src, err = games.OpenStated(j.path, format, j.known); err != nil {
			var pe *fs.PathError
			switch {
			case errors.Is(err, games.ErrDirectory):
				return err
			case errors.As(err, &pe) && pe.Op == "stat":
				statErr = err
			}
		}
		if j.read.Key != "" && format != "npz" {
			return fmt.Errorf("--key applies to .npz archives, not to %s files", format)
		}
		if j.mmap && format != "npy" {
			if o.own["mmap"] {
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
		if o.own[name] {
			return fmt.Errorf("--%s applies to a payoff file, not to --gen", name)
		}
	}
	spec, err := genSpec(gen, &o.g, o.given)
	if err != nil {
		return err
	}
	j.gen = &spec
	return nil
}

// genSpec returns the generator spec of --gen NAME[:params] with the
// generator flags given applied over it.
func genSpec(gen string, g *genOptions, given map[string]bool) (datasets.GenSpec, error) {
	var kv []string
	vals := g.values()
	for _, k := range genKeys {
		if given[k] {
			kv = append(kv, k+"="+vals[k])
		}
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
