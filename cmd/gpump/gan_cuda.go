//go:build cuda

package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// ganCommand in a cuda build only says why it is missing: gorgonia (the GAN
// games' networks and gradients) compiles its own CUDA engine under the
// build tag cuda, and that engine needs cuDNN, which gpump's CUDA path does
// not use and this project's builds do not have. The payoff matrix has a
// device evaluator (gan/payoff.NewCUDA, through the tensorops CUDA backend,
// passed as gan.Config.Payoff), which CI runs on a fake driver only; no GPU
// has run it, and a GPU run of gpump gan needs a cuda build where
// gorgonia's CUDA engine compiles (cuDNN installed). A CPU build has the
// command.
func ganCommand() *cli.Command {
	return &cli.Command{
		Name:  "gan",
		Usage: "not in cuda builds (gorgonia's CUDA engine needs cuDNN): use a CPU build",
		Action: func(*cli.Context) error {
			return errors.New("gpump gan is not in cuda builds: gorgonia compiles its own CUDA engine, which needs cuDNN, under the same build tag; build without -tags cuda (the payoff matrix's device evaluator, gan/payoff.NewCUDA, has run on CI's fake CUDA driver only, never on a GPU)")
		},
	}
}
