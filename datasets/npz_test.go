package datasets

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// The arrays of the NumPy fixtures (testdata/npz_csv_fixtures.py).
var (
	fixA = []float64{0.5, -1.25, 1.0 / 3, 2.0, -0.1, 1e-300} // 2×3 float64
	fixB = []float64{1.5, -2, 0.1, 3, -7.25, 1e30}           // 3×2 float32
	fixC = func() []float64 {                                // 3×4 float64
		c := make([]float64, 12)
		for k := range c {
			c[k] = float64(k)/8 - 0.5
		}
		return c
	}()
	fixI = []float64{-3, -2, -1, 0, 1, 2} // 2×3 int32
)

// npzReadCase is a member of a fixture and what reading it gives.
type npzReadCase struct {
	file, key string
	opt       *ReadOptions
	dt        tensor.Dtype
	m, n      int
	want      []float64
}

func TestNPZFixtures(t *testing.T) {
	f32 := &ReadOptions{DType: tensor.Float32}
	f64 := &ReadOptions{DType: tensor.Float64}
	b64 := make([]float64, len(fixB)) // fixB as read into float64
	for k, v := range fixB {
		b64[k] = float64(float32(v))
	}
	tests := []npzReadCase{
		{"npz_savez_one.npz", "", nil, tensor.Float64, 2, 3, fixA},
		{"npz_savez_one.npz", "arr_0", nil, tensor.Float64, 2, 3, fixA},
		{"npz_savez_one.npz", "arr_0.npy", f32, tensor.Float32, 2, 3, fixA},
		{"npz_compressed_one.npz", "", nil, tensor.Float64, 2, 3, fixA},
		{"npz_compressed_one.npz", "arr_0", f32, tensor.Float32, 2, 3, fixA},
		{"npz_savez_two.npz", "a", nil, tensor.Float64, 2, 3, fixA},
		{"npz_savez_two.npz", "b", nil, tensor.Float32, 3, 2, fixB},
		{"npz_savez_two.npz", "b.npy", f64, tensor.Float64, 3, 2, b64},
		{"npz_compressed_two.npz", "a.npy", nil, tensor.Float64, 2, 3, fixA},
		{"npz_compressed_two.npz", "b", nil, tensor.Float32, 3, 2, fixB},
		{"npz_compressed_two.npz", "b", f64, tensor.Float64, 3, 2, b64},
	}
	for _, kinds := range []string{"npz_kinds.npz", "npz_kinds_compressed.npz"} {
		tests = append(tests, []npzReadCase{
			{kinds, "be", nil, tensor.Float64, 2, 3, fixA},
			{kinds, "be", f32, tensor.Float32, 2, 3, fixA},
			{kinds, "fortran", nil, tensor.Float64, 3, 4, fixC},
			{kinds, "fortran.npy", f32, tensor.Float32, 3, 4, fixC},
			{kinds, "ints", nil, tensor.Float64, 2, 3, fixI},
			{kinds, "ints", f32, tensor.Float32, 2, 3, fixI},
		}...)
	}
	for _, tc := range tests {
		path := filepath.Join("testdata", tc.file)
		opt := ReadOptions{Key: tc.key}
		if tc.opt != nil {
			opt.DType = tc.opt.DType
		}
		d, err := ReadNPZ(path, &opt)
		if err != nil {
			t.Errorf("%s[%q]: %v", tc.file, tc.key, err)
			continue
		}
		checkMatrixEquals(t, d, tc.dt, tc.m, tc.n, tc.want)

		// DecodeNPZ from memory gives the same.
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		e, err := DecodeNPZ(bytes.NewReader(data), int64(len(data)), &opt)
		if err != nil {
			t.Fatalf("%s[%q]: DecodeNPZ: %v", tc.file, tc.key, err)
		}
		checkMatrixEquals(t, e, tc.dt, tc.m, tc.n, tc.want)
	}

	// The 1-D member is refused, naming the file and the member.
	for _, kinds := range []string{"npz_kinds.npz", "npz_kinds_compressed.npz"} {
		path := filepath.Join("testdata", kinds)
		_, err := ReadNPZ(path, &ReadOptions{Key: "vec"})
		if !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), "datasets: "+path+": member vec.npy: ") || !strings.Contains(err.Error(), "(2,)") {
			t.Errorf("%s[vec]: error %v", kinds, err)
		}
		names, err := NPZMembers(path)
		if err != nil || !slices.Equal(names, []string{"be", "fortran", "ints", "vec"}) {
			t.Errorf("NPZMembers(%s) = %q, %v", kinds, names, err)
		}
	}
	names, err := NPZMembers(filepath.Join("testdata", "npz_savez_one.npz"))
	if err != nil || !slices.Equal(names, []string{"arr_0"}) {
		t.Errorf("NPZMembers(npz_savez_one.npz) = %q, %v", names, err)
	}
}

