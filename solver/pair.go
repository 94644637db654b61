package solver

import (
	"fmt"

	"github.com/gpump/gpump/tensorops"
)

// pairEngine is what the matrix-game methods other than mirror-prox share:
// the current strategies z (f holds F at them), the running averages of the
// strategies and of F, and the certification of both every iteration. Each
// method's engine embeds it and supplies its update.
type pairEngine struct {
	gameBase
	t          tracker
	z          [2]tensorops.Point
	f          [2]tensorops.Vector
	avgX, avgF [2]tensorops.Vector
	avg        averager
	kind       Averaging
	policy     *Restart
}

func newPairEngine(pl *placement, s tensorops.Setup) (pairEngine, error) {
	b, err := pl.newBase(s)
	if err != nil {
		return pairEngine{}, err
	}
	e := pairEngine{gameBase: b}
	for k := range 2 {
		if e.z[k], err = b.point(k, s); err != nil {
			return e, err
		}
		for _, v := range []*tensorops.Vector{&e.f[k], &e.avgX[k], &e.avgF[k]} {
			if *v, err = b.vec(k); err != nil {
				return e, err
			}
		}
	}
	return e, nil
}

func (e *pairEngine) loop() *tracker          { return &e.t }
func (e *pairEngine) nextCost() int           { return 1 }
func (e *pairEngine) restartPolicy() *Restart { return e.policy }

// place sets z to the uniform pair, or to init (checked) when it is not
// nil, and evaluates F there. It returns the certificate of init when the
// entropic setup mixes it (see certifyInit).
func (e *pairEngine) place(init []float64) (c0 certificate, warm bool, err error) {
	if init != nil {
		if c0, warm, err = e.certifyInit(init); err != nil {
			return c0, warm, err
		}
	}
	mix := -1.0
	if init != nil {
		mix = startMix
	}
	return c0, warm, e.placeHost(mix)
}

// placeHost sets z to the uniform pair (mix < 0), or to the host buffer's
// pair mixed with a fraction mix of the uniform distribution, and evaluates
// F there.
func (e *pairEngine) placeHost(mix float64) error {
	if err := e.placeAt(e.z, mix); err != nil {
		return err
	}
	e.operator(e.f, e.z[0].Value, e.z[1].Value)
	return nil
}

// placeBest sets z to the best point, mixed as restarts are, and evaluates
// F there.
func (e *pairEngine) placeBest() error {
	if err := e.hostBest(); err != nil {
		return err
	}
	return e.placeHost(restartMix)
}

// first makes z the first point of a new average and certifies it.
func (e *pairEngine) first() (certificate, error) {
	e.avg.reset(e.kind)
	_, c, err := e.observe()
	return c, err
}

// observe averages the current pair, certifies it and the average.
func (e *pairEngine) observe() (avg, last certificate, err error) {
	for k := range 2 {
		e.ab[k] = e.block(k, e.z[k].Value, e.f[k], e.avgX[k], e.avgF[k])
	}
	w := e.avg.fraction(1)
	e.avg.add(1)
	if err := e.be.Average(e.gs[:], w, e.ab[:]); err != nil {
		return noCertificate, noCertificate, fmt.Errorf("solver: %w", err)
	}
	last, avg = e.certificates(&e.gs[0], &e.gs[1])
	return avg, last, nil
}

// keep copies block b of the average or of the current pair (the start
// point is both) into the best point.
func (e *pairEngine) keep(k PointKind, b int) {
	if k == StartPoint && e.warm {
		return // best holds the warm start
	}
	if k == LastPoint {
		e.be.Copy(e.best[b], e.z[b].Value)
	} else {
		e.be.Copy(e.best[b], e.avgX[b])
	}
}

func (e *pairEngine) finish(dst *Result, _ certificate) (certificate, error) {
	return e.gameBase.finish(dst)
}
