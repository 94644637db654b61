// Package shard runs one game over several processes (ranks), each holding
// a contiguous block of the payoff matrix's rows, so that a game larger
// than one machine's memory is solved with the same driver loop, the same
// methods and the same certificates as on one.
//
// Backend wraps a local backend that holds only this rank's rows (the
// CPU's, or a GPU's: each rank its own device, the passes' results staged
// through host buffers for the collectives), and a Comm (the ranks'
// collectives: package mpi implements it over MPI, NewGroup in process for
// tests). It implements solver.Shard: NewShardedMatrixGame places a game
// on it, and Solve runs unchanged on every rank.
//
// # Design
//
// Only the matrix is split. Every vector (strategies, operator values,
// running averages) is held whole and alike on every rank: a vector is
// O(m + n) against the block's O(mn/N), so the copies cost little memory,
// and every operation on vectors (prox-mappings, step-rule statistics,
// averages, certificates, the support crossover's subgame solve) runs
// redundantly on every rank on the same bits and needs no communication at
// all. Only the passes over A communicate:
//
//   - A q: each rank forms its rows (A q)[lo:hi], and the blocks are
//     gathered in rank order (MPI_Allgatherv), which adds nothing and so
//     rounds nothing;
//   - Aᵀp: each rank forms its partial sum A[lo:hi]ᵀ p[lo:hi]; the N
//     partial vectors are gathered (MPI_Allgather) and every rank adds them
//     itself in rank order 0, 1, …, N−1. MPI_Allreduce is not used: its
//     order of summation is the implementation's, and may differ between
//     runs, message sizes and ranks. The fixed order makes a solve
//     reproducible bit for bit for a given N, and every rank holds the same
//     sum, so the ranks never branch apart. The cost: each rank receives
//     (N−1)·n doubles per pass where a ring all-reduce moves about 2n,
//     and adds N·n; for the ranks of one node or a few nodes (N ≤ 8, the
//     passes' O(mn/N) reads dominate) this is the better trade.
//
// The sums of the passes differ from a single process's by rounding only
// (the partial sums are added in another order), so a solve on N ranks and
// one on one process end with the same status and gaps equal to rounding,
// and the iteration counts equal or close.
//
// The redundant vector work assumes the ranks compute alike: the same
// binary, kernels (GPUMP_KERNELS, or the same device kind) and threads per
// rank. Agree verifies that before any work.
package shard
