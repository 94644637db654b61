//go:build cuda

package tensorops

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpump/gpump/kernels"
	"github.com/gpump/gpump/tensorops/internal/cudainit"
)

// The CUDA backend's worker: the one goroutine that owns the context and
// makes every driver call, the commands the methods send it, and the
// module's kernels it loads and launches.

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
