//go:build mpi

package mpi

/*
#include <stdlib.h>
#include <mpi.h>

static int gpump_init(int *provided) {
	int done = 0;
	MPI_Initialized(&done);
	if (done) {
		return MPI_Query_thread(provided);
	}
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, provided);
}
static int gpump_serialized(int provided) { return provided >= MPI_THREAD_SERIALIZED; }
static int gpump_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int gpump_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int gpump_local(int *r, int *s) {
	MPI_Comm node;
	int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	if (rc != MPI_SUCCESS) {
		return rc;
	}
	MPI_Comm_rank(node, r);
	MPI_Comm_size(node, s);
	return MPI_Comm_free(&node);
}
static int gpump_allgatherv(double *send, int n, double *recv, int *counts, int *displs) {
	return MPI_Allgatherv(send, n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int gpump_bcast(void *buf, int n, int root) {
	return MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
}
static int gpump_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int gpump_send(void *buf, int n, int dest, int tag) {
	return MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}
static int gpump_iprobe(int tag, int *flag, int *source, int *n) {
	MPI_Status st;
	int rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, flag, &st);
	if (rc == MPI_SUCCESS && *flag) {
		*source = st.MPI_SOURCE;
		rc = MPI_Get_count(&st, MPI_BYTE, n);
	}
	return rc;
}
static int gpump_recv(void *buf, int n, int source, int tag) {
	return MPI_Recv(buf, n, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int gpump_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int gpump_finalize(void) {
	int done = 0;
	MPI_Finalized(&done);
	return done ? MPI_SUCCESS : MPI_Finalize();
}
static int gpump_version(char *s, int *n) { return MPI_Get_library_version(s, n); }
static int gpump_version_max(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }
*/
import "C"

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Enabled is true in the MPI build.
const Enabled = true

var (
	once    sync.Once
	world   *World
	initErr error
)

// Init joins the job (MPI_Init_thread, asking that calls from any one
// goroutine at a time be allowed, MPI_THREAD_SERIALIZED) and returns its
// World. Later calls return the same World.
func Init() (*World, error) {
	once.Do(func() {
		var provided C.int
		if rc := C.gpump_init(&provided); rc != C.MPI_SUCCESS {
			initErr = fmt.Errorf("mpi: MPI_Init_thread failed (code %d)", int(rc))
			return
		}
		if C.gpump_serialized(provided) == 0 {
			initErr = fmt.Errorf("mpi: the MPI library allows calls from one thread only (MPI_THREAD_SERIALIZED not provided); Go's goroutines move between threads")
			return
		}
		var r, s, lr, ls C.int
		C.gpump_rank(&r)
		C.gpump_size(&s)
		if rc := C.gpump_local(&lr, &ls); rc != C.MPI_SUCCESS {
			initErr = fmt.Errorf("mpi: MPI_Comm_split_type (the ranks of this node) failed (code %d)", int(rc))
			return
		}
		world = &World{rank: int(r), size: int(s), localRank: int(lr), localSize: int(ls)}
	})
	return world, initErr
}

// World is MPI_COMM_WORLD, the job's ranks. It implements shard.Comm; its
// collectives are made by one goroutine at a time.
type World struct {
	rank, size int
	// localRank and localSize place this rank among the ranks of its node
	// (those that share its memory).
	localRank, localSize int
	counts               []C.int
	displs               []C.int
}

// Rank returns this process's rank.
func (w *World) Rank() int { return w.rank }

// Size returns the number of ranks.
func (w *World) Size() int { return w.size }

// LocalRank returns this rank's index among the ranks of its node (those
// that share its memory: MPI_COMM_TYPE_SHARED), 0 … LocalSize() − 1, in
// the order of their world ranks: the GPU a rank takes, say.
func (w *World) LocalRank() int { return w.localRank }

// LocalSize returns the number of ranks on this rank's node.
func (w *World) LocalSize() int { return w.localSize }

