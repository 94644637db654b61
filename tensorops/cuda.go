//go:build cuda

package tensorops

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"

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

// cudaKernel is one kernel of the module with its description.
type cudaKernel struct {
	fn    cu.Function
	name  string
	op    string // "cuLaunchKernel " + name, for errors
	block int
	args  []kernels.Arg
	// launches counts the launches (worker side), for the test that every
	// kernel is used.
	launches int64
}

// cudaKernels are the functions of the module, looked up at start-up.
type cudaKernels struct {
	op                                     [3][2]*cudaKernel // [kernels.OpKind][kernels.Dtype]
	transpose                              [2]*cudaKernel    // [kernels.Dtype]
	opFinish, fill, axpby                  *cudaKernel
	logProxPartial, logProxFinish          *cudaKernel
	box, ballPartial, ballFinish           *cudaKernel
	proxStatsEnt, proxStatsEuc, avgPartial *cudaKernel
	statsFinish, simplex                   *cudaKernel
	rmDot, rmUpdate, rmNormalize           *cudaKernel
	sampleScanPartial, sampleScanFinish    *cudaKernel
	sampleDraw                             *cudaKernel
	sampleRows, sampleCols                 [2]*cudaKernel // [kernels.Dtype]
	// The batched kernels (cuda_batched.go).
	batchOp                              [3][2]*cudaKernel // [kernels.OpKind][kernels.Dtype]
	batchLogProx, batchSimplex           *cudaKernel
	batchProxStatsEnt, batchProxStatsEuc *cudaKernel
	batchAverage, batchRM                *cudaKernel
	batchCopy, batchAxpby                *cudaKernel
	// byName holds every kernel of the module: all are looked up and
	// checked at start-up, and every one is launched by some operation
	// (TestCUDAConformance checks it).
	byName map[string]*cudaKernel
}

// Workspace sizes: each reduction workspace holds the largest partial
// buffer of a chunked kernel (kernels.VectorShape.WorkspaceLen: 12 words per
// chunk, at most kernels.MaxChunks chunks). Two serve the two strategy
// blocks of ProxStats and Average, the two buffers of regret matching, and
// the entropic prox.
const cudaWorkspaceLen = kernels.StatsRecordWords * kernels.MaxChunks

// maxKernelArgs is the longest argument list of a kernel
// (gpump_batch_proxstats_entropic).
const maxKernelArgs = 18

type cmdKind uint8

const (
	// cmdLaunch launches a kernel; no reply.
	cmdLaunch cmdKind = iota
	// cmdDtoD copies device memory (cuMemcpyDtoDAsync); no reply.
	cmdDtoD
	// cmdHtoD copies host memory to the device; replies with its own
	// error, or, with pend set, keeps it for the next synchronization
	// point and replies nil (the copies of the batched operations' scalars,
	// which report errors like launches).
	cmdHtoD
	// cmdHtoDAsync copies page-locked host memory to the device
	// (cuMemcpyHtoDAsync on the legacy default stream, ordered with the
	// launches); no reply, errors kept for the next synchronization point.
	// The batched operations' per-game scalars travel this way, so that
	// the host does not wait for the device at each of them.
	cmdHtoDAsync
	// cmdDtoH copies device memory to the host, which waits for all the
	// work before it: the synchronization point. It replies with the
	// first error since the previous one (and clears it).
	cmdDtoH
	// cmdFunc runs fn on the worker; replies with fn's error.
	cmdFunc
)

// cudaCmd is one command for the worker. Launches carry their arguments
// by value, 8 bytes each, in args.
type cudaCmd struct {
	kind  cmdKind
	nargs uint8
	kinds [maxKernelArgs]uint8 // kernels.ArgKind of each argument
	k     *cudaKernel
	grid  int
	block int
	args  [maxKernelArgs]uint64
	dst   cu.DevicePtr
	src   cu.DevicePtr
	host  unsafe.Pointer
	bytes int64
	pend  bool
	fn    func() error
}

// cudaCounts count what the worker did, for tests and diagnostics.
type cudaCounts struct {
	launches, dtoh, htod, dtod int64
}

