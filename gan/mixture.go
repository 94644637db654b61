package gan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Mixture is a trained mixed strategy of each side: K generators with
// weights P and J discriminators with weights Q. Sampling from the model
// draws k from the generators' weights (P, or P mixed with uniform weight
// by Explore), then z ~ N(0, I), and returns G_k(z).
type Mixture struct {
	Loss           Loss
	Gen, Disc      Arch
	Generators     [][]float64 // K flat parameter vectors of Gen
	Discriminators [][]float64 // J flat parameter vectors of Disc
	P, Q           []float64
	// Explore is the share of uniform weight in the generators' mixture
	// that Sample draws from, (1−Explore)·P + Explore/K: the mixture the
	// discriminators were trained against when Config.Explore was set (0:
	// P alone).
	Explore float64
}

// newMixture draws K generators and J discriminators at random and gives
// them uniform weights.
func newMixture(gen, disc Arch, k, j int, loss Loss, rng *rand.Rand) *Mixture {
	m := &Mixture{Loss: loss, Gen: gen, Disc: disc, P: uniform(k), Q: uniform(j)}
	for range k {
		th := make([]float64, gen.NumParams())
		gen.initParams(th, rng)
		m.Generators = append(m.Generators, th)
	}
	for range j {
		ph := make([]float64, disc.NumParams())
		disc.initParams(ph, rng)
		m.Discriminators = append(m.Discriminators, ph)
	}
	return m
}

func uniform(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1 / float64(n)
	}
	return v
}

// Weights returns the generators' weights that Sample draws from,
// (1−Explore)·P + Explore/K, in new memory.
func (m *Mixture) Weights() []float64 {
	w := make([]float64, len(m.P))
	for i, p := range m.P {
		w[i] = (1-m.Explore)*p + m.Explore/float64(len(m.P))
	}
	return w
}

// Sample returns n points drawn from the generators' mixture (n×Out,
// row-major), from rng.
func (m *Mixture) Sample(n int, rng *rand.Rand) []float64 {
	x, _ := m.SampleLabeled(n, rng)
	return x
}

// SampleLabeled is Sample, also returning the generator that made each
// point.
func (m *Mixture) SampleLabeled(n int, rng *rand.Rand) ([]float64, []int) {
	d := m.Gen.Out
	out := make([]float64, n*d)
	label := make([]int, n)
	who := make([][]int, len(m.Generators))
	w := m.Weights()
	for i := range n {
		k := draw(w, rng)
		who[k] = append(who[k], i)
		label[i] = k
	}
	for k, rows := range who {
		if len(rows) == 0 {
			continue
		}
		z := make([]float64, len(rows)*m.Gen.In)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		x := make([]float64, len(rows)*d)
		m.Gen.forward(x, m.Generators[k], z, len(rows))
		for r, i := range rows {
			copy(out[i*d:(i+1)*d], x[r*d:(r+1)*d])
		}
	}
	return out, label
}

// draw returns an index drawn from the distribution p.
func draw(p []float64, rng *rand.Rand) int {
	u := rng.Float64()
	for k, w := range p {
		if u < w {
			return k
		}
		u -= w
	}
	// Rounding: the last index of positive weight.
	for k := len(p) - 1; k > 0; k-- {
		if p[k] > 0 {
			return k
		}
	}
	return 0
}

// mixtureJSON is the saved form of a Mixture.
type mixtureJSON struct {
	Loss           string      `json:"loss"`
	Generator      archJSON    `json:"generator"`
	Discriminator  archJSON    `json:"discriminator"`
	P              []float64   `json:"p"`
	Q              []float64   `json:"q"`
	Generators     [][]float64 `json:"generators"`
	Discriminators [][]float64 `json:"discriminators"`
	Explore        float64     `json:"explore,omitempty"`
}

type archJSON struct {
	In     int `json:"in"`
	Hidden int `json:"hidden"`
	Out    int `json:"out"`
}

