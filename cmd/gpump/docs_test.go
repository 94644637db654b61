package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cliDocsDir holds the flag reference generated from each command's --help.
const cliDocsDir = "../../docs/cli"

// helpText runs gpump with args in-process and returns what it printed.
func helpText(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"gpump"}, args...), &out, &errb); code != 0 {
		t.Fatalf("gpump %s: exit status %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// versionSection is the root help's VERSION block: it names the build
// (a module version, a VCS revision, "(devel)"), not the command line.
var versionSection = regexp.MustCompile(`(?m)^VERSION:\n(?:   .*\n)*\n`)

// cliDocs returns the generated pages by file name: one per command, from
// "gpump COMMAND --help", and an index from "gpump help".
func cliDocs(t *testing.T) map[string]string {
	t.Helper()
	const header = "<!-- Generated from gpump's --help by `go test ./cmd/gpump -run TestCLIDocs -update`; do not edit. -->\n\n"
	page := func(title, help string) string {
		return fmt.Sprintf("# %s\n\n%s```text\n%s```\n", title, header, help)
	}
	pages := map[string]string{}
	var index strings.Builder
	index.WriteString("# gpump's flags\n\n" + header)
	index.WriteString("The help of every command, as the command prints it. The pages one\nlevel up (docs/) say what the commands do and what has been measured.\n\n")
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		if c.Hidden || c.Name == "help" {
			continue
		}
		name := c.Name + ".md"
		pages[name] = page("gpump "+c.Name+" --help", helpText(t, c.Name, "--help"))
		fmt.Fprintf(&index, "- [`gpump %s`](%s): %s\n", c.Name, name, c.Usage)
	}
	root := versionSection.ReplaceAllString(helpText(t, "help"), "")
	index.WriteString("\n```text\n" + root + "```\n")
	pages["README.md"] = index.String()
	return pages
}

// TestCLIDocs: docs/cli is what the commands' --help prints today. With
// -update it writes the pages again (and removes pages of commands that are
// gone); without, it fails on any difference, so that the reference cannot
// drift from the binary.
func TestCLIDocs(t *testing.T) {
	pages := cliDocs(t)
	if len(pages) < 2 {
		t.Fatalf("only %d pages generated", len(pages))
	}
	if *update {
		if err := os.MkdirAll(cliDocsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range pages {
			if err := os.WriteFile(filepath.Join(cliDocsDir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	existing, err := filepath.Glob(filepath.Join(cliDocsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range existing {
		name := filepath.Base(path)
		if _, ok := pages[name]; ok {
			continue
		}
		if *update {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s documents no command of gpump (go test ./cmd/gpump -run TestCLIDocs -update removes it)", path)
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(cliDocsDir, name))
		if err != nil {
			t.Errorf("%v (go test ./cmd/gpump -run TestCLIDocs -update writes it)", err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s differs from gpump's --help (go test ./cmd/gpump -run TestCLIDocs -update writes it again); first difference at line %d",
				filepath.Join(cliDocsDir, name), firstDiffLine(string(got), want))
		}
	}
}

// firstDiffLine returns the 1-based number of the first line where a and b differ.
func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
