package solver_test

import (
	"os"
	"regexp"
	"testing"
)

// TestGoDirective holds the module's go line to a release, never a patch
// release: the go line is the minimum toolchain for every library user, and
// a patch number there forces that toolchain download on all of them. What
// sets the release (the newest language feature or standard-library symbol
// the code uses) is checked by go vet's stdversion analysis against this
// line; what the dependencies need is checked by the go command itself.
func TestGoDirective(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(?:\.(\d+))?\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	if p := string(m[3]); p != "" && p != "0" {
		t.Errorf("go.mod's go line is %s: it names patch release %s, which every library user must then install; use %s.%s.0", m[0], p, m[1], m[2])
	}
	if regexp.MustCompile(`(?m)^toolchain `).Match(b) {
		t.Error("go.mod has a toolchain line: it is for the module's own development, not a library's users")
	}
}
