package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/tensor"
)

// ReadOptions holds options for the readers (Read, ReadNPY, DecodeNPY,
// ReadNPZ, ReadCSV, ReadMTX and their Decode forms). A nil *ReadOptions
// is the same as the zero value.
type ReadOptions struct {
	// Format is the file format for Read: "npy", "npz", "csv" or "mtx".
	// The empty string chooses it from the file name's extension.
	Format string
	// Key names the member of an .npz archive to read, with or without
	// its ".npy" suffix. The empty string accepts an archive holding a
	// single array.
	Key string

	// DType is the dtype of the result: tensor.Float64 or
	// tensor.Float32. Entries are converted while reading, chunk by
	// chunk, so the file's own type is never held in full. The zero
	// value keeps float64 and float32 files in their own type and
	// converts integer and bool files, and text files, to
	// tensor.Float64.
	//
	// A float64 or text file read as Float32 must fit float32's normal
	// range: a file with entries that overflow float32, or whose entries
	// all lie below 2⁻¹²⁶ (where float32 rounds to subnormals or zero and
	// its rounding is no longer within 2⁻²⁴ of the largest entry), gives a
	// *RangeError. ReadScaled reads such files scaled instead.
	DType tensor.Dtype
	// Exp, with DType tensor.Float32, multiplies every entry by 2^Exp (in
	// float64, exactly) before rounding it to float32, so that the result
	// holds the file's matrix times 2^Exp. ReadScaled chooses it.
	Exp int
	// Note, when not nil, hears in one sentence of each assumption a
	// reader makes about the file: a skipped CSV header row, bool entries
	// read as 0 and 1, Matrix Market pattern entries read as 1.
	Note func(string)
}

// readChunk is the number of payload bytes read at a time: small enough
// for a chunk to be in cache (L3) when it is checked right after the
// read, large enough for few system calls and hand-offs between the
// reading and the checking goroutines. On a 1 GiB file 8 MiB was faster
// than 2 and 4 MiB and as fast as larger sizes (BenchmarkReadNPY). It is
// a variable so that benchmarks and tests can change it.
var readChunk = 8 << 20

// initialUnknown is the number of bytes first allocated for the result
// when the size of the input is unknown; the allocation then doubles as
// data arrives.
const initialUnknown = 256 << 10

// hostBigEndian reports whether this machine stores numbers big-endian.
var hostBigEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

// float is the constraint of the result element types.
type float interface{ ~float32 | ~float64 }

// number is the constraint of the file element types.
type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// ReadNPY reads the 2-D array in the .npy file at path and returns it as a
// row-major m×n matrix. See DecodeNPY for the accepted files, the dtype of
// the result and the errors. Error messages name the file. The size of a
// regular file caps what its header may claim; a named pipe or a device is
// read as a stream of unknown size.
func ReadNPY(path string, opt *ReadOptions) (*tensor.Dense, error) {
	return read(context.Background(), path, opt, "npy")
}

// DecodeNPY reads a .npy stream from r and returns the 2-D array it holds
// as a row-major m×n matrix. size is the number of bytes available from r,
// or -1 if unknown; a header claiming more data than size is an error,
// found before anything large is allocated. When size is -1 and r has a
// Len method (bytes.Reader, strings.Reader, bytes.Buffer) or is an
// io.Seeker, the size is found from it; otherwise the result grows as data
// arrives, which can temporarily take up to twice its final size.
//
// Format versions 1.0, 2.0 and 3.0 are accepted, little-endian ('<'),
// big-endian ('>') and native ('|', '=') byte orders, and C or Fortran
// order; the result is row-major in both cases. The element types are
// float64 ('f8'), float32 ('f4'), signed ('i1', 'i2', 'i4', 'i8') and
// unsigned ('u1', 'u2', 'u4', 'u8') integers and bool ('b1', read as 0
// and 1). The dtype of the result is chosen by opt (see ReadOptions);
// integers too large for its mantissa are rounded to nearest.
//
// Besides the result, reading takes buffers of a few MiB. A Fortran-order
// payload is read a few whole columns at a time, so with very long columns
// the buffers hold up to 8 columns, at most 1/16 of the file's payload,
// and their conversion to the result's dtype.
//
// An array that is not 2-D, has no entries or has an unsupported dtype,
// and a malformed or truncated stream, give an error matching ErrFormat. A
// NaN or infinite entry, or a float64 entry too large for float32 when
// the result is Float32, gives an error matching ErrNotFinite that names
// the first such entry in row-major order by (row, column).
func DecodeNPY(r io.Reader, size int64, opt *ReadOptions) (*tensor.Dense, error) {
	return decodeStream(r, size, opt, decodeNPY)
}

