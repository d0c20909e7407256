package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/progress"
)

// TestProgressQuiet: the long-running commands take --quiet, and draw no
// bar when stderr is not a terminal (here a buffer) even without it.
func TestProgressQuiet(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	_, spec := sweepDir(t)
	tests := []struct {
		name string
		args []string
	}{
		{"gen", []string{"gen", "-p", "binomialtreebcast", "-s", "16", "-o", filepath.Join(dir, "b.goal")}},
		{"gen quiet", []string{"gen", "--quiet", "-p", "binomialtreebcast", "-s", "16", "-o", filepath.Join(dir, "b.bin")}},
		{"convert", []string{"convert", in, filepath.Join(dir, "pp.bin")}},
		{"convert quiet", []string{"convert", "--quiet", in, filepath.Join(dir, "pp2.bin")}},
		{"sweep", []string{"sweep", spec}},
		{"sweep quiet", []string{"sweep", "--quiet", spec}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(tc.args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "\r") || strings.Contains(stderr, "█") {
				t.Errorf("a progress bar on a stderr that is not a terminal: %q", stderr)
			}
		})
	}
	code, out, _ := run("help", "calibrate")
	if code != ExitOK || !strings.Contains(out, "-quiet") {
		t.Errorf("calibrate has no --quiet flag:\n%s", out)
	}
}

// TestSweepProgressBar: on a (fake) terminal the sweep draws a bar that
// counts the points, with a rate.
func TestSweepProgressBar(t *testing.T) {
	_, spec := sweepDir(t)
	var stdout, stderr bytes.Buffer
	o := SweepOptions{Spec: spec, Workers: 1, Progress: progress.Options{Terminal: true, Throttle: 1}}
	if err := Sweep(context.Background(), o, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"6/6", "points/s", "100%"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, stderr.String())
		}
	}
	stderr.Reset()
	o.Quiet = true
	if err := Sweep(context.Background(), o, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 {
		t.Errorf("--quiet: stderr %q", stderr.String())
	}
}
