package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// CI reports whether the environment variable CI is set to a non-empty
// value: then a test that lacks a tool fails instead of skipping.
func CI() bool {
	return os.Getenv("CI") != ""
}

// Missing ends the test for want of what msg describes: msg should say
// what is missing and how to install it. Under CI it calls
// t.Fatal(msg + "; CI is set, so this test must run"); otherwise
// t.Skip(msg).
func Missing(t testing.TB, msg string) {
	t.Helper()
	if CI() {
		t.Fatal(msg + "; CI is set, so this test must run")
	}
	t.Skip(msg)
}

// NeedTools looks up each tool on PATH with exec.LookPath and, at the
// first one not found, calls Missing with "TOOL not found: " + why. why
// says which tests need the tools and how to install them, as in
// "the MPI tests need Open MPI (make mpi-deps)".
func NeedTools(t testing.TB, why string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, tool+" not found: "+why)
		}
	}
}
