package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/tensorops"
)

// version is the release this binary was built from; release builds set it
// with -ldflags "-X main.version=v1.2.3". Without it, the module version
// and the VCS revision recorded by the Go toolchain are shown.
var version = ""

// backends lists the backends compiled into this binary; files behind
// build tags append theirs.
var backends = []string{"cpu"}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, the Go version, the build tags and the backends",
		Description: `Example:
   gpump version`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("version takes no arguments, got %q", c.Args().First())
			}
			fmt.Fprint(c.App.Writer, versionText())
			return nil
		},
	}
}

// versionText describes the binary, one "key: value" line each.
func versionText() string {
	v, tags := buildVersion()
	cpu := tensorops.NewCPU(1)
	kernels := cpu.Kernels()
	cpu.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "gpump %s\n", v)
	fmt.Fprintf(&b, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "build tags: %s\n", tags)
	fmt.Fprintf(&b, "backends: %s\n", strings.Join(backends, ", "))
	fmt.Fprintf(&b, "cpu kernels: %s\n", kernels)
	b.WriteString(mpiVersion())
	return b.String()
}

// appVersion is the version the help shows.
func appVersion() string {
	v, _ := buildVersion()
	return v
}

// buildVersion returns the version of the binary (with the VCS revision
// when the toolchain recorded one) and its build tags.
func buildVersion() (v, tags string) {
	v, rev := version, ""
	dirty := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			case "-tags":
				tags = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+modified"
		}
		v += " " + rev
	}
	if tags == "" {
		tags = "(none)"
	}
	return v, tags
}
