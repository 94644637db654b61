package testexec

import (
	"os"
	"testing"
)

const childEnv = "TESTEXEC_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Stdout.WriteString("child " + os.Args[len(os.Args)-1] + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSelf runs the test binary as a child, directly and through an
// emulator that is a plain program runner (env), and checks that the child
// got its arguments. Under an emulator (CI's arm64 stage) it checks that
// one instead: a native runner cannot start this binary there.
func TestSelf(t *testing.T) {
	emus := []string{"", "env", " env  -u UNUSED_VARIABLE "}
	if emu := os.Getenv(EmulatorEnv); emu != "" {
		emus = []string{emu}
	}
	for _, emu := range emus {
		t.Setenv(EmulatorEnv, emu)
		cmd := Self("-test.run=^$", "marker")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("emulator %q: %v", emu, err)
		}
		if string(out) != "child marker\n" {
			t.Errorf("emulator %q: the child printed %q", emu, out)
		}
	}
}
