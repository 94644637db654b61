package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpump/gpump/tensorops"
)

// deviceFlagUsage is the usage of every --device flag.
const deviceFlagUsage = "where the matrix lives and the passes run: cpu, or cuda in a binary built with -tags cuda"

// opener opens a backend; close releases it.
type opener func(threads int) (b tensorops.Backend, close func() error, err error)

// openers are the devices compiled in; files behind build tags add theirs
// (and their names to backends) in init.
var openers = map[string]opener{
	"cpu": func(threads int) (tensorops.Backend, func() error, error) {
		c := tensorops.NewCPU(threads)
		return c, c.Close, nil
	},
}

// localDevice names the device of a process that is local rank k of the
// ranks on its node (mpirun): "cuda" in a build without CUDA, where
// opening it says why it cannot; device_cuda.go spreads the ranks over
// the node's GPUs.
var localDevice = func(k int) string { return "cuda" }

// openDevice opens the backend of --device.
func openDevice(name string, threads int) (tensorops.Backend, func() error, error) {
	if o, ok := openers[name]; ok {
		return o(threads)
	}
	if name == "cuda" {
		return nil, nil, fmt.Errorf("--device cuda: this gpump was built without CUDA: build it with `go build -tags cuda ./cmd/gpump` where the CUDA toolkit is installed, or use the image of Dockerfile.cuda")
	}
	names := make([]string, 0, len(openers))
	for n := range openers {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, nil, fmt.Errorf("unknown --device %q (this binary has %s)", name, strings.Join(names, ", "))
}

// kernelsOf names the kernels a backend runs, where it says.
func kernelsOf(b tensorops.Backend) string {
	if k, ok := b.(interface{ Kernels() string }); ok {
		return k.Kernels()
	}
	return b.Name()
}