// npzMember reads the raw bytes of member name of the archive at path
// and its header.
func npzMember(t *testing.T, path, name string) ([]byte, *zip.FileHeader) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatalf("%s: %s: %v", path, name, err)
			}
			return b, &f.FileHeader
		}
	}
	t.Fatalf("%s: no member %s", path, name)
	return nil, nil
}

func TestNPZRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a64 := testMatrix(t, tensor.Float64, 37, 53, 1)
	a32 := testMatrix(t, tensor.Float32, 5, 7, 2)
	tr := testMatrix(t, tensor.Float64, 4, 3, 3).Clone().(*tensor.Dense)
	trWant := make([]float64, 12) // tr transposed, 3×4
	for i := range 4 {
		for j := range 3 {
			v, _ := tr.At(i, j)
			trWant[j*4+i] = v.(float64)
		}
	}
	if err := tr.T(); err != nil {
		t.Fatal(err)
	}
	v64 := tensor.New(tensor.WithShape(4), tensor.WithBacking([]float64{0.25, 0.25, 0.5, 0}))
	v32 := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{0.1, 0.2, 0.7}))
	// A column of a matrix: a non-contiguous vector view.
	col, err := testMatrix(t, tensor.Float64, 5, 3, 4).Slice(nil, tensor.S(1))
	if err != nil {
		t.Fatal(err)
	}
	colv := col.(*tensor.Dense)
	colWant := make([]float64, 5)
	for i := range colWant {
		v, _ := colv.At(i)
		colWant[i] = v.(float64)
	}
	arrays := []Array{{"a64", a64}, {"a32.npy", a32}, {"tr", tr}, {"v64", v64}, {"v32", v32}, {"col", colv}}
	vectors := map[string][]float64{
		"v64": {0.25, 0.25, 0.5, 0},
		"v32": {float64(float32(0.1)), float64(float32(0.2)), float64(float32(0.7))},
		"col": colWant,
	}
	for _, o := range []*WriteOptions{nil, {Compress: true}, {BigEndian: true}, {Fortran: true, Compress: true}} {
		path := filepath.Join(dir, "x.npz")
		if err := WriteNPZ(path, arrays, o); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("mode %v, %v", fi.Mode(), err)
		}
		names, err := NPZMembers(path)
		if err != nil || !slices.Equal(names, []string{"a64", "a32", "tr", "v64", "v32", "col"}) {
			t.Fatalf("members %q, %v", names, err)
		}
		for _, tc := range []struct {
			key  string
			dt   tensor.Dtype
			m, n int
			want []float64
		}{
			{"a64", tensor.Float64, 37, 53, float64s(t, a64)},
			{"a32", tensor.Float32, 5, 7, float64s(t, a32)},
			{"tr.npy", tensor.Float64, 3, 4, trWant},
		} {
			d, err := ReadNPZ(path, &ReadOptions{Key: tc.key})
			if err != nil {
				t.Fatalf("%+v: %s: %v", o, tc.key, err)
			}
			checkMatrixEquals(t, d, tc.dt, tc.m, tc.n, tc.want)
		}
		compress := o != nil && o.Compress
		bigEndian := o != nil && o.BigEndian
		for name, want := range vectors {
			b, fh := npzMember(t, path, name+".npy")
			if compress != (fh.Method == zip.Deflate) || !compress && (fh.Method != zip.Store || fh.Flags&8 != 0) {
				t.Errorf("%+v: member %s: method %d, flags %#x", o, name, fh.Method, fh.Flags)
			}
			descr := "<f8"
			if name == "v32" {
				descr = "<f4"
			}
			if bigEndian {
				descr = ">" + descr[1:]
			}
			wantBytes := npyBytes(1, numpyDict(descr, false, "("+strconv.Itoa(len(want))+",)"), enc(descr, want...))
			if !bytes.Equal(b, wantBytes) {
				t.Errorf("%+v: member %s:\n%q\nwant\n%q", o, name, b, wantBytes)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v), want x.npz alone", entries, err)
	}

	// WriteNPZMatrix names its member arr_0 by default, or o.Key.
	path := filepath.Join(dir, "m.npz")
	for _, tc := range []struct{ key, member string }{{"", "arr_0"}, {"pay", "pay"}, {"pay.npy", "pay"}} {
		if err := WriteNPZMatrix(path, a32, &WriteOptions{Key: tc.key, Compress: tc.key == ""}); err != nil {
			t.Fatal(err)
		}
		if names, err := NPZMembers(path); err != nil || !slices.Equal(names, []string{tc.member}) {
			t.Errorf("key %q: members %q, %v", tc.key, names, err)
		}
		d, err := ReadNPZ(path, &ReadOptions{DType: tensor.Float64})
		if err != nil {
			t.Fatal(err)
		}
		checkMatrixEquals(t, d, tensor.Float64, 5, 7, float64s(t, a32))
	}
	// The same arrays make the same file.
	p1, p2 := filepath.Join(dir, "1.npz"), filepath.Join(dir, "2.npz")
	for _, p := range []string{p1, p2} {
		if err := WriteNPZ(p, arrays, &WriteOptions{Compress: true}); err != nil {
			t.Fatal(err)
		}
	}
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) {
		t.Errorf("two writes of the same arrays differ")
	}
}

