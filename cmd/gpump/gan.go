package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/gan/ganplot"
	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/internal/progress"
	"github.com/gpump/gpump/solver"
)

// ganOptions are gpump gan's flags.
type ganOptions struct {
	logOptions
	data, loss, algo, device, output, samples, trace, plot string

	generators, discriminators, rounds, batch, hidden, numSamples int
	genSteps, discSteps, respawnAfter, splitEvery, threads        int

	rate, discRate, sharpen, discInit, langevin, splitRatio, explore, eps float64

	seed                  uint64
	uniform, graphs, json bool
	given                 map[string]bool // the flags the command line gave
}

func ganCommand() *cli.Command {
	def := gan.DefaultConfig()
	o := &ganOptions{}
	return &cli.Command{
		Name:  "gan",
		Usage: "train a mixture of generators and discriminators by solving their payoff game every round",
		Description: `Each round evaluates the K×J payoff matrix M of the generators against the
discriminators on a minibatch, solves the game for the mixture weights p
(generators, minimizing) and q (discriminators, maximizing) with --algo,
warm-started from the last round, to a gap of --eps·max|M|, and moves every
particle by gradient steps against the other side's mixture. The result
(--output, or standard output) is JSON: the weights, the certified gap of
every round's game, the metrics of --num-samples points drawn from the
trained mixture, and the mixture itself (its networks' parameters). On a
terminal, standard output shows a summary instead (the modes covered, the
share of good samples, MMD², the last round's certified gap, the time), also
with --output; --json or -o - writes the JSON there.

Ctrl-C stops the training and writes everything for the mixture trained so
far (exit status 3).

Examples:
   gpump gan --data ring8 --seed 1 --samples s.npy -o r.json
   gpump gan --data grid25 --generators 16 --plot samples.png --trace rounds.csv
   gpump gan --data points.npy --loss wgan --algo rm+ -o r.json`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Destination: &o.data, Usage: "ring8, grid25, their unequal-weight forms ring8u and grid25u, or an N×d .npy file of points", Required: true},
			&cli.IntFlag{Name: "generators", Destination: &o.generators, Aliases: []string{"K"}, Usage: "generator particles K", DefaultText: "⌈1.5×modes⌉ for ring8 and grid25 (12, 38), 16 for a file"},
			&cli.IntFlag{Name: "discriminators", Destination: &o.discriminators, Aliases: []string{"J"}, Value: def.Discriminators, Usage: "discriminator particles J"},
			&cli.IntFlag{Name: "rounds", Destination: &o.rounds, Value: def.Rounds, Usage: "rounds R"},
			&cli.Uint64Flag{Name: "seed", Destination: &o.seed, Value: 1, Usage: "seed of every draw"},
			&cli.StringFlag{Name: "loss", Destination: &o.loss, Value: def.Loss.String(), Usage: "log (cross-entropy, non-saturating generator steps) or wgan (clipped critic)"},
			&cli.IntFlag{Name: "batch", Destination: &o.batch, Value: def.Batch, Usage: "minibatch size"},
			&cli.IntFlag{Name: "hidden", Destination: &o.hidden, Value: def.Hidden, Usage: "width of the networks' two hidden layers"},
			&cli.IntFlag{Name: "gen-steps", Destination: &o.genSteps, Value: def.GenSteps, Usage: "gradient steps of each generator per round"},
			&cli.IntFlag{Name: "disc-steps", Destination: &o.discSteps, Value: def.DiscSteps, Usage: "gradient steps of each discriminator per round"},
			&cli.Float64Flag{Name: "rate", Destination: &o.rate, Value: def.GenRate, Usage: "Adam's step size of the generators"},
			&cli.Float64Flag{Name: "disc-rate", Destination: &o.discRate, Value: def.DiscRate, Usage: "Adam's step size of the discriminators"},
			&cli.Float64Flag{Name: "sharpen", Destination: &o.sharpen, Value: def.Sharpen, Usage: "fraction of the last rounds over which both step sizes fall to a tenth (0: none)"},
			&cli.Float64Flag{Name: "disc-init", Destination: &o.discInit, Value: def.DiscInit, Usage: "scale of the discriminators' first layers at the start, in units of 1/σ of the data: each unit's tanh rises over about 6σ/scale, which must be narrower than the gap between neighbouring modes (0: Glorot's draw)"},
			&cli.Float64Flag{Name: "langevin", Destination: &o.langevin, Usage: "temperature of Langevin noise added after each step", DefaultText: "0, none"},
			&cli.IntFlag{Name: "respawn-after", Destination: &o.respawnAfter, Value: def.RespawnAfter, Usage: "respawn a particle whose weight stayed below 0.1/max(K,J) this many rounds (0: never)"},
			&cli.IntFlag{Name: "split-every", Destination: &o.splitEvery, Value: def.SplitEvery, Usage: "rounds between checks for generators that straddle two modes, each restarted with a spare generator (the lighter of the two nearest each other) as two blobs, one on each (0: never)"},
			&cli.Float64Flag{Name: "split-ratio", Destination: &o.splitRatio, Value: def.SplitRatio, Usage: "separation of a generator's two clusters, in within-cluster RMS distances, above which it straddles two modes"},
			&cli.Float64Flag{Name: "explore", Destination: &o.explore, Value: def.Explore, Usage: "share of uniform weight in the generators' mixture that the discriminators step against and the samples are drawn from (0: none, the game's p alone)"},
			&cli.BoolFlag{Name: "uniform", Destination: &o.uniform, Usage: "keep the weights uniform instead of solving the game (a baseline)"},
			&cli.BoolFlag{Name: "graphs", Destination: &o.graphs, Usage: "compute the gradient steps with gorgonia's float64 graphs (the reference) instead of the batched float32 layers"},
			&cli.StringFlag{Name: "algo", Destination: &o.algo, Value: gan.DefaultMethod, Usage: "method of each round's game: " + strings.Join(solver.MethodNames(), ", ")},
			&cli.Float64Flag{Name: "eps", Destination: &o.eps, Value: def.RelGap, Usage: "target gap of each round's game, relative to max|M|"},
			&cli.StringFlag{Name: "device", Destination: &o.device, Value: "cpu", Usage: "where each round's game, payoff matrix and gradients are computed: cpu, or cuda in a binary built with -tags cuda (Adam's steps run on the CPU)"},
			&cli.IntFlag{Name: "threads", Destination: &o.threads, Usage: "CPU threads of the game's backend", DefaultText: "all cores"},
			&cli.StringFlag{Name: "output", Destination: &o.output, Aliases: []string{"o"}, Usage: "write the JSON result to this file, atomically (- for standard output)", DefaultText: "a summary on a terminal, else JSON, on standard output"},
			&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "write the JSON result to standard output even when it is a terminal"},
			&cli.StringFlag{Name: "samples", Destination: &o.samples, Usage: "write the drawn points to this .npy file (N×d float64)"},
			&cli.IntFlag{Name: "num-samples", Destination: &o.numSamples, Value: 10000, Usage: "points drawn from the trained mixture for --samples and the metrics"},
			&cli.StringFlag{Name: "trace", Destination: &o.trace, Usage: "write a CSV row per round to this file"},
			&cli.StringFlag{Name: "plot", Destination: &o.plot, Usage: "draw the data and the samples side by side, with the weights, to this .png file"},
		}, logFlags(&o.logOptions, "no progress bar and no log lines on stderr", false)...),
		Action: func(c *cli.Context) error {
			o.given = givenFlags(c)
			return ganAction(c, o)
		},
	}
}

