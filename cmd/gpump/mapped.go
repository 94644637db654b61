package main

import (
	"context"
	"errors"
	"fmt"
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
