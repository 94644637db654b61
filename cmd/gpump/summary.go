package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpump/gpump/games"

	"github.com/gpump/gpump/solver"
)

// The JSON result is for programs and files; on a terminal people read a
// short summary instead, as with other command-line tools: the status, the
// certificate, the work, and the largest entries of each strategy.
// --json, or -o -, writes the JSON to the terminal all the same.

// summaryTop is the number of largest entries shown of each strategy: a
// line of them fits an 80-column terminal up to 99 999 rows or columns.
const summaryTop = 4

// writeSummary writes a short human summary of a solve's result v (a
// *games.Report or a *problemOutput) to w; file, when not "", is where the
// JSON result went.
func writeSummary(w io.Writer, v any, file string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch o := v.(type) {
	case *games.Report:
		gameSummary(tw, o)
	case *problemOutput:
		problemSummary(tw, o)
	}
	if file != "" {
		fmt.Fprintf(tw, "result\tin %s\n", file)
	} else {
		fmt.Fprintf(tw, "result\tthe whole result as JSON: --json, or -o FILE\n")
	}
	return tw.Flush()
}

// statusLine is the status and the relative gap against its target.
func statusLine(w io.Writer, status string, rel, target, gap, abs float64) {
	fmt.Fprintf(w, "%s\trelative gap %.5g", strings.ReplaceAll(status, "_", " "), rel)
	switch {
	case target > 0:
		fmt.Fprintf(w, " (target %.3g)", target)
	case abs > 0:
		fmt.Fprintf(w, ", gap %.3g (target %.3g)", gap, abs)
	}
	fmt.Fprintln(w)
}

func gameSummary(w io.Writer, o *games.Report) {
	statusLine(w, o.Status, o.RelativeGap, o.TargetRelativeGap, o.Gap, o.TargetAbsoluteGap)
	fmt.Fprintf(w, "value\t%.8g, in [%.8g, %.8g], gap %.5g, max |A_ij| %.6g\n", o.Value, o.ValueLower, o.ValueUpper, o.Gap, o.MaxAbsEntry)
	if o.RoundingBound > 0 {
		fmt.Fprintf(w, "\tof the float32 matrix; the float64 one's value is within %.3g more on each side\n", o.RoundingBound)
	}
	if o.KnownValue != nil {
		fmt.Fprintf(w, "\tknown value %.8g\n", *o.KnownValue)
	}
	certifiedLine(w, o)
	fmt.Fprintf(w, "work\t%d iterations, %d passes over A, %s (loading %s)\n", o.Iterations, o.MatrixPasses, seconds(o.Seconds), seconds(o.LoadSeconds))
	if o.Route != "" {
		fmt.Fprintf(w, "route\t%s: %s", o.Algorithm, o.Route)
		if o.SubgameSolves > 0 {
			fmt.Fprintf(w, ", %d exact subgame solves (up to %d strategies a player, %s)", o.SubgameSolves, o.SubgameSize, seconds(o.SubgameSeconds))
		}
		fmt.Fprintln(w)
	}
	strategyLine(w, "row player", "rows", "p", o.RowStrategy, o.M, o.RowSupport, o.Strategies)
	strategyLine(w, "column player", "columns", "q", o.ColumnStrategy, o.N, o.ColumnSupport, o.Strategies)
}

// certifiedLine says how the result was reached, and so what its gap
// means: first-order iterations stop just below the target (or at a
// limit); the crossover's exact subgame solution is usually certified far
// below it, at the level of rounding.
func certifiedLine(w io.Writer, o *games.Report) {
	switch o.CertifiedBy {
	case solver.CertifiedCrossover:
		fmt.Fprintf(w, "certified	exact, by the support crossover (a subgame solved exactly)\n")
	case solver.CertifiedFirstOrder:
		if o.Status == "converged" {
			fmt.Fprintf(w, "certified	first-order, to the target\n")
		} else {
			fmt.Fprintf(w, "certified	first-order, stopped before the target\n")
		}
	}
}