// ganOutput is the JSON result of gpump gan.
type ganOutput struct {
	Status              string       `json:"status"`
	Data                string       `json:"data"`
	Loss                string       `json:"loss"`
	Algorithm           string       `json:"algorithm"`
	Generators          int          `json:"generators"`
	Discriminators      int          `json:"discriminators"`
	Rounds              int          `json:"rounds"`
	Seed                uint64       `json:"seed"`
	P                   []float64    `json:"p"`
	Q                   []float64    `json:"q"`
	Gaps                []float64    `json:"gaps"`
	RelativeGaps        []float64    `json:"relative_gaps"`
	TargetRelativeGap   float64      `json:"target_relative_gap"`
	NumSamples          int          `json:"num_samples"`
	ModesCovered        *int         `json:"modes_covered,omitempty"`
	ModesTotal          *int         `json:"modes_total,omitempty"`
	HighQualityFraction *float64     `json:"high_quality_fraction,omitempty"`
	ModesHit            *int         `json:"modes_hit,omitempty"`
	ModeFrequencies     []float64    `json:"mode_frequencies,omitempty"`
	ModeWeights         []float64    `json:"mode_weights,omitempty"`
	ModeTV              *float64     `json:"mode_tv,omitempty"`
	ModeReverseKL       *float64     `json:"mode_reverse_kl,omitempty"`
	MMD2                float64      `json:"mmd2"`
	MMD2Bandwidth       float64      `json:"mmd2_bandwidth"`
	MetricPoints        int          `json:"metric_points"`
	EnergyDistance      *float64     `json:"energy_distance,omitempty"`
	Seconds             float64      `json:"seconds"`
	Samples             string       `json:"samples,omitempty"`
	Device              string       `json:"device"`
	Mixture             *gan.Mixture `json:"mixture"`
}

