package trace_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// TestHPCC runs the HPC Challenge benchmark (Debian's hpcc, built with
// Open MPI) on 2 ranks under the tracer with testdata/hpccinf.txt (a 1 x 2
// process grid, N = 200: about 2 s), then converts the trace, which must
// have no unsupported call, and simulates it. HPCC completes its requests
// every way MPI allows (Test, Testany, Waitany, Waitall, Cancel) and holds
// several inline-completed sends at once. Without hpcc the test skips,
// unless $CI is set: then it fails (make mpi-deps installs hpcc as root).
func TestHPCC(t *testing.T) {
	_, lib := needMPI(t)
	hpcc, err := exec.LookPath("hpcc")
	if err != nil {
		testenv.Missing(t, "hpcc not found: TestHPCC needs the HPC Challenge benchmark built with Open MPI (Debian: apt-get install hpcc; make mpi-deps does it as root)")
	}
	if !mpiSetup.openMPI {
		t.Skip("the default mpirun is not Open MPI's, and Debian's hpcc is built with Open MPI")
	}
	in, err := os.ReadFile(filepath.Join("testdata", "hpccinf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	work, dir := t.TempDir(), t.TempDir() // hpcc reads hpccinf.txt in its working directory
	if err := os.WriteFile(filepath.Join(work, "hpccinf.txt"), in, 0o666); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", "-np", "2", "--oversubscribe", hpcc)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir, "OMP_NUM_THREADS=1",
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mpirun hpcc: %v\n%s", err, out)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	per := map[trace.Func]int{}
	for r := range 2 {
		f, err := trace.ReadFile(d.Files[r])
		if err != nil {
			t.Fatal(err)
		}
		checkFile(t, f, r, 2)
		for _, c := range f.Calls {
			per[c.Func]++
			for _, x := range c.Done {
				if x.Request == 0 {
					t.Fatalf("rank %d: %v completes a request the tracer did not see created", r, &c)
				}
			}
		}
	}
	// The calls that made the converter fail: completions of inline
	// sends (Testany, Waitall) and cancelled receives.
	for _, f := range []trace.Func{trace.FuncIsend, trace.FuncTestany, trace.FuncWaitall, trace.FuncWaitany, trace.FuncCancel, trace.FuncCommSplit} {
		if per[f] == 0 {
			t.Errorf("no %v in the trace", f)
		}
	}
	s, st := convert(t, d, trace.ConvertOptions{})
	if len(st.Unsupported) > 0 {
		t.Fatalf("unsupported calls: %v", st.Unsupported)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime <= 0 || st.Collectives == 0 {
		t.Fatalf("simulated %d ns, %d collectives", res.MaxTime, st.Collectives)
	}
}
