package games_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpump/gpump/games"
	"github.com/gpump/gpump/solver"
)

// Solve a game and write its report as `gpump solve -o` does.
func ExampleNewReport() {
	game, err := solver.NewMatrixGameRows(2, 2, []float64{1, -1, -1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &solver.Settings{RelGap: 1e-6}
	res, err := solver.Solve(context.Background(), game, s, &solver.RegretMatching{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := games.NewReport(res, s)
	r.Source, r.M, r.N = "matching pennies", 2, 2
	fmt.Printf("%s: %s, value in [%.3f, %.3f]\n", r.Source, r.Status, r.ValueLower, r.ValueUpper)
	// Output:
	// matching pennies: converged, value in [0.000, 0.000]
}

// Numbers JSON cannot hold are written as null, and read back as NaN.
func ExampleEncoder() {
	line := &games.Line{Instance: "big.npy", Index: 0, Status: "limit",
		Report: &games.Report{Status: "limit", Gap: math.Inf(1), M: 2, N: 2}}
	var b strings.Builder
	if err := games.NewEncoder(&b).Encode(line); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(b.String())
	var back games.Line
	if err := games.NewDecoder(strings.NewReader(b.String())).Decode(&back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Instance, back.Status, back.Gap)
	// Output:
	// {"instance":"big.npy","index":0,"status":"limit","gap":null,"relative_gap":0,"value":0,"value_lower":0,"value_upper":0,"certified_by":"","point":"","column_point":"","row_support":0,"column_support":0,"iterations":0,"operator_evaluations":0,"matrix_passes":0,"oracle":"","step":null,"seconds":0,"load_seconds":0,"algorithm":"","source":"","m":2,"n":2,"precision":"","max_abs_entry":0,"target_relative_gap":0,"device":"","threads":0,"kernels":""}
	// big.npy limit NaN
}

// Read the lines of a batch's output and tell the games it has solved, as
// `gpump batch --resume` does.
func ExampleParseLine() {
	out := `{"instance":"stack.npy","index":0,"games":2,"status":"converged"}
{"instance":"stack.npy","index":1,"games":2,"status":"error","error":"entry (0, 1) is NaN"}
{"instance":"g.npy","index":1,"status":"limit"}`
	for _, b := range strings.Split(out, "\n") {
		l, err := games.ParseLine([]byte(b))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q done=%v\n", l.ID(), l.Done())
	}
	// Output:
	// "stack.npy\x000" done=true
	// "stack.npy\x001" done=false
	// "g.npy" done=true
}

// Stop a solve when the payoff file under it is about to change.
func ExampleGuard() {
	changed := make(chan struct{})
	ctx, stop := games.Guard(context.Background(), changed)
	defer stop()
	close(changed) // datasets.Mapped.Watch closes it on a write or truncation
	<-ctx.Done()
	fmt.Println(games.Changed(ctx, "g.npy") != nil)
	// Output:
	// true
}

// Warm-start a solve from the strategies of an earlier result.
func ExampleReadWarmStart() {
	path, cleanup := scratch("r.json")
	defer cleanup()
	r := &games.Report{Status: "converged", RowStrategy: []float64{0.5, 0.5}, ColumnStrategy: []float64{0.25, 0.75}}
	b, err := games.Marshal(r, true)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := games.ReadWarmStart(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	init, err := w.Pair(2, 2) // Settings.Init of a 2×2 game
	fmt.Println(init, err)
	_, err = w.Pair(3, 2)
	fmt.Println(err != nil)
	// Output:
	// [0.5 0.5 0.25 0.75] <nil>
	// true
}

// Count the games a batch's results file already holds, as a resumed
// batch does before it skips them.
func ExampleReadResults() {
	path, cleanup := scratch("out.jsonl")
	defer cleanup()
	f, err := os.Create(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := games.NewEncoder(f)
	enc.Encode(&games.Line{Instance: "g.npy", Status: "converged", Report: &games.Report{Status: "converged"}})
	enc.Encode(&games.Line{Instance: "h.npy", Index: 1, Status: "error", Error: "no such file"})
	f.Close()
	done, err := games.ReadResults(path)
	fmt.Println(done, err)
	// Output:
	// map[g.npy:1] <nil>
}

// scratch returns a path named name in a new temporary directory, and the
// function that removes it.
func scratch(name string) (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "games")
	if err != nil {
		panic(err)
	}
	return filepath.Join(dir, name), func() { os.RemoveAll(dir) }
}
