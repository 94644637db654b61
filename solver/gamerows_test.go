package solver_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gpump/gpump/solver"
)

// TestNewMatrixGameRows: the row-major constructor is the tensor one's
// game (the same entries in the same places), and refuses a slice that is
// not m×n or an entry that is not finite.
func TestNewMatrixGameRows(t *testing.T) {
	a := uniformGame(4, 5, 7, -2, 3)
	rows := append([]float64(nil), a.Data().([]float64)...)
	g, err := solver.NewMatrixGameRows(5, 7, rows)
	if err != nil {
		t.Fatal(err)
	}
	if m, n := g.Dims(); m != 5 || n != 7 {
		t.Fatalf("dims %d×%d", m, n)
	}
	for i := range 5 {
		for j := range 7 {
			want, _ := a.At(i, j)
			got, _ := g.Payoff().At(i, j)
			if got != want {
				t.Fatalf("A[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
	res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: 1e-6, MaxIterations: 100000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := solve(t, a, "auto", &solver.Settings{RelGap: 1e-6, MaxIterations: 100000})
	if res.ValueLower != ref.ValueLower || res.ValueUpper != ref.ValueUpper {
		t.Errorf("bracket [%v, %v], from the tensor [%v, %v]", res.ValueLower, res.ValueUpper, ref.ValueLower, ref.ValueUpper)
	}
	for _, tc := range []struct {
		m, n int
		a    []float64
		want string
	}{
		{2, 3, make([]float64, 5), "2×3 payoff matrix in 5 entries"},
		{0, 3, nil, "0×3"},
		{-1, -3, make([]float64, 3), "-1×-3"},
		{1 << 40, 1 << 40, nil, "in 0 entries"}, // m·n overflows to 0
		{1, 2, []float64{1, math.NaN()}, "(0, 1) is NaN"},
	} {
		if _, err := solver.NewMatrixGameRows(tc.m, tc.n, tc.a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d×%d in %d: error %v, want one with %q", tc.m, tc.n, len(tc.a), err, tc.want)
		}
	}
}
