package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoiseMeasureRefuses: gopsim noise measure refuses, before it
// measures, a threshold that would make every clock step a detour (an
// explicit 0 included: 0 is not "the default" when given) and an output
// whose directory does not exist; the default duration (10 s) would
// otherwise be measured and lost.
func TestNoiseMeasureRefuses(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "f", "")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"threshold 0", []string{"-o", filepath.Join(dir, "n.txt"), "--threshold", "0"}, ExitUsage, "--threshold 0s: want a duration > 0"},
		{"threshold negative", []string{"-o", filepath.Join(dir, "n.txt"), "--threshold", "-1us"}, ExitUsage, "--threshold -1µs: want a duration > 0"},
		{"duration 0", []string{"-o", filepath.Join(dir, "n.txt"), "--duration", "0s"}, ExitUsage, "--duration 0s: want a duration > 0"},
		{"no output directory", []string{"-o", filepath.Join(dir, "nodir", "n.txt")}, ExitError, "-o " + filepath.Join(dir, "nodir", "n.txt") + ": its directory: stat "},
		{"output directory a file", []string{"-o", filepath.Join(file, "n.txt")}, ExitError, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(append([]string{"noise", "measure"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q lacks %q", code, tc.code, stderr, tc.want)
			}
			if strings.Contains(stderr, "measuring for") {
				t.Errorf("refused after measuring: %q", stderr)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}
