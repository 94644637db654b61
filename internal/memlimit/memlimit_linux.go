package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Total returns the machine's RAM in bytes (0 if unknown).
func Total() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

// Limits returns what bounds the memory this process may still take,
// each with the words that say what it is: the memory the kernel says is
// available (free, and caches it can drop; MemAvailable), the room left
// under the memory limit of each control group the process is in (cgroup v2
// memory.max, v1 memory.limit_in_bytes, less their current use), and the
// room left in its address space under ulimit -v (RLIMIT_AS, less what is
// mapped now). Unknown ones are left out.
func Limits() []Limit {
	var out []Limit
	if total := Total(); total > 0 {
		out = append(out, Limit{total, fmt.Sprintf("the machine's %s", gb(total))})
	}
	if avail, ok := meminfo("MemAvailable"); ok {
		out = append(out, Limit{avail, fmt.Sprintf("the %s of memory available", gb(avail))})
	}
	out = append(out, cgroupLimits()...)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur < 1<<62 {
		used := Mapped()
		left := uint64(0)
		if rl.Cur > used {
			left = rl.Cur - used
		}
		out = append(out, Limit{left, fmt.Sprintf("the %s of address space left under ulimit -v (%s, %s mapped)", gb(left), gb(rl.Cur), gb(used))})
	}
	return out
}

// meminfo returns the field of /proc/meminfo in bytes.
func meminfo(field string) (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// Mapped is the process's virtual memory size (/proc/self/statm).
func Mapped() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[0], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// cgroupLimits returns the room under the memory limits of the process's
// control groups, its own and those above it (a limit of any of them
// stops it), cgroup v2 and v1 alike.
func cgroupLimits() []Limit {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []Limit
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var root, max, cur string
		switch {
		case f[0] == "0" && f[1] == "":
			root, max, cur = "/sys/fs/cgroup", "memory.max", "memory.current"
		case strings.Contains(","+f[1]+",", ",memory,"):
			root, max, cur = "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		// The path is relative to the cgroup namespace's root, which in a
		// container is the mount's root: try it there, and every parent.
		for p := filepath.Clean(f[2]); ; p = filepath.Dir(p) {
			dir := filepath.Join(root, p)
			if !seen[dir] {
				seen[dir] = true
				if l, ok := cgroupRoom(dir, max, cur); ok {
					out = append(out, l)
				}
			}
			if p == "/" || p == "." {
				break
			}
		}
	}
	return out
}

// cgroupRoom reads the limit and the use of the cgroup directory dir.
func cgroupRoom(dir, maxFile, curFile string) (Limit, bool) {
	read := func(name string) (uint64, bool) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	limit, ok := read(maxFile) // "max" (no limit) does not parse
	if !ok || limit >= 1<<62 {
		return Limit{}, false
	}
	used, _ := read(curFile)
	left := uint64(0)
	if limit > used {
		left = limit - used
	}
	return Limit{left, fmt.Sprintf("the %s left under the control group's memory limit (%s, %s in use)", gb(left), gb(limit), gb(used))}, true
}