// npzErrCase is an archive ReadNPZ must refuse.
type npzErrCase struct {
	name string
	data []byte
	key  string
	kind error  // ErrFormat or ErrNotFinite
	msg  string // in the message, after the file name
}

// rawMember is a member of a zip archive made by makeZip.
type rawMember struct {
	name    string
	data    []byte // uncompressed content
	deflate bool
	usize   int64 // claimed uncompressed size, if not 0
	crc     uint32
	badCRC  bool
}

// makeZip returns a zip archive of the members, with the sizes and
// checksums they claim.
func makeZip(t testing.TB, members ...rawMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		body := m.data
		fh := &zip.FileHeader{Name: m.name, Method: zip.Store, CRC32: crc32.ChecksumIEEE(m.data)}
		if m.badCRC {
			fh.CRC32++
		}
		if m.deflate {
			var c bytes.Buffer
			fw, err := flate.NewWriter(&c, flate.BestCompression)
			if err != nil {
				t.Fatal(err)
			}
			fw.Write(m.data)
			fw.Close()
			body = c.Bytes()
			fh.Method = zip.Deflate
		}
		fh.CompressedSize64 = uint64(len(body))
		fh.UncompressedSize64 = uint64(len(m.data))
		if m.usize != 0 {
			fh.UncompressedSize64 = uint64(m.usize)
		}
		w, err := zw.CreateRaw(fh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// npyOf returns the .npy encoding of the row-major m×n float64 matrix vals.
func npyOf(t testing.TB, m, n int, vals ...float64) []byte {
	return encode(t, tensor.New(tensor.WithShape(m, n), tensor.WithBacking(vals)), nil)
}

func TestNPZErrors(t *testing.T) {
	dir := t.TempDir()
	good := npyOf(t, 2, 3, fixA...)
	nan := npyOf(t, 2, 2, 1, 2, math.NaN(), 4)
	// A header claiming a 2^20×2^10 float64 matrix (8 GiB), then 1 MiB
	// of zeros: deflated to about 1 KiB.
	hdr := npyHeaderBytes("<f8", false, 1<<20, 1<<10)
	bomb := append(hdr, make([]byte, 1<<20)...)
	flipped := makeZip(t, rawMember{name: "a.npy", data: good})
	flipped[bytes.Index(flipped, good)+len(good)-48] ^= 1 // 0.5 becomes 0.5+2^-53

	archive := func(ms ...rawMember) []byte { return makeZip(t, ms...) }
	tests := []npzErrCase{
		{"empty", nil, "", ErrFormat, "not an npz archive"},
		{"npy file", good, "", ErrFormat, "not an npz archive"},
		{"no members", archive(), "", ErrFormat, "archive holds no arrays"},
		{"two members without key", archive(rawMember{name: "a.npy", data: good}, rawMember{name: "b.npy", data: good}), "", ErrFormat, "archive holds 2 arrays (a, b): name one with a key"},
		{"missing key", archive(rawMember{name: "a.npy", data: good}, rawMember{name: "b.npy", data: good}), "c", ErrFormat, `no array named "c" in the archive; it holds a, b`},
		{"duplicate member", archive(rawMember{name: "a.npy", data: good}, rawMember{name: "a.npy", data: good}), "a", ErrFormat, `archive holds 2 members named "a.npy"`},
		{"non-npy member", archive(rawMember{name: "notes.txt", data: []byte("hello, world\n")}), "", ErrFormat, "member notes.txt: not an npy file: bad magic"},
		{"non-npy member by key", archive(rawMember{name: "a.npy", data: good}, rawMember{name: "notes.txt", data: []byte("hello, world\n")}), "notes.txt", ErrFormat, "member notes.txt: not an npy file"},
		{"1-D member", archive(rawMember{name: "v.npy", data: encodeVector(t, 1, 2, 3)}), "", ErrFormat, "member v.npy: array of shape (3,) is not a 2-D matrix"},
		{"NaN", archive(rawMember{name: "a.npy", data: nan}), "a", ErrNotFinite, "member a.npy: non-finite entry NaN at (1, 0)"},
		{"NaN deflated", archive(rawMember{name: "a.npy", data: nan, deflate: true}), "", ErrNotFinite, "member a.npy: non-finite entry NaN at (1, 0)"},
		{"huge claim", archive(rawMember{name: "a.npy", data: good, deflate: true, usize: 1 << 40}), "", ErrFormat, "member a.npy: claims 1099511627776 bytes uncompressed from"},
		{"stored size mismatch", archive(rawMember{name: "a.npy", data: good, usize: 1 << 40}), "", ErrFormat, "member a.npy: stored member claims 1099511627776 bytes uncompressed but holds 176"},
		{"short claim", archive(rawMember{name: "a.npy", data: good, deflate: true, usize: 150}), "", ErrFormat, "member a.npy: payload starting at byte offset 128 truncated"},
		{"long claim", archive(rawMember{name: "a.npy", data: good, deflate: true, usize: 200}), "", ErrFormat, "member a.npy: "},
		{"bad checksum stored", archive(rawMember{name: "a.npy", data: good, badCRC: true}), "", ErrFormat, "member a.npy: reading: zip: checksum error"},
		{"bad checksum deflated", archive(rawMember{name: "a.npy", data: good, badCRC: true, deflate: true}), "", ErrFormat, "member a.npy: reading: zip: checksum error"},
		{"flipped bit", flipped, "", ErrFormat, "member a.npy: reading: zip: checksum error"},
		{"zip bomb header", archive(rawMember{name: "big.npy", data: bomb, deflate: true}), "", ErrFormat, "member big.npy: payload starting at byte offset 128 truncated: shape (1048576, 1024)"},
	}
	// A corrupt deflate stream.
	corrupt := archive(rawMember{name: "a.npy", data: good, deflate: true})
	k := bytes.Index(corrupt, []byte("a.npy")) + len("a.npy")
	for i := k + 2; i < k+12; i++ {
		corrupt[i] = 0xff
	}
	tests = append(tests, npzErrCase{"corrupt deflate", corrupt, "", ErrFormat, "member a.npy: "})
	// Truncations of a good archive.
	whole := archive(rawMember{name: "a.npy", data: good}, rawMember{name: "b.npy", data: good, deflate: true})
	for _, n := range []int{10, 100, 250, len(whole) / 2, len(whole) - 30, len(whole) - 1} {
		tests = append(tests, npzErrCase{"truncated to " + strconv.Itoa(n), whole[:n], "a", ErrFormat, "not an npz archive"})
	}
	// The member's data extends past the end of the archive: the central
	// directory is intact but the member was cut.
	cut := archive(rawMember{name: "a.npy", data: good})
	dirStart := bytes.LastIndex(cut, []byte("PK\x01\x02"))
	shifted := append(append([]byte(nil), cut[:dirStart-100]...), cut[dirStart:]...)
	// Fix the directory offset in the end record.
	end := bytes.LastIndex(shifted, []byte("PK\x05\x06"))
	binary.LittleEndian.PutUint32(shifted[end+16:], uint32(dirStart-100))
	tests = append(tests, npzErrCase{"cut member", shifted, "", ErrFormat, "member a.npy: data at byte offset 35 truncated: needs 176 bytes, 149 remain in the archive"})

	for _, tc := range tests {
		path := filepath.Join(dir, "x.npz")
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var d *tensor.Dense
		var err error
		a := allocated(func() { d, err = ReadNPZ(path, &ReadOptions{Key: tc.key}) })
		if d != nil || !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), "datasets: "+path+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %v with %q", tc.name, err, tc.kind, tc.msg)
		}
		if a > 16<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, a)
		}
		_, err = DecodeNPZ(bytes.NewReader(tc.data), int64(len(tc.data)), &ReadOptions{Key: tc.key})
		if !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), "datasets: ") || strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: DecodeNPZ: error %v", tc.name, err)
		}
	}

	// Bad files and options.
	_, err := ReadNPZ(dir, nil)
	if err == nil || err.Error() != "datasets: "+dir+": is a directory, not an npz archive" {
		t.Errorf("directory: error %v", err)
	}
	_, err = NPZMembers(dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("NPZMembers(directory): error %v", err)
	}
	npy := filepath.Join(dir, "x.npy")
	os.WriteFile(npy, good, 0o644)
	if _, err = NPZMembers(npy); !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), "datasets: "+npy+": not an npz archive") {
		t.Errorf("NPZMembers(npy file): error %v", err)
	}
	if _, err = ReadNPZ(npy, &ReadOptions{DType: tensor.Int}); err == nil || !strings.Contains(err.Error(), "unsupported result dtype") {
		t.Errorf("bad dtype: error %v", err)
	}
	if _, err = DecodeNPZ(bytes.NewReader(good), -1, nil); err == nil || !strings.Contains(err.Error(), "negative archive size") {
		t.Errorf("negative size: error %v", err)
	}
	if _, err = DecodeNPZ(bytes.NewReader(good), 1, &ReadOptions{DType: tensor.Int}); err == nil {
		t.Errorf("bad dtype: no error")
	}
	// An I/O error is not a format error.
	boom := errors.New("boom")
	data := archive(rawMember{name: "a.npy", data: good})
	_, err = DecodeNPZ(failingReaderAt{data, boom, len(data) - 100}, int64(len(data)), nil)
	if !errors.Is(err, boom) || errors.Is(err, ErrFormat) {
		t.Errorf("I/O error: error %v", err)
	}
}

