//go:build !amd64

package tensorops

// availableKernels lists the implementations usable on this machine, best
// first. Only the portable one exists outside amd64.
func availableKernels() []*kernelSet { return []*kernelSet{&genericKernels} }
