package kernels

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// entry is one .entry of the PTX: its parameter types and .maxntid.
type entry struct {
	params  []string
	maxntid int
}

var (
	entryRE   = regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(\n((?:\s*\.param [^\n]*\n)*)\)\n((?:\.[a-z]+[^\n]*\n)*)`)
	paramRE   = regexp.MustCompile(`\.param (\.\w+) \w+`)
	maxntidRE = regexp.MustCompile(`\.maxntid (\d+), 1, 1`)
	atomicRE  = regexp.MustCompile(`(?m)^\s*(atom|red)\.`)
)

func parseEntries(t *testing.T, text string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	for _, m := range entryRE.FindAllStringSubmatch(text, -1) {
		e := entry{}
		for _, pm := range paramRE.FindAllStringSubmatch(m[2], -1) {
			e.params = append(e.params, pm[1])
		}
		if mm := maxntidRE.FindStringSubmatch(m[3]); mm != nil {
			e.maxntid, _ = strconv.Atoi(mm[1])
		}
		out[m[1]] = e
	}
	if n := strings.Count(text, ".entry "); n != len(out) {
		t.Fatalf("parsed %d entries of %d", len(out), n)
	}
	return out
}

// Every kernel listed in Go is an entry of the embedded PTX with the
// parameter list (count, 8-byte types) and block size Go describes, and
// every entry of the PTX is listed: a rename or a signature change in
// gpump.cu is caught without a GPU.
func TestKernelTableMatchesPTX(t *testing.T) {
	entries := parseEntries(t, PTX())
	names := Names()
	if len(names) != len(entries) {
		t.Errorf("Go lists %d kernels, the PTX has %d entries", len(names), len(entries))
	}
	seen := map[string]bool{}
	for _, k := range Kernels() {
		if seen[k.Name] {
			t.Errorf("%s listed twice", k.Name)
		}
		seen[k.Name] = true
		e, ok := entries[k.Name]
		if !ok {
			t.Errorf("%s: no .entry in the embedded PTX", k.Name)
			continue
		}
		if !strings.Contains(PTX(), ".entry "+k.Name+"(") {
			t.Errorf("%s: not found as an .entry", k.Name)
		}
		if len(e.params) != len(k.Args) {
			t.Errorf("%s: Go lists %d arguments, the PTX entry has %d", k.Name, len(k.Args), len(e.params))
			continue
		}
		for a, arg := range k.Args {
			if e.params[a] != arg.Kind.PTXType() {
				t.Errorf("%s: argument %d (%s) is %s in the PTX, Go says %s (%s)", k.Name, a, arg.Name, e.params[a], arg.Kind, arg.Kind.PTXType())
			}
		}
		if e.maxntid != k.Block {
			t.Errorf("%s: .maxntid %d in the PTX, Go says block %d", k.Name, e.maxntid, k.Block)
		}
	}
	for name := range entries {
		if !seen[name] {
			t.Errorf("PTX entry %s is not listed in Go", name)
		}
	}
	for _, d := range []Dtype{F32, F64} {
		for _, kind := range []OpKind{Fused, MulVec, MulTVec} {
			if _, ok := Lookup(OpKernel(kind, d)); !ok {
				t.Errorf("OpKernel(%d, %v) = %s is not a kernel", kind, d, OpKernel(kind, d))
			}
		}
	}
	if _, ok := Lookup("gpump_nope"); ok {
		t.Error("Lookup found a kernel that does not exist")
	}
}

func TestPTXHeader(t *testing.T) {
	for _, want := range []string{".target sm_70", ".address_size 64", "Cuda compilation tools"} {
		if !strings.Contains(PTX(), want) {
			t.Errorf("embedded PTX lacks %q", want)
		}
	}
	if strings.Contains(PTX(), "\x00") {
		t.Error("embedded PTX holds a NUL byte")
	}
	// No float atomics anywhere: the reductions are deterministic.
	if loc := atomicRE.FindStringIndex(PTX()); loc != nil {
		t.Errorf("the PTX uses atomics: %q", PTX()[loc[0]:loc[1]])
	}
}

var devices = map[string]Device{
	"h100":  H100,
	"v100":  {MaxThreadsPerBlock: 1024, MultiprocessorCount: 80, MaxGridDimX: 1<<31 - 1, MaxSharedPerBlock: 48 << 10},
	"small": {MaxThreadsPerBlock: 1024, MultiprocessorCount: 2},
}

var shapes = [][2]int64{
	{1, 1}, {1, 2}, {2, 1}, {1, 255}, {1, 256}, {1, 257}, {3, 5}, {7, 1000}, {1000, 7},
	{15, 16}, {16, 15}, {17, 17}, {255, 257}, {256, 256}, {1023, 1025}, {4096, 3},
	{1, 100000}, {100000, 1}, {2000, 2000}, {32768, 32768}, {12345, 54321},
	{1, 1 << 20}, {1, 300000}, {1 << 20, 1}, {3, 1<<18 + 1}, {100, 10_000_000},
	{50_000_000, 40}, {1 << 30, 1}, {1, 1 << 30},
}

// checkOp checks the invariants the kernels rely on.
func checkOp(t *testing.T, s OpShape, dev Device) {
	t.Helper()
	m, n := s.M, s.N
	if s.Tiles != (n+Tile-1)/Tile {
		t.Errorf("%d×%d: Tiles %d", m, n, s.Tiles)
	}
	// Slices cover the tiles, none empty.
	if s.GX < 1 || s.GX > OpMaxSlices || s.TilesPerSlice < 1 ||
		s.GX*s.TilesPerSlice < s.Tiles || (s.GX-1)*s.TilesPerSlice >= s.Tiles {
		t.Errorf("%d×%d: %d slices of %d tiles for %d tiles", m, n, s.GX, s.TilesPerSlice, s.Tiles)
	}
	// Row blocks cover the rows, none empty, whole 16-row quanta.
	if s.GY < 1 || s.RowsPerBlock < 1 || s.RowsPerBlock%OpRowQuantum != 0 ||
		s.GY*s.RowsPerBlock < m || (s.GY-1)*s.RowsPerBlock >= m {
		t.Errorf("%d×%d: %d row blocks of %d rows", m, n, s.GY, s.RowsPerBlock)
	}
	if s.Units() > 2*OpTargetUnits {
		t.Errorf("%d×%d: %d units", m, n, s.Units())
	}
	// Enough units for a large GPU whenever the matrix has the tiles and
	// rows for them.
	if want := min(int64(OpTargetUnits), s.Tiles*((m+OpRowQuantum-1)/OpRowQuantum)); s.Units() < want/2 && s.GX < OpMaxSlices {
		t.Errorf("%d×%d: only %d units, %d possible", m, n, s.Units(), want)
	}
	if s.RowPartialLen != s.GX*m || s.ColPartialLen != s.GY*n || s.PartialBytes() != 8*(s.GX*m+s.GY*n) {
		t.Errorf("%d×%d: partial lengths %d, %d", m, n, s.RowPartialLen, s.ColPartialLen)
	}
	for _, l := range []Launch{s.Pass, s.Finish} {
		if l.Grid < 1 || int64(l.Grid) > dev.gridCap() || l.Block != Threads || l.SharedBytes != 0 {
			t.Errorf("%d×%d: launch %+v", m, n, l)
		}
	}
	if int64(s.Pass.Grid) > s.Units() {
		t.Errorf("%d×%d: grid %d > %d units", m, n, s.Pass.Grid, s.Units())
	}
	if groups := (m+31)/32 + (n+31)/32; int64(s.Finish.Grid) > groups {
		t.Errorf("%d×%d: finish grid %d > %d groups", m, n, s.Finish.Grid, groups)
	}
}

func TestOpShapes(t *testing.T) {
	for _, sh := range shapes {
		for _, d := range []Dtype{F32, F64} {
			var ref OpShape
			first := true
			for name, dev := range devices {
				s, err := Op(sh[0], sh[1], d, dev)
				if err != nil {
					t.Fatalf("Op(%d, %d, %v, %s): %v", sh[0], sh[1], d, name, err)
				}
				checkOp(t, s, dev)
				// The decomposition must not depend on the device.
				if first {
					ref, first = s, false
				} else if s.Tiles != ref.Tiles || s.GX != ref.GX || s.TilesPerSlice != ref.TilesPerSlice ||
					s.GY != ref.GY || s.RowsPerBlock != ref.RowsPerBlock {
					t.Errorf("%d×%d: decomposition depends on the device: %+v vs %+v", sh[0], sh[1], s, ref)
				}
			}
		}
	}
}

// TestOpCoverage walks the work units exactly as gp_op_pass does and checks
// that every entry of A is visited once and every partial is written once.
func TestOpCoverage(t *testing.T) {
	for _, sh := range [][2]int64{{1, 1}, {1, 513}, {37, 1}, {33, 300}, {100, 1000}, {300, 70}, {5, 1 << 18}, {2, 1<<18 + 300}} {
		m, n := sh[0], sh[1]
		s, err := Op(m, n, F32, devices["small"])
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]uint8, m*n)
		rowWrites := make([]int, s.RowPartialLen)
		colWrites := make([]int, s.ColPartialLen)
		for u := int64(0); u < s.Units(); u++ {
			bx, by := u%s.GX, u/s.GX
			r0, r1 := by*s.RowsPerBlock, min(m, by*s.RowsPerBlock+s.RowsPerBlock)
			t0, t1 := bx*s.TilesPerSlice, min(s.Tiles, bx*s.TilesPerSlice+s.TilesPerSlice)
			for tile := t0; tile < t1; tile++ {
				for w := int64(0); w < Threads/32; w++ {
					for i := r0 + w; i < r1; i += 2 * Threads / 32 {
						for _, row := range []int64{i, i + Threads/32} {
							if row >= r1 {
								continue
							}
							if tile == t0 {
								rowWrites[bx*m+row]++
							}
							for c := tile * Tile; c < min(n, tile*Tile+Tile); c++ {
								seen[row*n+c]++
							}
						}
					}
				}
				for c := tile * Tile; c < min(n, tile*Tile+Tile); c++ {
					colWrites[by*n+c]++
				}
			}
		}
		for k, v := range seen {
			if v != 1 {
				t.Fatalf("%d×%d: entry (%d, %d) visited %d times", m, n, int64(k)/n, int64(k)%n, v)
			}
		}
		for k, v := range rowWrites {
			if v != 1 {
				t.Fatalf("%d×%d: rowPartial[%d] started %d times", m, n, k, v)
			}
		}
		for k, v := range colWrites {
			if v != 1 {
				t.Fatalf("%d×%d: colPartial[%d] written %d times", m, n, k, v)
			}
		}
	}
}

func TestVectorShapes(t *testing.T) {
	for _, n := range []int64{1, 2, 255, 256, 257, 2047, 2048, 2049, 4097, 32768, 1_000_003, 1 << 21, 1<<21 + 1, 1 << 40, math.MaxInt64 / 16} {
		for name, dev := range devices {
			s, err := Vector(n, dev)
			if err != nil {
				t.Fatalf("Vector(%d, %s): %v", n, name, err)
			}
			if s.ChunkLen%Threads != 0 || s.Chunks < 1 || s.Chunks > MaxChunks ||
				s.Chunks*s.ChunkLen < n || (s.Chunks-1)*s.ChunkLen >= n {
				t.Errorf("n=%d: %d chunks of %d", n, s.Chunks, s.ChunkLen)
			}
			if n >= MinChunk && s.ChunkLen < MinChunk {
				t.Errorf("n=%d: chunks of %d are smaller than intended", n, s.ChunkLen)
			}
			if s.Launch.Grid < 1 || int64(s.Launch.Grid) > s.Chunks || int64(s.Launch.Grid) > dev.gridCap() || s.Launch.Block != Threads {
				t.Errorf("n=%d: launch %+v", n, s.Launch)
			}
			if s.StatsPartialLen() != StatsRecordWords*s.Chunks || s.LogProxPartialLen() != 2*s.Chunks ||
				s.BallPartialLen() != s.Chunks || s.RMPartialLen() != s.Chunks || s.WorkspaceLen() != StatsRecordWords*s.Chunks {
				t.Errorf("n=%d: partial lengths", n)
			}
			el, err := Elementwise(n, dev)
			if err != nil || el.Grid < 1 || int64(el.Grid) > (n+Threads-1)/Threads || int64(el.Grid) > dev.gridCap() {
				t.Errorf("Elementwise(%d): %+v, %v", n, el, err)
			}
			sl, err := Simplex(n, dev)
			if err != nil || sl != (Launch{Grid: 1, Block: SimplexThreads}) {
				t.Errorf("Simplex(%d): %+v, %v", n, sl, err)
			}
		}
	}
}

func TestTransposeShapes(t *testing.T) {
	for _, sh := range shapes {
		for name, dev := range devices {
			l, err := Transpose(sh[0], sh[1], dev)
			if err != nil {
				t.Fatalf("Transpose(%d, %d, %s): %v", sh[0], sh[1], name, err)
			}
			tiles := ((sh[0] + TransposeTile - 1) / TransposeTile) * ((sh[1] + TransposeTile - 1) / TransposeTile)
			if l.Block != Threads || l.Grid < 1 || int64(l.Grid) > tiles || int64(l.Grid) > dev.gridCap() {
				t.Errorf("Transpose(%d, %d, %s) = %+v for %d tiles", sh[0], sh[1], name, l, tiles)
			}
		}
	}
	for _, sh := range [][2]int64{{0, 1}, {1, 0}, {-3, 2}, {math.MaxInt64, 1}} {
		if _, err := Transpose(sh[0], sh[1], H100); !errors.Is(err, ErrSize) {
			t.Errorf("Transpose(%d, %d): %v, want ErrSize", sh[0], sh[1], err)
		}
	}
	if TransposeKernel(F32) != TransposeF32 || TransposeKernel(F64) != TransposeF64 {
		t.Error("TransposeKernel names")
	}
}

func TestSampleShapes(t *testing.T) {
	for _, n := range []int64{1, 255, 2049, 1_000_003} {
		for name, dev := range devices {
			v, err := Vector(n, dev)
			if err != nil {
				t.Fatal(err)
			}
			sl, err := SampleScan(v, v, dev)
			if err != nil || sl.Block != Threads || sl.Grid < 1 || int64(sl.Grid) > 2*v.Chunks || int64(sl.Grid) > dev.gridCap() {
				t.Errorf("SampleScan(%d, %s) = %+v, %v", n, name, sl, err)
			}
			dl, err := SampleDraw(n, dev)
			if err != nil || dl.Block != Threads || int64(dl.Grid)*Threads < min(2*n, dev.gridCap()*Threads) {
				t.Errorf("SampleDraw(%d, %s) = %+v, %v", n, name, dl, err)
			}
			cl, err := SampleCols(n, dev)
			if err != nil || cl.Block != Threads || int64(cl.Grid) > (n+7)/8 || int64(cl.Grid) > dev.gridCap() {
				t.Errorf("SampleCols(%d, %s) = %+v, %v", n, name, cl, err)
			}
		}
	}
	if _, err := SampleDraw(0, H100); !errors.Is(err, ErrSize) {
		t.Errorf("SampleDraw(0): %v", err)
	}
	if _, err := SampleCols(0, H100); !errors.Is(err, ErrSize) {
		t.Errorf("SampleCols(0): %v", err)
	}
	if SampleRowsKernel(F32) != SampleRowsF32 || SampleColsKernel(F64) != SampleColsF64 {
		t.Error("sample kernel names")
	}
}

func TestSizeErrors(t *testing.T) {
	dev := H100
	bad := [][2]int64{{0, 1}, {1, 0}, {-1, 5}, {5, -1}, {math.MaxInt64, 1}, {1, math.MaxInt64},
		{1 << 31, 1 << 31}, {1 << 40, 1 << 40}, {math.MaxInt64 / 16, 16}}
	for _, sh := range bad {
		for _, d := range []Dtype{F32, F64} {
			if _, err := Op(sh[0], sh[1], d, dev); !errors.Is(err, ErrSize) {
				t.Errorf("Op(%d, %d, %v): err = %v, want ErrSize", sh[0], sh[1], d, err)
			}
		}
	}
	// 2^31 x 2^30 float32 = 2^63 bytes: one too many; 2^31 x 2^29 fits.
	if _, err := Op(1<<31, 1<<30, F32, dev); !errors.Is(err, ErrSize) {
		t.Errorf("2^31×2^30 f32: %v", err)
	}
	s, err := Op(1<<31, 1<<29, F32, dev)
	if err != nil {
		t.Fatalf("2^31×2^29 f32: %v", err)
	}
	checkOp(t, s, dev)
	if tr := s.Bytes(Fused); tr.Matrix != 1<<62 || tr.Total() < tr.Matrix {
		t.Errorf("2^31×2^29 f32 traffic %+v", tr)
	}
	for _, n := range []int64{0, -3, math.MaxInt64} {
		if _, err := Vector(n, dev); !errors.Is(err, ErrSize) {
			t.Errorf("Vector(%d): %v", n, err)
		}
		if _, err := Elementwise(n, dev); !errors.Is(err, ErrSize) {
			t.Errorf("Elementwise(%d): %v", n, err)
		}
		if _, err := Simplex(n, dev); !errors.Is(err, ErrSize) {
			t.Errorf("Simplex(%d): %v", n, err)
		}
	}
	if _, err := Op(10, 10, Dtype(7), dev); err == nil {
		t.Error("Op accepted an unknown Dtype")
	}
	weak := Device{MaxThreadsPerBlock: 512, MultiprocessorCount: 4}
	if _, err := Simplex(10, weak); err == nil {
		t.Error("Simplex accepted a device with 512 threads per block")
	}
	if _, err := Op(10, 10, F32, Device{MaxThreadsPerBlock: 128}); err == nil {
		t.Error("Op accepted a device with 128 threads per block")
	}
	if _, err := Op(10, 10, F32, Device{MaxThreadsPerBlock: 1024, MaxSharedPerBlock: 8 << 10}); err == nil {
		t.Error("Op accepted a device with 8 KiB of shared memory per block")
	}
	if _, _, err := Stats(3); err == nil {
		t.Error("Stats(3) accepted")
	}
	for b := 1; b <= 2; b++ {
		l, words, err := Stats(b)
		if err != nil || l.Grid != b || l.Block != Threads || words != StatsWords*b {
			t.Errorf("Stats(%d) = %+v, %d, %v", b, l, words, err)
		}
	}
}

// TestTrafficModel checks the bandwidth arithmetic of README.md.
func TestTrafficModel(t *testing.T) {
	s, err := Op(32768, 32768, F32, H100)
	if err != nil {
		t.Fatal(err)
	}
	if s.GX != 128 || s.TilesPerSlice != 1 || s.GY != 16 || s.RowsPerBlock != 2048 {
		t.Errorf("32768² decomposition changed (update README.md): %+v", s)
	}
	tr := s.Bytes(Fused)
	if tr.Matrix != 1<<32 {
		t.Errorf("matrix bytes %d", tr.Matrix)
	}
	// Partials: 128 tiles x 32768 rows x 8 B written and read back, plus
	// 16 x 32768 x 8 B of column partials twice: about 1.6% of A.
	if over := float64(tr.Partials+tr.Vectors) / float64(tr.Matrix); over < 0.01 || over > 0.03 {
		t.Errorf("overhead %.4f of A", over)
	}
	ms := 2 * float64(tr.Matrix) / 3.35e12 * 1e3
	if math.Abs(ms-2.564) > 0.001 {
		t.Errorf("two passes of A at 3.35 TB/s: %.4f ms", ms)
	}
}

func ExampleOp() {
	for _, d := range []Dtype{F32, F64} {
		s, _ := Op(32768, 32768, d, H100)
		tr := s.Bytes(Fused)
		fmt.Printf("%v: %d slices x %d row blocks of %d rows, grid %d; per pass A %.3f GB + vectors %.1f MB + partials %.1f MB; two passes at 3.35 TB/s: %.2f ms (A alone %.2f ms)\n",
			d, s.GX, s.GY, s.RowsPerBlock, s.Pass.Grid,
			float64(tr.Matrix)/1e9, float64(tr.Vectors)/1e6, float64(tr.Partials)/1e6,
			2*float64(tr.Total())/3.35e12*1e3, 2*float64(tr.Matrix)/3.35e12*1e3)
	}
	// Output:
	// f32: 128 slices x 16 row blocks of 2048 rows, grid 2048; per pass A 4.295 GB + vectors 5.0 MB + partials 75.5 MB; two passes at 3.35 TB/s: 2.61 ms (A alone 2.56 ms)
	// f64: 128 slices x 16 row blocks of 2048 rows, grid 2048; per pass A 8.590 GB + vectors 5.0 MB + partials 75.5 MB; two passes at 3.35 TB/s: 5.18 ms (A alone 5.13 ms)
}

// generateArgs returns the arguments of the //go:generate line of
// generate.go, so the test runs exactly what go generate runs.
func generateArgs(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//go:generate "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatal("generate.go has no //go:generate line")
	return nil
}

// nvccRelease returns the "Cuda compilation tools, release ..." line.
func nvccRelease(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "Cuda compilation tools"); i >= 0 {
			return strings.TrimSpace(line[i:])
		}
	}
	return ""
}

// TestGeneratedPTXUpToDate regenerates the PTX into a temporary directory
// with the go:generate command and compares it byte for byte with the
// committed gpump.ptx. It needs nvcc of the release that made the committed
// file (PTX text differs between releases) and skips otherwise.
func TestGeneratedPTXUpToDate(t *testing.T) {
	args := generateArgs(t)
	if args[0] != "nvcc" {
		t.Fatalf("go:generate runs %q, not nvcc", args[0])
	}
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("nvcc is not on PATH (.ci/install-cuda installs it): the committed PTX was not regenerated")
	}
	ver, err := exec.Command(nvcc, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("nvcc --version: %v\n%s", err, ver)
	}
	have, want := nvccRelease(string(ver)), nvccRelease(PTX())
	if have != want {
		t.Skipf("nvcc is %q, the committed PTX was made by %q: outputs of different releases differ", have, want)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "gpump.ptx")
	cmdArgs := append([]string(nil), args[1:]...)
	found := false
	for k := range cmdArgs {
		if cmdArgs[k] == "-o" && k+1 < len(cmdArgs) {
			cmdArgs[k+1] = out
			found = true
		}
	}
	if !found {
		t.Fatalf("go:generate line %q has no -o", strings.Join(args, " "))
	}
	cmd := exec.Command(nvcc, cmdArgs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("nvcc printed warnings:\n%s", stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(PTX())) {
		t.Fatal("gpump.ptx is not what go generate makes from gpump.cu: run go generate ./kernels and commit the result")
	}
}

var ptxasRE = regexp.MustCompile(`Compiling entry function '(\w+)' for 'sm_70'\n[^\n]*Function properties[^\n]*\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads\n[^\n]*Used (\d+) registers(?:, (\d+) bytes smem)?`)

// TestPTXAssembles runs ptxas on the embedded PTX for sm_70 (when ptxas is
// on PATH) and checks resource use: no spills, no stack, static shared
// memory as Go lists it, registers that leave a launch of the kernel's block
// size possible. It logs the register counts.
func TestPTXAssembles(t *testing.T) {
	ptxas, err := exec.LookPath("ptxas")
	if err != nil {
		t.Skip("ptxas is not on PATH (.ci/install-cuda installs it)")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "gpump.ptx")
	if err := os.WriteFile(in, []byte(PTX()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ptxas, "-arch=sm_70", "-v", "-o", filepath.Join(dir, "gpump.cubin"), in).CombinedOutput()
	if err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
	if bytes.Contains(bytes.ToLower(out), []byte("warning")) {
		t.Errorf("ptxas warned:\n%s", out)
	}
	found := map[string]bool{}
	for _, m := range ptxasRE.FindAllStringSubmatch(string(out), -1) {
		name := m[1]
		found[name] = true
		k, ok := Lookup(name)
		if !ok {
			t.Errorf("ptxas compiled unknown entry %s", name)
			continue
		}
		stack, _ := strconv.Atoi(m[2])
		spillSt, _ := strconv.Atoi(m[3])
		spillLd, _ := strconv.Atoi(m[4])
		regs, _ := strconv.Atoi(m[5])
		smem := 0
		if m[6] != "" {
			smem, _ = strconv.Atoi(m[6])
		}
		if stack != 0 || spillSt != 0 || spillLd != 0 {
			t.Errorf("%s: stack %d, spills %d/%d", name, stack, spillSt, spillLd)
		}
		if smem != k.StaticShared {
			t.Errorf("%s: %d bytes of shared memory, Go says %d", name, smem, k.StaticShared)
		}
		if regs*k.Block > 65536 {
			t.Errorf("%s: %d registers x %d threads exceed the 64K register file", name, regs, k.Block)
		}
		t.Logf("%-28s %3d registers, %5d bytes shared", name, regs, smem)
	}
	for _, name := range Names() {
		if !found[name] {
			t.Errorf("ptxas did not report %s", name)
		}
	}
}

// TestEmulatedKernels compiles gpump.cu with the host C++ compiler against a
// small CUDA emulator (testdata/emu: every CUDA thread a fiber, real barrier
// and warp-shuffle semantics, adversarial warp scheduling) and checks every
// kernel against ports of the CPU backend, on launch shapes made by this
// package: odd sizes, 1×n, m×1, a matrix wide enough for multi-tile slices,
// vectors of one to many chunks, grids capped so blocks loop over several
// units. It also checks that a different grid gives bitwise the same
// results. It skips where no g++ is found; it is not a GPU test (no timing,
// host libm instead of libdevice).
func TestEmulatedKernels(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not on PATH: the kernels were not emulated")
	}
	if testing.Short() {
		t.Skip("-short: the kernels were not emulated")
	}
	bin := filepath.Join(t.TempDir(), "emu")
	build := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Wno-unknown-pragmas", "-o", bin,
		"testdata/emu/harness.cc", "testdata/emu/cuda_emu.cc")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the emulator: %v\n%s", err, out)
	} else if len(out) > 0 {
		t.Errorf("compiler warnings:\n%s", out)
	}
	// A device that caps grids at 5 blocks, so that blocks walk several
	// units or chunks (the decomposition does not depend on the device).
	dev := Device{MaxThreadsPerBlock: 1024, MultiprocessorCount: 1, MaxGridDimX: 5}
	var in strings.Builder
	for _, sh := range [][2]int64{{1, 1}, {3, 5}, {1, 300}, {300, 1}, {17, 17}, {37, 513}, {33, 257}, {100, 1000}, {2, 262444}} {
		for _, d := range []Dtype{F32, F64} {
			// 2×262444 is the smallest shape whose slices hold two tiles
			// (1026 tiles > OpMaxSlices): run its fused pass in f32 only.
			full := sh[1] <= 1<<17
			if !full && d == F64 {
				continue
			}
			s, err := Op(sh[0], sh[1], d, dev)
			if err != nil {
				t.Fatal(err)
			}
			if !full && s.TilesPerSlice < 2 {
				t.Fatalf("%d×%d: %d tiles per slice, the case is meant to have 2", sh[0], sh[1], s.TilesPerSlice)
			}
			tl, err := Transpose(sh[0], sh[1], dev)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&in, "op %d %d %v %d %d %d %d %d %d %d %d\n", s.M, s.N, d, s.TilesPerSlice, s.GX, s.RowsPerBlock, s.GY,
				s.Pass.Grid, s.Finish.Grid, map[bool]int{false: 0, true: 1}[full], tl.Grid)
		}
	}
	for _, n := range []int64{1, 2, 5, 31, 256, 257, 2047, 3000, 20001} {
		s, err := Vector(n, dev)
		if err != nil {
			t.Fatal(err)
		}
		el, err := Elementwise(n, dev)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, "vec %d %d %d %d\n", n, s.ChunkLen, s.Launch.Grid, el.Grid)
	}
	// The sampled operator: vectors of one and of several chunks, batches
	// from 1 to more than the rows.
	for _, c := range [][3]int64{{37, 513, 5}, {1, 1, 1}, {3, 20001, 7}, {20001, 2, 300}, {300, 257, 1000}} {
		m, n, b := c[0], c[1], c[2]
		for _, d := range []Dtype{F32, F64} {
			vq, err1 := Vector(n, dev)
			vp, err2 := Vector(m, dev)
			sl, err3 := SampleScan(vq, vp, dev)
			dl, err4 := SampleDraw(b, dev)
			rn, err5 := Elementwise(n, dev)
			rm, err6 := Elementwise(m, dev)
			cl, err7 := SampleCols(m, dev)
			if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&in, "sample %d %d %v %d %d %d %d %d %d %d %d\n", m, n, d, vq.ChunkLen, vp.ChunkLen, b,
				sl.Grid, dl.Grid, rn.Grid, rm.Grid, cl.Grid)
		}
	}
	// The batched kernels: B = 1, 3 and 37, selections that skip games and
	// are out of order, 1×1, 1×n, m×1, odd sizes and 64×64; the device's
	// grid cap of 5 makes blocks loop over several games.
	for _, c := range []struct {
		b, m, n int64
		games   []int64
	}{
		{1, 1, 1, []int64{0}}, {3, 1, 300, []int64{2, 0}}, {3, 300, 1, []int64{1}}, {3, 5, 7, []int64{0, 1, 2}},
		{37, 64, 64, everyThird(37)}, {37, 3, 257, everyThird(37)}, {3, 300, 5, []int64{2, 1}}, {3, 512, 512, []int64{0, 2}},
	} {
		for _, d := range []Dtype{F32, F64} {
			count := int64(len(c.games))
			l, err1 := Batch(c.b, count, c.m, c.n, dev)
			el, err2 := BatchElementwise(c.b, count, c.n, dev)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&in, "batch %d %d %d %v %d %d %d", c.b, c.m, c.n, d, l.Grid, el.Grid, count)
			for _, g := range c.games {
				fmt.Fprintf(&in, " %d", g)
			}
			fmt.Fprintln(&in)
		}
	}
	// gan's payoff: layers of 1 to many tiles in each dimension (the
	// inner one through shared memory 16 at a time), several networks;
	// matrices of one entry to several per block.
	for _, c := range [][7]int64{{1, 1, 1, 1, 1, 1, 1}, {3, 37, 2, 17, 2, 3, 20}, {2, 40, 33, 16, 3, 2, 300}, {4, 16, 16, 1, 7, 5, 1}} {
		l, err1 := PayoffLayer(c[0], c[1], c[3], dev)
		r, err2 := PayoffReduce(c[4], c[5], dev)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, "payoff %d %d %d %d %d %d %d %d %d\n", c[0], c[1], c[2], c[3], l.Grid, c[4], c[5], c[6], r.Grid)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(line, "PASS ") {
			t.Log(line)
		}
	}
	if err != nil {
		t.Fatalf("emulated kernels: %v", err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatal("the emulator did not report its summary")
	}
}

// everyThird returns the games b−1, b−4, ... of a batch of b: a selection
// in decreasing order that skips two games of three.
func everyThird(b int64) []int64 {
	var out []int64
	for g := b - 1; g >= 0; g -= 3 {
		out = append(out, g)
	}
	return out
}

func TestBatchShapes(t *testing.T) {
	for _, c := range [][4]int64{{1, 1, 1, 1}, {37, 13, 64, 64}, {100000, 99999, 16, 16}, {3, 3, 1, 1 << 20}} {
		b, count, m, n := c[0], c[1], c[2], c[3]
		for name, dev := range devices {
			l, err := Batch(b, count, m, n, dev)
			if err != nil || l.Block != Threads || l.Grid < 1 || int64(l.Grid) > count || int64(l.Grid) > dev.gridCap() {
				t.Errorf("Batch(%d, %d, %d, %d, %s) = %+v, %v", b, count, m, n, name, l, err)
			}
			el, err := BatchElementwise(b, count, n, dev)
			if err != nil || el.Block != Threads || el.Grid < 1 || int64(el.Grid) > (count*n+Threads-1)/Threads {
				t.Errorf("BatchElementwise(%d, %d, %d, %s) = %+v, %v", b, count, n, name, el, err)
			}
		}
	}
	for _, c := range [][4]int64{{0, 0, 1, 1}, {3, 4, 1, 1}, {3, 0, 1, 1}, {2, 1, 0, 5}, {1 << 30, 1, 1 << 20, 1 << 20}, {math.MaxInt64, 1, 1, 1}} {
		if _, err := Batch(c[0], c[1], c[2], c[3], H100); !errors.Is(err, ErrSize) {
			t.Errorf("Batch(%v): %v, want ErrSize", c, err)
		}
		if _, err := BatchElementwise(c[0], c[1], c[3]*max(c[2], 1), H100); c[2] != 0 && !errors.Is(err, ErrSize) {
			t.Errorf("BatchElementwise(%v): %v, want ErrSize", c, err)
		}
	}
	for _, d := range []Dtype{F32, F64} {
		for _, kind := range []OpKind{Fused, MulVec, MulTVec} {
			name := BatchOpKernel(kind, d)
			if _, ok := Lookup(name); !ok || !strings.HasPrefix(name, BatchPrefix) {
				t.Errorf("BatchOpKernel(%d, %v) = %s", kind, d, name)
			}
		}
	}
}

// signature formats a kernel's arguments as README.md's table shows them.
func signature(k Kernel) string {
	parts := make([]string, len(k.Args))
	for a, arg := range k.Args {
		typ := map[ArgKind]string{Ptr: "ptr", Int: "i64", Float: "f64"}[arg.Kind]
		if arg.Nullable {
			typ += "?"
		}
		parts[a] = arg.Name + " " + typ
	}
	return "`" + strings.Join(parts, ", ") + "`"
}

// README.md's argument table must list every kernel with the arguments Go
// describes (and so the PTX has).
func TestReadmeArgumentTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kernels() {
		row := fmt.Sprintf("| `%s` | %d | %s |", k.Name, k.Block, signature(k))
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row\n%s", row)
		}
	}
}
