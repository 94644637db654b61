package gan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// DefaultMethod is the method of each round's game when none is given:
// the paper's GA-UMP rule, whose entropic steps are the mirror steps over
// mixtures that the mixed-strategy GAN formulation calls for, rather than
// the solver's own default route (RM+ with an exact finish), which the
// README's comparison runs as variant (d).
const DefaultMethod = "ga-stochastic"

// Config sets up a training run. A nil *Config means DefaultConfig(); in a
// non-nil Config every zero field means its default, as documented.
type Config struct {
	// Generators (K) and Discriminators (J) are the numbers of particles
	// of each side. K defaults to DefaultGenerators of the data: more
	// generators than modes, so that every mode can get one of its own
	// while the game weights the spares down. J defaults to 2: the
	// discriminators are the costly side of every step, and two already
	// weight the generators by mode.
	Generators, Discriminators int
	// Rounds is the number of rounds (default 4000).
	Rounds int
	// Batch is the minibatch size B of the payoff matrix and of every
	// gradient step (default 64).
	Batch int
	// Hidden is the width of both hidden layers of every network (default
	// 32), NoiseDim the dimension of the generators' Gaussian noise z
	// (default 2).
	Hidden, NoiseDim int
	// Loss is the payoff's f (default Log: see Loss for why).
	Loss Loss
	// GenSteps and DiscSteps are the gradient steps each particle takes per
	// round (default 1 and 2; −1 for none, which freezes that side): the
	// generators can settle on a mode only where the discriminators
	// resolve it.
	GenSteps, DiscSteps int
	// GenRate and DiscRate are Adam's step sizes (default 1e-3 and 2e-3);
	// Beta1 and Beta2 its moment decays (default 0.5 and 0.999, the usual
	// GAN choices).
	GenRate, DiscRate, Beta1, Beta2 float64
	// Sharpen is the fraction of the last rounds over which both rates
	// fall linearly to a tenth, so that the generators settle on the
	// modes the discriminators resolve (default 0.3; −1 for none).
	Sharpen float64
	// GenInit and DiscInit shape the particles' first draw (default 0.1
	// and 16; −1 for plain Glorot draws). Each generator starts as a small
	// blob, its output layer's weights scaled by GenInit, placed at a
	// random point of the data's spread (its output bias drawn from a
	// Gaussian with the data's mean and per-coordinate variance), so that
	// the generators start apart and each can settle on a mode of its
	// own. Each discriminator's first-layer weights are scaled by
	// DiscInit/σ, σ the data's standard deviation, and each hidden unit's
	// hyperplane passes through a data point drawn at random: Glorot's
	// draw makes units that vary over the whole data's range, and Adam
	// takes tens of thousands of steps to grow them sharp enough to
	// resolve modes a few hundredths of that range wide. A unit's tanh
	// then rises over a band about 6σ/DiscInit wide (Glorot's weights
	// for 2 inputs and 32 units have a norm of about 0.34). The band must
	// be narrower than the gap between neighbouring modes, or no unit
	// tells two neighbours apart and the generators' gradients cannot
	// separate them: at 8 it was 2.1 on grid25, wider than the grid's
	// gap of 2, and the discriminators never grew sharp enough (8 to 13
	// of its 25 modes covered); at 16 it is about half the gap on grid25
	// (1.0 against 2) and a third on ring8 (0.5 against 1.5).
	GenInit, DiscInit float64
	// Clip bounds the discriminators' weights to [−Clip, Clip] after every
	// step under WGAN (default 0.1).
	Clip float64
	// Langevin, when positive, adds Gaussian noise of standard deviation
	// sqrt(2·rate·Langevin) to every parameter after each step, as in the
	// Langevin dynamics of Hsieh, Liu and Cevher (default 0: none).
	Langevin float64
	// RespawnAfter, when positive, respawns a particle whose weight has
	// stayed below RespawnBelow (default 0.1/K or 0.1/J) for that many
	// rounds in a row, at a copy of the heaviest particle of its side
	// perturbed by Gaussian noise of standard deviation RespawnNoise
	// (default 0.05). Default 0: never.
	RespawnAfter               int
	RespawnBelow, RespawnNoise float64
	// SplitEvery, when positive, is the number of rounds between checks
	// for generators that straddle two modes (default 0: never). A
	// generator maps its Gaussian noise continuously, so one that has
	// settled on two modes at once keeps a bridge of points between them,
	// which no amount of training removes: on grid25 such generators
	// carried the largest weights (twice a mode's share) and most of the
	// points off every mode. A check clusters each generator's points of
	// the round in two (2-means) and calls it straddling when the centres
	// lie more than SplitRatio root-mean-square within-cluster distances
	// apart with at least an eighth of the points on each side; it then
	// restarts that generator and the lightest other one (by the weight
	// averaged over recent rounds) as fresh blobs, one on each cluster's
	// centre (see GenInit). Checks stop once 90% of the rounds have run,
	// so that the last blobs have time to settle.
	SplitEvery int
	// SplitRatio is the separation, in within-cluster root-mean-square
	// distances, above which a generator's two clusters count as two
	// modes (default 5): one Gaussian blob splits at about 1.4 and a
	// uniform streak at 3.5, two modes at the grid's spacing with a tenth
	// of the points on the bridge at about 10.
	SplitRatio float64
	// Explore is the share of uniform weight mixed into the generators'
	// weights that the discriminators train against: they step against
	// the mixture (1−Explore)·p + Explore/K, so that they keep judging
	// every generator, also those the round's game leaves out, whose
	// steps would otherwise follow discriminators that never saw their
	// points (default 0.5; −1 for none). The returned mixture samples
	// from the same explored weights (Mixture.Explore), the mixture the
	// discriminators faced; its P stays the game's. The game's p is
	// sparse when the generators differ (its solutions lie on faces of
	// few rows, about J + 1 of them): on grid25 (38 generators, 5 seeds)
	// half and half covered all 25 modes in every seed at a high-quality
	// fraction of 0.92–0.96, against 23–25 modes at 0.82–0.91 without
	// exploration, with the same balance (MMD² at the estimator's noise);
	// on ring8 it moved single seeds both ways (0.929–0.981 against
	// 0.936–0.971). Exploring only the discriminators' steps, and sampling
	// from p alone, raised grid25's fraction as much but dropped modes
	// (23–25) and balance (MMD² ten times higher).
	Explore float64
	// Uniform skips the game: the weights stay uniform (a baseline).
	Uniform bool
	// Average is the fraction of the last rounds whose solved weights the
	// returned mixture averages, with the final particles' game (default
	// 0.5; −1 for the final game's alone). Each round's game is that of
	// one minibatch, and its solution jumps between particles that play
	// alike; averaged over rounds, as the strategies of no-regret
	// dynamics are, the weights keep every particle that held weight late
	// in the training.
	Average float64

	// Method solves each round's game (default DefaultMethod, the paper's
	// GA-UMP rule); it must solve a matrix game. RelGap is the gap target relative to
	// max |M_kj| (default 1e-3) and MaxIterations the solver's limit per
	// round (default 100000).
	Method        solver.Method
	RelGap        float64
	MaxIterations int
	// Backend holds each round's game (default a CPU backend with
	// Threads threads, closed at the end; default all cores). A given
	// backend is not closed. Threads also evaluate the payoff matrix.
	Backend tensorops.Backend
	Threads int
	// Payoff makes the evaluator of every round's payoff matrix for the
	// run's shape (default payoff.NewCPU with Threads threads; in a build
	// with the tag cuda, payoff.NewCUDA evaluates it on a device). An
	// evaluator that is an io.Closer is closed at the end.
	Payoff func(payoff.Shape) (PayoffEvaluator, error)

	// Seed seeds every draw: same seed, same configuration, same result,
	// on the same payoff kernels. The payoff matrix is float32 and its
	// rounding depends on the kernel set (AVX-512, AVX2 or portable Go:
	// GPUMP_KERNELS), and a training run amplifies any difference: ring8's
	// seed 4 covered 7 modes after 300 rounds on AVX-512 and 5 on AVX2.
	Seed uint64
	// Init, when not nil, is the mixture to start from (its architecture
	// and sizes override Generators, Discriminators, Hidden, NoiseDim and
	// Loss); it is not modified.
	Init *Mixture
	// Recorder, when not nil, hears of every round.
	Recorder Recorder
}

