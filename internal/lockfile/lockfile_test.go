package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAcquireHeld: a second Acquire of a held lock fails naming the
// holder's pid and command; after Release it succeeds and the file is
// gone.
func TestAcquireHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv.lock")
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path)
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second Acquire = %v, want a HeldError", err)
	}
	if he.PID != os.Getpid() || !strings.Contains(he.Command, filepath.Base(os.Args[0])) {
		t.Errorf("holder pid %d command %q, want %d and this test's command", he.PID, he.Command, os.Getpid())
	}
	for _, s := range []string{path, "pid " + strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not name %q", err, s)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Release: %v", err)
	}
	l2, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}

// TestAcquireStaleFile: a lock file left by a process that is gone (kill
// -9 leaves the file, not the lock) is taken over.
func TestAcquireStaleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv.lock")
	if err := os.WriteFile(path, []byte("999999\ngopsim sweep old.toml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire over a stale file: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), strconv.Itoa(os.Getpid())+"\n") {
		t.Errorf("lock file holds %q, want this process", b)
	}
	l.Release()
}

func TestParseHolder(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"12\ngopsim sweep a.toml\n", "pid 12 (gopsim sweep a.toml)"},
		{"12\n", "pid 12,"},
		{"", "another process"},
		{"garbage", "another process"},
	} {
		if got := parseHolder("x.lock", tc.in).Error(); !strings.Contains(got, tc.want) {
			t.Errorf("parseHolder(%q) = %q, want %q in it", tc.in, got, tc.want)
		}
	}
}
