package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder stands for the testing.TB of a test that lacks a tool: Skip
// and Fatal record how the test ended and stop its goroutine, as the real
// ones do.
type recorder struct {
	testing.TB
	ended string // "skip", "fatal", or "" when the test went on
	msg   string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) { r.end("skip", args) }

func (r *recorder) Fatal(args ...any) { r.end("fatal", args) }

func (r *recorder) end(how string, args []any) {
	r.ended = how
	if len(args) == 1 {
		r.msg, _ = args[0].(string)
	}
	runtime.Goexit()
}

// run calls f with a recorder on a goroutine of its own and returns the
// recorder once f has returned or ended the test.
func run(t *testing.T, f func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestMissingAndNeedTools(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "present"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const why = "the tests need it (make deps)"
	tests := []struct {
		name      string
		ci        string
		f         func(testing.TB)
		wantEnded string
		wantMsg   string
	}{
		{"missing without CI skips", "", func(t testing.TB) { Missing(t, "x is missing") },
			"skip", "x is missing"},
		{"missing with CI=true fails", "true", func(t testing.TB) { Missing(t, "x is missing") },
			"fatal", "x is missing; CI is set, so this test must run"},
		{"missing with CI=1 fails", "1", func(t testing.TB) { Missing(t, "x is missing") },
			"fatal", "x is missing; CI is set, so this test must run"},
		{"tools present", "true", func(t testing.TB) { NeedTools(t, why, "present") },
			"", ""},
		{"tool absent without CI skips", "", func(t testing.TB) { NeedTools(t, why, "present", "absent") },
			"skip", "absent not found: " + why},
		{"tool absent with CI fails", "true", func(t testing.TB) { NeedTools(t, why, "absent", "present") },
			"fatal", "absent not found: " + why + "; CI is set, so this test must run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv("PATH", bin)
			if got := CI(); got != (tc.ci != "") {
				t.Errorf("CI() = %v with CI=%q", got, tc.ci)
			}
			r := run(t, tc.f)
			if r.ended != tc.wantEnded || r.msg != tc.wantMsg {
				t.Errorf("ended %q with %q; want %q with %q", r.ended, r.msg, tc.wantEnded, tc.wantMsg)
			}
		})
	}
}
