package gan

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

type logRec struct {
	t     *testing.T
	every int
}

func (l logRec) Init(*Info) error { return nil }
func (l logRec) Record(r *Round) error {
	if r.Round%l.every == 0 {
		l.t.Logf("round %d: gap %.3g rel %.3g it %d p %.3v q %.3v  times %v %v %v", r.Round, r.Gap, r.RelGap, r.Iterations, r.P, r.Q, r.PayoffTime, r.SolveTime, r.StepTime)
	}
	return nil
}

func TestExplore(t *testing.T) {
	cfg := &Config{Rounds: 60, Seed: 1, Recorder: logRec{t, 50}}
	start := time.Now()
	m, err := Train(context.Background(), Ring8(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Sample(10000, rand.New(rand.NewPCG(1, 1)))
	t.Logf("%v: %+v", time.Since(start), Evaluate(Ring8(), s, rand.New(rand.NewPCG(2, 2))))
}