// decodeStream decodes r, of size bytes or -1 (then found from r if it
// can be), with decode as opt says.
func decodeStream(r io.Reader, size int64, opt *ReadOptions, decode func(io.Reader, int64, target) (*tensor.Dense, error)) (*tensor.Dense, error) {
	tg, err := resultTarget(opt)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		size = streamSize(r)
	}
	return decode(r, size, tg)
}

// streamSize returns the number of bytes left in r, or -1 if it cannot be
// found without reading.
func streamSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case io.Seeker:
		cur, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		end, err := r.Seek(0, io.SeekEnd)
		if err != nil {
			return -1
		}
		if _, err := r.Seek(cur, io.SeekStart); err != nil || end < cur {
			return -1
		}
		return end - cur
	}
	return -1
}

// decodeNPY decodes a .npy stream; with tg.vector, a 1-D array too.
func decodeNPY(r io.Reader, size int64, tg target) (*tensor.Dense, error) {
	dt := tg.dt
	h, err := readHeader(r, size, tg.vector)
	if err != nil {
		return nil, err
	}
	if err := h.checkPayload(size); err != nil {
		return nil, err
	}
	if dt.Type == nil {
		dt = tensor.Float64
		if h.kind == 'f' && h.itemSize == 4 {
			dt = tensor.Float32
		}
	}
	if h.kind == 'b' && tg.note != nil {
		tg.note("bool entries read as 0 (false) and 1 (true)")
	}
	known := size >= 0
	if limit, why := entryLimit(int(dt.Size())); !known && int64(h.count) > limit {
		// The input does not bound the header's claim: memory does.
		return nil, formatErr(-1, fmt.Sprintf("array of shape %s has %d entries, more than %s", h.shapeText(), h.count, why))
	}
	var backing any
	if dt == tensor.Float32 {
		backing, err = readPayload[float32](r, h, known, tg.scale())
	} else {
		backing, err = readPayload[float64](r, h, known, 1)
	}
	if err != nil {
		return nil, err
	}
	return tensor.New(tensor.WithShape(h.m, h.n), tensor.WithBacking(backing)), nil
}

