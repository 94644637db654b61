package shard

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Source is where a sharded game's payoffs come from: a C-order .npy file
// (Path) that every rank can read, or a generator (Gen), each rank
// reading or making only its rows.
type Source struct {
	Path string
	Gen  *datasets.GenSpec
	// DType is the matrix's storage: tensor.Float64 or tensor.Float32; the
	// zero value keeps a file's own float type (float64 otherwise) and
	// generates float64.
	DType tensor.Dtype
}

func (s Source) String() string {
	if s.Gen != nil {
		return s.Gen.String()
	}
	return s.Path
}

// Options are a sharded game's settings on each rank.
type Options struct {
	// Threads is the number of threads of each rank's CPU backend (0:
	// all cores, as tensorops.NewCPU; under mpirun give each rank its
	// share).
	Threads int
	// Device, when set, is the backend that holds this rank's block and
	// its vectors (a GPU's, each rank its own device: see New), closed by
	// the caller after the Game; Threads then does not apply. Nil: a CPU
	// backend of Threads threads.
	Device tensorops.Backend
}

// Game is this rank's part of a game held over the ranks of a Comm.
type Game struct {
	// Game is the sharded game (solver.NewShardedMatrixGame): solve it on
	// every rank alike.
	Game *solver.MatrixGame
	// Backend is this rank's backend.
	Backend *Backend
	// close closes the CPU backend Open made (not Options.Device).
	close func() error
}

// Close frees the game and the CPU backend Open made.
func (g *Game) Close() error {
	g.Game.Close()
	return g.close()
}

// Open reads or generates this rank's block of rows of src's matrix and
// returns the game placed over c's ranks. Every rank of c calls it with the
// same src and opt; before reading anything the ranks check that they
// agree on them, on the CPU kernels and on the threads (Agree), since
// the ranks must compute alike (see the package documentation). Every rank
// returns an error if any rank failed: no rank is left waiting in a
// collective for one that gave up.
func Open(c Comm, src Source, opt *Options) (*Game, error) {
	if opt == nil {
		opt = &Options{}
	}
	if (src.Path == "") == (src.Gen == nil) {
		return nil, errors.New("shard: a source is a path or a generator, one of them")
	}
	var cpu *tensorops.CPU
	local, closeLocal := opt.Device, func() error { return nil }
	if local == nil {
		cpu = tensorops.NewCPU(opt.Threads)
		local, closeLocal = cpu, cpu.Close
	}
	setup := fmt.Sprintf("source %s, dtype %v, on %s (kernels %s)", src, src.DType, local.Name(), kernelsOf(local))
	if cpu != nil {
		setup += fmt.Sprintf(", %d threads per rank", cpu.Threads())
	}
	if err := Agree(c, setup); err != nil {
		closeLocal()
		return nil, err
	}
	block, m, err := readBlock(c, src)
	if err = Fail(c, err); err != nil {
		closeLocal()
		return nil, err
	}
	be := New(local, c, m)
	g, err := solver.NewShardedMatrixGame(block, be)
	if err = Fail(c, err); err != nil {
		closeLocal()
		return nil, err
	}
	return &Game{Game: g, Backend: be, close: closeLocal}, nil
}

// readBlock reads or generates rank c.Rank()'s rows of src's matrix.
func readBlock(c Comm, src Source) (*tensor.Dense, int, error) {
	rows := func(m int) (int, int) { return Split(m, c.Size(), c.Rank()) }
	if src.Gen != nil {
		dt := src.DType
		if dt.Type == nil {
			dt = tensor.Float64
		}
		m := src.Gen.Rows()
		if m < c.Size() {
			return nil, 0, fmt.Errorf("shard: %d rows over %d ranks leave a rank none", m, c.Size())
		}
		lo, hi := rows(m)
		a, err := datasets.GenerateRows(dt, *src.Gen, lo, hi)
		return a, m, err
	}
	var few error
	a, m, err := datasets.ReadNPYRows(src.Path, func(m int) (int, int) {
		if m < c.Size() {
			few = fmt.Errorf("shard: %s: %d rows over %d ranks leave a rank none", src.Path, m, c.Size())
			return 0, 0
		}
		return rows(m)
	}, &datasets.ReadOptions{DType: src.DType})
	if few != nil {
		return nil, 0, few
	}
	return a, m, err
}

