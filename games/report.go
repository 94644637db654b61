package games

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/gpump/gpump/solver"
)

// Report is the result of one game's solve, as `gpump solve -o` writes it
// and `--init` reads it back. Numbers are in the payoff file's units.
// Fields that are not finite (a gap that overflows float64 on a game of
// entries near ±1.8e308) are written as null (see Encoder).
type Report struct {
	Status              string   `json:"status"`
	Gap                 float64  `json:"gap"`
	RelativeGap         float64  `json:"relative_gap"`
	Value               float64  `json:"value"` // the middle of [value_lower, value_upper]
	ValueLower          float64  `json:"value_lower"`
	ValueUpper          float64  `json:"value_upper"`
	KnownValue          *float64 `json:"known_value,omitempty"`
	CertifiedBy         string   `json:"certified_by"` // "first-order" or "crossover" (solver.Result.CertifiedBy)
	Point               string   `json:"point"`
	ColumnPoint         string   `json:"column_point"`
	RowSupport          int      `json:"row_support"` // positive entries of the row strategy
	ColumnSupport       int      `json:"column_support"`
	Iterations          int      `json:"iterations"`
	OperatorEvaluations int      `json:"operator_evaluations"`
	MatrixPasses        int      `json:"matrix_passes"`
	GapPasses           int      `json:"gap_passes,omitempty"`
	Oracle              string   `json:"oracle"`
	Batch               int      `json:"batch,omitempty"`
	Rejections          int      `json:"rejections,omitempty"`
	Restarts            int      `json:"restarts,omitempty"`
	// Step is a pointer for the readers of the format before its policy
	// for non-finite numbers: it was always null when it overflowed.
	Step              *float64 `json:"step"`
	Seconds           float64  `json:"seconds"`
	LoadSeconds       float64  `json:"load_seconds"`
	Algorithm         string   `json:"algorithm"`
	Route             string   `json:"route,omitempty"`
	SubgameSolves     int      `json:"subgame_solves,omitempty"`
	SubgameSize       int      `json:"subgame_size,omitempty"`
	SubgameSeconds    float64  `json:"subgame_seconds,omitempty"`
	Source            string   `json:"source"`
	Format            string   `json:"format,omitempty"`
	M                 int      `json:"m"`
	N                 int      `json:"n"`
	Precision         string   `json:"precision"`
	MaxAbsEntry       float64  `json:"max_abs_entry"`
	RoundingBound     float64  `json:"rounding_bound,omitempty"`
	TargetRelativeGap float64  `json:"target_relative_gap"`
	TargetAbsoluteGap float64  `json:"target_absolute_gap,omitempty"`
	Setup             string   `json:"setup,omitempty"`
	Device            string   `json:"device"`
	Threads           int      `json:"threads"`
	Kernels           string   `json:"kernels"`
	// Ranks and CommSeconds are set by a solve over several MPI ranks
	// (absent otherwise): how many, and the wall time rank 0 spent in
	// their collectives (transfers and waits for slower ranks).
	Ranks          int       `json:"ranks,omitempty"`
	CommSeconds    float64   `json:"comm_seconds,omitempty"`
	Strategies     string    `json:"strategies,omitempty"`
	RowStrategy    []float64 `json:"row_strategy,omitempty"`
	ColumnStrategy []float64 `json:"column_strategy,omitempty"`
}

// NewReport returns the report of res with the fields a result holds set
// (status, gaps, bracket, work, timing, route), and target the settings'
// targets. The caller sets what the solve's surroundings know: the source,
// shape, precision, device, load time. Oracle is "exact".
func NewReport(res *solver.Result, s *solver.Settings) *Report {
	r := &Report{
		Status: res.Status.String(), Gap: res.Gap, RelativeGap: res.RelGap,
		Value: res.Value(), ValueLower: res.ValueLower, ValueUpper: res.ValueUpper,
		Point: res.Point.String(), ColumnPoint: res.ColumnPoint.String(), CertifiedBy: res.CertifiedBy(),
		RowSupport: res.RowSupport, ColumnSupport: res.ColumnSupport,
		Iterations: res.Iterations, OperatorEvaluations: res.Evaluations, MatrixPasses: res.MatrixPasses,
		GapPasses: res.GapPasses, Oracle: "exact", Rejections: res.Rejections, Restarts: res.Restarts,
		Step: finiteOrNil(res.Step), Seconds: res.Runtime.Seconds(),
		Algorithm: res.Method, Route: res.Route, SubgameSolves: res.SubgameSolves, SubgameSize: res.SubgameSize,
		SubgameSeconds: res.SubgameTime.Seconds(),
	}
	if s != nil {
		r.TargetRelativeGap, r.TargetAbsoluteGap = s.RelGap, s.AbsGap
	}
	return r
}

