package solver_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

// TestPlaceOnce: a game placed on a backend is solved round after round,
// its entries replaced in place between rounds (the mixed-strategy GAN
// loop): each round gives the result of a fresh game with the same entries
// (its scale and norms follow the new entries), and a round allocates
// nothing once every method has run.
func TestPlaceOnce(t *testing.T) {
	const m, n = 90, 70
	rounds := []*tensor.Dense{
		uniformGame(41, m, n, -1, 1),
		uniformGame(42, m, n, -3, 2),
		uniformGame(43, m, n, -1e-300, 1e-300), // another internal scale
		uniformGame(44, m, n, 0, 1),
	}
	cpu := tensorops.NewCPU(2)
	defer cpu.Close()
	g := mustGame(t, uniformGame(40, m, n, -1, 1))
	if err := g.Place(cpu); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Place(cpu); err == nil {
		t.Error("a second Place: no error")
	}
	for _, name := range solver.MethodNames() {
		for _, euclid := range []bool{false, true} {
			if euclid && name != "ga-smooth" {
				continue
			}
			var knobs []string
			if euclid {
				knobs = []string{"setup", "euclidean"}
			}
			var init []float64
			for r, a := range rounds {
				if err := g.SetPayoff(a); err != nil {
					t.Fatal(err)
				}
				s := &solver.Settings{RelGap: 1e-3, MaxIterations: 5000, Init: init}
				got, err := solver.Solve(context.Background(), g, s, method(t, name, knobs...))
				if err != nil {
					t.Fatal(err)
				}
				want := solveWith(t, a, method(t, name, knobs...), s)
				if got.Iterations != want.Iterations || got.Gap != want.Gap || !slices.Equal(got.X, want.X) {
					t.Errorf("%s %v round %d: %d iterations, gap %g; fresh game: %d, %g", name, knobs, r, got.Iterations, got.Gap, want.Iterations, want.Gap)
				}
				if g.MaxAbs() == 0 || math.Abs(got.RelGap-got.Gap/g.MaxAbs()) > 1e-12*got.RelGap {
					t.Errorf("%s round %d: relative gap %g, gap %g, max |A| %g", name, r, got.RelGap, got.Gap, g.MaxAbs())
				}
				init = got.X // the next round starts from this one's answer
			}
		}
	}
	if err := g.SetPayoff(uniformGame(45, m+1, n, -1, 1)); err == nil {
		t.Error("SetPayoff of another shape: no error")
	}
	f32 := tensor.New(tensor.WithShape(m, n), tensor.WithBacking(make([]float32, m*n)))
	if err := g.SetPayoff(f32); err == nil {
		t.Error("SetPayoff of another storage type: no error")
	}

	if solver.RaceEnabled {
		return
	}
	var res solver.Result
	for _, name := range solver.MethodNames() {
		m := method(t, name)
		s := &solver.Settings{MaxIterations: 50, Init: nil}
		round := func() {
			if err := g.SetPayoff(rounds[1]); err != nil {
				t.Fatal(err)
			}
			if err := solver.SolveInto(context.Background(), &res, g, s, m); err != nil {
				t.Fatal(err)
			}
			s.Init = res.X
		}
		round()
		if a := solver.MinAllocs(5, round); a != 0 {
			t.Errorf("%s: %v allocations per round (SetPayoff and SolveInto)", name, a)
		}
	}
}

// failingSet is a CPU backend whose next SetMatrix calls fail.
type failingSet struct {
	*tensorops.CPU
	fails int
}

func (f *failingSet) SetMatrix(dst tensorops.Matrix, src *tensor.Dense) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("injected upload failure")
	}
	return f.CPU.SetMatrix(dst, src)
}

// TestSetPayoffFails: a SetPayoff the backend refuses leaves the game as it
// was; one that also loses the old entries makes every solve fail until a
// SetPayoff succeeds.
func TestSetPayoffFails(t *testing.T) {
	a, b := uniformGame(51, 30, 20, -1, 1), uniformGame(52, 30, 20, -5, 5)
	be := &failingSet{CPU: tensorops.NewCPU(1)}
	defer be.Close()
	g := mustGame(t, a)
	if err := g.Place(be); err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s := &solver.Settings{RelGap: 1e-3, MaxIterations: 5000}
	ref, err := solver.Solve(context.Background(), g, s, &solver.RegretMatching{})
	if err != nil {
		t.Fatal(err)
	}
	mx := g.MaxAbs()
	be.fails = 1
	if err := g.SetPayoff(b); err == nil {
		t.Fatal("a failed upload: no error")
	}
	res, err := solver.Solve(context.Background(), g, s, &solver.RegretMatching{})
	if err != nil || g.MaxAbs() != mx || res.Gap != ref.Gap || g.Payoff() != a {
		t.Errorf("after a refused SetPayoff: err %v, max |A_ij| %g, gap %g; before: %g, %g", err, g.MaxAbs(), res.Gap, mx, ref.Gap)
	}
	be.fails = 2
	if err := g.SetPayoff(b); err == nil {
		t.Fatal("a lost upload: no error")
	}
	if _, err := solver.Solve(context.Background(), g, s, &solver.RegretMatching{}); err == nil {
		t.Error("a solve of a game whose backend copy is lost: no error")
	}
	if err := g.SetPayoff(b); err != nil {
		t.Fatal(err)
	}
	if _, err := solver.Solve(context.Background(), g, s, &solver.RegretMatching{}); err != nil {
		t.Errorf("after a successful SetPayoff: %v", err)
	}
}
