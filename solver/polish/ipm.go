package polish

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// ipWork is the work space of the interior-point fallback.
type ipWork struct {
	p, t                []float64 // scaled payoff (kk×ll) and its column-scaled copy
	g                   []float64 // normal matrix (kk×kk)
	z, u, w, s          []float64
	dz, du, dw, ds      []float64
	az, au, aw, as      []float64 // affine (predictor) directions
	rp, rd, rzu, rws, h []float64
	d                   []float64
	x, y                []float64 // the iterate's strategies for the original game
}

// interior solves the k×l game a by a primal-dual interior point method and
// writes the strategies of its best iterate into x and y. It solves the
// game's LP in the classic form: with P = (B − min B)/range + 1 ≥ 1 (the
// game's value becomes positive), maximize 1ᵀz subject to Pz ≤ 1, z ≥ 0;
// the dual is minimize 1ᵀw subject to Pᵀw ≥ 1, w ≥ 0, and y = z/1ᵀz,
// x = w/1ᵀw. The normal equations have the size of the smaller player, so a
// game with more rows than columns is solved as its transpose −Bᵀ. Each
// iteration forms P·diag(z/u)·Pᵀ once (the cost: kk²·ll flops) and solves
// it twice (Mehrotra's predictor and corrector). It reports whether the
// best iterate's gap is within tol; where it is not, the method broke
// down (a normal matrix not numerically positive definite), stalled for
// five iterations or was canceled, and a run to a smaller tol would
// repeat the same iterates to the same end.
func (sw *subWork) interior(x, y []float64, b *matB, tol float64) (reached bool) {
	k, l := b.k, b.l
	ip := &sw.ip
	kk, ll, trans := k, l, false
	if k > l {
		kk, ll, trans = l, k, true
	}
	ip.p = grow(ip.p, kk*ll)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range k {
		for j := range l {
			v := b.at(i, j)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	rng := hi - lo
	if rng == 0 {
		rng = 1
	}
	for i := range k {
		for j := range l {
			if trans {
				// −Bᵀ, shifted: (−b − (−hi))/rng + 1.
				ip.p[j*ll+i] = (hi-b.at(i, j))/rng + 1
			} else {
				ip.p[i*ll+j] = (b.at(i, j)-lo)/rng + 1
			}
		}
	}
	vecs := []*[]float64{&ip.w, &ip.s, &ip.dw, &ip.ds, &ip.aw, &ip.as, &ip.rp, &ip.rws}
	for _, v := range vecs {
		*v = grow(*v, kk)
	}
	vecs = []*[]float64{&ip.z, &ip.u, &ip.dz, &ip.du, &ip.az, &ip.au, &ip.rd, &ip.rzu, &ip.d, &ip.h}
	for _, v := range vecs {
		*v = grow(*v, ll)
	}
	ip.x, ip.y = grow(ip.x, k), grow(ip.y, l)
	ip.t = grow(ip.t, kk*ll)
	ip.g = grow(ip.g, kk*kk)
	fill(ip.z, 1)
	fill(ip.u, 1)
	fill(ip.w, 1)
	fill(ip.s, 1)
	best := math.Inf(1)
	stall := 0
	for range 100 {
		// The iterate's strategies, certified on the original game.
		px, py := ip.w, ip.z // the LP's row and column players
		if trans {
			px, py = ip.z, ip.w
		}
		copy(ip.x, px)
		copy(ip.y, py)
		normalize(ip.x)
		normalize(ip.y)
		if g := sw.gapOf(b, ip.x, ip.y); g < best {
			best, stall = g, 0
			copy(x, ip.x)
			copy(y, ip.y)
		} else {
			stall++
		}
		if best <= tol || stall >= 5 || sw.canceled() {
			break
		}
		// Residuals and the centering target.
		fill(ip.rp, 1)
		P := blas64.General{Rows: kk, Cols: ll, Stride: ll, Data: ip.p}
		blas64.Gemv(blas.NoTrans, -1, P, vec(ip.z), 1, vec(ip.rp))
		for i := range ip.rp {
			ip.rp[i] -= ip.s[i]
		}
		fill(ip.rd, 1)
		blas64.Gemv(blas.Trans, -1, P, vec(ip.w), 1, vec(ip.rd))
		for j := range ip.rd {
			ip.rd[j] += ip.u[j]
		}
		mu := (blas64.Dot(vec(ip.z), vec(ip.u)) + blas64.Dot(vec(ip.w), vec(ip.s))) / float64(kk+ll)
		// Normal matrix G = P diag(z/u) Pᵀ + diag(s/w).
		for j := range ip.d {
			ip.d[j] = ip.z[j] / ip.u[j]
		}
		for i := range kk {
			src, dst := ip.p[i*ll:(i+1)*ll], ip.t[i*ll:(i+1)*ll]
			for j, v := range src {
				dst[j] = v * math.Sqrt(ip.d[j])
			}
		}
		T := blas64.General{Rows: kk, Cols: ll, Stride: ll, Data: ip.t}
		G := blas64.Symmetric{N: kk, Stride: kk, Data: ip.g, Uplo: blas.Upper}
		blas64.Syrk(blas.NoTrans, 1, T, 0, G)
		for i := range kk {
			ip.g[i*kk+i] += ip.s[i]/ip.w[i] + 1e-14*ip.g[i*kk+i]
		}
		if !sw.eq.impl.Dpotrf(blas.Upper, kk, ip.g, kk) {
			break
		}
		// Predictor.
		for j := range ip.rzu {
			ip.rzu[j] = -ip.z[j] * ip.u[j]
		}
		for i := range ip.rws {
			ip.rws[i] = -ip.w[i] * ip.s[i]
		}
		ip.direction(ip.az, ip.au, ip.aw, ip.as)
		ap := math.Min(1, math.Min(stepTo(ip.z, ip.az), stepTo(ip.s, ip.as)))
		ad := math.Min(1, math.Min(stepTo(ip.w, ip.aw), stepTo(ip.u, ip.au)))
		muAff := 0.0
		for j := range ip.z {
			muAff += (ip.z[j] + ap*ip.az[j]) * (ip.u[j] + ad*ip.au[j])
		}
		for i := range ip.w {
			muAff += (ip.w[i] + ad*ip.aw[i]) * (ip.s[i] + ap*ip.as[i])
		}
		muAff /= float64(kk + ll)
		sigma := math.Pow(muAff/mu, 3)
		// Corrector.
		for j := range ip.rzu {
			ip.rzu[j] = sigma*mu - ip.z[j]*ip.u[j] - ip.az[j]*ip.au[j]
		}
		for i := range ip.rws {
			ip.rws[i] = sigma*mu - ip.w[i]*ip.s[i] - ip.aw[i]*ip.as[i]
		}
		ip.direction(ip.dz, ip.du, ip.dw, ip.ds)
		eta := math.Max(0.9, 1-10*mu)
		ap = math.Min(1, eta*math.Min(stepTo(ip.z, ip.dz), stepTo(ip.s, ip.ds)))
		ad = math.Min(1, eta*math.Min(stepTo(ip.w, ip.dw), stepTo(ip.u, ip.du)))
		for j := range ip.z {
			ip.z[j] += ap * ip.dz[j]
			ip.u[j] += ad * ip.du[j]
		}
		for i := range ip.w {
			ip.w[i] += ad * ip.dw[i]
			ip.s[i] += ap * ip.ds[i]
		}
	}
	return best <= tol
}

// direction solves the Newton system for the residuals in ip.rp, ip.rd,
// ip.rzu, ip.rws with the Cholesky factor in ip.g, into dz, du, dw, ds:
//
//	(P D Pᵀ + S/W) dw = P D (rd + rzu/z) + rws/w − rp,   D = z/u,
//	dz = D (rd + rzu/z − Pᵀdw),  du = (rzu − u dz)/z,  ds = (rws − s dw)/w.
func (ip *ipWork) direction(dz, du, dw, ds []float64) {
	kk, ll := len(ip.w), len(ip.z)
	P := blas64.General{Rows: kk, Cols: ll, Stride: ll, Data: ip.p}
	for j := range dz {
		dz[j] = ip.d[j] * (ip.rd[j] + ip.rzu[j]/ip.z[j])
	}
	blas64.Gemv(blas.NoTrans, 1, P, vec(dz), 0, vec(dw))
	for i := range dw {
		dw[i] += ip.rws[i]/ip.w[i] - ip.rp[i]
	}
	C := blas64.Triangular{N: kk, Stride: kk, Data: ip.g, Uplo: blas.Upper, Diag: blas.NonUnit}
	blas64.Trsv(blas.Trans, C, vec(dw))
	blas64.Trsv(blas.NoTrans, C, vec(dw))
	copy(ip.h, ip.rd)
	blas64.Gemv(blas.Trans, -1, P, vec(dw), 1, vec(ip.h))
	for j := range dz {
		dz[j] = ip.d[j] * (ip.h[j] + ip.rzu[j]/ip.z[j])
		du[j] = (ip.rzu[j] - ip.u[j]*dz[j]) / ip.z[j]
	}
	for i := range ds {
		ds[i] = (ip.rws[i] - ip.s[i]*dw[i]) / ip.w[i]
	}
}

// stepTo returns the largest step α with v + α·d ≥ 0 (+Inf if d ≥ 0).
func stepTo(v, d []float64) float64 {
	a := math.Inf(1)
	for i, di := range d {
		if di < 0 {
			a = math.Min(a, -v[i]/di)
		}
	}
	return a
}

func fill(x []float64, v float64) {
	for i := range x {
		x[i] = v
	}
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }
