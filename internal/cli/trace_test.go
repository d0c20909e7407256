package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/trace"
)

func TestTraceUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"help", []string{"help", "trace"}, ExitOK, "Usage: gopsim trace", ""},
		{"-h", []string{"trace", "-h"}, ExitOK, "LD_PRELOAD", ""},
		{"no command", []string{"trace", "-o", "x"}, ExitUsage, "", "expected a command"},
		{"bad flag", []string{"trace", "--bogus", "--", "true"}, ExitUsage, "", "flag provided but not defined"},
		{"negative buffer", []string{"trace", "--buffer", "-1", "--", "true"}, ExitUsage, "", "--buffer -1: want at least 4096 bytes"},
		{"buffer below the tracer's smallest", []string{"trace", "--buffer", "100", "--", "true"}, ExitUsage, "", "--buffer 100: want at least 4096 bytes"},
		{"no library", []string{"trace", "--lib", "/nonexistent/lib.so", "--", "true"}, ExitError, "", "the tracer library libgopsim-pmpi.so was not found"},
		{"listed", []string{"help"}, ExitOK, "run an MPI program under the tracer", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errOut, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// A command that is not an MPI program leaves no trace: an error, not an
// empty summary.
func TestTraceNoMPI(t *testing.T) {
	dir := t.TempDir()
	lib := writeFile(t, dir, "fake.so", "")
	out := filepath.Join(dir, "out")
	code, _, errOut := run("trace", "-o", out, "--lib", lib, "--", "true")
	if code != ExitError || !strings.Contains(errOut, "no complete trace") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = run("trace", "-o", out, "--lib", lib, "--", "false")
	if code != ExitError || !strings.Contains(errOut, "false: exit status 1") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// tracerBuild builds the tracer and the examples with the Makefile and
// returns the repository root; without MPI it skips, unless $CI is set.
func tracerBuild(t *testing.T) string {
	t.Helper()
	testenv.NeedTools(t, "the tracer tests need Open MPI and gfortran (make mpi-deps)", "mpicc", "mpif90", "mpirun", "make")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", root, "tracer").CombinedOutput(); err != nil {
		t.Fatalf("make tracer: %v\n%s", err, out)
	}
	return root
}

func TestTraceRun(t *testing.T) {
	root := tracerBuild(t)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := filepath.Join(t.TempDir(), "run1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := writeFile(t, dir, trace.FileName(7), "an old trace")
	args := []string{"trace", "-o", dir, "--lib", filepath.Join(root, "bin", TracerLib), "--buffer", "65536", "--",
		"mpirun", "-np", "2"}
	if out, _ := exec.Command("mpirun", "--version").CombinedOutput(); strings.Contains(string(out), "Open MPI") {
		args = append(args, "--oversubscribe")
	}
	args = append(args, filepath.Join(root, "bin", "examples", "mpi", "pingpong"), "10", "64")
	code, out, errOut := run(args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "pingpong: 10 round trips of 64 bytes") {
		t.Errorf("the program's output is missing from stdout: %q", out)
	}
	for _, want := range []string{"trace: " + dir, "\nlibrary: ", "ranks: 2, communicators: 2", "ended: 2 with MPI_Finalize",
		"MPI_Send      20", "MPI_Recv      20", "MPI_Barrier   2"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("summary lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "library: not recorded") {
		t.Errorf("the tracer records the library (MPI_Get_library_version):\n%s", errOut)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the old rank file is still there: %v", err)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRanks() != 2 {
		t.Errorf("%d ranks", d.NumRanks())
	}
}

// TestTraceStatsLibrary: the summary names the MPI library the trace was
// taken with (MPI_Get_library_version's first part, as convert says it),
// or says the trace does not record it.
func TestTraceStatsLibrary(t *testing.T) {
	for _, tc := range []struct{ name, lib, want string }{
		{"open mpi", "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022", "\nlibrary: Open MPI v4.1.4\n"},
		{"mpich", "MPICH Version:      4.0.2", "\nlibrary: MPICH Version: 4.0.2\n"},
		{"none recorded", "", "\nlibrary: not recorded in the trace\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			printTraceStats(&b, "d", tc.lib, &trace.Stats{Ranks: 2, Ends: map[trace.EndReason]int{trace.EndFinalize: 2}})
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}

// TestTraceStatsUnits: every number of the trace summary has its unit.
func TestTraceStatsUnits(t *testing.T) {
	var b strings.Builder
	printTraceStats(&b, "d", "", &trace.Stats{Ranks: 2, Records: 10, Calls: 8, Bytes: 400, Span: 2e9, Ends: map[trace.EndReason]int{trace.EndFinalize: 2},
		Funcs: []trace.FuncCount{{Func: trace.FuncSend, Calls: 8, Records: 8, Time: 3e6}}})
	for _, want := range []string{"span: 2.000000 s", "400 bytes (40.0 bytes per record, 50.00 bytes per call)", "time_ms"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
