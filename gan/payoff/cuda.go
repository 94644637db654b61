//go:build cuda

package payoff

import (
	"fmt"

	"github.com/gpump/gpump/tensorops"
)

// CUDA evaluates the payoff matrix of a Shape on a device, through the
// tensorops CUDA backend's kernels (tensorops.CUDAPayoff): the same
// networks and losses as CPU, in float32 with float64 sums, equal to it
// within float32 rounding. CI runs it on a fake driver whose kernels a CPU
// emulator executes; no GPU has run it.
type CUDA struct {
	p *tensorops.CUDAPayoff
}

// NewCUDA allocates an evaluator of s on be's device. Close it to free the
// device memory; be stays open.
func NewCUDA(be *tensorops.CUDA, s Shape) (*CUDA, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Disc.Hidden != s.Gen.Hidden {
		return nil, fmt.Errorf("payoff: cuda: generators of %d hidden units and discriminators of %d (the device evaluator wants one width)", s.Gen.Hidden, s.Disc.Hidden)
	}
	p, err := be.NewPayoff(tensorops.PayoffShape{K: s.K, J: s.J, Batch: s.Batch,
		GenIn: s.Gen.In, Hidden: s.Gen.Hidden, Dim: s.Gen.Out, Log: s.Log})
	if err != nil {
		return nil, fmt.Errorf("payoff: %w", err)
	}
	return &CUDA{p: p}, nil
}

// Eval writes M as CPU.Eval does; it returns the device's error, if any.
func (c *CUDA) Eval(m []float64, gens, discs [][]float64, real, z []float64) error {
	return c.p.Eval(m, gens, discs, real, z)
}

// Close frees the evaluator's device memory.
func (c *CUDA) Close() error { return c.p.Free() }