func ganAction(c *cli.Context, o *ganOptions) error {
	if c.NArg() > 0 {
		return fmt.Errorf("gan takes no arguments, got %q (the data set is --data)", c.Args().First())
	}
	cfg, data, err := ganConfig(o)
	if err != nil {
		return err
	}
	// Every output is checked now, not after the training.
	var files fileList
	if data.Points != nil {
		files.add("--data", data.Name, true)
	}
	out := o.output
	// JSON for programs, a summary for people: a terminal shows the
	// summary (the JSON holds every network's parameters), with -o FILE
	// too, unless --json or -o - asks for the JSON there.
	summary := isTerminal(c.App.Writer) && !o.json && out != "-"
	if out == "-" {
		out = ""
	}
	files.add("--output", out, false)
	if out == "" && !summary {
		files.addWriter("standard output", c.App.Writer)
	}
	for _, f := range []struct{ flag, ext, p string }{{"samples", ".npy", o.samples}, {"plot", ".png", o.plot}, {"trace", "", o.trace}} {
		p := f.p
		if p != "" && f.ext != "" && !strings.EqualFold(filepath.Ext(p), f.ext) {
			return fmt.Errorf("--%s writes a %s file, not %q", f.flag, f.ext, p)
		}
		files.add("--"+f.flag, p, false)
	}
	if err := files.check(); err != nil {
		return err
	}
	for _, f := range files {
		if !f.input {
			if err := atomicfile.Check(f.path); err != nil {
				return outputErr(f.what, err)
			}
		}
	}
	be, closeBE, err := openDevice(o.device, cfg.Threads)
	if err != nil {
		return err
	}
	defer closeBE()
	cfg.Backend, cfg.Payoff = be, ganPayoff(be)
	if l, free := ganLayers(be); l != nil {
		defer free()
		cfg.Layers = l
	}

	prog, log, err := o.progressLogger(c.App.ErrWriter)
	if err != nil {
		return err
	}
	defer prog.Clear()
	rec := &ganRecorder{prog: prog, log: log}
	if o.quiet {
		rec.log = nil
	}
	cfg.Recorder = rec
	start := time.Now()
	mix, err := gan.Train(c.Context, data, cfg)
	status := "done"
	if errors.Is(err, gan.ErrInterrupted) && mix != nil {
		status = "interrupted"
		log.Warn("interrupted: writing the mixture trained so far", "rounds", len(rec.gaps)-1)
	} else if err != nil {
		return err
	}
	prog.Clear()
	secs := time.Since(start).Seconds()

	n := o.numSamples
	pts, labels := mix.SampleLabeled(n, rand.New(rand.NewPCG(cfg.Seed, 1)))
	met := gan.Evaluate(data, pts, rand.New(rand.NewPCG(cfg.Seed, 2)))
	res := ganOutput{
		Status: status, Data: data.Name, Loss: cfg.Loss.String(), Algorithm: rec.method,
		Generators: len(mix.Generators), Discriminators: len(mix.Discriminators), Rounds: len(rec.gaps) - 1, Seed: cfg.Seed,
		P: mix.P, Q: mix.Q, Gaps: rec.gaps, RelativeGaps: rec.rel, TargetRelativeGap: cfg.RelGap,
		NumSamples: n, MMD2: met.MMD2, MMD2Bandwidth: met.Bandwidth, MetricPoints: min(n, gan.MetricPoints),
		Seconds: round3(secs), Device: o.device, Mixture: mix,
	}
	if cfg.Uniform {
		res.Algorithm = "uniform"
	}
	if data.Points == nil {
		res.ModesCovered, res.ModesTotal, res.HighQualityFraction = &met.ModesCovered, &met.ModesTotal, &met.HighQuality
		res.ModesHit, res.ModeFrequencies = &met.ModesHit, met.ModeFrequencies
		res.ModeWeights = data.Weights
		if res.ModeWeights == nil {
			res.ModeWeights = make([]float64, len(data.Centers))
			for i := range res.ModeWeights {
				res.ModeWeights[i] = 1 / float64(len(data.Centers))
			}
		}
		// No high-quality sample leaves both undefined: left out.
		if !math.IsNaN(met.ModeTV) {
			res.ModeTV, res.ModeReverseKL = &met.ModeTV, &met.ModeReverseKL
		}
	} else {
		res.EnergyDistance = &met.Energy
	}
	_, err = interruptible(nextInterrupt(c.Context), "writing the results", func() (any, error) {
		var failed []error
		var written []string // "what in file", for the summary
		if p := o.samples; p != "" {
			t := tensor.New(tensor.WithShape(n, data.Dim), tensor.WithBacking(pts))
			if err := writeFile("--samples", p, func(w io.Writer) error { return datasets.EncodeNPY(w, t) }); err != nil {
				failed = append(failed, err)
			} else {
				res.Samples = p
				written = append(written, "samples in "+p)
			}
		}
		if p := o.plot; p != "" {
			ref := make([]float64, n*data.Dim)
			data.Sample(ref, rand.New(rand.NewPCG(cfg.Seed, 3)))
			fig := &ganplot.Figure{Data: ref, Samples: pts, Labels: labels, Dim: data.Dim, Name: data.Name, Rounds: res.Rounds,
				P: mix.P, Sampled: mix.Weights(), Explore: mix.Explore}
			if err := writeFile("--plot", p, fig.Draw); err != nil {
				failed = append(failed, err)
			} else {
				written = append(written, "plot in "+p)
			}
		}
		write := func(w io.Writer) error { return writeJSON(w, res) }
		switch {
		case out != "":
			if err := writeFile("--output", out, write); err != nil {
				return nil, joinErrors(append([]error{err}, failed...)...)
			}
		case !summary:
			if err := write(c.App.Writer); err != nil {
				return nil, fmt.Errorf("writing the result: %w", err)
			}
		}
		// The trace last: it may be a FIFO whose reader never comes, and
		// the interrupt that gives up on it must find the result written.
		if p := o.trace; p != "" {
			if err := writeFile("--trace", p, rec.writeTrace); err != nil {
				failed = append(failed, err)
			} else {
				written = append(written, "trace in "+p)
			}
		}
		if summary {
			if err := writeGANSummary(c.App.Writer, &res, out, written); err != nil {
				return nil, joinErrors(append([]error{fmt.Errorf("writing the summary: %w", err)}, failed...)...)
			}
		}
		return nil, joinErrors(failed...)
	})
	if err != nil {
		return err
	}
	if status == "interrupted" {
		return exitStatus(exitCanceled)
	}
	return nil
}

