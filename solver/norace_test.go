//go:build !race

package solver

// RaceEnabled: see race_test.go.
const RaceEnabled = false
