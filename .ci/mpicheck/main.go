// Command mpicheck is .ci/mpi's checker of gpump's outputs under mpirun
// (CI has Go, not Python or jq).
//
//	mpicheck solve ONE.json MANY.json RANKS   a solve over RANKS ranks matches one process's
//	mpicheck once OUT.jsonl FILE...           every FILE is an instance of OUT exactly once, solved, nothing else
//	mpicheck some OUT.jsonl FILE...           OUT holds whole lines only, of FILEs, each at most once (a batch cut short)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck:", err)
		os.Exit(1)
	}
}

type report struct {
	Status      string   `json:"status"`
	RelativeGap *float64 `json:"relative_gap"`
	Iterations  int      `json:"iterations"`
	Ranks       int      `json:"ranks"`
	CommSeconds *float64 `json:"comm_seconds"`
}

func read(path string) (*report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := new(report)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.RelativeGap == nil {
		return nil, fmt.Errorf("%s: no relative_gap", path)
	}
	return r, nil
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: mpicheck solve ONE MANY RANKS | once OUT FILE...")
	}
	switch args[0] {
	case "solve":
		if len(args) != 4 {
			return fmt.Errorf("solve wants ONE MANY RANKS")
		}
		one, err := read(args[1])
		if err != nil {
			return err
		}
		many, err := read(args[2])
		if err != nil {
			return err
		}
		ranks, _ := strconv.Atoi(args[3])
		// The sums over ranks differ from one process's by rounding:
		// the same status, relative gaps within 1e-12 of each other
		// (gap / max|A|), iterations within 1%.
		switch {
		case one.Ranks != 0 || one.CommSeconds != nil:
			return fmt.Errorf("%s: a single process reports ranks %d", args[1], one.Ranks)
		case many.Ranks != ranks || many.CommSeconds == nil:
			return fmt.Errorf("%s: ranks %d, comm_seconds %v; want %d ranks and the seconds", args[2], many.Ranks, many.CommSeconds, ranks)
		case one.Status != many.Status:
			return fmt.Errorf("status %s on one process, %s on %d ranks", one.Status, many.Status, ranks)
		case math.Abs(*one.RelativeGap-*many.RelativeGap) > 1e-12:
			return fmt.Errorf("relative gap %g on one process, %g on %d ranks", *one.RelativeGap, *many.RelativeGap, ranks)
		case math.Abs(float64(one.Iterations-many.Iterations)) > max(1, 0.01*float64(one.Iterations)):
			return fmt.Errorf("%d iterations on one process, %d on %d ranks", one.Iterations, many.Iterations, ranks)
		}
		fmt.Printf("ok: %d ranks: %s, relative gap %.3g (one process %.3g), %d iterations (%d), comm %.2f s\n",
			ranks, many.Status, *many.RelativeGap, *one.RelativeGap, many.Iterations, one.Iterations, *many.CommSeconds)
		return nil
	case "once", "some":
		if b, err := os.ReadFile(args[1]); err != nil {
			return err
		} else if len(b) > 0 && b[len(b)-1] != '\n' {
			return fmt.Errorf("%s ends in a line cut short", args[1])
		}
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		want := map[string]int{}
		for _, name := range args[2:] {
			want[name] = 0
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		lines := 0
		for sc.Scan() {
			lines++
			var l struct{ Instance, Status string }
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				return fmt.Errorf("%s line %d: %w", args[1], lines, err)
			}
			k, ok := want[l.Instance]
			if !ok {
				return fmt.Errorf("%s line %d: instance %q is not in the batch", args[1], lines, l.Instance)
			}
			if k > 0 {
				return fmt.Errorf("%s line %d: instance %q a second time", args[1], lines, l.Instance)
			}
			if l.Status == "canceled" && args[0] == "some" {
				continue // a rank stopped by the launcher: resumed later
			}
			if l.Status == "error" || l.Status == "canceled" {
				return fmt.Errorf("%s line %d: instance %q %s", args[1], lines, l.Instance, l.Status)
			}
			want[l.Instance]++
		}
		if err := sc.Err(); err != nil {
			return err
		}
		if args[0] == "some" {
			fmt.Printf("%d\n", lines)
			return nil
		}
		for name, k := range want {
			if k == 0 {
				return fmt.Errorf("%s: no line for %s", args[1], name)
			}
		}
		fmt.Printf("ok: %s holds each of %d instances once\n", args[1], len(want))
		return nil
	}
	return fmt.Errorf("unknown check %q", args[0])
}
