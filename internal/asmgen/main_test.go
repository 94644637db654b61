package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFresh checks that the committed assembly and declarations
// are what the generator makes now, so that go test reports a generator
// change that was not followed by go generate (CI also checks this with
// git diff after go generate).
func TestCommittedFresh(t *testing.T) {
	committed := map[string][2]string{
		"kernels": {"../../tensorops/kernels_amd64.s", "../../tensorops/kernels_stubs_amd64.go"},
		"memread": {"../memread/memread_amd64.s", "../memread/memread_stubs_amd64.go"},
		"sgemm":   {"../sgemm/sgemm_amd64.s", "../sgemm/sgemm_stubs_amd64.go"},
	}
	for name, files := range committed {
		dir := t.TempDir()
		fresh := [2]string{filepath.Join(dir, "out.s"), filepath.Join(dir, "stubs.go")}
		if err := generate(targets[name], fresh[0], fresh[1]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range files {
			want, err := os.ReadFile(fresh[i])
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(files[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the generator makes now: run go generate in its package", files[i])
			}
		}
	}
}