// Line is one line of `gpump batch` output: the report of one game of an
// instance (a file, a generator, a manifest line), or why it has none.
type Line struct {
	Instance string `json:"instance"`
	Index    int    `json:"index"`
	// Key and Games are set for a game of a file that holds many (a stack,
	// an archive): its archive member (or "" for a stack), and the file's
	// number of games.
	Key    string `json:"key,omitempty"`
	Games  int    `json:"games,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// RowMember, ColumnMember and MemberRow say where --strategies put the
	// line's strategies.
	RowMember    string `json:"row_member,omitempty"`
	ColumnMember string `json:"column_member,omitempty"`
	MemberRow    *int   `json:"member_row,omitempty"`
	*Report
}

// ID is the identity of the line's game for resuming a batch: the
// instance, and for a game of a file of many its member key or index. Two
// identical instances share an ID: a resumed batch counts them.
func (l *Line) ID() string {
	if l.Games > 0 {
		return GameID(l.Instance, l.Index, l.Key)
	}
	return l.Instance
}

// GameID is Line.ID of game index (archive member key, "" for a stack) of
// the instance of many games named instance.
func GameID(instance string, index int, key string) string {
	if key != "" {
		return instance + "\x00" + key
	}
	return instance + "\x00" + strconv.Itoa(index)
}

// Done reports whether the line holds a result a resumed batch keeps: any
// status but error and canceled.
func (l *Line) Done() bool { return l.Status != "error" && l.Status != "canceled" }

// ParseLine parses one line of `gpump batch` output. It fails on anything
// else: a line without an instance, an index and a status is not a result.
func ParseLine(b []byte) (*Line, error) {
	var must struct {
		Instance, Status *string
		Index            *int
	}
	if err := json.Unmarshal(b, &must); err != nil {
		return nil, err
	}
	if must.Instance == nil || must.Index == nil || must.Status == nil || *must.Status == "" {
		return nil, errors.New("games: not a batch result line: no instance, index or status")
	}
	l := new(Line)
	if err := Unmarshal(b, l); err != nil {
		return nil, err
	}
	return l, nil
}

// LinePrefix starts every line of batch output: Line's first field.
const LinePrefix = `{"instance":`

// ReadResults reads the batch output file at path for resuming the batch
// and returns how many results it holds per game identity (Line.ID);
// lines that are not Done do not count. A missing file holds none. A file
// that is not batch output is refused: resuming would append to it. A last line cut short by a crash (the start of a result
// with no line end) is removed, so that appending starts on a line of its
// own; nothing else is changed.
func ReadResults(path string) (map[string]int, error) {
	done := map[string]int{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	cut := -1
	for k, line := range lines {
		l, err := ParseLine(line)
		ok := err == nil
		if !ok && k == len(lines)-1 && line[len(line)-1] != '\n' && bytes.HasPrefix(line, []byte(LinePrefix)) {
			cut = len(b) - len(line)
			break
		}
		if !ok {
			return nil, fmt.Errorf("%s is not the output of gpump batch (line %d is not a result): resume only a batch's own results file", path, k+1)
		}
		if l.Done() {
			done[l.ID()]++
		}
	}
	switch {
	case cut >= 0:
		if err := os.Truncate(path, int64(cut)); err != nil {
			return nil, fmt.Errorf("%s: removing a last line cut short: %w", path, err)
		}
	case len(b) > 0 && b[len(b)-1] != '\n':
		// A whole result without its line end: end the line.
		if err := appendNewline(path); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return done, nil
}

// appendNewline ends the last line of the file at path.
func appendNewline(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