// cudaWorker owns the OS thread and the context. Everything below ch and
// done is touched only by the worker goroutine, or by the caller after a
// reply (the channel operations order them).
type cudaWorker struct {
	ch     chan cudaCmd
	done   chan error
	exited chan error
	// stopped is set by stop (caller side).
	stopped bool

	ctx     cu.CUContext
	mod     cu.Module
	k       cudaKernels
	ws      [2]cu.DevicePtr // reduction workspaces, cudaWorkspaceLen float64 each
	out     cu.DevicePtr    // results of gpump_stats_finish, outCap·kernels.StatsWords float64
	outCap  int             // strategy blocks out holds
	host    []float64       // host copy of out, in page-locked memory
	hostMem unsafe.Pointer  // host's memory (cuMemAllocHost)
	// stageMem is the page-locked staging buffer of the batched
	// operations' scalars (cuMemAllocHost, made on first use); the caller
	// writes it (CUDA.stage).
	stageMem unsafe.Pointer
	smp      cu.DevicePtr // SampledOperator's scratch (running sums, totals, indices)
	smpBytes int64
	cur      *cudaCmd // the command being executed
	params   [maxKernelArgs]unsafe.Pointer
	pending  error
	counts   cudaCounts
}

// cudaWorkers counts the worker goroutines running (tests check that an
// unreachable backend stops its worker).
var cudaWorkers atomic.Int64

// cudaQueue is the number of commands that can be in flight before the
// caller waits for the worker: more than an iteration's launches.
const cudaQueue = 256

func newCUDAWorker() *cudaWorker {
	w := &cudaWorker{
		ch:     make(chan cudaCmd, cudaQueue),
		done:   make(chan error),
		exited: make(chan error, 1),
		cur:    new(cudaCmd),
	}
	for i := range w.params {
		w.params[i] = unsafe.Pointer(&w.cur.args[i])
	}
	return w
}

// loop is the worker goroutine: it locks its OS thread, creates the
// context there, reports start-up on ready, then executes commands until
// ch is closed, and destroys the context. It never unlocks the thread: the
// runtime ends the thread with the goroutine.
func (w *cudaWorker) loop(dev cu.Device, kdev kernels.Device, ready chan<- error) {
	runtime.LockOSThread()
	cudaWorkers.Add(1)
	defer cudaWorkers.Add(-1)
	if err := w.init(dev, kdev); err != nil {
		if w.ctx != (cu.CUContext{}) {
			w.freeOut()
			w.ctx.Destroy()
		}
		ready <- err
		return
	}
	ready <- nil
	for {
		var ok bool
		*w.cur, ok = <-w.ch
		if !ok {
			break
		}
		w.exec(w.cur)
		// Drop the references the command held (a closure may hold the
		// CUDA, which must stay collectable; host buffers belong to the
		// caller).
		w.cur.fn, w.cur.host = nil, nil
	}
	// Wait for the work in flight: its errors are the last ones.
	err := w.pending
	if e := cu.Synchronize(); e != nil && err == nil {
		err = cuErr("cuCtxSynchronize", e)
	}
	// Device memory goes with the context; the page-locked host buffers
	// are freed explicitly.
	if w.hostMem != nil {
		if e := cu.MemFreeHost(w.hostMem); e != nil && err == nil {
			err = cuErr("cuMemFreeHost", e)
		}
		w.hostMem, w.host = nil, nil
	}
	if w.stageMem != nil {
		if e := cu.MemFreeHost(w.stageMem); e != nil && err == nil {
			err = cuErr("cuMemFreeHost", e)
		}
		w.stageMem = nil
	}
	if e := w.ctx.Destroy(); e != nil && err == nil {
		err = cuErr("cuCtxDestroy", e)
	}
	w.exited <- err
}

// stop ends the worker and returns its last error (caller side; also the
// cleanup of an unreachable backend).
func (w *cudaWorker) stop() error {
	if w.stopped {
		return nil
	}
	w.stopped = true
	close(w.ch)
	return <-w.exited
}

