// Runs the kernels of gpump.cu under the CPU emulator and compares them with
// ports of the CPU backend (tensorops/cpu.go, simplex.go; solver/geometry.go
// for the box and the ball). Driven by kernels_test.go (TestEmulatedKernels),
// which computes the launch shapes with package kernels and writes one case
// per line on stdin:
//
//   op M N DTYPE TILESPERSLICE GX ROWSPERBLOCK GY GRID FINISHGRID FULL TRANSPOSEGRID
//   vec N CHUNKLEN GRID ELEMGRID
//   sample M N DTYPE CHUNKLENQ CHUNKLENP B SCANGRID DRAWGRID ROWSGRIDN ROWSGRIDM COLSGRID
//   batch B M N DTYPE GRID ELEMGRID COUNT GAME...
//   payoff NETS ROWS IN OUT LAYERGRID K J B REDUCEGRID
//
// (a payoff case runs gpump_payoff_layer on NETS networks' ROWS×IN →
// OUT layers, with and without tanh, shared and per-network inputs, and
// gpump_payoff_reduce on a K×J matrix of batches of B, both losses.)
// (a batch case runs the batched pass over A in DTYPE and, for f64, every
// other batched kernel on block length N, for the selected GAMEs).
// (FULL 0 runs only the fused kernel, for the costly shapes.) Each check
// prints "PASS name" or "FAIL name: detail"; the last line is
// "N passed, N failed". Exit status 1 if anything failed.
#include "cuda_emu.h"

#include "../../gpump.cu"

#include <algorithm>
#include <random>
#include <string>

static int passed, failed;

static void report(bool ok, const std::string &name, const char *fmt = "", double a = 0, double b = 0)
{
	if (ok) {
		passed++;
		printf("PASS %s\n", name.c_str());
	} else {
		failed++;
		printf("FAIL %s: ", name.c_str());
		printf(fmt, a, b);
		printf("\n");
	}
}

typedef std::vector<double> vec;

