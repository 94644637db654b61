package games

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestShardCoversOnce checks that the shards K = 0..N−1 hold every game
// exactly once, that the share of a game does not depend on the others
// (a resumed batch lists fewer games, in another order), and that the
// shares are roughly even.
func TestShardCoversOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	ids := make([]string, 3000)
	for i := range ids {
		ids[i] = fmt.Sprintf("games/g%05d.npy", rng.IntN(1<<20))
		if i%7 == 0 {
			ids[i] = GameID("stack.npy", i, "")
		}
	}
	for _, n := range []int{1, 2, 3, 7, 64} {
		count := make([]int, n)
		owner := map[string]int{}
		for _, id := range ids {
			k := -1
			for j := range n {
				s, err := NewShard(j, n)
				if err != nil {
					t.Fatal(err)
				}
				if s.Has(id) {
					if k >= 0 {
						t.Fatalf("N=%d: %q in shards %d and %d", n, id, k, j)
					}
					k = j
				}
			}
			if k < 0 {
				t.Fatalf("N=%d: %q in no shard", n, id)
			}
			owner[id] = k
			count[k]++
		}
		// Resume: the games left, shuffled, keep their shard.
		left := append([]string(nil), ids[len(ids)/3:]...)
		rng.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
		for _, id := range left {
			if !(Shard{K: owner[id], N: n}).Has(id) {
				t.Fatalf("N=%d: %q left its shard on resume", n, id)
			}
		}
		// Even enough: each share within 5 standard deviations of len/N.
		mean := float64(len(ids)) / float64(n)
		for k, c := range count {
			if d := float64(c) - mean; d*d > 25*mean {
				t.Errorf("N=%d: shard %d holds %d games, expected about %.0f", n, k, c, mean)
			}
		}
	}
}

// TestShardFixed pins the documented hash: a change would move games
// between the shards of a batch already half run.
func TestShardFixed(t *testing.T) {
	for _, c := range []struct {
		id   string
		n, k int
	}{
		// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c; of "" 0xcbf29ce484222325.
		{"a", 3, int(uint64(0xaf63dc4c8601ec8c) % 3)},
		{"a", 7, int(uint64(0xaf63dc4c8601ec8c) % 7)},
		{"", 5, int(uint64(0xcbf29ce484222325) % 5)},
	} {
		for k := range c.n {
			if got := (Shard{K: k, N: c.n}).Has(c.id); got != (k == c.k) {
				t.Errorf("Shard{%d, %d}.Has(%q) = %v", k, c.n, c.id, got)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true},
		{"2/3", Shard{2, 3}, true},
		{" 1 / 4 ", Shard{1, 4}, true},
		{"3/3", Shard{}, false},
		{"-1/3", Shard{}, false},
		{"0/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "2/3", "x", "1/0", "9999999999999999999/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.N < 1 || sh.K < 0 || sh.K >= sh.N {
			t.Fatalf("ParseShard(%q) = %v, outside 0 <= K < N", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("ParseShard(%q) = %v does not round-trip: %v, %v", s, sh, back, err)
		}
	})
}

func ExampleShard() {
	ids := []string{"a.npy", "b.npy", "c.npy", "d.npy", "e.npy"}
	for k := range 2 {
		s := Shard{K: k, N: 2}
		var mine []string
		for _, id := range ids {
			if s.Has(id) {
				mine = append(mine, id)
			}
		}
		fmt.Println(s, mine)
	}
	// Output:
	// 0/2 [b.npy d.npy]
	// 1/2 [a.npy c.npy e.npy]
}
