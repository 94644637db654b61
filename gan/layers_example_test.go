package gan_test

import (
	"fmt"

	"github.com/gpump/gpump/gan"
)

// Two networks' first layers, 1 input to 2 units, map one shared batch of
// 2 rows in one call (x's stride 0).
func ExampleNewCPULayers() {
	ops := gan.NewCPULayers()
	x := []float32{1, 2}          // 2 rows × 1 input, shared
	w := []float32{1, -1, 0.5, 3} // network 0: [1 −1], network 1: [0.5 3]
	b := []float32{0, 1, 0, 0}    // their biases
	y := make([]float32, 2*2*2)   // 2 networks × 2 rows × 2 units
	ops.Forward(2, 2, 1, 2, x, 0, w, b, false, y)
	fmt.Println(y[:4], y[4:])
	// Output: [1 0 2 -1] [0.5 3 1 6]
}

// An implementation of Layers (here the CPU's; a device's alike) checked
// against float64 products on the shapes gpump selftest uses.
func ExampleCheckLayers() {
	checks := gan.CheckLayers(gan.NewCPULayers(), 1)
	bad := 0
	for _, c := range checks {
		if c.MaxErr > gan.LayerTolerance {
			bad++
		}
	}
	fmt.Printf("%d checks, %d over %.0e\n", len(checks), bad, gan.LayerTolerance)
	// Output: 70 checks, 0 over 1e-06
}
