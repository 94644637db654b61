//go:build race

package solver_test

// The race detector's instrumentation allocates; allocation counts are
// meaningless under it.
const raceEnabled = true