// DefaultGenerators is the default number of generators for a data set:
// for a mixture of M Gaussians, ⌈3M/2⌉ (12 for ring8, 38 for grid25); for
// a file's points, whose modes are unknown, 16.
func DefaultGenerators(d *Dataset) int {
	if d.Points == nil && len(d.Centers) > 0 {
		return (3*len(d.Centers) + 1) / 2
	}
	return 16
}

// DefaultConfig returns the defaults of every field; Generators stays 0,
// which Train replaces by DefaultGenerators of its data.
func DefaultConfig() *Config {
	c := &Config{}
	c.fill()
	return c
}

// fill sets the zero fields to their defaults.
func (c *Config) fill() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	deff := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Init != nil {
		c.Generators, c.Discriminators = len(c.Init.Generators), len(c.Init.Discriminators)
		c.Hidden, c.NoiseDim, c.Loss = c.Init.Gen.Hidden, c.Init.Gen.In, c.Init.Loss
	}
	def(&c.Discriminators, 2)
	def(&c.Rounds, 4000)
	def(&c.Batch, 64)
	def(&c.Hidden, 32)
	def(&c.NoiseDim, 2)
	def(&c.GenSteps, 1)
	def(&c.DiscSteps, 2)
	deff(&c.GenRate, 1e-3)
	deff(&c.DiscRate, 2e-3)
	deff(&c.Beta1, 0.5)
	deff(&c.Beta2, 0.999)
	deff(&c.Clip, 0.1)
	deff(&c.Sharpen, 0.3)
	deff(&c.GenInit, 0.1)
	deff(&c.DiscInit, 16)
	if c.Generators > 0 && c.Discriminators > 0 {
		deff(&c.RespawnBelow, 0.1/float64(max(c.Generators, c.Discriminators)))
	}
	deff(&c.RespawnNoise, 0.05)
	deff(&c.SplitRatio, 5)
	deff(&c.RelGap, 1e-3)
	def(&c.MaxIterations, 100000)
	deff(&c.Average, 0.5)
	deff(&c.Explore, 0.5)
	def(&c.Threads, runtime.GOMAXPROCS(0))
}

