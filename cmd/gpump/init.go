package main

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

// maxInitJSON bounds the size of a --init result file: the strategies of a
// 20000×20000 game written as JSON take under 1 MB.
const maxInitJSON = 1 << 30

// warmStart is a --init file's content: a game's strategies, or a
// problem's point.
type warmStart struct {
	source      string
	row, column []float64
	solution    []float64
}

// readInit reads a --init file: a gpump result (.json, with row_strategy and
// column_strategy, or strategies naming an .npz archive written by
// --strategies, or the solution of gpump solve --problem) or a strategies
// archive (.npz with members row and column).
func readInit(path string) (*warmStart, error) {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		w, err := readStrategiesNPZ(path)
		if err != nil {
			return nil, fmt.Errorf("--init: %w", err)
		}
		return w, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInitJSON+1))
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	if len(data) > maxInitJSON {
		return nil, fmt.Errorf("--init: %s is larger than %d bytes: not a gpump result", path, maxInitJSON)
	}
	w, err := decodeInitJSON(path, data)
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	if w.row == nil && w.solution == nil {
		if w, err = readStrategiesNPZ(archivePath(path, w.source)); err != nil {
			return nil, fmt.Errorf("--init: %s: %w", path, err)
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

// initArchive returns the strategies archive a --init result names, or "".
func initArchive(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxInitJSON {
		return ""
	}
	w, err := decodeInitJSON(path, data)
	if err != nil || w.row != nil || w.solution != nil {
		return ""
	}
	return archivePath(path, w.source)
}

// decodeInitJSON decodes a gpump result. A result whose strategies went to
// an archive returns a warmStart with only source set, to the archive.
func decodeInitJSON(path string, data []byte) (*warmStart, error) {
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
	w := &warmStart{source: path, row: r.RowStrategy, column: r.ColumnStrategy, solution: r.Solution}
	switch {
	case len(r.Solution) > 0 && (r.RowStrategy != nil || r.ColumnStrategy != nil):
		return nil, fmt.Errorf("%s: holds both strategies and a solution", path)
	case len(r.Solution) > 0:
	case len(r.RowStrategy) > 0 && len(r.ColumnStrategy) > 0:
	case r.RowStrategy == nil && r.ColumnStrategy == nil && r.Strategies != "":
		w.source = r.Strategies
	default:
		return nil, fmt.Errorf("%s: no row_strategy and column_strategy (or strategies file) and no solution: not a gpump result", path)
	}
	return w, nil
}

// readStrategiesNPZ reads the members row and column of a strategies
// archive.
func readStrategiesNPZ(path string) (*warmStart, error) {
	w := &warmStart{source: path}
	for _, m := range []struct {
		key string
		dst *[]float64
	}{{"row", &w.row}, {"column", &w.column}} {
		v, err := datasets.ReadNPZVector(path, m.key)
		if err != nil {
			return nil, err
		}
		*m.dst = v
	}
	return w, nil
}

// pair returns the warm start of an m×n game: p followed by q.
func (w *warmStart) pair(m, n int) ([]float64, error) {
	if w.row == nil {
		return nil, fmt.Errorf("--init: %s holds a problem's solution, not a game's strategies", w.source)
	}
	if len(w.row) != m || len(w.column) != n {
		return nil, fmt.Errorf("--init: %s holds strategies for a %d×%d game, not %d×%d", w.source, len(w.row), len(w.column), m, n)
	}
	return append(append(make([]float64, 0, m+n), w.row...), w.column...), nil
}

// point returns the warm start of a problem of dimension dim.
func (w *warmStart) point(dim int) ([]float64, error) {
	if w.solution == nil {
		return nil, errors.New("--init: " + w.source + " holds a game's strategies, not a problem's solution")
	}
	if len(w.solution) != dim {
		return nil, fmt.Errorf("--init: %s holds a point of dimension %d, not %d", w.source, len(w.solution), dim)
	}
	return w.solution, nil
}
