package backendtest

import (
	"math"
	"slices"

	"github.com/gpump/gpump/tensorops"
)

// exactCheck records, for wild data of both lengths placed on the backend,
// the bits of the vector move returns against the data.
func (st *selfTest) exactCheck(op string, move func(src tensorops.Vector) (tensorops.Vector, error)) error {
	var e errAccum
	for _, n := range st.lens() {
		data := st.wild(n)
		src, err := st.vec(data)
		if err != nil {
			return err
		}
		dst, err := move(src)
		if err != nil {
			return err
		}
		if err := st.checkBits(&e, dst, data); err != nil {
			return err
		}
	}
	st.record(op, ExactTol, e)
	return nil
}

func (st *selfTest) loadStore() error {
	return st.exactCheck("Load/Store", func(v tensorops.Vector) (tensorops.Vector, error) { return v, nil })
}

func (st *selfTest) copy() error {
	return st.exactCheck("Copy", func(src tensorops.Vector) (tensorops.Vector, error) {
		dst, err := st.nanVec(src.Len())
		if err != nil {
			return nil, err
		}
		st.b.Copy(dst, src)
		return dst, nil
	})
}

// refAxpby returns alpha x + beta y and the per-element scales |αx| + |βy|.
func refAxpby(alpha float64, x []float64, beta float64, y []float64) (want, scale []float64) {
	want, scale = make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		want[i] = alpha*x[i] + beta*y[i]
		scale[i] = math.Abs(alpha*x[i]) + math.Abs(beta*y[i])
	}
	return want, scale
}

// axpby checks dst = αx + βy into a fresh vector, then into x and into y
// (the contract lets dst alias either).
func (st *selfTest) axpby() error {
	var e errAccum
	for _, n := range st.lens() {
		xs, ys := st.uniform(n, -3, 3), st.uniform(n, -1, 1)
		vs, err := st.vecs(xs, ys, nans(n))
		if err != nil {
			return err
		}
		x, y, dst := vs[0], vs[1], vs[2]
		for _, alias := range []int{0, 1, 2} {
			alpha, beta := 4*st.rng.Float64()-2, 4*st.rng.Float64()-2
			want, scale := refAxpby(alpha, xs, beta, ys)
			d := dst
			switch alias {
			case 1:
				d = x
			case 2:
				d = y
			}
			st.b.Axpby(d, alpha, x, beta, y)
			got, err := st.store(d)
			if err != nil {
				return err
			}
			e.addVec(got, want, scale)
			// Continue from what the backend computed, so that one error is
			// not counted again by the next call.
			switch alias {
			case 1:
				xs = got
			case 2:
				ys = got
			}
		}
	}
	st.record("Axpby", ElementwiseTol, e)
	return nil
}

// refMulVec returns A q and the per-row scales Σ_j |A_ij q_j|.
func refMulVec(a []float64, m, n int, q []float64) (aq, scale []float64) {
	aq, scale = make([]float64, m), make([]float64, m)
	for i := range m {
		var s, abs float64
		for j := range n {
			t := a[i*n+j] * q[j]
			s += t
			abs += math.Abs(t)
		}
		aq[i], scale[i] = s, abs
	}
	return aq, scale
}

// refMulTVec returns Aᵀ p and the per-column scales Σ_i |A_ij p_i|.
func refMulTVec(a []float64, m, n int, p []float64) (atp, scale []float64) {
	atp, scale = make([]float64, n), make([]float64, n)
	for i := range m {
		for j := range n {
			t := a[i*n+j] * p[i]
			atp[j] += t
			scale[j] += math.Abs(t)
		}
	}
	return atp, scale
}

// matRef computes a reference output of a matrix operation, with its
// scales, from the host copies of p and q.
type matRef func(p, q []float64) (want, scale []float64)

// aq and atp are the references A q and Aᵀ p.
func (st *selfTest) aq(_, q []float64) (want, scale []float64) {
	return refMulVec(st.a, st.m, st.n, q)
}

func (st *selfTest) atp(p, _ []float64) (want, scale []float64) {
	return refMulTVec(st.a, st.m, st.n, p)
}

