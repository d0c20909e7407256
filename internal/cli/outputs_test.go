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
