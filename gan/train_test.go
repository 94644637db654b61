package gan

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/solver"
)

// small is a configuration that trains in a fraction of a second.
func small(seed uint64) *Config {
	return &Config{Generators: 3, Discriminators: 2, Rounds: 6, Batch: 32, Hidden: 8, Seed: seed, Threads: 1}
}

// roundCheck checks every round's record against its own payoff matrix.
type roundCheck struct {
	t      *testing.T
	target float64
	rounds int
	stopAt int
	cancel func()
}

func (c *roundCheck) Init(info *Info) error {
	if info.Config.Generators < 1 || info.Method == "" {
		c.t.Errorf("Init: %+v", info)
	}
	return nil
}

// Record recomputes the gap of (P, Q) from M: the discriminators' best
// reply to P minus the generators' best reply to Q.
func (c *roundCheck) Record(r *Round) error {
	c.rounds++
	k, j := len(r.P), len(r.Q)
	lo, hi, maxAbs := math.Inf(1), math.Inf(-1), 0.0
	for a := range k {
		s := 0.0
		for b := range j {
			s += r.Payoff[a*j+b] * r.Q[b]
			maxAbs = max(maxAbs, math.Abs(r.Payoff[a*j+b]))
		}
		lo = min(lo, s)
	}
	for b := range j {
		s := 0.0
		for a := range k {
			s += r.Payoff[a*j+b] * r.P[a]
		}
		hi = max(hi, s)
	}
	if d := math.Abs(hi - lo - r.Gap); d > 1e-12*maxAbs {
		c.t.Errorf("round %d: recorded gap %.17g, recomputed %.17g", r.Round, r.Gap, hi-lo)
	}
	if math.Abs(maxAbs-r.MaxAbs) > 0 || r.RelGap > c.target || math.Abs(r.ValueLower-lo) > 1e-12*maxAbs || math.Abs(r.ValueUpper-hi) > 1e-12*maxAbs {
		c.t.Errorf("round %d: max|M| %g (recomputed %g), relative gap %g (target %g), value in [%g, %g] (recomputed [%g, %g])", r.Round, r.MaxAbs, maxAbs, r.RelGap, c.target, r.ValueLower, r.ValueUpper, lo, hi)
	}
	if c.stopAt > 0 && r.Round == c.stopAt {
		c.cancel()
	}
	return nil
}

// TestRoundsCertified: each round's recorded gap is the certified duality
// gap of its weights in its own payoff matrix, within the target; the
// last record is the final particles' game, whose weights the mixture
// carries.
func TestRoundsCertified(t *testing.T) {
	for _, algo := range []string{"", "rm+"} {
		cfg := small(1)
		rc := &roundCheck{t: t, target: 1e-3}
		cfg.Recorder = rc
		if algo != "" {
			cfg.Method = mustMethod(t, algo)
		}
		m, err := Train(context.Background(), Ring8(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rc.rounds != cfg.Rounds+1 {
			t.Errorf("%d records for %d rounds", rc.rounds, cfg.Rounds)
		}
		if err := m.check(); err != nil {
			t.Error(err)
		}
	}
}

// TestRigged: when one generator's distribution is the data's, the
// WGAN discriminators (frozen, in pairs D and −D) find every other
// generator out, and the game puts nearly all of p on it.
func TestRigged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gen, disc := Arch{In: 2, Hidden: 8, Out: 2}, Arch{In: 2, Hidden: 8, Out: 1}
	m := newMixture(gen, disc, 4, 6, WGAN, rng)
	for j := 1; j < 6; j += 2 {
		// The output layer negated: D_j = −D_{j−1}.
		copy(m.Discriminators[j], m.Discriminators[j-1])
		for i := disc.layers()[2].w; i < len(m.Discriminators[j]); i++ {
			m.Discriminators[j][i] = -m.Discriminators[j][i]
		}
	}
	// Random networks all map the noise near the origin: the other
	// generators are moved away, by 0.3, 0.6 and 0.9 along the first axis.
	for k := 1; k < 4; k++ {
		m.Generators[k][gen.layers()[2].b] += 0.3 * float64(k)
	}
	solo := m.clone()
	solo.Generators, solo.P = solo.Generators[:1], []float64{1}
	pts := solo.Sample(50000, rng)
	data, err := FromPoints("generator 0", tensor.New(tensor.WithShape(50000, 2), tensor.WithBacking(pts)))
	if err != nil {
		t.Fatal(err)
	}
	// Under WGAN, M_kj = E D_j(x) − E D_j(G_k(z)) is about 0 for k = 0,
	// and for every other k of both signs across a pair: any weight off
	// generator 0 gives the discriminators a positive payoff.
	cfg := &Config{Init: m, Rounds: 3, Batch: 4096, GenSteps: -1, DiscSteps: -1, Seed: 7, Threads: 1}
	got, err := Train(context.Background(), data, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got.P[0] < 0.95 {
		t.Errorf("p = %.3g, want p_0 >= 0.95", got.P)
	}
}

func mustMethod(t *testing.T, name string) solver.Method {
	t.Helper()
	m, err := solver.NewMethod(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeterministic: one seed gives the same mixture bit for bit, another
// seed another one.
func TestDeterministic(t *testing.T) {
	a, err := Train(context.Background(), Grid25(), small(3))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), Grid25(), small(3))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs with seed 3 differ")
	}
	c, err := Train(context.Background(), Grid25(), small(4))
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Generators, c.Generators) {
		t.Error("seeds 3 and 4 gave the same generators")
	}
}

