package solver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver/polish"
	"github.com/gpump/gpump/tensorops"
)

// Batch is B matrix games of one shape m×n held as one contiguous B×m×n
// row-major tensor (float64 or float32): the meta-games of a game-theoretic
// analysis, the rounds of a mixed-strategy GAN, a Monte-Carlo study over
// random games. SolveBatch solves them all.
//
// A Batch aliases its tensor: it must not be modified while a solve of the
// batch runs. Its games are not checked when the batch is made: a game with
// a NaN or infinite entry fails alone, in its own BatchResult.
type Batch struct {
	a       *tensor.Dense
	b, m, n int
	games   []*tensor.Dense // views of a, one per game
}

// NewBatch returns the batch of games held by a, a contiguous row-major
// float64 or float32 tensor of shape (B, m, n) with B, m, n ≥ 1.
func NewBatch(a *tensor.Dense) (*Batch, error) {
	if a == nil {
		return nil, errors.New("solver: nil batch tensor")
	}
	sh := a.Shape()
	if len(sh) != 3 {
		return nil, fmt.Errorf("solver: a batch is a 3-D (B, m, n) tensor, got shape %v", sh)
	}
	b, m, n := sh[0], sh[1], sh[2]
	if b < 1 || m < 1 || n < 1 {
		return nil, fmt.Errorf("solver: empty batch of shape %v", sh)
	}
	if dt := a.Dtype(); dt != tensor.Float64 && dt != tensor.Float32 {
		return nil, fmt.Errorf("solver: batch dtype %v: want float64 or float32", dt)
	}
	if !a.IsNativelyAccessible() || a.DataOrder().IsColMajor() || !isContiguous(a) {
		return nil, errors.New("solver: a batch tensor must be contiguous and row-major")
	}
	bt := &Batch{a: a, b: b, m: m, n: n, games: make([]*tensor.Dense, b)}
	size := m * n
	for k := range b {
		var back any
		if a.Dtype() == tensor.Float64 {
			back = a.Float64s()[k*size : (k+1)*size : (k+1)*size]
		} else {
			back = a.Float32s()[k*size : (k+1)*size : (k+1)*size]
		}
		bt.games[k] = tensor.New(tensor.WithShape(m, n), tensor.WithBacking(back))
	}
	return bt, nil
}

// isContiguous reports whether a's strides are those of a packed row-major
// array of its shape.
func isContiguous(a *tensor.Dense) bool {
	sh, st := a.Shape(), a.Strides()
	want := 1
	for k := len(sh) - 1; k >= 0; k-- {
		if sh[k] > 1 && st[k] != want {
			return false
		}
		want *= sh[k]
	}
	return a.DataSize() == want
}

// Len returns the number of games B.
func (bt *Batch) Len() int { return bt.b }

// Dims returns the shape m×n of every game.
func (bt *Batch) Dims() (m, n int) { return bt.m, bt.n }

// Game returns game k's payoff matrix, a view of the batch's tensor.
func (bt *Batch) Game(k int) *tensor.Dense { return bt.games[k] }

// BatchSettings control SolveBatch.
type BatchSettings struct {
	// Settings hold for every game alone: its targets, its limits, its
	// warm start (Init, one pair for every game). A nil *BatchSettings
	// means DefaultSettings() and the defaults below. A Recorder is
	// refused: it would hear the games interleaved.
	Settings
	// Inits, when not nil, holds a warm start per game (len B; a nil
	// entry means Settings.Init), in the layout of Settings.Init: the
	// last round's answers of a batch solved round after round.
	Inits [][]float64
	// Workers is the number of games solved at once, each on one core;
	// 0 means GOMAXPROCS.
	Workers int
	// Threads is the number of threads of each worker's CPU backend; 0
	// means GOMAXPROCS / Workers, at least 1. Small games want 1: their
	// passes are too short to share.
	Threads int
	// Backend, when not nil, solves the batch in lockstep on it: the
	// games' iterations advance together and each operation runs once for
	// every game still running, as one batched call (one kernel launch on
	// a device: see tensorops.Batched). Each game's step logic, stopping
	// and result are still its own; Workers and Threads do not apply (the
	// backend has its own threads). nil means the per-core workers, the
	// faster way on a CPU (see SolveBatch). The caller keeps ownership of
	// the backend.
	Backend tensorops.Batched
	// Stats, when not nil and the batch runs in lockstep (Backend set),
	// receives how the batch spent its time.
	Stats *BatchStats
	// Done, when not nil, hears of every game as it finishes, in the
	// order they finish, from the workers one at a time (its calls never
	// overlap): a place to write results out as they come. r is the
	// game's entry of SolveBatch's result.
	Done func(k int, r *BatchResult)
}

