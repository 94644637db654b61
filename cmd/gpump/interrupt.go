package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/gpump/gpump/internal/atomicfile"
)

// interrupts counts the Ctrl-Cs (SIGINT) and SIGTERMs the process gets.
// The first cancels the command's context, which stops the read of the
// matrix and the solve (the solve still returns its best point); every one
// also closes the channel next returns, which stops the writing of the
// results when it is pending; the third kills the process, after removing
// the temporary files of the outputs not yet written.
type interrupts struct {
	mu   sync.Mutex
	next chan struct{}
}

func newInterrupts() *interrupts { return &interrupts{next: make(chan struct{})} }

// after returns a channel closed at the next signal.
func (ir *interrupts) after() <-chan struct{} {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	return ir.next
}

// signal records a signal.
func (ir *interrupts) signal() {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	close(ir.next)
	ir.next = make(chan struct{})
}

type interruptsKey struct{}

// withSignals returns a context canceled at the first SIGINT or SIGTERM,
// carrying the interrupts that count them.
func withSignals(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	ir := newInterrupts()
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for k := 1; ; k++ {
			<-sigs
			cancel()
			ir.signal()
			if k == 2 {
				// The next one kills, as by default, after removing the
				// temporary files of the outputs not written.
				sig := <-sigs
				atomicfile.AbortAll()
				signal.Reset(os.Interrupt, syscall.SIGTERM)
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					p.Signal(sig)
				}
				return
			}
		}
	}()
	return context.WithValue(ctx, interruptsKey{}, ir)
}

// nextInterrupt returns a channel closed at the next signal, or, without
// signal handling (tests), nil, which never is.
func nextInterrupt(ctx context.Context) <-chan struct{} {
	if ir, ok := ctx.Value(interruptsKey{}).(*interrupts); ok {
		return ir.after()
	}
	return nil
}

// interruptedError says which phase a signal stopped; the exit status is
// exitCanceled.
type interruptedError struct{ phase string }

func (e *interruptedError) Error() string { return "interrupted while " + e.phase }

// interruptible runs f in its own goroutine and returns what it returns,
// or an *interruptedError naming phase as soon as stop is closed: opening
// a FIFO that has no writer (or no reader), or reading a pipe that never
// ends, cannot be stopped otherwise. f is then left to run, unobserved,
// until the process exits.
func interruptible[T any](stop <-chan struct{}, phase string, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-stop:
		var zero T
		return zero, &interruptedError{phase}
	}
}

// loadInterruptibly is load, stopped by ctx: the first signal stops the
// opening, the read and the parsing of the matrix alike. The read itself
// stops too (its file is closed), so that an abandoned one does not run
// on; a blocked open or a generation runs to its end unobserved.
func (j *job) loadInterruptibly(ctx context.Context) (*loaded, error) {
	what := "reading " + j.path
	if j.gen != nil {
		what = "generating " + j.gen.String()
	}
	return interruptible(ctx.Done(), what, func() (*loaded, error) { return j.load(ctx) })
}
