package datasets

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/internal/atomicfile"
)

// maxDeflateRatio bounds the uncompressed size a deflated member may
// claim, as a multiple of its compressed size: deflate codes at most 258
// bytes in 2 bits, so no stream expands more than 1032-fold.
const maxDeflateRatio = 1032

// npzListMax is the number of member names an error message lists.
const npzListMax = 10

// ReadNPZ reads one 2-D array of the .npz archive at path, a zip archive
// of .npy members as numpy.savez (stored members) and
// numpy.savez_compressed (deflated members) write it, and returns it as a
// row-major m×n matrix.
//
// opt.Key names the member to read, with or without its ".npy" suffix
// (as np.load(path)[key] accepts both); the empty Key requires the
// archive to hold exactly one member. The member is decoded as by
// DecodeNPY (see there for the accepted arrays, the dtype of the result,
// which opt.DType chooses, and the errors); its claimed sizes are checked
// against the archive before anything large is allocated.
//
// A file that is not a zip archive, a truncated or corrupt archive (a bad
// checksum included), a missing key, a missing Key when the archive holds
// several members, and a member that is not a valid 2-D .npy array give
// errors matching ErrFormat; NaN and infinite entries give errors
// matching ErrNotFinite. Error messages name the file and, for errors
// about a member, the member ("datasets: x.npz: member a.npy: ..."). The
// file must be a regular file (zip archives are read from their end).
func ReadNPZ(path string, opt *ReadOptions) (*tensor.Dense, error) {
	return read(context.Background(), path, opt, "npz")
}

// DecodeNPZ is ReadNPZ for an archive of size bytes read from r. Error
// messages name the member but no file.
func DecodeNPZ(r io.ReaderAt, size int64, opt *ReadOptions) (*tensor.Dense, error) {
	tg, err := resultTarget(opt)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("datasets: negative archive size %d", size)
	}
	return decodeNPZ(r, size, keyOf(opt), tg)
}

// ReadNPZVector reads the 1-D (or 1×n) float or integer array named key from
// the .npz archive at path as float64 values, with the checks of ReadNPZ:
// the strategies archives gpump writes hold two of them, row and column.
func ReadNPZVector(path, key string) ([]float64, error) {
	f, size, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := decodeNPZ(f, size, key, target{dt: tensor.Float64, vector: true})
	if err != nil {
		return nil, inFile(path, err)
	}
	if sh := t.Shape(); sh[0] != 1 {
		return nil, inFile(path, formatErr(-1, fmt.Sprintf("member %s: array of shape %v is not a vector", key, sh)))
	}
	return t.Data().([]float64), nil
}

// NPZMembers returns the names of the members of the .npz archive at
// path, in archive order, without their ".npy" suffix: the keys that
// ReadNPZ and np.load accept. Directory entries are left out. A file
// that is not a zip archive gives an error matching ErrFormat.
func NPZMembers(path string) ([]string, error) {
	f, size, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := openZip(f, size)
	if err != nil {
		return nil, inFile(path, err)
	}
	var names []string
	for _, m := range npzFiles(zr) {
		names = append(names, strings.TrimSuffix(m.Name, ".npy"))
	}
	return names, nil
}

// openNPZ opens the archive at path and returns its size.
func openNPZ(path string) (*os.File, int64, error) {
	f, size, err := openInput(path, "an npz archive")
	if err != nil {
		return nil, 0, err
	}
	if size < 0 {
		f.Close()
		return nil, 0, &dataError{file: path, msg: "is not a regular file: an npz archive is read from its end", off: -1}
	}
	return f, size, nil
}

// keyOf returns opt.Key.
func keyOf(opt *ReadOptions) string {
	if opt == nil {
		return ""
	}
	return opt.Key
}

// openZip reads the central directory of the zip archive of size bytes
// in r. Deflated members are read through a buffer of up to 1 MiB
// rather than the 4 KiB that compress/flate would use.
func openZip(r io.ReaderAt, size int64) (*zip.Reader, error) {
	// A section reader turns reads at offsets outside the archive,
	// which hostile headers can claim, into io.EOF.
	zr, err := zip.NewReader(io.NewSectionReader(r, 0, size), size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		if corruptZip(err) {
			return nil, &dataError{msg: "not an npz archive (a valid zip file)", off: -1, kind: ErrFormat, cause: err}
		}
		return nil, &dataError{msg: "reading the zip directory", off: -1, cause: err}
	}
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser {
		n := 1 << 20
		if sr, ok := r.(*io.SectionReader); ok {
			n = int(min(int64(n), max(sr.Size(), 16)))
		}
		return flate.NewReader(bufio.NewReaderSize(r, n))
	})
	return zr, nil
}

