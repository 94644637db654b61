// Package readloop hands the CPU backend's fastest read loop (tensorops sets
// F64 when it is initialized) to package bench, which cannot reach
// tensorops' unexported kernels: bench.ReadRate's yardstick must be the loop
// the backend's passes are compared with (BenchmarkPassVsRead), not a plain
// Go loop that reads at half the speed.
package readloop

// F64 returns the sum of the elements of a, reading them with the CPU
// backend's fastest read loop; nil until package tensorops is initialized.
var F64 func(a []float64) float64
