package backendtest

import (
	"math"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/tensorops"
)

// setMatrix checks that SetMatrix refuses a tensor of another shape and one
// of the other storage type, then replaces the matrix's entries with fresh
// ones and checks the operator against the new reference. The checks after
// it run on the new entries.
func (st *selfTest) setMatrix() error {
	var e errAccum
	other := tensor.New(tensor.WithShape(st.m, st.n), tensor.WithBacking(make([]float64, st.m*st.n)))
	if !st.f32 {
		other = tensor.New(tensor.WithShape(st.m, st.n), tensor.WithBacking(make([]float32, st.m*st.n)))
	}
	wide := tensor.New(tensor.WithShape(st.m, st.n+1), tensor.WithBacking(make([]float64, st.m*(st.n+1))))
	for _, t := range []*tensor.Dense{other, wide, nil} {
		if st.b.SetMatrix(st.mat, t) == nil {
			e.max = math.Inf(1)
		}
	}
	if err := st.b.SetMatrix(st.mat, st.drawMatrix()); err != nil {
		return err
	}
	return st.operatorCheck("SetMatrix", e)
}

// transpose checks Transpose: its shape and storage type, and Operator on
// Aᵀ at (q, p), which gives −Aᵀp and A q.
func (st *selfTest) transpose() error {
	at, err := st.b.Transpose(st.mat)
	if err != nil {
		return err
	}
	st.owned = append(st.owned, at)
	st.at = at
	var e errAccum
	if m, n := at.Dims(); m != st.n || n != st.m || at.Precision() != st.mat.Precision() {
		e.max = math.Inf(1)
	}
	return st.matCheck("Transpose", reductionTol(max(st.m, st.n)), e,
		func(fp, fq, p, q tensorops.Vector) { st.b.Operator(fq, fp, at, q, p) }, st.aq, negated(st.atp))
}
