//go:build cuda

package tensorops

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
	// The preflight: its init runs before gorgonia.org/cu's (see its package
	// comment) and turns "no usable device" into one clear line. Imported
	// here, next to the only import of gorgonia.org/cu, so that every binary
	// that links cu through this package links it too.
	"github.com/gpump/gpump/tensorops/internal/cudainit"
)

// CUDA is the backend on an NVIDIA GPU (build tag cuda), through the CUDA
// driver API (gorgonia.org/cu): the binary needs the driver's libcuda and
// no toolkit library at run time. The kernels are the PTX of package
// kernels, loaded once per backend and JIT-compiled by the driver for the
// device.
//
// The payoff matrix and every vector live in device memory. Load and Store
// are the only host↔device copies of vectors; ProxStats and Average bring
// their scalars back in one device-to-host copy of a small struct (10
// float64 per strategy block), which is the only synchronization of a
// mirror-prox iteration.
//
// Every driver call that needs a context is made by one goroutine that
// holds a locked OS thread with the backend's own context current (not
// cu.Ctx or BatchedContext); only the device queries (CUDADevices, the
// attributes read by NewCUDA), which need no context, run on the caller's.
// The methods send it commands over a buffered channel: the operations that
// only launch work (Operator, Prox, Axpby, Copy, ...) enqueue their kernel
// launches and return at once, so the host runs ahead of the device; the
// methods that return an error wait for their reply. Launch commands are
// built on the caller's stack with every kernel argument in 8-byte storage
// (gorgonia.org/cu's Launch reads 8 bytes per argument), so a mirror-prox
// iteration allocates nothing on the Go heap.
//
// Errors: a failed driver call becomes a *CUDAError naming the call and the
// CUDA error ("tensorops: cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out
// of memory): asked 4294967296 bytes for a 32768×32768 f32 payoff matrix,
// 1073741824 of 17179869184 bytes free"). A failed launch, or a kernel that
// faults, is reported by the next synchronization point (Store, ProxStats,
// Average), as the contract says; launches after a failure are skipped until
// then. Passing vectors of another backend, of the wrong length, or freed
// ones panics, as does any use after Close but Free (a no-op then) and
// Close.
//
// CUDA is Batched (cuda_batched.go): a batch of small games advances with
// one launch per operation for all its selected games, a block per game.
type CUDA struct {
	w       *cudaWorker
	info    CUDADeviceInfo
	kdev    kernels.Device
	kname   string
	cleanup runtime.Cleanup
	closed  bool
	// stage is the page-locked staging buffer of the batched operations'
	// scalars (cudaWorker.stageMem) and staged the words of it written
	// since the last synchronization point: the copies that read them may
	// still be queued, so they are not overwritten before it.
	stage  []float64
	staged int
	// stageLimit, when positive, caps the staging buffer's use (tests).
	stageLimit int
}

var _ Backend = (*CUDA)(nil)

// CUDAError is a failed CUDA driver call.
type CUDAError struct {
	// Op is the driver call ("cuMemAlloc", "cuLaunchKernel gpump_axpby").
	Op string
	// Code is the CUresult, Name its name ("CUDA_ERROR_OUT_OF_MEMORY") and
	// Desc the driver's description of it.
	Code       int
	Name, Desc string
	// Detail says what was asked, where it helps (the bytes of an
	// allocation and the memory free).
	Detail string
}

