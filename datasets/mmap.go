package datasets

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"gorgonia.org/tensor"
)

// Mapped is a .npy file mapped read-only into memory, for matrices near
// the size of the machine's memory. The matrix is not copied and takes no
// Go heap: its pages are those of the file in the page cache, which the
// kernel reads in as they are used and, since they are never written,
// can drop under memory pressure and read again later, where a matrix
// read with ReadNPY would have to fit in memory and be swapped out.
// Create one with MapNPY and release it with Close; the garbage collector
// does not release it.
//
// The file must not be changed while it is mapped (the mapping is
// shared): writes to it would show in the matrix, unchecked, and where it
// was truncated, reading the matrix crashes the program (SIGBUS) unless
// the reading goroutine set debug.SetPanicOnFault. Watch tells when
// another process is about to change it, and holds that process back.
type Mapped struct {
	mu      sync.Mutex
	path    string
	f       *os.File // held open for the lease of Watch
	mem     []byte   // the whole mapping; nil after Close
	t       *tensor.Dense
	changed chan struct{} // made by Watch
	leased  bool
}

// MapNPY maps the .npy file at path into memory read-only and returns it.
// Dense returns the matrix, whose backing array is the mapping itself.
//
// Only a file that can be used in place can be mapped: a 2-D array of
// float64 or float32 in the byte order of this machine (little-endian
// '<' on amd64 and arm64, or native '|', '=') and in C order, whose
// payload starts at a multiple of the element size (NumPy pads headers
// to 64 bytes, so it does). Any other dtype, byte order or memory order
// gives an error matching ErrFormat that says to use ReadNPY, which
// converts; so do a malformed header and a truncated payload, as for
// ReadNPY. Data after the payload is ignored.
//
// MapNPY reads the whole payload once to check that every entry is
// finite, in parallel on GOMAXPROCS goroutines for large files: a NaN or
// infinite entry gives an error matching ErrNotFinite that names the
// first in row-major order by (row, column), as ReadNPY does. During the
// check the mapping is advised sequential (MADV_SEQUENTIAL: aggressive
// read-ahead); then it is set back to normal advice (MADV_NORMAL). The
// solvers stream the whole matrix in every pass: under normal advice the
// pages of a matrix that fits in memory stay cached from one pass to the
// next, which sequential advice would let the kernel drop soon after each
// read, and random advice would read a file that is not cached a page at
// a time.
//
// Memory mapping needs a Unix system; elsewhere MapNPY returns an error
// saying that it is not supported. Named pipes and devices cannot be
// mapped either.
func MapNPY(path string) (*Mapped, error) {
	if !mmapSupported {
		return nil, &dataError{file: path, msg: fmt.Sprintf("memory mapping is not supported on %s; use ReadNPY", runtime.GOOS), off: -1}
	}
	f, size, err := openInput(path, "an npy file")
	if err != nil {
		return nil, err
	}
	if size < 0 {
		f.Close()
		return nil, &dataError{file: path, msg: "is not a regular file and cannot be memory-mapped; use ReadNPY", off: -1}
	}
	m, err := mapNPY(f, size)
	if err != nil {
		f.Close()
		return nil, inFile(path, err)
	}
	m.path, m.f = path, f
	return m, nil
}