// readPayload reads the h.count entries of the payload into a new
// row-major []T. known reports whether the header was checked against the
// size of the input, so that the result can be allocated at once.
//
// The payload is read in chunks of readChunk bytes. In C order each chunk
// is read straight into its place in the result when no conversion is
// needed, and converted from a reusable buffer otherwise; it is checked
// for non-finite entries while it is in cache. In Fortran order each chunk
// (a whole number of columns, see fortranChunk) is converted into a buffer
// and scattered into the rows of the result. When the size is known, a
// prefetcher reads the next chunk while the current one is processed.
//
// A float64 payload read as float32 is narrowed: its entries, multiplied by
// scale (a power of two), are rounded to float32, and their range is
// checked (see RangeError). Other conversions are scaled too.
func readPayload[T float](r io.Reader, h *npyHeader, known bool, scale float64) ([]T, error) {
	var zero T
	osz := int(unsafe.Sizeof(zero))
	isz := h.itemSize
	total := h.count
	direct := h.kind == 'f' && isz == osz && scale == 1
	narrow := h.kind == 'f' && isz == 8 && osz == 4
	var rng range32
	ovf := badEntry{rm: -1}
	swap := isz > 1 && h.bigEndian != hostBigEndian
	scatter := h.fortran && known

	chunk := max(1, readChunk/isz)
	if scatter {
		chunk = fortranChunk(h)
	}
	chunk = min(chunk, total)

	var dst []T
	if known {
		dst = makeFloats[T](total)
	} else {
		dst = makeFloats[T](min(total, max(1, initialUnknown/osz)))
	}
	var sc *scatterer[T]
	if h.fortran {
		sc = newScatterer[T](h.m, h.n)
	}

	// With a known size and more than one core, another goroutine reads
	// the next chunk while this one processes the current chunk, so the
	// buffers are doubled.
	var pf *prefetcher
	nbuf := 1
	if known && total > chunk && runtime.GOMAXPROCS(0) > 1 {
		pf = startPrefetch(r)
		defer pf.stop()
		nbuf = 2
	}
	var scratch [2][]byte // file bytes to convert; grow with the chunks
	var tmp [2][]T        // converted entries to scatter
	if scatter {
		for b := range nbuf {
			tmp[b] = make([]T, chunk)
		}
	}
	// buffers returns where the converted entries of chunk number idx,
	// at stream position k, of c entries go, and where its bytes are
	// read.
	buffers := func(idx, k, c int) (out []T, raw []byte) {
		b := idx % nbuf
		if scatter {
			out = tmp[b][:c]
		} else {
			out = dst[k : k+c]
		}
		if direct {
			return out, bytesOf(out)
		}
		if len(scratch[b]) < c*isz {
			scratch[b] = alignedBytes(c * isz)
		}
		return out, scratch[b][:c*isz]
	}

	if pf != nil {
		_, raw := buffers(0, 0, chunk)
		pf.request(raw)
	}
	bad := badEntry{rm: -1}
	for k, idx := 0, 0; k < total; idx++ {
		c := min(chunk, total-k)
		if !known {
			if k == len(dst) {
				nd := makeFloats[T](min(total, 2*len(dst)))
				copy(nd, dst)
				dst = nd
			}
			c = min(c, len(dst)-k)
		}
		out, raw := buffers(idx, k, c)
		var got int
		var err error
		if pf != nil {
			got, err = pf.result()
			if err == nil && k+c < total {
				_, next := buffers(idx+1, k+c, min(chunk, total-k-c))
				pf.request(next)
			}
		} else {
			got, err = io.ReadFull(r, raw)
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, h.truncated(int64(k)*int64(isz) + int64(got))
			}
			return nil, &dataError{msg: "reading payload", off: h.dataOff + int64(k)*int64(isz) + int64(got), cause: err}
		}
		if swap {
			swapBytes(raw, isz)
		}
		if narrow {
			src := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(raw))), c)
			if j := firstNonFinite(src); j >= 0 {
				// NaN or ±Inf in the file itself.
				if !h.fortran {
					return nil, nonFiniteErr(h, k+j, src[j], 8)
				}
				scanBad(&bad, h, src, raw, k)
			}
			rng.observeAll(src)
			for i, v := range src {
				out[i] = T(v * scale)
			}
			if j := firstNonFinite(out); j >= 0 {
				// Overflows of float32: the first in row-major order.
				if h.fortran {
					scanBad(&ovf, h, out, raw, k)
				} else if ovf.rm < 0 {
					ovf = badEntry{rm: k + j, pos: k + j, v: src[j]}
				}
			}
		} else if !direct {
			convert(out, raw, h.kind, isz)
			if scale != 1 {
				for i := range out {
					out[i] = T(float64(out[i]) * scale)
				}
			}
		}
		if h.kind == 'f' && !narrow && !h.lenient {
			if j := firstNonFinite(out); j >= 0 {
				if !h.fortran {
					// The first bad entry of the stream is the first
					// in row-major order.
					return nil, nonFiniteErr(h, k+j, rawFloat(raw, j, isz), osz)
				}
				scanBad(&bad, h, out, raw, k)
			}
		}
		if scatter {
			sc.scatter(dst, out, k)
		}
		k += c
	}
	if bad.rm >= 0 {
		return nil, nonFiniteErr(h, bad.pos, bad.v, osz)
	}
	if narrow {
		if ovf.rm >= 0 {
			rng.overflow(nonFiniteErr(h, ovf.pos, ovf.v, osz).(*dataError))
		}
		if err := rng.err(scale); err != nil {
			return nil, err
		}
	}
	if h.fortran && !known {
		rm := makeFloats[T](total)
		sc.scatter(rm, dst, 0)
		dst = rm
	}
	return dst, nil
}

// prefetcher reads buffers from a reader in its own goroutine.
type prefetcher struct {
	r    io.Reader
	reqs chan []byte
	res  chan readResult
}

type readResult struct {
	n   int
	err error
}

// startPrefetch starts a prefetcher reading from r.
func startPrefetch(r io.Reader) *prefetcher {
	p := &prefetcher{r: r, reqs: make(chan []byte, 1), res: make(chan readResult, 1)}
	go func() {
		defer close(p.res)
		for b := range p.reqs {
			n, err := io.ReadFull(p.r, b)
			p.res <- readResult{n, err}
		}
	}()
	return p
}

// request starts filling b with io.ReadFull. Each request must be
// followed by a call to result before the next.
func (p *prefetcher) request(b []byte) { p.reqs <- b }

// result waits for the current request and returns what io.ReadFull
// returned.
func (p *prefetcher) result() (int, error) {
	x := <-p.res
	return x.n, x.err
}

// stop waits for a pending request and ends the goroutine, so that r is
// no longer used when stop returns.
func (p *prefetcher) stop() {
	close(p.reqs)
	for range p.res {
	}
}

