package games

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is share K of N of a batch's games, for the processes of a
// scheduler array (a Slurm job array, a Kubernetes Indexed Job) or the
// ranks of an MPI job that each solve a part of one batch: the N shards
// K = 0, …, N−1 hold every game exactly once, so that concatenating their
// outputs, in any order, is the batch's whole result.
//
// A game belongs to the shard of its identity (Line.ID, or the instance's
// name): FNV-1a (64 bits) of the identity's bytes modulo N equals K. The
// share depends on nothing but the identity and N, not on the order in
// which the games are listed, nor on the games done before, so that a
// shard resumed later, or listed from a reordered manifest, solves the
// same games. The zero Shard (N = 0) is the whole batch.
type Shard struct {
	K, N int
}

// ParseShard parses "K/N", 0 <= K < N.
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N, e.g. 0/4", s)
	}
	k, err1 := strconv.Atoi(strings.TrimSpace(ks))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err := errors.Join(err1, err2); err != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/N with whole numbers, e.g. 0/4", s)
	}
	return NewShard(k, n)
}

// NewShard returns share k of n, checked.
func NewShard(k, n int) (Shard, error) {
	if n < 1 || k < 0 || k >= n {
		return Shard{}, fmt.Errorf("shard %d/%d: want 0 <= K < N", k, n)
	}
	return Shard{K: k, N: n}, nil
}

// Has reports whether the game of identity id belongs to the shard.
func (s Shard) Has(id string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%uint64(s.N) == uint64(s.K)
}

// String is "K/N", or "all" for the zero Shard.
func (s Shard) String() string {
	if s.N == 0 {
		return "all"
	}
	return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N)
}