// matCheck checks one matrix operation: run gets fresh signed p (length m)
// and q (length n) and NaN-filled outputs fp (length m) and fq (length n);
// fp is recorded against refP and fq against refQ, where a nil reference
// leaves out an output the operation does not write. e holds what the
// caller already found wrong.
func (st *selfTest) matCheck(op string, tol float64, e errAccum, run func(fp, fq, p, q tensorops.Vector), refP, refQ matRef) error {
	ph, qh := st.uniform(st.m, -1, 1), st.uniform(st.n, -1, 1)
	vs, err := st.vecs(ph, qh, nans(st.m), nans(st.n))
	if err != nil {
		return err
	}
	p, q, fp, fq := vs[0], vs[1], vs[2], vs[3]
	run(fp, fq, p, q)
	for _, out := range [2]struct {
		v   tensorops.Vector
		ref matRef
	}{{fp, refP}, {fq, refQ}} {
		if out.ref == nil {
			continue
		}
		want, scale := out.ref(ph, qh)
		if err := st.check(&e, out.v, want, scale); err != nil {
			return err
		}
	}
	st.record(op, tol, e)
	return nil
}

// negated returns the reference −ref.
func negated(ref matRef) matRef {
	return func(p, q []float64) (want, scale []float64) {
		want, scale = ref(p, q)
		for i := range want {
			want[i] = -want[i]
		}
		return want, scale
	}
}

func (st *selfTest) operator() error {
	return st.operatorCheck("Operator", errAccum{})
}

// operatorCheck checks Operator on the current matrix under the name op.
func (st *selfTest) operatorCheck(op string, e errAccum) error {
	return st.matCheck(op, reductionTol(max(st.m, st.n)), e,
		func(fp, fq, p, q tensorops.Vector) { st.b.Operator(fp, fq, st.mat, p, q) }, negated(st.aq), st.atp)
}

func (st *selfTest) mulVec() error {
	return st.matCheck("MulVec", reductionTol(st.n), errAccum{},
		func(fp, _, _, q tensorops.Vector) { st.b.MulVec(fp, st.mat, q) }, st.aq, nil)
}

func (st *selfTest) mulTVec() error {
	return st.matCheck("MulTVec", reductionTol(st.m), errAccum{},
		func(_, fq, p, _ tensorops.Vector) { st.b.MulTVec(fq, st.mat, p) }, nil, st.atp)
}

// refRegretMatch performs one RM+ or PRM+ update on host copies and returns
// the new x and r with their scales (per element for r, one for x).
func refRegretMatch(x, r, u []float64, sign, tiny float64, predictive bool) (nx, nr, sr []float64, sx float64) {
	n := len(x)
	var v, sv float64
	for i := range n {
		v += x[i] * u[i]
		sv += math.Abs(x[i] * u[i])
	}
	v *= sign
	nr, sr = make([]float64, n), make([]float64, n)
	num := make([]float64, n)
	var sum, smax float64
	for i := range n {
		rho := sign*u[i] - v
		nr[i] = max(r[i]+rho, 0)
		sr[i] = math.Abs(r[i]) + math.Abs(u[i]) + sv
		num[i] = nr[i]
		if predictive {
			num[i] = max(nr[i]+rho, 0)
			sr[i] *= 2
		}
		sum += num[i]
		smax = max(smax, sr[i])
	}
	nx = slices.Clone(x)
	if !(sum > tiny) {
		return nx, nr, sr, 1
	}
	var xmax float64
	for i := range n {
		nx[i] = num[i] / sum
		xmax = max(xmax, nx[i])
	}
	return nx, nr, sr, xmax + smax/sum
}

// regretMatch checks RM+ and PRM+ with both signs (the row player with
// sign +1, the column player with −1, as the baselines call it), each once
// with a threshold the regrets clear and once with one they cannot, where
// x must stay exactly as it was.
func (st *selfTest) regretMatch() error {
	tol := reductionTol(max(st.m, st.n))
	for _, pred := range []bool{false, true} {
		var e errAccum
		for k, n := range st.lens() {
			sign := float64(1 - 2*k)
			for _, tiny := range []float64{1e-300, math.MaxFloat64} {
				xh := st.simplex(n, 0.2)
				rh := st.uniform(n, -0.2, 1)
				for i := range rh {
					rh[i] = max(rh[i], 0)
				}
				uh := st.uniform(n, -2, 2)
				vs, err := st.vecs(xh, rh, uh)
				if err != nil {
					return err
				}
				x, r, u := vs[0], vs[1], vs[2]
				st.b.RegretMatch(x, r, u, sign, tiny, pred)
				wx, wr, sr, sx := refRegretMatch(xh, rh, uh, sign, tiny, pred)
				if tiny == math.MaxFloat64 {
					err = st.checkBits(&e, x, wx)
				} else {
					err = st.check(&e, x, wx, []float64{sx})
				}
				if err != nil {
					return err
				}
				if err := st.check(&e, r, wr, sr); err != nil {
					return err
				}
			}
		}
		name := "RegretMatch/rm+"
		if pred {
			name = "RegretMatch/prm+"
		}
		st.record(name, tol, e)
	}
	return nil
}
