package solver

import "time"

// Recorder observes a solve; progress bars, traces and plots are Recorders.
// Its methods are called from the solving goroutine; an error stops the solve
// and is returned by Solve.
type Recorder interface {
	// Init is called once before the first iteration.
	Init(info *Info) error
	// Record is called after the start point is evaluated (Iteration 0) and
	// after every iteration. With the sampled oracle, a solve that stops
	// (on its time limit or by cancellation) at an iteration without a gap
	// pass certifies its average with one more pass and then calls Record
	// again for the same iteration, with the new certificate. The Record is
	// reused: copy what you keep.
	Record(r *Record) error
}

// Info describes a solve to a Recorder. It is reused by the next solve of
// the same problem: copy what you keep.
type Info struct {
	Method   string
	Dim      int
	Scale    float64 // the relative gap's divisor
	Settings *Settings
}

// Record is one row of a solve's history. Every value is in the problem's
// own units.
type Record struct {
	Iteration    int
	Evaluations  int
	MatrixPasses int
	Step         float64 // eta_t (0 for the regret-matching methods)
	// GapAverage and GapLast are the certified gaps of the average and of
	// the last iterate at this iteration (+Inf when unavailable: with the
	// sampled oracle GapLast always, GapAverage between gap passes).
	GapAverage, GapLast float64
	// Gap, RelGap and the value bracket are those of the best certified
	// point so far, whose kind is Point (ColumnPoint for a game's column
	// strategy, see Result).
	Gap, RelGap            float64
	ValueLower, ValueUpper float64
	Point, ColumnPoint     PointKind
	Elapsed                time.Duration
}

// Recorders returns a Recorder that passes every call to each of rs in
// order, stopping at the first error. Nil entries are skipped; with no
// non-nil entry it returns nil, so that Settings.Recorder stays unset.
func Recorders(rs ...Recorder) Recorder {
	var list multiRecorder
	for _, r := range rs {
		if r != nil {
			list = append(list, r)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

type multiRecorder []Recorder

func (m multiRecorder) Init(info *Info) error {
	for _, r := range m {
		if err := r.Init(info); err != nil {
			return err
		}
	}
	return nil
}

func (m multiRecorder) Record(rec *Record) error {
	for _, r := range m {
		if err := r.Record(rec); err != nil {
			return err
		}
	}
	return nil
}
