package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestPlainMessages: the errors of degenerate schedules name the input,
// are one short line whatever the token, and carry no doubled prefix.
func TestPlainMessages(t *testing.T) {
	dir := t.TempDir()
	f := func(name, content string) string { return writeFile(t, dir, name, content) }
	huge := strings.Repeat("9", 5000)
	zeroBin := filepath.Join(dir, "zero.bin")
	// A binary file of 0 ranks, written by hand: the writer refuses it.
	bin := append([]byte(nil), goal.BinaryMagic...)
	bin = append(bin, byte(goal.BinaryVersion), 0, 1, 1, 0)
	if err := os.WriteFile(zeroBin, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"num_ranks 0", []string{"sim", f("zero.goal", "num_ranks 0\n")}, []string{"zero.goal:1:1: num_ranks 0"}},
		{"binary num_ranks 0", []string{"sim", zeroBin}, []string{"zero.bin", "0 ranks, want 1.."}},
		{"convert num_ranks 0", []string{"convert", f("zero2.goal", "num_ranks 0\n"), filepath.Join(dir, "o.bin")}, []string{"zero2.goal:1:1: num_ranks 0"}},
		{"deadlock names the file", []string{"sim", f("dl.goal", "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\n}\nrank 1 {\n}\n")}, []string{"gopsim sim: " + filepath.Join(dir, "dl.goal") + ": sim: the schedule cannot finish"}},
		{"deadlock under --model all", []string{"sim", "--model", "all", filepath.Join(dir, "dl.goal")}, []string{filepath.Join(dir, "dl.goal") + ": model "}},
		{"huge number in a schedule", []string{"sim", f("big.goal", "num_ranks 1\nrank 0 {\ncalc "+huge+"\n}\n")}, []string{"big.goal:3:6: calc time 9999", "… (5000 bytes)"}},
		{"huge flag value", []string{"sim", "-L", huge, filepath.Join(dir, "dl.goal")}, []string{`invalid value "9999`, `…" (5000 bytes)`}},
		{"huge word in a schedule", []string{"sim", f("word.goal", strings.Repeat("x", 4000)+"\n")}, []string{"word.goal:1:1: expected", `…" (4000 bytes)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, e := run(tc.args...)
			if code == ExitOK {
				t.Fatalf("exit 0")
			}
			for _, w := range tc.want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr %q lacks %q", e, w)
				}
			}
			for _, line := range strings.Split(e, "\n") {
				if len(line) > 300 {
					t.Errorf("a line of %d bytes: %.100s...", len(line), line)
				}
			}
			if strings.Contains(e, "gopsim sim: sim:") || strings.Contains(e, "gopsim convert: convert:") {
				t.Errorf("doubled prefix: %q", e)
			}
		})
	}
}

func TestPrintErr(t *testing.T) {
	long := strings.Repeat("7", 100)
	for _, tc := range []struct {
		cmd, err, want string
	}{
		{"sim", "sim: the schedule cannot finish", "gopsim sim: the schedule cannot finish\n"},
		{"sweep merge", "sweep: merge: no files", "gopsim sweep merge: no files\n"},
		{"sim", "goal: not a GOAL file", "gopsim sim: goal: not a GOAL file\n"},
		{"sim", "x.goal: sim: stuck", "gopsim sim: x.goal: sim: stuck\n"},
		{"sim", "value " + long + " too big", "gopsim sim: value " + long[:40] + "… (100 bytes) too big\n"},
		{"sim", `"` + long + `" bad`, `gopsim sim: "` + long[:40] + `…" (100 bytes) bad` + "\n"},
		{"sim", "/a/very/long/path/" + long + ".goal: bad", "gopsim sim: /a/very/long/path/" + long + ".goal: bad\n"},
	} {
		var b strings.Builder
		printErr(&b, tc.cmd, errors.New(tc.err))
		if b.String() != tc.want {
			t.Errorf("printErr(%q, %q) = %q, want %q", tc.cmd, tc.err, b.String(), tc.want)
		}
	}
}
