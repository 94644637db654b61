package games

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		err  bool
	}{
		{"a.npy --algo rm+", "a.npy|--algo|rm+", false},
		{"'my file.npy'  --eps\t1e-3", "my file.npy|--eps|1e-3", false},
		{`"x y".csv`, "x y.csv", false},
		{`a"b c"d`, "ab cd", false},
		{"  ", "", false},
		{`'open`, "", true},
		{`"open`, "", true},
	} {
		got, err := SplitWords(c.in)
		if (err != nil) != c.err || strings.Join(got, "|") != c.want {
			t.Errorf("SplitWords(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.npy", "a.npy"},
		{"é.npy", "é.npy"},
		{"a\xff.npy", `a\xff.npy`},
		{"a\xfe.npy", `a\xfe.npy`},
		{`a\x41.npy`, `a\\x41.npy`}, // valid UTF-8 holding \x: escaped, so that no two names meet
	} {
		if got := DisplayName(c.in); got != c.want {
			t.Errorf("DisplayName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// writeGame writes an m×n .npy game of the given dtype to dir/name.
func writeGame(t *testing.T, dir, name string, m, n int, f32 bool) string {
	t.Helper()
	p := filepath.Join(dir, name)
	var a *tensor.Dense
	if f32 {
		a = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(make([]float32, m*n)))
	} else {
		b := make([]float64, m*n)
		for i := range b {
			b[i] = float64(i%7) - 3
		}
		a = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(b))
	}
	if err := datasets.WriteNPY(p, a); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestList: arguments expand to files once each (a file reached twice runs
// once), directories skip hidden files, results files and the batch's own
// empty output, a missing file is its instance's failure, and a manifest's
// lines follow the arguments.
func TestList(t *testing.T) {
	dir := t.TempDir()
	a := writeGame(t, dir, "a.npy", 2, 3, false)
	writeGame(t, dir, "b.npy", 2, 3, false)
	writeGame(t, dir, ".hidden.npy", 2, 3, false)
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte(LinePrefix+`"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "runs.txt")
	if err := os.WriteFile(manifest, []byte("\ufeff# runs\n\n"+filepath.Join(dir, "b.npy")+" --algo rm+\ngen:uniform --m 3\n--eps 1\n'c d.npy'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := List([]string{dir, a, filepath.Join(dir, "*.npy"), filepath.Join(dir, "missing.npy"), filepath.Dir(manifest)}, manifest, out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for k, in := range l.Instances {
		if in.Index != k {
			t.Errorf("instance %d has index %d", k, in.Index)
		}
		s := strings.ReplaceAll(in.Name, dir+"/", "")
		if in.Err != nil {
			s += "!"
		}
		got = append(got, s)
	}
	want := "a.npy b.npy missing.npy! b.npy --algo rm+ gen:uniform --m 3 --eps 1! 'c d.npy'"
	if strings.Join(got, " ") != want {
		t.Errorf("instances %q\nwant %q", strings.Join(got, " "), want)
	}
	if len(l.Notes) != 3 || !strings.Contains(l.Notes[0], "holds gpump batch results") || !strings.Contains(l.Notes[1], "this batch's output") ||
		!strings.Contains(l.Notes[2], "this batch's manifest") {
		t.Errorf("notes %q", l.Notes)
	}
	if in := l.Instances[4]; strings.Join(in.Args, " ") != "--gen uniform --m 3" || in.File != "" {
		t.Errorf("generator line: file %q args %q", in.File, in.Args)
	}
	if in := l.Instances[6]; in.File != filepath.Join(filepath.Dir(manifest), "c d.npy") || in.Args[len(in.Args)-1] != in.File {
		t.Errorf("quoted file line: file %q args %q", in.File, in.Args)
	}
	for _, bad := range [][]string{{filepath.Join(dir, "*.none")}, {t.TempDir()}} {
		if _, err := List(bad, "", ""); err == nil {
			t.Errorf("List(%q) listed", bad)
		}
	}
}

// TestGroupFiles: small same-shape .npy files without flags of their own
// are grouped by shape and dtype, up to size a group, where their first
// member was; ReadGroup reads a group into one stack, passing on the
// members it cannot take.
func TestGroupFiles(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for k, sh := range []struct {
		m, n int
		f32  bool
	}{{2, 3, false}, {3, 2, false}, {2, 3, false}, {2, 3, true}, {2, 3, false}, {2, 3, true}, {300, 300, false}, {2, 3, false}} {
		args = append(args, writeGame(t, dir, string(rune('a'+k))+".npy", sh.m, sh.n, sh.f32))
	}
	l, err := List(args, "", "")
	if err != nil {
		t.Fatal(err)
	}
	grouped := GroupFiles(l.Instances, 3)
	var got []string
	for _, in := range grouped {
		s := filepath.Base(in.Name)
		for _, m := range in.Members {
			s += " " + filepath.Base(m.File)
		}
		got = append(got, s)
	}
	want := "3 files of 2×3 a.npy c.npy e.npy|b.npy|2 files of 2×3 d.npy f.npy|g.npy|h.npy"
	if strings.Join(got, "|") != want {
		t.Fatalf("groups %q\nwant %q", strings.Join(got, "|"), want)
	}
	if g := GroupFiles(l.Instances, 1); len(g) != len(l.Instances) {
		t.Errorf("size 1 grouped %d instances into %d", len(l.Instances), len(g))
	}

	// c.npy changes shape after listing: it is passed on, not read.
	writeGame(t, dir, "c.npy", 4, 4, false)
	var skipped []string
	s, own := ReadGroup(context.Background(), grouped[0], &datasets.ReadOptions{}, func(in *Instance, err error) {
		skipped = append(skipped, filepath.Base(in.File)+": "+err.Error())
	})
	if s == nil || s.Len() != 2 || len(own) != 2 || own[1].File != args[4] || s.Index[1] != 4 {
		t.Fatalf("stack %+v, members %v", s, own)
	}
	if sh := s.A.Shape(); sh[0] != 2 || sh[1] != 2 || sh[2] != 3 {
		t.Errorf("stack shape %v", sh)
	}
	if v, _ := s.A.At(1, 1, 2); v != float64(5%7-3) {
		t.Errorf("game 1 entry (1,2) = %v", v)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "changed shape") {
		t.Errorf("skipped %q", skipped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	if s, _ := ReadGroup(ctx, grouped[2], &datasets.ReadOptions{}, func(_ *Instance, err error) {
		if errors.Is(err, context.Canceled) {
			n++
		}
	}); s != nil || n != 2 {
		t.Errorf("canceled: stack %v, %d passed on as canceled", s, n)
	}
}

// FuzzReadManifest: any manifest text lists one instance per line that is
// not blank or a comment, each named by its line, with a generator's spec
// first or its file last after "--".
func FuzzReadManifest(f *testing.F) {
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
		l := &Listing{}
		if err := l.ReadManifest(bytes.NewReader(text), "dir/m.txt"); err != nil {
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
		if len(l.Instances) != want {
			t.Fatalf("%d instances from %d lines of %q", len(l.Instances), want, text)
		}
		for k, in := range l.Instances {
			switch {
			case in.Index != k || in.Name == "" || in.Name[0] == '#' || in.Name != strings.TrimSpace(in.Name):
				t.Fatalf("instance %d: %+v", k, in)
			case in.Err != nil:
				continue
			case in.File == "" && (len(in.Args) < 2 || in.Args[0] != "--gen"):
				t.Fatalf("generator instance %d: args %q", k, in.Args)
			case in.File != "" && (len(in.Args) < 2 || in.Args[len(in.Args)-1] != in.File || in.Args[len(in.Args)-2] != "--"):
				t.Fatalf("file instance %d: args %q, file %q", k, in.Args, in.File)
			}
		}
	})
}
