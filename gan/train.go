package gan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

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
	gr        *graphs  // with Config.Graphs
	op        *batched // without
	zk        [][]float64
	wk, cj    []float64
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
	gmeans   []float64 // the generators' mean points at a split check
	crowd    []float64 // each generator's squared distance to the nearest other's mean
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
	if c.Graphs {
		if t.gr, err = newGraphs(t.gen, t.disc, k, j, b, c.Loss); err != nil {
			return nil, err
		}
	} else {
		ops := c.Layers
		if ops == nil {
			ops = NewCPULayers()
		}
		t.op = newBatched(ops, t.gen, t.disc, k, j, b, c.Loss)
		t.zk, t.wk, t.cj = zeros(k, b*t.gen.In), make([]float64, k), make([]float64, j)
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
	if t.op != nil {
		return t.batchedSteps(scale)
	}
	return t.graphSteps(scale)
}

// discSteps moves the discriminators by their gradients in t.dgrad.
func (t *trainer) discSteps(scale float64) {
	c := &t.cfg
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

// genSteps moves the generators by their gradients in t.ggrad.
func (t *trainer) genSteps(scale float64) {
	c := &t.cfg
	for i, th := range t.mix.Generators {
		t.gopt[i].step(th, t.ggrad[i], scale*c.GenRate, c.Beta1, c.Beta2)
		t.noise(th, scale*c.GenRate)
	}
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

// zeros returns n zero vectors of length m.
func zeros(n, m int) [][]float64 {
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, m)
	}
	return v
}

// grow returns s resliced to n, or a new slice if s is too short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
