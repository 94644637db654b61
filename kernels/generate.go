package kernels

// The PTX is generated from gpump.cu and committed; the build never needs
// nvcc. Regenerate after editing gpump.cu (needs nvcc; .ci/install-cuda
// installs Debian's CUDA 11.8 toolkit):
//
//	go generate ./kernels
//
// compute_70 PTX is JIT-compiled by the driver for any newer GPU (Volta to
// Hopper). TestGeneratedPTXUpToDate reruns this exact command (read from this
// file) and compares the output byte for byte with the committed file when the
// same nvcc release is on PATH.

//go:generate nvcc -ptx -arch=compute_70 -O3 -o gpump.ptx gpump.cu
