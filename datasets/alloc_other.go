//go:build !linux

package datasets

// adviseHugePages does nothing on this system.
func adviseHugePages([]byte) {}
