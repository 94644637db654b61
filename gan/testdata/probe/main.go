// Command probe breaks a trained mixture's samples down by generator, to
// see where the points off every mode come from (docs/gan-results.md):
//
//	go run ./gan/testdata/probe r.json ring8          # one line per generator
//	go run ./gan/testdata/probe r.json ring8 explore  # the metrics at other sampling weights
//
// r.json is the JSON result of `gpump gan -o r.json` on a built-in data
// set. Per generator: its weight p in the game, its weight w in the
// sampled mixture, its share of 20,000 samples, the fraction of them of
// high quality (within 3 standard deviations of a mode), their mean
// distance to the nearest mode in standard deviations, and the mode that
// gets most of its high-quality samples with that mode's share of them
// (about 0.5 for a generator straddling two modes).
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"

	"github.com/gpump/gpump/gan"
)

func main() {
	if len(os.Args) < 3 {
		log.Fatal("usage: probe RESULT.json DATASET [explore]")
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	var r struct {
		Mixture json.RawMessage `json:"mixture"`
	}
	if err := json.NewDecoder(f).Decode(&r); err != nil {
		log.Fatal(err)
	}
	m := new(gan.Mixture)
	if err := m.UnmarshalJSON(r.Mixture); err != nil {
		log.Fatal(err)
	}
	d := gan.Builtin(os.Args[2])
	if d == nil || d.Dim != 2 {
		log.Fatalf("%s: not a built-in 2-D data set", os.Args[2])
	}
	if len(os.Args) > 3 {
		// The sampled mixture is (1−Explore)·P + Explore/K: the metrics
		// as trained, and with less of the uniform share.
		for _, e := range []float64{m.Explore, 0.25, 0} {
			m.Explore = e
			hq, hit, tv := metrics(m, d, 25000)
			fmt.Printf("explore %.2f: high quality %.4f, modes hit %d, mode TV %.3f\n", e, hq, hit, tv)
		}
		return
	}
	const n = 20000
	w := m.Weights()
	pts, lab := m.SampleLabeled(n, rand.New(rand.NewPCG(1, 2)))
	k := len(m.P)
	count, hq := make([]int, k), make([]int, k)
	dist := make([]float64, k)
	mode := make([][]int, k)
	for i := range mode {
		mode[i] = make([]int, len(d.Centers))
	}
	total := 0
	for i, g := range lab {
		dd, c := nearest(d, pts[2*i:2*i+2])
		count[g]++
		dist[g] += dd / d.Std
		if dd <= 3*d.Std {
			hq[g]++
			mode[g][c]++
			total++
		}
	}
	fmt.Printf("high quality %.4f of %d samples\n", float64(total)/n, n)
	for g := range k {
		top, tc := 0, 0
		for c, v := range mode[g] {
			if v > top {
				top, tc = v, c
			}
		}
		cnt := math.Max(1, float64(count[g]))
		fmt.Printf("g%-2d p %.3f w %.3f samples %5d high quality %.3f mean distance %.2fσ mode %d (%.2f)\n",
			g, m.P[g], w[g], count[g], float64(hq[g])/cnt, dist[g]/cnt, tc, float64(top)/math.Max(1, float64(hq[g])))
	}
}

// nearest returns the distance from x to the nearest mode and its index.
func nearest(d *gan.Dataset, x []float64) (float64, int) {
	best, bc := math.Inf(1), 0
	for c, ctr := range d.Centers {
		if dd := math.Hypot(x[0]-ctr[0], x[1]-ctr[1]); dd < best {
			best, bc = dd, c
		}
	}
	return best, bc
}

// metrics returns the high-quality fraction, the modes hit and the mode TV
// of n samples of m, as gan.Evaluate counts them.
func metrics(m *gan.Mixture, d *gan.Dataset, n int) (float64, int, float64) {
	pts := m.Sample(n, rand.New(rand.NewPCG(7, 8)))
	cnt := make([]float64, len(d.Centers))
	hq := 0
	for i := range n {
		if dd, c := nearest(d, pts[2*i:2*i+2]); dd <= 3*d.Std {
			hq++
			cnt[c]++
		}
	}
	hit, tv := 0, 0.0
	for c := range cnt {
		if cnt[c] > 0 {
			hit++
		}
		w := 1 / float64(len(cnt))
		if d.Weights != nil {
			w = d.Weights[c]
		}
		tv += math.Abs(cnt[c]/float64(hq)-w) / 2
	}
	return float64(hq) / float64(n), hit, tv
}
