package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
		return fifoOf(t, filepath.Join(t.TempDir(), filepath.Base(src)), data)
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

// fifoOf makes a FIFO at path p that gives data to its first reader.
func fifoOf(t *testing.T, p string, data []byte) string {
	t.Helper()
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

// runReading is run for a command that reads input, failing the test if
// it has not returned within a minute: a command that opens a FIFO (made
// by fifoOf) a second time after its writer has gone waits for ever. On a
// timeout it opens the FIFO for writing and closes it, so that the
// command reads an end of file and returns.
func runReading(t *testing.T, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := run(args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(time.Minute):
		if fi, err := os.Lstat(input); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if f, err := os.OpenFile(input, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		t.Fatalf("gopsim %s: still running after a minute, reading %s", strings.Join(args, " "), input)
		return
	}
}

// TestSweepOpBeyondLimits: gopsim sweep refuses an op larger than sim
// runs with gopsim sim's message, however it reads its input: held in
// memory (the default for a small schedule, --stream off) or streamed
// (--stream on), untransformed or with a compute_scale or an
// extrapolate_factor to apply first, from a regular file or a FIFO (in
// the default mode too, which holds a FIFO without opening it to size
// it). A text's op is named at its file:line:col, a binary schedule's by the
// file, the rank, the op and its label. It is refused before any point
// runs: nothing on stdout, no result, meta or lock file. (A text streamed
// untransformed, which the sweep always read as sim does, is
// TestSimOpBeyondLimits's.)
func TestSweepOpBeyondLimits(t *testing.T) {
	const head = "num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: calc 100\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0\n"
	contents := []struct {
		name, text string
		err        string // after the input's name and, for a text, ":9:11"
	}{
		{"send", head + "big: send 4398046511104b to 0\n}\n",
			": rank 1 op 1 (big): send of 4398046511104 bytes beyond the supported 2199023255552"},
		// Refused although a point scales compute by 0.5: another
		// keeps it or scales it up.
		{"calc", head + "big: calc 4611686018427387904\n}\n",
			": rank 1 op 1 (big): calc of 4611686018427387904 ns beyond the supported 4611686018427387903"},
	}
	grids := []struct{ name, grid string }{
		{"untransformed", "L_ns = [100, 200]"},
		{"compute scale", "L_ns = [100, 200]\ncompute_scale = [0.5, 2]"},
		{"extrapolated", "L_ns = [100]\nextrapolate_factor = [1, 2]"},
	}
	modes := []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"in memory", []string{"--stream", "off"}},
		{"streamed", []string{"--stream", "on"}},
	}
	for _, c := range contents {
		s, err := goal.ReadText(strings.NewReader(c.text), "x.goal")
		if err != nil {
			t.Fatal(err)
		}
		var bin bytes.Buffer
		if err := goal.WriteBinary(&bin, s); err != nil {
			t.Fatal(err)
		}
		for _, src := range []struct {
			name, file string
			data       []byte
			fifo       bool
			at         string // the text's line and column
		}{
			{"text", "x.goal", []byte(c.text), false, ":9:11"},
			{"binary", "x.bin", bin.Bytes(), false, ""},
			{"text from a FIFO", "x.goal", []byte(c.text), true, ":9:11"},
			{"binary from a FIFO", "x.bin", bin.Bytes(), true, ""},
		} {
			for _, g := range grids {
				for _, m := range modes {
					if src.at != "" && m.name == "streamed" && g.name == "untransformed" {
						continue // read as sim reads it before
					}
					t.Run(strings.Join([]string{c.name, src.name, g.name, m.name}, ", "), func(t *testing.T) {
						dir := t.TempDir()
						in := filepath.Join(dir, src.file)
						if src.fifo {
							fifoOf(t, in, src.data)
						} else if err := os.WriteFile(in, src.data, 0o644); err != nil {
							t.Fatal(err)
						}
						out := filepath.Join(dir, "out")
						if err := os.Mkdir(out, 0o755); err != nil {
							t.Fatal(err)
						}
						spec := writeFile(t, dir, "s.toml", fmt.Sprintf("input = %q\noutput = \"out/r.csv\"\n[grid]\n%s\n", src.file, g.grid))
						args := append([]string{"sweep", "--quiet"}, m.args...)
						if m.name == "streamed" {
							args = append(args, "--spill-dir", dir)
						}
						code, stdout, errOut := runReading(t, in, append(args, spec)...)
						// The last line: a note on a spill directory in
						// memory may come first.
						lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
						if want := "gopsim sweep: " + in + src.at + c.err; code != ExitError || stdout != "" || lines[len(lines)-1] != want {
							t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and\n%s", code, stdout, errOut, want)
						}
						if ents, _ := os.ReadDir(out); len(ents) > 0 {
							t.Errorf("the output directory holds %d files (%s...), want none", len(ents), ents[0].Name())
						}
					})
				}
			}
		}
	}
}

// TestSweepCalcScaledWithinLimits: a calc longer than sim runs is read
// when every point scales compute below 1, which can bring it within the
// limit (2^62 ns times 0.125 is also within the engine's times): the
// sweep runs, from a text or a binary schedule, held or streamed.
func TestSweepCalcScaledWithinLimits(t *testing.T) {
	dir := t.TempDir()
	text := writeFile(t, dir, "x.goal", "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from 0\nbig: calc 4611686018427387904\n}\n")
	if code, _, errOut := run("convert", text, filepath.Join(dir, "x.bin")); code != ExitOK {
		t.Fatalf("convert: %s", errOut)
	}
	for _, tc := range []struct {
		name, input string
		args        []string
	}{
		{"text, in memory", "x.goal", []string{"--stream", "off"}},
		{"text, streamed", "x.goal", []string{"--stream", "on", "--spill-dir", dir}},
		{"binary, in memory", "x.bin", []string{"--stream", "off"}},
		{"binary, streamed", "x.bin", []string{"--stream", "on", "--spill-dir", dir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.csv")
			spec := writeFile(t, dir, "s.toml", fmt.Sprintf("input = %q\noutput = %q\n[grid]\ncompute_scale = [0.125]\n", tc.input, out))
			code, stdout, errOut := run(append(append([]string{"sweep", "--quiet"}, tc.args...), spec)...)
			if code != ExitOK || !strings.HasPrefix(stdout, out+": 1 points (1 new") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, errOut)
			}
		})
	}
}
