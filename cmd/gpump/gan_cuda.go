//go:build cuda

package main

import (
	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/tensorops"
)

// ganPayoff is gan.Config.Payoff for a backend: on a CUDA backend, the
// device evaluator of every round's payoff matrix (payoff.NewCUDA, which
// has run on CI's fake driver only, never on a GPU); nil, the CPU's
// evaluator, on others.
func ganPayoff(be tensorops.Backend) func(payoff.Shape) (gan.PayoffEvaluator, error) {
	dev, ok := be.(*tensorops.CUDA)
	if !ok {
		return nil
	}
	return func(s payoff.Shape) (gan.PayoffEvaluator, error) { return payoff.NewCUDA(dev, s) }
}

// ganLayers is gan.Config.Layers for a backend: on a CUDA backend, the
// device's batched layers (every network's gradient, one launch per layer
// for all networks; run on CI's fake driver only), with the function that
// frees them; nil on others (the CPU's layers).
func ganLayers(be tensorops.Backend) (gan.Layers, func() error) {
	dev, ok := be.(*tensorops.CUDA)
	if !ok {
		return nil, nil
	}
	l := dev.NewLayers()
	return l, l.Free
}