// writeGANSummary writes what people read of a gan result on a terminal:
// the rounds and the time, the metrics, the last round's certified gap and
// the largest weights, and where the files went (file: the JSON result, ""
// when it was not written); never the networks' parameters.
func writeGANSummary(w io.Writer, r *ganOutput, file string, written []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	status := "trained"
	if r.Status == "interrupted" {
		status = "interrupted"
	}
	fmt.Fprintf(tw, "%s\t%d rounds on %s in %s: %d generators, %d discriminators, %s loss, %s\n",
		status, r.Rounds, r.Data, seconds(r.Seconds), r.Generators, r.Discriminators, r.Loss, r.Algorithm)
	if r.ModesCovered != nil {
		fmt.Fprintf(tw, "modes\t%d of %d covered (a quarter of their share), %d hit (a high-quality sample); high quality %.3f (share of the %d samples within 3σ of a mode)\n",
			*r.ModesCovered, *r.ModesTotal, *r.ModesHit, *r.HighQualityFraction, r.NumSamples)
		if r.ModeTV != nil {
			fmt.Fprintf(tw, "balance\ttotal variation %.3f, reverse KL %.3g between the high-quality samples' mode frequencies and the data's weights\n", *r.ModeTV, *r.ModeReverseKL)
		}
	}
	fmt.Fprintf(tw, "MMD²\t%.3g (Gaussian kernel of bandwidth %.3g, %d points a side)", r.MMD2, r.MMD2Bandwidth, r.MetricPoints)
	if r.EnergyDistance != nil {
		fmt.Fprintf(tw, "; energy distance %.3g", *r.EnergyDistance)
	}
	fmt.Fprintln(tw)
	if n := len(r.Gaps); n > 0 {
		fmt.Fprintf(tw, "last game\tcertified gap %.3g, relative %.3g (target %.3g)\n", r.Gaps[n-1], r.RelativeGaps[n-1], r.TargetRelativeGap)
	}
	support := 0
	for _, v := range r.P {
		if v > 0 {
			support++
		}
	}
	strategyLine(tw, "generators", "generators", "p", r.P, r.Generators, support, "")
	if len(written) > 0 {
		fmt.Fprintf(tw, "files\t%s\n", strings.Join(written, ", "))
	}
	if file != "" {
		fmt.Fprintf(tw, "result\tin %s (with the networks' parameters)\n", file)
	} else {
		fmt.Fprintf(tw, "result\tthe whole result as JSON, with the networks' parameters: --json, or -o FILE\n")
	}
	return tw.Flush()
}

