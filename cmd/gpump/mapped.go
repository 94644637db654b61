package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/gpump/gpump/solver"
)

// errInputChanged is the cause of a solve stopped because another process
// opened the memory-mapped payoff file for writing or truncated it.
var errInputChanged = errors.New("the payoff file was opened for writing or truncated")

// inputChangedError is the error of a solve stopped by errInputChanged: its
// result, the best point certified against the matrix before the change,
// is still written, and the exit status is 1.
type inputChangedError struct{ path string }

func (e *inputChangedError) Error() string {
	return fmt.Sprintf("%s was opened for writing or truncated during the solve: stopped; the result is the best point so far, certified against the matrix before the change", e.path)
}

// guard returns ctx canceled, with cause errInputChanged, when the mapped
// payoff file is about to change (the lease of datasets.Mapped.Watch holds
// the other process back until the mapping is released).
func (l *loaded) guard(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.changed == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-l.changed:
			cancel(errInputChanged)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// changedErr returns an *inputChangedError if ctx, from guard, was
// canceled because the payoff file changed.
func (l *loaded) changedErr(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errInputChanged) {
		return &inputChangedError{l.source}
	}
	return nil
}

// solve runs solve; with a mapped matrix, a fault reading it on this
// goroutine (the file truncated without a lease to warn of it) becomes an
// error instead of a crash. The backend's other worker goroutines are not
// covered: with --threads above 1 such a fault still ends the process.
func (l *loaded) solve(solve func() (*solver.Result, error)) (res *solver.Result, err error) {
	if l.mapped {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			fault, ok := r.(interface{ Addr() uintptr })
			if _, rt := r.(runtime.Error); !ok || !rt {
				panic(r)
			}
			res, err = nil, fmt.Errorf("%s: reading the memory-mapped matrix faulted at address %#x: was the file truncated during the solve?", l.source, fault.Addr())
		}()
	}
	return solve()
}
