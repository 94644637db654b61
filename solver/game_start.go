package solver

import (
	"fmt"
	"math"

	"github.com/gpump/gpump/tensorops"
)

// Warm starts and restarts of the game engines: a start point is checked
// and normalized on the host, loaded onto the backend (mixed with the
// uniform distribution in the entropic setup) and, when mixed, certified
// as given.

// startCertificate is the certificate of a start: that of the warm start as
// given (c0) when certifyInit certified it, else that of the start point c.
func startCertificate(c0 certificate, warm bool, c certificate, err error) (certificate, error) {
	if warm {
		return c0, err
	}
	return c, err
}

// certifyInit checks the warm start init, writes it normalized to the host
// buffer and, in the entropic setup, where the method starts from it mixed
// with the uniform distribution, makes it the best point and certifies it
// with a pass, so that a solve never returns worse than its warm start
// (ok is then true).
func (b *gameBase) certifyInit(init []float64) (c certificate, ok bool, err error) {
	if err := b.initPair(init); err != nil {
		return noCertificate, false, err
	}
	if b.set[0].Setup != tensorops.Entropic && b.set[1].Setup != tensorops.Entropic {
		return noCertificate, false, nil
	}
	m := b.size[0]
	for k, x := range [2][]float64{b.host[:m], b.host[m:]} {
		if err := b.be.Load(b.best[k], x); err != nil {
			return noCertificate, false, fmt.Errorf("solver: %w", err)
		}
	}
	b.warm = true
	c, err = b.certifyPass(b.best)
	return c, err == nil, err
}

// initPair checks a warm start for the game and writes its normalized
// strategies into the host buffer.
func (b *gameBase) initPair(init []float64) error {
	m, n := b.size[0], b.size[1]
	if len(init) != m+n {
		return fmt.Errorf("solver: warm start of length %d for a %d×%d game (want %d = m + n)", len(init), m, n, m+n)
	}
	copy(b.host, init)
	for k, x := range [2][]float64{b.host[:m], b.host[m:]} {
		if err := b.pl.g.blocks[k].fix(x, player(k)); err != nil {
			return fmt.Errorf("solver: warm start: %w", err)
		}
	}
	return nil
}

func player(k int) string { return [2]string{"row", "column"}[k] }

// hostBest copies the best point into the host buffer, on its sets.
func (b *gameBase) hostBest() error {
	m := b.size[0]
	for k, x := range [2][]float64{b.host[:m], b.host[m:]} {
		if err := b.be.Store(x, b.best[k]); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		b.pl.g.blocks[k].clean(x)
	}
	return nil
}

// placeAt sets the pair z to argmin R (mix < 0), or to the host buffer's
// pair mixed with a fraction mix of the uniform distribution.
func (b *gameBase) placeAt(z [2]tensorops.Point, mix float64) error {
	for k := range 2 {
		if mix < 0 {
			b.be.Start(z[k], b.set[k])
		} else if err := b.loadPoint(z[k], k, b.set[k].Setup, mix); err != nil {
			return err
		}
	}
	return nil
}

// loadPoint loads block k of the host buffer into the point z of setup s.
// An entropic point is mixed with a fraction mix of the uniform
// distribution, so that no strategy starts at weight 0 (see startMix).
func (b *gameBase) loadPoint(z tensorops.Point, k int, s tensorops.Setup, mix float64) error {
	x := b.host[:b.size[0]]
	if k == 1 {
		x = b.host[b.size[0]:]
	}
	if s == tensorops.Entropic {
		u := mix / float64(len(x))
		for i, v := range x {
			x[i] = (1-mix)*v + u
		}
		normalize(x)
		if err := b.be.Load(z.Value, x); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		for i, v := range x {
			x[i] = math.Log(v)
		}
		if err := b.be.Load(z.State, x); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
		return nil
	}
	if err := b.be.Load(z.Value, x); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}

// startMix is the weight of the uniform distribution mixed into an
// entropic warm start. The certificate of the average at the new start's
// vertices grows with −log of their weights there, so a start that gives
// some strategies almost nothing slows the new average down; the tuning
// sweep of docs/methods.md (BenchmarkTuneWarmStart) found weights from 0.1 to 0.3 best and
// 1e-10 sometimes slower than a cold start.
var startMix = 0.25

// restartMix is startMix for a restart, which comes back to a point the run
// itself reached and needs only keep every weight positive; with 1e-2 or
// more, gap-based restarts kept undoing the run's progress
// (BenchmarkTuneWarmStart).
var restartMix = 1e-4
