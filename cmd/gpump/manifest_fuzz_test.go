package main

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// FuzzManifest: any manifest text lists one instance per line that is not
// blank or a comment, each with its line as name, a generator's flags or
// its file last after "--", and flags that the line's flag set parses or
// refuses without panicking.
func FuzzManifest(f *testing.F) {
	seed, err := os.ReadFile("testdata/manifest.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, s := range []string{
		"\ufeffgames/a.npy --algo rm+\n",
		"'my file.npy' --eps 1e-3\r\n# comment\n\n  gen:uniform --m 3\n",
		"gen:\n\"unterminated\n--weird.npy\n",
		"a.npy --eps\n",
		"x.npy -- --c 1\n\t \n#\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		l := &listing{seen: map[any]bool{}}
		err := l.readManifest(bytes.NewReader(text), "dir/m.txt")
		if err != nil {
			return // a line too long for the scanner
		}
		want := 0
		sc := bufio.NewScanner(bytes.NewReader(text))
		sc.Buffer(nil, 1<<20)
		for ln := 1; sc.Scan(); ln++ {
			s := sc.Text()
			if ln == 1 {
				s = strings.TrimPrefix(s, "\ufeff")
			}
			if s = strings.TrimSpace(s); s != "" && s[0] != '#' {
				want++
			}
		}
		if len(l.insts) != want {
			t.Fatalf("%d instances from %d lines of %q", len(l.insts), want, text)
		}
		for k, in := range l.insts {
			switch {
			case in.index != k || in.name == "" || in.name[0] == '#' || in.name != strings.TrimSpace(in.name):
				t.Fatalf("instance %d: %+v", k, in)
			case in.err != nil:
				continue
			case in.file == "" && (len(in.args) < 2 || in.args[0] != "--gen"):
				t.Fatalf("generator instance %d: args %q", k, in.args)
			case in.file != "" && (len(in.args) < 2 || in.args[len(in.args)-1] != in.file || in.args[len(in.args)-2] != "--"):
				t.Fatalf("file instance %d: args %q, file %q", k, in.args, in.file)
			}
			set := flag.NewFlagSet(in.name, flag.ContinueOnError)
			set.SetOutput(io.Discard)
			for _, fl := range lineFlags(newJobOptions()) {
				if err := fl.Apply(set); err != nil {
					t.Fatal(err)
				}
			}
			set.Parse(in.args)
		}
	})
}
