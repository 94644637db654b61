package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// OMWU is optimistic multiplicative weights (Rakhlin and Sridharan 2013;
// Daskalakis and Panageas 2019) on a matrix game: z_{t+1} ∝ z_t exp(−Eta (2
// g_t − g_{t−1})) for both players at once, g_t = F(z_t), one pass over A per
// iteration, in the entropic geometry. The result is the better certified
// of the average and the last iterate.
//
// A warm start (or a restart) sets z to the start point, mixed with the
// uniform distribution as for MirrorProx (1/4 of it for a warm start, 1e-4
// for a restart), with g_{t−1} = g_t.
type OMWU struct {
	// Eta is the step, in the problem's units; 0 means 1/max |A_ij|, the
	// classic step 1/L. Steps up to about D/G0 are often three times faster
	// on random games but lose the last iterate's convergence on some
	// games.
	Eta float64
	// Averaging chooses the weights of the average: Uniform (the default),
	// Linear or Quadratic.
	Averaging Averaging
	// Restart, when not nil, restarts the method on its schedule.
	Restart *Restart
}

// Name returns "omwu".
func (m *OMWU) Name() string { return "omwu" }

// Knobs lists eta, averaging and the restart policy.
func (m *OMWU) Knobs() []Knob {
	return append([]Knob{
		positiveKnob("eta", "step of omwu", "1/max|A_ij|", &m.Eta),
		averagingKnob(m.Name(), "uniform", &m.Averaging, Uniform, Linear, Quadratic),
	}, restartKnobs(&m.Restart)...)
}

// Uses accepts matrix games.
func (m *OMWU) Uses(p Problem) error {
	if !(m.Eta >= 0) || math.IsInf(m.Eta, 0) {
		return fmt.Errorf("solver: omwu needs a finite step ≥ 0, got %g", m.Eta)
	}
	return usesGame(m.Name(), p, m.Averaging, m.Restart)
}

func (m *OMWU) engine(p Problem, _ *Settings) (engine, error) {
	g := p.(*MatrixGame)
	e, pl, err := engineOf(g, func(pl *placement) **omwuEngine { return &pl.omwu }, func(pl *placement) (*omwuEngine, error) {
		e := &omwuEngine{}
		var err error
		if e.pairEngine, err = newPairEngine(pl, tensorops.Entropic); err != nil {
			return nil, err
		}
		return e, e.alloc()
	})
	if err != nil {
		return nil, err
	}
	e.policy, e.kind = m.Restart, m.Averaging
	if e.kind == DefaultAveraging {
		e.kind = Uniform
	}
	scale := g.storedMax * pl.stored
	if scale == 0 {
		scale = 1
	}
	e.eta = 1 / scale
	if m.Eta > 0 {
		e.eta = m.Eta / pl.unit
	}
	if !(e.eta > 0) || math.IsInf(e.eta, 0) {
		pl.release()
		return nil, fmt.Errorf("solver: omwu needs a finite step > 0, got %g", e.eta*pl.unit)
	}
	return e, nil
}

// omwuEngine is OMWU on a game's backend.
type omwuEngine struct {
	pairEngine
	eta     float64 // internal units
	prev, h [2]tensorops.Vector
	next    [2]tensorops.Point
}

func (e *omwuEngine) alloc() error {
	var err error
	for k := range 2 {
		if e.prev[k], err = e.vec(k); err != nil {
			return err
		}
		if e.h[k], err = e.vec(k); err != nil {
			return err
		}
		if e.next[k], err = e.point(k, tensorops.Entropic); err != nil {
			return err
		}
	}
	return nil
}

func (e *omwuEngine) start(init []float64) (certificate, error) {
	e.begin(e.avgX, e.avgF)
	c0, warm, err := e.place(init)
	if err != nil {
		return noCertificate, err
	}
	c, err := e.first()
	return startCertificate(c0, warm, c, err)
}

// first makes the current pair the start of a new average with g_{t−1} =
// g_t.
func (e *omwuEngine) first() (certificate, error) {
	for k := range 2 {
		e.be.Copy(e.prev[k], e.f[k])
	}
	return e.pairEngine.first()
}

func (e *omwuEngine) restart() error {
	if err := e.placeBest(); err != nil {
		return err
	}
	_, err := e.first()
	return err
}

// step is z_{t+1} = P_{z_t}(eta (2 g_t − g_{t−1})) in the entropic setup.
func (e *omwuEngine) step() (avg, last certificate, accepted bool, err error) {
	for k := range 2 {
		e.be.Axpby(e.h[k], 2, e.f[k], -1, e.prev[k])
		e.be.Copy(e.prev[k], e.f[k])
		e.be.Prox(e.next[k], e.z[k], e.h[k], e.eta, e.set[k])
	}
	e.z, e.next = e.next, e.z
	e.operator(e.f, e.z[0].Value, e.z[1].Value)
	avg, last, err = e.observe()
	return avg, last, err == nil, err
}

func (e *omwuEngine) work(st *Stats) {
	e.gameBase.work(st)
	st.Step = e.eta
}