// Agree checks that every rank of c passed the same setup (a description
// of its flags, input and build): it returns nil on every rank, or on
// every rank the same error naming the first rank that differs from rank
// 0. Ranks that disagree on what they solve must fail before any work.
func Agree(c Comm, setup string) error {
	sum := sha256.Sum256([]byte(setup))
	mine := make([]float64, 4)
	for k := range mine { // 64 bits of the digest per entry, exactly
		var v uint64
		for _, b := range sum[8*k : 8*k+8] {
			v = v<<8 | uint64(b)
		}
		mine[k] = math.Float64frombits(v)
	}
	all := gather(c, mine)
	for r := 1; r < c.Size(); r++ {
		for k := range mine {
			if math.Float64bits(all[4*r+k]) != math.Float64bits(all[k]) {
				root := []byte(setup)
				if c.Rank() != 0 {
					root = nil
				}
				return fmt.Errorf("shard: rank %d differs from rank 0: rank 0 has %s", r, rootString(c, root))
			}
		}
	}
	return nil
}

// rootString broadcasts rank 0's text (root on rank 0, ignored elsewhere).
func rootString(c Comm, root []byte) string {
	n := []byte{0, 0, 0, 0}
	if c.Rank() == 0 {
		l := min(len(root), 1<<20)
		n = []byte{byte(l >> 24), byte(l >> 16), byte(l >> 8), byte(l)}
	}
	c.Bcast(n, 0)
	l := int(n[0])<<24 | int(n[1])<<16 | int(n[2])<<8 | int(n[3])
	buf := make([]byte, l)
	if c.Rank() == 0 {
		copy(buf, root)
	}
	c.Bcast(buf, 0)
	return string(buf)
}

// Fail combines the ranks' outcomes of a step that each rank took alone
// (reading its block, say): nil on every rank if every rank's err is nil,
// else on every rank an error that names the first rank that failed and,
// on that rank, wraps its err.
func Fail(c Comm, err error) error {
	flag := 0.0
	if err != nil {
		flag = 1
	}
	all := gather(c, []float64{flag})
	for r, f := range all {
		if f == 0 {
			continue
		}
		// Rank r's message, broadcast so that rank 0 (which writes) says
		// why.
		var msg []byte
		if c.Rank() == r {
			msg = []byte(err.Error())
		}
		text := bcastFrom(c, r, msg)
		if c.Rank() == r {
			return err
		}
		return fmt.Errorf("shard: rank %d failed: %s", r, text)
	}
	return nil
}

// bcastFrom broadcasts root's msg, cut at 64 KiB.
func bcastFrom(c Comm, root int, msg []byte) string {
	buf := make([]byte, 1<<16-1)
	n := copy(buf, msg)
	l := []byte{byte(n >> 8), byte(n)}
	c.Bcast(l, root)
	c.Bcast(buf, root)
	return strings.TrimSpace(string(buf[:int(l[0])<<8|int(l[1])]))
}

// gather gathers every rank's x, of the same length on every rank.
func gather(c Comm, x []float64) []float64 {
	counts := make([]int, c.Size())
	for r := range counts {
		counts[r] = len(x)
	}
	all := make([]float64, len(x)*c.Size())
	c.Allgather(x, all, counts)
	return all
}

// Output returns w on rank 0 and io.Discard on the others: the ranks of a
// sharded solve hold the same result, and rank 0 alone writes it.
func Output(c Comm, w io.Writer) io.Writer {
	if c.Rank() == 0 {
		return w
	}
	return io.Discard
}
