//go:build cuda

package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// ganCommand in a cuda build only says why it is missing: gorgonia (the GAN
// games' networks) compiles its own CUDA engine under the build tag cuda,
// and that engine needs cuDNN, which gpump's CUDA path does not use. The
// networks run on the CPU in any case; a CPU build has the command.
func ganCommand() *cli.Command {
	return &cli.Command{
		Name:  "gan",
		Usage: "not in cuda builds (gorgonia's CUDA engine needs cuDNN): use a CPU build",
		Action: func(*cli.Context) error {
			return errors.New("gpump gan is not in cuda builds: gorgonia compiles its own CUDA engine, which needs cuDNN, under the same build tag; build without -tags cuda")
		},
	}
}
