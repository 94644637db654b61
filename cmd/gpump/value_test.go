package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestResultValue: the result a user reads first. The JSON's value is the
// middle of the certified bracket; it says how the result was certified
// and the supports of strategies that carry no rounding debris (this
// 300×500 game's default-accuracy strategies had hundreds of entries
// below 1e-17); the terminal summary shows all of it.
func TestResultValue(t *testing.T) {
	for _, tc := range []struct {
		args []string
		by   string
	}{
		{[]string{"--gen", "uniform", "--m", "300", "--n", "500", "--seed", "1"}, "first-order"},
		{[]string{"testdata/rps.csv"}, "crossover"},
	} {
		args := append([]string{"solve", "--threads", "1", "--quiet"}, tc.args...)
		code, stdout, stderr := gpump(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		o := decode(t, stdout)
		if o.Value != (o.ValueLower+o.ValueUpper)/2 {
			t.Errorf("%v: value %v, bracket [%v, %v]", tc.args, o.Value, o.ValueLower, o.ValueUpper)
		}
		if o.CertifiedBy != tc.by {
			t.Errorf("%v: certified by %q (route %q), want %q", tc.args, o.CertifiedBy, o.Route, tc.by)
		}
		for k, s := range [][]float64{o.RowStrategy, o.ColumnStrategy} {
			pos, debris := 0, 0
			for _, v := range s {
				if v > 0 {
					pos++
				}
				if v > 0 && v <= 0x1p-54 {
					debris++
				}
			}
			if debris > 0 {
				t.Errorf("%v: %d entries of the %s strategy are rounding debris", tc.args, debris, [2]string{"row", "column"}[k])
			}
			if got := [2]int{o.RowSupport, o.ColumnSupport}[k]; got != pos || pos == 0 {
				t.Errorf("%v: support %d, %d positive entries", tc.args, got, pos)
			}
		}
		var b bytes.Buffer
		if err := writeSummary(&b, &o, ""); err != nil {
			t.Fatal(err)
		}
		sum := b.String()
		for _, want := range [][2]string{
			{"value", fmt.Sprintf(" %.8g, in [", o.Value)},
			{"row player", fmt.Sprintf(", support %d;", o.RowSupport)},
			{"column player", fmt.Sprintf(", support %d;", o.ColumnSupport)},
		} {
			if !summaryHas(sum, want[0], want[1]) {
				t.Errorf("%v: summary without %q on its %s line:\n%s", tc.args, want[1], want[0], sum)
			}
		}
		if tc.by == "crossover" && !summaryHas(sum, "certified", "exact, by the support crossover") ||
			tc.by == "first-order" && !summaryHas(sum, "certified", "first-order, to the target") {
			t.Errorf("%v: summary does not say how it was certified:\n%s", tc.args, sum)
		}
	}
}

// TestBatchLinesValue: every batch line with a result has the value, how
// it was certified and the supports, for instances of one game and for
// the games of a stacked instance.
func TestBatchLinesValue(t *testing.T) {
	_, stdout, _ := gpump(t, "batch", "--manifest", "testdata/manifest.txt", "--threads", "1", "--eps", "1e-5", "--log-format", "json")
	results := 0
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if _, ok := v["value_lower"]; !ok {
			continue
		}
		results++
		lo, hi := v["value_lower"].(float64), v["value_upper"].(float64)
		if val, ok := v["value"].(float64); !ok || math.Abs(val-(lo+hi)/2) > 1e-15*math.Max(1, math.Abs(val)) {
			t.Errorf("value %v, bracket [%v, %v]: %s", v["value"], lo, hi, l)
		}
		if by := v["certified_by"]; by != "first-order" && by != "crossover" {
			t.Errorf("certified by %v: %s", by, l)
		}
		for _, k := range []string{"row_support", "column_support"} {
			if s, ok := v[k].(float64); !ok || s < 1 {
				t.Errorf("%s %v: %s", k, v[k], l)
			}
		}
	}
	if results < 5 {
		t.Errorf("%d lines with results:\n%s", results, stdout)
	}
}

// summaryHas reports whether a line of the summary s starts with key and
// holds text.
func summaryHas(s, key, text string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, key+" ") && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