// explore is the explored share, Explore with −1 read as 0.
func (c *Config) explore() float64 { return max(c.Explore, 0) }

// check reports the first invalid setting.
func (c *Config) check() error {
	for _, v := range []struct {
		name string
		v    int
	}{{"generators", c.Generators}, {"discriminators", c.Discriminators}, {"rounds", c.Rounds}, {"batch", c.Batch}, {"hidden", c.Hidden}, {"noise dimension", c.NoiseDim}, {"threads", c.Threads}} {
		if v.v < 1 {
			return fmt.Errorf("gan: %s must be at least 1, got %d", v.name, v.v)
		}
	}
	if c.GenSteps < -1 || c.DiscSteps < -1 {
		return fmt.Errorf("gan: steps per round must be −1 (none) or more, got %d and %d", c.GenSteps, c.DiscSteps)
	}
	if c.Loss != Log && c.Loss != WGAN {
		return fmt.Errorf("gan: unknown loss %v", c.Loss)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"generators' rate", c.GenRate}, {"discriminators' rate", c.DiscRate}, {"clip", c.Clip}, {"relative gap", c.RelGap}, {"respawn noise", c.RespawnNoise}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("gan: %s must be a positive number, got %v", v.name, v.v)
		}
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1 && c.Beta2 >= 0 && c.Beta2 < 1) {
		return fmt.Errorf("gan: Adam's betas must lie in [0, 1), got %v and %v", c.Beta1, c.Beta2)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"generators' initial scale", c.GenInit}, {"discriminators' initial scale", c.DiscInit}} {
		if !(v.v == -1 || v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("gan: the %s must be a positive number or −1, got %v", v.name, v.v)
		}
	}
	if !(c.Explore == -1 || c.Explore >= 0 && c.Explore <= 1) {
		return fmt.Errorf("gan: the explored share must lie in [0, 1] or be −1, got %v", c.Explore)
	}
	if !(c.Sharpen == -1 || c.Sharpen > 0 && c.Sharpen <= 1) {
		return fmt.Errorf("gan: the sharpened fraction of rounds must lie in (0, 1] or be −1, got %v", c.Sharpen)
	}
	if !(c.Average == -1 || c.Average > 0 && c.Average <= 1) {
		return fmt.Errorf("gan: the averaged fraction of rounds must lie in (0, 1] or be −1, got %v", c.Average)
	}
	if c.SplitEvery < 0 || !(c.SplitRatio > 1) || math.IsInf(c.SplitRatio, 0) {
		return fmt.Errorf("gan: splits every %d rounds at a separation of %v: want rounds >= 0 and a separation > 1", c.SplitEvery, c.SplitRatio)
	}
	if !(c.Langevin >= 0) || math.IsInf(c.Langevin, 0) || !(c.RespawnBelow >= 0 && c.RespawnBelow < 1) || c.RespawnAfter < 0 || c.MaxIterations < 1 {
		return fmt.Errorf("gan: bad Langevin temperature %v, respawn threshold %v after %d rounds or iteration limit %d", c.Langevin, c.RespawnBelow, c.RespawnAfter, c.MaxIterations)
	}
	if c.Init != nil {
		if err := c.Init.check(); err != nil {
			return err
		}
	}
	return nil
}

// Info describes a training run to a Recorder.
type Info struct {
	Config *Config // with every default filled in
	Method string  // the game's solver, "" with Uniform
}

// Round is the record of one round: the payoff game of the particles as
// they were at its start and its solution, which weights the gradient
// steps that follow. The record and its slices are reused: copy what you
// keep.
type Round struct {
	// Round counts from 1.
	Round int
	// Payoff is M (K×J, row-major): M_kj = E f_r(D_j(x)) − E f_f(D_j(G_k(z)))
	// on the round's minibatch.
	Payoff []float64
	// P and Q are the weights solved for: P minimizes and Q maximizes
	// pᵀMq.
	P, Q []float64
	// Gap is the certified duality gap of (P, Q) in M's units,
	// max_j (Mᵀp)_j − min_k (M q)_k, and RelGap = Gap / MaxAbs with MaxAbs
	// = max |M_kj|; ValueLower ≤ v* ≤ ValueUpper bracket the game's value.
	Gap, RelGap, MaxAbs    float64
	ValueLower, ValueUpper float64
	// Status, Iterations and MatrixPasses are those of the round's solve
	// (NotTerminated and zeros with Uniform).
	Status                   solver.Status
	Iterations, MatrixPasses int
	// Respawned counts the particles respawned after the round's steps,
	// Split the generators restarted by a split (see Config.SplitEvery).
	Respawned, Split int
	// PayoffTime, SolveTime and StepTime are the wall times of the round's
	// parts, Elapsed the time since the start of training.
	PayoffTime, SolveTime, StepTime, Elapsed time.Duration
}

