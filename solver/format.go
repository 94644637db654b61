package solver

// Value returns the middle of the certified bracket [ValueLower,
// ValueUpper] of a matrix game's value: within Gap/2 of the value. It is NaN
// for other problems.
func (r Result) Value() float64 {
	// Halved first: the sum of two bounds near the largest float overflows.
	return 0.5*r.ValueLower + 0.5*r.ValueUpper
}

// How a matrix game's result was reached, as CertifiedBy names it.
const (
	// CertifiedFirstOrder: the returned pair is a first-order method's
	// (RM+, mirror-prox, OMWU, ...), stopped at the target or a limit,
	// so that its relative gap is just below the target when it converged.
	CertifiedFirstOrder = "first-order"
	// CertifiedCrossover: the returned pair is the support crossover's
	// exact solution of a subgame (Auto, for targets at or below
	// Auto.PolishBelow), so that its gap is usually at the level of
	// rounding, far below the target.
	CertifiedCrossover = "crossover"
)

// CertifiedBy says how a matrix game's result was reached:
// CertifiedCrossover when both strategies are the support crossover's
// (Point and ColumnPoint PolishedPoint), else CertifiedFirstOrder; "" for
// other problems. Either way Gap is certified by a pass over A of exactly
// the returned pair.
func (r Result) CertifiedBy() string {
	switch {
	case r.Row == nil:
		return ""
	case r.Point == PolishedPoint && r.ColumnPoint == PolishedPoint:
		return CertifiedCrossover
	}
	return CertifiedFirstOrder
}
