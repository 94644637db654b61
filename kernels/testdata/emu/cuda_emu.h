// A minimal CUDA emulator for testing gpump.cu on a machine without a GPU.
//
// Every CUDA thread of a block is a fiber on one OS thread (its own stack,
// switched by a few instructions on x86-64, by ucontext elsewhere); blocks
// run one after another. __syncthreads() waits until every live thread of
// the block has reached it; __shfl_xor_sync() waits until every live lane of
// the warp has reached it and then reads the partner's value, so warp
// shuffles and barriers behave as on the device (a missing barrier or a
// divergent shuffle shows up as a wrong value or a reported deadlock).
// __shared__ becomes static: one copy, shared by the fibers of the running
// block. Not emulated: memory-model races between blocks (blocks run
// sequentially), performance, and the device math library (host libm's exp
// and log stand in for libdevice's; both are accurate to about 1 ulp).
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <functional>
#include <vector>

struct dim3 {
	unsigned x = 1, y = 1, z = 1;
};

extern dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

inline double __longlong_as_double(long long v)
{
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

template <typename T>
inline T __ldg(const T *p) { return *p; }

inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

void __syncthreads();
double __shfl_xor_sync(unsigned mask, double v, int laneMask);
long long __shfl_xor_sync(unsigned mask, long long v, int laneMask);

// launch runs body as a kernel with grid x block threads (1-D).
void launch(unsigned grid, unsigned block, const std::function<void()> &body);
