//go:build cuda

package main

import (
	"context"
	"fmt"

	"github.com/gpump/gpump/tensorops"
)

// The CUDA backend of a binary built with -tags cuda. When no device is
// usable, the process never gets here: tensorops' CUDA preflight
// (tensorops/internal/cudainit) has already said so in one line and exited.
func init() {
	openers["cuda"] = openCUDA(0)
	// "cuda:N" selects device N on a machine with several; "cuda" is
	// device 0.
	if ds, err := tensorops.CUDADevices(); err == nil {
		for _, d := range ds {
			openers[fmt.Sprintf("cuda:%d", d.Ordinal)] = openCUDA(d.Ordinal)
		}
	}
	localDevice = func(k int) string {
		ds, err := tensorops.CUDADevices()
		if err != nil || len(ds) == 0 {
			return "cuda"
		}
		return fmt.Sprintf("cuda:%d", ds[k%len(ds)].Ordinal)
	}
	listers = append(listers, listCUDA)
	peakers["cuda"] = func(_ context.Context, _ *benchOptions, b tensorops.Backend, _ int64) (float64, string, error) {
		c, ok := b.(*tensorops.CUDA)
		if !ok {
			return 0, "", nil
		}
		return c.Info().PeakBandwidth, "memory clock x bus width from the device attributes", nil
	}
	backends = append(backends, "cuda")
}

// openCUDA opens CUDA device ordinal; --threads does not apply.
func openCUDA(ordinal int) opener {
	return func(int) (tensorops.Backend, func() error, error) {
		c, err := tensorops.NewCUDA(ordinal)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
}

// listCUDA describes the CUDA devices for gpump devices.
func listCUDA() ([]deviceDesc, error) {
	ds, err := tensorops.CUDADevices()
	if err != nil {
		return nil, err
	}
	out := make([]deviceDesc, 0, len(ds))
	for _, d := range ds {
		name := fmt.Sprintf("cuda:%d", d.Ordinal)
		if d.Ordinal == 0 {
			name = "cuda"
		}
		out = append(out, deviceDesc{
			Device: name,
			Name:   d.Name,
			Memory: d.TotalMemory,
			Detail: fmt.Sprintf("compute capability %s, %d multiprocessors, CUDA driver %s",
				d.ComputeCapability(), d.Multiprocessors, d.Driver()),
			PeakBWs: d.PeakBandwidth,
		})
	}
	return out, nil
}
