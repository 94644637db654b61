// Package kernelenv is the one policy for choosing among CPU kernel sets
// (avx512, avx2, generic) in every package that has several: the best the
// machine runs, unless the environment variable GPUMP_KERNELS names another
// one it runs, so that the paths can be compared from the shell.
package kernelenv

import "os"

// Env names the environment variable that forces a kernel set.
const Env = "GPUMP_KERNELS"

// Want returns the kernel set the environment asks for ("" for none).
func Want() string { return os.Getenv(Env) }

// Choose returns the index in avail, the sets this machine runs best first,
// of the one named want, or 0 (the best) when want is empty, unknown or
// not in avail: an unavailable request is not an error, so that the same
// binary and scripts run on machines with and without AVX-512.
func Choose[S any](avail []S, name func(S) string, want string) int {
	for i, s := range avail {
		if name(s) == want {
			return i
		}
	}
	return 0
}