// BatchStats describes a lockstep batch: the games' own code (step logic,
// stopping, the exact polish, the queueing of operations), which runs on
// up to GOMAXPROCS goroutines, and the dispatch (grouping the queued
// operations and running them on the backend), which runs on one.
type BatchStats struct {
	// Rounds counts the times every running game waited for results and
	// the queued operations ran.
	Rounds int
	// GameTime is the time the games' code ran, summed over the goroutines
	// that ran it (core time).
	GameTime time.Duration
	// DispatchTime is the wall time of the dispatch, the backend's calls
	// included.
	DispatchTime time.Duration
}

// BatchResult is one game's outcome in a batch.
type BatchResult struct {
	// Result is the game's result, as a solve of the game alone with the
	// same method and settings returns it (Runtime apart).
	Result
	// MaxAbs is the game's max |A_ij|, the scale of RelGap (0 when its
	// payoffs are not finite or it was not started).
	MaxAbs float64
	// Err is why the game has no result: its payoffs are not finite, or
	// the batch was canceled before the game started (then Status is
	// Canceled and X is nil). A game canceled mid-solve has its best
	// certified point and no Err, like Solve.
	Err error
}

// SolveBatch solves every game of the batch with method m (nil: the
// default, Auto) and returns their results in the batch's order.
//
// On the CPU the games are dealt to Workers workers, each with its own
// single-threaded backend, a game placed on it once and re-filled game
// after game (MatrixGame.SetPayoff), and its own copy of m: a game of up
// to a few hundred rows and columns lives in one core's caches from its
// first iteration to its certificate, a game that meets its target frees
// its worker for the next at once (no game waits for the slowest of a
// lockstep), and each game's result is exactly that of solving it alone.
//
// The error is for the whole batch: invalid settings, a method that does
// not solve matrix games. A game's own failure is in its BatchResult.
// Canceling ctx returns within an iteration of every running game: those
// return their best certified points (Status Canceled), those not started
// an Err.
func SolveBatch(ctx context.Context, bt *Batch, s *BatchSettings, m Method) ([]BatchResult, error) {
	if bt == nil {
		return nil, errors.New("solver: nil batch")
	}
	bs := BatchSettings{Settings: defaultSettings}
	if s != nil {
		bs = *s
	}
	if err := bs.Settings.validate(); err != nil {
		return nil, err
	}
	if bs.Recorder != nil {
		return nil, errors.New("solver: SolveBatch takes no Recorder")
	}
	if bs.Inits != nil && len(bs.Inits) != bt.b {
		return nil, fmt.Errorf("solver: %d warm starts for a batch of %d games", len(bs.Inits), bt.b)
	}
	if bs.Workers < 0 || bs.Threads < 0 {
		return nil, fmt.Errorf("solver: negative Workers (%d) or Threads (%d)", bs.Workers, bs.Threads)
	}
	if m == nil {
		m, _ = NewMethod(DefaultMethodName)
	}
	// Check the method on the batch's first game, with the payoffs of no
	// game: whether a method solves a matrix game does not depend on them.
	probe := &MatrixGame{m: bt.m, n: bt.n, maxAbs: 1, storedMax: 1}
	if err := m.Uses(probe); err != nil {
		return nil, err
	}
	workers := bs.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, bt.b)
	threads := bs.Threads
	if threads == 0 {
		threads = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	methods := make([]Method, workers)
	for w := range methods {
		c, err := cloneMethod(m)
		if err != nil {
			return nil, err
		}
		methods[w] = c
	}

	res := make([]BatchResult, bt.b)
	stride := bt.m + bt.n
	slab := make([]float64, bt.b*stride)
	for k := range res {
		res[k].X = slab[k*stride : (k+1)*stride : (k+1)*stride]
	}
	var (
		next   atomic.Int64
		doneMu sync.Mutex
		wg     sync.WaitGroup
	)
	report := func(k int) {
		if bs.Done == nil {
			return
		}
		doneMu.Lock()
		defer doneMu.Unlock()
		bs.Done(k, &res[k])
	}
	if bs.Backend != nil {
		if err := solveLockstep(ctx, bs.Backend, bt, &bs, m, res, report); err != nil {
			return nil, err
		}
		return res, nil
	}
	for w := range workers {
		wg.Go(func() {
			be := tensorops.NewCPU(threads)
			defer be.Close()
			var game *MatrixGame
			defer func() {
				if game != nil {
					game.Close()
				}
			}()
			settings := bs.Settings
			for {
				k := int(next.Add(1) - 1)
				if k >= bt.b {
					return
				}
				err := ctx.Err()
				if err == nil {
					if game == nil {
						if game, err = NewMatrixGame(bt.games[k]); err == nil {
							if err = game.Place(be); err != nil {
								game = nil
							}
						}
					} else {
						err = game.SetPayoff(bt.games[k])
					}
				}
				bs.solveGame(ctx, k, game, err, methods[w], &res[k], &settings)
				report(k)
			}
		})
	}
	wg.Wait()
	return res, nil
}