// Recorder observes a training run, as a solver.Recorder observes a solve.
// Its methods are called from the training goroutine; an error stops the
// training and is returned by Train.
type Recorder interface {
	// Init is called once before the first round.
	Init(info *Info) error
	// Record is called after every round, and once more (with Round one
	// past the last) for the game of the final particles.
	Record(r *Round) error
}

// ErrInterrupted is matched by Train's error when its context ended the
// training early; the mixture trained so far is still returned.
var ErrInterrupted = errors.New("gan: training interrupted")

// Train trains a mixture of generators and discriminators on data by
// rounds (see the package documentation) and returns it, weighted by the
// average of the last rounds' solutions and of the final particles' game
// (see Config.Average). When ctx ends before the
// last round, Train returns the mixture trained so far, weighted likewise,
// with an error matching ErrInterrupted and ctx's error.
func Train(ctx context.Context, data *Dataset, cfg *Config) (*Mixture, error) {
	t, err := newTrainer(data, cfg)
	if err != nil {
		return nil, err
	}
	defer t.close()
	return t.train(ctx)
}

// PayoffEvaluator evaluates the payoff matrix of the particles (the
// interface of payoff.CPU and, in a cuda build, payoff.CUDA): M (K×J,
// row-major) for the generators' and discriminators' flat parameters, the
// real batch and the noise shared by every generator.
type PayoffEvaluator interface {
	Eval(m []float64, gens, discs [][]float64, real, z []float64) error
}

var _ PayoffEvaluator = (*payoff.CPU)(nil)

// newPayoff makes the run's payoff evaluator: c.Payoff's, or the CPU's.
func (c *Config) newPayoff(s payoff.Shape) (PayoffEvaluator, error) {
	if c.Payoff != nil {
		p, err := c.Payoff(s)
		if err != nil {
			return nil, fmt.Errorf("gan: the payoff evaluator: %w", err)
		}
		return p, nil
	}
	p, err := payoff.NewCPU(s, c.Threads)
	if err != nil {
		return nil, fmt.Errorf("gan: %w", err)
	}
	return p, nil
}

// trainer is the state of a training run.
type trainer struct {
	cfg       Config
	data      *Dataset
	mix       *Mixture
	rng       *rand.Rand
	pay       PayoffEvaluator
	gg        *genGraph
	dg        *discGraph
	gopt      []adam
	dopt      []adam
	ggrad     [][]float64
	dgrad     [][]float64
	gfwd      *stack
	gwork     work
	game      *solver.MatrixGame
	a         *tensor.Dense // −M, the game's payoff (rows maximize)
	res       solver.Result
	warm      []float64
	closeBE   func() error
	rec       Round
	light     [2][]int // rounds each particle's weight has stayed light
	real, z   []float64
	gen, disc Arch
	// The sums of the averaged rounds' weights.
	sumP, sumQ []float64
	averaged   int
	// split's state: each generator's weight averaged over recent rounds,
	// the round before which it may not take part in a split, and the
	// fakes of the round's last discriminator step.
	recentP  []float64
	frozen   []int
	fakes    []float64
	clusters twoMeans
}

