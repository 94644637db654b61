package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpump/gpump/games"
)

// shardBatch writes k small games and returns the directory and their
// names as the batch names its instances.
func shardBatch(t *testing.T, k int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for i := range k {
		p := filepath.Join(dir, fmt.Sprintf("g%02d.npy", i))
		if code, _, errOut := gpump(t, "gen", "uniform", "--m", "6", "--n", fmt.Sprint(5+i%3), "--seed", fmt.Sprint(i+1), "-o", p, "-q"); code != 0 {
			t.Fatalf("gen: %d %s", code, errOut)
		}
		names = append(names, games.DisplayName(p))
	}
	return dir, names
}

// instancesOf returns the instances of a batch's output file, in order.
func instancesOf(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		l, err := games.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids = append(ids, l.ID())
	}
	return ids
}

// TestBatchShardCoversOnce checks that --shard K/N over K = 0..N−1 solves
// every instance exactly once, that each shard holds what games.Shard
// says, and that a shard resumed after losing its last line solves only
// that one again.
func TestBatchShardCoversOnce(t *testing.T) {
	dir, names := shardBatch(t, 10)
	out := t.TempDir()
	const n = 3
	var all []string
	for k := range n {
		o := filepath.Join(out, fmt.Sprintf("s%d.jsonl", k))
		code, _, errOut := gpump(t, "batch", dir, "--shard", fmt.Sprintf("%d/%d", k, n), "-o", o, "-q")
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", k, n, code, errOut)
		}
		got := instancesOf(t, o)
		for _, id := range got {
			if !(games.Shard{K: k, N: n}).Has(id) {
				t.Errorf("shard %d/%d solved %s, not its own", k, n, id)
			}
		}
		all = append(all, got...)

		// Resume after the last line was lost: the same shard, that line.
		if len(got) == 0 {
			continue
		}
		b, _ := os.ReadFile(o)
		cut := strings.LastIndex(strings.TrimSuffix(string(b), "\n"), "\n") + 1
		if err := os.WriteFile(o, b[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut = gpump(t, "batch", dir, "--shard", fmt.Sprintf("%d/%d", k, n), "-o", o, "--resume", "-q")
		if code != 0 {
			t.Fatalf("shard %d/%d resumed: exit %d: %s", k, n, code, errOut)
		}
		if again := instancesOf(t, o); !slices.Equal(again, got) {
			t.Errorf("shard %d/%d resumed holds %v, want %v", k, n, again, got)
		}
	}
	slices.Sort(all)
	want := slices.Clone(names)
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("the shards hold %v, want each of %v once", all, want)
	}
}

// TestBatchShardFromScheduler checks the share taken from a Slurm array
// and an Indexed Job, and the refusals.
func TestBatchShardFromScheduler(t *testing.T) {
	dir, names := shardBatch(t, 7)
	for _, c := range []struct {
		env   map[string]string
		shard games.Shard
		err   string
	}{
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}, games.Shard{K: 2, N: 3}, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "1"}, games.Shard{K: 1, N: 2}, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "0"}, games.Shard{}, "consecutive indices"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1", "GPUMP_SHARDS": "2"}, games.Shard{K: 1, N: 2}, ""},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, games.Shard{}, "GPUMP_SHARDS"},
		{map[string]string{"JOB_COMPLETION_INDEX": "x", "GPUMP_SHARDS": "2"}, games.Shard{}, "not a whole number"},
	} {
		t.Run(fmt.Sprint(c.env), func(t *testing.T) {
			for _, name := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX", "GPUMP_SHARDS"} {
				t.Setenv(name, c.env[name])
			}
			o := filepath.Join(t.TempDir(), "out.jsonl")
			code, _, errOut := gpump(t, "batch", dir, "-o", o, "-q")
			if c.err != "" {
				if code != exitError || !strings.Contains(errOut, c.err) {
					t.Fatalf("exit %d, %q; want 1 and %q", code, errOut, c.err)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var want []string
			for _, id := range names {
				if c.shard.Has(id) {
					want = append(want, id)
				}
			}
			got := instancesOf(t, o)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("solved %v, want %v", got, want)
			}
			// --shard wins over the environment.
			code, _, errOut = gpump(t, "batch", dir, "--shard", "0/1", "-o", o, "-q")
			if code != 0 || len(instancesOf(t, o)) != len(names) {
				t.Errorf("--shard 0/1 under %v: exit %d (%s), %d lines, want %d", c.env, code, errOut, len(instancesOf(t, o)), len(names))
			}
		})
	}
}

// TestDeal: what rank 0 deals (deal) is, on another rank's listing
// (dealt), the same instance, a group with only the members rank 0 kept,
// and a stop.
func TestDeal(t *testing.T) {
	mem := []*instance{{Index: 1, Name: "a"}, {Index: 2, Name: "b"}, {Index: 4, Name: "c"}}
	insts := []*instance{{Index: 0, Name: "x"}, {Index: 1, Name: "3 files", Members: mem}, {Index: 3, Name: "y"}}
	for _, c := range []struct {
		in   *instance
		want string
	}{
		{insts[2], "y"},
		{insts[0], "x"},
		{&instance{Index: 1, Members: []*instance{mem[0], mem[2]}}, "3 files: a c"},
		{&instance{Index: 1, Members: mem}, "3 files: a b c"},
	} {
		got, ok := dealt(byIndex(insts), deal(c.in, true))
		s := got.Name
		if got.Members != nil {
			s += ":"
			for _, m := range got.Members {
				s += " " + m.Name
			}
		}
		if !ok || s != c.want {
			t.Errorf("dealt %q, %v; want %q", s, ok, c.want)
		}
	}
	if len(insts[1].Members) != 3 {
		t.Errorf("dealing a group changed the listing's group: %d members", len(insts[1].Members))
	}
	if _, ok := dealt(byIndex(insts), deal(nil, false)); ok {
		t.Error("a stop dealt an instance")
	}
}