func (e *CUDAError) Error() string {
	var b strings.Builder
	b.WriteString("tensorops: cuda: ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	b.WriteString(e.Name)
	if e.Desc != "" {
		b.WriteString(" (")
		b.WriteString(e.Desc)
		b.WriteString(")")
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// outOfMemory is CUDA_ERROR_OUT_OF_MEMORY.
const outOfMemory = 2

// cuErr turns an error of gorgonia.org/cu (its unexported CUresult type,
// an int) into a *CUDAError with the driver's name of the code.
func cuErr(op string, err error) error {
	if err == nil {
		return nil
	}
	v := reflect.ValueOf(err)
	if !v.CanInt() {
		return fmt.Errorf("tensorops: cuda: %s: %w", op, err)
	}
	return codeErr(op, int(v.Int()))
}

// codeErr is the *CUDAError of a CUresult code (nil for 0, CUDA_SUCCESS).
func codeErr(op string, code int) error {
	if code == 0 {
		return nil
	}
	return &CUDAError{Op: op, Code: code, Name: cudainit.ErrorName(code), Desc: cudainit.ErrorString(code)}
}

// allocErr is cuErr for an allocation of the given bytes: an out-of-memory
// error says what was asked and what is free (cuMemGetInfo). It runs on the
// worker.
func allocErr(err error, bytes int64, what string) error {
	e := cuErr("cuMemAlloc", err)
	var ce *CUDAError
	if errors.As(e, &ce) {
		ce.Detail = fmt.Sprintf("asked %d bytes for %s", bytes, what)
		if ce.Code == outOfMemory {
			if free, total, err := cu.MemInfo(); err == nil {
				ce.Detail += fmt.Sprintf(", %d of %d bytes free", free, total)
			}
		}
	}
	return e
}

// CUDADeviceInfo describes one CUDA device, from the driver's attributes.
type CUDADeviceInfo struct {
	// Ordinal is the device's index (NewCUDA's argument).
	Ordinal int `json:"ordinal"`
	// Name is the device's name ("NVIDIA H100 80GB HBM3").
	Name string `json:"name"`
	// TotalMemory is the device memory in bytes.
	TotalMemory int64 `json:"total_memory"`
	// Major and Minor are the compute capability (9 and 0 for sm_90).
	Major int `json:"cc_major"`
	Minor int `json:"cc_minor"`
	// Multiprocessors is the number of streaming multiprocessors.
	Multiprocessors int `json:"multiprocessors"`
	// MemoryClockKHz is the peak memory clock in kHz and BusWidthBits the
	// global memory bus width in bits (0 when the driver does not say).
	MemoryClockKHz int `json:"memory_clock_khz"`
	BusWidthBits   int `json:"bus_width_bits"`
	// PeakBandwidth is 2 · clock · bus width / 8 in bytes per second (the
	// memory transfers data on both clock edges); 0 when unknown.
	PeakBandwidth float64 `json:"peak_bandwidth"`
	// DriverVersion is cuDriverGetVersion: 1000·major + 10·minor (12040 is
	// 12.4).
	DriverVersion int `json:"driver_version"`
}

// ComputeCapability returns "9.0".
func (d CUDADeviceInfo) ComputeCapability() string { return fmt.Sprintf("%d.%d", d.Major, d.Minor) }

// Driver returns the driver's CUDA version, "12.4".
func (d CUDADeviceInfo) Driver() string {
	return fmt.Sprintf("%d.%d", d.DriverVersion/1000, d.DriverVersion%1000/10)
}

// CUDADevices describes every CUDA device the driver shows this process.
func CUDADevices() ([]CUDADeviceInfo, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, cuErr("cuDeviceGetCount", err)
	}
	out := make([]CUDADeviceInfo, 0, n)
	for i := range n {
		d, err := deviceInfo(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// deviceInfo reads one device's attributes (no context needed).
func deviceInfo(ordinal int) (CUDADeviceInfo, error) {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return CUDADeviceInfo{}, cuErr("cuDeviceGet", err)
	}
	d := CUDADeviceInfo{Ordinal: ordinal, DriverVersion: cu.Version()}
	if d.Name, err = dev.Name(); err != nil {
		return d, cuErr("cuDeviceGetName", err)
	}
	if d.TotalMemory, err = dev.TotalMem(); err != nil {
		return d, cuErr("cuDeviceTotalMem", err)
	}
	for _, a := range []struct {
		attr cu.DeviceAttribute
		dst  *int
	}{
		{cu.ComputeCapabilityMajor, &d.Major},
		{cu.ComputeCapabilityMinor, &d.Minor},
		{cu.MultiprocessorCount, &d.Multiprocessors},
	} {
		if *a.dst, err = dev.Attribute(a.attr); err != nil {
			return d, cuErr("cuDeviceGetAttribute", err)
		}
	}
	// The memory clock is deprecated in recent toolkits' runtime API; a
	// driver that no longer reports it leaves the peak unknown.
	clock, err1 := dev.Attribute(cu.MemoryClockRate)
	bus, err2 := dev.Attribute(cu.GlobalMemoryBusWidth)
	if err1 == nil && err2 == nil && clock > 0 && bus > 0 {
		d.MemoryClockKHz, d.BusWidthBits = clock, bus
		d.PeakBandwidth = 2 * float64(clock) * 1e3 * float64(bus) / 8
	}
	return d, nil
}

// kernelDevice reads the limits the launch shapes depend on.
func kernelDevice(dev cu.Device) (kernels.Device, error) {
	var kd kernels.Device
	var grid int
	for _, a := range []struct {
		attr cu.DeviceAttribute
		dst  *int
	}{
		{cu.MaxThreadsPerBlock, &kd.MaxThreadsPerBlock},
		{cu.MultiprocessorCount, &kd.MultiprocessorCount},
		{cu.MaxGridDimX, &grid},
		{cu.MaxSharedMemoryPerBlock, &kd.MaxSharedPerBlock},
	} {
		v, err := dev.Attribute(a.attr)
		if err != nil {
			return kd, cuErr("cuDeviceGetAttribute", err)
		}
		*a.dst = v
	}
	kd.MaxGridDimX = int64(grid)
	return kd, nil
}

// ptxTarget returns the virtual architecture of the embedded PTX
// ("compute_70", from its ".target sm_70" line).
func ptxTarget() string {
	for line := range strings.Lines(kernels.PTX()) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), ".target "); ok {
			t, _, _ = strings.Cut(t, ",")
			return strings.Replace(strings.TrimSpace(t), "sm_", "compute_", 1)
		}
	}
	return "unknown"
}

// NewCUDA opens CUDA device `device` (0 is the first): it creates a context
// on a dedicated OS thread, loads the kernels' PTX (the driver JIT-compiles
// it for the device on first use and caches the result), looks up every
// kernel (an error names a missing one), and allocates the reduction
// workspaces (2 × 64 KiB) and the result buffer of the per-iteration
// copy (page-locked on the host). Close it to release the device; an unreachable
// backend is closed when it is garbage collected.
func NewCUDA(device int) (*CUDA, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, cuErr("cuDeviceGetCount", err)
	}
	if device < 0 || device >= n {
		return nil, fmt.Errorf("tensorops: cuda: no device %d (the driver shows %d)", device, n)
	}
	info, err := deviceInfo(device)
	if err != nil {
		return nil, err
	}
	dev, err := cu.GetDevice(device)
	if err != nil {
		return nil, cuErr("cuDeviceGet", err)
	}
	kdev, err := kernelDevice(dev)
	if err != nil {
		return nil, err
	}
	w := newCUDAWorker()
	ready := make(chan error)
	go w.loop(dev, kdev, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	c := &CUDA{w: w, info: info, kdev: kdev,
		kname: fmt.Sprintf("ptx %s on sm_%d%d", ptxTarget(), info.Major, info.Minor)}
	// The worker goroutine references w, never c, so c can become
	// unreachable; then the worker destroys the context and exits.
	c.cleanup = runtime.AddCleanup(c, func(w *cudaWorker) { w.stop() }, w)
	return c, nil
}

// Name returns "cuda".
func (c *CUDA) Name() string { return "cuda" }

// Kernels names the kernels and the device: "ptx compute_70 on sm_90" (the
// PTX's virtual architecture, JIT-compiled for the device's compute
// capability).
func (c *CUDA) Kernels() string { return c.kname }

// Info describes the backend's device.
func (c *CUDA) Info() CUDADeviceInfo { return c.info }

// Close waits for the work in flight, destroys the context (which frees
// every matrix and vector of the backend) and stops the worker thread. It
// returns an error raised since the last synchronization point, if any.
// Closing twice is a no-op.
func (c *CUDA) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.cleanup.Stop()
	return c.w.stop()
}
