package gan

import (
	"fmt"
	"math"
	"runtime"

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
	// restarts that generator and a spare one as fresh blobs, one on each
	// cluster's centre (see GenInit). The spare is the lighter (by the
	// weight averaged over recent rounds) of the two other generators
	// whose mean points lie nearest each other, that is one sharing its
	// mode: the lightest generator is often the only one on the data's
	// lightest mode. Checks stop once 90% of the rounds have run,
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
	// Layers runs the batched operator, the forward and backward passes
	// of every particle's network that make the gradient steps (default
	// NewCPULayers, the float32 kernels of the payoff matrix; in a build
	// with the tag cuda, a tensorops.CUDA backend's NewLayers runs them
	// on its device). A Layers with an Err method (a device's) is checked
	// after each side's gradients, and its error ends the training. Graphs
	// computes the gradients with gorgonia's graphs instead, in float64:
	// the reference the batched operator is tested against, several
	// times slower (docs/gan-operator.md); it ignores Layers.
	Layers Layers
	Graphs bool

	// Seed seeds every draw: same seed, same configuration, same result,
	// on the same kernels. The payoff matrix and the batched gradients are
	// float32 and their rounding depends on the kernel set (AVX-512, AVX2
	// or portable Go: GPUMP_KERNELS), and a training run amplifies any
	// difference: ring8's seed 4 covered 7 modes after 300 rounds on
	// AVX-512 and 5 on AVX2 (by the graphs' gradients).
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
