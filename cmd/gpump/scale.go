package main

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/gpump/gpump/datasets"

	"github.com/gpump/gpump/solver"
)

// A float64 matrix stored as float32 whose entries float32 cannot hold
// (they overflow it, or all lie below its normal range, where rounding
// loses their relative precision) is stored as A·2^exp instead, with exp
// chosen by datasets.ReadScaled so that the largest entry lies in [1, 2).
// Multiplying by a power of two is exact, so the solve of A·2^exp is the
// solve of A in other units: the same strategies, the same relative gap,
// and gaps, values and the rounding bound 2^exp times A's. The functions
// below convert between the two: the settings given in A's units go in
// scaled, the results come out unscaled.

// unit returns 2^-exp, what converts a stored value to A's units.
func (l *loaded) unit() float64 { return math.Ldexp(1, -l.exp) }

// scaleSettings converts the settings given in A's units (the absolute
// gap target, G0, a fixed step) to the stored matrix's, and returns the
// method with its knobs converted.
func (l *loaded) scaleSettings(s *solver.Settings, m solver.Method) solver.Method {
	if l.exp == 0 {
		return m
	}
	u := l.unit()
	s.AbsGap /= u
	switch m := m.(type) {
	case *solver.OMWU:
		c := *m
		c.Eta *= u
		return &c
	case *solver.MirrorProx:
		c := *m
		c.G0 /= u
		switch r := m.Rule.(type) {
		case *solver.Constant:
			c.Rule = &solver.Constant{Eta: r.Eta * u}
		case *solver.AdaProx:
			c.Rule = &solver.AdaProx{Gamma0: r.Gamma0 * u}
		}
		return &c
	}
	return m
}

// unscaleResult converts a result of the stored matrix to A's units.
func (l *loaded) unscaleResult(res *solver.Result) {
	if l.exp != 0 {
		l.toUnits(&res.Gap, &res.ValueLower, &res.ValueUpper)
		res.Step /= l.unit()
	}
}

// unscaleOutput converts the fields of out taken from the stored matrix
// (its largest entry, the rounding bound and the absolute target) to A's
// units.
func (l *loaded) unscaleOutput(out *solveOutput) {
	l.toUnits(&out.MaxAbsEntry, &out.RoundingBound, &out.TargetAbsoluteGap)
}

// toUnits converts stored values, gaps or entries, to A's units.
func (l *loaded) toUnits(xs ...*float64) {
	for _, x := range xs {
		*x *= l.unit()
	}
}

// unscaledRecorder passes the records of the stored matrix's solve to r in
// A's units.
type unscaledRecorder struct {
	r    solver.Recorder
	unit float64
	rec  solver.Record
	info solver.Info
}

// recorder returns rec, converting to A's units when the matrix is scaled.
func (l *loaded) recorder(rec solver.Recorder) solver.Recorder {
	if l.exp == 0 || rec == nil {
		return rec
	}
	return &unscaledRecorder{r: rec, unit: l.unit()}
}

// Init implements solver.Recorder.
func (u *unscaledRecorder) Init(info *solver.Info) error {
	u.info = *info
	u.info.Scale *= u.unit
	return u.r.Init(&u.info)
}

// Record implements solver.Recorder.
func (u *unscaledRecorder) Record(r *solver.Record) error {
	u.rec = *r
	u.rec.Gap *= u.unit
	u.rec.GapAverage *= u.unit
	u.rec.GapLast *= u.unit
	u.rec.ValueLower *= u.unit
	u.rec.ValueUpper *= u.unit
	u.rec.Step /= u.unit
	return u.r.Record(&u.rec)
}

// rangeHint explains a *datasets.RangeError, which ReadScaled returns only
// for an input it cannot read twice, in the command's terms.
func rangeHint(path string, err error) error {
	var re *datasets.RangeError
	if !errors.As(err, &re) {
		return err
	}
	what := "below float32's normal range"
	if re.Overflow {
		what = "beyond float32's range"
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fmt.Errorf("%s: entries up to %g are %s even scaled by a power of two: use --precision f64", path, re.MaxAbs, what)
	}
	return fmt.Errorf("%s: entries up to %g are %s, and a pipe cannot be read a second time to scale them: use --precision f64, or a regular file", path, re.MaxAbs, what)
}
