//go:build !cuda

package main

import (
	"github.com/gpump/gpump/gan"
	"github.com/gpump/gpump/gan/payoff"
	"github.com/gpump/gpump/tensorops"
)

// ganPayoff is gan.Config.Payoff for a backend: nil, the CPU's evaluator,
// in a build without CUDA.
func ganPayoff(tensorops.Backend) func(payoff.Shape) (gan.PayoffEvaluator, error) { return nil }

// ganLayers is gan.Config.Layers for a backend: nil, the CPU's layers, in a
// build without CUDA.
func ganLayers(tensorops.Backend) (gan.Layers, func() error) { return nil, nil }
