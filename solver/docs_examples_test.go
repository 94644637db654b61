package solver_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock matches a fenced Go code block of a Markdown file.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)\n```")

// exampleBodies returns the bodies of this package's Example functions, one
// tab of indentation removed, by name.
func exampleBodies(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			// The text between the braces, without the newlines next to them.
			text := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			text = strings.Trim(text, "\n")
			lines := strings.Split(text, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, "\t")
			}
			bodies[fn.Name.Name] = strings.Join(lines, "\n")
		}
	}
	return bodies
}

// TestDocExamples: every Go code block of README.md and docs/*.md is the body
// of one of this package's Example functions, character for character, so
// that the code the documentation shows is code that go test runs.
func TestDocExamples(t *testing.T) {
	bodies := exampleBodies(t)
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../README.md")
	blocks := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goBlock.FindAllStringSubmatch(string(text), -1) {
			blocks++
			found := false
			for _, b := range bodies {
				if b == m[1] {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: a Go code block is not the body of any Example in solver/*_test.go:\n%s", doc, m[1])
			}
		}
	}
	// README.md shows one at least (its From Go section).
	if blocks == 0 {
		t.Error("no Go code blocks found in README.md and docs/*.md")
	}
}
