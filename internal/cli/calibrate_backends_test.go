package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/internal/testenv"
)

// TestCalibrateBackendErrors: the flags of the mpi and ibverbs backends
// and what each backend refuses.
func TestCalibrateBackendErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mpi with listen", []string{"calibrate", "--backend", "mpi", "--listen", ":0"}, ExitUsage, "--backend mpi: --mpirun starts both ends"},
		{"mpi with peer", []string{"calibrate", "--backend", "mpi", "--peer", "x:1"}, ExitUsage, "--listen, --peer and --wait are for tcp and ibverbs"},
		{"mpirun without mpi", []string{"calibrate", "--mpirun", "mpirun -np 2"}, ExitUsage, "--mpirun, --prtt-bin, --warmup-runs, --warmup-bin and --launches apply to --backend mpi only"},
		{"launches without mpi", []string{"calibrate", "--launches", "2"}, ExitUsage, "apply to --backend mpi only"},
		{"more launches than passes", []string{"calibrate", "--backend", "mpi", "--passes", "2", "--launches", "3"}, ExitUsage, "--launches 3: want 1..2 (the passes; more passes with --passes)"},
		{"launches 0", []string{"calibrate", "--backend", "mpi", "--launches", "0"}, ExitUsage, "--launches 0: want 1..4"},
		{"warmup-runs without mpi", []string{"calibrate", "--warmup-runs", "2"}, ExitUsage, "apply to --backend mpi only"},
		{"warmup-bin without runs", []string{"calibrate", "--backend", "mpi", "--warmup-runs", "0", "--warmup-bin", "x"}, ExitUsage, "--warmup-bin with --warmup-runs 0: the probe does not run"},
		{"warmup-runs negative", []string{"calibrate", "--backend", "mpi", "--warmup-runs", "-1"}, ExitUsage, "--warmup-runs -1: want 0 (skip) to 1000"},
		{"prtt-bin with ibverbs", []string{"calibrate", "--backend", "ibverbs", "--prtt-bin", "x"}, ExitUsage, "apply to --backend mpi only"},
		{"empty mpirun", []string{"calibrate", "--backend", "mpi", "--mpirun", " "}, ExitUsage, "--mpirun is empty"},
		{"ib-dev with tcp", []string{"calibrate", "--ib-dev", "mlx5_0"}, ExitUsage, "apply to --backend ibverbs only"},
		{"bad gid index", []string{"calibrate", "--backend", "ibverbs", "--ib-gid-index", "-1"}, ExitUsage, "want an index 0..65535"},
		{"mpi program missing", []string{"calibrate", "--backend", "mpi", "--prtt-bin", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "p.json")},
			ExitError, "gopsim-prtt was not found (tried " + filepath.Join(dir, "none") + "); build it with 'make calibrate-deps'"},
		{"mpi launcher missing", []string{"calibrate", "--backend", "mpi", "--prtt-bin", os.Args[0], "--warmup-runs", "0", "--mpirun", filepath.Join(dir, "no-mpirun") + " -np 2",
			"-o", filepath.Join(dir, "p.json")}, ExitError, "starting " + filepath.Join(dir, "no-mpirun") + " -np 2 " + os.Args[0]},
		// The probe is looked for before the sweep, not after it.
		{"mpi probe missing", []string{"calibrate", "--backend", "mpi", "--prtt-bin", os.Args[0], "--mpirun", filepath.Join(dir, "no-mpirun") + " -np 2",
			"-o", filepath.Join(dir, "p.json")}, ExitError, "gopsim-warmup was not found (tried " + filepath.Join(filepath.Dir(os.Args[0]), "gopsim-warmup")},
	}
	if !bench.IBVerbsBuilt {
		tests = append(tests, struct {
			name string
			args []string
			code int
			want string
		}{"ibverbs not built", []string{"calibrate", "--backend", "ibverbs", "-o", filepath.Join(dir, "p.json")}, ExitError,
			"gopsim calibrate: bench: built without ibverbs support: rebuild with -tags ibverbs"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "p.json")); err == nil {
		t.Error("a failed calibration wrote a parameter file")
	}
}

// buildMPIProgram builds bin/NAME, an MPI program of the Makefile, and
// returns it and a launcher for np ranks of the default mpirun. Without
// mpicc or mpirun it skips, unless $CI is set: then it fails.
func buildMPIProgram(t *testing.T, name string, np int) (prog, mpirun string) {
	t.Helper()
	testenv.NeedTools(t, name+" needs an MPI (make mpi-deps)", "mpicc", "mpirun", "make")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", root, "bin/"+name).CombinedOutput(); err != nil {
		t.Fatalf("make bin/%s: %v\n%s", name, err, out)
	}
	mpirun = fmt.Sprintf("mpirun -np %d", np)
	if out, _ := exec.Command("mpirun", "--version").CombinedOutput(); bytes.Contains(out, []byte("Open MPI")) {
		mpirun += " --oversubscribe"
	}
	return filepath.Join(root, "bin", name), mpirun
}

