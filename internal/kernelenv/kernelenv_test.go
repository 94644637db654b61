package kernelenv

import "testing"

func TestChoose(t *testing.T) {
	avail := []string{"avx2", "generic"}
	id := func(s string) string { return s }
	for _, c := range []struct {
		want string
		got  int
	}{
		{"", 0}, {"avx2", 0}, {"generic", 1}, {"avx512", 0}, {"bogus", 0},
	} {
		if got := Choose(avail, id, c.want); got != c.got {
			t.Errorf("Choose(%v, %q) = %d, want %d", avail, c.want, got, c.got)
		}
	}
}
