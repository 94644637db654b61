package games

import "testing"

// FuzzDecodeInit: decoding a --init result never panics, and what it
// accepts has a game's two strategies, a problem's solution, or the name
// of a strategies archive.
func FuzzDecodeInit(f *testing.F) {
	for _, s := range []string{
		`{"row_strategy": [0.5, 0.5], "column_strategy": [1]}`,
		`{"strategies": "s.npz", "gap": 0}`,
		`{"solution": [0.1, 0.9]}`,
		`{"row_strategy": [1], "solution": [1]}`,
		`{"row_strategy": null}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := decodeInitJSON("fuzz.json", data)
		if err != nil {
			return
		}
		switch {
		case len(w.Row) > 0 && len(w.Column) > 0 && w.Solution == nil:
		case len(w.Solution) > 0 && w.Row == nil && w.Column == nil:
		case w.Row == nil && w.Column == nil && w.Solution == nil && w.Source != "":
		default:
			t.Fatalf("accepted %q as %+v", data, w)
		}
	})
}
