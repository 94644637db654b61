package games

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// StrategyArchive collects the strategies of a batch for one .npz archive
// (`gpump batch --strategies`): members row_K and column_K for instance K
// (row and column when the batch is one instance holding many games), 2-D
// (games × m) for an instance of many games, 1-D for a single game; rows
// of games without a result are NaN. Its methods may be called from
// several goroutines; Write writes it whole, atomically, at the end. A nil
// *StrategyArchive stores nothing.
type StrategyArchive struct {
	Path   string
	Single bool // the batch is one instance: members row and column
	mu     sync.Mutex
	arrays []datasets.Array
	names  map[string]int
}

// StackStrategies is where the strategies of one Stack's games go.
type StackStrategies struct {
	s         *StrategyArchive
	row, col  *tensor.Dense
	rowName   string
	colName   string
	positions []int // member row of each game of the group
}

// memberNames names instance k's members.
func (s *StrategyArchive) memberNames(k int) (string, string) {
	if s.Single {
		return "row", "column"
	}
	return "row_" + strconv.Itoa(k), "column_" + strconv.Itoa(k)
}

// Reserve makes (or finds) instance k's members, games × m and games × n,
// and returns the place of the games at the rows positions (their
// positions in the file).
func (s *StrategyArchive) Reserve(instance int, positions []int, games, m, n int) *StackStrategies {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names == nil {
		s.names = map[string]int{}
	}
	is := &StackStrategies{s: s, positions: positions}
	is.rowName, is.colName = s.memberNames(instance)
	is.row, is.col = s.pair(is.rowName, is.colName, games, m, n)
	// A game's member row is its position in the file: in an archive of
	// several shapes each shape's members only fill their rows.
	if is.row.Shape()[1] != m || is.col.Shape()[1] != n {
		// Another shape of the same archive: members of their own,
		// shared by the groups of that shape (float64 and float32).
		shape := "_" + strconv.Itoa(m) + "x" + strconv.Itoa(n)
		is.rowName, is.colName = is.rowName+shape, is.colName+shape
		is.row, is.col = s.pair(is.rowName, is.colName, games, m, n)
	}
	return is
}

// pair returns the members named rn and cn, made games×m and games×n (NaN)
// if the archive has no member rn yet.
func (s *StrategyArchive) pair(rn, cn string, games, m, n int) (row, col *tensor.Dense) {
	if k, ok := s.names[rn]; ok {
		return s.arrays[k].T, s.arrays[k+1].T
	}
	row, col = nanMatrix(games, m), nanMatrix(games, n)
	s.names[rn] = len(s.arrays)
	s.arrays = append(s.arrays, datasets.Array{Name: rn, T: row}, datasets.Array{Name: cn, T: col})
	return row, col
}

// Put stores the strategies of game k (its position among those Reserve
// was given) and names their members and row in its line.
func (is *StackStrategies) Put(line *Line, k int, row, col []float64) {
	if is == nil || row == nil {
		return
	}
	at := is.positions[k]
	is.s.mu.Lock()
	copy(is.row.Float64s()[at*len(row):], row)
	copy(is.col.Float64s()[at*len(col):], col)
	is.s.mu.Unlock()
	line.RowMember, line.ColumnMember, line.MemberRow = is.rowName, is.colName, &at
}

// PutSingle stores the strategies of instance k, of one game, and names
// their members in its line.
func (s *StrategyArchive) PutSingle(instance int, line *Line, row, col []float64) {
	if s == nil || row == nil {
		return
	}
	rn, cn := s.memberNames(instance)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrays = append(s.arrays,
		datasets.Array{Name: rn, T: tensor.New(tensor.WithShape(len(row)), tensor.WithBacking(slices.Clone(row)))},
		datasets.Array{Name: cn, T: tensor.New(tensor.WithShape(len(col)), tensor.WithBacking(slices.Clone(col)))})
	line.RowMember, line.ColumnMember = rn, cn
}

// Write writes the archive to Path, atomically; an archive without a
// game is an error.
func (s *StrategyArchive) Write() error {
	if s == nil {
		return nil
	}
	if len(s.arrays) == 0 {
		return fmt.Errorf("--strategies %s: no game was solved", s.Path)
	}
	return datasets.WriteNPZ(s.Path, s.arrays, nil)
}

func nanMatrix(r, c int) *tensor.Dense {
	d := make([]float64, r*c)
	for k := range d {
		d[k] = math.NaN()
	}
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(d))
}
