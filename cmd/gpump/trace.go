package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"

	"github.com/gpump/gpump/internal/atomicfile"
	"github.com/gpump/gpump/solver"
)

// traceHeader names the columns of a --trace file. gap, relative_gap and
// the value bracket are those of the best certified point so far;
// gap_average and gap_last those of this iteration's average and last
// iterate (empty when not certified).
const traceHeader = "iteration,evaluations,matrix_passes,step,gap,relative_gap,gap_average,gap_last,value_lower,value_upper,seconds\n"

// traceRecorder writes every K-th iteration, and the last, as a CSV row.
// The file is created when the solve starts and appears complete or not at
// all (an atomicfile.File). An error creating or writing it does not stop
// the solve: finish reports it, after the result is safe.
type traceRecorder struct {
	ctx   context.Context // stops the wait for a FIFO's reader
	path  string
	every int
	f     *atomicfile.File // nil until Init, and after an error
	w     *bufio.Writer
	buf   []byte
	last  solver.Record
	have  bool // last holds a record not yet written
	rows  int
	err   error
}

var _ solver.Recorder = (*traceRecorder)(nil)

// newTrace returns the recorder of a trace to path; the file is created
// by Init.
func newTrace(ctx context.Context, path string, every int) *traceRecorder {
	return &traceRecorder{ctx: ctx, path: path, every: every, buf: make([]byte, 0, 256)}
}

// Init implements solver.Recorder: it creates the temporary file.
func (t *traceRecorder) Init(*solver.Info) error {
	if t.f != nil || t.err != nil {
		return nil
	}
	f, err := atomicfile.CreateContext(t.ctx, t.path)
	if err != nil {
		t.err = outputErr("--trace", err)
		if t.ctx.Err() != nil {
			// A FIFO without a reader, and an interrupt: the solve
			// stops too (the same context), and the command with
			// exit status 3.
			t.err = &interruptedError{"opening --trace " + t.path + ", a FIFO, for a reader"}
		}
		return nil
	}
	t.f, t.w = f, bufio.NewWriterSize(f, 64<<10)
	t.w.WriteString(traceHeader)
	return nil
}

// Record implements solver.Recorder.
func (t *traceRecorder) Record(r *solver.Record) error {
	if r.Iteration%t.every == 0 {
		t.write(r)
		t.have = false
		return nil
	}
	t.last, t.have = *r, true
	return nil
}

func (t *traceRecorder) write(r *solver.Record) {
	f := func(b []byte, x float64) []byte {
		if x-x != 0 { // not certified (±Inf) or NaN: an empty field
			return append(b, ',')
		}
		return append(strconv.AppendFloat(b, x, 'g', -1, 64), ',')
	}
	b := t.buf[:0]
	b = strconv.AppendInt(b, int64(r.Iteration), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Evaluations), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.MatrixPasses), 10)
	b = append(b, ',')
	b = f(b, r.Step)
	b = f(b, r.Gap)
	b = f(b, r.RelGap)
	b = f(b, r.GapAverage)
	b = f(b, r.GapLast)
	b = f(b, r.ValueLower)
	b = f(b, r.ValueUpper)
	b = strconv.AppendFloat(b, r.Elapsed.Seconds(), 'f', 6, 64)
	b = append(b, '\n')
	t.buf = b
	if t.f == nil {
		return
	}
	if _, err := t.w.Write(b); err != nil && t.err == nil {
		t.err = outputErr("--trace", err)
		t.abort()
	}
	t.rows++
}

// finish writes the last iteration if it was skipped, then moves the file
// into place.
func (t *traceRecorder) finish() error {
	if t.have && t.f != nil {
		t.write(&t.last)
		t.have = false
	}
	if t.err != nil {
		return t.err
	}
	if t.f == nil {
		return fmt.Errorf("--trace %s: the solve never started", t.path)
	}
	err := t.w.Flush()
	if err == nil {
		err = t.f.Commit()
	}
	if err != nil {
		t.abort()
		return outputErr("--trace", err)
	}
	return nil
}

// abort removes the temporary file of a trace that was not finished.
func (t *traceRecorder) abort() {
	t.f.Abort()
	t.f = nil
}
