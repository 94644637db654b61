package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerify: verify checks a result's own claim, a claim given as a
// flag, and a strategies archive; exit 0 when the claim holds, 2 when it
// does not, 1 on bad input.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.npy")
	if code, _, stderr := gpump(t, "gen", "lowrank:m=60,n=40,rank=2,seed=3", "-o", a, "-q"); code != exitOK {
		t.Fatal(stderr)
	}
	res, npz := filepath.Join(dir, "r.json"), filepath.Join(dir, "s.npz")
	if code, _, stderr := gpump(t, "solve", a, "--eps", "1e-2", "--polish", "off", "-o", res, "--strategies", npz, "-q"); code != exitOK {
		t.Fatal(stderr)
	}
	code, stdout, stderr := gpump(t, "verify", a, res, "--json")
	var v verdict
	if code != exitOK || json.Unmarshal([]byte(stdout), &v) != nil || v.Holds == nil || !*v.Holds || v.ClaimSource != res+"'s target" {
		t.Fatalf("own claim: exit %d, %s %s", code, stdout, stderr)
	}
	if !(v.Gap[0] <= v.Gap[1] && v.Lower[0] <= v.Lower[1] && v.Upper[1]-v.Lower[0] >= v.Gap[0]) {
		t.Errorf("intervals out of order: %+v", v)
	}
	// The gap is about 1e-2 relative: a claim of 1e-6 fails, of 0.5 holds.
	if code, stdout, _ := gpump(t, "verify", a, npz, "--rel-gap", "1e-6"); code != exitClaimFails || !strings.Contains(stdout, "does not hold") {
		t.Errorf("--rel-gap 1e-6: exit %d, %s", code, stdout)
	}
	if code, stdout, _ := gpump(t, "verify", a, npz, "--rel-gap", "0.5"); code != exitOK || !strings.Contains(stdout, ": holds") {
		t.Errorf("--rel-gap 0.5: exit %d, %s", code, stdout)
	}
	// A result that did not converge claims its gap: one reported a few
	// ulps below the exact gap (as a float64 sum can be) holds, one 10 %
	// below does not.
	var r map[string]any
	data, err := os.ReadFile(res)
	if err != nil || json.Unmarshal(data, &r) != nil {
		t.Fatalf("reading %s: %v", res, err)
	}
	r["status"] = "iteration_limit"
	for _, tc := range []struct {
		gap  float64
		code int
	}{
		{math.Nextafter(math.Nextafter(v.Gap[0], 0), 0), exitOK},
		{0.9 * v.Gap[0], exitClaimFails},
	} {
		r["gap"] = tc.gap
		data, _ := json.Marshal(r)
		low := filepath.Join(dir, "low.json")
		if err := os.WriteFile(low, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := gpump(t, "verify", a, low); code != tc.code || !strings.Contains(stdout, "low.json's gap") {
			t.Errorf("not converged, gap %.17g of the exact [%.17g, %.17g]: exit %d, want %d; %s %s", tc.gap, v.Gap[0], v.Gap[1], code, tc.code, stdout, stderr)
		}
	}
	if code, stdout, _ := gpump(t, "verify", a, npz); code != exitOK || !strings.Contains(stdout, "claim       none") {
		t.Errorf("archive without a claim: exit %d, %s", code, stdout)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"row_strategy":[1,-1],"column_strategy":[1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"verify", a},
		{"verify", a, bad},
		{"verify", a, npz, "--gap", "1", "--rel-gap", "1"},
		{"verify", a, npz, "--gap", "-1"},
	} {
		if code, _, stderr := gpump(t, args...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
