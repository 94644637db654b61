package solver

import "time"

// phases carries the limits and the work of Auto's route across its
// phases, each a solve of its own.
type phases struct {
	s     Settings // the solve's own
	t0    time.Time
	c0    time.Duration // Settings.Clock at t0
	stats Stats
	rec   phaseRecorder
	// gaps holds the relative gap of the RM+ run that goes to the
	// handover (after the restart, over the phases that carry its
	// regrets) at each of its matrix pass counts, from decayBase on, for
	// the extrapolations of earlyPays, polishPays and decadePays.
	gaps      []passGap
	decayBase int
	watch     watch
}

type passGap struct {
	passes int
	gap    float64
}

// reset starts a route under settings s.
func (ph *phases) reset(s *Settings) {
	*ph = phases{s: *s, t0: time.Now(), c0: s.clockStart(), gaps: ph.gaps[:0], rec: phaseRecorder{r: s.Recorder}}
	ph.rec.ph = ph
}

// settings returns the settings of the next phase: the relative target
// rel (the solve's own, AbsGap folded in, or a handover), the limits left,
// and the phase recorder.
func (ph *phases) settings(rel float64) *Settings {
	s := ph.s
	s.RelGap, s.AbsGap, s.Init = rel, 0, nil
	if s.MaxIterations > 0 {
		s.MaxIterations = max(1, s.MaxIterations-ph.stats.Iterations)
	}
	if s.MaxEvaluations > 0 {
		s.MaxEvaluations = max(1, s.MaxEvaluations-ph.stats.Evaluations)
	}
	if s.TimeLimit > 0 {
		el, _ := s.clock(ph.t0, ph.c0)
		s.TimeLimit = max(time.Nanosecond, s.TimeLimit-el)
	}
	s.Recorder = &ph.rec
	return &s
}

// left reports whether the limits leave room for another phase.
func (ph *phases) left() bool { return ph.limit() == NotTerminated }

// limit returns the status of the first limit reached, or NotTerminated.
func (ph *phases) limit() Status {
	switch s := &ph.s; {
	case s.MaxIterations > 0 && ph.stats.Iterations >= s.MaxIterations:
		return IterationLimit
	case s.MaxEvaluations > 0 && ph.stats.Evaluations >= s.MaxEvaluations:
		return EvaluationLimit
	}
	switch el, stop := ph.s.clock(ph.t0, ph.c0); {
	case ph.s.TimeLimit > 0 && el >= ph.s.TimeLimit:
		return TimeLimit
	case stop:
		return Canceled
	}
	return NotTerminated
}

// met reports whether dst meets the solve's own targets.
func (ph *phases) met(dst *Result) bool {
	return ph.s.RelGap > 0 && dst.RelGap <= ph.s.RelGap || ph.s.AbsGap > 0 && dst.Gap <= ph.s.AbsGap
}

// add counts a phase's work.
func (ph *phases) add(r *Result) {
	st := &ph.stats
	st.Iterations += r.Iterations
	st.Evaluations += r.Evaluations
	st.MatrixPasses += r.MatrixPasses
	st.GapPasses += r.GapPasses
	st.Rejections += r.Rejections
	st.Restarts += r.Restarts
	st.Step = r.Step
	ph.rec.base = *st
}

// fill writes the route's totals and final status into dst.
func (ph *phases) fill(dst *Result) {
	dst.Stats = ph.stats
	dst.Runtime = time.Since(ph.t0)
	switch {
	case ph.met(dst):
		dst.Status = Converged
	case dst.Status == Converged || dst.Status == NotTerminated:
		// The last phase met only its own target (a handover) or was
		// stopped by the route (watched): the route ended on a limit.
		dst.Status = ph.limit()
	}
}

// phaseRecorder passes the phases' records on as one run: one Init, and
// counts and times offset by the phases before.
type phaseRecorder struct {
	ph     *phases
	r      Recorder
	inited bool
	base   Stats
	rec    Record
}

// Init implements Recorder.
func (pr *phaseRecorder) Init(info *Info) error {
	if pr.inited || pr.r == nil {
		return nil
	}
	pr.inited = true
	i := *info
	i.Method = "auto"
	i.Settings = &pr.ph.s
	return pr.r.Init(&i)
}

// Record implements Recorder.
func (pr *phaseRecorder) Record(r *Record) error {
	// The decay of the phase to the handover, sampled geometrically (a
	// point per 10 % more passes) so that a long phase keeps few.
	passes := pr.base.MatrixPasses + r.MatrixPasses - pr.ph.decayBase
	if g := pr.ph.gaps; len(g) == 0 || float64(passes) >= 1.1*float64(g[len(g)-1].passes) {
		pr.ph.gaps = append(g, passGap{passes, r.RelGap})
		pr.ph.watch.check(pr.ph, passes)
	}
	if pr.r == nil {
		return nil
	}
	pr.rec = *r
	pr.rec.Iteration += pr.base.Iterations
	pr.rec.Evaluations += pr.base.Evaluations
	pr.rec.MatrixPasses += pr.base.MatrixPasses
	pr.rec.Elapsed = time.Since(pr.ph.t0)
	return pr.r.Record(&pr.rec)
}