// truncated returns the error for a payload of which only found bytes
// are available.
func (h *npyHeader) truncated(found int64) error {
	return &dataError{
		msg: fmt.Sprintf("payload starting at byte offset %d truncated: shape %s of %q needs %d bytes, found %d",
			h.dataOff, h.shapeText(), h.descr, h.nbytes, found),
		off:   -1,
		kind:  ErrFormat,
		cause: io.ErrUnexpectedEOF,
	}
}

// badEntry tracks the first non-finite entry in row-major order while a
// Fortran-order payload is read.
type badEntry struct {
	rm  int     // row-major index, or -1 if none
	pos int     // position in the stream
	v   float64 // value in the file
}

// scanBad records in b the first, in row-major order, of the non-finite
// entries of out, the converted entries at stream positions k, k+1, ... of
// a Fortran-order payload whose native-order bytes are raw.
func scanBad[T float](b *badEntry, h *npyHeader, out []T, raw []byte, k int) {
	for j, v := range out {
		if v-v == 0 {
			continue
		}
		p := k + j
		if rm := (p%h.m)*h.n + p/h.m; b.rm < 0 || rm < b.rm {
			b.rm, b.pos, b.v = rm, p, rawFloat(raw, j, h.itemSize)
		}
	}
}

// nonFiniteErr returns the error for the entry at stream position p whose
// value in the file is v; osz is the size of the result's elements.
func nonFiniteErr(h *npyHeader, p int, v float64, osz int) error {
	i, j := h.rowOff+p/h.n, p%h.n
	if h.fortran {
		i, j = p%h.m, p/h.m
	}
	msg := fmt.Sprintf("non-finite entry %v at (%d, %d)", v, i, j)
	if !math.IsNaN(v) && !math.IsInf(v, 0) && osz == 4 {
		msg = fmt.Sprintf("entry %g at (%d, %d) overflows float32", v, i, j)
	}
	return &dataError{msg: msg, off: h.dataOff + int64(p)*int64(h.itemSize), kind: ErrNotFinite}
}

// rawFloat returns the j-th float of raw, in native byte order, whose
// elements have size isz (4 or 8).
func rawFloat(raw []byte, j, isz int) float64 {
	if isz == 4 {
		return float64(*(*float32)(unsafe.Pointer(&raw[4*j])))
	}
	return *(*float64)(unsafe.Pointer(&raw[8*j]))
}

// firstNonFinite returns the index of the first NaN or infinite element of
// s, or -1 if all are finite.
func firstNonFinite[T float](s []T) int {
	// v*0 is ±0 for finite v and NaN otherwise, so a block sums to 0 if
	// and only if all its entries are finite. Four independent sums
	// keep the loop at memory speed.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8 : i+8]
		a0 := b[0]*0 + b[4]*0
		a1 := b[1]*0 + b[5]*0
		a2 := b[2]*0 + b[6]*0
		a3 := b[3]*0 + b[7]*0
		if (a0+a1)+(a2+a3) != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i]-s[i] != 0 {
			return i
		}
	}
	return -1
}

// fortranChunk returns the number of elements to read at a time from the
// Fortran-order payload of h. It is a whole number of columns, at least 8
// if that takes at most 1/16 of the matrix, so that each cache line of the
// result is written in few passes; if even one column is larger than both
// readChunk and 1/16 of the matrix, it is readChunk bytes.
func fortranChunk(h *npyHeader) int {
	col := h.m * h.itemSize // bytes per column
	nc := readChunk / col
	if nc < 8 {
		budget := max(readChunk, int(h.nbytes/16))
		nc = min(8, h.n, budget/col)
	}
	if nc == 0 {
		return max(1, readChunk/h.itemSize)
	}
	return nc * h.m
}

// Tiles of scatterer.scatter.
const (
	tileRows = 16
	tileCols = 256
)

// parallelScatter is the number of entries from which scatterer.scatter
// splits its work among goroutines.
const parallelScatter = 1 << 16

// scatterer moves entries from the column-major order of the stream of an
// m×n matrix to the row-major order of the result.
type scatterer[T float] struct {
	m, n  int
	tiles [][]T // a tile buffer for each goroutine
}

func newScatterer[T float](m, n int) *scatterer[T] {
	s := &scatterer[T]{m: m, n: n}
	workers := 1
	if m*n >= parallelScatter {
		workers = max(1, min(runtime.GOMAXPROCS(0), (m+tileRows-1)/tileRows))
	}
	for range workers {
		s.tiles = append(s.tiles, make([]T, tileRows*tileCols))
	}
	return s
}