func newTrainer(data *Dataset, cfg *Config) (*trainer, error) {
	t := &trainer{data: data}
	if cfg == nil {
		cfg = &Config{}
	}
	t.cfg = *cfg
	c := &t.cfg
	if c.Generators == 0 && c.Init == nil && data != nil {
		c.Generators = DefaultGenerators(data)
	}
	c.fill()
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := data.check(c.Batch); err != nil {
		return nil, err
	}
	k, j, b := c.Generators, c.Discriminators, c.Batch
	t.gen = Arch{In: c.NoiseDim, Hidden: c.Hidden, Out: data.Dim}
	t.disc = Arch{In: data.Dim, Hidden: c.Hidden, Out: 1}
	t.rng = rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	if c.Init != nil {
		if c.Init.Gen.Out != data.Dim {
			return nil, fmt.Errorf("%w: the mixture makes %d-D points, %s has %d-D ones", ErrData, c.Init.Gen.Out, data.Name, data.Dim)
		}
		t.mix = c.Init.clone()
	} else {
		t.mix = newMixture(t.gen, t.disc, k, j, c.Loss, t.rng)
		t.place()
	}
	if c.Method == nil {
		m, err := solver.NewMethod(DefaultMethod)
		if err != nil {
			return nil, fmt.Errorf("gan: %w", err)
		}
		c.Method = m
	}
	var err error
	if t.gg, err = newGenGraph(t.gen, t.disc, k, j, b, c.Loss); err != nil {
		return nil, err
	}
	if t.dg, err = newDiscGraph(t.disc, j, b, k*b, c.Loss); err != nil {
		return nil, err
	}
	if t.pay, err = c.newPayoff(payoff.Shape{Gen: payoff.Net(t.gen), Disc: payoff.Net(t.disc), K: k, J: j, Batch: b, Log: c.Loss == Log}); err != nil {
		return nil, err
	}
	t.gopt, t.dopt = make([]adam, k), make([]adam, j)
	t.ggrad, t.dgrad = zeros(k, t.gen.NumParams()), zeros(j, t.disc.NumParams())
	t.gfwd = newStack(t.gen, k)
	t.real, t.z = make([]float64, b*data.Dim), make([]float64, b*t.gen.In)
	t.rec.Payoff = make([]float64, k*j)
	t.rec.P, t.rec.Q = make([]float64, k), make([]float64, j)
	t.light = [2][]int{make([]int, k), make([]int, j)}
	t.recentP, t.frozen = uniform(k), make([]int, k)
	t.a = tensor.New(tensor.WithShape(k, j), tensor.Of(tensor.Float64))
	if t.game, err = solver.NewMatrixGame(t.a); err != nil {
		return nil, fmt.Errorf("gan: %w", err)
	}
	if err := c.Method.Uses(t.game); err != nil {
		return nil, fmt.Errorf("gan: %w", err)
	}
	be := c.Backend
	if be == nil {
		cpu := tensorops.NewCPU(c.Threads)
		be, t.closeBE = cpu, cpu.Close
	}
	if err := t.game.Place(be); err != nil {
		t.close()
		return nil, fmt.Errorf("gan: placing the game: %w", err)
	}
	return t, nil
}

func (t *trainer) close() {
	if t.game != nil {
		t.game.Close()
	}
	if c, ok := t.pay.(io.Closer); ok {
		c.Close()
	}
	if t.closeBE != nil {
		t.closeBE()
	}
}

func (t *trainer) train(ctx context.Context) (*Mixture, error) {
	c := &t.cfg
	if c.Recorder != nil {
		name := c.Method.Name()
		if c.Uniform {
			name = ""
		}
		if err := c.Recorder.Init(&Info{Config: c, Method: name}); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var stopped error
	for r := 1; r <= c.Rounds; r++ {
		if err := ctx.Err(); err != nil {
			stopped = err
			break
		}
		t.rec = Round{Round: r, Payoff: t.rec.Payoff, P: t.rec.P, Q: t.rec.Q}
		if err := t.solveRound(ctx); err != nil {
			return nil, err
		}
		if t.rec.Status == solver.Canceled {
			// The game of this round was cut short: its weights are not
			// certified to the target, and the particles stay as they
			// were.
			stopped = ctx.Err()
			break
		}
		copy(t.mix.P, t.rec.P)
		copy(t.mix.Q, t.rec.Q)
		if c.Average > 0 && float64(r) > (1-c.Average)*float64(c.Rounds) {
			t.addAverage()
		}
		t0 := time.Now()
		if err := t.steps(t.rate(r)); err != nil {
			return nil, err
		}
		t.rec.Respawned = t.respawn()
		t.rec.Split = t.split(r)
		t.rec.StepTime = time.Since(t0)
		t.rec.Elapsed = time.Since(start)
		if c.Recorder != nil {
			if err := c.Recorder.Record(&t.rec); err != nil {
				return nil, err
			}
		}
	}
	// Weight the final particles by the solution of their own game; it is
	// small, so it is solved even after an interruption.
	last := t.rec.Round + 1
	if stopped != nil {
		last = t.rec.Round
	}
	t.rec = Round{Round: last, Payoff: t.rec.Payoff, P: t.rec.P, Q: t.rec.Q}
	if err := t.solveRound(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	copy(t.mix.P, t.rec.P)
	copy(t.mix.Q, t.rec.Q)
	if c.Average > 0 {
		t.addAverage()
		for i := range t.mix.P {
			t.mix.P[i] = t.sumP[i] / float64(t.averaged)
		}
		for i := range t.mix.Q {
			t.mix.Q[i] = t.sumQ[i] / float64(t.averaged)
		}
	}
	t.mix.Explore = c.explore()
	t.rec.Elapsed = time.Since(start)
	if c.Recorder != nil {
		if err := c.Recorder.Record(&t.rec); err != nil {
			return nil, err
		}
	}
	if stopped != nil {
		return t.mix, fmt.Errorf("%w after %d rounds: %w", ErrInterrupted, last-1, stopped)
	}
	return t.mix, nil
}

// addAverage adds the round's weights to the running sums.
func (t *trainer) addAverage() {
	if t.sumP == nil {
		t.sumP, t.sumQ = make([]float64, len(t.rec.P)), make([]float64, len(t.rec.Q))
	}
	for i, v := range t.rec.P {
		t.sumP[i] += v
	}
	for i, v := range t.rec.Q {
		t.sumQ[i] += v
	}
	t.averaged++
}

// solveRound draws the round's minibatch, evaluates M and solves its game
// into t.rec.
func (t *trainer) solveRound(ctx context.Context) error {
	c := &t.cfg
	t0 := time.Now()
	t.data.Sample(t.real, t.rng)
	normals(t.z, t.rng)
	m := t.rec.Payoff
	if err := t.pay.Eval(m, t.mix.Generators, t.mix.Discriminators, t.real, t.z); err != nil {
		return fmt.Errorf("gan: round %d: evaluating the payoff matrix: %w", t.rec.Round, err)
	}
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gan: round %d: the payoff matrix is not finite (the networks diverged; try smaller rates)", t.rec.Round)
		}
	}
	t.rec.PayoffTime = time.Since(t0)
	t0 = time.Now()
	k, j := c.Generators, c.Discriminators
	if c.Uniform {
		copy(t.rec.P, uniform(k))
		copy(t.rec.Q, uniform(j))
		t.certify()
		t.rec.SolveTime = time.Since(t0)
		return nil
	}
	// The solver's row player maximizes: the generators, who minimize M,
	// play the game −M.
	a := t.a.Data().([]float64)
	for i, v := range m {
		a[i] = -v
	}
	if err := t.game.SetPayoff(t.a); err != nil {
		return fmt.Errorf("gan: %w", err)
	}
	s := solver.Settings{RelGap: c.RelGap, MaxIterations: c.MaxIterations, Init: t.warm}
	if err := solver.SolveInto(ctx, &t.res, t.game, &s, c.Method); err != nil {
		return fmt.Errorf("gan: round %d: solving the payoff game: %w", t.rec.Round, err)
	}
	t.warm = append(t.warm[:0], t.res.X...)
	copy(t.rec.P, t.res.Row)
	copy(t.rec.Q, t.res.Column)
	t.rec.Gap, t.rec.RelGap, t.rec.MaxAbs = t.res.Gap, t.res.RelGap, t.game.MaxAbs()
	t.rec.ValueLower, t.rec.ValueUpper = -t.res.ValueUpper, -t.res.ValueLower
	t.rec.Status, t.rec.Iterations, t.rec.MatrixPasses = t.res.Status, t.res.Iterations, t.res.MatrixPasses
	t.rec.SolveTime = time.Since(t0)
	return nil
}