// init creates the context and loads the module (worker side).
func (w *cudaWorker) init(dev cu.Device, kdev kernels.Device) error {
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return cuErr("cuCtxCreate", err)
	}
	w.ctx = ctx
	log := make([]byte, 16<<10)
	mod, err := cu.LoadDataEx(kernels.PTX(), &cu.JITErrorLogBuffer{Buffer: log})
	if err != nil {
		e := cuErr("cuModuleLoadData", err)
		var ce *CUDAError
		if errors.As(e, &ce) {
			ce.Detail = "loading the kernels' PTX (" + ptxTarget() + ", PTX ISA of CUDA 11.8: needs a driver of release 520 or later)"
			if msg := strings.TrimSpace(strings.TrimRight(string(log), "\x00")); msg != "" {
				ce.Detail += ": JIT log: " + msg
			}
		}
		return e
	}
	runtime.KeepAlive(log)
	w.mod = mod
	if err := w.k.load(mod, kdev); err != nil {
		return err
	}
	for i := range w.ws {
		bytes := int64(cudaWorkspaceLen * 8)
		if w.ws[i], err = cu.MemAlloc(bytes); err != nil {
			return allocErr(err, bytes, "a reduction workspace")
		}
	}
	return w.growOut(2)
}

// growOut makes out hold the results of at least blocks strategy blocks
// (worker side).
func (w *cudaWorker) growOut(blocks int) error {
	if blocks <= w.outCap {
		return nil
	}
	words := blocks * kernels.StatsWords
	bytes := int64(8 * words)
	p, err := cu.MemAlloc(bytes)
	if err != nil {
		return allocErr(err, bytes, "the reduction results")
	}
	// The one copy of an iteration lands in page-locked memory: the driver
	// copies straight into it (no staging buffer), and returns when it is
	// there.
	h, code := cudainit.HostAlloc(int(bytes))
	if code != 0 {
		cu.MemFree(p)
		return codeErr("cuMemAllocHost", code)
	}
	if err := w.freeOut(); err != nil {
		return err
	}
	w.out, w.outCap = p, blocks
	w.hostMem, w.host = h, unsafe.Slice((*float64)(h), words)
	return nil
}

// freeOut frees the result buffers (worker side).
func (w *cudaWorker) freeOut() error {
	var err error
	if w.out != 0 {
		err = cuErr("cuMemFree", cu.MemFree(w.out))
	}
	if w.hostMem != nil {
		if e := cu.MemFreeHost(w.hostMem); e != nil && err == nil {
			err = cuErr("cuMemFreeHost", e)
		}
	}
	w.out, w.outCap, w.hostMem, w.host = 0, 0, nil, nil
	return err
}

