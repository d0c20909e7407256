package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// temporaries lists the temporary files left in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range es {
		if strings.Contains(e.Name(), ".tmp") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

func TestWriteRegularTargets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (path, file string) // path given to Write, file that must hold the bytes
	}{
		{"absent", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "out.bin")
			return p, p
		}},
		{"regular", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "out.bin")
			must(t, os.WriteFile(p, []byte("old content, longer than the new"), 0o640))
			return p, p
		}},
		{"symlink to regular", func(t *testing.T, dir string) (string, string) {
			real := filepath.Join(dir, "sub", "real.bin")
			must(t, os.Mkdir(filepath.Dir(real), 0o755))
			must(t, os.WriteFile(real, []byte("old"), 0o600))
			link := filepath.Join(dir, "link.bin")
			must(t, os.Symlink(real, link))
			return link, real
		}},
		{"relative name", func(t *testing.T, dir string) (string, string) {
			t.Chdir(dir)
			return "out.bin", filepath.Join(dir, "out.bin")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, file := tc.setup(t, dir)
			var oldMode fs.FileMode
			if st, err := os.Stat(file); err == nil {
				oldMode = st.Mode().Perm()
			}
			if err := Write(path, writeString("new\n")); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(file)
			if err != nil || string(got) != "new\n" {
				t.Fatalf("%s holds %q (%v), want \"new\\n\"", file, got, err)
			}
			if abs, _ := filepath.Abs(path); abs != file {
				li, err := os.Lstat(path)
				if err != nil || li.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("%s is no longer a symbolic link (%v, %v)", path, li.Mode(), err)
				}
			}
			if st, _ := os.Stat(file); oldMode != 0 && st.Mode().Perm() != oldMode {
				t.Errorf("permissions %v, want the replaced file's %v", st.Mode().Perm(), oldMode)
			}
			for _, d := range []string{dir, filepath.Dir(file)} {
				if tmp := temporaries(t, d); len(tmp) > 0 {
					t.Errorf("temporary files left in %s: %v", d, tmp)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteThrough: a FIFO and a character device, directly or through a
// link, get the bytes written into them and stay what they were.
func TestWriteThrough(t *testing.T) {
	for _, tc := range []struct {
		name string
		link bool
		dev  bool
	}{{"fifo", false, false}, {"symlink to fifo", true, false}, {"dev null", false, true}, {"symlink to dev null", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			node := "/dev/null"
			got := make(chan string, 1)
			if !tc.dev {
				node = filepath.Join(dir, "fifo")
				must(t, syscall.Mkfifo(node, 0o600))
				go func() {
					b, _ := os.ReadFile(node)
					got <- string(b)
				}()
			}
			before, err := os.Lstat(node)
			must(t, err)
			path := node
			if tc.link {
				path = filepath.Join(dir, "link")
				must(t, os.Symlink(node, path))
			}
			if err := Write(path, writeString("through\n")); err != nil {
				t.Fatal(err)
			}
			if !tc.dev {
				if s := <-got; s != "through\n" {
					t.Errorf("the reader of the FIFO got %q", s)
				}
			}
			after, err := os.Lstat(node)
			must(t, err)
			if after.Mode().Type() != before.Mode().Type() || !os.SameFile(before, after) {
				t.Errorf("%s was replaced: mode %v, was %v", node, after.Mode(), before.Mode())
			}
			if tc.link {
				if li, _ := os.Lstat(path); li.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the link %s was replaced", path)
				}
			}
			if tmp := temporaries(t, dir); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

func TestWriteRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string
	}{
		{"directory", func(t *testing.T, dir string) string { return dir }, "is a directory"},
		{"dangling symlink", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "link")
			must(t, os.Symlink(filepath.Join(dir, "missing"), p))
			return p
		}, "does not exist"},
		{"socket", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sock")
			l, err := net.Listen("unix", p)
			must(t, err)
			t.Cleanup(func() { l.Close() })
			return p
		}, "is a socket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			err := Write(path, writeString("x"))
			if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Write(%s) = %v, want ErrTarget naming the path and %q", path, err, tc.want)
			}
			if tmp := temporaries(t, dir); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

// TestWriteFailureKeepsOld: an error from the writer, or the temporary
// file removed under it (a signal), leaves the old file and no temporary.
func TestWriteFailureKeepsOld(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"writer error", func(w io.Writer) error { io.WriteString(w, "partial"); return boom }},
		{"temporaries removed", func(w io.Writer) error {
			io.WriteString(w, "partial")
			if n := RemoveTemporaries(); n != 1 {
				t.Errorf("RemoveTemporaries removed %d files, want 1", n)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.csv")
			must(t, os.WriteFile(p, []byte("old"), 0o644))
			if err := Write(p, tc.write); err == nil {
				t.Fatal("Write succeeded")
			}
			if b, _ := os.ReadFile(p); string(b) != "old" {
				t.Errorf("%s holds %q, want the old content", p, b)
			}
			if tmp := temporaries(t, dir); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

// deadPID returns the id of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

// TestStaleTemporaries: a Write removes the temporary files of its output
// left by processes of this host that are gone, and nothing else.
func TestStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	host := hostname()
	dead := strconv.Itoa(deadPID(t))
	parent := strconv.Itoa(os.Getppid())
	files := []struct {
		name string
		keep bool
	}{
		{".out.bin.tmp." + dead + ".abc@" + host, false},
		{".out.bin.tmp." + parent + ".abc@" + host, true},        // owner alive
		{".out.bin.tmp." + dead + ".abc@another-host", true},     // cannot tell
		{".other.bin.tmp." + dead + ".abc@" + host, true},        // another output
		{".out.bin.tmp.notapid.abc@" + host, true},               // not ours
		{".out.bin.tmp5k2j1", true},                              // an old-style name: owner unknown
		{"out.bin.tmp." + dead + ".abc@" + host + ".keep", true}, // a user's file
	}
	for _, f := range files {
		must(t, os.WriteFile(filepath.Join(dir, f.name), nil, 0o644))
	}
	must(t, Write(filepath.Join(dir, "out.bin"), writeString("x")))
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if exists := err == nil; exists != f.keep {
			t.Errorf("%s: exists %v, want %v", f.name, exists, f.keep)
		}
	}
}

func TestParseTemp(t *testing.T) {
	dir := t.TempDir()
	f, err := createTemp(dir, "a.b")
	must(t, err)
	f.Close()
	pid, host, ok := parseTemp(filepath.Base(f.Name()), "a.b")
	if !ok || pid != os.Getpid() || host != hostname() {
		t.Errorf("parseTemp(%s) = %d, %q, %v", filepath.Base(f.Name()), pid, host, ok)
	}
	for _, bad := range []string{".a.b.tmp.", ".a.b.tmp.12", ".a.b.tmp.12.x", ".a.b.tmp.-3.x@h", ".a.c.tmp.12.x@h"} {
		if _, _, ok := parseTemp(bad, "a.b"); ok {
			t.Errorf("parseTemp(%q) accepted", bad)
		}
	}
}