// certify sets the gap and the value bracket of t.rec's weights from M.
func (t *trainer) certify() {
	m, p, q := t.rec.Payoff, t.rec.P, t.rec.Q
	k, j := len(p), len(q)
	lo, hi, maxAbs := math.Inf(1), math.Inf(-1), 0.0
	for a := range k {
		s := 0.0
		for b := range j {
			s += m[a*j+b] * q[b]
			maxAbs = max(maxAbs, math.Abs(m[a*j+b]))
		}
		lo = min(lo, s) // the generators' best reply to q
	}
	for b := range j {
		s := 0.0
		for a := range k {
			s += m[a*j+b] * p[a]
		}
		hi = max(hi, s) // the discriminators' best reply to p
	}
	t.rec.Gap, t.rec.MaxAbs, t.rec.ValueLower, t.rec.ValueUpper = hi-lo, maxAbs, lo, hi
	t.rec.RelGap = t.rec.Gap / maxAbs
}

func normals(v []float64, rng *rand.Rand) {
	for i := range v {
		v[i] = rng.NormFloat64()
	}
}

// steps moves every particle: the discriminators first, each against the
// P-mixture of generators, then the generators, each against the
// Q-mixture of the moved discriminators.
func (t *trainer) steps(scale float64) error {
	c := &t.cfg
	k, j, b := c.Generators, c.Discriminators, c.Batch
	d := t.data.Dim
	keep := 1 - c.explore() // the weight of p against the uniform mixture
	for range max(c.DiscSteps, 0) {
		t.data.Sample(data(t.dg.vals[t.dg.inputIndex(t.dg.x)]), t.rng)
		// Every generator's fakes of one batch of noise, by the batched
		// forward pass.
		normals(t.z, t.rng)
		t.gfwd.load(t.mix.Generators)
		t.gfwd.firstLayer(&t.gwork, t.z, b)
		y, w := data(t.dg.vals[t.dg.inputIndex(t.dg.y)]), data(t.dg.vals[t.dg.inputIndex(t.dg.w)])
		for i := range k {
			t.gfwd.rest(&t.gwork, i, b, y[i*b*d:(i+1)*b*d])
			for r := range b {
				w[i*b+r] = (keep*t.mix.P[i] + (1-keep)/float64(k)) / float64(b)
			}
		}
		for i := range j {
			t.dg.own[i].set(t.mix.Discriminators[i])
		}
		if _, err := t.dg.run(t.dgrad); err != nil {
			return err
		}
		for i, ph := range t.mix.Discriminators {
			t.dopt[i].step(ph, t.dgrad[i], scale*c.DiscRate, c.Beta1, c.Beta2)
			t.noise(ph, scale*c.DiscRate)
			if c.Loss == WGAN {
				for p := range ph {
					ph[p] = min(max(ph[p], -c.Clip), c.Clip)
				}
			}
		}
	}
	for range max(c.GenSteps, 0) {
		for i := range k {
			normals(data(t.gg.vals[t.gg.inputIndex(t.gg.z[i])]), t.rng)
			t.gg.own[i].set(t.mix.Generators[i])
		}
		for i := range j {
			t.gg.other[i].set(t.mix.Discriminators[i])
			t.gg.setScalar(t.gg.c[i], t.mix.Q[i]/float64(b))
		}
		if _, err := t.gg.run(t.ggrad); err != nil {
			return err
		}
		for i, th := range t.mix.Generators {
			t.gopt[i].step(th, t.ggrad[i], scale*c.GenRate, c.Beta1, c.Beta2)
			t.noise(th, scale*c.GenRate)
		}
	}
	return nil
}

