package games

import (
	"bytes"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNonFinitePolicy: every non-finite number, whatever field holds it,
// is written as null and the rest as encoding/json writes it; float64
// fields read back as NaN, the others as encoding/json reads null.
func TestNonFinitePolicy(t *testing.T) {
	step := math.Inf(-1)
	for _, tc := range []struct {
		name string
		in   *Line
		want string // a substring of the encoding
	}{
		{"gap", &Line{Instance: "a", Status: "limit", Report: &Report{Status: "limit", Gap: math.Inf(1)}}, `"status":"limit","gap":null,`},
		{"value nan", &Line{Instance: "a", Status: "limit", Report: &Report{ValueLower: math.NaN()}}, `"value_lower":null,`},
		{"step", &Line{Instance: "a", Status: "limit", Report: &Report{Step: &step}}, `"step":null,`},
		{"strategy", &Line{Instance: "a", Status: "limit", Report: &Report{RowStrategy: []float64{1, math.NaN()}}}, `"row_strategy":[1,null]`},
		{"finite", &Line{Instance: "<&>", Status: "converged", Report: &Report{Gap: 0.5}}, `{"instance":"<&>","index":0,"status":"converged","gap":0.5,`},
	} {
		b, err := Marshal(tc.in, false)
		if err != nil || !bytes.Contains(b, []byte(tc.want)) || bytes.Count(b, []byte(`"status"`)) != 1 || b[len(b)-1] != '\n' {
			t.Errorf("%s: %s, %v; want %s in one line with one status", tc.name, b, err, tc.want)
			continue
		}
		l, err := ParseLine(b)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if g := tc.in.Gap; math.IsInf(g, 0) != math.IsNaN(l.Gap) || !math.IsInf(g, 0) && l.Gap != g {
			t.Errorf("%s: gap %g read back as %g", tc.name, g, l.Gap)
		}
		if math.IsNaN(tc.in.ValueLower) != math.IsNaN(l.ValueLower) {
			t.Errorf("%s: value_lower %g read back as %g", tc.name, tc.in.ValueLower, l.ValueLower)
		}
	}
}

// TestParseLine: only lines with an instance, an index and a status are
// results; the identity of a game of many counts its key or index.
func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   string // "" for a refused line
	}{
		{`{"instance":"g.npy","index":3,"status":"converged"}`, "g.npy"},
		{`{"instance":"a.npz","index":3,"key":"k","games":5,"status":"limit"}`, "a.npz\x00k"},
		{`{"instance":"s.npy","index":3,"games":5,"status":"limit"}`, "s.npy\x003"},
		{`{"index":3,"status":"converged"}`, ""},
		{`{"instance":"g.npy","status":"converged"}`, ""},
		{`{"instance":"g.npy","index":3,"status":""}`, ""},
		{`{"instance":"g.npy","index":3}`, ""},
		{`{"instance":"g.npy","index":3,"status":"conv`, ""},
		{`[1,2]`, ""},
	} {
		l, err := ParseLine([]byte(tc.line))
		switch {
		case tc.id == "" && err == nil:
			t.Errorf("%s: accepted", tc.line)
		case tc.id != "" && (err != nil || l.ID() != tc.id):
			t.Errorf("%s: %v, %v; want id %q", tc.line, l, err, tc.id)
		}
	}
}

// FuzzParseLine: a line ParseLine accepts encodes and parses back to the
// same identity and status.
func FuzzParseLine(f *testing.F) {
	f.Add(`{"instance":"g.npy","index":3,"status":"converged","gap":null}`)
	f.Add(`{"instance":"a.npz","index":3,"key":"k","games":5,"status":"limit"}`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLine([]byte(s))
		if err != nil {
			return
		}
		b, err := Marshal(l, false)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		back, err := ParseLine(b)
		if err != nil || back.ID() != l.ID() || back.Status != l.Status || strings.Count(string(b), "\n") != 1 {
			t.Fatalf("%q: wrote %s, read back %v, %v", s, b, back, err)
		}
	})
}

// TestReadResults: the games a results file holds, by identity; a last
// line cut short is removed and a last line without its end is ended; a
// file that is not batch output is refused and left as it is.
func TestReadResults(t *testing.T) {
	done := `{"instance":"a.npy","index":0,"status":"converged"}` + "\n" +
		`{"instance":"a.npy","index":1,"status":"error","error":"x"}` + "\n" +
		`{"instance":"s.npy","index":2,"games":3,"status":"limit"}`
	for _, tc := range []struct {
		name, text, after string
		want              map[string]int
		bad               bool
	}{
		{"whole", done + "\n", done + "\n", map[string]int{"a.npy": 1, "s.npy\x002": 1}, false},
		{"no line end", done, done + "\n", map[string]int{"a.npy": 1, "s.npy\x002": 1}, false},
		{"cut short", done + "\n" + `{"instance":"b.npy","ind`, done + "\n", map[string]int{"a.npy": 1, "s.npy\x002": 1}, false},
		{"not results", "row,col\n1,2\n", "row,col\n1,2\n", nil, true},
		{"empty", "", "", map[string]int{}, false},
	} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadResults(path)
		b, _ := os.ReadFile(path)
		switch {
		case tc.bad != (err != nil):
			t.Errorf("%s: error %v", tc.name, err)
		case !tc.bad && !maps.Equal(got, tc.want):
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		case string(b) != tc.after:
			t.Errorf("%s: file left as %q, want %q", tc.name, b, tc.after)
		}
	}
	if got, err := ReadResults(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || len(got) != 0 {
		t.Errorf("missing file: %v, %v", got, err)
	}
}
