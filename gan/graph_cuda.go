//go:build cuda

package gan

import "errors"

// graphs are left out of cuda builds: gorgonia compiles its own CUDA
// engine under the same build tag, and that engine needs cuDNN, which
// gpump's CUDA path does not use. The batched operator needs neither.
type graphs struct{}

func newGraphs(Arch, Arch, int, int, int, Loss) (*graphs, error) {
	return nil, errors.New("gan: the reference graphs (Config.Graphs) are not in cuda builds: gorgonia's CUDA engine, under the same build tag, needs cuDNN")
}

// graphSteps is never called: newGraphs never makes graphs here.
func (t *trainer) graphSteps(float64) error {
	panic("gan: graph steps without graphs")
}
