package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/gpump/gpump/games"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/solver/problems"
)

// problemFlags choose one of the solver's built-in problems of the paper's
// other settings instead of a matrix game.
func problemFlags(o *solveOptions) []cli.Flag {
	var names []string
	for _, p := range problems.All() {
		names = append(names, fmt.Sprintf("%s (%s, %s)", p.Name, p.Setting, p.SizeParam))
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "problem", Destination: &o.problem, Usage: "solve a built-in problem of one of the paper's settings instead of a game: " + strings.Join(names, "; ")},
		&cli.IntFlag{Name: "size", Destination: &o.size, Usage: "size of --problem", DefaultText: "the problem's"},
		// Without --algo a problem runs the paper's rule for its setting.
	}
}

// problemOutput is the JSON result of gpump solve --problem.
type problemOutput struct {
	Status              string    `json:"status"`
	Gap                 float64   `json:"gap"`
	RelativeGap         float64   `json:"relative_gap"`
	GapKind             string    `json:"gap_kind"`
	Objective           float64   `json:"objective"`
	KnownOptimum        float64   `json:"known_optimum"`
	Error               float64   `json:"error"`
	ErrorKind           string    `json:"error_kind"`
	Point               string    `json:"point"`
	Iterations          int       `json:"iterations"`
	OperatorEvaluations int       `json:"operator_evaluations"`
	Step                float64   `json:"step"`
	Seconds             float64   `json:"seconds"`
	Algorithm           string    `json:"algorithm"`
	Problem             string    `json:"problem"`
	Setting             string    `json:"setting"`
	PaperRule           string    `json:"paper_rule"`
	Summary             string    `json:"summary"`
	Source              string    `json:"source"`
	Size                int       `json:"size"`
	Dim                 int       `json:"dim"`
	TargetRelativeGap   float64   `json:"target_relative_gap"`
	TargetAbsoluteGap   float64   `json:"target_absolute_gap,omitempty"`
	Solution            []float64 `json:"solution"`
}

// checkProblemFlags refuses the flags that describe a matrix game.
func checkProblemFlags(o *solveOptions, args []string) error {
	if len(args) > 0 {
		return errors.New("give a payoff file or --problem, not both")
	}
	// A problem runs in Go on the host, one thread, with the exact
	// operator: the flags of the matrix reader, the generators (but
	// --seed, which seeds a random problem), the game's backend and the
	// sampled oracle would be ignored, so they are refused.
	gameOnly := []string{"gen", "format", "key", "mmap", "precision", "setup", "strategies",
		"threads", "oracle", "batch", "gap-every", "oracle-seed", "sample-transposed"}
	for _, name := range append(gameOnly, genKeys...) {
		if o.own[name] && name != "seed" {
			return fmt.Errorf("--%s applies to matrix games, not to --problem", name)
		}
	}
	if o.device != "cpu" {
		return errors.New("--problem runs in Go on the CPU: leave --device at cpu")
	}
	if o.size < 0 {
		return fmt.Errorf("--size must be >= 0, got %d", o.size)
	}
	return nil
}

// runProblem solves a built-in problem.
func runProblem(ctx context.Context, o *solveOptions, j *job, rec solver.Recorder, log *slog.Logger) (*problemOutput, solver.Status, error) {
	seed := uint64(1)
	if o.given["seed"] {
		seed = o.g.seed
	}
	prob, info, err := problems.New(o.problem, o.size, seed)
	if err != nil {
		return nil, 0, err
	}
	// Without --algo, the rule the paper prescribes for the setting.
	if !o.given["algo"] {
		if j.method, err = configureMethod(o.jobOptions, info.Rule); err != nil {
			return nil, 0, err
		}
	}
	if err := j.method.Uses(prob); err != nil {
		return nil, 0, fmt.Errorf("--problem: %w", err)
	}
	s := j.s
	s.Recorder = rec
	if j.initPath != "" {
		w, err := games.ReadWarmStart(j.initPath)
		if err != nil {
			return nil, 0, fmt.Errorf("--init: %w", err)
		}
		if s.Init, err = w.Point(prob.Dim()); err != nil {
			return nil, 0, fmt.Errorf("--init: %w", err)
		}
	}
	optimum, err := info.Optimum()
	if err != nil {
		return nil, 0, err
	}
	log.Info("solving", "problem", info.Name, "setting", info.Setting, "dim", info.Dim, "algorithm", j.method.Name())
	res, err := solver.Solve(ctx, prob, &s, j.method)
	if err != nil {
		return nil, 0, err
	}
	log.Info("finished", "status", res.Status.String(), "gap", res.Gap, "relative_gap", res.RelGap, "iterations", res.Iterations)
	finite := func(x float64) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return -1 // JSON has no NaN or Inf; the gap and errors are >= 0 otherwise
		}
		return x
	}
	return &problemOutput{
		Status: res.Status.String(), Gap: finite(res.Gap), RelativeGap: finite(res.RelGap), GapKind: info.GapKind,
		Objective: finite(info.Objective(res.X)), KnownOptimum: optimum,
		Error: finite(info.Error(res.X)), ErrorKind: info.ErrorKind,
		Point: res.Point.String(), Iterations: res.Iterations, OperatorEvaluations: res.Evaluations,
		Step: res.Step, Seconds: res.Runtime.Seconds(), Algorithm: res.Method,
		Problem: info.Name, Setting: info.Setting, PaperRule: info.Rule, Summary: info.Summary, Source: info.Source,
		Size: info.Size, Dim: info.Dim, TargetRelativeGap: s.RelGap, TargetAbsoluteGap: s.AbsGap,
		Solution: res.X,
	}, res.Status, nil
}
