//go:build linux

package main

// What a terminal shows (a pseudo-terminal): no INFO log lines unless
// --verbose asks, a batch's instances once each with their value.

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// onTerminals runs the command with standard output, standard error or
// both on one terminal, the other in a buffer, and returns its exit
// status, what the terminal showed and what went to the buffer.
func onTerminals(t *testing.T, outTTY, errTTY bool, args ...string) (code int, shown, buffered string) {
	t.Helper()
	tty, master := openPTY(t)
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, master)
		done <- b.String()
	}()
	var buf bytes.Buffer
	var stdout, stderr io.Writer = &buf, &buf
	if outTTY {
		stdout = tty
	}
	if errTTY {
		stderr = tty
	}
	code = run(t.Context(), append([]string{"gpump"}, args...), stdout, stderr)
	tty.Close()
	shown = <-done
	master.Close()
	return code, strings.ReplaceAll(shown, "\r\n", "\n"), buf.String()
}

// TestQuietTerminal: a terminal shows no INFO log lines unless --verbose
// asks; it keeps the notes on how the input was read; a log file keeps
// every line, as before.
func TestQuietTerminal(t *testing.T) {
	dir := t.TempDir()
	header := filepath.Join(dir, "h.csv")
	if err := os.WriteFile(header, []byte("a,b\n1,-1\n-1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	const note = "line 1 is a header row, skipped: a,b"
	for _, c := range []struct {
		name          string
		errTTY        bool
		flags         []string
		info, noteToo bool
	}{
		{"terminal", true, nil, false, true},
		{"terminal --verbose", true, []string{"--verbose"}, true, true},
		{"terminal --quiet", true, []string{"--quiet"}, false, false},
		{"log file", false, nil, true, true},
	} {
		args := append([]string{"solve", header, "-o", out}, c.flags...)
		code, shown, buffered := onTerminals(t, false, c.errTTY, args...)
		stderr := buffered
		if c.errTTY {
			stderr = shown
		}
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		info := strings.Contains(stderr, `level=INFO msg="loaded matrix"`) && strings.Contains(stderr, `msg="wrote result"`)
		if info != c.info || strings.Contains(stderr, "level=INFO") && !c.info && c.errTTY {
			t.Errorf("%s: INFO lines %v, want %v:\n%s", c.name, info, c.info, stderr)
		}
		if got := strings.Count(stderr, note); got != btoi(c.noteToo) {
			t.Errorf("%s: the note on the header row shown %d times:\n%s", c.name, got, stderr)
		}
	}
	if code, _, stderr := gpump(t, "solve", header, "-q", "--verbose"); code != exitError || !strings.Contains(stderr, "contradict") {
		t.Errorf("-q --verbose: exit %d, %q", code, stderr)
	}
}

// TestBatchOnTerminal: on a terminal a batch shows each instance once, a
// readable line with its value (the middle of the certified bracket) and
// the bracket: on standard output when it is the terminal, else on stderr
// beside the JSON lines going to a file or a pipe.
func TestBatchOnTerminal(t *testing.T) {
	manifest := writeManifest(t, "gen:uniform:m=7,n=5,seed=3\ngen:cyclic:n=3\ngen:nosuch\n")
	code, stdout, stderr := gpump(t, "batch", "--manifest", manifest, "--threads", "1")
	if code != exitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The values and brackets the lines must show, from the JSON.
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var l struct {
			Instance, Status string
			ValueLower       float64 `json:"value_lower"`
			ValueUpper       float64 `json:"value_upper"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Status == "converged" {
			mid, bracket := valueText(l.ValueLower, l.ValueUpper)
			want[l.Instance] = "value " + mid + " "
			want[l.Instance+" bracket"] = bracket
		}
	}
	if len(want) != 4 {
		t.Fatalf("want two converged instances:\n%s", stdout)
	}
	check := func(name, text string) {
		t.Helper()
		for _, inst := range []string{"gen:uniform:m=7,n=5,seed=3", "gen:cyclic:n=3", "gen:nosuch"} {
			var lines []string
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, inst) {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 {
				t.Errorf("%s: %s shown %d times:\n%s", name, inst, len(lines), text)
				continue
			}
			if w, ok := want[inst]; ok && (!strings.HasPrefix(lines[0], "converged") || !strings.Contains(lines[0], w) || !strings.Contains(lines[0], want[inst+" bracket"])) {
				t.Errorf("%s: %q lacks %q and %s", name, lines[0], w, want[inst+" bracket"])
			}
		}
		if regexp.MustCompile(`level=(INFO|ERROR)`).MatchString(text) {
			t.Errorf("%s: log lines on the terminal:\n%s", name, text)
		}
	}
	// Both on the terminal, as typed.
	code, shown, _ := onTerminals(t, true, true, "batch", "--manifest", manifest, "--threads", "1")
	if code != exitError || !strings.Contains(shown, "instances  results") {
		t.Errorf("exit %d:\n%s", code, shown)
	}
	check("terminal", shown)
	// Standard output to a file: JSON there, the readable lines on the
	// terminal.
	code, shown, buffered := onTerminals(t, false, true, "batch", "--manifest", manifest, "--threads", "1")
	if code != exitError || strings.Count(buffered, `{"instance":`) != 3 {
		t.Errorf("exit %d, stdout:\n%s", code, buffered)
	}
	check("stderr on a terminal", shown)
	// --verbose: the log lines too.
	if _, shown, _ := onTerminals(t, true, true, "batch", "--manifest", manifest, "--threads", "1", "--verbose"); !strings.Contains(shown, `level=INFO msg=solved`) {
		t.Errorf("--verbose: no log lines:\n%s", shown)
	}
}