// load looks up every kernel of the module, checks that the device can run
// it with the block size it was compiled for, and fills the fields.
func (k *cudaKernels) load(mod cu.Module, kdev kernels.Device) error {
	k.byName = map[string]*cudaKernel{}
	for _, kn := range kernels.Kernels() {
		fn, err := mod.Function(kn.Name)
		if err != nil {
			e := cuErr("cuModuleGetFunction", err)
			var ce *CUDAError
			if errors.As(e, &ce) {
				ce.Detail = "kernel " + kn.Name + " is not in the embedded PTX (kernels/gpump.ptx out of date?)"
			}
			return e
		}
		if len(kn.Args) > maxKernelArgs {
			return fmt.Errorf("tensorops: cuda: kernel %s takes %d arguments, the backend handles %d", kn.Name, len(kn.Args), maxKernelArgs)
		}
		maxThreads, err := fn.Attribute(cu.FnMaxThreadsPerBlock)
		if err != nil {
			return cuErr("cuFuncGetAttribute", err)
		}
		if maxThreads < kn.Block || kdev.MaxThreadsPerBlock < kn.Block {
			return fmt.Errorf("tensorops: cuda: kernel %s needs blocks of %d threads, the device runs at most %d of it", kn.Name, kn.Block, min(maxThreads, kdev.MaxThreadsPerBlock))
		}
		k.byName[kn.Name] = &cudaKernel{fn: fn, name: kn.Name, op: "cuLaunchKernel " + kn.Name, block: kn.Block, args: kn.Args}
	}
	get := func(name string) *cudaKernel {
		kk := k.byName[name]
		if kk == nil {
			// A name the backend uses that kernels.Kernels() does not list:
			// a programming error in this file.
			panic("tensorops: cuda: kernels does not list " + name)
		}
		return kk
	}
	for _, kind := range []kernels.OpKind{kernels.Fused, kernels.MulVec, kernels.MulTVec} {
		for _, d := range []kernels.Dtype{kernels.F32, kernels.F64} {
			k.op[kind][d] = get(kernels.OpKernel(kind, d))
			k.batchOp[kind][d] = get(kernels.BatchOpKernel(kind, d))
		}
	}
	k.batchLogProx = get(kernels.BatchLogProx)
	k.batchSimplex = get(kernels.BatchSimplexProx)
	k.batchProxStatsEnt = get(kernels.BatchProxStatsEnt)
	k.batchProxStatsEuc = get(kernels.BatchProxStatsEuc)
	k.batchAverage = get(kernels.BatchAverage)
	k.batchRM = get(kernels.BatchRegretMatch)
	k.batchCopy = get(kernels.BatchCopy)
	k.batchAxpby = get(kernels.BatchAxpby)
	for _, d := range []kernels.Dtype{kernels.F32, kernels.F64} {
		k.transpose[d] = get(kernels.TransposeKernel(d))
		k.sampleRows[d] = get(kernels.SampleRowsKernel(d))
		k.sampleCols[d] = get(kernels.SampleColsKernel(d))
	}
	k.sampleScanPartial = get(kernels.SampleScanPartial)
	k.sampleScanFinish = get(kernels.SampleScanFinish)
	k.sampleDraw = get(kernels.SampleDrawKernel)
	k.opFinish = get(kernels.OpFinish)
	k.fill = get(kernels.Fill)
	k.axpby = get(kernels.Axpby)
	k.logProxPartial = get(kernels.LogProxPartial)
	k.logProxFinish = get(kernels.LogProxFinish)
	k.box = get(kernels.BoxProx)
	k.ballPartial = get(kernels.BallPartial)
	k.ballFinish = get(kernels.BallFinish)
	k.proxStatsEnt = get(kernels.ProxStatsEnt)
	k.proxStatsEuc = get(kernels.ProxStatsEuc)
	k.avgPartial = get(kernels.AveragePartial)
	k.statsFinish = get(kernels.StatsFinish)
	k.simplex = get(kernels.SimplexProx)
	k.rmDot = get(kernels.RMDot)
	k.rmUpdate = get(kernels.RMUpdate)
	k.rmNormalize = get(kernels.RMNormalize)
	return nil
}

// exec executes one command (worker side).
func (w *cudaWorker) exec(q *cudaCmd) {
	switch q.kind {
	case cmdLaunch:
		if w.pending != nil {
			return
		}
		w.counts.launches++
		q.k.launches++
		err := q.k.fn.Launch(q.grid, 1, 1, q.block, 1, 1, 0, cu.NoStream, w.params[:q.nargs])
		if err != nil {
			w.pending = cuErr(q.k.op, err)
		}
	case cmdHtoDAsync:
		if w.pending != nil {
			return
		}
		w.counts.htod++
		if err := cu.MemcpyHtoDAsync(q.dst, q.host, q.bytes, cu.NoStream); err != nil {
			w.pending = cuErr("cuMemcpyHtoDAsync", err)
		}
	case cmdDtoD:
		if w.pending != nil {
			return
		}
		w.counts.dtod++
		// On the legacy default stream, like the launches: ordered with
		// them, and the host does not wait.
		if err := cu.MemcpyDtoDAsync(q.dst, q.src, q.bytes, cu.NoStream); err != nil {
			w.pending = cuErr("cuMemcpyDtoDAsync", err)
		}
	case cmdHtoD:
		w.counts.htod++
		err := cuErr("cuMemcpyHtoD", cu.MemcpyHtoD(q.dst, q.host, q.bytes))
		if q.pend {
			if w.pending == nil {
				w.pending = err
			}
			err = nil
		}
		w.done <- err
	case cmdDtoH:
		err := w.pending
		w.pending = nil
		if err == nil && q.bytes > 0 {
			w.counts.dtoh++
			err = cuErr("cuMemcpyDtoH", cu.MemcpyDtoH(q.host, q.src, q.bytes))
		}
		w.done <- err
	case cmdFunc:
		w.done <- q.fn()
	}
}

