// Command asmgen generates gpump's amd64 assembly with avo
// (github.com/mmcloughlin/avo): the dense row kernels of tensorops and the
// plain memory read of internal/memread and the float32 matrix-product
// tiles of internal/sgemm. go generate runs it:
//
//	go run ../internal/asmgen -out kernels_amd64.s -stubs kernels_stubs_amd64.go kernels
//	go run ../asmgen -out memread_amd64.s -stubs memread_stubs_amd64.go memread
//	go run ../asmgen -out sgemm_amd64.s -stubs sgemm_stubs_amd64.go sgemm
//
// Every variant of a kernel (AVX-512 or AVX2, float64 or float32 storage,
// 8, 4 or 1 rows, fused, dot or axpy) comes from one parameterized emitter,
// so a change to the loop structure, the prefetching or the tails is made
// once; see kernels.go and memread.go for the design of each.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
)

// A target is one generated package: its name and the function that emits
// its assembly into the context and returns Go source to append to the
// stubs.
type target struct {
	pkg  string
	emit func(*build.Context) (extra string)
}

var targets = map[string]target{
	"kernels": {pkg: "tensorops", emit: emitKernels},
	"memread": {pkg: "memread", emit: emitMemread},
	"sgemm":   {pkg: "sgemm", emit: emitSgemm},
}

func main() {
	// Not the default flag set: avo's build package registers its own
	// flags there.
	fs := flag.NewFlagSet("asmgen", flag.ExitOnError)
	out := fs.String("out", "", "assembly output `file`")
	stubs := fs.String("stubs", "", "Go declarations output `file`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: asmgen -out file.s -stubs file.go kernels|memread|sgemm\n")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	t, ok := targets[fs.Arg(0)]
	if fs.NArg() != 1 || !ok || *out == "" || *stubs == "" {
		fs.Usage()
		os.Exit(2)
	}
	if err := generate(t, *out, *stubs); err != nil {
		fmt.Fprintln(os.Stderr, "asmgen:", err)
		os.Exit(1)
	}
}

func generate(t target, out, stubs string) error {
	ctx := build.NewContext()
	extra := t.emit(ctx)
	f, err := ctx.Result()
	if err != nil {
		return err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return err
	}
	// A fixed generator name rather than the command line keeps the
	// output the same however go generate was invoked, which CI relies on
	// when it checks that the committed files are fresh.
	cfg := printer.Config{Name: "internal/asmgen", Pkg: t.pkg}
	asm, err := printer.NewGoAsm(cfg).Print(f)
	if err != nil {
		return err
	}
	decl, err := printer.NewStubs(cfg).Print(f)
	if err != nil {
		return err
	}
	decl, err = format.Source(append(decl, extra...))
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, asm, 0o644); err != nil {
		return err
	}
	return os.WriteFile(stubs, decl, 0o644)
}