// mapNPY maps the .npy file f of size bytes.
func mapNPY(f *os.File, size int64) (*Mapped, error) {
	h, err := readNPYHeader(f, size)
	if err != nil {
		return nil, err
	}
	if err := h.checkPlatform(); err != nil {
		return nil, err
	}
	order := "little"
	if hostBigEndian {
		order = "big"
	}
	switch {
	case h.kind != 'f':
		return nil, formatErr(-1, fmt.Sprintf("cannot map dtype %q: only float64 and float32 can be memory-mapped; use ReadNPY, which converts", clip(h.descr)))
	case h.bigEndian != hostBigEndian:
		return nil, formatErr(-1, fmt.Sprintf("cannot map dtype %q: only %s-endian data can be memory-mapped here; use ReadNPY, which converts", clip(h.descr), order))
	case h.fortran:
		return nil, formatErr(-1, "cannot map a Fortran-order (column-major) array; use ReadNPY, which converts")
	case h.dataOff%int64(h.itemSize) != 0:
		return nil, formatErr(h.dataOff, fmt.Sprintf("cannot map a payload that is not aligned to its %d-byte elements; use ReadNPY", h.itemSize))
	}
	if h.nbytes > size-h.dataOff {
		return nil, h.truncated(size - h.dataOff)
	}
	end := h.dataOff + h.nbytes
	if int64(int(end)) != end {
		return nil, formatErr(-1, fmt.Sprintf("matrix of shape %s is too large to map on this platform", shapeString(h.shape)))
	}
	mem, err := mmapFile(f, int(end))
	if err != nil {
		return nil, &dataError{msg: "memory-mapping", off: -1, cause: err}
	}
	payload := mem[h.dataOff:end]
	p := unsafe.Pointer(unsafe.SliceData(payload))
	var backing any
	madvise(mem, adviceSequential)
	if h.itemSize == 4 {
		s := unsafe.Slice((*float32)(p), h.count)
		err = checkMapped(h, s)
		backing = s
	} else {
		s := unsafe.Slice((*float64)(p), h.count)
		err = checkMapped(h, s)
		backing = s
	}
	if err != nil {
		munmap(mem)
		return nil, err
	}
	madvise(mem, adviceNormal)
	return &Mapped{mem: mem, t: tensor.New(tensor.WithShape(h.m, h.n), tensor.WithBacking(backing))}, nil
}

// parallelCheck is the number of entries from which checkMapped splits
// its work among goroutines.
const parallelCheck = 1 << 20

// checkMapped checks that the mapped entries s of a C-order file are
// finite. Parts of s are checked in parallel, which pages them in in
// parallel (twice as fast on two cores for a file in the page cache). A
// fault reading them (the file was truncated since it was mapped) is
// returned as an error.
func checkMapped[T float](h *npyHeader, s []T) error {
	w := runtime.GOMAXPROCS(0)
	if len(s) < parallelCheck {
		w = 1
	}
	step := (len(s) + w - 1) / w
	bad := make([]int, w)
	faults := make([]any, w)
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := min(k*step, len(s)), min((k+1)*step, len(s))
		check := func() {
			bad[k], faults[k] = scanMapped(s[lo:hi])
			if bad[k] >= 0 {
				bad[k] += lo
			}
		}
		if w == 1 {
			check()
		} else {
			wg.Go(check)
		}
	}
	wg.Wait()
	for _, f := range faults {
		if f != nil {
			return &dataError{msg: fmt.Sprintf("reading the mapped payload failed (was the file changed?): %v", f), off: -1}
		}
	}
	for _, j := range bad {
		if j >= 0 {
			return nonFiniteErr(h, j, float64(s[j]), h.itemSize)
		}
	}
	return nil
}

// scanMapped returns the index of the first non-finite entry of s, or -1,
// and what a fault reading s panicked with.
func scanMapped[T float](s []T) (j int, fault any) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			j, fault = -1, r
		}
	}()
	return firstNonFinite(s), nil
}

// Dense returns the mapped matrix: a row-major m×n tensor of dtype
// tensor.Float64 or tensor.Float32, as in the file, whose backing array
// is the mapping (every call returns the same tensor). It is read-only:
// writing to it, for instance with an in-place operation, faults and
// crashes the program, since the pages are mapped PROT_READ. It must not
// be used after Close, which unmaps its memory; Dense returns nil after
// Close.
func (m *Mapped) Dense() *tensor.Dense {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

// Close unmaps and closes the file, which releases the lease of Watch. The
// tensor returned by Dense must not be used afterwards. Closing a Mapped that is already closed does nothing and
// returns nil. The mapping is only released by Close, not by the garbage
// collector.
func (m *Mapped) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mem == nil {
		return nil
	}
	err := munmap(m.mem)
	m.mem, m.t = nil, nil
	// Closing the file releases the lease, after the unmapping: a process
	// held back by it may truncate the file now.
	if m.leased {
		unwatch(m)
	}
	m.f.Close()
	if err != nil {
		return &dataError{file: m.path, msg: "unmapping", off: -1, cause: err}
	}
	return nil
}
