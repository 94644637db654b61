//go:build cuda

package gan

import (
	"testing"

	"github.com/gpump/gpump/tensorops"
)

// TestCUDALayers checks the device's layers (one launch of
// gpump_payoff_layer per call) as TestCPULayers checks the CPU's: every
// operation against float64 products within float32 rounding, on the same
// shapes, shared input included.
func TestCUDALayers(t *testing.T) {
	be, err := tensorops.NewCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	l := be.NewLayers()
	defer l.Free()
	checkLayers(t, l)
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
}