// corruptZip reports whether err, from archive/zip or compress/flate,
// means the archive is malformed or truncated rather than unreadable.
func corruptZip(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) ||
		errors.Is(err, zip.ErrAlgorithm) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.As(err, &ce)
}

// npzFiles returns the members of zr that are not directories.
func npzFiles(zr *zip.Reader) []*zip.File {
	var fs []*zip.File
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			fs = append(fs, f)
		}
	}
	return fs
}

// memberList formats the names of the members for an error message.
func memberList(fs []*zip.File) string {
	var b strings.Builder
	for i, f := range fs {
		if i == npzListMax {
			fmt.Fprintf(&b, ", ... (%d more)", len(fs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clip(strings.TrimSuffix(f.Name, ".npy")))
	}
	return b.String()
}

// selectMember returns the member of fs that key names (see ReadNPZ).
func selectMember(fs []*zip.File, key string) (*zip.File, error) {
	if len(fs) == 0 {
		return nil, formatErr(-1, "archive holds no arrays")
	}
	if key == "" {
		if len(fs) != 1 {
			return nil, formatErr(-1, fmt.Sprintf("archive holds %d arrays (%s): name one with a key", len(fs), memberList(fs)))
		}
		return fs[0], nil
	}
	for _, name := range []string{key + ".npy", key} {
		var found []*zip.File
		for _, f := range fs {
			if f.Name == name {
				found = append(found, f)
			}
		}
		if len(found) > 1 {
			return nil, formatErr(-1, fmt.Sprintf("archive holds %d members named %q", len(found), name))
		}
		if len(found) == 1 {
			return found[0], nil
		}
	}
	return nil, formatErr(-1, fmt.Sprintf("no array named %q in the archive; it holds %s", clip(key), memberList(fs)))
}

// decodeNPZ reads the member key of the archive of size bytes in r.
func decodeNPZ(r io.ReaderAt, size int64, key string, tg target) (*tensor.Dense, error) {
	zr, err := openZip(r, size)
	if err != nil {
		return nil, err
	}
	f, err := selectMember(npzFiles(zr), key)
	if err != nil {
		return nil, err
	}
	t, err := decodeMember(f, size, tg)
	if err != nil {
		return nil, memberErr(f, err)
	}
	return t, nil
}

// memberErr is err, from decoding member f, as a *dataError naming it.
func memberErr(f *zip.File, err error) error {
	var de *dataError
	if !errors.As(err, &de) {
		de = &dataError{off: -1, cause: err}
		if corruptZip(err) {
			de.kind = ErrFormat
		}
		err = de
	}
	if de.kind == nil && corruptZip(de.cause) {
		de.kind = ErrFormat
	}
	de.file = "member " + clip(f.Name)
	return err // a *RangeError keeps its type
}

// ReadNPZEach reads every array of the .npz archive at path, in the
// archive's order, with the zip directory read once, and hands each to
// each with its key (the member name without ".npy") or the error that
// reading it gave (named like ReadNPZ's); opt.Key is ignored. The error is
// for the archive as a whole (not found, not a zip archive).
func ReadNPZEach(path string, opt *ReadOptions, each func(key string, t *tensor.Dense, err error)) error {
	tg, err := resultTarget(opt)
	if err != nil {
		return err
	}
	f, size, err := openNPZ(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := openZip(f, size)
	if err != nil {
		return inFile(path, err)
	}
	for _, m := range npzFiles(zr) {
		t, err := decodeMember(m, size, tg)
		if err != nil {
			err = inFile(path, memberErr(m, err))
		}
		each(strings.TrimSuffix(m.Name, ".npy"), t, err)
	}
	return nil
}

// decodeMember checks the sizes that the headers of member f of an
// archive of size bytes claim, then decodes its .npy data and checks
// that the rest of the member matches its checksum.
func decodeMember(f *zip.File, size int64, tg target) (*tensor.Dense, error) {
	if f.Flags&1 != 0 {
		return nil, formatErr(-1, "is encrypted")
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return nil, formatErr(-1, fmt.Sprintf("unsupported compression method %d: want stored (0) or deflated (8)", f.Method))
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, &dataError{msg: "reading the local header", off: -1, cause: err}
	}
	csize, usize := f.CompressedSize64, f.UncompressedSize64
	if off < 0 || off > size || csize > uint64(size-off) {
		return nil, &dataError{
			msg:   fmt.Sprintf("data at byte offset %d truncated: needs %d bytes, %d remain in the archive", off, csize, max(0, size-off)),
			off:   -1,
			kind:  ErrFormat,
			cause: io.ErrUnexpectedEOF,
		}
	}
	if f.Method == zip.Store && usize != csize {
		return nil, formatErr(-1, fmt.Sprintf("stored member claims %d bytes uncompressed but holds %d", usize, csize))
	}
	if f.Method == zip.Deflate && (csize > math.MaxUint64/maxDeflateRatio || usize > maxDeflateRatio*csize) {
		return nil, formatErr(-1, fmt.Sprintf("claims %d bytes uncompressed from %d deflated bytes, more than deflate can expand (%d:1)", usize, csize, maxDeflateRatio))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &dataError{msg: "opening", off: -1, cause: err}
	}
	defer rc.Close()
	t, err := decodeNPY(rc, int64(usize), tg)
	if err != nil {
		return nil, err
	}
	// Read what is left (trailing bytes, if any) so that the checksum
	// reader compares the CRC-32 and the size.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return nil, &dataError{msg: "reading", off: -1, cause: err}
	}
	return t, nil
}

// Array is a named array to write to an .npz archive with WriteNPZ.
type Array struct {
	// Name is the member name without its ".npy" suffix (a trailing
	// ".npy" is dropped): the key of np.load(path)[Name] and of
	// ReadOptions.Key. It must be non-empty and hold no '/' or '\\'.
	Name string
	// T is a non-empty 1-D (a vector, such as a strategy) or 2-D tensor
	// of dtype tensor.Float64 or tensor.Float32, of any layout.
	T *tensor.Dense
}

// WriteNPZ writes arrays to the file at path as an .npz archive that
// np.load reads: one member Name+".npy" per array, in order, each a .npy
// format 1.0 file as WriteNPYOptions writes it (with o.BigEndian and
// o.Fortran; a 1-D array is written with shape (n,)). Members are stored
// as numpy.savez does, or deflated as numpy.savez_compressed does when
// o.Compress is set; a nil o stores little-endian C-order members. o.Key
// and o.Format are not used. Member timestamps are 1980-01-01 00:00, so
// that the same arrays always make the same file.
//
// The file is written atomically, like WriteNPYOptions: to a temporary
// file in the same directory, synced, then renamed to path; the new file
// has mode 0644. A symbolic link is followed, and a device or a pipe is
// written in place.
//
// No arrays, an empty or duplicate name, or a name with '/' or '\\' give
// an error; a nil, empty, not 1-D or 2-D, or not Float64 or Float32 array
// gives an error matching ErrFormat. Entries are written as they are,
// NaN and infinities included.
func WriteNPZ(path string, arrays []Array, o *WriteOptions) error {
	var opt WriteOptions
	if o != nil {
		opt = *o
	}
	if err := checkArrays(arrays); err != nil {
		err.file = path
		return err
	}
	return writeFileAtomic(path, func(w io.Writer) error { return encodeNPZ(w, arrays, opt) })
}

// EncodeNPZ writes arrays to w as an .npz archive, as WriteNPZ writes
// files; w need not be seekable.
func EncodeNPZ(w io.Writer, arrays []Array, o *WriteOptions) error {
	var opt WriteOptions
	if o != nil {
		opt = *o
	}
	if err := checkArrays(arrays); err != nil {
		return err
	}
	return encodeNPZ(w, arrays, opt)
}

// checkArrays checks the names and the arrays to write to an archive.
func checkArrays(arrays []Array) *dataError {
	if len(arrays) == 0 {
		return &dataError{msg: "no arrays to write", off: -1}
	}
	seen := make(map[string]bool, len(arrays))
	for k, a := range arrays {
		name := strings.TrimSuffix(a.Name, ".npy")
		switch {
		case name == "":
			return &dataError{msg: fmt.Sprintf("array %d has an empty name", k), off: -1}
		case strings.ContainsAny(name, `/\`):
			return &dataError{msg: fmt.Sprintf("array name %q holds a path separator", clip(name)), off: -1}
		case seen[name]:
			return &dataError{msg: fmt.Sprintf("duplicate array name %q", clip(name)), off: -1}
		}
		seen[name] = true
		if err := checkArray(a.T); err != nil {
			err.msg = fmt.Sprintf("array %q: %s", clip(name), err.msg)
			return err
		}
	}
	return nil
}

// encodeNPZ writes the checked arrays to w as an .npz archive.
func encodeNPZ(w io.Writer, arrays []Array, opt WriteOptions) error {
	zw := zip.NewWriter(w)
	for _, a := range arrays {
		if err := writeMember(zw, strings.TrimSuffix(a.Name, ".npy")+".npy", a.T, opt); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return &dataError{msg: "writing the zip directory", off: -1, cause: err}
	}
	return nil
}

// WriteNPZMatrix writes the matrix t to the file at path as an .npz
// archive of one member, o.Key+".npy" ("arr_0.npy" when o.Key is empty,
// as numpy.savez names a single positional array; a ".npy" suffix of
// o.Key is dropped). It is WriteNPZ with that one array: see there for
// compression, atomicity and the errors; t must be a 2-D matrix.
func WriteNPZMatrix(path string, t *tensor.Dense, o *WriteOptions) error {
	if err := checkMatrix(t); err != nil {
		err.(*dataError).file = path
		return err
	}
	key := "arr_0"
	if o != nil && o.Key != "" {
		key = o.Key
	}
	return WriteNPZ(path, []Array{{Name: key, T: t}}, o)
}

// checkArray checks that t is a non-empty 1-D or 2-D tensor of dtype
// Float64 or Float32.
func checkArray(t *tensor.Dense) *dataError {
	if t == nil {
		return formatErr(-1, "nil array")
	}
	shape := t.Shape()
	s := make([]int64, len(shape))
	empty := false
	for i, d := range shape {
		s[i] = int64(d)
		empty = empty || d <= 0
	}
	switch {
	case len(shape) != 1 && len(shape) != 2:
		return formatErr(-1, fmt.Sprintf("tensor of shape %s is neither a vector nor a matrix", shapeString(s)))
	case empty:
		return formatErr(-1, fmt.Sprintf("empty array of shape %s", shapeString(s)))
	}
	if dt := t.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return formatErr(-1, fmt.Sprintf("unsupported dtype %v: want float64 or float32", dt))
	}
	return nil
}

// msDosDate1980 is 1980-01-01 as an MS-DOS date, the earliest there is.
const msDosDate1980 = 1<<5 | 1

// writeMember writes t as the member name of zw.
//
// A deflated member is written by archive/zip with a data descriptor. A
// stored member is encoded twice instead, first to find its CRC-32 and
// size, so that its local header holds them like numpy's: some streaming
// zip readers refuse stored members with data descriptors.
func writeMember(zw *zip.Writer, name string, t *tensor.Dense, o WriteOptions) error {
	fh := &zip.FileHeader{
		Name:           name,
		ModifiedDate:   msDosDate1980,
		CreatorVersion: 20,
		ReaderVersion:  20,
	}
	if o.Compress {
		fh.Method = zip.Deflate
		w, err := zw.CreateHeader(fh)
		if err != nil {
			return &dataError{msg: "adding member " + name, off: -1, cause: err}
		}
		return encodeNPY(w, t, &o)
	}
	var sum crcCounter
	sum.h = crc32.NewIEEE()
	if err := encodeNPY(&sum, t, &o); err != nil {
		return err
	}
	fh.Method = zip.Store
	fh.CRC32 = sum.h.Sum32()
	fh.CompressedSize64 = uint64(sum.n)
	fh.UncompressedSize64 = uint64(sum.n)
	if sum.n >= 1<<32-1 {
		fh.ReaderVersion = 45
	}
	w, err := zw.CreateRaw(fh)
	if err != nil {
		return &dataError{msg: "adding member " + name, off: -1, cause: err}
	}
	again := crcCounter{w: w, h: crc32.NewIEEE()}
	if err := encodeNPY(&again, t, &o); err != nil {
		return err
	}
	if again.n != sum.n || again.h.Sum32() != fh.CRC32 {
		return &dataError{msg: "array " + name + " changed while it was written", off: -1}
	}
	return nil
}

// crcCounter computes the CRC-32 and counts the bytes written through it
// to w, if not nil.
type crcCounter struct {
	w io.Writer
	h hash.Hash32
	n int64
}

func (c *crcCounter) Write(b []byte) (int, error) {
	if c.w != nil {
		k, err := c.w.Write(b)
		c.h.Write(b[:k])
		c.n += int64(k)
		return k, err
	}
	c.h.Write(b)
	c.n += int64(len(b))
	return len(b), nil
}

// writeFileAtomic writes the file at path through write, as an
// atomicfile.File: path holds either its old content or the complete new
// file.
func writeFileAtomic(path string, write func(w io.Writer) error) error {
	o, err := atomicfile.Create(path)
	if err != nil {
		return outputError(err)
	}
	defer o.Abort()
	if err := write(o); err != nil {
		var de *dataError
		if errors.As(err, &de) && de.file == "" {
			de.file = o.Path()
		}
		return err
	}
	return outputError(o.Commit())
}

// outputError returns an error of the atomic writer as this package's.
func outputError(err error) error {
	var ae *atomicfile.Error
	if errors.As(err, &ae) {
		return &dataError{file: ae.Path, msg: ae.Msg, off: -1, cause: ae.Err}
	}
	return err
}