// MarshalJSON writes the mixture as a JSON object: the loss, both
// architectures, the weights p and q, the explored share (when not 0), and
// every particle's flat parameters
// (layer after layer, each weight matrix row-major: see Arch).
func (m *Mixture) MarshalJSON() ([]byte, error) {
	return json.Marshal(mixtureJSON{
		Loss:      m.Loss.String(),
		Generator: archJSON(m.Gen), Discriminator: archJSON(m.Disc),
		P: m.P, Q: m.Q, Generators: m.Generators, Discriminators: m.Discriminators,
		Explore: m.Explore,
	})
}

// UnmarshalJSON reads a mixture written by MarshalJSON and checks it.
func (m *Mixture) UnmarshalJSON(b []byte) error {
	var v mixtureJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("gan: reading a mixture: %w", err)
	}
	loss, err := ParseLoss(v.Loss)
	if err != nil {
		return err
	}
	mm := Mixture{Loss: loss, Gen: Arch(v.Generator), Disc: Arch(v.Discriminator), P: v.P, Q: v.Q, Generators: v.Generators, Discriminators: v.Discriminators, Explore: v.Explore}
	if err := mm.check(); err != nil {
		return err
	}
	*m = mm
	return nil
}

// Save writes the mixture to w as JSON.
func (m *Mixture) Save(w io.Writer) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return fmt.Errorf("gan: saving a mixture: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("gan: saving a mixture: %w", err)
	}
	return nil
}

// Load reads a mixture saved by Save.
func Load(r io.Reader) (*Mixture, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("gan: reading a mixture: %w", err)
	}
	m := new(Mixture)
	if err := m.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return m, nil
}

// check reports whether m is a usable mixture: positive sizes, parameters
// of the architectures' lengths, finite, and weights on the simplex.
func (m *Mixture) check() error {
	for _, a := range []Arch{m.Gen, m.Disc} {
		if a.In < 1 || a.Hidden < 1 || a.Out < 1 {
			return fmt.Errorf("gan: mixture: architecture %+v has an empty layer", a)
		}
	}
	if m.Disc.Out != 1 || m.Disc.In != m.Gen.Out {
		return fmt.Errorf("gan: mixture: a discriminator %+v does not score a generator %+v's points", m.Disc, m.Gen)
	}
	side := func(name string, ps [][]float64, w []float64, a Arch) error {
		if len(ps) == 0 || len(ps) != len(w) {
			return fmt.Errorf("gan: mixture: %d %s with %d weights", len(ps), name, len(w))
		}
		sum := 0.0
		for i, p := range ps {
			if len(p) != a.NumParams() {
				return fmt.Errorf("gan: mixture: %s %d has %d parameters, want %d", name, i, len(p), a.NumParams())
			}
			for _, x := range p {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("gan: mixture: %s %d has a non-finite parameter", name, i)
				}
			}
			if !(w[i] >= 0) || w[i] > 1 {
				return fmt.Errorf("gan: mixture: weight %v of %s %d", w[i], name, i)
			}
			sum += w[i]
		}
		if math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("gan: mixture: the weights of the %s sum to %v", name, sum)
		}
		return nil
	}
	if !(m.Explore >= 0 && m.Explore <= 1) {
		return fmt.Errorf("gan: mixture: explored share %v outside [0, 1]", m.Explore)
	}
	if err := side("generators", m.Generators, m.P, m.Gen); err != nil {
		return err
	}
	return side("discriminators", m.Discriminators, m.Q, m.Disc)
}

// clone returns a deep copy of m.
func (m *Mixture) clone() *Mixture {
	c := *m
	c.P, c.Q = append([]float64(nil), m.P...), append([]float64(nil), m.Q...)
	c.Generators, c.Discriminators = nil, nil
	for _, th := range m.Generators {
		c.Generators = append(c.Generators, append([]float64(nil), th...))
	}
	for _, ph := range m.Discriminators {
		c.Discriminators = append(c.Discriminators, append([]float64(nil), ph...))
	}
	return &c
}