// ganConfig checks the flags and reads the data set.
func ganConfig(o *ganOptions) (*gan.Config, *gan.Dataset, error) {
	cfg := gan.DefaultConfig()
	for _, f := range []struct {
		name string
		v    int
		dst  *int
	}{{"generators", o.generators, &cfg.Generators}, {"discriminators", o.discriminators, &cfg.Discriminators}, {"rounds", o.rounds, &cfg.Rounds},
		{"batch", o.batch, &cfg.Batch}, {"hidden", o.hidden, &cfg.Hidden}, {"num-samples", o.numSamples, nil}} {
		if f.name == "generators" && !o.given[f.name] {
			continue // chosen from the data by gan.Train
		}
		if f.v < 1 {
			return nil, nil, fmt.Errorf("--%s must be at least 1, got %d", f.name, f.v)
		}
		if f.dst != nil {
			*f.dst = f.v
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"gen-steps", o.genSteps}, {"disc-steps", o.discSteps}, {"respawn-after", o.respawnAfter}, {"split-every", o.splitEvery}, {"threads", o.threads}} {
		if f.v < 0 {
			return nil, nil, fmt.Errorf("--%s must be >= 0, got %d", f.name, f.v)
		}
	}
	cfg.GenSteps, cfg.DiscSteps = orNone(o.genSteps), orNone(o.discSteps)
	cfg.RespawnAfter, cfg.SplitEvery = o.respawnAfter, o.splitEvery
	if !(o.splitRatio > 1) {
		return nil, nil, fmt.Errorf("--split-ratio must be > 1, got %v", o.splitRatio)
	}
	cfg.SplitRatio = o.splitRatio
	if o.threads > 0 {
		cfg.Threads = o.threads
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"sharpen", o.sharpen}, {"explore", o.explore}} {
		if !(f.v >= 0 && f.v <= 1) {
			return nil, nil, fmt.Errorf("--%s must lie in [0, 1], got %v", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
		zero bool // 0 allowed
	}{{"rate", o.rate, false}, {"disc-rate", o.discRate, false}, {"eps", o.eps, false}, {"langevin", o.langevin, true}, {"disc-init", o.discInit, true}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) || (f.v == 0 && !f.zero) {
			return nil, nil, fmt.Errorf("--%s must be a finite number > 0, got %v", f.name, f.v)
		}
	}
	cfg.GenRate, cfg.DiscRate = o.rate, o.discRate
	cfg.Sharpen, cfg.Explore, cfg.DiscInit = orNone(o.sharpen), orNone(o.explore), orNone(o.discInit)
	cfg.RelGap, cfg.Langevin = o.eps, o.langevin
	cfg.Uniform, cfg.Graphs = o.uniform, o.graphs
	cfg.Seed = o.seed
	var err error
	if cfg.Loss, err = gan.ParseLoss(o.loss); err != nil {
		return nil, nil, fmt.Errorf("--loss: unknown loss %q (want log or wgan)", o.loss)
	}
	if cfg.Method, err = solver.NewMethod(o.algo); err != nil {
		return nil, nil, fmt.Errorf("--algo: %w", err)
	}
	name := o.data
	data := gan.Builtin(name)
	if data == nil {
		if !strings.EqualFold(filepath.Ext(name), ".npy") {
			return nil, nil, fmt.Errorf("--data %q: want ring8, grid25, ring8u, grid25u or an .npy file of points", name)
		}
		if data, err = gan.ReadNPY(name); err != nil {
			return nil, nil, err
		}
		if data.Len() < cfg.Batch {
			return nil, nil, fmt.Errorf("--data %s has %d points, fewer than the batch of %d (--batch)", name, data.Len(), cfg.Batch)
		}
	}
	return cfg, data, nil
}

