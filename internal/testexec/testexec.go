// Package testexec starts the running test binary again as a child
// process, under the same user-mode emulator as the test itself.
//
// CI runs the arm64 build's test binaries on amd64 under qemu-user, without
// a binfmt handler (a container cannot register one): there a child started
// as exec.Command(os.Args[0]) fails with "exec format error". Tests that
// need a child process (a process to kill, a file-size limit to set) start
// it through Self instead.
package testexec

import (
	"os"
	"os/exec"
	"strings"
)

// EmulatorEnv names the environment variable that holds the emulator that
// runs the test binary, with its arguments separated by spaces (for example
// "qemu-aarch64"); unset or empty, the binary runs directly.
const EmulatorEnv = "GPUMP_TEST_EMULATOR"

// Self returns a command that runs the current binary (os.Args[0]) with
// args, through the emulator named by EmulatorEnv when it is set.
func Self(args ...string) *exec.Cmd {
	emu := strings.Fields(os.Getenv(EmulatorEnv))
	if len(emu) == 0 {
		return exec.Command(os.Args[0], args...)
	}
	return exec.Command(emu[0], append(append(emu[1:], os.Args[0]), args...)...)
}
