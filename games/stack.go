package games

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// Float32Rounding bounds |x − fl32(x)| / max |fl32(A)|: 2⁻²⁴ relative
// rounding, with max |A| itself possibly rounded down by that much. It is
// the Rounding of a matrix defined in float64 and stored in float32.
const Float32Rounding = 0x1p-24 * (1 + 0x1p-24)

// Stack is a set of games of one shape and type, solved together by
// SolveStack: a 3-D .npy array, an archive's members of one shape, or
// small files read into one tensor.
type Stack struct {
	A     *tensor.Dense // (B, m, n)
	Index []int         // each game's position in its file (or its caller's index)
	Keys  []string      // each game's archive member, or nil
	// Rounding is each game's relative rounding (Game.Rounding); nil: 0.
	Rounding []float64
	// Load is the reading time per game, reported as load_seconds.
	Load time.Duration
}

// Len is the number of games of s.
func (s *Stack) Len() int { return len(s.Index) }

// Key is the archive member of game k, "" when the games have none.
func (s *Stack) Key(k int) string {
	if s.Keys == nil {
		return ""
	}
	return s.Keys[k]
}

func (s *Stack) rounding(k int) float64 {
	if s.Rounding == nil {
		return 0
	}
	return s.Rounding[k]
}

// Subset returns the games keep (positions in s) of s: s itself when it
// keeps them all, nil when it keeps none.
func (s *Stack) Subset(keep []int) *Stack {
	if len(keep) == len(s.Index) {
		return s
	}
	if len(keep) == 0 {
		return nil
	}
	sh := s.A.Shape()
	out := &Stack{A: tensor.New(tensor.Of(s.A.Dtype()), tensor.WithShape(len(keep), sh[1], sh[2])), Index: make([]int, len(keep)), Load: s.Load}
	if s.Keys != nil {
		out.Keys = make([]string, len(keep))
	}
	if s.Rounding != nil {
		out.Rounding = make([]float64, len(keep))
	}
	for i, k := range keep {
		if s.Rounding != nil {
			out.Rounding[i] = s.Rounding[k]
		}
		CopyGame(out.A, i, s.A, k)
		out.Index[i] = s.Index[k]
		if s.Keys != nil {
			out.Keys[i] = s.Keys[k]
		}
	}
	return out
}

// CopyGame copies game k of src, a (B, m, n) tensor or an m×n matrix (k
// 0), into game i of dst, a (B, m, n) tensor of the same dtype.
func CopyGame(dst *tensor.Dense, i int, src *tensor.Dense, k int) {
	sh := dst.Shape()
	size := sh[1] * sh[2]
	if dst.Dtype() == tensor.Float64 {
		copy(dst.Float64s()[i*size:(i+1)*size], src.Float64s()[k*size:])
	} else {
		copy(dst.Float32s()[i*size:(i+1)*size], src.Float32s()[k*size:])
	}
}

// uniformRounding is a rounding factor r for each of b games (nil for 0).
func uniformRounding(b int, r float64) []float64 {
	if r == 0 {
		return nil
	}
	s := make([]float64, b)
	for k := range s {
		s[k] = r
	}
	return s
}

// ReadStacks reads the games of a source that holds many: a 3-D .npy array
// (Dims 3), or an .npz archive's members (opt.Key is ignored), grouped by
// shape and type in the archive's order, never padded. opt.DType converts
// them as a lone read would: float32 storage of entries defined in
// float64 sets their Rounding. A game that cannot be read (a member that is
// no matrix, a NaN) or whose entries float32 cannot hold gets an error Line
// of its own (Index, Key, Status, Error). total is the number of games in
// the file.
func ReadStacks(src *Source, opt *datasets.ReadOptions) (stacks []*Stack, bad []*Line, total int, err error) {
	var o datasets.ReadOptions
	if opt != nil {
		o = *opt
	}
	if src.Format == "npz" {
		return readMembers(src.Path, &o)
	}
	a, err := src.ReadStack()
	if err != nil {
		return nil, nil, 0, err
	}
	b := a.Shape()[0]
	idx := make([]int, b)
	for k := range idx {
		idx[k] = k
	}
	s := &Stack{A: a, Index: idx}
	switch {
	case o.DType == tensor.Float64 && a.Dtype() == tensor.Float32:
		s.A = widenStack(a)
	case o.DType == tensor.Float32 && a.Dtype() == tensor.Float64:
		// As for a matrix: float32 storage of entries defined in float64
		// (not those of a type float32 holds exactly) moves the bracket
		// by up to rounding_bound.
		if !src.NPY.Exact32 {
			s.Rounding = uniformRounding(b, Float32Rounding)
		}
		var keep []int
		s.A, keep, bad = narrowStack(a)
		s = s.Subset(keep)
	}
	if s == nil {
		return nil, bad, b, nil
	}
	return []*Stack{s}, bad, b, nil
}

// narrowStack returns a float64 stack rounded to float32, the games that
// float32 holds (keep), and an error line for each other game: one whose
// largest entry overflows float32, or lies below its normal range, where
// rounding is no longer relative to the largest entry (the rule of a
// matrix read as float32; a stack is not scaled, so a game that needs
// scaling fails alone and says to solve in f64).
func narrowStack(a *tensor.Dense) (*tensor.Dense, []int, []*Line) {
	sh := a.Shape()
	size := sh[1] * sh[2]
	src := a.Float64s()
	dst := make([]float32, len(src))
	var keep []int
	var bad []*Line
	for k := range sh[0] {
		mx := 0.0
		for i, v := range src[k*size : (k+1)*size] {
			dst[k*size+i] = float32(v)
			mx = max(mx, math.Abs(v))
		}
		why := ""
		switch {
		case math.IsNaN(mx) || math.IsInf(mx, 0):
			keep = append(keep, k) // the solver names the entry
			continue
		case mx > math.MaxFloat32:
			why = "entries overflow float32"
		case mx > 0 && mx < 0x1p-126:
			why = "entries all lie below float32's normal range"
		}
		if why != "" {
			bad = append(bad, &Line{Index: k, Status: "error", Error: fmt.Sprintf("game %d: %s: solve it with --precision f64", k, why)})
			continue
		}
		keep = append(keep, k)
	}
	return tensor.New(tensor.WithShape(sh...), tensor.WithBacking(dst)), keep, bad
}

