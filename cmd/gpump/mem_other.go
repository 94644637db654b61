//go:build !linux

package main

// totalMemory returns 0: unknown off Linux, so no limit is checked.
func totalMemory() uint64 { return 0 }

// memoryLimits knows no limit off Linux.
func memoryLimits() []memoryLimit { return nil }