// do runs f on the worker and returns its error (caller side; not for the
// per-iteration path: the closure allocates).
func (c *CUDA) do(f func() error) error {
	c.check()
	c.w.ch <- cudaCmd{kind: cmdFunc, fn: f}
	return <-c.w.done
}

// check panics after Close.
func (c *CUDA) check() {
	if c.closed {
		panic("tensorops: cuda: use of a closed backend")
	}
}

// launch is a kernel launch being built on the caller's stack.
type launch struct{ cudaCmd }

func (c *CUDA) newLaunch(k *cudaKernel, l kernels.Launch) launch {
	return launch{cudaCmd{kind: cmdLaunch, k: k, grid: l.Grid, block: l.Block}}
}

func (q *launch) add(kind kernels.ArgKind, v uint64) *launch {
	if int(q.nargs) == maxKernelArgs {
		panic("tensorops: cuda: too many arguments for " + q.k.name)
	}
	q.kinds[q.nargs] = uint8(kind)
	q.args[q.nargs] = v
	q.nargs++
	return q
}

// ptr adds a device pointer argument (0 for a nullable one skipped).
func (q *launch) ptr(p cu.DevicePtr) *launch { return q.add(kernels.Ptr, uint64(p)) }

// i64 adds a 64-bit integer argument.
func (q *launch) i64(v int64) *launch { return q.add(kernels.Int, uint64(v)) }

// f64 adds a float64 argument (its bits).
func (q *launch) f64(v float64) *launch {
	return q.add(kernels.Float, math.Float64bits(v))
}

// submit checks the launch against the kernel's description in package
// kernels (argument count and kinds, no null pointer where the kernel
// does not accept one, the block size it was compiled for, a positive grid
// within the device's limit) and enqueues it. A mismatch is a bug in this
// backend or a change in kernels/ it does not follow: it panics.
func (c *CUDA) submit(q *launch) {
	c.check()
	k := q.k
	if int(q.nargs) != len(k.args) {
		panic(fmt.Sprintf("tensorops: cuda: %s launched with %d arguments, it takes %d", k.name, q.nargs, len(k.args)))
	}
	for i, a := range k.args {
		if kernels.ArgKind(q.kinds[i]) != a.Kind {
			panic(fmt.Sprintf("tensorops: cuda: %s argument %d (%s) is a %v, the launch passes a %v", k.name, i, a.Name, a.Kind, kernels.ArgKind(q.kinds[i])))
		}
		if a.Kind == kernels.Ptr && !a.Nullable && q.args[i] == 0 {
			panic(fmt.Sprintf("tensorops: cuda: %s argument %d (%s) must not be null", k.name, i, a.Name))
		}
	}
	if q.block != k.block || q.grid < 1 || (c.kdev.MaxGridDimX > 0 && int64(q.grid) > c.kdev.MaxGridDimX) {
		panic(fmt.Sprintf("tensorops: cuda: %s launched with grid %d and block %d (compiled for block %d)", k.name, q.grid, q.block, k.block))
	}
	c.w.ch <- q.cudaCmd
}

// sync enqueues a device-to-host copy of bytes at src into host and waits
// for it: the synchronization point. It returns the first error since the
// previous synchronization point.
func (c *CUDA) sync(host unsafe.Pointer, src cu.DevicePtr, bytes int64) error {
	c.check()
	c.w.ch <- cudaCmd{kind: cmdDtoH, host: host, src: src, bytes: bytes}
	err := <-c.w.done
	if err == nil && bytes > 0 {
		// The copy waited for all the work before it, the staged
		// scalars' copies included.
		c.staged = 0
	}
	return err
}
