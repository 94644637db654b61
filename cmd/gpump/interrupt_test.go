package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptRead: a cancel (the first Ctrl-C or SIGTERM) stops the
// opening of a FIFO that has no writer and the read of an endless input,
// with exit status 3 and one line, and nothing written.
func TestInterruptRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	defer unblock(fifo, os.O_WRONLY)
	out := filepath.Join(dir, "r.json")
	for _, args := range [][]string{
		{"solve", fifo, "-o", out},
		{"solve", "/dev/zero", "--format", "csv", "-o", out},
		{"solve", "/dev/zero", "--format", "npy", "-o", out},
		{"batch", fifo, "-o", out},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(ctx, append([]string{"gpump"}, args...), &stdout, &stderr)
		cancel()
		took := time.Since(start)
		if took > 10*time.Second {
			t.Errorf("%q: stopped after %v", args, took)
		}
		switch args[0] {
		case "solve":
			if code != exitCanceled && !(code == exitError && args[3] == "npy") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%q: exit %d, %q", args, code, stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%q wrote a result", args)
			}
		case "batch":
			lines := readLines(t, out)
			if code != exitCanceled || len(lines) != 1 || lines[0]["status"] != "canceled" {
				t.Errorf("%q: exit %d, %v, %s", args, code, lines, stderr.String())
			}
		}
	}
}

// TestInterruptWrite: a signal while the result waits for a reader of its
// FIFO stops the command with exit status 3.
func TestInterruptWrite(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	defer unblock(fifo, os.O_RDONLY)
	ir := newInterrupts()
	ctx := context.WithValue(t.Context(), interruptsKey{}, ir)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ir.signal()
	}()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"gpump", "solve", "--gen", "cyclic:n=3", "-o", fifo, "-q"}, &stdout, &stderr)
	if code != exitCanceled || time.Since(start) > 10*time.Second || !strings.Contains(stderr.String(), "interrupted while writing the results") {
		t.Errorf("exit %d after %v: %q", code, time.Since(start), stderr.String())
	}
}

// unblock opens the FIFO at path the other way and closes it, so that the
// goroutines a test left waiting on it end.
func unblock(path string, flag int) {
	for range 2 { // one open each: the solve and the batch
		if f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0); err == nil {
			time.Sleep(10 * time.Millisecond)
			f.Close()
		}
	}
}
