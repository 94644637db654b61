//go:build !amd64

package sgemm

// available lists the kernels of this machine: only the portable one
// outside amd64.
func available() []*kernel { return []*kernel{generic} }

func (kern *kernel) run(k int, a *float32, lda int, b, bias, c *float32, ldc int, act Act, v *float32) {
	tileGeneric(k, a, lda, b, bias, c, ldc, act, v)
}

func (kern *kernel) softplus(x []float32) int { return softplusGeneric(x) }