// TestInterrupt: a context canceled during training returns the mixture
// trained so far, weighted by its own game, with ErrInterrupted.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := small(1)
	rc := &roundCheck{t: t, target: 1e-3, stopAt: 3, cancel: cancel}
	cfg.Recorder = rc
	m, err := Train(ctx, Ring8(), cfg)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || m == nil {
		t.Fatalf("mixture %v, error %v", m != nil, err)
	}
	if rc.rounds != 4 {
		t.Errorf("%d records, want 3 rounds and the final game", rc.rounds)
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
}

// TestSaveLoad: a saved mixture loads back equal and samples the same
// points; damaged ones are refused.
func TestSaveLoad(t *testing.T) {
	m, err := Train(context.Background(), Ring8(), small(2))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	l, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, l) {
		t.Error("the loaded mixture differs")
	}
	x, y := m.Sample(100, rand.New(rand.NewPCG(1, 1))), l.Sample(100, rand.New(rand.NewPCG(1, 1)))
	if !reflect.DeepEqual(x, y) {
		t.Error("the loaded mixture samples other points")
	}
	for name, bad := range map[string]string{
		"truncated":   saved[:len(saved)/2],
		"loss":        replace(saved, `"loss":"log"`, `"loss":"hinge"`),
		"weights":     replace(saved, `"q":[`, `"q":[0.5,`),
		"width":       replace(saved, `"hidden":8`, `"hidden":9`),
		"empty layer": replace(saved, `"in":2`, `"in":0`),
		"explore":     replace(saved, `"explore":0.5`, `"explore":1.5`),
	} {
		if _, err := Load(bytes.NewBufferString(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestExploredMixture: with Config.Explore the returned mixture keeps the
// game's P and samples from (1−Explore)·P + Explore/K, the mixture the
// discriminators trained against (TestSaveLoad carries it through Save and
// Load, at the default share); with −1 it samples from P alone.
func TestExploredMixture(t *testing.T) {
	cfg := small(3)
	cfg.Explore = 0.5
	m, err := Train(context.Background(), Ring8(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Explore != 0.5 {
		t.Fatalf("Explore = %v, want 0.5", m.Explore)
	}
	w := m.Weights()
	for i, p := range m.P {
		if want := 0.5*p + 0.5/3; math.Abs(w[i]-want) > 1e-15 {
			t.Errorf("weight %d = %v, want %v", i, w[i], want)
		}
	}
	// Samples follow the explored weights, not P: with all of P on the
	// first generator, the others are drawn a sixth of the time each.
	pure := *m
	pure.P = []float64{1, 0, 0}
	w = pure.Weights()
	const n = 30000
	_, labels := pure.SampleLabeled(n, rand.New(rand.NewPCG(7, 7)))
	count := make([]float64, len(w))
	for _, k := range labels {
		count[k]++
	}
	for i := range w {
		// Five binomial standard deviations.
		if d := math.Abs(count[i]/n - w[i]); d > 5*math.Sqrt(w[i]*(1-w[i])/n) {
			t.Errorf("generator %d drawn %.4f of the time, weight %.4f", i, count[i]/n, w[i])
		}
	}
	none := small(3)
	none.Explore = -1
	plain, err := Train(context.Background(), Ring8(), none)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Explore != 0 || !reflect.DeepEqual(plain.Weights(), plain.P) {
		t.Errorf("without exploration: Explore %v, weights %v, P %v", plain.Explore, plain.Weights(), plain.P)
	}
}

func replace(s, old, new string) string {
	return string(bytes.Replace([]byte(s), []byte(old), []byte(new), 1))
}

// TestBadInput: bad configurations and data are errors before any work.
func TestBadInput(t *testing.T) {
	nan := tensor.New(tensor.WithShape(300, 2), tensor.WithBacking(make([]float64, 600)))
	nan.Data().([]float64)[7] = math.NaN()
	inf := tensor.New(tensor.WithShape(300, 2), tensor.WithBacking(make([]float64, 600)))
	inf.Data().([]float64)[0] = math.Inf(-1)
	for name, tt := range map[string]*tensor.Dense{
		"1-D": tensor.New(tensor.WithShape(600), tensor.WithBacking(make([]float64, 600))),
		"3-D": tensor.New(tensor.WithShape(10, 30, 2), tensor.WithBacking(make([]float64, 600))),
		"NaN": nan, "Inf": inf,
	} {
		if _, err := FromPoints(name, tt); !errors.Is(err, ErrData) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	few, err := FromPoints("few", tensor.New(tensor.WithShape(31, 2), tensor.WithBacking(make([]float64, 62))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), few, small(1)); !errors.Is(err, ErrData) {
		t.Errorf("31 points for a batch of 32: error %v", err)
	}
	for name, mod := range map[string]func(*Config){
		"K=0":     func(c *Config) { c.Generators = -1 },
		"J=0":     func(c *Config) { c.Discriminators = -2 },
		"loss":    func(c *Config) { c.Loss = 7 },
		"rate":    func(c *Config) { c.GenRate = math.NaN() },
		"beta":    func(c *Config) { c.Beta2 = 1 },
		"steps":   func(c *Config) { c.GenSteps = -2 },
		"respawn": func(c *Config) { c.RespawnBelow = 1 },
	} {
		cfg := small(1)
		mod(cfg)
		if _, err := Train(context.Background(), Ring8(), cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ParseLoss("hinge"); err == nil {
		t.Error("loss hinge: no error")
	}
}

// TestMetrics: the data's own points cover every mode with nearly all
// points of high quality and an MMD² near 0; points at one centre cover
// one mode; points away from every centre none.
func TestMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, d := range []*Dataset{Ring8(), Grid25()} {
		x := make([]float64, 10000*2)
		d.Sample(x, rng)
		m := Evaluate(d, x, rng)
		// Within 3 standard deviations in 2-D: 1 − e^{−9/2} ≈ 0.989.
		if m.ModesCovered != m.ModesTotal || math.Abs(m.HighQuality-0.989) > 0.005 || math.Abs(m.MMD2) > 2e-3 {
			t.Errorf("%s, its own points: %+v", d.Name, m)
		}
		for i := range 10000 {
			x[2*i], x[2*i+1] = d.Centers[1][0]+0.5*d.Std*rng.NormFloat64(), d.Centers[1][1]
		}
		if m := Evaluate(d, x, rng); m.ModesCovered != 1 || m.HighQuality != 1 || m.MMD2 < 0.1 {
			t.Errorf("%s, one mode: %+v", d.Name, m)
		}
		for i := range x {
			x[i] = 1
		}
		if m := Evaluate(d, x, rng); m.ModesCovered != 0 || m.HighQuality != 0 {
			t.Errorf("%s, no mode: %+v", d.Name, m)
		}
	}
	// A file's data: energy distance near 0 against itself, positive
	// against shifted points.
	pts := make([]float64, 3000*2)
	Ring8().Sample(pts, rng)
	d, err := FromPoints("ring", tensor.New(tensor.WithShape(3000, 2), tensor.WithBacking(pts)))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 3000*2)
	d.Sample(x, rng)
	same := Evaluate(d, x, rng)
	for i := range x {
		x[i] += 0.5
	}
	shifted := Evaluate(d, x, rng)
	if math.Abs(same.Energy) > 0.02 || shifted.Energy < 0.1 || shifted.MMD2 < 10*math.Abs(same.MMD2) || !math.IsNaN(same.HighQuality) {
		t.Errorf("file data: against itself %+v, shifted %+v", same, shifted)
	}
}

// TestRing8Modes: end to end, the mixed game with the default settings
// but a small budget of rounds covers at least 6 of ring8's 8 modes (with
// -short one seed, else three).
func TestRing8Modes(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		start := time.Now()
		m, err := Train(context.Background(), Ring8(), &Config{Rounds: 500, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		got := Evaluate(Ring8(), m.Sample(10000, rand.New(rand.NewPCG(seed, 1))), rand.New(rand.NewPCG(seed, 2)))
		t.Logf("seed %d: %d of 8 modes, high quality %.3f, MMD² %.3g, %v", seed, got.ModesCovered, got.HighQuality, got.MMD2, time.Since(start).Round(time.Millisecond))
		if got.ModesCovered < 6 {
			t.Errorf("seed %d: %d of 8 modes covered, want at least 6", seed, got.ModesCovered)
		}
	}
}

// countingPayoff is a payoff evaluator that counts its evaluations and
// its Close, around the CPU's.
type countingPayoff struct {
	cpu           *payoff.CPU
	evals, closes int
	shape         payoff.Shape
}

func (c *countingPayoff) Eval(m []float64, gens, discs [][]float64, real, z []float64) error {
	c.evals++
	return c.cpu.Eval(m, gens, discs, real, z)
}

func (c *countingPayoff) Close() error {
	c.closes++
	return nil
}

// TestConfigPayoff: a Config.Payoff evaluator gets the run's shape,
// evaluates every round's matrix (the same mixture as the default's) and
// is closed at the end, since it is an io.Closer; its error ends the run.
func TestConfigPayoff(t *testing.T) {
	var ev *countingPayoff
	cfg := small(5)
	cfg.Payoff = func(s payoff.Shape) (PayoffEvaluator, error) {
		cpu, err := payoff.NewCPU(s, 1)
		ev = &countingPayoff{cpu: cpu, shape: s}
		return ev, err
	}
	got, err := Train(context.Background(), Ring8(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Train(context.Background(), Ring8(), small(5))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the mixture differs from the default evaluator's")
	}
	s := ev.shape
	if s.K != 3 || s.J != 2 || s.Batch != 32 || s.Gen.Hidden != 8 || s.Disc.In != 2 || !s.Log {
		t.Errorf("the evaluator got the shape %+v", s)
	}
	if ev.evals < cfg.Rounds || ev.closes != 1 {
		t.Errorf("%d evaluations in %d rounds, %d closes", ev.evals, cfg.Rounds, ev.closes)
	}
	cfg.Payoff = func(payoff.Shape) (PayoffEvaluator, error) { return nil, errors.New("no device") }
	if _, err := Train(context.Background(), Ring8(), cfg); err == nil || !strings.Contains(err.Error(), "no device") {
		t.Errorf("a failing evaluator: %v", err)
	}
}
