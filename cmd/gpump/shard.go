package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/games"
)

// shardFlag is gpump batch --shard.
func shardFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "shard", Destination: dst, Usage: "solve only share K/N of the instances (0 <= K < N): the N shards of a Slurm array or Indexed Job cover the batch exactly once", DefaultText: "from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX/GPUMP_SHARDS; else all"}
}

// shardHelp is the batch help's paragraph on shards.
const shardHelp = `
Shards: with --shard K/N the batch solves only the instances of share K of
N (0 <= K < N): those whose name's FNV-1a hash (64 bits) modulo N is K.
A file of many games is one instance: its games stay together. The share
depends only on the instance's name and N, not on the order of the list
or on what was already solved, so that the N shards together solve every
instance exactly once, each shard resumes as itself (--resume), and the
concatenation of the shards' outputs is the batch's whole result. Unset,
--shard is taken from a Slurm job array (SLURM_ARRAY_TASK_ID minus
SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT tasks: an array of
consecutive indices, e.g. --array=0-7) or from a Kubernetes Indexed Job
(JOB_COMPLETION_INDEX of GPUMP_SHARDS: Kubernetes does not give the pods
the job's completions, so set GPUMP_SHARDS to them; without it the batch
refuses to guess). Under mpirun the ranks deal the shard among themselves.
`

// batchShard is the share of the batch this process solves: --shard,
// else the scheduler's array index, else the whole batch.
func batchShard(spec string) (games.Shard, string, error) {
	if spec != "" {
		s, err := games.ParseShard(spec)
		if err != nil {
			return s, "", fmt.Errorf("--shard: %w", err)
		}
		return s, "--shard", nil
	}
	env := func(name string) (int, bool, error) {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			return 0, false, nil
		}
		k, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("%s=%q is not a whole number", name, v)
		}
		return k, true, nil
	}
	id, hasID, err1 := env("SLURM_ARRAY_TASK_ID")
	count, hasCount, err2 := env("SLURM_ARRAY_TASK_COUNT")
	low, _, err3 := env("SLURM_ARRAY_TASK_MIN")
	if err := errors.Join(err1, err2, err3); err != nil {
		return games.Shard{}, "", err
	}
	if hasID && hasCount {
		s, err := games.NewShard(id-low, count)
		if err != nil {
			return s, "", fmt.Errorf("Slurm array task %d of %d from %d: the batch shards only an array of consecutive indices (e.g. --array=0-%d), or give --shard K/N: %w", id, count, low, count-1, err)
		}
		return s, "Slurm array", nil
	}
	index, hasIndex, err1 := env("JOB_COMPLETION_INDEX")
	shards, hasShards, err2 := env("GPUMP_SHARDS")
	if err := errors.Join(err1, err2); err != nil {
		return games.Shard{}, "", err
	}
	if hasIndex {
		if !hasShards {
			return games.Shard{}, "", fmt.Errorf("JOB_COMPLETION_INDEX=%d (a Kubernetes Indexed Job) without GPUMP_SHARDS: set GPUMP_SHARDS to the job's completions, or give --shard K/N", index)
		}
		s, err := games.NewShard(index, shards)
		if err != nil {
			return s, "", fmt.Errorf("JOB_COMPLETION_INDEX and GPUMP_SHARDS: %w", err)
		}
		return s, "Indexed Job", nil
	}
	return games.Shard{}, "", nil
}

// shardInstances keeps the instances of this process's share of the batch
// (batchShard; over MPI ranks, rank 0 deals the share): a hook of gpump
// batch.
func shardInstances(spec string, insts []*instance, log *slog.Logger) ([]*instance, error) {
	s, from, err := batchShard(spec)
	if err != nil {
		return nil, err
	}
	if s.N <= 1 {
		return insts, nil
	}
	var mine []*instance
	for _, in := range insts {
		if s.Has(in.Name) {
			mine = append(mine, in)
		}
	}
	log.Info("shard", "shard", s.String(), "from", from, "instances", len(mine), "of", len(insts))
	return mine, nil
}
