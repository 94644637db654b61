package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpump/gpump/internal/memlimit"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/internal/atomicfile"
)

func genCommand() *cli.Command {
	var help strings.Builder
	for _, name := range datasets.GeneratorNames {
		fmt.Fprintf(&help, "   %-11s %s\n", name, strings.ReplaceAll(datasets.GeneratorHelp(name), "\n", "\n               "))
	}
	o := &genCmdOptions{}
	flags := genFlags(nil, &o.g)[1:] // not --gen: the name is the argument
	flags = append(flags,
		&cli.StringFlag{Name: "precision", Destination: &o.precision, Value: "f64", Usage: "entry type: f64 or f32 (the float64 matrix rounded)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.output, Required: true, Usage: "the file to write, atomically: .npy, .npz, .csv or .tsv"},
		&cli.StringFlag{Name: "format", Destination: &o.write.Format, Usage: "npy, npz or csv", DefaultText: "from the extension"},
		&cli.StringFlag{Name: "key", Destination: &o.write.Key, Usage: "member name in an .npz archive", DefaultText: "arr_0"},
		&cli.BoolFlag{Name: "compress", Destination: &o.write.Compress, Usage: "deflate an .npz archive (numpy.savez_compressed)"},
		&cli.BoolFlag{Name: "big-endian", Destination: &o.write.BigEndian, Usage: ".npy/.npz: write big-endian data"},
		&cli.BoolFlag{Name: "fortran", Destination: &o.write.Fortran, Usage: ".npy/.npz: write column-major (Fortran-order) data"},
		&cli.BoolFlag{Name: "header", Destination: &o.write.Header, Usage: ".csv: write a header row c0,c1,..."},
		&cli.IntFlag{Name: "count", Destination: &o.count, Value: 1, Usage: "write this many games, seeds seed, seed+1, ..., as one 3-D .npy array (count, m, n) for gpump batch"},
	)
	flags = append(flags, logFlags(&o.logOptions, "no log line on stderr", true)...)
	return &cli.Command{
		Name:      "gen",
		Usage:     "write a generated payoff matrix to a file",
		ArgsUsage: "NAME[:key=value,...]",
		Description: `Generators (random ones are seeded and reproducible, whatever the number
of cores):

` + help.String() + `
Parameters come from the flags or after the name (police:n=400,layout=grid);
a parameter that does not apply to the generator is an error. The same
generators are available to solve and batch as --gen NAME.

Examples:
   gpump gen uniform --m 20000 --n 20000 --seed 7 -o uniform.npy
   gpump gen police --n 400 --layout grid --theta 0.5 -o police.npz --compress
   gpump gen nemirovski:n=1000,family=2,alpha=1 --precision f32 -o nem.npy
   gpump gen cyclic --n 5 -o rps.csv --header
   gpump gen uniform --m 64 --n 64 --count 4000 -o games.npy   # a batch`,
		Flags: flags,
		Action: func(c *cli.Context) error {
			o.given = givenFlags(c)
			return genAction(c, o)
		},
	}
}

// genCmdOptions are gpump gen's flags: the generator's, and the file's.
type genCmdOptions struct {
	logOptions
	g                 genOptions
	write             datasets.WriteOptions
	precision, output string
	count             int
	given             map[string]bool // the flags the command line gave
}

func genAction(c *cli.Context, o *genCmdOptions) error {
	log, err := o.logger(c.App.ErrWriter)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return errors.New("give one generator name (see gpump gen --help)")
	}
	spec, err := genSpec(c.Args().First(), &o.g, o.given)
	if err != nil {
		return err
	}
	dt, err := parsePrecision(o.precision, false)
	if err != nil {
		return err
	}
	path, opt := o.output, &o.write
	format := strings.ToLower(opt.Format)
	opt.Format = format
	switch {
	case path == "-" && format == "":
		return errors.New("-o - writes to standard output: give --format npy, npz or csv")
	case path == "-" && format != "csv" && isTerminal(c.App.Writer):
		return fmt.Errorf("-o - would write binary %s data to a terminal: redirect standard output to a file or a pipe", format)
	case format == "":
		if format, err = datasets.FormatOf(path); err != nil {
			return err
		}
	}
	switch {
	case format == "mtx":
		return errors.New("gen writes .npy, .npz or .csv files; Matrix Market is read only")
	case (opt.BigEndian || opt.Fortran) && format != "npy" && format != "npz":
		return fmt.Errorf("--big-endian and --fortran apply to .npy and .npz files, not %s", format)
	case opt.Header && format != "csv":
		return fmt.Errorf("--header applies to .csv files, not %s", format)
	case (opt.Key != "" || opt.Compress) && format != "npz":
		return fmt.Errorf("--key and --compress apply to .npz files, not %s", format)
	}
	m, n := spec.M, spec.N
	if m == 0 {
		m = n
	}
	count := o.count
	switch {
	case count < 1:
		return fmt.Errorf("--count must be at least 1, got %d", count)
	case o.given["count"] && format != "npy":
		return fmt.Errorf("--count writes a 3-D .npy array, not %s", format)
	case o.given["count"] && (opt.BigEndian || opt.Fortran):
		return errors.New("--count writes C-order little-endian data: --big-endian and --fortran do not apply")
	}
	if float64(m)*float64(n)*float64(count) > maxStackEntries {
		return fmt.Errorf("--count %d games of %d×%d is more than 2⁵⁰ entries", count, m, n)
	}
	if err := memlimit.Check(m*count, n, int(dt.Size())); err != nil {
		return err
	}
	// A path that cannot be written fails now, not after the work.
	if path != "-" {
		if err := atomicfile.Check(path); err != nil {
			return outputErr("--output", err)
		}
	}
	if o.given["count"] {
		return genStack(c, log, spec, dt, count, path)
	}
	a, err := interruptible(c.Context.Done(), "generating "+spec.String(), func() (*tensor.Dense, error) {
		return datasets.Generate(dt, spec)
	})
	if err != nil {
		return err
	}
	// The file is written atomically: stopped, it keeps its old content.
	if _, err := interruptible(c.Context.Done(), "writing "+path, func() (any, error) { return nil, writeGenerated(c.App.Writer, path, a, opt) }); err != nil {
		return err
	}
	attrs := []any{"file", path, "generator", spec.String(), "m", a.Shape()[0], "n", a.Shape()[1], "precision", precisionName(dt)}
	if v, ok := spec.Value(); ok {
		attrs = append(attrs, "value", v)
	}
	log.Info("wrote matrix", attrs...)
	return nil
}

