// Package solver computes approximate solutions of monotone variational
// inequalities, above all equilibria of two-player zero-sum matrix games, by
// mirror-prox with the step-size rules of "Geometry-Aware Universal
// Mirror-Prox" (Babanezhad and Lacoste-Julien) and the methods it is
// compared with. DESIGN.md at the repository's root gives the reasons
// behind the choices below.
//
// The entry point is Solve(ctx, problem, settings, method), or SolveInto to
// reuse a result:
//
//   - problems are a *MatrixGame (a dense payoff matrix, float64 or
//     float32, on a tensorops.Backend), a *SampledGame (a game evaluated by
//     the sampled stochastic oracle) or a *Monotone (any monotone Operator
//     over a Geometry, in Go on the host);
//   - methods are a *MirrorProx with a StepRule (GASmooth, GABounded,
//     GAStochastic, BachLevy, Constant, AMP, AdaProx, Backtracking) or, for
//     matrix games, *RegretMatching (RM+, PRM+) and *OMWU; each method type
//     holds its own constants with documented defaults, lists them as Knobs
//     for command lines, and says which problems it solves (Uses);
//     NewMethod builds them from their command-line names;
//   - Settings hold what every solve shares: the stopping rules, a warm
//     start (Init) and a Recorder; nil settings mean DefaultSettings(), a
//     nil method the default rule (DefaultMethodName).
//
// One driver loop runs every method: it stops on the gap targets and the
// limits, keeps the best certified point, calls the recorders, answers
// cancellation within one iteration, restarts the method when its Restart
// policy says so, and certifies the result afresh at the end (iterating on
// if that certificate, free of the running averages' rounding, misses a
// target the running one met). A method is an engine the loop drives one
// step at a time with host scalars only, which is why the step rules,
// stopping and averaging are written once for every backend.
//
// Every iteration certifies two points without extra work: the averaged
// iterate and the last one, from running averages of the operator values
// (for a game, F(x_t) holds A q_t and Aᵀp_t, whose averages with the
// iterate's weights give A q̄ and Aᵀp̄ in O(m + n)). The result is the best
// certified point of the whole run; for a matrix game the row and column
// strategies are chosen separately, since the gap is a sum of a part that
// depends on p only and a part that depends on q only.
//
// A matrix game's result (Result) answers first with Value, the middle of
// the certified bracket [ValueLower, ValueUpper], and says with
// CertifiedBy how it was reached: "first-order" when a method's iterates met
// the target (the relative gap is then just below it: the default target is
// 1e-4 of max |A_ij|), "crossover" when Auto's support crossover solved a
// subgame exactly (the gap is then usually at the level of rounding).
// The returned strategies carry no rounding debris: from each, the smallest
// entries whose total is at most n·2⁻⁵⁴ (n its length) are set to 0 and the
// rest renormalized, which changes the certified bounds by less than their
// own rounding (n·2⁻⁵³·max |A_ij|); the pair that remains is certified as
// returned with one more pass over A, and kept only if that certificate is
// no worse than the original beyond rounding and meets any target the
// original met. Entries above that budget stay, however small (the averages
// of first-order methods keep entries of 1e-8 and below, which are part of
// the certified pair). RowSupport and ColumnSupport count what remains.
//
// Progress bars, traces and plots observe a solve through a Recorder; this
// package imports no user interface.
package solver
