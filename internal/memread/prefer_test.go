package memread

import (
	"slices"
	"testing"
)

func TestPrefer(t *testing.T) {
	all := []impl{{name: "avx512"}, {name: "avx2"}, {name: "generic"}}
	for _, tc := range []struct {
		want string
		get  []string
	}{
		{"", []string{"avx512", "avx2", "generic"}},
		{"avx512", []string{"avx512", "avx2", "generic"}},
		{"avx2", []string{"avx2", "avx512", "generic"}},
		{"generic", []string{"generic", "avx512", "avx2"}},
		{"sse9", []string{"avx512", "avx2", "generic"}},
	} {
		avail := slices.Clone(all)
		var got []string
		for _, im := range prefer(avail, tc.want) {
			got = append(got, im.name)
		}
		if !slices.Equal(got, tc.get) {
			t.Errorf("prefer(%q) = %v, want %v", tc.want, got, tc.get)
		}
		for i := range all {
			if avail[i].name != all[i].name {
				t.Fatalf("prefer(%q) changed its argument: %v", tc.want, avail)
			}
		}
	}
}
