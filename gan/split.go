package gan

import "math"

// split restarts the generators that straddle two modes (see
// Config.SplitEvery) after round r and returns how many it restarted.
func (t *trainer) split(r int) int {
	c := &t.cfg
	const decay = 0.01 // recentP averages over about a hundred rounds
	for i, w := range t.mix.P {
		t.recentP[i] += decay * (w - t.recentP[i])
	}
	if c.SplitEvery <= 0 || c.Uniform || r%c.SplitEvery != 0 || float64(r) > 0.9*float64(c.Rounds) {
		return 0
	}
	k, b, d := c.Generators, c.Batch, t.data.Dim
	if k < 2 {
		return 0
	}
	t.fakes = grow(t.fakes, k*b*d)
	normals(t.z, t.rng)
	t.gfwd.load(t.mix.Generators)
	t.gfwd.firstLayer(&t.gwork, t.z, b)
	for i := range k {
		t.gfwd.rest(&t.gwork, i, b, t.fakes[i*b*d:(i+1)*b*d])
	}
	// Each generator's mean point of the round, and the distance from it
	// to the nearest other generator's (crowd).
	t.gmeans = grow(t.gmeans, k*d)
	clear(t.gmeans)
	for i := range k {
		mu := t.gmeans[i*d : (i+1)*d]
		for j := range b {
			for e, v := range t.fakes[(i*b+j)*d : (i*b+j+1)*d] {
				mu[e] += v / float64(b)
			}
		}
	}
	t.crowd = grow(t.crowd, k)
	n := 0
	for i := range k {
		if t.frozen[i] > r {
			continue
		}
		a, bb, ok := t.clusters.straddles(t.fakes[i*b*d:(i+1)*b*d], b, d, c.SplitRatio)
		if !ok {
			continue
		}
		l := t.spare(i, r)
		if l < 0 {
			break
		}
		t.blob(i, a)
		t.blob(l, bb)
		// Both start from the pair's combined weight, shared; neither
		// takes part in another split until the next check but one.
		w := (t.recentP[i] + t.recentP[l]) / 2
		t.recentP[i], t.recentP[l] = w, w
		t.frozen[i], t.frozen[l] = r+2*c.SplitEvery, r+2*c.SplitEvery
		n += 2
	}
	return n
}

// spare picks the generator, other than i and free to move after round r,
// that takes a straddler's second cluster: one of the two generators
// (other than i) whose mean points lie nearest each other, the lighter by
// recent weight, that is a generator sharing its mode with another. The
// lightest generator alone is not a safe choice: on data with unequal
// modes it is the one that holds the lightest mode (a weight of 0.01 is
// the lightest generator's), and restarting it loses that mode. −1 when
// none is free.
func (t *trainer) spare(i, r int) int {
	k, d := t.cfg.Generators, t.data.Dim
	best := math.Inf(1)
	for j := range k {
		t.crowd[j] = math.Inf(1)
		if j == i {
			continue
		}
		for m := range k {
			if m != i && m != j {
				t.crowd[j] = min(t.crowd[j], sqdist(t.gmeans[j*d:(j+1)*d], t.gmeans[m*d:(m+1)*d]))
			}
		}
		if t.frozen[j] <= r {
			best = min(best, t.crowd[j])
		}
	}
	l := -1
	for j := range k {
		// Both generators of the nearest pair have the same crowd; the
		// lighter is taken.
		if j != i && t.frozen[j] <= r && t.crowd[j] <= best && (l < 0 || t.recentP[j] < t.recentP[l]) {
			l = j
		}
	}
	return l
}

// blob restarts generator i as a fresh draw whose output is a small blob
// at centre (as place does at the start) with a fresh Adam state.
func (t *trainer) blob(i int, centre []float64) {
	th := t.mix.Generators[i]
	t.gen.initParams(th, t.rng)
	l := t.gen.layers()[2]
	if g := t.cfg.GenInit; g > 0 {
		for p := l.w; p < l.b; p++ {
			th[p] *= g
		}
	}
	copy(th[l.b:l.b+len(centre)], centre)
	t.gopt[i] = adam{}
}

// twoMeans clusters points in two by Lloyd's iterations; its buffers are
// kept between calls.
type twoMeans struct {
	c      [2][]float64
	side   []int8
	counts [2]int
}

// straddles clusters the n points x (n×d, row-major) in two and reports
// their centres and whether they lie more than ratio root-mean-square
// within-cluster distances apart with at least an eighth of the points on
// each side. The centres are the clusterer's buffers, valid until its
// next call.
func (m *twoMeans) straddles(x []float64, n, d int, ratio float64) (a, b []float64, ok bool) {
	for s := range m.c {
		m.c[s] = grow(m.c[s], d)
	}
	if cap(m.side) < n {
		m.side = make([]int8, n)
	}
	m.side = m.side[:n]
	pt := func(i int) []float64 { return x[i*d : (i+1)*d] }
	// Start from the point farthest from the mean and the point farthest
	// from it: deterministic, and on a straddling generator one in each
	// cluster.
	mean := m.c[1]
	clear(mean)
	for i := range n {
		for e, v := range pt(i) {
			mean[e] += v / float64(n)
		}
	}
	far := func(from []float64) int {
		best, bi := -1.0, 0
		for i := range n {
			if v := sqdist(pt(i), from); v > best {
				best, bi = v, i
			}
		}
		return bi
	}
	copy(m.c[0], pt(far(mean)))
	copy(m.c[1], pt(far(m.c[0])))
	var within float64
	for range 10 {
		m.counts = [2]int{}
		within = 0
		for i := range n {
			p := pt(i)
			d0, d1 := sqdist(p, m.c[0]), sqdist(p, m.c[1])
			s := int8(0)
			if d1 < d0 {
				s, d0 = 1, d1
			}
			m.side[i] = s
			m.counts[s]++
			within += d0
		}
		if m.counts[0] == 0 || m.counts[1] == 0 {
			return nil, nil, false
		}
		for s := range m.c {
			clear(m.c[s])
		}
		for i := range n {
			s := m.side[i]
			for e, v := range pt(i) {
				m.c[s][e] += v / float64(m.counts[s])
			}
		}
	}
	sep := sqdist(m.c[0], m.c[1])
	ok = 8*min(m.counts[0], m.counts[1]) >= n && sep > ratio*ratio*within/float64(n)
	return m.c[0], m.c[1], ok
}
