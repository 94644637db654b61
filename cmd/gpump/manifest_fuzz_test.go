package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/gpump/gpump/games"
)

// FuzzManifest: the flags of any manifest line (games.FuzzReadManifest
// checks the listing itself) parse over the batch's options or are refused
// with an error, never a panic, and the line's file stays its positional
// argument.
func FuzzManifest(f *testing.F) {
	seed, err := os.ReadFile("testdata/manifest.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, s := range []string{"a.npy --eps\n", "x.npy -- --c 1\n", "gen:uniform --m 3 --algo\n", "b.npy --output o.csv\n"} {
		f.Add([]byte(s))
	}
	batch := newJobOptions()
	f.Fuzz(func(t *testing.T, text []byte) {
		l := &games.Listing{}
		if l.ReadManifest(bytes.NewReader(text), "dir/m.txt") != nil {
			return
		}
		for _, in := range l.Instances {
			if in.Err != nil {
				continue
			}
			_, pos, err := lineOptions(batch, in.Name, in.Args)
			if err == nil && in.File != "" && (len(pos) == 0 || pos[len(pos)-1] != in.File) {
				t.Fatalf("%q: positional arguments %q, want the file %q last", in.Name, pos, in.File)
			}
		}
	})
}
