//go:build !amd64

package memread

// available lists the implementations usable on this machine: only the
// portable one outside amd64.
func available() []impl { return []impl{{"generic", xorGeneric}} }
