// A fake libcuda.so.1 for testing the gpump CUDA backend without a GPU: the
// driver API calls the backend (and gorgonia.org/cu's init) make, with device
// memory in host memory (guard page after every allocation) and kernels run
// by the CPU emulator of kernels/testdata/emu on gpump.cu itself.
//
// It also checks what a real driver would only do silently: every call that
// needs a context must come from the thread that created it, with it current.
//
// Env: FAKECUDA_NODEVICE=1 (cuInit fails), FAKECUDA_MEM=bytes (device memory,
// default 8 GiB), FAKECUDA_SMS=n (multiprocessors, default 2),
// FAKECUDA_TRACE=1 (print every launch and copy to stderr).
#include <cuda.h>

#include "cuda_emu.h"

#include "gpump.cu"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <string>
#include <utility>
#include <type_traits>

namespace {

template <typename... A, size_t... I>
void call_impl(void (*k)(A...), void **p, std::index_sequence<I...>)
{
	k(*reinterpret_cast<typename std::remove_cv<typename std::remove_reference<A>::type>::type *>(p[I])...);
}

template <typename... A>
void invoke(void (*k)(A...), void **p)
{
	call_impl(k, p, std::index_sequence_for<A...>{});
}

struct Fn {
	const char *name;
	void (*inv)(void **);
	int block;
	int nargs;
};

template <typename... A>
constexpr int arity(void (*)(A...)) { return sizeof...(A); }

#define K(name, b) {#name, [](void **p) { invoke(name, p); }, b, arity(name)}
Fn fns[] = {
	K(gpump_op_fused_f32, 256), K(gpump_op_fused_f64, 256),
	K(gpump_op_mulvec_f32, 256), K(gpump_op_mulvec_f64, 256),
	K(gpump_op_multvec_f32, 256), K(gpump_op_multvec_f64, 256),
	K(gpump_op_finish, 256), K(gpump_transpose_f32, 256), K(gpump_transpose_f64, 256), K(gpump_fill, 256), K(gpump_axpby, 256), K(gpump_box_prox, 256),
	K(gpump_logprox_partial, 256), K(gpump_logprox_finish, 256),
	K(gpump_ball_partial, 256), K(gpump_ball_finish, 256),
	K(gpump_proxstats_entropic, 256), K(gpump_proxstats_euclidean, 256),
	K(gpump_average_partial, 256), K(gpump_stats_finish, 256),
	K(gpump_simplex_prox, 1024),
	K(gpump_rm_dot, 256), K(gpump_rm_update, 256), K(gpump_rm_normalize, 256),
	K(gpump_sample_scan_partial, 256), K(gpump_sample_scan_finish, 256), K(gpump_sample_draw, 256),
	K(gpump_sample_rows_f32, 256), K(gpump_sample_cols_f32, 256),
	K(gpump_sample_rows_f64, 256), K(gpump_sample_cols_f64, 256),
	K(gpump_batch_op_fused_f32, 256), K(gpump_batch_op_fused_f64, 256),
	K(gpump_batch_op_mulvec_f32, 256), K(gpump_batch_op_mulvec_f64, 256),
	K(gpump_batch_op_multvec_f32, 256), K(gpump_batch_op_multvec_f64, 256),
	K(gpump_batch_logprox, 256), K(gpump_batch_simplex_prox, 256),
	K(gpump_batch_proxstats_entropic, 256), K(gpump_batch_proxstats_euclidean, 256),
	K(gpump_batch_average, 256), K(gpump_batch_rm, 256), K(gpump_batch_copy, 256), K(gpump_batch_axpby, 256),
	K(gpump_payoff_layer, 256), K(gpump_payoff_reduce, 256),
};

bool trace = getenv("FAKECUDA_TRACE") != nullptr;
struct Alloc {
	void *base;
	size_t maplen, size;
};
struct Ctx {
	pthread_t owner;
	std::map<uintptr_t, Alloc> allocs; // by device pointer
};
thread_local Ctx *current;
std::map<uintptr_t, Alloc> allocs; // every context's, by device pointer
size_t used;
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; // the maps (contexts live on several threads)
struct Lock {
	Lock() { pthread_mutex_lock(&mu); }
	~Lock() { pthread_mutex_unlock(&mu); }
};
long pagesz = sysconf(_SC_PAGESIZE);

size_t memTotal()
{
	const char *s = getenv("FAKECUDA_MEM");
	return s ? strtoull(s, nullptr, 10) : (size_t)8 << 30;
}

CUresult needCtx(const char *what)
{
	if (!current || !pthread_equal(current->owner, pthread_self())) {
		fprintf(stderr, "fakecuda: %s called on a thread without the context current\n", what);
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	return CUDA_SUCCESS;
}

// inAlloc reports whether [p, p+n) lies in one allocation.
bool inAlloc(uintptr_t p, size_t n)
{
	Lock l;
	auto &allocs = current->allocs;
	auto it = allocs.upper_bound(p);
	if (it == allocs.begin())
		return false;
	--it;
	return p >= it->first && p + n <= it->first + it->second.size;
}

} // namespace

extern "C" {

CUresult cuInit(unsigned int)
{
	if (getenv("FAKECUDA_NODEVICE"))
		return CUDA_ERROR_NO_DEVICE;
	return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 12040;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
	*n = 1;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	if (ordinal != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = 0;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice)
{
	snprintf(name, len, "Fake Emulated GPU");
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *b, CUdevice)
{
	*b = memTotal();
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice)
{
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
		*v = 1024;
		break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: {
		const char *s = getenv("FAKECUDA_SMS");
		*v = s ? atoi(s) : 2;
		break;
	}
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
		*v = 2147483647;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
		*v = 49152;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = 7;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = 0;
		break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
		*v = 877000;
		break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
		*v = 4096;
		break;
	default:
		fprintf(stderr, "fakecuda: attribute %d not emulated\n", (int)a);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext *c, unsigned int, CUdevice)
{
	Ctx *x = new Ctx;
	x->owner = pthread_self();
	current = x;
	*c = (CUcontext)x;
	return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext c)
{
	if (CUresult r = needCtx("cuCtxDestroy"))
		return r;
	if ((Ctx *)c != current) {
		fprintf(stderr, "fakecuda: cuCtxDestroy of a context not current\n");
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	Lock l;
	for (auto &a : current->allocs) {
		munmap(a.second.base, a.second.maplen);
		used -= a.second.size;
		allocs.erase(a.first);
	}
	delete current;
	current = nullptr;
	if (trace)
		fprintf(stderr, "fakecuda: context destroyed\n");
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
	current = (Ctx *)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *c)
{
	*c = (CUcontext)current;
	return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return needCtx("cuCtxSynchronize"); }

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	if (CUresult r = needCtx("cuModuleLoadData"))
		return r;
	if (!strstr((const char *)image, ".target sm_70"))
		return CUDA_ERROR_INVALID_PTX;
	*m = (CUmodule)0x5678;
	return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts, void **vals)
{
	for (unsigned i = 0; i < n; i++)
		if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES && (uintptr_t)vals[i] == 0)
			return CUDA_ERROR_INVALID_VALUE;
	return cuModuleLoadData(m, image);
}

CUresult cuModuleUnload(CUmodule) { return needCtx("cuModuleUnload"); }

CUresult cuModuleGetFunction(CUfunction *f, CUmodule, const char *name)
{
	if (CUresult r = needCtx("cuModuleGetFunction"))
		return r;
	for (auto &fn : fns)
		if (!strcmp(fn.name, name)) {
			*f = (CUfunction)&fn;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
	if (a != CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
		return CUDA_ERROR_INVALID_VALUE;
	*v = ((Fn *)f)->block;
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t size)
{
	if (CUresult r = needCtx("cuMemAlloc"))
		return r;
	if (size == 0)
		return CUDA_ERROR_INVALID_VALUE;
	Lock l;
	if (size > memTotal() - used)
		return CUDA_ERROR_OUT_OF_MEMORY;
	size_t body = (size + pagesz - 1) / pagesz * pagesz;
	size_t maplen = body + pagesz;
	void *base = mmap(nullptr, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	mprotect((char *)base + body, pagesz, PROT_NONE); // guard page right after the data
	uintptr_t dp = (uintptr_t)base + body - ((size + 7) & ~(size_t)7);
	// Fill with a NaN pattern: a kernel that reads memory it never wrote
	// sees NaN (cuMemAlloc does not zero).
	for (size_t i = 0; i + 8 <= ((size + 7) & ~(size_t)7); i += 8)
		*(uint64_t *)(dp + i) = 0x7ff8dead0000beefULL;
	allocs[dp] = Alloc{base, maplen, size};
	current->allocs[dp] = Alloc{base, maplen, size};
	used += size;
	*p = dp;
	return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr p)
{
	if (CUresult r = needCtx("cuMemFree"))
		return r;
	Lock l;
	auto it = current->allocs.find(p);
	if (it == current->allocs.end()) {
		fprintf(stderr, "fakecuda: cuMemFree of %#lx, not an allocation of this context\n", (unsigned long)p);
		return CUDA_ERROR_INVALID_VALUE;
	}
	munmap(it->second.base, it->second.maplen);
	used -= it->second.size;
	allocs.erase(p);
	current->allocs.erase(it);
	return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t *free, size_t *total)
{
	if (CUresult r = needCtx("cuMemGetInfo"))
		return r;
	Lock l;
	*total = memTotal();
	*free = *total - used;
	return CUDA_SUCCESS;
}

CUresult cuMemsetD32(CUdeviceptr p, unsigned int v, size_t n)
{
	if (CUresult r = needCtx("cuMemsetD32"))
		return r;
	if (!inAlloc(p, 4 * n))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < n; i++)
		((unsigned *)p)[i] = v;
	return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
	if (CUresult r = needCtx("cuMemcpyHtoD"))
		return r;
	if (!inAlloc(d, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (trace)
		fprintf(stderr, "fakecuda: HtoD %zu\n", n);
	memcpy((void *)d, h, n);
	return CUDA_SUCCESS;
}

// The fake runs every launch and copy when it is issued, so an
// asynchronous copy is the synchronous one, on the default stream only.
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream st)
{
	if (st != nullptr)
		return CUDA_ERROR_INVALID_VALUE;
	return cuMemcpyHtoD(d, h, n);
}

CUresult cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
	if (CUresult r = needCtx("cuMemcpyDtoH"))
		return r;
	if (!inAlloc(d, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (trace)
		fprintf(stderr, "fakecuda: DtoH %zu\n", n);
	memcpy(h, (void *)d, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	if (CUresult r = needCtx("cuMemcpyDtoD"))
		return r;
	if (!inAlloc(d, n) || !inAlloc(s, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (trace)
		fprintf(stderr, "fakecuda: DtoD %zu\n", n);
	memmove((void *)d, (void *)s, n);
	return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned shared, CUstream stream, void **params, void **extra)
{
	if (CUresult r = needCtx("cuLaunchKernel"))
		return r;
	Fn *fn = (Fn *)f;
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 || stream != nullptr || extra != nullptr ||
	    (int)bx != fn->block || gx < 1) {
		fprintf(stderr, "fakecuda: %s: bad launch %ux%ux%u / %ux%ux%u shared %u\n", fn->name, gx, gy, gz, bx, by, bz, shared);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (trace)
		fprintf(stderr, "fakecuda: launch %s grid %u block %u\n", fn->name, gx, bx);
	static pthread_mutex_t emu = PTHREAD_MUTEX_INITIALIZER; // the emulator is single-threaded
	pthread_mutex_lock(&emu);
	launch(gx, bx, [&] { fn->inv(params); });
	pthread_mutex_unlock(&emu);
	return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	switch (r) {
#define E(x)         \
	case x:      \
		*s = #x; \
		return CUDA_SUCCESS;
		E(CUDA_SUCCESS)
		E(CUDA_ERROR_INVALID_VALUE)
		E(CUDA_ERROR_OUT_OF_MEMORY)
		E(CUDA_ERROR_NO_DEVICE)
		E(CUDA_ERROR_INVALID_DEVICE)
		E(CUDA_ERROR_INVALID_CONTEXT)
		E(CUDA_ERROR_INVALID_PTX)
		E(CUDA_ERROR_NOT_FOUND)
		E(CUDA_ERROR_NOT_SUPPORTED)
	default:
		*s = nullptr;
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
	switch (r) {
	case CUDA_ERROR_OUT_OF_MEMORY:
		*s = "out of memory";
		return CUDA_SUCCESS;
	case CUDA_ERROR_NO_DEVICE:
		*s = "no CUDA-capable device is detected";
		return CUDA_SUCCESS;
	default:
		*s = "emulated error";
		return CUDA_SUCCESS;
	}
}

} // extern "C"

extern "C" {

CUresult cuMemAllocHost(void **pp, size_t n)
{
	if (CUresult r = needCtx("cuMemAllocHost"))
		return r;
	*pp = malloc(n);
	return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p)
{
	if (CUresult r = needCtx("cuMemFreeHost"))
		return r;
	free(p);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	if (st != nullptr)
		return CUDA_ERROR_INVALID_VALUE;
	return cuMemcpyDtoD(d, s, n);
}

} // extern "C"
