package games

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
)

// MaxGroupEntries bounds the games GroupFiles groups: beyond it a game's
// solve outweighs its file's overhead, and a stack of files, read before
// any is solved, starts later than the first file alone (100 files of
// 512×512 took 3.1 s grouped, 2.1 s alone, scripts/bench_batch.sh).
const MaxGroupEntries = 256 * 256

// GroupFiles replaces the small same-shape .npy files among insts (at most
// MaxGroupEntries entries, without flags of their own) by instances that
// hold up to size of them as Members, each placed where its first member
// was; float32 and float64 files are never grouped together. The files'
// headers are read; their payloads are read by ReadGroup.
func GroupFiles(insts []*Instance, size int) []*Instance {
	if len(insts) < 2 || size < 2 {
		return insts // a group has two files at least
	}
	type shapeKey struct {
		m, n int
		f32  bool
	}
	byShape := map[shapeKey][]*Instance{}
	var order []shapeKey
	out := make([]*Instance, 0, len(insts))
	for _, in := range insts {
		info, ok := smallNPY(in)
		if !ok {
			out = append(out, in)
			continue
		}
		k := shapeKey{info.Rows, info.Cols, strings.HasSuffix(info.Descr, "f4")}
		if _, seen := byShape[k]; !seen {
			order = append(order, k)
		}
		byShape[k] = append(byShape[k], in)
	}
	for _, k := range order {
		for members := byShape[k]; len(members) > 0; {
			chunk := members[:min(size, len(members))]
			members = members[len(chunk):]
			if len(chunk) == 1 {
				out = append(out, chunk[0]) // a remainder of one is itself
				continue
			}
			out = append(out, &Instance{Index: chunk[0].Index, Name: fmt.Sprintf("%d files of %d×%d", len(chunk), k.m, k.n), Members: chunk, Shape: [2]int{k.m, k.n}})
		}
	}
	slices.SortStableFunc(out, func(a, b *Instance) int { return a.Index - b.Index })
	return out
}

// smallNPY returns the header of an instance that is a plain small .npy
// file, a matrix of at most MaxGroupEntries entries.
func smallNPY(in *Instance) (datasets.NPYInfo, bool) {
	if in.Err != nil || in.File == "" || len(in.Args) != 2 || in.Args[0] != "--" {
		return datasets.NPYInfo{}, false
	}
	if f, err := datasets.FormatOf(in.File); err != nil || f != "npy" {
		return datasets.NPYInfo{}, false
	}
	if in.Info == nil || !in.Info.Mode().IsRegular() {
		return datasets.NPYInfo{}, false
	}
	info, err := datasets.StatNPY(in.File)
	if err != nil || info.Rows*info.Cols > MaxGroupEntries {
		return datasets.NPYInfo{}, false
	}
	return info, true
}

// ReadGroup reads the member files of a GroupFiles instance into one Stack
// (Index: the members' instance indices), copying each into the stack as
// it is read, so that the stack, not the files, holds the games. It
// returns the stack and the instance of each of its games, nil and none
// when no member could be taken. A member it does not take is passed to
// skip with the reason: ctx's error once ctx is done (not started), a
// *datasets.RangeError for entries that float32 storage cannot hold as they
// are (a lone solve stores them scaled), or why it could not be read or
// no longer has the group's shape and dtype.
func ReadGroup(ctx context.Context, grp *Instance, opt *datasets.ReadOptions, skip func(*Instance, error)) (*Stack, []*Instance) {
	var (
		a    *tensor.Dense
		s    = &Stack{}
		own  []*Instance
		m, n = grp.Shape[0], grp.Shape[1]
	)
	t0 := time.Now()
	for _, in := range grp.Members {
		if err := ctx.Err(); err != nil {
			skip(in, err)
			continue
		}
		t, err := datasets.Read(in.File, opt)
		if err == nil && (t.Shape()[0] != m || t.Shape()[1] != n || a != nil && t.Dtype() != a.Dtype()) {
			err = fmt.Errorf("%s changed shape or dtype since it was listed", in.File)
		}
		rounding := 0.0
		if err == nil && opt.DType == tensor.Float32 {
			// As a lone solve of the file reports it.
			info, serr := datasets.StatNPY(in.File)
			if err = serr; err == nil && !info.Exact32 {
				rounding = Float32Rounding
			}
		}
		if err != nil {
			skip(in, err)
			continue
		}
		if a == nil {
			a = tensor.New(tensor.Of(t.Dtype()), tensor.WithShape(len(grp.Members), m, n))
		}
		CopyGame(a, len(own), t, 0)
		own = append(own, in)
		s.Index = append(s.Index, in.Index)
		s.Rounding = append(s.Rounding, rounding)
	}
	if a == nil {
		return nil, nil
	}
	count := len(own)
	if count < len(grp.Members) {
		if a.Dtype() == tensor.Float64 {
			a = tensor.New(tensor.WithShape(count, m, n), tensor.WithBacking(a.Float64s()[:count*m*n]))
		} else {
			a = tensor.New(tensor.WithShape(count, m, n), tensor.WithBacking(a.Float32s()[:count*m*n]))
		}
	}
	s.A, s.Load = a, time.Since(t0)/time.Duration(count)
	return s, own
}
