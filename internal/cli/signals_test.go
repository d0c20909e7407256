package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// TestMain lets a test run this binary as a gopsim command stopped midway
// through writing its output (GOPSIM_TEST_SIGNAL_CHILD=PATH).
func TestMain(m *testing.M) {
	if out := os.Getenv("GOPSIM_TEST_SIGNAL_CHILD"); out != "" {
		signalChild(out)
		return
	}
	os.Exit(m.Run())
}

// signalChild writes half of out, says "ready" on stdout and waits for
// the signal under the handler every command runs with.
func signalChild(out string) {
	defer removeTempsOnSignal("test", os.Stderr)()
	err := atomicfile.Write(out, func(w io.Writer) error {
		io.WriteString(w, "half of a result")
		os.Stdout.WriteString("ready\n")
		select {}
	})
	os.Stderr.WriteString("not stopped: " + err.Error() + "\n")
	os.Exit(3)
}

// TestSignalRemovesTemporary: SIGINT, SIGTERM or SIGHUP during a write
// ends the process by that signal, removes the temporary file and leaves
// the old output as it was. A signal the test itself runs with ignored
// (SIGHUP under nohup) is ignored by the child too, which keeps writing.
func TestSignalRemovesTemporary(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bin")
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "GOPSIM_TEST_SIGNAL_CHILD="+out)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			hang := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
			defer hang.Stop()
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q; stderr: %s", line, stderr.String())
			}
			if n := len(leftovers(t, dir)); n != 1 {
				t.Errorf("%d temporary files while writing, want 1", n)
			}
			if signal.Ignored(sig) {
				// Run under nohup: the child inherits SIGHUP ignored and
				// must keep it so; it is stopped by SIGTERM instead.
				cmd.Process.Signal(sig)
				time.Sleep(200 * time.Millisecond)
				if n := len(leftovers(t, dir)); n != 1 {
					t.Errorf("%v, ignored when the child started: %d temporary files after it, want 1 (still writing)", sig, n)
				}
				sig = syscall.SIGTERM
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child ended with %v", err)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("child ended with %v, want killed by %v; stderr: %s", err, sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "removed 1 unfinished output file") {
				t.Errorf("stderr %q does not say the temporary file was removed", stderr.String())
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("temporary files left: %v", l)
			}
			if b, _ := os.ReadFile(out); string(b) != "old" {
				t.Errorf("output holds %q, want the old content", b)
			}
		})
	}
}

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var l []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".out.bin.tmp") {
			l = append(l, e.Name())
		}
	}
	return l
}
