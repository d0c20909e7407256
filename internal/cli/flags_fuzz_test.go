package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSimFlags runs `gopsim sim` with any flags on a small schedule: it
// never panics, exits 0, 1 or 2, says why on stderr when it fails, in
// lines of bounded length (long tokens are cut), and writes nothing on
// stdout then.
func FuzzSimFlags(f *testing.F) {
	for _, seed := range []string{
		"", "-L 100", "-L 1.5", "-G 4194305", "--noise-interval 100", "--noise-dist exp --noise-interval 100 --noise-length 5",
		"--noise-period 100 --noise-period-length 5 --noise-cosched", "--stragglers 1 --straggler-factor NaN",
		"--straggler-fraction 0.5 --straggler-factor 2 --seed 3", "--timing", "--json --timing", "--stream off --spill-dir x",
		"--model all", "--queue heap", "-S -1", "-L " + strings.Repeat("9", 300), "--bogus", "--json --breakdown --critical-path",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	sched := filepath.Join(dir, "pp.goal")
	if err := os.WriteFile(sched, []byte("num_ranks 2\nrank 0 {\nl1: calc 100\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, flags string) {
		args := strings.Fields(flags)
		for _, a := range args {
			// No flag may name a file to write, or a directory.
			if strings.ContainsAny(a, "/\\") || strings.Contains(a, "timeline") || strings.Contains(a, "paraver") || strings.Contains(a, "params") {
				return
			}
		}
		var out, errb bytes.Buffer
		code := Main(append(append([]string{"sim"}, args...), sched), &out, &errb)
		switch code {
		case ExitOK:
			if out.Len() == 0 {
				t.Errorf("sim %q: exit 0 and no result", flags)
			}
		case ExitError, ExitUsage:
			if errb.Len() == 0 {
				t.Errorf("sim %q: exit %d without a word on stderr", flags, code)
			}
			for _, l := range strings.Split(errb.String(), "\n") {
				if len(l) > 600 {
					t.Errorf("sim %q: a line of %d bytes on stderr: %.120s...", flags, len(l), l)
				}
			}
		default:
			t.Errorf("sim %q: exit %d", flags, code)
		}
	})
}
