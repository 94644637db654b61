package solver

import (
	"context"
	"math"

	"gorgonia.org/tensor"
)

// The route's cost model: the predicted times of RM+'s passes and of a
// crossover, from sizes and RM+'s own measured decay, and the watch that
// renews those predictions while an RM+ phase runs.

// Polish-cost constants of the route (see Auto).
const (
	autoBandwidth = 25e9 // bytes per second of a pass over A
	// autoSecondsPerCub is the seconds per s³ of a subgame solve, s the
	// geometric mean of the RM+ pair's supports: a crossover from the
	// handover over autoSubgames·s³, set near the top of the range measured
	// on uniform, Gaussian and rank-one games of 500²–2000² (DESIGN.md: no
	// single constant fits every family).
	autoSecondsPerCub = 2.5e-9
	autoSubgames      = 2 // subgame solves of a crossover, typically
)

// watch is the state of a watched RM+ phase (see Auto.watched); its zero
// value watches nothing.
type watch struct {
	g      *MatrixGame
	target float64
	limit  float64
	cancel context.CancelFunc
	from   int // the decay's passes when the phase started
	fired  bool
}

// watchMinPasses is the fewest passes a watched phase runs before its
// decay may stop it (and at least as many as the decay had before it), so
// that the first samples of a fresh run do not decide.
const watchMinPasses = 20

// check stops the watched phase when its passes so far and those its
// decay predicts to the target exceed the limit together; passes are the
// decay's at its latest sample. The passes so far count because the
// decay's prediction is optimistic where RM+ stagnates in steps (gap ∝
// T^−α with α clamped to [1, 3] by decay): a phase that has spent more
// than the limit is wrong about its cost whatever it predicts next.
func (w *watch) check(ph *phases, passes int) {
	if w.cancel == nil || w.fired || passes-w.from < max(watchMinPasses, w.from) {
		return
	}
	end, alpha, ok := ph.decay()
	if !ok || end.gap <= w.target {
		return
	}
	rest := float64(end.passes) * (math.Pow(end.gap/w.target, 1/alpha) - 1)
	if passSeconds(w.g, float64(passes-w.from)+rest) > w.limit {
		w.fired = true
		w.cancel()
	}
}

// polishPays predicts whether the crossover reaches target sooner than
// RM+ going on (see Auto).
func (ph *phases) polishPays(g *MatrixGame, dst *Result, target float64) bool {
	end, alpha, ok := ph.decay()
	if !ok {
		return true
	}
	passes := float64(end.passes) * (math.Pow(end.gap/target, 1/alpha) - 1)
	return polishSeconds(g, dst) < passSeconds(g, passes)
}

// earlyPays predicts, a decade before the handover, whether the crossover
// should start at once: when its predicted time is below half that of
// RM+'s passes to the handover. Police games' supports are a few dozen
// strategies there (a crossover of milliseconds) while RM+ needs another
// thousand passes; random games' supports are still most of the game.
func (ph *phases) earlyPays(g *MatrixGame, dst *Result, handover float64) bool {
	end, alpha, ok := ph.decay()
	if !ok {
		return false
	}
	passes := float64(end.passes) * (math.Pow(end.gap/handover, 1/alpha) - 1)
	return polishSeconds(g, dst) < passSeconds(g, passes)/2
}

// sqrt10 is the factor by which decadePays's extra RM+ phase lowers the
// handover gap: half a decade.
const sqrt10 = 3.1622776601683795

// decadeMinEntries is the smallest game that decadePays applies to: from
// 160×160 up, where DefaultHandover is 1e-3 and a pass is mostly reading A
// (the model's bandwidth); on smaller games an iteration's fixed costs
// dominate its passes and the handover is already tuned by size.
const decadeMinEntries = 160 * 160

// decadePays predicts whether, at the handover, RM+ should first bring the
// gap down half a decade more (a factor √10): when those passes cost less
// than half the crossover's predicted time. More RM+ sharpens the support
// guess and so shortens the crossover; games whose RM+ is slow hand over at
// once unless their crossover is predicted to be slower still (DESIGN.md).
func (ph *phases) decadePays(g *MatrixGame, dst *Result) bool {
	end, alpha, ok := ph.decay()
	if !ok {
		return false
	}
	passes := float64(end.passes) * (math.Pow(sqrt10, 1/alpha) - 1)
	return passSeconds(g, passes) < polishSeconds(g, dst)/2
}

// decay returns the first phase's last gap and the exponent α of its
// decay as gap ∝ T^−α between the middle and the end of the phase, in
// [1, 3]; ok is false before two samples.
func (ph *phases) decay() (end passGap, alpha float64, ok bool) {
	if len(ph.gaps) < 2 {
		return passGap{}, 0, false
	}
	end = ph.gaps[len(ph.gaps)-1]
	mid := end
	for _, pg := range ph.gaps {
		if pg.passes >= end.passes/2 {
			mid = pg
			break
		}
	}
	alpha = 1.0
	if mid.passes < end.passes && mid.gap > end.gap && end.gap > 0 {
		alpha = math.Log(mid.gap/end.gap) / math.Log(float64(end.passes)/float64(mid.passes))
	}
	return end, min(max(alpha, 1), 3), true
}

// passSeconds is the predicted time of passes over g's matrix.
func passSeconds(g *MatrixGame, passes float64) float64 {
	size := 8.0
	if g.a.Dtype() == tensor.Float32 {
		size = 4
	}
	return passes * float64(g.m) * float64(g.n) * size / autoBandwidth
}

// polishSeconds is the crossover's predicted time from dst's pair, for
// supports of k rows and l columns: s³ with s = √(k·l), since the basis's
// LU is about the smaller support's size and each pivot's product with the
// subgame costs k·l. On square supports it is the measured s³; lopsided
// supports (a police game's) are priced far below the larger side's cube,
// as they run. A nil dst stands for the whole game.
func polishSeconds(g *MatrixGame, dst *Result) float64 {
	k, l := float64(g.m), float64(g.n)
	if dst != nil {
		k, l = float64(support(dst.Row)), float64(support(dst.Column))
	}
	sub := math.Sqrt(k * l)
	return autoSubgames * autoSecondsPerCub * sub * sub * sub
}

// support counts the entries of x above 1e-3 times its largest.
func support(x []float64) int {
	var mx float64
	for _, v := range x {
		mx = max(mx, v)
	}
	k := 0
	for _, v := range x {
		if v > 1e-3*mx {
			k++
		}
	}
	return k
}
