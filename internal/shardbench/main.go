// Command shardbench measures a sharded solve against one process: the
// time per iteration and per pass over A, the time spent communicating,
// and each rank's peak memory (VmHWM) against its block of rows. Built
// with -tags mpi (CC=mpicc) it runs under mpirun; without, it is one rank.
//
//	CC=mpicc go build -tags mpi -o shardbench ./internal/shardbench
//	mpirun -np 2 ./shardbench -threads 1          # 2 ranks, 1 thread each
//	./shardbench -whole -threads 2                # 1 process, 2 threads
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/mpi"
	"github.com/gpump/gpump/shard"
	"github.com/gpump/gpump/solver"
	"github.com/gpump/gpump/tensorops"
)

func main() {
	m := flag.Int("m", 6000, "rows")
	n := flag.Int("n", 6000, "columns")
	seed := flag.Uint64("seed", 1, "seed of the uniform [-1, 1) game")
	threads := flag.Int("threads", 1, "threads per rank")
	whole := flag.Bool("whole", false, "solve in this process alone, on a plain CPU backend")
	method := flag.String("method", "auto", "method")
	gap := flag.Float64("gap", 1e-4, "relative gap target")
	iters := flag.Int("iters", 100000, "iteration limit")
	flag.Parse()
	if err := run(*m, *n, *seed, *threads, *whole, *method, *gap, *iters); err != nil {
		fmt.Fprintln(os.Stderr, "shardbench:", err)
		os.Exit(1)
	}
}

func run(m, n int, seed uint64, threads int, whole bool, method string, gap float64, iters int) error {
	w, err := mpi.Init()
	if err != nil {
		return err
	}
	defer mpi.Finalize()
	spec := datasets.GenSpec{Name: "uniform", M: m, N: n, Lo: -1, Hi: 1, Seed: seed}
	var g *solver.MatrixGame
	var be *shard.Backend
	rows := m
	if whole {
		if w.Size() != 1 {
			return fmt.Errorf("-whole runs on one rank")
		}
		a, err := datasets.Generate(tensor.Float64, spec)
		if err != nil {
			return err
		}
		if g, err = solver.NewMatrixGame(a); err != nil {
			return err
		}
		cpu := tensorops.NewCPU(threads)
		defer cpu.Close()
		if err := g.Place(cpu); err != nil {
			return err
		}
	} else {
		sg, err := shard.Open(w, shard.Source{Gen: &spec}, &shard.Options{Threads: threads})
		if err != nil {
			return err
		}
		defer sg.Close()
		g, be = sg.Game, sg.Backend
		lo, hi, _ := be.Rows()
		rows = hi - lo
	}
	meth, err := solver.NewMethod(method)
	if err != nil {
		return err
	}
	res, err := solver.Solve(context.Background(), g, &solver.Settings{RelGap: gap, MaxIterations: iters}, meth)
	if err != nil {
		return err
	}
	var comm time.Duration
	if be != nil {
		comm = be.CommTime()
	}
	hwm, err := vmHWM()
	if err != nil {
		return err
	}
	block := float64(rows) * float64(n) * 8
	// Rank 0 prints every rank's line, gathered.
	mine := []float64{float64(rows), block, hwm, comm.Seconds()}
	counts := make([]int, w.Size())
	for r := range counts {
		counts[r] = len(mine)
	}
	all := make([]float64, len(mine)*w.Size())
	w.Allgather(mine, all, counts)
	out := shardOutput(w)
	kind := fmt.Sprintf("%d ranks × %d threads", w.Size(), threads)
	if whole {
		kind = fmt.Sprintf("one process, %d threads (plain CPU backend)", threads)
	}
	fmt.Fprintf(out, "%s: %dx%d f64 %s to %g: %v after %d iterations, %d passes, %.3f s, %.3f ms/iteration, %.3f ms/pass, relative gap %.3g, value in [%.12g, %.12g]\n",
		kind, m, n, res.Method, gap, res.Status, res.Iterations, res.MatrixPasses, res.Runtime.Seconds(),
		1e3*res.Runtime.Seconds()/float64(max(res.Iterations, 1)), 1e3*res.Runtime.Seconds()/float64(max(res.MatrixPasses, 1)),
		res.RelGap, res.ValueLower, res.ValueUpper)
	for r := range w.Size() {
		v := all[r*len(mine):]
		fmt.Fprintf(out, "  rank %d: %d rows, block %.1f MiB, VmHWM %.1f MiB (%.3f× the block), communicating %.3f s\n",
			r, int(v[0]), v[1]/(1<<20), v[2]/(1<<20), v[2]/v[1], v[3])
	}
	return nil
}

func shardOutput(w *mpi.World) *os.File {
	if w.Rank() == 0 {
		return os.Stdout
	}
	null, _ := os.Open(os.DevNull)
	return null
}

// vmHWM returns the process's peak resident memory in bytes.
func vmHWM() (float64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}
