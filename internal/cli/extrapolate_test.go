package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

func TestExtrapolateUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	// One rank ×3: the Allreduce over 3 ranks has rank 1, copy 1 of rank
	// 0, reduce (recursive doubling), not rank 0.
	tit := writeFile(t, dir, "one.txt", "0 init\n0 allreduce 1000 0\n0 finalize\n")
	out := filepath.Join(dir, "out.goal")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"help", "extrapolate"}, ExitOK, "Usage: gopsim extrapolate --factor K", ""},
		{"help says schedules keep collectives in copies", []string{"extrapolate", "-h"}, ExitOK, "cannot be recognised", ""},
		{"listed", []string{"help"}, ExitOK, "turn a P-rank trace or schedule into K·P ranks", ""},
		{"no factor", []string{"extrapolate", in, out}, ExitUsage, "", "--factor K is required"},
		{"factor 0", []string{"extrapolate", "--factor", "0", in, out}, ExitUsage, "", "--factor 0: give the scale factor K"},
		{"output -", []string{"extrapolate", "--factor", "2", in, "-"}, ExitUsage, "", `OUT "-": give a file`},
		{"no output", []string{"extrapolate", "--factor", "2", in}, ExitUsage, "", "expected IN and OUT"},
		{"fractional factor", []string{"extrapolate", "--factor", "2.5", in, out}, ExitUsage, "", `invalid value "2.5" for flag -factor: want a whole number K of copies`},
		{"bad grid", []string{"extrapolate", "--factor", "2", "--grid", "4x0", in, out}, ExitUsage, "", "is not a positive integer"},
		{"grid and no-grid", []string{"extrapolate", "--factor", "2", "--grid", "2", "--no-grid", in, out}, ExitUsage, "", "exclude each other"},
		{"grid size", []string{"extrapolate", "--factor", "2", "--grid", "3", in, out}, ExitUsage, "", "grid 3 has 3 ranks, the schedule 2"},
		{"missing input", []string{"extrapolate", "--factor", "2", filepath.Join(dir, "none.goal"), out}, ExitError, "", "no such file"},
		{"too many ranks", []string{"extrapolate", "--factor", "2000000000", in, out}, ExitError, "", "more than the 2147483647 ranks"},
		{"a copy's error", []string{"extrapolate", "--factor", "3", "--reduce-cost", "1e16", tit, out}, ExitError, "",
			tit + ":2 (copy 1 of rank 0): rank 1: MPI_Allreduce at t=0: --reduce-cost 1e+16: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed extrapolation left %s: %v", out, err)
	}
}

// TestExtrapolateSchedule: a GOAL schedule, text in, text and binary out;
// the text output names the command.
func TestExtrapolateSchedule(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	for _, name := range []string{"x.goal", "x.bin"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			code, _, errOut := run("extrapolate", "--factor", "3", in, out)
			if code != ExitOK || !strings.Contains(errOut, "×3 to "+out) || !strings.Contains(errOut, "6 ranks, 6 ops") {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			s, _, err := goal.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if s.NumRanks != 6 || s.RankOps(4)[0].Peer != 5 || s.RankOps(5)[0].Peer != 4 {
				t.Errorf("%d ranks, rank 4 -> %d, rank 5 <- %d", s.NumRanks, s.RankOps(4)[0].Peer, s.RankOps(5)[0].Peer)
			}
		})
	}
	text, err := os.ReadFile(filepath.Join(dir, "x.goal"))
	if err != nil || !strings.HasPrefix(string(text), "// gopsim extrapolate --factor 3 "+in) {
		t.Errorf("header of the text output: %.80q, %v", text, err)
	}
}

// TestExtrapolateTrace: a traced halo2d on 4 ranks (a periodic 2x2 grid)
// extrapolated ×8 through the command line.
func TestExtrapolateTrace(t *testing.T) {
	root := tracerBuild(t)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := t.TempDir()
	tr := filepath.Join(dir, "halo")
	args := []string{"trace", "-o", tr, "--lib", filepath.Join(root, "bin", TracerLib), "--", "mpirun", "-np", "4"}
	openMPI := false
	if v, _ := exec.Command("mpirun", "--version").CombinedOutput(); strings.Contains(string(v), "Open MPI") {
		args = append(args, "--oversubscribe")
		openMPI = true
	}
	args = append(args, filepath.Join(root, "bin", "examples", "mpi", "halo2d"), "5", "16", "16")
	if code, _, errOut := run(args...); code != ExitOK {
		t.Fatalf("trace: exit %d: %s", code, errOut)
	}
	out := filepath.Join(dir, "x.bin")
	code, _, errOut := run("extrapolate", "--factor", "8", tr, out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wants := []string{"grid: 2x2 grown to 16x2", "32 ranks", "collectives regenerated"}
	if openMPI { // the copies keep the traced library's rules
		wants = append(wants, "collectives: openmpi rules (--coll-select auto)")
	}
	for _, want := range wants {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, simOut, errOut := run("sim", out); code != ExitOK || !strings.Contains(simOut, "max finishing time") {
		t.Errorf("sim: exit %d: %s%s", code, simOut, errOut)
	}
}