// failingReaderAt reads data but fails with err from offset from on.
type failingReaderAt struct {
	data []byte
	err  error
	from int
}

func (r failingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if int(off)+len(b) > r.from {
		return 0, r.err
	}
	return copy(b, r.data[off:]), nil
}

// encodeVector returns the .npy encoding of a float64 vector.
func encodeVector(t testing.TB, vals ...float64) []byte {
	var buf bytes.Buffer
	v := tensor.New(tensor.WithShape(len(vals)), tensor.WithBacking(vals))
	if err := encodeNPY(&buf, v, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteNPZErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npz")
	a := testMatrix(t, tensor.Float64, 2, 3, 1)
	if err := WriteNPZMatrix(path, a, nil); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	cube := tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking(make([]float64, 8)))
	ints := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]int{1, 2, 3, 4}))
	empty := tensor.New(tensor.WithShape(0), tensor.WithBacking([]float64{}))
	tests := []struct {
		name   string
		arrays []Array
		format bool // the error matches ErrFormat
		msg    string
	}{
		{"none", nil, false, "no arrays to write"},
		{"empty name", []Array{{"", a}}, false, "array 0 has an empty name"},
		{"only suffix", []Array{{"a", a}, {".npy", a}}, false, "array 1 has an empty name"},
		{"slash", []Array{{"a/b", a}}, false, `array name "a/b" holds a path separator`},
		{"backslash", []Array{{`a\b`, a}}, false, `array name "a\\b" holds a path separator`},
		{"duplicate", []Array{{"a", a}, {"b", a}, {"a.npy", a}}, false, `duplicate array name "a"`},
		{"nil", []Array{{"a", nil}}, true, `array "a": nil array`},
		{"3-D", []Array{{"a", a}, {"c", cube}}, true, `array "c": tensor of shape (2, 2, 2) is neither a vector nor a matrix`},
		{"ints", []Array{{"i", ints}}, true, `array "i": unsupported dtype int`},
		{"empty", []Array{{"e", empty}}, true, `array "e": empty array of shape (0,)`},
	}
	for _, tc := range tests {
		err := WriteNPZ(path, tc.arrays, &WriteOptions{Compress: true})
		if err == nil || errors.Is(err, ErrFormat) != tc.format || !strings.HasPrefix(err.Error(), "datasets: "+path+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
		}
	}
	if err := WriteNPZMatrix(path, tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1, 2, 3})), nil); !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), "datasets: "+path+": ") {
		t.Errorf("WriteNPZMatrix of a vector: error %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, old) {
		t.Errorf("failed writes changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want x.npz alone", entries)
	}
	// A writer error is reported, and an error of the writing leaves
	// the file as it was.
	boom := errors.New("boom")
	for _, x := range []*tensor.Dense{a, tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{1, 2}))} {
		for _, o := range []WriteOptions{{}, {BigEndian: true}} {
			if err := encodeNPY(errWriter{boom}, x, &o); !errors.Is(err, boom) {
				t.Errorf("write error: %v", err)
			}
		}
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return &dataError{msg: "failed", off: -1, cause: boom}
	})
	if !errors.Is(err, boom) || err.Error() != "datasets: "+path+": failed: boom" {
		t.Errorf("failed write: error %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, old) {
		t.Errorf("a failed write changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v after a failed write, want x.npz alone", entries)
	}
}