// strategyLine shows the support (the positive entries: the strategies
// carry no rounding debris) and the largest entries of the strategy x
// (named name) of a player with n pure strategies (named what), or where
// it was written.
func strategyLine(w io.Writer, who, what, name string, x []float64, n, support int, file string) {
	if x == nil {
		fmt.Fprintf(w, "%s\t%d %s, support %d, strategy in %s\n", who, n, what, support, file)
		return
	}
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[b], x[a]) })
	var top []string
	shown := 0.0
	for _, i := range idx[:min(summaryTop, len(idx))] {
		if x[i] <= 0 {
			break
		}
		top = append(top, fmt.Sprintf("%s%d %.3g", name, i, x[i]))
		shown += x[i]
	}
	fmt.Fprintf(w, "%s\t%d %s, support %d; the %d largest entries of %s hold %.4g:\n", who, n, what, support, len(top), name, shown)
	fmt.Fprintf(w, "\t%s\n", strings.Join(top, "  "))
}

// seconds formats a duration in seconds for people.
func seconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.3f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

func problemSummary(w io.Writer, o *problemOutput) {
	statusLine(w, o.Status, o.RelativeGap, o.TargetRelativeGap, o.Gap, o.TargetAbsoluteGap)
	fmt.Fprintf(w, "objective\t%.8g, known optimum %.8g, error %.3g (certified gap %.3g)\n", o.Objective, o.KnownOptimum, o.Error, o.Gap)
	fmt.Fprintf(w, "work\t%d iterations, %d operator evaluations, %s\n", o.Iterations, o.OperatorEvaluations, seconds(o.Seconds))
	fmt.Fprintf(w, "problem\t%s (%s), %d dimensions, %s\n", o.Problem, o.Setting, o.Dim, o.Algorithm)
}

// summaryLine is one instance of a batch on a terminal.
func summaryLine(l *games.Line) string {
	name := l.Instance
	switch {
	case l.Key != "":
		name += "[" + l.Key + "]"
	case l.Games > 0:
		name += "[" + strconv.Itoa(l.Index) + "]"
	}
	if l.Report == nil || l.Status == "error" || l.Status == "canceled" && l.Error != "" {
		return fmt.Sprintf("%-16s %s: %s\n", l.Status, name, l.Error)
	}
	mid, bracket := valueText(l.ValueLower, l.ValueUpper)
	return fmt.Sprintf("%-16s value %-10s %-25s rel gap %-9.3g %7d it %8.3g s  %s\n", strings.ReplaceAll(l.Status, "_", " "),
		mid, bracket, l.RelativeGap, l.Iterations, l.Seconds+l.LoadSeconds, name)
}

// valueText formats the value of a game, the middle of its certified
// bracket [lo, hi], and the bracket, with as many digits as tell the
// bracket's ends apart and one more (at least 3, at most 10). The ends are
// rounded outwards, so that the bracket shown still holds the value.
func valueText(lo, hi float64) (mid, bracket string) {
	m := lo/2 + hi/2 // (lo+hi)/2 overflows near ±MaxFloat64
	mag := max(math.Abs(lo), math.Abs(hi))
	if math.IsNaN(m) || math.IsInf(mag, 0) || mag == 0 {
		return fmt.Sprint(m), fmt.Sprintf("[%v, %v]", lo, hi)
	}
	digits := 6
	if w := hi - lo; w > 0 {
		digits = int(math.Ceil(math.Log10(mag/w))) + 2
	}
	digits = min(max(digits, 3), 10)
	// The unit of the last digit shown of the larger end.
	unit := math.Pow(10, math.Floor(math.Log10(mag))-float64(digits-1))
	// An end within a billionth of a unit of a multiple of it is taken
	// as that multiple: lo/unit's own rounding is not a reason for
	// another digit.
	snap := func(x float64, round func(float64) float64) float64 {
		if r := math.Round(x); math.Abs(x-r) < 1e-9 {
			return r * unit
		}
		return round(x) * unit
	}
	down, up := snap(lo/unit, math.Floor), snap(hi/unit, math.Ceil)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', digits, 64) }
	return f(m), "[" + f(down) + ", " + f(up) + "]"
}
