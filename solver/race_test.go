//go:build race

package solver

// RaceEnabled reports a race-detector build, whose instrumentation
// allocates: allocation counts are meaningless under it. It is exported for
// the external tests (package solver_test).
const RaceEnabled = true