// writeGenerated writes a to the file at path, or to stdout for "-", in the
// format of opt (which names it for "-").
func writeGenerated(stdout io.Writer, path string, a *tensor.Dense, opt *datasets.WriteOptions) error {
	if path != "-" {
		return datasets.Write(path, a, opt)
	}
	w := bufio.NewWriterSize(stdout, 1<<20)
	var err error
	switch opt.Format {
	case "npz":
		key := opt.Key
		if key == "" {
			key = "arr_0"
		}
		err = datasets.EncodeNPZ(w, []datasets.Array{{Name: key, T: a}}, opt)
	case "csv":
		err = datasets.EncodeCSV(w, a, opt)
	default:
		err = datasets.EncodeNPYOptions(w, a, opt)
	}
	if err == nil {
		err = w.Flush()
	}
	return err
}

// maxStackEntries bounds the entries of a generated batch, so that the
// products of its sizes stay exact in an int.
const maxStackEntries = 1 << 50

// genStack writes count games of spec, seeds spec.Seed, spec.Seed+1, ...,
// as one (count, m, n) array.
func genStack(c *cli.Context, log interface{ Info(string, ...any) }, spec datasets.GenSpec, dt tensor.Dtype, count int, path string) error {
	var out *tensor.Dense
	_, err := interruptible(c.Context.Done(), fmt.Sprintf("generating %d games of %s", count, spec), func() (any, error) {
		for k := range count {
			s := spec
			s.Seed = spec.Seed + uint64(k)
			a, err := datasets.Generate(dt, s)
			if err != nil {
				return nil, err
			}
			m, n := a.Shape()[0], a.Shape()[1]
			if out == nil {
				out = tensor.New(tensor.Of(dt), tensor.WithShape(count, m, n))
			}
			games.CopyGame(out, k, a, 0)
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	if _, err := interruptible(c.Context.Done(), "writing "+path, func() (any, error) {
		if path == "-" {
			w := bufio.NewWriterSize(c.App.Writer, 1<<20)
			if err := datasets.EncodeStack(w, out); err != nil {
				return nil, err
			}
			return nil, w.Flush()
		}
		return nil, datasets.WriteStack(path, out)
	}); err != nil {
		return err
	}
	sh := out.Shape()
	attrs := []any{"file", path, "generator", spec.String(), "count", sh[0], "m", sh[1], "n", sh[2], "precision", precisionName(dt)}
	if slices.Contains(datasets.GeneratorParams(spec.Name), "seed") {
		attrs = append(attrs, "seeds", fmt.Sprintf("%d..%d", spec.Seed, spec.Seed+uint64(count)-1))
	} else {
		attrs = append(attrs, "note", "the generator has no seed: the games are identical")
	}
	log.Info("wrote games", attrs...)
	return nil
}
