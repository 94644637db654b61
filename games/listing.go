package games

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gpump/gpump/datasets"
)

// An Instance is one unit of a batch's work: a payoff file, a generator, or
// a manifest line with flags of its own.
type Instance struct {
	// Index is the instance's position in its listing.
	Index int
	// Name is the instance as results name it (DisplayName of the argument
	// or the manifest line): its Line.Instance.
	Name string
	// File is the payoff file, "" for a generator.
	File string
	// Args are the solve arguments: the manifest line's flags, then "--"
	// and the file; a generator's are "--gen" and its spec, then flags.
	Args []string
	// Err is what went wrong while listing (a missing file, a manifest line
	// that does not parse): the instance's failure, not the batch's.
	Err error
	// Info is the file's os.Stat when it was listed, nil if it failed.
	Info os.FileInfo
	// Members, when not nil, are same-shape files solved as one stack
	// (GroupFiles), of Shape when listed; the instance is then no file.
	Members []*Instance
	Shape   [2]int
}

// A Listing is a batch's instances, from its arguments and its manifest.
type Listing struct {
	Instances []*Instance
	// Notes say what was left out of directories and globs, and why.
	Notes []string
	// seen holds the files given by arguments, by device and inode (or
	// cleaned path): a file reached by several paths runs once.
	seen map[any]bool
	// output and manifest are the batch's own output file and manifest,
	// never read as inputs.
	output, manifest os.FileInfo
}

// List expands a batch's arguments (payoff files, directories of them, not
// recursively, in name order, and quoted glob patterns) and reads its
// manifest ("" for none). output is the batch's output file ("" for none):
// when it exists and is empty a directory or glob that reaches it leaves it
// out, as it leaves out the manifest. A missing file is that instance's failure (Instance.Err); a
// directory without payoff files or a glob matching nothing fails the
// listing.
func List(args []string, manifest, output string) (*Listing, error) {
	l := &Listing{seen: map[any]bool{}}
	if output != "" {
		l.output, _ = os.Stat(output)
	}
	if manifest != "" {
		l.manifest, _ = os.Stat(manifest)
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		switch {
		case err == nil && fi.IsDir():
			entries, err := os.ReadDir(arg)
			if err != nil {
				return nil, err
			}
			n := 0
			for _, e := range entries {
				if _, ferr := datasets.FormatOf(e.Name()); ferr != nil || e.IsDir() {
					continue
				}
				l.addFile(filepath.Join(arg, e.Name()), true, nil, nil)
				n++
			}
			if n == 0 {
				return nil, fmt.Errorf("%s: no payoff files (.npy, .npz, .csv, .tsv, .txt, .mtx) in this directory", arg)
			}
		case err == nil:
			l.addFile(arg, false, nil, fi)
		case strings.ContainsAny(arg, "*?["):
			matches, gerr := filepath.Glob(arg)
			if gerr != nil {
				return nil, fmt.Errorf("%s: %w", arg, gerr)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%s: no file matches this pattern", arg)
			}
			slices.Sort(matches)
			for _, p := range matches {
				l.addFile(p, true, nil, nil)
			}
		default:
			l.addFile(arg, false, err, nil)
		}
	}
	if manifest == "" {
		return l, nil
	}
	f, err := os.Open(manifest)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := l.ReadManifest(f, manifest); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Listing) add(name, file string, args []string, err error) *Instance {
	in := &Instance{Index: len(l.Instances), Name: DisplayName(name), File: file, Args: args, Err: err}
	l.Instances = append(l.Instances, in)
	return in
}

// addFile adds the file p named by an argument, once. listed says it comes
// from a directory or a glob, whose hidden files, batch results files and
// the batch's own output (when empty; a payoff file there is kept, for the
// caller's check of the output against the inputs to refuse) are left
// out. fi is p's os.Stat when the caller took it, else nil.
func (l *Listing) addFile(p string, listed bool, err error, fi os.FileInfo) {
	var key any = filepath.Clean(p)
	if fi == nil {
		var serr error
		if fi, serr = os.Stat(p); serr != nil {
			fi = nil
		}
	}
	if fi != nil {
		if k, ok := inodeKey(fi); ok {
			key = k
		}
	}
	if listed {
		why := ""
		switch {
		case strings.HasPrefix(filepath.Base(p), "."):
			return // hidden, like a shell's globs: temporaries, editor files
		case IsResults(p):
			why = "it holds gpump batch results"
		case fi != nil && l.output != nil && os.SameFile(fi, l.output) && fi.Size() == 0:
			why = "it is this batch's output"
		case fi != nil && l.manifest != nil && os.SameFile(fi, l.manifest):
			why = "it is this batch's manifest"
		}
		if why != "" {
			l.Notes = append(l.Notes, fmt.Sprintf("left out %s: %s", p, why))
			return
		}
	}
	if !l.seen[key] {
		l.seen[key] = true
		l.add(p, p, []string{"--", p}, err).Info = fi
	}
}

// IsResults reports whether the text file at path starts like batch
// output, which a results file named .txt or .csv in an input directory
// would.
func IsResults(path string) bool {
	if f, _ := datasets.FormatOf(path); f != "csv" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(LinePrefix))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == LinePrefix
}

// ReadManifest adds the instances of the manifest r, read from the file
// manifest, whose lines name files relative to its directory. A line is a
// payoff file or gen:NAME[:key=value,...], then that instance's flags,
// split at spaces and tabs, quotes keeping spaces in a word (SplitWords);
// blank lines and lines starting with # are skipped. A line that does not
// parse is its instance's failure; only a read error (or a line over 1 MiB)
// fails the manifest.
func (l *Listing) ReadManifest(r io.Reader, manifest string) error {
	if l.seen == nil {
		l.seen = map[any]bool{}
	}
	dir := filepath.Dir(manifest)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		text := sc.Text()
		if ln == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark
		}
		text = strings.TrimSpace(text)
		if text == "" || text[0] == '#' {
			continue
		}
		words, err := SplitWords(text)
		if err != nil {
			l.add(text, "", nil, fmt.Errorf("%s: line %d: %w", manifest, ln, err))
			continue
		}
		first, rest := words[0], words[1:]
		if strings.HasPrefix(first, "-") {
			l.add(text, "", nil, fmt.Errorf("%s: line %d starts with the flag %s: a line is a payoff file or gen:NAME, then that instance's flags", manifest, ln, first))
			continue
		}
		if spec, ok := strings.CutPrefix(first, "gen:"); ok {
			l.add(text, "", append([]string{"--gen", spec}, rest...), nil)
			continue
		}
		if !filepath.IsAbs(first) {
			first = filepath.Join(dir, first)
		}
		l.add(text, first, append(rest, "--", first), nil)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", manifest, err)
	}
	return nil
}

// SplitWords splits a manifest line into words at spaces and tabs; single
// or double quotes keep spaces inside a word.
func SplitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// DisplayName is name as results name it, byte-exact in JSON, whose
// strings are UTF-8: a name that is valid UTF-8 and holds no `\x` stays as
// it is; any other has each backslash doubled and each byte that is not
// part of valid UTF-8 written \xHH. Two names never share a display name
// (only the escaped ones hold `\x`), and a name's is the same in every
// run, so that a resumed batch recognizes instances whose file names are
// not UTF-8 (a\xff.npy and a\xfe.npy), which JSON would both turn into
// a\ufffd.npy.
func DisplayName(name string) string {
	if utf8.ValidString(name) && !strings.Contains(name, `\x`) {
		return name
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[name[i]>>4])
			b.WriteByte(hex[name[i]&15])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(name[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}