// TestCalibrateMPI runs `gopsim calibrate --backend mpi` for real on two
// ranks of this host, with a short configuration; the numbers are
// bench's business (TestMPIMeasure), here the plumbing: table, parameter
// file and its source.
func TestCalibrateMPI(t *testing.T) {
	prog, mpirun := buildMPIProgram(t, "gopsim-prtt", 2)
	warm, _ := buildMPIProgram(t, "gopsim-warmup", 2)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := t.TempDir()
	params := filepath.Join(dir, "p.json")
	code, out, errOut := run("calibrate", "--backend", "mpi", "--mpirun", mpirun, "--prtt-bin", prog, "--warmup-bin", warm, "--warmup-runs", "1",
		"--sizes", "1,1k,8k,64k", "--reps", "5", "--warmup", "2", "--n", "4", "-o", params)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	table := filepath.Join(dir, "p.prtt.csv")
	tab, err := bench.ReadTableFile(table)
	if err != nil {
		t.Fatal(err)
	}
	// Per size, 5 repetitions of 4 PRTT rounds and 2 exchange rounds.
	if len(tab) != 4*5*6 {
		t.Errorf("%d rows in the table, want %d", len(tab), 4*5*6)
	}
	exch := 0
	for _, s := range tab {
		if s.Exchange {
			exch++
		}
	}
	if exch != 4*5*2 {
		t.Errorf("%d exchange rounds in the table, want %d", exch, 4*5*2)
	}
	for _, want := range []string{"table:      " + table + " (120 rows, 4 sizes from 1 to 65536 bytes; fitted: the mean (up to 100 times the median and 1 ms beyond it) of each round", " of 4 sizes within 5 %, the worst ", "exchange:   both ranks send", "parameters: " + params, "library:    Open MPI", "first call: Allgather "} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "raw table "+table+" (120 rows") {
		t.Errorf("stderr:\n%s", errOut)
	}
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	pf := readParamFile(t, data)
	if l := pf.Library; l == nil || l.FirstContactNs <= 0 || len(l.FirstCall) < 15 {
		t.Errorf("library section %+v", l)
	}
	if s := pf.Source; s.Backend != "mpi" || s.Reps != 5 || s.N != 4 || s.Rows != 120 || !strings.HasPrefix(s.Peer, mpirun+" "+prog+": rank 0 on ") ||
		s.BufferOffset == nil || *s.BufferOffset != bench.MPIBufferOffset {
		t.Errorf("source %+v", s)
	}
	if x, _ := pf.fit["exchange"].([]any); len(x) != 4 {
		t.Errorf("fit.exchange %v, want the 4 sizes", pf.fit["exchange"])
	}
}

// buildMPICH builds MPICH's programs (make tracer-mpich) and returns
// bin/mpich. Without MPICH it skips, unless $CI is set: then it fails.
func buildMPICH(t *testing.T) string {
	t.Helper()
	testenv.NeedTools(t, "MPICH is not installed (make mpi-deps installs it as root)", "mpicc.mpich", "mpif90.mpich", "mpirun.mpich", "make")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", root, "tracer-mpich").CombinedOutput(); err != nil {
		t.Fatalf("make tracer-mpich: %v\n%s", err, out)
	}
	return filepath.Join(root, "bin", "mpich")
}

// TestCalibrateMPICH calibrates MPICH as the README says, with MPICH's
// launcher and --prtt-bin of bin/mpich (make tracer-mpich) and no
// --warmup-bin: the one-time cost probe is the one beside --prtt-bin,
// built with the same MPI. (It was gopsim-warmup beside gopsim or on
// $PATH, Open MPI's, which failed after the whole sweep with "needs
// exactly 2 ranks, has 1".)
func TestCalibrateMPICH(t *testing.T) {
	dir := buildMPICH(t)
	params := filepath.Join(t.TempDir(), "p.json")
	code, out, errOut := run("calibrate", "--backend", "mpi", "--mpirun", "mpirun.mpich -np 2", "--prtt-bin", filepath.Join(dir, "gopsim-prtt"),
		"--warmup-runs", "1", "--sizes", "1,1k,8k,64k", "--reps", "5", "--warmup", "2", "--n", "4", "--locate-reps", "0", "--quiet", "-o", params)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "library:    MPICH Version: ") || !strings.Contains(errOut, "fresh runs of gopsim-warmup") {
		t.Errorf("no MPICH library section:\n%s\n%s", out, errOut)
	}
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	if pf := readParamFile(t, data); pf.Library == nil || !strings.HasPrefix(pf.Library.Name, "MPICH") {
		t.Errorf("library section %+v", pf.Library)
	}
}
