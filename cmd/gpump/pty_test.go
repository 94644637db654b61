//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal: the terminal a
// program writes to, and the master the test reads what it shows from.
func openPTY(t *testing.T) (tty, master *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skip(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	return tty, master
}

// onTerminal runs the command with a terminal as standard output and
// returns its exit status and what the terminal showed.
func onTerminal(t *testing.T, args ...string) (int, string) {
	t.Helper()
	tty, master := openPTY(t)
	shown := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, master)
		shown <- b.String()
	}()
	var stderr bytes.Buffer
	code := run(t.Context(), append([]string{"gpump"}, args...), tty, &stderr)
	tty.Close()
	out := <-shown
	master.Close()
	return code, strings.ReplaceAll(out, "\r\n", "\n")
}

// TestTerminalSummary: on a terminal the README's first command (smaller)
// prints a short summary, not thousands of lines of JSON; --json and -o -
// print the JSON there; a batch prints one line per instance.
func TestTerminalSummary(t *testing.T) {
	code, out := onTerminal(t, "solve", "--gen", "uniform", "--m", "300", "--n", "300", "--seed", "1", "--algo", "rm+", "-q")
	if code != exitOK || strings.Count(out, "\n") > 12 || json.Valid([]byte(out)) {
		t.Fatalf("exit %d, %d lines:\n%s", code, strings.Count(out, "\n"), out)
	}
	for _, want := range []string{"converged", "relative gap", "value", "iterations", "passes over A", "row player", "column player", "--json"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, flag := range [][]string{{"--json"}, {"-o", "-"}} {
		code, out := onTerminal(t, append([]string{"solve", "--gen", "cyclic:n=3", "-q"}, flag...)...)
		var o solveOutput
		if code != exitOK || json.Unmarshal([]byte(out), &o) != nil || len(o.RowStrategy) != 3 {
			t.Errorf("%v: exit %d:\n%s", flag, code, out)
		}
	}
	if code, _ := onTerminal(t, "gen", "cyclic", "-o", "-", "--format", "npy"); code != exitError {
		t.Errorf("gen -o - of npy to a terminal: exit %d", code)
	}
	code, out = onTerminal(t, "batch", "--manifest", writeManifest(t, "gen:cyclic:n=3\ngen:nosuch\n"), "-q")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitError || len(lines) != 2 || !strings.HasPrefix(lines[0], "converged") || !strings.HasPrefix(lines[1], "error") {
		t.Errorf("batch: exit %d:\n%s", code, out)
	}
}