static bool same_bits(const vec &a, const vec &b)
{
	return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// relerr returns max_i |a_i - b_i| / (scale_i) with scale_i = max(|b_i|, floor).
static double maxerr(const vec &got, const vec &want, double floor)
{
	double e = 0;
	for (size_t i = 0; i < got.size(); i++) {
		const double d = fabs(got[i] - want[i]) / std::max(fabs(want[i]), floor);
		if (!(d <= e))
			e = d; // NaN counts as a failure
	}
	return e;
}

static std::mt19937_64 rng(1);

static vec uniform(i64 n, double lo, double hi)
{
	std::uniform_real_distribution<double> u(lo, hi);
	vec v(n);
	for (auto &x : v)
		x = u(rng);
	return v;
}

static vec simplex_point(i64 n)
{
	vec v = uniform(n, 0.01, 1);
	double s = 0;
	for (double x : v)
		s += x;
	for (auto &x : v)
		x /= s;
	return v;
}

// ---------------------------------------------------------------- op

// transpose_case checks gpump_transpose_* against the definition, with the
// grid of kernels.Transpose and a smaller one (bit for bit: a copy).
template <typename T>
static void transpose_case(const std::vector<T> &A, i64 m, i64 n, unsigned tgrid, const char *name)
{
	std::vector<T> want(m * n);
	for (i64 i = 0; i < m; i++)
		for (i64 j = 0; j < n; j++)
			want[j * m + i] = A[i * n + j];
	for (unsigned g : {tgrid, 1 + tgrid / 3}) {
		std::vector<T> got(m * n, (T)NAN);
		launch(g, GP_THREADS, [&] {
			if (sizeof(T) == 4)
				gpump_transpose_f32((float *)got.data(), (const float *)A.data(), m, n);
			else
				gpump_transpose_f64((double *)got.data(), (const double *)A.data(), m, n);
		});
		char nm[200];
		snprintf(nm, sizeof nm, "%s transpose grid %u", name, g);
		report(memcmp(got.data(), want.data(), m * n * sizeof(T)) == 0, nm);
	}
}

template <typename T>
static void op_case(i64 m, i64 n, i64 tps, i64 gx, i64 rpb, i64 gy, unsigned grid, unsigned fgrid, const char *dt, bool full, unsigned tgrid)
{
	std::vector<T> A(m * n);
	for (auto &a : A)
		a = (T)std::uniform_real_distribution<double>(-1, 1)(rng);
	vec p = simplex_point(m), q = simplex_point(n);
	// Reference: plain double loops (long double accumulation).
	vec aq(m), atp(n), scaleR(m), scaleC(n);
	{
		std::vector<long double> acc(n, 0), sc(n, 0);
		for (i64 i = 0; i < m; i++) {
			long double s = 0, ss = 0;
			for (i64 j = 0; j < n; j++) {
				const long double a = (double)A[i * n + j];
				s += a * q[j];
				ss += fabsl(a * q[j]);
				acc[j] += p[i] * a;
				sc[j] += fabsl(p[i] * a);
			}
			aq[i] = (double)s;
			scaleR[i] = (double)ss;
		}
		for (i64 j = 0; j < n; j++) {
			atp[j] = (double)acc[j];
			scaleC[j] = (double)sc[j];
		}
	}
	char name[160];
	snprintf(name, sizeof name, "op %lldx%lld %s", m, n, dt);
	auto run = [&](int kind, unsigned g, unsigned fg, vec &fp, vec &fq) {
		vec rowP(gx * m, NAN), colP(gy * n, NAN);
		fp.assign(m, NAN);
		fq.assign(n, NAN);
		const T *a = A.data();
		double *rp = kind != 2 ? rowP.data() : nullptr, *cp = kind != 1 ? colP.data() : nullptr;
		const double *pp = kind != 1 ? p.data() : nullptr, *qp = kind != 2 ? q.data() : nullptr;
		launch(g, GP_THREADS, [&] {
			if (sizeof(T) == 4) {
				const float *af = (const float *)a;
				if (kind == 0)
					gpump_op_fused_f32(af, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
				else if (kind == 1)
					gpump_op_mulvec_f32(af, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
				else
					gpump_op_multvec_f32(af, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
			} else {
				const double *ad = (const double *)a;
				if (kind == 0)
					gpump_op_fused_f64(ad, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
				else if (kind == 1)
					gpump_op_mulvec_f64(ad, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
				else
					gpump_op_multvec_f64(ad, m, n, pp, qp, rp, cp, rpb, tps, gx, gy);
			}
		});
		const double sign = kind == 0 ? -1.0 : 1.0;
		double *fpp = kind != 2 ? fp.data() : nullptr, *fqp = kind != 1 ? fq.data() : nullptr;
		launch(fg, GP_THREADS, [&] { gpump_op_finish(fpp, rowP.data(), gx, m, sign, fqp, colP.data(), gy, n); });
	};
	auto err = [&](const vec &got, const vec &want, const vec &scale, double sign) {
		double e = 0;
		for (size_t i = 0; i < got.size(); i++) {
			const double d = fabs(got[i] - sign * want[i]) / (scale[i] + 1e-300);
			if (!(d <= e))
				e = d;
		}
		return e;
	};
	const double tol = 1e-14 * (1 + log2((double)std::max(m, n)));
	vec fp, fq, fp2, fq2, mv, dummy, mtv;
	run(0, grid, fgrid, fp, fq);
	const double e1 = err(fp, aq, scaleR, -1), e2 = err(fq, atp, scaleC, 1);
	report(e1 < tol && e2 < tol, std::string(name) + " fused", "rel err fp %.3g fq %.3g", e1, e2);
	if (!full)
		return;
	transpose_case(A, m, n, tgrid, name);
	// The grid changes nothing, bit for bit.
	run(0, 1 + grid / 3, 1, fp2, fq2);
	report(same_bits(fp, fp2) && same_bits(fq, fq2), std::string(name) + " fused grid-independent", "");
	run(1, grid, fgrid, mv, dummy);
	bool untouched = true; // fq = 0: gpump_op_finish must not write it
	for (double v : dummy)
		untouched = untouched && std::isnan(v);
	report(untouched, std::string(name) + " mulvec leaves fq alone", "");
	vec neg(m);
	for (i64 i = 0; i < m; i++)
		neg[i] = -fp[i];
	report(same_bits(mv, neg), std::string(name) + " mulvec = -fused row part", "max err %.3g", err(mv, aq, scaleR, 1));
	run(2, grid, fgrid, dummy, mtv);
	report(same_bits(mtv, fq), std::string(name) + " multvec = fused column part", "max err %.3g", err(mtv, atp, scaleC, 1));
}

// ---------------------------------------------------------------- references

static void ref_logprox(vec &dstLog, vec &dstProb, const vec &c, const vec &g, double eta)
{
	const size_t n = c.size();
	double mx = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		dstLog[i] = c[i] - eta * g[i];
		mx = std::max(mx, dstLog[i]);
	}
	double s = 0;
	for (size_t i = 0; i < n; i++) {
		dstProb[i] = exp(dstLog[i] - mx);
		s += dstProb[i];
	}
	const double lse = mx + log(s), inv = 1 / s;
	for (size_t i = 0; i < n; i++) {
		dstLog[i] -= lse;
		dstProb[i] = dstLog[i] < GP_MIN_LOG_PROB ? 0 : dstProb[i] * inv;
	}
}

static void sum_above(const vec &v, double tau, double &sum, i64 &cnt)
{
	sum = 0;
	cnt = 0;
	for (double x : v)
		if (x > tau) {
			sum += x;
			cnt++;
		}
}

static void ref_simplex(vec &dst, const vec &v)
{
	const i64 n = v.size();
	double s = 0;
	for (double x : v)
		s += x;
	double tau = (s - 1) / n;
	i64 k = n;
	for (int round = 0;; round++) {
		double sum;
		i64 cnt;
		sum_above(v, tau, sum, cnt);
		if (cnt == k || cnt == 0)
			break;
		k = cnt;
		const double next = (sum - 1) / cnt;
		if (next <= tau)
			break;
		tau = next;
		if (round == 64) {
			double lo = tau, hi = -INFINITY;
			for (double x : v)
				hi = std::max(hi, x);
			for (int it = 0; it < 200; it++) {
				const double mid = lo + (hi - lo) / 2;
				if (mid <= lo || mid >= hi)
					break;
				double e = 0;
				for (double x : v)
					if (x > mid)
						e += x - mid;
				if (e > 1)
					lo = mid;
				else
					hi = mid;
			}
			sum_above(v, lo, sum, cnt);
			tau = (sum - 1) / cnt;
			break;
		}
	}
	for (i64 i = 0; i < n; i++)
		dst[i] = std::max(v[i] - tau, 0.0);
}

// ---------------------------------------------------------------- vector cases

struct VShape {
	i64 n, chunkLen;
	unsigned grid, egrid;
	i64 chunks() const { return (n + chunkLen - 1) / chunkLen; }
};

static std::string vname(const char *what, const VShape &s)
{
	char b[128];
	snprintf(b, sizeof b, "%s n=%lld", what, s.n);
	return b;
}

static void vec_elementwise(const VShape &s)
{
	const i64 n = s.n;
	vec d(n, NAN);
	launch(s.egrid, GP_THREADS, [&] { gpump_fill(d.data(), 0.25, n); });
	report(same_bits(d, vec(n, 0.25)), vname("fill", s));
	vec x = uniform(n, -1, 1), y = uniform(n, -1, 1), want(n);
	for (i64 i = 0; i < n; i++)
		want[i] = 2 * x[i] - 0.5 * y[i];
	launch(s.egrid, GP_THREADS, [&] { gpump_axpby(x.data(), 2, x.data(), -0.5, y.data(), n); });
	report(maxerr(x, want, 1e-300) < 1e-15, vname("axpby aliased", s), "err %.3g", maxerr(x, want, 1e-300));
	vec c = uniform(n, -2, 2), g = uniform(n, -2, 2), lo = uniform(n, -1, 0), hi = uniform(n, 0, 1), box(n);
	for (i64 i = 0; i < n; i++)
		want[i] = std::min(std::max(c[i] - 0.7 * g[i], lo[i]), hi[i]);
	launch(s.egrid, GP_THREADS, [&] { gpump_box_prox(box.data(), c.data(), g.data(), 0.7, lo.data(), hi.data(), n); });
	report(maxerr(box, want, 1e-300) < 1e-15, vname("box prox", s), "err %.3g", maxerr(box, want, 1e-300));
	// c alone (g null), and the start point clip(0, lo, hi) (c null), with
	// bounds that exclude 0 on some coordinates.
	for (i64 i = 0; i < n; i++) {
		if (i % 3 == 1)
			lo[i] = hi[i] = 0.5;
		want[i] = std::min(std::max(c[i], lo[i]), hi[i]);
	}
	launch(s.egrid, GP_THREADS, [&] { gpump_box_prox(box.data(), c.data(), nullptr, 0.7, lo.data(), hi.data(), n); });
	report(same_bits(box, want), vname("box prox null g", s));
	for (i64 i = 0; i < n; i++)
		want[i] = std::min(std::max(0.0, lo[i]), hi[i]);
	launch(s.egrid, GP_THREADS, [&] { gpump_box_prox(box.data(), nullptr, nullptr, 0, lo.data(), hi.data(), n); });
	report(maxerr(box, want, 1e-300) == 0, vname("box start", s));
}

static void vec_logprox(const VShape &s)
{
	const i64 n = s.n;
	vec partial(2 * s.chunks());
	for (int variant = 0; variant < 3; variant++) {
		vec c(n), g;
		if (variant == 0) {
			vec pr = simplex_point(n);
			for (i64 i = 0; i < n; i++)
				c[i] = log(pr[i]);
			g = uniform(n, -1, 1);
		} else {
			// Huge spreads: most probabilities underflow below 1e-300.
			c = uniform(n, -2000, 0);
			g = uniform(n, -50, 50);
		}
		const double eta = variant == 2 ? 30.0 : 0.3;
		vec wl(n), wp(n), dl(n, NAN), dp(n, NAN);
		ref_logprox(wl, wp, c, g, eta);
		auto run = [&](unsigned grid, vec &l, vec &pr, bool alias) {
			vec cc = c, gg = g;
			double *dst = alias ? cc.data() : l.data();
			double *prob = alias ? gg.data() : pr.data();
			launch(grid, GP_THREADS, [&] { gpump_logprox_partial(partial.data(), dst, cc.data(), gg.data(), eta, n, s.chunkLen); });
			launch(grid, GP_THREADS, [&] { gpump_logprox_finish(dst, prob, partial.data(), n, s.chunkLen); });
			if (alias) {
				l = cc;
				pr = gg;
			}
		};
		run(s.grid, dl, dp, false);
		double el = 0, ep = 0;
		for (i64 i = 0; i < n; i++) {
			el = std::max(el, fabs(dl[i] - wl[i]) / std::max(1.0, fabs(wl[i])));
			if ((dp[i] == 0) != (wp[i] == 0) && std::max(dp[i], wp[i]) > 1e-290)
				ep = INFINITY;
			else if (wp[i] > 0)
				ep = std::max(ep, fabs(dp[i] - wp[i]) / wp[i]);
		}
		char nm[64];
		snprintf(nm, sizeof nm, "logprox v%d", variant);
		report(el < 1e-13 && ep < 1e-12, vname(nm, s), "log err %.3g prob err %.3g", el, ep);
		vec dl2(n), dp2(n);
		run(1, dl2, dp2, true);
		report(same_bits(dl, dl2) && same_bits(dp, dp2), vname(nm, s) + " aliased, grid 1 bitwise");
	}
}

static void vec_simplex(const VShape &s)
{
	const i64 n = s.n;
	for (int variant = 0; variant < 4; variant++) {
		vec c, g;
		switch (variant) {
		case 0:
			c = simplex_point(n);
			g = uniform(n, -1, 1);
			break;
		case 1:
			c = uniform(n, -5, 5);
			g = vec(n, 0);
			break;
		case 2:
			c = vec(n, 1.0 / n);
			g = vec(n, 0.0);
			break;
		default: // one dominant coordinate
			c = uniform(n, 0, 1e-3);
			c[n / 2] = 3;
			g = uniform(n, -1, 1);
		}
		const double eta = 0.9;
		vec v(n), want(n), got(n, NAN);
		for (i64 i = 0; i < n; i++)
			v[i] = c[i] - eta * g[i];
		ref_simplex(want, v);
		launch(1, GP_SIMPLEX_THREADS, [&] { gpump_simplex_prox(got.data(), c.data(), g.data(), eta, n); });
		double e = 0, sum = 0;
		for (i64 i = 0; i < n; i++) {
			e = std::max(e, fabs(got[i] - want[i]));
			sum += got[i];
		}
		char nm[64];
		snprintf(nm, sizeof nm, "simplex v%d", variant);
		report(e < 1e-14 && fabs(sum - 1) < 1e-12, vname(nm, s), "abs err %.3g |sum-1| %.3g", e, fabs(sum - 1));
		// g = 0 (null): projection of c itself; aliasing dst and c.
		vec cc = v, w2(n);
		ref_simplex(w2, v);
		launch(1, GP_SIMPLEX_THREADS, [&] { gpump_simplex_prox(cc.data(), cc.data(), nullptr, 0.0, n); });
		report(maxerr(cc, w2, 1) < 1e-14, vname(nm, s) + " null g aliased", "err %.3g", maxerr(cc, w2, 1));
	}
}

static void vec_ball(const VShape &s)
{
	const i64 n = s.n;
	vec partial(s.chunks());
	for (double radius : {1e-3, 1e6}) {
		vec c = uniform(n, -1, 1), g = uniform(n, -1, 1), o = uniform(n, -1, 1), want(n), got(n, NAN);
		double r2 = 0;
		for (i64 i = 0; i < n; i++) {
			want[i] = c[i] - 0.4 * g[i] - o[i];
			r2 += want[i] * want[i];
		}
		const double r = sqrt(r2), f = r > radius ? radius / r : 1;
		for (i64 i = 0; i < n; i++)
			want[i] = o[i] + f * want[i];
		launch(s.grid, GP_THREADS, [&] { gpump_ball_partial(partial.data(), got.data(), c.data(), g.data(), o.data(), 0.4, n, s.chunkLen); });
		launch(s.grid, GP_THREADS, [&] { gpump_ball_finish(got.data(), o.data(), partial.data(), radius, n, s.chunkLen); });
		report(maxerr(got, want, 1) < 1e-13, vname(radius < 1 ? "ball (projecting)" : "ball (inside)", s), "err %.3g", maxerr(got, want, 1));
	}
}

// A block's set for the references: the simplex (no vectors), a box (lo,
// hi) or a ball (o, radius), with the pointers the kernels take.
struct SetRef {
	const vec *lo = nullptr, *hi = nullptr, *o = nullptr;
	double radius = 0;
	long long mode() const { return lo ? 4 : o ? 8 : 0; }
	const double *plo() const { return lo ? lo->data() : nullptr; }
	const double *phi() const { return hi ? hi->data() : nullptr; }
	const double *po() const { return o ? o->data() : nullptr; }
};

// min over the set of <g, z> (tensorops GapStats.MinG).
static double ref_support(const SetRef &s, const vec &g)
{
	double r = s.lo || s.o ? 0 : INFINITY, r2 = 0;
	for (size_t i = 0; i < g.size(); i++) {
		if (s.lo)
			r += std::min(g[i] * (*s.lo)[i], g[i] * (*s.hi)[i]);
		else if (s.o) {
			r += g[i] * (*s.o)[i];
			r2 += g[i] * g[i];
		} else
			r = std::min(r, g[i]);
	}
	return s.o ? r - s.radius * sqrt(r2) : r;
}

static double dot(const vec *a, const vec &b)
{
	double s = 0;
	if (a)
		for (size_t i = 0; i < b.size(); i++)
			s += (*a)[i] * b[i];
	return s;
}

// Port of tensorops proxStats (cpu.go): out gets the 10 words of
// gpump_stats_finish.
static void ref_proxstats(double out[10], bool entropic, const SetRef &set, const vec *lin,
			  const vec &yv, const vec &xv, const vec &nv,
			  const vec &yl, const vec &xl, const vec &nl, const vec &m, const vec &g,
			  const vec &ax, const vec &ag, vec &nax, vec &nag, double w)
{
	const size_t n = xv.size();
	double divXY = 0, divYX = 0, distXY = 0, distXYNew = 0, dual = 0, inner = 0;
	for (size_t i = 0; i < n; i++) {
		if (entropic) {
			divXY += xv[i] * (xl[i] - yl[i]);
			divYX += nv[i] * (nl[i] - xl[i]);
			distXY += fabs(xv[i] - yv[i]);
			distXYNew += fabs(xv[i] - nv[i]);
			const double d = g[i] - m[i];
			dual = std::max(dual, fabs(d));
			inner += d * (xv[i] - nv[i]);
		} else {
			const double dy = xv[i] - yv[i], dn = xv[i] - nv[i], d = g[i] - m[i];
			distXY += dy * dy;
			distXYNew += dn * dn;
			dual += d * d;
			inner += d * dn;
		}
	}
	if (!entropic) {
		divXY = distXY / 2;
		divYX = distXYNew / 2;
		distXY = sqrt(distXY);
		distXYNew = sqrt(distXYNew);
		dual = sqrt(dual);
	}
	for (size_t i = 0; i < n; i++) {
		nax[i] = ax[i] + w * (xv[i] - ax[i]);
		nag[i] = ag[i] + w * (g[i] - ag[i]);
	}
	double r[10] = {ref_support(set, g), ref_support(set, nag), dot(lin, xv), dot(lin, nax),
			std::max(divXY, 0.0), std::max(divYX, 0.0), distXY, distXYNew, dual, inner};
	memcpy(out, r, sizeof r);
}

static void logs(const vec &p, vec &l)
{
	l.resize(p.size());
	for (size_t i = 0; i < p.size(); i++)
		l[i] = log(p[i]);
}

// maxrel returns the largest |got - want| / max(|want|, 1e-12) over k words.
static double maxrel(const double *got, const double *want, int k)
{
	double e = 0;
	for (int i = 0; i < k; i++) {
		const double d = fabs(got[i] - want[i]) / std::max(fabs(want[i]), 1e-12);
		if (!(d <= e))
			e = d;
	}
	return e;
}

static void vec_stats(const VShape &s)
{
	const i64 n = s.n;
	const double w = 0.37;
	// Box bounds with some lo = hi and some bounds excluding 0; a ball.
	vec lo = uniform(n, -1, 0.2), hi = uniform(n, -0.2, 1), o = uniform(n, -1, 1), lin = uniform(n, -1, 1);
	for (i64 i = 0; i < n; i++) {
		if (lo[i] > hi[i])
			std::swap(lo[i], hi[i]);
		if (i % 5 == 0)
			hi[i] = lo[i];
	}
	SetRef simplex, box, ball;
	box.lo = &lo;
	box.hi = &hi;
	ball.o = &o;
	ball.radius = 0.7;
	// Pair 0: block 0 entropic (with a linear term), block 1 Euclidean
	// simplex. Pair 1: block 0 a box (with a linear term), block 1 a ball.
	for (int pair = 0; pair < 2; pair++) {
		const SetRef &set0 = pair ? box : simplex, &set1 = pair ? ball : simplex;
		vec py = simplex_point(n), px = simplex_point(n), pn = simplex_point(n), ly, lx, ln;
		logs(py, ly);
		logs(px, lx);
		logs(pn, ln);
		if (pair) { // box points: State == Value
			py = uniform(n, -1, 1);
			px = uniform(n, -1, 1);
			pn = uniform(n, -1, 1);
		}
		vec m = uniform(n, -1, 1), g = uniform(n, -1, 1), ax = simplex_point(n), ag = uniform(n, -1, 1);
		vec ey = simplex_point(n), ex = simplex_point(n), en = simplex_point(n);
		vec em = uniform(n, -1, 1), eg = uniform(n, -1, 1), eax = simplex_point(n), eag = uniform(n, -1, 1);
		double want[20];
		vec wnax(n), wnag(n), wenax(n), wenag(n);
		ref_proxstats(want, !pair, set0, &lin, py, px, pn, ly, lx, ln, m, g, ax, ag, wnax, wnag, w);
		ref_proxstats(want + 10, false, set1, nullptr, ey, ex, en, ey, ex, en, em, eg, eax, eag, wenax, wenag, w);
		auto run = [&](unsigned grid, vec &out, vec &nax, vec &nag, vec &enax, vec &enag) {
			vec p0(GP_REC * s.chunks(), NAN), p1(GP_REC * s.chunks(), NAN);
			nax.assign(n, NAN);
			nag.assign(n, NAN);
			enax.assign(n, NAN);
			enag.assign(n, NAN);
			out.assign(2 * GP_OUT, NAN);
			launch(grid, GP_THREADS, [&] {
				if (pair)
					gpump_proxstats_euclidean(p0.data(), py.data(), px.data(), pn.data(), m.data(), g.data(),
								  ax.data(), ag.data(), nax.data(), nag.data(),
								  set0.plo(), set0.phi(), set0.po(), lin.data(), w, n, s.chunkLen);
				else
					gpump_proxstats_entropic(p0.data(), py.data(), px.data(), pn.data(), ly.data(), lx.data(), ln.data(),
								 m.data(), g.data(), ax.data(), ag.data(), nax.data(), nag.data(), lin.data(),
								 w, n, s.chunkLen);
			});
			launch(grid, GP_THREADS, [&] {
				gpump_proxstats_euclidean(p1.data(), ey.data(), ex.data(), en.data(), em.data(), eg.data(),
							  eax.data(), eag.data(), enax.data(), enag.data(),
							  set1.plo(), set1.phi(), set1.po(), nullptr, w, n, s.chunkLen);
			});
			launch(2, GP_THREADS, [&] {
				gpump_stats_finish(out.data(), p0.data(), s.chunks(), (pair ? GP_MODE_EUCLIDEAN : GP_MODE_ENTROPIC) | set0.mode(),
						   set0.radius, p1.data(), s.chunks(), GP_MODE_EUCLIDEAN | set1.mode(), set1.radius);
			});
		};
		vec out, nax, nag, enax, enag;
		run(s.grid, out, nax, nag, enax, enag);
		const double e = maxrel(out.data(), want, 20);
		const double ea = std::max(std::max(maxerr(nax, wnax, 1e-300), maxerr(nag, wnag, 1e-300)),
					   std::max(maxerr(enax, wenax, 1e-300), maxerr(enag, wenag, 1e-300)));
		const char *name = pair ? "proxstats box+ball" : "proxstats entropic+euclidean";
		report(e < 1e-10 && ea < 1e-15, vname(name, s), "scalar err %.3g average err %.3g", e, ea);
		vec out2, a2, b2, c2, d2;
		run(1, out2, a2, b2, c2, d2);
		report(same_bits(out, out2) && same_bits(nax, a2) && same_bits(enag, d2), vname(name, s) + " grid 1 bitwise");
	}

	// Average: a box with both averages and a linear term, a ball without
	// averages (MinAvgG NaN) with a linear term; then the simplex with both
	// averages and a block without (the old use).
	for (int pair = 0; pair < 2; pair++) {
		const SetRef &set0 = pair ? box : simplex, &set1 = pair ? ball : simplex;
		const vec *lin0 = pair ? &lin : nullptr;
		vec x = pair ? uniform(n, -1, 1) : simplex_point(n), gg = uniform(n, -1, 1), aax = simplex_point(n), aag = uniform(n, -1, 1);
		vec wax = aax, wag = aag;
		for (i64 i = 0; i < n; i++) {
			wax[i] += w * (x[i] - wax[i]);
			wag[i] = wag[i] + w * (gg[i] - wag[i]);
		}
		vec x1 = uniform(n, -1, 1), g1 = uniform(n, -3, 3);
		double want[20] = {ref_support(set0, gg), ref_support(set0, wag), dot(lin0, x), dot(lin0, wax), 0, 0, 0, 0, 0, 0,
				   ref_support(set1, g1), NAN, dot(lin0, x1), 0, 0, 0, 0, 0, 0, 0};
		vec p0(GP_REC * s.chunks()), p1(GP_REC * s.chunks()), res(20, NAN);
		const double *l0 = lin0 ? lin0->data() : nullptr;
		launch(s.grid, GP_THREADS, [&] {
			gpump_average_partial(p0.data(), x.data(), gg.data(), aax.data(), aag.data(), set0.plo(), set0.phi(), set0.po(), l0, w, n, s.chunkLen);
		});
		launch(s.grid, GP_THREADS, [&] {
			gpump_average_partial(p1.data(), l0 ? x1.data() : nullptr, g1.data(), nullptr, nullptr, set1.plo(), set1.phi(), set1.po(), l0, 0, n, s.chunkLen);
		});
		launch(2, GP_THREADS, [&] {
			gpump_stats_finish(res.data(), p0.data(), s.chunks(), GP_MODE_AVERAGE | set0.mode(), set0.radius,
					   p1.data(), s.chunks(), GP_MODE_CURRENT | set1.mode(), set1.radius);
		});
		const bool nanOK = std::isnan(res[11]);
		res[11] = want[11] = 0;
		const double e = maxrel(res.data(), want, 20);
		const bool ok = nanOK && e < 1e-10 && maxerr(aax, wax, 1e-300) < 1e-15 && maxerr(aag, wag, 1e-300) < 1e-15;
		report(ok, vname(pair ? "average box + current ball" : "average + current", s), "scalar err %.3g", e);
	}

	// NaN propagates to MinG like Go's math.Min, and through the sums.
	vec x = simplex_point(n), gn = uniform(n, -3, 3), p1(GP_REC * s.chunks()), res(20, NAN);
	gn[n - 1] = NAN;
	for (const SetRef *set : {&simplex, &box, &ball}) {
		launch(s.grid, GP_THREADS, [&] {
			gpump_average_partial(p1.data(), x.data(), gn.data(), nullptr, nullptr, set->plo(), set->phi(), set->po(), nullptr, 0, n, s.chunkLen);
		});
		launch(1, GP_THREADS, [&] { gpump_stats_finish(res.data(), p1.data(), s.chunks(), GP_MODE_CURRENT | set->mode(), set->radius, nullptr, 0, 0, 0); });
		report(std::isnan(res[0]), vname(set == &simplex ? "NaN reaches MinG" : set == &box ? "NaN reaches MinG (box)" : "NaN reaches MinG (ball)", s));
	}
}

// Port of tensorops CPU.RegretMatch.
static void ref_rm(vec &x, vec &r, const vec &u, double sign, double tiny, bool pred)
{
	const size_t n = x.size();
	double v = 0;
	for (size_t i = 0; i < n; i++)
		v += x[i] * u[i];
	v *= sign;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		const double rho = sign * u[i] - v;
		const double ri = std::max(r[i] + rho, 0.0);
		r[i] = ri;
		sum += pred ? std::max(ri + rho, 0.0) : ri;
	}
	if (!(sum > tiny))
		return;
	for (size_t i = 0; i < n; i++) {
		double ri = r[i];
		if (pred)
			ri = std::max(ri + sign * u[i] - v, 0.0);
		x[i] = ri / sum;
	}
}

static void vec_rm(const VShape &s)
{
	const i64 n = s.n;
	vec pd(s.chunks()), ps(s.chunks());
	for (int pred = 0; pred < 2; pred++) {
		for (int variant = 0; variant < 2; variant++) {
			vec x = simplex_point(n), r = uniform(n, 0, 0.1), u = uniform(n, -1, 1);
			double tiny = 1e-12;
			if (variant == 1) {
				// A pure strategy against constant utilities: every regret
				// is exactly 0, so x must stay as it is.
				x = vec(n, 0.0);
				x[n / 3] = 1;
				r = vec(n, 0);
				u = vec(n, 0.5);
				tiny = 4 * n * 0x1p-52;
			}
			vec wx = x, wr = r;
			const double sign = -0.7;
			ref_rm(wx, wr, u, sign, tiny, pred);
			vec gx = x, gr = r;
			launch(s.grid, GP_THREADS, [&] { gpump_rm_dot(pd.data(), gx.data(), u.data(), n, s.chunkLen); });
			launch(s.grid, GP_THREADS, [&] { gpump_rm_update(gr.data(), u.data(), pd.data(), ps.data(), sign, pred, n, s.chunkLen); });
			launch(s.grid, GP_THREADS, [&] { gpump_rm_normalize(gx.data(), gr.data(), u.data(), pd.data(), ps.data(), sign, tiny, pred, n, s.chunkLen); });
			char nm[64];
			snprintf(nm, sizeof nm, "%s%s", pred ? "prm+" : "rm+", variant ? " (noise: unchanged)" : "");
			bool ok;
			double ex = 0, er = 0;
			for (i64 i = 0; i < n; i++) {
				ex = std::max(ex, fabs(gx[i] - wx[i]));
				er = std::max(er, fabs(gr[i] - wr[i]));
			}
			if (variant == 1)
				ok = same_bits(gx, x);
			else
				ok = ex < 1e-13 && er < 1e-13;
			report(ok, vname(nm, s), "x err %.3g r err %.3g", ex, er);
		}
	}
}

// ---------------------------------------------------------------- sampled operator

// Port of tensorops.DrawUniform, and its values for three inputs as Go
// computes them (TestDrawUniformGolden checks the same constants).
static unsigned long long ref_splitmix(unsigned long long z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double ref_uniform(unsigned long long seed, unsigned long long counter, unsigned long long k)
{
	return (double)(ref_splitmix(ref_splitmix(ref_splitmix(seed) ^ counter) ^ k) >> 11) * 0x1p-53;
}

static void draw_golden()
{
	const struct {
		unsigned long long seed, counter, k, bits;
	} g[] = {{0, 0, 0, 0x3fc1c13ade1c7e5cULL}, {1, 2, 3, 0x3fea0e68ea1fbc6cULL},
		 {0x9e3779b97f4a7c15ULL, 1ULL << 40, 511, 0x3fbfe8f025a1c668ULL}};
	bool ok = true;
	for (const auto &c : g) {
		double dev = NAN;
		launch(1, GP_THREADS, [&] {
			if (threadIdx.x == 0)
				dev = gp_draw_uniform(c.seed, c.counter, c.k);
		});
		const double host = ref_uniform(c.seed, c.counter, c.k);
		unsigned long long db, hb;
		memcpy(&db, &dev, 8);
		memcpy(&hb, &host, 8);
		ok = ok && db == c.bits && hb == c.bits;
	}
	report(ok, "DrawUniform golden values");
}

// Port of the selection rule of tensorops.SampledOperator: the indices of
// the 2b uniforms k0, k0+1, ... (all -1 when the total is not positive and
// finite), and the running sums.
static std::vector<i64> ref_draw(const vec &w, i64 b, unsigned long long seed, unsigned long long counter, i64 k0, vec &S)
{
	const i64 n = w.size();
	S.assign(n, 0);
	double t = 0;
	i64 last = -1;
	for (i64 i = 0; i < n; i++) {
		const double x = std::max(w[i], 0.0);
		t += x;
		S[i] = t;
		if (x > 0)
			last = i;
	}
	std::vector<i64> idx(b, -1);
	if (!(t > 0) || std::isinf(t))
		return idx;
	for (i64 k = 0; k < b; k++) {
		const double x = ref_uniform(seed, counter, k0 + k) * t;
		i64 i = std::upper_bound(S.begin(), S.end(), x) - S.begin(); // smallest i with x < S_i
		idx[k] = i < n ? i : last;
	}
	return idx;
}

// dyadic returns n weights in {-1/8, 0, 1/8, ..., 3/8} (some positive):
// every running sum is exact in any order, so every backend draws the same
// indices.
static vec dyadic(i64 n)
{
	vec w(n);
	for (auto &x : w)
		x = (double)((long long)(rng() % 5) - 1) / 8;
	w[rng() % n] = 0.25;
	return w;
}

struct SShape {
	i64 m, n, chunkQ, chunkP, b;
	unsigned scanGrid, drawGrid, rowsGridN, rowsGridM, colsGrid;
};

template <typename T>
static void sample_case(const SShape &s, const char *dt)
{
	const i64 m = s.m, n = s.n, b = s.b;
	std::vector<T> A(m * n), At(n * m);
	for (i64 i = 0; i < m; i++)
		for (i64 j = 0; j < n; j++)
			At[j * m + i] = A[i * n + j] = (T)std::uniform_real_distribution<double>(-1, 1)(rng);
	char name[160];
	snprintf(name, sizeof name, "sample %lldx%lld %s b=%lld", m, n, dt, b);
	const i64 cq = (n + s.chunkQ - 1) / s.chunkQ, cp = (m + s.chunkP - 1) / s.chunkP;
	// variant 0: dyadic weights; 1: random weights (scan checked for order
	// and monotonicity, not bits); 2: q without positive weight (fp NaN).
	for (int variant = 0; variant < 3; variant++) {
		vec q = variant == 1 ? uniform(n, -0.2, 1) : dyadic(n), p = variant == 1 ? uniform(m, -0.2, 1) : dyadic(m);
		if (variant == 2)
			for (auto &x : q)
				x = -std::fabs(x);
		const unsigned long long seed = rng(), counter = rng() % 1000;
		vec Sq, Sp;
		std::vector<i64> want = ref_draw(q, b, seed, counter, 0, Sq), wantP = ref_draw(p, b, seed, counter, b, Sp);
		want.insert(want.end(), wantP.begin(), wantP.end());
		auto run = [&](unsigned sg, unsigned dg, unsigned rn, unsigned rm, unsigned cg, bool transposed,
			       vec &gs0, vec &gs1, std::vector<i64> &idx, vec &fp, vec &fq) {
			vec part0(2 * cq, NAN), part1(2 * cp, NAN), info(4, NAN);
			gs0.assign(n, NAN);
			gs1.assign(m, NAN);
			idx.assign(2 * b, -7);
			fp.assign(m, NAN);
			fq.assign(n, NAN);
			launch(sg, GP_THREADS, [&] { gpump_sample_scan_partial(part0.data(), q.data(), n, s.chunkQ, part1.data(), p.data(), m, s.chunkP); });
			launch(sg, GP_THREADS, [&] {
				gpump_sample_scan_finish(gs0.data(), q.data(), part0.data(), n, s.chunkQ, gs1.data(), p.data(), part1.data(), m, s.chunkP, info.data());
			});
			launch(dg, GP_THREADS, [&] { gpump_sample_draw(idx.data(), gs0.data(), n, gs1.data(), m, info.data(), b, (i64)seed, (i64)counter); });
			const double fb = (double)b;
			launch(rn, GP_THREADS, [&] {
				if (sizeof(T) == 4)
					gpump_sample_rows_f32(fq.data(), (const float *)A.data(), n, idx.data() + b, b, fb);
				else
					gpump_sample_rows_f64(fq.data(), (const double *)A.data(), n, idx.data() + b, b, fb);
			});
			if (transposed)
				launch(rm, GP_THREADS, [&] {
					if (sizeof(T) == 4)
						gpump_sample_rows_f32(fp.data(), (const float *)At.data(), m, idx.data(), b, -fb);
					else
						gpump_sample_rows_f64(fp.data(), (const double *)At.data(), m, idx.data(), b, -fb);
				});
			else
				launch(cg, GP_THREADS, [&] {
					if (sizeof(T) == 4)
						gpump_sample_cols_f32(fp.data(), (const float *)A.data(), m, n, idx.data(), b, -fb);
					else
						gpump_sample_cols_f64(fp.data(), (const double *)A.data(), m, n, idx.data(), b, -fb);
				});
		};
		// References: the sums over k in draw order, and their scales.
		vec wfp(m), wfq(n), sfp(m), sfq(n);
		for (i64 k = 0; k < b; k++) {
			for (i64 i = 0; i < m && want[k] >= 0; i++) {
				wfp[i] += (double)A[i * n + want[k]];
				sfp[i] += std::fabs((double)A[i * n + want[k]]);
			}
			for (i64 j = 0; j < n && want[b + k] >= 0; j++) {
				wfq[j] += (double)A[want[b + k] * n + j];
				sfq[j] += std::fabs((double)A[want[b + k] * n + j]);
			}
		}
		for (i64 i = 0; i < m; i++)
			wfp[i] = want[0] < 0 ? NAN : wfp[i] / -(double)b;
		for (i64 j = 0; j < n; j++)
			wfq[j] /= (double)b;
		char vn[200];
		snprintf(vn, sizeof vn, "%s v%d", name, variant);
		for (bool transposed : {false, true}) {
			vec gs0, gs1, fp, fq;
			std::vector<i64> idx;
			run(s.scanGrid, s.drawGrid, s.rowsGridN, s.rowsGridM, s.colsGrid, transposed, gs0, gs1, idx, fp, fq);
			std::string nm = std::string(vn) + (transposed ? " transposed" : " strided");
			bool scanOK = true;
			for (i64 i = 0; i < n; i++)
				scanOK = scanOK && (i == 0 || gs0[i] >= gs0[i - 1]) && (variant == 1 ? fabs(gs0[i] - Sq[i]) <= 1e-12 * Sq[n - 1] : gs0[i] == Sq[i]);
			for (i64 i = 0; i < m; i++)
				scanOK = scanOK && (i == 0 || gs1[i] >= gs1[i - 1]) && (variant == 1 ? fabs(gs1[i] - Sp[i]) <= 1e-12 * Sp[m - 1] : gs1[i] == Sp[i]);
			report(scanOK, nm + " scan");
			if (variant != 1) // random weights may differ at a near-tie
				report(idx == want, nm + " indices");
			double e = 0;
			bool nanOK = true;
			for (i64 i = 0; i < m; i++) {
				if (std::isnan(wfp[i])) {
					nanOK = nanOK && std::isnan(fp[i]);
					continue;
				}
				const double d = fabs(fp[i] - wfp[i]) / (sfp[i] / b + 1e-300);
				if (!(d <= e))
					e = d;
			}
			for (i64 j = 0; j < n; j++) {
				const double d = fabs(fq[j] - wfq[j]) / (sfq[j] / b + 1e-300);
				if (!(d <= e))
					e = d;
			}
			report(nanOK && e < 1e-13, nm + " sums", "rel err %.3g", e);
			vec hs0, hs1, hp, hq;
			std::vector<i64> hidx;
			run(1, 1, 1, 1, 1, transposed, hs0, hs1, hidx, hp, hq);
			report(same_bits(gs0, hs0) && same_bits(gs1, hs1) && hidx == idx && same_bits(hp, fp) && same_bits(hq, fq), nm + " grid 1 bitwise");
		}
	}
}

// ---------------------------------------------------------------- batched kernels

// A batch case: B games of m x n, the selected games in selection order,
// the grid of kernels.Batch and of kernels.BatchElementwise (for the block
// length n).
struct BShape {
	i64 B, m, n;
	unsigned grid, egrid;
	std::vector<i64> games;
	i64 count() const { return (i64)games.size(); }
};

// sentinel fills a batch vector with values no kernel writes, so that the
// parts of unselected games can be checked untouched, bit for bit.
static vec sentinel(i64 len)
{
	vec v(len);
	for (i64 i = 0; i < len; i++)
		v[i] = 1e300 + (double)i * 1e285;
	return v;
}

// part returns game k's run of length len of a batch vector.
static vec part(const vec &v, i64 k, i64 len) { return vec(v.begin() + k * len, v.begin() + (k + 1) * len); }

// untouched reports whether the runs of the games not selected are those
// of before.
static bool untouched(const BShape &s, const vec &got, const vec &before, i64 len)
{
	std::vector<bool> sel(s.B);
	for (i64 g : s.games)
		sel[g] = true;
	for (i64 k = 0; k < s.B; k++)
		if (!sel[k] && memcmp(got.data() + k * len, before.data() + k * len, len * sizeof(double)) != 0)
			return false;
	return true;
}

static std::string bname(const char *what, const BShape &s, const char *dt = "")
{
	char b[200];
	snprintf(b, sizeof b, "batch %s B=%lld sel=%lld %lldx%lld%s%s", what, s.B, s.count(), s.m, s.n, *dt ? " " : "", dt);
	return b;
}

// simplex_batch returns B simplex points of length len.
static vec simplex_batch(i64 B, i64 len)
{
	vec v;
	for (i64 k = 0; k < B; k++) {
		vec p = simplex_point(len);
		v.insert(v.end(), p.begin(), p.end());
	}
	return v;
}

// per_game returns count different positive scalars.
static vec per_game(i64 count, double base)
{
	vec v(count);
	for (i64 s = 0; s < count; s++)
		v[s] = base * (1 + 0.37 * (double)s);
	return v;
}

// The batched pass kernels by kind (0 fused, 1 mulvec, 2 multvec) and type.
template <typename T>
using BatchOpFn = void (*)(const T *, i64, i64, const double *, const double *, double *, double *, const i64 *, i64);
static const BatchOpFn<float> batchOpF32[3] = {gpump_batch_op_fused_f32, gpump_batch_op_mulvec_f32, gpump_batch_op_multvec_f32};
static const BatchOpFn<double> batchOpF64[3] = {gpump_batch_op_fused_f64, gpump_batch_op_mulvec_f64, gpump_batch_op_multvec_f64};
static BatchOpFn<float> batch_op_fn(int kind, const float *) { return batchOpF32[kind]; }
static BatchOpFn<double> batch_op_fn(int kind, const double *) { return batchOpF64[kind]; }

template <typename T>
static void batch_op(const BShape &s, const char *dt)
{
	const i64 B = s.B, m = s.m, n = s.n, count = s.count();
	std::vector<T> A(B * m * n);
	for (auto &a : A)
		a = (T)std::uniform_real_distribution<double>(-1, 1)(rng);
	const vec p = simplex_batch(B, m), q = simplex_batch(B, n);
	const vec fp0 = sentinel(B * m), fq0 = sentinel(B * n);
	auto run = [&](int kind, unsigned grid, vec &fp, vec &fq) {
		fp = fp0;
		fq = fq0;
		const double *pp = kind != 1 ? p.data() : nullptr, *qp = kind != 2 ? q.data() : nullptr;
		double *fpp = kind != 2 ? fp.data() : nullptr, *fqp = kind != 1 ? fq.data() : nullptr;
		launch(grid, GP_THREADS, [&] { batch_op_fn(kind, A.data())(A.data(), m, n, pp, qp, fpp, fqp, s.games.data(), count); });
	};
	vec fp, fq, fp2, fq2, mv, mvq, mtp, mtv;
	run(0, s.grid, fp, fq);
	// The reference: long double sums, errors relative to the sums of
	// magnitudes.
	double e = 0;
	const double tol = 1e-14 * (1 + log2((double)std::max(m, n)));
	for (i64 g : s.games) {
		const T *a = A.data() + g * m * n;
		for (i64 i = 0; i < m; i++) {
			long double d = 0, sc = 0;
			for (i64 j = 0; j < n; j++) {
				d += (long double)a[i * n + j] * q[g * n + j];
				sc += fabsl((long double)a[i * n + j] * q[g * n + j]);
			}
			e = std::max(e, (double)(fabsl(fp[g * m + i] + d) / (sc + 1e-300)));
		}
		for (i64 j = 0; j < n; j++) {
			long double d = 0, sc = 0;
			for (i64 i = 0; i < m; i++) {
				d += (long double)a[i * n + j] * p[g * m + i];
				sc += fabsl((long double)a[i * n + j] * p[g * m + i]);
			}
			const double x = (double)(fabsl(fq[g * n + j] - d) / (sc + 1e-300));
			if (!(x <= e))
				e = x;
		}
	}
	report(e < tol && untouched(s, fp, fp0, m) && untouched(s, fq, fq0, n), bname("op fused", s, dt), "rel err %.3g", e);
	run(0, 1 + s.grid / 3, fp2, fq2);
	report(same_bits(fp, fp2) && same_bits(fq, fq2), bname("op fused grid-independent", s, dt));
	run(1, s.grid, mv, mvq);
	bool ok = same_bits(mvq, fq0); // fq = 0: not written
	for (i64 g : s.games)
		for (i64 i = 0; i < m; i++)
			ok = ok && mv[g * m + i] == -fp[g * m + i];
	report(ok && untouched(s, mv, fp0, m), bname("op mulvec = -fused row part", s, dt));
	run(2, s.grid, mtp, mtv);
	report(same_bits(mtp, fp0) && same_bits(mtv, fq), bname("op multvec = fused column part", s, dt));
}

static void batch_logprox(const BShape &s)
{
	const i64 B = s.B, n = s.n, count = s.count();
	vec c(B * n), g = uniform(B * n, -1, 1);
	vec pr = simplex_batch(B, n);
	for (i64 i = 0; i < B * n; i++)
		c[i] = log(pr[i]);
	// Game games[0] gets huge spreads: most probabilities underflow.
	if (count > 1)
		for (i64 i = 0; i < n; i++) {
			c[s.games[0] * n + i] = std::uniform_real_distribution<double>(-2000, 0)(rng);
			g[s.games[0] * n + i] *= 50;
		}
	const vec eta = per_game(count, 0.3), l0 = sentinel(B * n), p0 = sentinel(B * n);
	auto run = [&](unsigned grid, vec &l, vec &prob) {
		l = l0;
		prob = p0;
		launch(grid, GP_THREADS, [&] { gpump_batch_logprox(l.data(), prob.data(), c.data(), g.data(), eta.data(), n, s.games.data(), count); });
	};
	vec l, prob, l2, prob2;
	run(s.grid, l, prob);
	double el = 0, ep = 0;
	for (i64 k = 0; k < count; k++) {
		const i64 gm = s.games[k];
		vec wl(n), wp(n);
		ref_logprox(wl, wp, part(c, gm, n), part(g, gm, n), eta[k]);
		for (i64 i = 0; i < n; i++) {
			const double dl = l[gm * n + i], dp = prob[gm * n + i];
			el = std::max(el, fabs(dl - wl[i]) / std::max(1.0, fabs(wl[i])));
			if ((dp == 0) != (wp[i] == 0) && std::max(dp, wp[i]) > 1e-290)
				ep = INFINITY;
			else if (wp[i] > 0)
				ep = std::max(ep, fabs(dp - wp[i]) / wp[i]);
		}
	}
	report(el < 1e-13 && ep < 1e-12 && untouched(s, l, l0, n) && untouched(s, prob, p0, n), bname("logprox", s),
	       "log err %.3g prob err %.3g", el, ep);
	run(1 + s.grid / 3, l2, prob2);
	report(same_bits(l, l2) && same_bits(prob, prob2), bname("logprox grid-independent", s));
}

static void batch_simplex(const BShape &s)
{
	const i64 B = s.B, n = s.n, count = s.count();
	vec c = uniform(B * n, -2, 2), g = uniform(B * n, -1, 1);
	if (count > 1) { // a game already on the simplex, with g = 0
		vec pt = simplex_point(n);
		for (i64 i = 0; i < n; i++) {
			c[s.games[1] * n + i] = pt[i];
			g[s.games[1] * n + i] = 0;
		}
	}
	const vec eta = per_game(count, 0.9), d0 = sentinel(B * n);
	auto run = [&](unsigned grid, vec &d) {
		d = d0;
		launch(grid, GP_THREADS, [&] { gpump_batch_simplex_prox(d.data(), c.data(), g.data(), eta.data(), n, s.games.data(), count); });
	};
	vec d, d2;
	run(s.grid, d);
	double e = 0, es = 0;
	for (i64 k = 0; k < count; k++) {
		const i64 gm = s.games[k];
		vec v(n), want(n);
		double sum = 0;
		for (i64 i = 0; i < n; i++)
			v[i] = c[gm * n + i] - eta[k] * g[gm * n + i];
		ref_simplex(want, v);
		for (i64 i = 0; i < n; i++) {
			e = std::max(e, fabs(d[gm * n + i] - want[i]));
			sum += d[gm * n + i];
		}
		es = std::max(es, fabs(sum - 1));
	}
	report(e < 1e-14 && es < 1e-12 && untouched(s, d, d0, n), bname("simplex prox", s), "abs err %.3g |sum-1| %.3g", e, es);
	run(1 + s.grid / 3, d2);
	report(same_bits(d, d2), bname("simplex prox grid-independent", s));
}

static void batch_stats(const BShape &s)
{
	const i64 B = s.B, n = s.n, count = s.count();
	// Block 0 entropic, block 1 Euclidean, both of length n, results at
	// out + (2s + j) GP_OUT.
	const vec py = simplex_batch(B, n), px = simplex_batch(B, n), pn = simplex_batch(B, n);
	vec ly, lx, ln;
	logs(py, ly);
	logs(px, lx);
	logs(pn, ln);
	const vec mv = uniform(B * n, -1, 1), g = uniform(B * n, -1, 1), ax = simplex_batch(B, n), ag = uniform(B * n, -1, 1);
	const vec ey = simplex_batch(B, n), ex = simplex_batch(B, n), en = simplex_batch(B, n);
	const vec em = uniform(B * n, -1, 1), eg = uniform(B * n, -1, 1), eax = simplex_batch(B, n), eag = uniform(B * n, -1, 1);
	const vec w = per_game(count, 0.11), a0 = sentinel(B * n);
	auto run = [&](unsigned grid, vec &out, vec &nax, vec &nag, vec &enax, vec &enag) {
		out.assign(2 * GP_OUT * count, NAN);
		nax = nag = enax = enag = a0;
		launch(grid, GP_THREADS, [&] {
			gpump_batch_proxstats_entropic(out.data(), 2 * GP_OUT, py.data(), px.data(), pn.data(), ly.data(), lx.data(), ln.data(),
						       mv.data(), g.data(), ax.data(), ag.data(), nax.data(), nag.data(), w.data(), n,
						       s.games.data(), count);
		});
		launch(grid, GP_THREADS, [&] {
			gpump_batch_proxstats_euclidean(out.data() + GP_OUT, 2 * GP_OUT, ey.data(), ex.data(), en.data(), em.data(), eg.data(),
							eax.data(), eag.data(), enax.data(), enag.data(), w.data(), n, s.games.data(), count);
		});
	};
	vec out, nax, nag, enax, enag;
	run(s.grid, out, nax, nag, enax, enag);
	double e = 0, ea = 0;
	SetRef simplex;
	for (i64 k = 0; k < count; k++) {
		const i64 gm = s.games[k];
		double want[20];
		vec wnax(n), wnag(n), wenax(n), wenag(n);
		ref_proxstats(want, true, simplex, nullptr, part(py, gm, n), part(px, gm, n), part(pn, gm, n), part(ly, gm, n),
			      part(lx, gm, n), part(ln, gm, n), part(mv, gm, n), part(g, gm, n), part(ax, gm, n), part(ag, gm, n),
			      wnax, wnag, w[k]);
		ref_proxstats(want + 10, false, simplex, nullptr, part(ey, gm, n), part(ex, gm, n), part(en, gm, n), part(ey, gm, n),
			      part(ex, gm, n), part(en, gm, n), part(em, gm, n), part(eg, gm, n), part(eax, gm, n), part(eag, gm, n),
			      wenax, wenag, w[k]);
		e = std::max(e, maxrel(out.data() + 2 * GP_OUT * k, want, 20));
		for (const auto &pr : {std::make_pair(&nax, &wnax), std::make_pair(&nag, &wnag), std::make_pair(&enax, &wenax),
				       std::make_pair(&enag, &wenag)})
			ea = std::max(ea, maxerr(part(*pr.first, gm, n), *pr.second, 1e-300));
	}
	const bool un = untouched(s, nax, a0, n) && untouched(s, nag, a0, n) && untouched(s, enax, a0, n) && untouched(s, enag, a0, n);
	report(e < 1e-10 && ea < 1e-15 && un, bname("proxstats entropic+euclidean", s), "scalar err %.3g average err %.3g", e, ea);
	vec out2, b1, b2, b3, b4;
	run(1 + s.grid / 3, out2, b1, b2, b3, b4);
	report(same_bits(out, out2) && same_bits(nax, b1) && same_bits(enag, b4), bname("proxstats grid-independent", s));

	// Average: block 0 with both averages, block 1 without (MinAvgG NaN).
	vec x = simplex_batch(B, n), gg = uniform(B * n, -1, 1), g1 = uniform(B * n, -3, 3);
	auto runAvg = [&](unsigned grid, vec &res, vec &aax, vec &aag) {
		res.assign(2 * GP_OUT * count, -7);
		aax = ax;
		aag = ag;
		launch(grid, GP_THREADS, [&] {
			gpump_batch_average(res.data(), 2 * GP_OUT, x.data(), gg.data(), aax.data(), aag.data(), w.data(), n, s.games.data(), count);
		});
		launch(grid, GP_THREADS, [&] {
			gpump_batch_average(res.data() + GP_OUT, 2 * GP_OUT, nullptr, g1.data(), nullptr, nullptr, w.data(), n, s.games.data(), count);
		});
	};
	vec res, aax, aag;
	runAvg(s.grid, res, aax, aag);
	e = ea = 0;
	bool nanOK = true;
	for (i64 k = 0; k < count; k++) {
		const i64 gm = s.games[k];
		vec wax = part(ax, gm, n), wag = part(ag, gm, n);
		for (i64 i = 0; i < n; i++) {
			wax[i] += w[k] * (x[gm * n + i] - wax[i]);
			wag[i] += w[k] * (gg[gm * n + i] - wag[i]);
		}
		double want[20] = {ref_support(simplex, part(gg, gm, n)), ref_support(simplex, wag), 0, 0, 0, 0, 0, 0, 0, 0,
				   ref_support(simplex, part(g1, gm, n)), 0, 0, 0, 0, 0, 0, 0, 0, 0};
		double *r = res.data() + 2 * GP_OUT * k;
		nanOK = nanOK && std::isnan(r[11]);
		r[11] = 0;
		e = std::max(e, maxrel(r, want, 20));
		ea = std::max(ea, std::max(maxerr(part(aax, gm, n), wax, 1e-300), maxerr(part(aag, gm, n), wag, 1e-300)));
	}
	report(nanOK && e < 1e-10 && ea < 1e-15 && untouched(s, aax, ax, n) && untouched(s, aag, ag, n), bname("average + current", s),
	       "scalar err %.3g average err %.3g", e, ea);
	vec res2, bx, bg;
	runAvg(1 + s.grid / 3, res2, bx, bg);
	for (i64 k = 0; k < count; k++)
		res2[2 * GP_OUT * k + 11] = 0;
	report(same_bits(res, res2) && same_bits(aax, bx) && same_bits(aag, bg), bname("average grid-independent", s));
}

static void batch_rm(const BShape &s)
{
	const i64 B = s.B, n = s.n, count = s.count();
	const vec tiny = per_game(count, 1e-12);
	for (int pred = 0; pred < 2; pred++) {
		vec x = simplex_batch(B, n), r = uniform(B * n, 0, 0.1), u = uniform(B * n, -1, 1);
		vec tny = tiny;
		if (count > 1) {
			// Game games[0]: a pure strategy against constant utilities,
			// every regret exactly 0: x must stay as it is.
			const i64 o = s.games[0] * n;
			for (i64 i = 0; i < n; i++) {
				x[o + i] = i == n / 3 ? 1 : 0;
				r[o + i] = 0;
				u[o + i] = 0.5;
			}
			tny[0] = 4 * n * 0x1p-52;
		}
		vec signs(count);
		for (i64 k = 0; k < count; k++)
			signs[k] = k % 2 ? 1.3 : -0.7;
		auto run = [&](unsigned grid, vec &gx, vec &gr) {
			gx = x;
			gr = r;
			launch(grid, GP_THREADS, [&] { gpump_batch_rm(gx.data(), gr.data(), u.data(), signs.data(), tny.data(), pred, n, s.games.data(), count); });
		};
		vec gx, gr, gx2, gr2;
		run(s.grid, gx, gr);
		double ex = 0, er = 0;
		for (i64 k = 0; k < count; k++) {
			const i64 gm = s.games[k];
			vec wx = part(x, gm, n), wr = part(r, gm, n);
			ref_rm(wx, wr, part(u, gm, n), signs[k], tny[k], pred);
			for (i64 i = 0; i < n; i++) {
				ex = std::max(ex, fabs(gx[gm * n + i] - wx[i]));
				er = std::max(er, fabs(gr[gm * n + i] - wr[i]));
			}
		}
		const bool noise = count < 2 || memcmp(gx.data() + s.games[0] * n, x.data() + s.games[0] * n, n * sizeof(double)) == 0;
		report(ex < 1e-13 && er < 1e-13 && noise && untouched(s, gx, x, n) && untouched(s, gr, r, n),
		       bname(pred ? "prm+" : "rm+", s), "x err %.3g r err %.3g", ex, er);
		run(1 + s.grid / 3, gx2, gr2);
		report(same_bits(gx, gx2) && same_bits(gr, gr2), bname(pred ? "prm+ grid-independent" : "rm+ grid-independent", s));
	}
}

static void batch_elementwise(const BShape &s)
{
	const i64 B = s.B, n = s.n, count = s.count();
	const vec x = uniform(B * n, -1, 1), y = uniform(B * n, -1, 1), d0 = sentinel(B * n);
	const vec alpha = per_game(count, 2), beta = per_game(count, -0.5);
	vec d = d0;
	launch(s.egrid, GP_THREADS, [&] { gpump_batch_copy(d.data(), x.data(), n, s.games.data(), count); });
	bool ok = untouched(s, d, d0, n);
	for (i64 g : s.games)
		ok = ok && memcmp(d.data() + g * n, x.data() + g * n, n * sizeof(double)) == 0;
	report(ok, bname("copy", s));
	// dst aliasing x.
	vec ax = x, want = x;
	for (i64 k = 0; k < count; k++)
		for (i64 i = 0; i < n; i++) {
			const i64 o = s.games[k] * n + i;
			want[o] = alpha[k] * x[o] + beta[k] * y[o];
		}
	launch(s.egrid, GP_THREADS, [&] { gpump_batch_axpby(ax.data(), alpha.data(), ax.data(), beta.data(), y.data(), n, s.games.data(), count); });
	vec ax2 = x;
	launch(1, GP_THREADS, [&] { gpump_batch_axpby(ax2.data(), alpha.data(), ax2.data(), beta.data(), y.data(), n, s.games.data(), count); });
	report(maxerr(ax, want, 1e-300) < 1e-15 && untouched(s, ax, x, n) && same_bits(ax, ax2), bname("axpby aliased", s),
	       "err %.3g", maxerr(ax, want, 1e-300));
}

// payoff_case checks gpump_payoff_layer against a float64 loop (within
// float32 rounding of the sums, plus tanhf's) and gpump_payoff_reduce
// against a float64 loop, each also bitwise against a run on one block.
static void payoff_case(i64 nets, i64 rows, i64 in, i64 out, unsigned lgrid, i64 k, i64 j, i64 b, unsigned rgrid)
{
	char buf[128];
	snprintf(buf, sizeof buf, "payoff layer %lldx%lldx%lld->%lld", nets, rows, in, out);
	const i64 woff = 3, pstride = woff + in * out + out + 5; // parameters at an offset, with a gap
	vec pd = uniform(nets * pstride, -1, 1), xd = uniform(nets * rows * in, -2, 2);
	std::vector<float> params(pd.begin(), pd.end()), x(xd.begin(), xd.end());
	for (int shared = 0; shared < 2; shared++) {
		for (int act = 0; act < 2; act++) {
			const i64 xstride = shared ? 0 : rows * in, ystride = rows * out + 1;
			std::vector<float> y(nets * ystride, -7), y1(nets * ystride, -7);
			launch(lgrid, GP_THREADS, [&] { gpump_payoff_layer(nets, rows, in, out, x.data(), xstride, params.data(), pstride, woff, y.data(), ystride, act); });
			launch(1, GP_THREADS, [&] { gpump_payoff_layer(nets, rows, in, out, x.data(), xstride, params.data(), pstride, woff, y1.data(), ystride, act); });
			double worst = 0;
			bool gap = true;
			for (i64 n = 0; n < nets; n++) {
				const float *w = params.data() + n * pstride + woff;
				for (i64 r = 0; r < rows; r++)
					for (i64 c = 0; c < out; c++) {
						double v = w[in * out + c], abs = fabs(v);
						for (i64 i = 0; i < in; i++) {
							const double t = (double)x[n * xstride + r * in + i] * w[i * out + c];
							v += t;
							abs += fabs(t);
						}
						double tol = 2 * (in + 1) * 6e-8 * abs + 1e-30;
						if (act) {
							v = tanh(v);
							tol += 4e-7;
						}
						worst = std::max(worst, fabs(y[n * ystride + r * out + c] - v) / tol);
					}
				gap = gap && y[n * ystride + rows * out] == -7; // the gap after each network's rows
			}
			std::string nm = std::string(buf) + (act ? " tanh" : "") + (shared ? " shared x" : "");
			report(worst <= 1 && gap, nm, "error %.3g of the tolerance", worst);
			report(memcmp(y.data(), y1.data(), y.size() * sizeof(float)) == 0, nm + " grid-independent");
		}
	}
	snprintf(buf, sizeof buf, "payoff reduce %lldx%lld B=%lld", k, j, b);
	vec od = uniform(j * (k + 1) * b, -6, 6);
	std::vector<float> o(od.begin(), od.end());
	for (int logloss = 0; logloss < 2; logloss++) {
		vec m(k * j), m1(k * j), want(k * j);
		launch(rgrid, GP_THREADS, [&] { gpump_payoff_reduce(k, j, b, o.data(), logloss, m.data()); });
		launch(1, GP_THREADS, [&] { gpump_payoff_reduce(k, j, b, o.data(), logloss, m1.data()); });
		auto sp = [](double t) { return std::max(t, 0.0) + log1p(exp(-fabs(t))); };
		for (i64 g = 0; g < k; g++)
			for (i64 d = 0; d < j; d++) {
				double r = 0, f = 0;
				for (i64 i = 0; i < b; i++) {
					const double tr = o[d * (k + 1) * b + i], tf = o[d * (k + 1) * b + (g + 1) * b + i];
					r += logloss ? -sp(-tr) : tr;
					f += logloss ? sp(tf) : tf;
				}
				want[g * j + d] = (r - f) / b;
			}
		std::string nm = std::string(buf) + (logloss ? " log" : " wgan");
		report(maxerr(m, want, 1) < 1e-13, nm, "rel err %.3g", maxerr(m, want, 1));
		report(same_bits(m, m1), nm + " grid-independent");
	}
}

int main()
{
	char kind[16];
	while (scanf("%15s", kind) == 1) {
		if (!strcmp(kind, "op")) {
			long long m, n, tps, gx, rpb, gy;
			unsigned grid, fgrid, full, tgrid;
			char dt[8];
			if (scanf("%lld %lld %7s %lld %lld %lld %lld %u %u %u %u", &m, &n, dt, &tps, &gx, &rpb, &gy, &grid, &fgrid, &full, &tgrid) != 11)
				return 2;
			if (!strcmp(dt, "f32"))
				op_case<float>(m, n, tps, gx, rpb, gy, grid, fgrid, dt, full, tgrid);
			else
				op_case<double>(m, n, tps, gx, rpb, gy, grid, fgrid, dt, full, tgrid);
		} else if (!strcmp(kind, "sample")) {
			SShape sh;
			char dt[8];
			if (scanf("%lld %lld %7s %lld %lld %lld %u %u %u %u %u", &sh.m, &sh.n, dt, &sh.chunkQ, &sh.chunkP, &sh.b,
				  &sh.scanGrid, &sh.drawGrid, &sh.rowsGridN, &sh.rowsGridM, &sh.colsGrid) != 11)
				return 2;
			if (!strcmp(dt, "f32"))
				sample_case<float>(sh, dt);
			else
				sample_case<double>(sh, dt);
		} else if (!strcmp(kind, "batch")) {
			BShape sh;
			char dt[8];
			long long count;
			if (scanf("%lld %lld %lld %7s %u %u %lld", &sh.B, &sh.m, &sh.n, dt, &sh.grid, &sh.egrid, &count) != 7)
				return 2;
			sh.games.resize(count);
			for (auto &g : sh.games)
				if (scanf("%lld", &g) != 1)
					return 2;
			if (!strcmp(dt, "f32"))
				batch_op<float>(sh, dt);
			else {
				batch_op<double>(sh, dt);
				batch_logprox(sh);
				batch_simplex(sh);
				batch_stats(sh);
				batch_rm(sh);
				batch_elementwise(sh);
			}
		} else if (!strcmp(kind, "payoff")) {
			long long nets, rows, in, out, k, j, b;
			unsigned lgrid, rgrid;
			if (scanf("%lld %lld %lld %lld %u %lld %lld %lld %u", &nets, &rows, &in, &out, &lgrid, &k, &j, &b, &rgrid) != 9)
				return 2;
			payoff_case(nets, rows, in, out, lgrid, k, j, b, rgrid);
		} else if (!strcmp(kind, "vec")) {
			VShape s;
			if (scanf("%lld %lld %u %u", &s.n, &s.chunkLen, &s.grid, &s.egrid) != 4)
				return 2;
			vec_elementwise(s);
			vec_logprox(s);
			vec_simplex(s);
			vec_ball(s);
			vec_stats(s);
			vec_rm(s);
		} else {
			fprintf(stderr, "unknown case %s\n", kind);
			return 2;
		}
		fflush(stdout);
	}
	draw_golden();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