// orNone is a flag's 0 ("none") as gan.Config says it, -1: the Config's
// own zero means its default.
func orNone[T int | float64](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// ganRecorder keeps each round's certified gap, shows the progress and
// keeps the rows of the trace.
type ganRecorder struct {
	prog     *progress.Bar
	log      *slog.Logger
	method   string
	rounds   int
	gaps     []float64
	rel      []float64
	trace    [][]string
	nextLog  time.Duration
	progInfo solver.Settings
}

func (g *ganRecorder) Init(info *gan.Info) error {
	g.method, g.rounds = info.Method, info.Config.Rounds
	g.progInfo = solver.Settings{MaxIterations: g.rounds}
	if g.prog != nil {
		g.prog.Unit = "round" // and rounds/s
		g.prog.Init(&solver.Info{Settings: &g.progInfo})
	}
	g.nextLog = progress.LogEvery
	return nil
}

func (g *ganRecorder) Record(r *gan.Round) error {
	g.gaps = append(g.gaps, r.Gap)
	g.rel = append(g.rel, r.RelGap)
	support := 0
	for _, p := range r.P {
		if p >= 1e-3 {
			support++
		}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	g.trace = append(g.trace, []string{strconv.Itoa(r.Round), f(r.Gap), f(r.RelGap), f(r.MaxAbs), f(r.ValueLower), f(r.ValueUpper),
		strconv.Itoa(r.Iterations), strconv.Itoa(r.MatrixPasses), strconv.Itoa(support), strconv.Itoa(r.Respawned), strconv.Itoa(r.Split),
		f(r.PayoffTime.Seconds()), f(r.SolveTime.Seconds()), f(r.StepTime.Seconds()), f(r.Elapsed.Seconds())})
	if g.prog != nil {
		g.prog.Record(&solver.Record{Iteration: r.Round, Gap: r.Gap, RelGap: r.RelGap, Evaluations: r.MatrixPasses, Elapsed: r.Elapsed})
	} else if g.log != nil && r.Elapsed >= g.nextLog {
		g.nextLog = r.Elapsed + progress.LogEvery
		g.log.Info("progress", "round", r.Round, "rounds", g.rounds, "relative_gap", r.RelGap, "seconds", round3(r.Elapsed.Seconds()))
	}
	return nil
}

// ganTraceHeader names the columns of gpump gan --trace: the round's game
// (its certified gap, max|M|, the value bracket, the solver's iterations
// and passes), the generators with weight ≥ 1e-3, the particles respawned
// and the generators restarted by a split, and the wall times. The last row is the final particles' game.
const ganTraceHeader = "round,gap,relative_gap,max_abs_payoff,value_lower,value_upper,iterations,matrix_passes,generators_in_support,respawned,split,payoff_seconds,solve_seconds,step_seconds,seconds\n"

func (g *ganRecorder) writeTrace(w io.Writer) error {
	if _, err := io.WriteString(w, ganTraceHeader); err != nil {
		return err
	}
	for _, row := range g.trace {
		if _, err := io.WriteString(w, strings.Join(row, ",")+"\n"); err != nil {
			return err
		}
	}
	return nil
}
