// Command gpump solves large two-player zero-sum matrix games (and, from Go,
// other monotone variational inequalities) with Geometry-Aware Universal
// Mirror-Prox and the baselines users compare it with.
//
// Exit status: 0 when the gap target was reached, 1 on an error (bad input,
// bad flags, a failing device), 2 when a limit (iterations, evaluations, time)
// stopped the solve first, 3 when it was interrupted (Ctrl-C). With 2 and 3 the
// result is still written.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Exit statuses; see the package comment.
const (
	exitOK       = 0
	exitError    = 1
	exitLimit    = 2
	exitCanceled = 3
)

// exitStatus is an error that carries a non-zero exit status without a
// message of its own (the result was already written).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args, os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status; errors are
// printed once, to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).RunContext(ctx, args)
	var st exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return int(st)
	default:
		fmt.Fprintf(stderr, "gpump: %v\n", err)
		return exitError
	}
}

// newApp builds the command line; tests run it in-process.
func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "gpump",
		Usage:     "equilibria of large zero-sum matrix games by geometry-aware universal mirror-prox",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			solveCommand(),
		},
		// Errors are printed by run, once; urfave/cli must not exit.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
	}
}
