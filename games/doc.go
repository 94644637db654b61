// Package games takes matrix games from files to reports: what gpump's
// commands write and read, reachable from Go.
//
// A Report is the result of one game's solve as `gpump solve -o` writes it;
// a Line is one line of `gpump batch` output, a Report with the instance it
// belongs to. Encoder and Decoder write and read both, in the manner of
// encoding/json, with one policy for the numbers JSON cannot hold (see
// Encoder). Line.ID is the one identity by which a resumed batch knows the
// games it has already solved (ReadResults). Guard stops a solve when the
// memory-mapped payoff file under it is about to change.
//
// A Source is a payoff file opened once; Solve solves one Game (a matrix
// read from it, or generated) into its Report; ReadStacks reads a file of
// many games (a 3-D array, an archive) into Stacks of one shape each, and
// SolveStack solves a Stack with a callback per finished game.
//
// List turns a batch's arguments and manifest into Instances (ReadManifest
// and SplitWords parse a manifest; DisplayName is the name results give an
// instance); GroupFiles gathers small same-shape files into one instance
// and ReadGroup reads it as a Stack; Shard splits a batch among the
// processes of an array.
package games
