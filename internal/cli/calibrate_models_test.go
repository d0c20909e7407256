package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/sim"
)

// writeModelsPRTT writes a PRTT table made from LogGP's formulas into dir.
func writeModelsPRTT(t *testing.T, dir string) string {
	t.Helper()
	// L=3000, o=1000, g=4000, G=1, O=0: PRTT(1,0,s) = 2(L+2o+b), PRTT(8,0,s)
	// adds 7(g+b), PRTT(8,d,s) 7(o+d) with d = PRTT(1,0,s).
	var prtt strings.Builder
	prtt.WriteString("n,d_ns,s_bytes,prtt_ns\n")
	for _, s := range []int{1, 1024, 4096, 16384, 65536} {
		b := s - 1
		p1 := 2 * (3000 + 2000 + b)
		for k := range 5 {
			fmt.Fprintf(&prtt, "1,0,%d,%d\n8,0,%d,%d\n8,%d,%d,%d\n2,%d,%d,%d\n", s, p1+k%2, s, p1+7*(4000+b)+k%2,
				p1, s, p1+7*(1000+p1)+k%2, p1, s, p1+(1000+p1)+k%2)
		}
	}
	return writeFile(t, dir, "prtt.csv", prtt.String())
}

// TestCalibrateModels fits the model family to a PRTT table made from
// LogGP's formulas, a burst table with a kink at f = 4 and a measured
// pack table, and simulates with the file it writes under every model.
func TestCalibrateModels(t *testing.T) {
	dir := t.TempDir()
	table := writeModelsPRTT(t, dir)
	var burst strings.Builder
	burst.WriteString("n,d_ns,s_bytes,prtt_ns\n")
	for p := 1; p <= 16; p++ {
		fmt.Fprintf(&burst, "%d,0,8,%d\n", p, 6000+1000+max(p*1000, 1000+(p-4)*4000))
	}
	bt := writeFile(t, dir, "burst.csv", burst.String())
	out := filepath.Join(dir, "models.json")
	pack := filepath.Join(dir, "pack.csv")
	code, stdout, errOut := run("calibrate", "models", table, "--quantile", "0.5", "--burst", bt, "--measure-pack", "--pack", pack, "-o", out, "--plot", filepath.Join(dir, "m.png"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"logfp:      f=4", "alphabeta:  alpha=", "plogp:      L=3000 ns, 5 sizes", "log3p:      20 size and stride points"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	p, err := sim.ReadParamsFile(out, sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if p.L != 3000 || p.LogfP == nil || p.LogfP.F != 4 || p.PLogP == nil || p.Log3P == nil || p.AlphaBeta == nil {
		t.Fatalf("parameters %s", p)
	}
	code, stdout, errOut = run("sim", "--model", "all", "--params", out, writeFile(t, dir, "pp.goal", pingpong))
	if code != ExitOK || strings.Count(stdout, "\n") < 10 {
		t.Errorf("sim --model all with the fitted file: exit %d: %s%s", code, stdout, errOut)
	}
	if code, _, errOut := run("calibrate", "models"); code != ExitUsage || !strings.Contains(errOut, "one PRTT table expected") {
		t.Errorf("no table: exit %d: %s", code, errOut)
	}
}

// TestCalibrateModelsPackBackendFlags: --pack-backend and its companions
// are checked before anything is measured.
func TestCalibrateModelsPackBackendFlags(t *testing.T) {
	dir := t.TempDir()
	table := writeModelsPRTT(t, dir)
	pack := filepath.Join(dir, "pack.csv")
	none := filepath.Join(dir, "none")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown backend", []string{"--measure-pack", "--pack-backend", "c"}, ExitUsage, `--pack-backend "c": want go or mpi`},
		{"without measure-pack", []string{"--pack", pack, "--pack-backend", "mpi"}, ExitUsage, "--pack-backend applies to --measure-pack only"},
		{"pack-mpirun with go", []string{"--measure-pack", "--pack-mpirun", "mpirun -np 1"}, ExitUsage, "--pack-mpirun and --pack-bin apply to --pack-backend mpi only"},
		{"pack-bin with go", []string{"--measure-pack", "--pack-backend", "go", "--pack-bin", none}, ExitUsage, "apply to --pack-backend mpi only"},
		{"empty pack-mpirun", []string{"--measure-pack", "--pack-backend", "mpi", "--pack-mpirun", " "}, ExitUsage, "--pack-mpirun is empty"},
		{"program missing", []string{"--measure-pack", "--pack", pack, "--pack-backend", "mpi", "--pack-bin", none}, ExitError,
			"the pack benchmark's MPI program gopsim-pack was not found (tried " + none + "); build it with 'make calibrate-deps'"},
		{"launcher missing", []string{"--measure-pack", "--pack", pack, "--pack-backend", "mpi", "--pack-bin", os.Args[0], "--pack-mpirun", none + " -np 1"}, ExitError,
			"starting " + none + " -np 1 " + os.Args[0] + " -r 50 -w 5 1024:8 1024:64 ... (20 pairs)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(append([]string{"calibrate", "models", table}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, errOut, tc.want)
			}
		})
	}
	if _, err := os.Stat(pack); err == nil {
		t.Errorf("a failed measurement wrote %s", pack)
	}
}

