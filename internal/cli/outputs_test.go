package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputTargets: every command that writes a file writes through a
// FIFO and /dev/null (which stay what they are), replaces the file a
// symbolic link points to (the link stays), and refuses a directory; a
// leftover temporary file of a dead run is cleaned.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "pp.goal", "num_ranks 2\nrank 0 {\nl1: calc 100\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	commands := []struct {
		name string
		args func(out string) []string
	}{
		{"gen", func(out string) []string { return []string{"gen", "-p", "binomialtreebcast", "-s", "4", "-o", out} }},
		{"convert", func(out string) []string { return []string{"convert", sched, out} }},
		{"extrapolate", func(out string) []string { return []string{"extrapolate", "--factor", "2", sched, out} }},
		{"merge", func(out string) []string { return []string{"merge", "-o", out, sched, sched} }},
		{"sim --timeline", func(out string) []string { return []string{"sim", "--timeline", out, sched} }},
	}
	for _, c := range commands {
		t.Run(c.name+"/fifo", func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "out.goal")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			got := make(chan int, 1)
			go func() {
				b, _ := os.ReadFile(fifo)
				got <- len(b)
			}()
			if code, _, e := run(c.args(fifo)...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			if n := <-got; n == 0 {
				t.Errorf("the FIFO's reader got nothing")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("%s is no longer a FIFO: %v", fifo, err)
			}
		})
		t.Run(c.name+"/dev null", func(t *testing.T) {
			if code, _, e := run(c.args(os.DevNull)...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			if fi, err := os.Lstat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Fatalf("%s is no longer a character device: %v", os.DevNull, err)
			}
		})
		t.Run(c.name+"/symlink", func(t *testing.T) {
			d := t.TempDir()
			real := writeFile(t, d, "real.goal", "old")
			link := filepath.Join(d, "link.goal")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			// A temporary of a run that is gone (no process has that id).
			dead := filepath.Join(d, ".real.goal.tmp.999999999.x@"+hostnameForTest())
			if err := os.WriteFile(dead, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, e := run(c.args(link)...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			if b, _ := os.ReadFile(real); len(b) == 0 || string(b) == "old" {
				t.Errorf("the link's target was not replaced: %q", b)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link: %v", link, err)
			}
			es, _ := os.ReadDir(d)
			for _, e := range es {
				if strings.Contains(e.Name(), ".tmp.") {
					t.Errorf("temporary file left: %s", e.Name())
				}
			}
		})
		t.Run(c.name+"/directory", func(t *testing.T) {
			d := t.TempDir()
			code, _, e := run(c.args(d)...)
			if code != ExitError || !strings.Contains(e, "is a directory") {
				t.Errorf("exit %d: %s", code, e)
			}
		})
	}
}

func hostnameForTest() string {
	h, _ := os.Hostname()
	return h
}

// TestOutputNotInput: a command refuses to write its output onto one of
// its inputs (by any path), which it would destroy, and leaves the input
// as it was.
func TestOutputNotInput(t *testing.T) {
	dir := t.TempDir()
	const text = "num_ranks 2\nrank 0 {\nl1: calc 100\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"
	sched := writeFile(t, dir, "pp.goal", text)
	const specText = "input = \"pp.goal\"\noutput = \"s.csv\"\n[grid]\nL_ns = [1, 2]\n"
	spec := writeFile(t, dir, "s.toml", specText)
	if code, _, e := run("sweep", "--quiet", "--shard", "0/2", spec); code != ExitOK {
		t.Fatalf("sweep: %s", e)
	}
	shard := filepath.Join(dir, "s-shard-0-of-2.csv")
	shardText, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	lib := writeFile(t, dir, "lib.json", `{"library": {"name": "x", "first_contact_ns": "1us", "comm_create_ns": 0, "first_call": []}}`)
	liballprof := copyDir(t, "../../trace/liballprof/testdata/vladimir-4")
	rankFile := filepath.Join(liballprof, "pmpi-trace-rank-0.txt")
	rankText, err := os.ReadFile(rankFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		in   string // the input that must stay as it was
		was  string
	}{
		{"convert onto its schedule", []string{"convert", sched, sched}, sched, text},
		{"convert onto its schedule by another path", []string{"convert", sched, filepath.Join(dir, ".", "pp.goal")}, sched, text},
		{"convert onto its library costs", []string{"convert", "--library-costs", lib, liballprof, lib}, lib, ""},
		{"extrapolate onto its schedule", []string{"extrapolate", "--factor", "2", sched, sched}, sched, text},
		{"sweep merge onto the spec", []string{"sweep", "merge", "--spec", spec, "-o", spec, shard}, spec, specText},
		{"sweep merge onto a shard", []string{"sweep", "merge", "--spec", spec, "-o", shard, shard}, shard, string(shardText)},
		{"sweep merge onto the schedule", []string{"sweep", "merge", "--spec", spec, "-o", sched, shard}, sched, text},
		{"convert onto a rank file of its trace", []string{"convert", rankFile, rankFile}, rankFile, string(rankText)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(tc.in)
			code, _, e := run(tc.args...)
			if code != ExitUsage || !strings.Contains(e, "is an input of this command") {
				t.Errorf("exit %d, stderr %q; want exit %d and \"is an input of this command\"", code, e, ExitUsage)
			}
			if after, _ := os.ReadFile(tc.in); string(after) != string(before) || (tc.was != "" && string(after) != tc.was) {
				t.Errorf("%s changed", tc.in)
			}
		})
	}
}
