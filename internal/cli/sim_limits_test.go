package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestSimOpBeyondLimits: an op larger than sim runs (a 4 TiB send, a calc
// of 2^62 ns) in a text schedule is an error at its file:line:col, however
// the text is read: in memory or streamed, from a regular file (parsed on
// all CPUs when it is large enough to be cut in pieces) or from a FIFO
// (read once, in order). In a binary schedule, which has no lines, the
// error names the file, the rank, the op and its label, as the text's
// does after its line (no "sim:" between them), before any model runs.
// Nothing goes to stdout, and the exit status is 1.
func TestSimOpBeyondLimits(t *testing.T) {
	dir := t.TempDir()
	small := writeFile(t, dir, "x.goal", `num_ranks 2
rank 0 {
l1: send 8b to 1
l2: calc 100
l2 requires l1
}
rank 1 {
l1: recv 8b from 0
big: send 4398046511104b to 0
}
`)
	const smallErr = "9:11: rank 1 op 1 (big): send of 4398046511104 bytes beyond the supported 2199023255552"
	// A ring of 40,000 ranks (3 MB, which the readers cut in pieces of 1
	// MiB) with a calc of 2^62 ns, one more than a calc holds, late in it.
	const n = 40000
	var ring strings.Builder
	fmt.Fprintf(&ring, "num_ranks %d\n", n)
	bigLine := 0
	for r := range n {
		fmt.Fprintf(&ring, "rank %d {\nl1: send 8b to %d\nl2: recv 8b from %d\nl2 requires l1\n", r, (r+1)%n, (r+n-1)%n)
		if r == 37001 {
			bigLine = strings.Count(ring.String(), "\n") + 1
			ring.WriteString("calc 4611686018427387904\n")
		}
		ring.WriteString("}\n")
	}
	if ring.Len() < 5<<19 {
		t.Fatalf("the ring's text has %d bytes, too few to be cut in pieces", ring.Len())
	}
	large := writeFile(t, dir, "ring.goal", ring.String())
	largeErr := fmt.Sprintf("%d:6: rank 37001 op 2: calc of 4611686018427387904 ns beyond the supported 4611686018427387903", bigLine)
	// The binary form names the op as the text does, without its line.
	const binErr = "rank 1 op 1 (big): send of 4398046511104 bytes beyond the supported 2199023255552"
	bin := filepath.Join(dir, "x.bin")
	if code, _, errOut := run("convert", small, bin); code != ExitOK {
		t.Fatalf("convert: %s", errOut)
	}
	if s, f, err := goal.ReadFile(bin); err != nil || f != goal.FormatBinary || s.Ops[3].Size != 1<<42 {
		t.Fatalf("the binary schedule: %v, %v", f, err)
	}
	fifo := func(src string) string {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), filepath.Base(src))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(data) // fails if the reader stops at the error
			f.Close()
		}()
		return p
	}
	spill := []string{"--stream", "on", "--spill-dir", dir}
	for _, tc := range []struct {
		name  string
		input func() string
		args  []string
		want  string // after "gopsim sim: " and the input's name
	}{
		{"text, in memory", func() string { return small }, []string{"--stream", "off"}, ":" + smallErr},
		{"text, auto", func() string { return small }, nil, ":" + smallErr},
		{"text, streamed", func() string { return small }, spill, ":" + smallErr},
		{"text from a FIFO, in memory", func() string { return fifo(small) }, []string{"--stream", "off"}, ":" + smallErr},
		{"text from a FIFO, streamed", func() string { return fifo(small) }, spill, ":" + smallErr},
		{"large text, in memory", func() string { return large }, []string{"--stream", "off"}, ":" + largeErr},
		{"large text, streamed", func() string { return large }, spill, ":" + largeErr},
		{"large text from a FIFO, streamed", func() string { return fifo(large) }, spill, ":" + largeErr},
		{"binary, in memory", func() string { return bin }, []string{"--stream", "off"}, ": " + binErr},
		{"binary, streamed", func() string { return bin }, spill, ": " + binErr},
		{"binary, every model", func() string { return bin }, []string{"--model", "all"}, ": " + binErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.input()
			code, out, errOut := run(append(append([]string{"sim", "--quiet"}, tc.args...), in)...)
			// The last line: a note on a spill directory in memory may
			// come first.
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if want := "gopsim sim: " + in + tc.want; code != ExitError || out != "" || lines[len(lines)-1] != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and\n%s", code, out, errOut, want)
			}
		})
	}
	// A sweep that streams its input reads it as gopsim sim does.
	spec := writeFile(t, dir, "s.toml", "input = \"x.goal\"\noutput = \"out.csv\"\n[grid]\nL_ns = [100, 200]\n")
	code, _, errOut := run("sweep", "--stream", "on", "--spill-dir", dir, spec)
	if want := "gopsim sweep: " + small + ":" + smallErr; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("sweep --stream on: exit %d, %s\nwant %s", code, errOut, want)
	}
}