// rate is the factor of both rates in round r: 1, then falling linearly
// to a tenth over the last Sharpen fraction of the rounds.
func (t *trainer) rate(r int) float64 {
	c := &t.cfg
	if c.Sharpen <= 0 {
		return 1
	}
	from := (1 - c.Sharpen) * float64(c.Rounds)
	if float64(r) <= from {
		return 1
	}
	return 1 - 0.9*(float64(r)-from)/(c.Sharpen*float64(c.Rounds))
}

// place moves the freshly drawn particles where they can learn fast (see
// Config.GenInit and DiscInit), from the mean and spread of a sample of the
// data.
func (t *trainer) place() {
	c, d := &t.cfg, t.data.Dim
	const n = 1024
	pts := make([]float64, n*d)
	t.data.Sample(pts, t.rng)
	mean, vr := make([]float64, d), make([]float64, d)
	for r := range n {
		for i := range d {
			mean[i] += pts[r*d+i] / n
		}
	}
	total := 0.0
	for r := range n {
		for i := range d {
			x := pts[r*d+i] - mean[i]
			vr[i] += x * x / n
			total += x * x / n
		}
	}
	if c.GenInit > 0 {
		l := t.gen.layers()[2]
		for _, th := range t.mix.Generators {
			for i := l.w; i < l.b; i++ {
				th[i] *= c.GenInit
			}
			for i := range d {
				th[l.b+i] = mean[i] + math.Sqrt(vr[i])*t.rng.NormFloat64()
			}
		}
	}
	if c.DiscInit > 0 && total > 0 {
		s := c.DiscInit / math.Sqrt(total/float64(d))
		l := t.disc.layers()[0]
		for _, ph := range t.mix.Discriminators {
			for i := l.w; i < l.b; i++ {
				ph[i] *= s
			}
			for u := range l.out {
				x := pts[t.rng.IntN(n)*d:]
				b := 0.0
				for i := range d {
					b -= x[i] * ph[l.w+i*l.out+u]
				}
				ph[l.b+u] = b
			}
		}
	}
}

// noise adds the Langevin noise of a step of the given rate.
func (t *trainer) noise(theta []float64, rate float64) {
	if t.cfg.Langevin == 0 {
		return
	}
	s := math.Sqrt(2 * rate * t.cfg.Langevin)
	for i := range theta {
		theta[i] += s * t.rng.NormFloat64()
	}
}

// respawn moves the particles whose weight has stayed light for
// RespawnAfter rounds to a perturbed copy of their side's heaviest, and
// returns how many it moved.
func (t *trainer) respawn() int {
	c := &t.cfg
	if c.RespawnAfter <= 0 || c.Uniform {
		return 0
	}
	n := 0
	sides := [2]struct {
		w   []float64
		ps  [][]float64
		opt []adam
	}{{t.mix.P, t.mix.Generators, t.gopt}, {t.mix.Q, t.mix.Discriminators, t.dopt}}
	for s, side := range sides {
		heavy := 0
		for i, w := range side.w {
			if w > side.w[heavy] {
				heavy = i
			}
		}
		for i, w := range side.w {
			if w >= c.RespawnBelow {
				t.light[s][i] = 0
				continue
			}
			t.light[s][i]++
			if t.light[s][i] < c.RespawnAfter {
				continue
			}
			for p := range side.ps[i] {
				side.ps[i][p] = side.ps[heavy][p] + c.RespawnNoise*t.rng.NormFloat64()
			}
			side.opt[i] = adam{}
			t.light[s][i] = 0
			n++
		}
	}
	return n
}

// adam is the state of Adam's moments for one particle.
type adam struct {
	m, v []float64
	t    int
}

// step moves theta against grad.
func (a *adam) step(theta, grad []float64, rate, beta1, beta2 float64) {
	if a.m == nil {
		a.m, a.v = make([]float64, len(theta)), make([]float64, len(theta))
	}
	a.t++
	c1 := 1 - math.Pow(beta1, float64(a.t))
	c2 := 1 - math.Pow(beta2, float64(a.t))
	for i, g := range grad {
		a.m[i] = beta1*a.m[i] + (1-beta1)*g
		a.v[i] = beta2*a.v[i] + (1-beta2)*g*g
		theta[i] -= rate * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + 1e-8)
	}
}