// widenStack returns a float32 stack in float64.
func widenStack(a *tensor.Dense) *tensor.Dense {
	src := a.Float32s()
	dst := make([]float64, len(src))
	for k, v := range src {
		dst[k] = float64(v)
	}
	return tensor.New(tensor.WithShape(a.Shape()...), tensor.WithBacking(dst))
}

// readMembers reads every member of the archive at path and groups them by
// shape and dtype, in the archive's order; a member that cannot be read
// gets an error line of its own.
func readMembers(path string, opt *datasets.ReadOptions) ([]*Stack, []*Line, int, error) {
	type shapeKey struct {
		m, n int
		dt   tensor.Dtype
	}
	var (
		order []shapeKey
		byKey = map[shapeKey][]int{}
		mats  []*tensor.Dense
		keys  []string
		bad   []*Line
	)
	err := datasets.ReadNPZEach(path, opt, func(key string, a *tensor.Dense, err error) {
		k := len(keys)
		keys, mats = append(keys, key), append(mats, a)
		if err != nil {
			bad = append(bad, &Line{Index: k, Key: key, Status: "error", Error: err.Error()})
			return
		}
		sk := shapeKey{a.Shape()[0], a.Shape()[1], a.Dtype()}
		if _, ok := byKey[sk]; !ok {
			order = append(order, sk)
		}
		byKey[sk] = append(byKey[sk], k)
	})
	if err != nil {
		return nil, nil, 0, err
	}
	stacks := make([]*Stack, 0, len(order))
	for _, sk := range order {
		members := byKey[sk]
		a := tensor.New(tensor.Of(sk.dt), tensor.WithShape(len(members), sk.m, sk.n))
		s := &Stack{A: a, Index: members, Keys: make([]string, len(members))}
		if opt.DType == tensor.Float32 {
			// As a lone solve of a member (--key) reports it.
			s.Rounding = uniformRounding(len(members), Float32Rounding)
		}
		for i, k := range members {
			CopyGame(a, i, mats[k], 0)
			s.Keys[i] = keys[k]
			mats[k] = nil
		}
		stacks = append(stacks, s)
	}
	return stacks, bad, len(keys), nil
}

// StackOptions are how SolveStack solves a Stack.
type StackOptions struct {
	Settings solver.Settings // Init and Recorder unset
	Method   solver.Method   // nil: the default
	// Workers solve a game each at a time on the CPU (0: GOMAXPROCS);
	// with a Backend the games run in lockstep on it instead.
	Workers int
	Backend tensorops.Batched
}

// SolveStack solves the games of s and calls done, from the solving
// goroutines, once per game as it finishes, with its position k in s and
// its Line: Index, Key, Status and Error set, and the Report of a game with
// a result (every field but Source, Format and LoadSeconds' caller's
// share, Threads: 1 a game on the CPU, 0 on a Backend), the strategies in
// r. A game stopped by ctx before it has a point is "canceled". The error
// is a backend's failure, after which no game was reported.
func SolveStack(ctx context.Context, s *Stack, opt *StackOptions, done func(k int, l *Line, r *solver.BatchResult)) error {
	if opt == nil {
		opt = &StackOptions{}
	}
	batch, err := solver.NewBatch(s.A)
	if err != nil {
		return err
	}
	m, n := batch.Dims()
	workers := opt.Workers
	if workers <= 0 {
		workers = runtimeThreads()
	}
	kernels := cpuKernels()
	_, err = solver.SolveBatch(ctx, batch, &solver.BatchSettings{
		Settings: opt.Settings, Workers: min(workers, s.Len()), Threads: 1, Backend: opt.Backend,
		Done: func(k int, r *solver.BatchResult) {
			line := &Line{Index: s.Index[k], Key: s.Key(k)}
			switch {
			case r.Err != nil && errors.Is(r.Err, context.Canceled) && r.X == nil:
				line.Status, line.Error = "canceled", r.Err.Error()
			case r.Err != nil && r.X == nil:
				line.Status, line.Error = "error", r.Err.Error()
			default:
				st := opt.Settings
				out := NewReport(&r.Result, &st)
				out.M, out.N, out.Precision, out.MaxAbsEntry = m, n, "f64", r.MaxAbs
				if s.A.Dtype() == tensor.Float32 {
					out.Precision = "f32"
				}
				out.RoundingBound, out.LoadSeconds = s.rounding(k)*r.MaxAbs, s.Load.Seconds()
				out.Device, out.Threads, out.Kernels = "cpu", 1, kernels
				if be := opt.Backend; be != nil {
					out.Device, out.Kernels, out.Threads = be.Name(), be.Name(), 0
					if kb, ok := be.(interface{ Kernels() string }); ok {
						out.Kernels = kb.Kernels()
					}
				}
				line.Status, line.Report = out.Status, out
				if r.Err != nil {
					line.Status, line.Error = "error", r.Err.Error()
				}
			}
			done(k, line, r)
		},
	}, opt.Method)
	return err
}
