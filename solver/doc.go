// Package solver computes approximate solutions of monotone variational
// inequalities, above all equilibria of two-player zero-sum matrix games, by
// mirror-prox with the step-size rules of "Geometry-Aware Universal
// Mirror-Prox" (Babanezhad and Lacoste-Julien) and the baselines it is
// compared with. ../shared/SPEC.md fixes every choice the paper leaves open;
// the doc comments cite its sections.
//
// The entry point is Solve(ctx, problem, settings, method):
//
//   - problems are a *MatrixGame (dense payoff matrix, float64 or float32,
//     run on a tensorops.Backend) or a *Monotone (any monotone Operator over a
//     Geometry, run in Go);
//   - methods are a *MirrorProx with a StepRule (GASmooth, GABounded,
//     GAStochastic, BachLevy, Constant, AMP, AdaProx, Backtracking) or, for
//     matrix games, *RegretMatching (RM+, PRM+) and *OMWU; NewMethod builds
//     them from their command-line names;
//   - nil settings mean DefaultSettings(), a nil method the default rule
//     (DefaultMethodName).
//
// Every iteration certifies two points without extra work: the averaged
// iterate and the last one, from running averages of the operator values
// (SPEC section 5). The result is the best certified point of the whole run;
// for a matrix game the row and column strategies are chosen separately,
// since the gap is a sum of a part that depends on p only and a part that
// depends on q only. A matrix game's returned point is certified once more
// with a fresh pass over A.
//
// Progress bars, traces and plots observe a solve through a Recorder; this
// package imports no user interface.
package solver
