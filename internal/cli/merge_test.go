package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

func TestMergeUsage(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.goal", pingpong)
	out := filepath.Join(dir, "m.goal")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"help", "merge"}, ExitOK, "Usage: gopsim merge -o OUT", ""},
		{"listed", []string{"help"}, ExitOK, "place several schedules onto one machine", ""},
		{"no jobs", []string{"merge", "-o", out}, ExitUsage, "", "expected the jobs' schedules"},
		{"no output", []string{"merge", a, a}, ExitUsage, "", "expected -o OUT"},
		{"bad placement", []string{"merge", "-o", out, "--placement", "scatter", a}, ExitUsage, "", "expected packed, round-robin or random"},
		{"bad flag", []string{"merge", "-o", out, "--bogus", a}, ExitUsage, "", "flag provided but not defined"},
		{"missing job", []string{"merge", "-o", out, a, filepath.Join(dir, "none.bin")}, ExitError, "", "job 1: open"},
		{"output -", []string{"merge", "-o", "-", a, a}, ExitUsage, "", `-o "-": give a file`},
		{"output is a job", []string{"merge", "-o", a, a, a}, ExitUsage, "", "-o " + a + " is an input of this command"},
		{"map is a job", []string{"merge", "-o", out, "--map", a, a, a}, ExitUsage, "", "--map " + a + " is an input of this command"},
		{"map is the output", []string{"merge", "-o", out, "--map", out, a, a}, ExitUsage, "", "--map " + out + " is an input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestMergeRun: flags before and after the jobs, the placement on stderr,
// in the text output's comments and in the --map file.
func TestMergeRun(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.goal", pingpong)
	b := filepath.Join(dir, "b.bin")
	if code, _, errOut := run("extrapolate", "--factor", "2", a, b); code != ExitOK {
		t.Fatal(errOut)
	}
	out, mapFile := filepath.Join(dir, "m.goal"), filepath.Join(dir, "map.txt")
	code, _, errOut := run("merge", a, b, "-o", out, "--placement", "round-robin", "--map", mapFile)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"merged 2 jobs with --placement round-robin", "6 ranks", "job 0: " + a + ", 2 ranks on machine ranks 0,2", "job 1: " + b + ", 4 ranks on machine ranks 1,3-5"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	s, _, err := goal.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Job 1's rank 2 (its second copy's sender) is machine rank 4, its
	// receiver machine rank 5.
	if s.NumRanks != 6 || s.RankOps(4)[0].Peer != 5 || s.RankOps(0)[0].Peer != 2 {
		t.Errorf("merged: %d ranks, rank 4 -> %d, rank 0 -> %d", s.NumRanks, s.RankOps(4)[0].Peer, s.RankOps(0)[0].Peer)
	}
	text, _ := os.ReadFile(out)
	if !strings.Contains(string(text), "// job 1: "+b+", 4 ranks (1 CPUs, 1 NICs) on machine ranks 1,3-5") {
		t.Errorf("text output lacks the placement:\n%s", text)
	}
	m, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), "rank job job_rank\n0 0 0\n1 1 0\n2 0 1\n3 1 1\n4 1 2\n5 1 3\n") {
		t.Errorf("map:\n%s", m)
	}
	// The same seed gives the same random placement.
	var maps []string
	for range 2 {
		code, _, errOut := run("merge", "--placement", "random", "--seed", "5", "-o", filepath.Join(dir, "r.bin"), "--map", mapFile, a, b)
		if code != ExitOK {
			t.Fatal(errOut)
		}
		m, _ := os.ReadFile(mapFile)
		maps = append(maps, string(m))
	}
	if maps[0] != maps[1] || !strings.Contains(maps[0], "--seed 5") {
		t.Errorf("random placements of seed 5:\n%s\n%s", maps[0], maps[1])
	}
}
