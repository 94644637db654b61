package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOutput: an Output's path keeps its old content until Commit, which
// installs the new content with mode 0644; Abort leaves the old content;
// neither leaves a temporary file; Commit and Abort are idempotent; a
// directory is refused.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	content := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	entries := func() int {
		t.Helper()
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}

	o, err := CreateOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("aborted")
	if got := content(); got != "old" {
		t.Errorf("before Abort the path holds %q, want old", got)
	}
	o.Abort()
	o.Abort()
	if got, n := content(), entries(); got != "old" || n != 1 {
		t.Errorf("after Abort: %q and %d entries, want old and 1", got, n)
	}

	o, err = CreateOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("new")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	o.Abort() // after Commit: nothing
	if err := o.Commit(); err != nil {
		t.Errorf("second Commit: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := content(), entries(); got != "new" || n != 1 || fi.Mode().Perm() != 0o644 || o.Path() != path {
		t.Errorf("after Commit: %q, %d entries, mode %v, Path %q", got, n, fi.Mode().Perm(), o.Path())
	}

	var de *dataError
	if _, err := CreateOutput(dir); !errors.As(err, &de) {
		t.Errorf("a directory: %v, want a *dataError", err)
	}
	if _, err := CreateOutput(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("a missing directory: no error")
	}
	var nilOut *Output
	nilOut.Abort()
}