// TestEncodeVector: a vector, contiguous or a strided view, in either byte
// order, is written as the one-row matrix of its entries would be, with
// its own shape in the header.
func TestEncodeVector(t *testing.T) {
	a := testMatrix(t, tensor.Float64, 3, 4, 2)
	col, err := a.Slice(nil, tensor.S(1)) // column 1: stride 4
	if err != nil {
		t.Fatal(err)
	}
	colVals := []float64{a.Data().([]float64)[1], a.Data().([]float64)[5], a.Data().([]float64)[9]}
	for _, big := range []bool{false, true} {
		o := &WriteOptions{BigEndian: big}
		for _, v := range []*tensor.Dense{col.(*tensor.Dense), tensor.New(tensor.WithShape(3), tensor.WithBacking(colVals))} {
			var got, want bytes.Buffer
			if err := encodeNPY(&got, v, o); err != nil {
				t.Fatal(err)
			}
			if err := encodeNPY(&want, tensor.New(tensor.WithShape(1, 3), tensor.WithBacking(colVals)), o); err != nil {
				t.Fatal(err)
			}
			g, w := got.Bytes(), want.Bytes()
			if !bytes.Contains(g[:64], []byte("'shape': (3,)")) || !bytes.Equal(g[len(g)-24:], w[len(w)-24:]) || len(g) != len(w) {
				t.Errorf("big-endian %v: %q, want the payload of %q", big, g, w)
			}
		}
	}
}
