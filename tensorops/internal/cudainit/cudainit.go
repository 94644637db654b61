//go:build cuda

// Package cudainit checks, before the CUDA driver bindings start, that this
// process can use a CUDA device; it also makes the few driver calls
// gorgonia.org/cu lacks (error names, page-locked host memory).
//
// gorgonia.org/cu calls cuInit in its package init and, when that fails,
// prints a raw message to stdout and exits. A gpump built with -tags cuda
// and started where there is no usable device (no GPU, no driver, a
// CUDA_VISIBLE_DEVICES that hides every device) should instead say so in
// one line on stderr. This package's init does that check first:
//
//   - It calls cuInit and cuDeviceGetCount itself (cgo, the driver API, no
//     toolkit library) and, on failure, prints
//     "gpump: CUDA: no usable device: cuInit: CUDA_ERROR_NO_DEVICE (...)"
//     to stderr and exits with status 1.
//   - In a test binary (os.Args[0] ends in ".test", or an argument starts
//     with "-test.") it prints "SKIP: no usable CUDA device (...): the CUDA
//     tests need a GPU" and exits with status 0 instead, so that
//     `go test -tags cuda ./...` passes on a machine without a GPU, saying
//     why with -v and marking each such package "[no tests to run]"
//     without. (Flags are not parsed yet during package initialization, hence
//     os.Args; the testing package's "os.Exit(0) is a failure" check is only
//     armed later, by testing.M.Run.)
//
// Why this init runs before gorgonia.org/cu's: since Go 1.21 the spec fixes
// the order of package initialization: the packages are sorted by import
// path and, repeatedly, the first package in that list whose imports are all
// initialized is initialized next. This package imports only "C", "fmt" and
// "os" (and, through cgo, runtime/cgo, syscall and unsafe), all of which
// gorgonia.org/cu imports as well. So whenever gorgonia.org/cu is ready to be
// initialized, so is this package, and its import path
// "github.com/gpump/gpump/tensorops/internal/cudainit" sorts before
// "gorgonia.org/cu" ('i' < 'o' at the second byte): it is initialized first.
// Keep it that way: importing anything that gorgonia.org/cu does not import
// (strings, path/filepath, ...) could let cu go first. tensorops/cuda.go
// imports this package, so it is linked into every binary that links cu
// through tensorops.
package cudainit

/*
#cgo LDFLAGS: -lcuda
#cgo linux CFLAGS: -I/usr/local/cuda/include
#cgo linux LDFLAGS: -L/usr/local/cuda/lib64/stubs
#include <cuda.h>

// gp_error_name returns the name of a CUresult ("CUDA_ERROR_NO_DEVICE"), or
// NULL when the driver does not know it.
static const char *gp_error_name(int r)
{
	const char *s = 0;
	if (cuGetErrorName((CUresult)r, &s) != CUDA_SUCCESS)
		return 0;
	return s;
}

// gp_error_string returns the driver's description of a CUresult, or NULL.
static const char *gp_error_string(int r)
{
	const char *s = 0;
	if (cuGetErrorString((CUresult)r, &s) != CUDA_SUCCESS)
		return 0;
	return s;
}

static int gp_init(void) { return (int)cuInit(0); }

static void *gp_host_alloc(size_t n, int *r)
{
	void *p = 0;
	*r = (int)cuMemAllocHost(&p, n);
	return p;
}

static int gp_device_count(int *n)
{
	int c = 0;
	CUresult r = cuDeviceGetCount(&c);
	*n = c;
	return (int)r;
}
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

// Hint is what a cuda build needs to run, appended to the no-device message.
const Hint = "this binary was built with -tags cuda; it needs an NVIDIA GPU and its driver"

func init() {
	cause := Check()
	if cause == "" {
		return
	}
	if isTest() {
		// The second line is the testing package's own: `go test` then
		// marks the package "[no tests to run]" instead of a bare "ok".
		fmt.Printf("SKIP: no usable CUDA device (%s): the CUDA tests need a GPU\ntesting: warning: no tests to run\n", cause)
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "gpump: CUDA: no usable device: %s (%s)\n", cause, Hint)
	os.Exit(1)
}

// Check initializes the driver and counts the devices. It returns "" when
// there is at least one device, else the cause ("cuInit:
// CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
// "cuDeviceGetCount: 0 devices").
func Check() string {
	if r := int(C.gp_init()); r != 0 {
		return "cuInit: " + describe(r)
	}
	var n C.int
	if r := int(C.gp_device_count(&n)); r != 0 {
		return "cuDeviceGetCount: " + describe(r)
	}
	if n < 1 {
		return "cuDeviceGetCount: 0 devices"
	}
	return ""
}

// HostAlloc allocates bytes of page-locked host memory (cuMemAllocHost;
// the calling thread must have a context current; free it with
// cu.MemFreeHost). It returns the CUresult code, 0 on success.
func HostAlloc(bytes int) (unsafe.Pointer, int) {
	var r C.int
	p := C.gp_host_alloc(C.size_t(bytes), &r)
	return p, int(r)
}

// ErrorName returns the driver's name of a CUresult code
// ("CUDA_ERROR_OUT_OF_MEMORY"), or "CUDA error <code>" when the driver does
// not know the code.
func ErrorName(code int) string {
	if s := C.gp_error_name(C.int(code)); s != nil {
		return C.GoString(s)
	}
	return fmt.Sprintf("CUDA error %d", code)
}

// describe returns "NAME: description" of a CUresult code.
func describe(code int) string {
	if d := ErrorString(code); d != "" {
		return ErrorName(code) + ": " + d
	}
	return ErrorName(code)
}

// ErrorString returns the driver's description of a CUresult code ("out of
// memory"), or "" when the driver has none.
func ErrorString(code int) string {
	if s := C.gp_error_string(C.int(code)); s != nil {
		return C.GoString(s)
	}
	return ""
}

// isTest reports whether this process is a Go test binary: its name ends
// in ".test" (".test.exe"), or `go test` passed it -test.* flags. No
// strings or path/filepath here (see the package comment).
func isTest() bool {
	if len(os.Args) == 0 {
		return false
	}
	if hasSuffix(os.Args[0], ".test") || hasSuffix(os.Args[0], ".test.exe") {
		return true
	}
	for _, a := range os.Args[1:] {
		if len(a) > 6 && (a[:6] == "-test." || (len(a) > 7 && a[:7] == "--test.")) {
			return true
		}
	}
	return false
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