// Allgather sets recv to every rank's send concatenated in rank order
// (MPI_Allgatherv). counts[r] is rank r's len(send).
func (w *World) Allgather(send, recv []float64, counts []int) {
	if len(counts) != w.size || len(send) != counts[w.rank] {
		panic(fmt.Sprintf("mpi: Allgather of %d on rank %d with counts %v", len(send), w.rank, counts))
	}
	if cap(w.counts) < w.size {
		w.counts, w.displs = make([]C.int, w.size), make([]C.int, w.size)
	}
	cs, ds := w.counts[:w.size], w.displs[:w.size]
	off := 0
	for r, k := range counts {
		if k < 0 || k > math.MaxInt32 || off > math.MaxInt32-k {
			panic(fmt.Sprintf("mpi: Allgather counts %v exceed MPI's int", counts))
		}
		cs[r], ds[r] = C.int(k), C.int(off)
		off += k
	}
	if off != len(recv) {
		panic(fmt.Sprintf("mpi: Allgather of %d into %d", off, len(recv)))
	}
	if off == 0 {
		return
	}
	var sp *C.double
	if len(send) > 0 {
		sp = (*C.double)(unsafe.Pointer(&send[0]))
	} else {
		sp = (*C.double)(unsafe.Pointer(&recv[0])) // not read: count 0
	}
	// cgo's pointer check: the Go slices hold no Go pointers.
	C.gpump_allgatherv(sp, C.int(len(send)), (*C.double)(unsafe.Pointer(&recv[0])), &cs[0], &ds[0])
}

// Bcast sets buf on every rank to root's (MPI_Bcast); buf has the same
// length on every rank.
func (w *World) Bcast(buf []byte, root int) {
	if len(buf) == 0 {
		return
	}
	if len(buf) > math.MaxInt32 {
		panic(fmt.Sprintf("mpi: Bcast of %d bytes exceeds MPI's int", len(buf)))
	}
	C.gpump_bcast(unsafe.Pointer(&buf[0]), C.int(len(buf)), C.int(root))
}

// Send sends b to rank dest with tag (MPI_Send). Sends from one rank to
// another with one tag arrive in the order they were sent.
func (w *World) Send(b []byte, dest, tag int) {
	if len(b) > math.MaxInt32 {
		panic(fmt.Sprintf("mpi: Send of %d bytes exceeds MPI's int", len(b)))
	}
	C.gpump_send(bytesPtr(b), C.int(len(b)), C.int(dest), C.int(tag))
}

// Recv receives the next message with tag from any rank and returns it
// with its sender. It waits by probing (MPI_Iprobe) every half a
// millisecond, not in MPI_Recv, whose busy wait would take a core from the
// work of a rank that shares its cores.
func (w *World) Recv(tag int) (b []byte, source int) {
	var flag, src, n C.int
	for {
		C.gpump_iprobe(C.int(tag), &flag, &src, &n)
		if flag != 0 {
			break
		}
		time.Sleep(500 * time.Microsecond)
	}
	b = make([]byte, int(n))
	C.gpump_recv(bytesPtr(b), n, src, C.int(tag))
	return b, int(src)
}

// bytesPtr points at b's first byte, or at a byte of nothing for an empty b
// (MPI reads no byte of a zero count).
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return unsafe.Pointer(&zero)
	}
	return unsafe.Pointer(&b[0])
}

var zero byte

// Barrier waits for every rank (MPI_Barrier).
func (w *World) Barrier() { C.gpump_barrier() }

// Abort ends every rank of the job with code (MPI_Abort); it does not
// return.
func (w *World) Abort(code int) {
	C.gpump_abort(C.int(code))
	select {} // MPI_Abort does not return; should it, stay out of the way
}

// Finalize leaves the job (MPI_Finalize); no collective may follow.
func Finalize() error {
	if rc := C.gpump_finalize(); rc != C.MPI_SUCCESS {
		return fmt.Errorf("mpi: MPI_Finalize failed (code %d)", int(rc))
	}
	return nil
}

// Library names the MPI library linked in (MPI_Get_library_version), its
// first line.
func Library() string {
	buf := make([]byte, int(C.gpump_version_max()))
	var n C.int
	C.gpump_version((*C.char)(unsafe.Pointer(&buf[0])), &n)
	s := string(buf[:max(int(n), 0)])
	if i := strings.IndexAny(s, "\r\n,"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(strings.TrimRight(s, "\x00"))
}