// scatter stores src, the entries at positions k0, k0+1, ... of the
// column-major stream, into their places in the row-major dst.
func (s *scatterer[T]) scatter(dst, src []T, k0 int) {
	m, n := s.m, s.n
	if k0%m != 0 || len(src)%m != 0 {
		// Parts of columns, when a column is too long to buffer.
		i, j := k0%m, k0/m
		for _, v := range src {
			dst[i*n+j] = v
			if i++; i == m {
				i = 0
				j++
			}
		}
		return
	}
	// Whole columns: split the rows among the goroutines, in multiples
	// of tileRows.
	workers := len(s.tiles)
	if len(src) < parallelScatter {
		workers = 1
	}
	if workers == 1 {
		s.scatterRows(dst, src, k0, 0, m, s.tiles[0])
		return
	}
	tiles := (m + tileRows - 1) / tileRows
	per := (tiles + workers - 1) / workers * tileRows
	var wg sync.WaitGroup
	for w := range workers {
		i0, i1 := w*per, min(m, (w+1)*per)
		if i0 >= i1 {
			break
		}
		tile := s.tiles[w]
		wg.Go(func() { s.scatterRows(dst, src, k0, i0, i1, tile) })
	}
	wg.Wait()
}

// scatterRows does the work of scatter for whole columns and rows [r0, r1):
// it transposes tiles of tileRows×tileCols entries through tile, then
// copies the tile's rows to dst. Writing dst a row segment at a time
// avoids the cache conflicts of writing at a stride of n.
func (s *scatterer[T]) scatterRows(dst, src []T, k0, r0, r1 int, tile []T) {
	m, n := s.m, s.n
	j0, nc := k0/m, len(src)/m
	for i0 := r0; i0 < r1; i0 += tileRows {
		b := min(tileRows, r1-i0)
		for c0 := 0; c0 < nc; c0 += tileCols {
			w := min(tileCols, nc-c0)
			t := tile[:b*w]
			for c := 0; c < w; c++ {
				col := src[(c0+c)*m+i0 : (c0+c)*m+i0+b]
				tt := t[c:]
				for ii, v := range col {
					tt[ii*w] = v
				}
			}
			for ii := 0; ii < b; ii++ {
				o := (i0+ii)*n + j0 + c0
				copy(dst[o:o+w], t[ii*w:(ii+1)*w])
			}
		}
	}
}

// convert decodes the native-order elements of raw, of kind kind and size
// isz, into out.
func convert[T float](out []T, raw []byte, kind byte, isz int) {
	switch kind {
	case 'f':
		if isz == 4 {
			convertFrom[float32](out, raw)
		} else {
			convertFrom[float64](out, raw)
		}
	case 'i':
		convertSized[int8, int16, int32, int64](out, raw, isz)
	case 'u':
		convertSized[uint8, uint16, uint32, uint64](out, raw, isz)
	case 'b':
		for i, b := range raw[:len(out)] {
			if b != 0 {
				out[i] = 1
			} else {
				out[i] = 0
			}
		}
	}
}

// convertSized converts integers of size isz, with S1 to S8 the types of
// each size of one signedness.
func convertSized[S1, S2, S4, S8 number, T float](out []T, raw []byte, isz int) {
	switch isz {
	case 1:
		convertFrom[S1](out, raw)
	case 2:
		convertFrom[S2](out, raw)
	case 4:
		convertFrom[S4](out, raw)
	case 8:
		convertFrom[S8](out, raw)
	}
}

func convertFrom[S number, T float](out []T, raw []byte) {
	src := unsafe.Slice((*S)(unsafe.Pointer(unsafe.SliceData(raw))), len(out))
	for i, v := range src {
		out[i] = T(v)
	}
}

// swapBytes reverses the byte order of each size-byte element of b, in
// place. b must be aligned to size.
func swapBytes(b []byte, size int) {
	p := unsafe.Pointer(unsafe.SliceData(b))
	switch size {
	case 2:
		s := unsafe.Slice((*uint16)(p), len(b)/2)
		for i, v := range s {
			s[i] = bits.ReverseBytes16(v)
		}
	case 4:
		s := unsafe.Slice((*uint32)(p), len(b)/4)
		for i, v := range s {
			s[i] = bits.ReverseBytes32(v)
		}
	case 8:
		s := unsafe.Slice((*uint64)(p), len(b)/8)
		for i, v := range s {
			s[i] = bits.ReverseBytes64(v)
		}
	}
}

// bytesOf returns the memory of s as a byte slice.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// alignedBytes returns a byte slice of length n aligned to 8 bytes.
func alignedBytes(n int) []byte {
	return bytesOf(make([]uint64, (n+7)/8))[:n]
}