// TestCalibrateModelsBurstFlags: the flags of --measure-burst are refused
// without it, and its message size takes a unit.
func TestCalibrateModelsBurstFlags(t *testing.T) {
	dir := t.TempDir()
	table := writeModelsPRTT(t, dir)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"burst-size alone", []string{"--burst-size", "16"}, ExitUsage, "--burst-size needs --measure-burst"},
		{"burst-max alone", []string{"--burst-max", "4"}, ExitUsage, "--burst-max needs --measure-burst"},
		{"burst-reps alone", []string{"--burst-reps", "4"}, ExitUsage, "--burst-reps needs --measure-burst"},
		{"backend alone", []string{"--backend", "mpi"}, ExitUsage, "--backend needs --measure-burst"},
		{"peer alone", []string{"--peer", "127.0.0.1:1"}, ExitUsage, "--peer needs --measure-burst"},
		{"mpirun alone", []string{"--mpirun", "mpirun -np 2"}, ExitUsage, "--mpirun needs --measure-burst"},
		{"peer with mpi", []string{"--measure-burst", "--backend", "mpi", "--peer", "127.0.0.1:1"}, ExitUsage, "--peer applies to --backend tcp"},
		{"mpirun with tcp", []string{"--measure-burst", "--mpirun", "mpirun -np 2"}, ExitUsage, "--mpirun applies to --backend mpi"},
		{"burst-size with a unit", []string{"--measure-burst", "--burst-size", "1KiB", "--peer", "127.0.0.1:1", "--burst", filepath.Join(dir, "b.csv")}, ExitError, "127.0.0.1:1"},
		{"burst-size not whole", []string{"--measure-burst", "--burst-size", "1.5B"}, ExitUsage, "not a whole number of bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(append([]string{"calibrate", "models", table}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, errOut, tc.want)
			}
		})
	}
}

// TestCalibrateModelsPackMPI runs `gopsim calibrate models --measure-pack
// --pack-backend mpi` for real, under Open MPI's mpirun and as a
// singleton; the numbers are bench's business (TestMeasurePackMPI), here
// the plumbing: pack table, log3P section, the library in the log.
// Without mpicc or mpirun it skips, unless $CI is set: then it fails.
func TestCalibrateModelsPackMPI(t *testing.T) {
	prog, mpirun := buildMPIProgram(t, "gopsim-pack", 1)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := t.TempDir()
	table := writeModelsPRTT(t, dir)
	for _, launcher := range []string{mpirun, "direct"} {
		t.Run(strings.Fields(launcher)[0], func(t *testing.T) {
			pack := filepath.Join(dir, strings.Fields(launcher)[0]+".pack.csv")
			out := filepath.Join(dir, strings.Fields(launcher)[0]+".json")
			code, stdout, errOut := run("calibrate", "models", table, "--measure-pack", "--pack-backend", "mpi", "--pack-mpirun", launcher,
				"--pack-bin", prog, "--pack", pack, "-o", out)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(stdout, "log3p:      20 size and stride points") {
				t.Errorf("stdout:\n%s", stdout)
			}
			for _, want := range []string{"gopsim-pack: ", ", 20 pairs of size and stride, 50 repetitions each", "pack table " + pack + " (1000 rows)"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			tab, err := bench.ReadPackTableFile(pack)
			if err != nil || len(tab) != 1000 {
				t.Fatalf("%s: %d rows, %v", pack, len(tab), err)
			}
			p, err := sim.ReadParamsFile(out, sim.DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			if p.Log3P == nil || len(p.Log3P.Points) != 20 {
				t.Fatalf("log3p %+v", p.Log3P)
			}
			for _, pt := range p.Log3P.Points {
				if pt.Pack <= 0 || pt.Unpack <= 0 {
					t.Errorf("point %+v: times not positive", pt)
				}
			}
		})
	}
}
