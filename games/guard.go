package games

import (
	"context"
	"errors"
	"fmt"
)

// ErrInputChanged is the cause of a solve stopped by Guard because another
// process opened the memory-mapped payoff file for writing or truncated
// it.
var ErrInputChanged = errors.New("the payoff file was opened for writing or truncated")

// InputChangedError is the error of a solve stopped by ErrInputChanged:
// its result, the best point certified against the matrix before the
// change, is still valid and worth writing.
type InputChangedError struct{ Path string }

func (e *InputChangedError) Error() string {
	return fmt.Sprintf("%s was opened for writing or truncated during the solve: stopped; the result is the best point so far, certified against the matrix before the change", e.Path)
}

// Unwrap returns ErrInputChanged.
func (e *InputChangedError) Unwrap() error { return ErrInputChanged }

// Guard returns ctx canceled, with cause ErrInputChanged, when changed is
// closed: the channel of datasets.Mapped.Watch, whose lease holds the
// other process back until the mapping is released, so that the solve
// stops before the pages under it go away. A nil changed guards nothing.
// The returned stop releases the guard's goroutine.
func Guard(ctx context.Context, changed <-chan struct{}) (guarded context.Context, stop func()) {
	if changed == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-changed:
			cancel(ErrInputChanged)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// Changed returns an *InputChangedError naming path if ctx, from Guard,
// was canceled because the payoff file changed, else nil.
func Changed(ctx context.Context, path string) error {
	if errors.Is(context.Cause(ctx), ErrInputChanged) {
		return &InputChangedError{path}
	}
	return nil
}