// zeros returns n zero vectors of length m.
func zeros(n, m int) [][]float64 {
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, m)
	}
	return v
}

// split restarts the generators that straddle two modes (see
// Config.SplitEvery) after round r and returns how many it restarted.
func (t *trainer) split(r int) int {
	c := &t.cfg
	const decay = 0.01 // recentP averages over about a hundred rounds
	for i, w := range t.mix.P {
		t.recentP[i] += decay * (w - t.recentP[i])
	}
	if c.SplitEvery <= 0 || c.Uniform || r%c.SplitEvery != 0 || float64(r) > 0.9*float64(c.Rounds) {
		return 0
	}
	k, b, d := c.Generators, c.Batch, t.data.Dim
	if k < 2 {
		return 0
	}
	t.fakes = grow(t.fakes, k*b*d)
	normals(t.z, t.rng)
	t.gfwd.load(t.mix.Generators)
	t.gfwd.firstLayer(&t.gwork, t.z, b)
	for i := range k {
		t.gfwd.rest(&t.gwork, i, b, t.fakes[i*b*d:(i+1)*b*d])
	}
	n := 0
	for i := range k {
		if t.frozen[i] > r {
			continue
		}
		a, bb, ok := t.clusters.straddles(t.fakes[i*b*d:(i+1)*b*d], b, d, c.SplitRatio)
		if !ok {
			continue
		}
		// The lightest other generator free to move takes the second
		// cluster.
		l := -1
		for j := range k {
			if j != i && t.frozen[j] <= r && (l < 0 || t.recentP[j] < t.recentP[l]) {
				l = j
			}
		}
		if l < 0 {
			break
		}
		t.blob(i, a)
		t.blob(l, bb)
		// Both start from the pair's combined weight, shared; neither
		// takes part in another split until the next check but one.
		w := (t.recentP[i] + t.recentP[l]) / 2
		t.recentP[i], t.recentP[l] = w, w
		t.frozen[i], t.frozen[l] = r+2*c.SplitEvery, r+2*c.SplitEvery
		n += 2
	}
	return n
}

// blob restarts generator i as a fresh draw whose output is a small blob
// at centre (as place does at the start) with a fresh Adam state.
func (t *trainer) blob(i int, centre []float64) {
	th := t.mix.Generators[i]
	t.gen.initParams(th, t.rng)
	l := t.gen.layers()[2]
	if g := t.cfg.GenInit; g > 0 {
		for p := l.w; p < l.b; p++ {
			th[p] *= g
		}
	}
	copy(th[l.b:l.b+len(centre)], centre)
	t.gopt[i] = adam{}
}

// twoMeans clusters points in two by Lloyd's iterations; its buffers are
// kept between calls.
type twoMeans struct {
	c      [2][]float64
	side   []int8
	counts [2]int
}

// straddles clusters the n points x (n×d, row-major) in two and reports
// their centres and whether they lie more than ratio root-mean-square
// within-cluster distances apart with at least an eighth of the points on
// each side. The centres are the clusterer's buffers, valid until its
// next call.
func (m *twoMeans) straddles(x []float64, n, d int, ratio float64) (a, b []float64, ok bool) {
	for s := range m.c {
		m.c[s] = grow(m.c[s], d)
	}
	if cap(m.side) < n {
		m.side = make([]int8, n)
	}
	m.side = m.side[:n]
	pt := func(i int) []float64 { return x[i*d : (i+1)*d] }
	// Start from the point farthest from the mean and the point farthest
	// from it: deterministic, and on a straddling generator one in each
	// cluster.
	mean := m.c[1]
	clear(mean)
	for i := range n {
		for e, v := range pt(i) {
			mean[e] += v / float64(n)
		}
	}
	far := func(from []float64) int {
		best, bi := -1.0, 0
		for i := range n {
			if v := sqdist(pt(i), from); v > best {
				best, bi = v, i
			}
		}
		return bi
	}
	copy(m.c[0], pt(far(mean)))
	copy(m.c[1], pt(far(m.c[0])))
	var within float64
	for range 10 {
		m.counts = [2]int{}
		within = 0
		for i := range n {
			p := pt(i)
			d0, d1 := sqdist(p, m.c[0]), sqdist(p, m.c[1])
			s := int8(0)
			if d1 < d0 {
				s, d0 = 1, d1
			}
			m.side[i] = s
			m.counts[s]++
			within += d0
		}
		if m.counts[0] == 0 || m.counts[1] == 0 {
			return nil, nil, false
		}
		for s := range m.c {
			clear(m.c[s])
		}
		for i := range n {
			s := m.side[i]
			for e, v := range pt(i) {
				m.c[s][e] += v / float64(m.counts[s])
			}
		}
	}
	sep := sqdist(m.c[0], m.c[1])
	ok = 8*min(m.counts[0], m.counts[1]) >= n && sep > ratio*ratio*within/float64(n)
	return m.c[0], m.c[1], ok
}

// grow returns s resliced to n, or a new slice if s is too short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
