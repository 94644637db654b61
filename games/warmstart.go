package games

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpump/gpump/datasets"
)

// maxWarmStartJSON bounds the size of a result file read for its
// strategies: those of a 20000×20000 game written as JSON take under 1 MB.
const maxWarmStartJSON = 1 << 30

// WarmStart is what a solve is warm-started from: a game's strategies, or a
// problem's point.
type WarmStart struct {
	// Source is the file the strategies or the point were read from.
	Source string
	// Row and Column are a game's strategies (Report's row_strategy and
	// column_strategy), Solution a problem's point; the other is nil.
	Row, Column []float64
	Solution    []float64
}

// ReadWarmStart reads a file to warm-start a solve from (gpump's --init):
// a gpump result (.json: a Report with row_strategy and column_strategy,
// or with strategies naming an .npz archive written by
// --strategies, or the solution of gpump solve --problem) or a strategies
// archive (.npz with members row and column).
func ReadWarmStart(path string) (*WarmStart, error) {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		w, err := readStrategiesNPZ(path)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWarmStartJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxWarmStartJSON {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a gpump result", path, maxWarmStartJSON)
	}
	w, err := decodeInitJSON(path, data)
	if err != nil {
		return nil, err
	}
	if w.Row == nil && w.Solution == nil {
		if w, err = readStrategiesNPZ(archivePath(path, w.Source)); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return w, nil
}

// archivePath resolves the strategies archive a result names: relative to
// the directory the command ran in, or to the result's.
func archivePath(result, name string) string {
	if _, err := os.Stat(name); err != nil && !filepath.IsAbs(name) {
		return filepath.Join(filepath.Dir(result), name)
	}
	return name
}

// WarmStartArchive returns the strategies archive the result at path
// names, or "".
func WarmStartArchive(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxWarmStartJSON {
		return ""
	}
	w, err := decodeInitJSON(path, data)
	if err != nil || w.Row != nil || w.Solution != nil {
		return ""
	}
	return archivePath(path, w.Source)
}

// decodeInitJSON decodes a gpump result. A result whose strategies went to
// an archive returns a WarmStart with only source set, to the archive.
func decodeInitJSON(path string, data []byte) (*WarmStart, error) {
	var r struct {
		RowStrategy    []float64 `json:"row_strategy"`
		ColumnStrategy []float64 `json:"column_strategy"`
		Strategies     string    `json:"strategies"`
		Solution       []float64 `json:"solution"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a gpump result: %w", path, err)
	}
	w := &WarmStart{Source: path, Row: r.RowStrategy, Column: r.ColumnStrategy, Solution: r.Solution}
	switch {
	case len(r.Solution) > 0 && (r.RowStrategy != nil || r.ColumnStrategy != nil):
		return nil, fmt.Errorf("%s: holds both strategies and a solution", path)
	case len(r.Solution) > 0:
	case len(r.RowStrategy) > 0 && len(r.ColumnStrategy) > 0:
	case r.RowStrategy == nil && r.ColumnStrategy == nil && r.Strategies != "":
		w.Source = r.Strategies
	default:
		return nil, fmt.Errorf("%s: no row_strategy and column_strategy (or strategies file) and no solution: not a gpump result", path)
	}
	return w, nil
}

// readStrategiesNPZ reads the members row and column of a strategies
// archive.
func readStrategiesNPZ(path string) (*WarmStart, error) {
	w := &WarmStart{Source: path}
	for _, m := range []struct {
		key string
		dst *[]float64
	}{{"row", &w.Row}, {"column", &w.Column}} {
		v, err := datasets.ReadNPZVector(path, m.key)
		if err != nil {
			return nil, err
		}
		*m.dst = v
	}
	return w, nil
}

// Pair returns the warm start of an m×n game: p followed by q.
func (w *WarmStart) Pair(m, n int) ([]float64, error) {
	if w.Row == nil {
		return nil, fmt.Errorf("%s holds a problem's solution, not a game's strategies", w.Source)
	}
	if len(w.Row) != m || len(w.Column) != n {
		return nil, fmt.Errorf("%s holds strategies for a %d×%d game, not %d×%d", w.Source, len(w.Row), len(w.Column), m, n)
	}
	return append(append(make([]float64, 0, m+n), w.Row...), w.Column...), nil
}

// Point returns the warm start of a problem of dimension dim.
func (w *WarmStart) Point(dim int) ([]float64, error) {
	if w.Solution == nil {
		return nil, errors.New(w.Source + " holds a game's strategies, not a problem's solution")
	}
	if len(w.Solution) != dim {
		return nil, fmt.Errorf("%s holds a point of dimension %d, not %d", w.Source, len(w.Solution), dim)
	}
	return w.Solution, nil
}
