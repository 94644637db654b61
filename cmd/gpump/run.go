package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/internal/memlimit"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
)

// maxThreads bounds --threads: more workers than this only add overhead.
const maxThreads = 1024

// f32Rounding is the rounding of float32 storage (games.Float32Rounding).
const f32Rounding = games.Float32Rounding

// loaded is a payoff matrix ready to solve.
type loaded struct {
	a      *tensor.Dense
	source string // the file, or the generator spec
	format string // the file's format, "" for a generator
	// rounding is f32Rounding when float32 storage rounded a matrix
	// defined in float64 (a float64, wide-integer or text file, or a
	// generator, whose float32 matrix is its float64 one rounded), else 0.
	rounding float64
	known    *float64 // the game's value, when the generator knows it
	exp      int      // a stores the file's matrix times 2^exp (MatrixGame.SetStorageExponent)
	release  func() error
	mapped   bool            // --mmap
	changed  <-chan struct{} // closed when the mapped file is about to change
	watchErr error           // why the mapped file is not watched
	notes    []string        // what was assumed about the input, for the log
}

// load reads or generates the job's matrix; ctx stops the read.
func (j *job) load(ctx context.Context) (*loaded, error) {
	if j.gen != nil {
		return j.generate()
	}
	format, err := inputFormat(j.path, j.read.Format)
	if err != nil {
		return nil, err
	}
	l := &loaded{source: j.path, format: format, release: func() error { return nil }}
	dt := j.read.DType
	if dt == tensor.Float32 {
		l.rounding = f32Rounding // unless the file is known to be exact below
	}
	// A header read from a pipe could not be read again: the source has
	// one only for a regular file.
	if src := j.src; src != nil && src.Regular() && format == "npy" {
		info := src.NPY
		size := 8
		if dt == tensor.Float32 || dt.Type == nil && strings.HasSuffix(info.Descr, "f4") {
			size = 4
		}
		if !j.mmap {
			if err := memlimit.CheckSolve(info.Rows, info.Cols, size); err != nil {
				return nil, fmt.Errorf("%s: %w", j.path, err)
			}
		}
		if info.Exact32 {
			l.rounding = 0
		}
	}
	if j.mmap {
		mp, err := datasets.MapNPY(j.path)
		if errors.Is(err, datasets.ErrFormat) {
			return nil, fmt.Errorf("%w (without --mmap the file is read and converted)", err)
		}
		if err != nil {
			return nil, err
		}
		l.a, l.release, l.mapped = mp.Dense(), mp.Close, true
		if dt.Type != nil && l.a.Dtype() != dt {
			mp.Close()
			return nil, fmt.Errorf("%s: --mmap uses the file's own type, %s: drop --precision %s or --mmap", j.path, precisionName(l.a.Dtype()), precisionName(dt))
		}
		l.changed, l.watchErr = mp.Watch()
		l.rounding = 0
		return l, nil
	}
	opt := j.read
	opt.Format = format
	opt.Note = func(s string) { l.notes = append(l.notes, s) }
	if j.src != nil {
		l.a, l.exp, err = j.src.Read(ctx, &opt)
	} else {
		l.a, l.exp, err = datasets.ReadScaled(ctx, j.path, &opt)
	}
	if err != nil {
		return nil, rangeHint(j.path, err)
	}
	if l.exp != 0 {
		l.notes = append(l.notes, fmt.Sprintf("float32 cannot hold the file's entries as they are: stored times 2^%d, results in the file's units", l.exp))
	}
	return l, nil
}

// generate builds the job's generated matrix.
func (j *job) generate() (*loaded, error) {
	dt := j.read.DType
	l := &loaded{source: j.gen.String(), release: func() error { return nil }}
	size := 8
	if dt == tensor.Float32 {
		size, l.rounding = 4, f32Rounding
	} else {
		dt = tensor.Float64
	}
	m, n := j.gen.M, j.gen.N
	if m == 0 {
		m = n
	}
	if err := memlimit.CheckSolve(m, n, size); err != nil {
		return nil, err
	}
	var err error
	if l.a, err = datasets.Generate(dt, *j.gen); err != nil {
		return nil, err
	}
	if v, ok := j.gen.Value(); ok {
		l.known = &v
	}
	return l, nil
}

// run loads the job's matrix and solves the game, reporting to rec (which
// may be nil) and log. A solve stopped by ctx returns its best point with
// status canceled, not an error.
func (j *job) run(ctx context.Context, rec solver.Recorder, log *slog.Logger) (*games.Report, *solver.Result, error) {
	t0 := time.Now()
	l, err := j.loadInterruptibly(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer l.release()
	load := time.Since(t0)
	m, n := l.a.Shape()[0], l.a.Shape()[1]
	bytes := float64(m) * float64(n) * float64(l.a.Dtype().Size())
	log.Info("loaded matrix", "source", l.source, "m", m, "n", n, "precision", precisionName(l.a.Dtype()),
		"seconds", round3(load.Seconds()), "MB/s", round3(bytes/1e6/load.Seconds()))
	for _, note := range l.notes {
		log.Log(ctx, levelNote, note)
	}
	if l.watchErr != nil {
		log.Warn("the mapped file is not protected: truncating it during the solve would crash this process", "reason", l.watchErr)
	}
	opt := &games.Options{Settings: j.s, Method: j.method, Sampled: j.sampled}
	opt.Settings.Recorder = rec
	if j.initPath != "" {
		w, err := games.ReadWarmStart(j.initPath)
		if err != nil {
			return nil, nil, fmt.Errorf("--init: %w", err)
		}
		if opt.Settings.Init, err = w.Pair(m, n); err != nil {
			return nil, nil, fmt.Errorf("--init: %w", err)
		}
	}
	backend, closeBackend, err := openDevice(j.device, j.threads)
	if err != nil {
		return nil, nil, err
	}
	defer closeBackend()
	opt.Backend = backend
	log.Info("solving", "algorithm", j.method.Name(), "device", backend.Name(), "threads", j.threads, "kernels", kernelsOf(backend), "target_relative_gap", opt.Settings.RelGap)
	g := &games.Game{A: l.a, Exp: l.exp, Source: l.source, Format: l.format, Rounding: l.rounding, KnownValue: l.known, Changed: l.changed}
	out, res, err := games.Solve(ctx, g, opt)
	if res != nil {
		log.Info("finished", "status", res.Status.String(), "gap", res.Gap, "relative_gap", res.RelGap,
			"iterations", res.Iterations, "seconds", round3(res.Runtime.Seconds()))
	}
	if out != nil {
		out.Source, out.LoadSeconds, out.Threads = games.DisplayName(l.source), load.Seconds(), j.threads
	}
	return out, res, err
}

// round3 keeps three decimals, for log lines.
func round3(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > 1e15 {
		return x
	}
	return float64(int64(x*1000+0.5)) / 1000
}

// rangeHint explains a *datasets.RangeError, which ReadScaled returns only
// for an input it cannot read twice, in the command's terms.
func rangeHint(path string, err error) error {
	var re *datasets.RangeError
	if !errors.As(err, &re) {
		return err
	}
	what := "below float32's normal range"
	if re.Overflow {
		what = "beyond float32's range"
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fmt.Errorf("%s: entries up to %g are %s even scaled by a power of two: use --precision f64", path, re.MaxAbs, what)
	}
	return fmt.Errorf("%s: entries up to %g are %s, and a pipe cannot be read a second time to scale them: use --precision f64, or a regular file", path, re.MaxAbs, what)
}
