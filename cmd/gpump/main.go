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
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/internal/atomicfile"
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

func init() {
	// --version prints the lines of gpump version, not only its number.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprint(c.App.Writer, versionText()) }
}

func main() {
	// The first Ctrl-C or SIGTERM stops the read of the matrix, or the
	// solve, which writes its best point so far; one during the writing of
	// the results stops it; the third kills the process.
	code := run(withSignals(context.Background()), os.Args, os.Stdout, os.Stderr)
	// A writer an interrupt abandoned must not leave its temporary file.
	atomicfile.AbortAll()
	finishMPI(code) // mpi.go
	os.Exit(code)
}

// run executes the command line and returns the exit status; errors are
// printed once, to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	app.Metadata = map[string]any{"args": args}
	err := checkArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, interspersed(app, args))
	}
	var st exitStatus
	var ie *interruptedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "gpump: %v\n", err)
		return exitCanceled
	default:
		fmt.Fprintf(stderr, "gpump: %v\n", err)
		return exitError
	}
}

// interspersed moves a subcommand's positional arguments after its flags:
// urfave/cli v2 stops parsing flags at the first positional argument, and
// "gpump solve payoff.npy --algo rm+" is how people write it. A flag's value
// is the next argument unless the flag is boolean or written --flag=value;
// "--" ends the flags.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			takesValue[name] = !isBool
		}
	}
	flags := []string{args[0], args[1]}
	var positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) == 0 {
		return flags
	}
	return append(append(flags, "--"), positional...)
}

// newApp builds the command line; tests run it in-process.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "gpump",
		Usage:     "equilibria of large zero-sum matrix games by geometry-aware universal mirror-prox",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			solveCommand(),
			ganCommand(),
			batchCommand(),
			genCommand(),
			verifyCommand(),
			benchCommand(),
			devicesCommand(),
			selftestCommand(),
			versionCommand(),
			helpCommand(),
		},
		// gpump --version (-v) prints what gpump version does.
		Version: appVersion(),
		// "gpump" alone shows the commands; "gpump slove" is an error
		// that names the nearest command.
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		// The flags were checked before (checkArgs): what is left is a
		// value missing at the end, or --help, which the app's own help
		// command hides from urfave/cli.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			if errors.Is(err, flag.ErrHelp) {
				return cli.ShowAppHelp(c)
			}
			return fmt.Errorf("%v (see gpump help)", err)
		},
		// Errors are printed by run, once; urfave/cli must not exit.
		ExitErrHandler: func(*cli.Context, error) {},
		// urfave/cli's own help command says "No help topic" for an
		// unknown name and suggests nothing; gpump has its own.
		HideHelpCommand: true,
	}
	for _, cmd := range app.Commands {
		withForce(cmd)
		// A flag value missing at the end is one line pointing at the
		// help, not the whole help page.
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return fmt.Errorf("%v (see gpump %s --help)", err, cmd.Name)
		}
	}
	return app
}

// checkArgs checks the flags of the command line (checkFlags): those of
// the command named, else the app's own.
func checkArgs(app *cli.App, args []string) error {
	if len(args) < 2 {
		return nil
	}
	for _, cmd := range app.Commands {
		if !cmd.HasName(args[1]) {
			continue
		}
		var fe *flagError
		if err := checkFlags(cmd.Flags, interspersed(app, args)[2:]); errors.As(err, &fe) {
			name := strings.TrimLeft(fe.typed, "-")
			if fe.why == "" && !strings.HasPrefix(fe.typed, "--") && strings.ContainsAny(name, "./") {
				return fmt.Errorf("unknown flag %s: a file whose name starts with a dash goes after --: gpump %s -- %s", fe.typed, cmd.Name, fe.typed)
			}
			return fmt.Errorf("%w (see gpump %s --help)", err, cmd.Name)
		}
		return nil
	}
	if err := checkFlags(append(app.Flags, cli.VersionFlag), args[1:]); err != nil {
		return fmt.Errorf("%w (see gpump help)", err)
	}
	return nil
}

// helpCommand is "gpump help [COMMAND]", as in git and gh: the list of
// commands, or a command's help (what gpump COMMAND --help prints).
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or the help of one (as gpump COMMAND --help)",
		ArgsUsage: "[COMMAND]",
		Description: `Examples:
   gpump help
   gpump help solve`,
		Action: func(c *cli.Context) error {
			switch c.NArg() {
			case 0:
				return cli.ShowAppHelp(c)
			case 1:
				name := c.Args().First()
				if c.App.Command(name) == nil {
					return unknownCommand(c.App, name)
				}
				// The app's context lists the commands; the help
				// command's own has none.
				return cli.ShowCommandHelp(c.Lineage()[1], name)
			}
			return fmt.Errorf("help takes one command, got %q", c.Args().Slice())
		},
	}
}

// unknownCommand is the error for a command name that app lacks, with the
// nearest names when one is close enough to be a typo: within two edits
// (a swap of neighbours counts one), and fewer than the name's length.
// A payoff file given without a command is told to use solve.
func unknownCommand(app *cli.App, name string) error {
	if _, err := datasets.FormatOf(name); err == nil {
		return fmt.Errorf("unknown command %q; to solve the game in a file: gpump solve %s", name, name)
	}
	best, near := 3, []string(nil)
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		d := editDistance(strings.ToLower(name), c.Name)
		if d >= len(c.Name) || d > best {
			continue
		}
		if d < best {
			best, near = d, near[:0]
		}
		near = append(near, strconv.Quote(c.Name))
	}
	if len(near) == 0 {
		return fmt.Errorf("unknown command %q (see gpump help)", name)
	}
	return fmt.Errorf("unknown command %q; did you mean %s?", name, strings.Join(near, " or "))
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours, in bytes.
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