// solveGame solves game k, placed as game (err: why it could not be, or a
// canceled context before it started), with method m into r.
// settings is the caller's scratch copy of bs.Settings.
func (bs *BatchSettings) solveGame(ctx context.Context, k int, game *MatrixGame, err error, m Method, r *BatchResult, settings *Settings) {
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			r.X, r.Status, r.Err = nil, Canceled, fmt.Errorf("solver: game %d not started: %w", k, err)
			return
		}
	} else {
		r.MaxAbs = game.MaxAbs()
		settings.Init = bs.Settings.Init
		if bs.Inits != nil && bs.Inits[k] != nil {
			settings.Init = bs.Inits[k]
		}
		err = SolveInto(ctx, &r.Result, game, settings, m)
	}
	if err != nil {
		r.Err = err
		if !errors.Is(err, ErrMatrixFault) {
			r.X, r.Row, r.Column = nil, nil, nil
		}
	}
}

// cloneMethod returns a copy of m with the same knobs and a state of its
// own, so that workers solve concurrently. Methods and step rules keep the
// state of the solve they serve.
func cloneMethod(m Method) (Method, error) {
	switch m := m.(type) {
	case *Auto:
		c := &Auto{PolishBelow: m.PolishBelow, Handover: m.Handover}
		if m.Polish != nil {
			o := *m.Polish
			if s := m.Polish.Subgame; s != nil {
				// Its work space is per solve: a fresh one per worker.
				o.Subgame = &polish.Subgame{Tol: s.Tol, MaxRounds: s.MaxRounds}
			}
			c.Polish = &o
		}
		return c, nil
	case *RegretMatching:
		c := *m
		return &c, nil
	case *OMWU:
		c := *m
		return &c, nil
	case *MirrorProx:
		c := *m
		if m.Rule != nil {
			r, err := cloneRule(m.Rule)
			if err != nil {
				return nil, err
			}
			c.Rule = r
		}
		return &c, nil
	}
	return nil, fmt.Errorf("solver: SolveBatch cannot copy method %T", m)
}

// cloneRule copies a step rule, a pointer to a struct: its constants are
// copied and its state is reset by Init at the start of every solve. A rule
// holding references (slices, maps, pointers) would share them between the
// copies: such a rule is refused.
func cloneRule(r StepRule) (StepRule, error) {
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || !plainValue(v.Elem().Type()) {
		return nil, fmt.Errorf("solver: SolveBatch cannot copy step rule %T for its workers (a pointer to a struct of plain values is needed)", r)
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c.Interface().(StepRule), nil
}

// plainValue reports whether a value of type t is copied whole by
// assignment: no pointers, slices, maps, channels, functions or interfaces
// inside it (a string is immutable: copying it is enough).
func plainValue(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainValue(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Array:
		return plainValue(t.Elem())
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return false
	}
	return true
}
