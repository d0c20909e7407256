package trace_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// These tests run LAMMPS (Debian's lammps package, binary lmp, built with
// Open MPI) on the inputs of examples/lammps at 4 ranks under the tracer,
// convert the trace, simulate it, and check the communication against
// LAMMPS's brick decomposition. Without lmp they skip, unless $CI is set:
// then they fail (make mpi-deps installs LAMMPS as root).

// needLAMMPS returns the tracer library and the lmp binary.
func needLAMMPS(t *testing.T) (lib, lmp string) {
	t.Helper()
	_, lib = needMPI(t)
	lmp, err := exec.LookPath("lmp")
	if err != nil {
		testenv.Missing(t, "lmp not found: the LAMMPS tests need LAMMPS built with Open MPI (Debian: apt-get install lammps; make mpi-deps does it as root)")
	}
	if !mpiSetup.openMPI {
		t.Skip("the default mpirun is not Open MPI's, and Debian's lmp is built with Open MPI")
	}
	return lib, lmp
}

// lammpsRun is one traced LAMMPS run.
type lammpsRun struct {
	dir    string // the trace directory
	files  []*trace.File
	grid   [3]int // LAMMPS's processor grid
	steps  int    // time steps of the run command
	screen string // LAMMPS's screen output
}

var (
	gridRE = regexp.MustCompile(`(?m)^\s*(\d+) by (\d+) by (\d+) MPI processor grid`)
	runRE  = regexp.MustCompile(`(?m)^run\s+(\d+)\s*$`)
)

// runLAMMPS runs examples/lammps/INPUT on np ranks under the tracer with
// its run command set to steps time steps (0: as written).
func runLAMMPS(t *testing.T, np int, input string, steps int) *lammpsRun {
	t.Helper()
	lib, lmp := needLAMMPS(t)
	src, err := os.ReadFile(filepath.Join("..", "examples", "lammps", input))
	if err != nil {
		t.Fatal(err)
	}
	m := runRE.FindAllSubmatchIndex(src, -1)
	if len(m) != 1 {
		t.Fatalf("%s: %d run commands, want 1", input, len(m))
	}
	if steps == 0 {
		steps, _ = strconv.Atoi(string(src[m[0][2]:m[0][3]]))
	} else {
		src = slices.Concat(src[:m[0][2]], []byte(strconv.Itoa(steps)), src[m[0][3]:])
	}
	work := t.TempDir() // LAMMPS's working directory
	in := filepath.Join(work, input)
	if err := os.WriteFile(in, src, 0o666); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", "-np", strconv.Itoa(np), "--oversubscribe", lmp, "-in", in, "-log", "none", "-nocite")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir, "OMP_NUM_THREADS=1",
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun lmp -in %s: %v\n%s", input, err, out)
	}
	run := &lammpsRun{dir: dir, steps: steps, screen: string(out)}
	g := gridRE.FindStringSubmatch(run.screen)
	if g == nil {
		t.Fatalf("no processor grid in LAMMPS's output:\n%s", out)
	}
	for i := range run.grid {
		run.grid[i], _ = strconv.Atoi(g[i+1])
	}
	if run.grid[0]*run.grid[1]*run.grid[2] != np {
		t.Fatalf("processor grid %v for %d ranks", run.grid, np)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRanks() != np {
		t.Fatalf("%d ranks traced, want %d", d.NumRanks(), np)
	}
	for r := range np {
		f, err := trace.ReadFile(d.Files[r])
		if err != nil {
			t.Fatal(err)
		}
		checkFile(t, f, r, np)
		if !strings.Contains(f.Header.Command, "lmp") {
			t.Errorf("rank %d: command line %q", r, f.Header.Command)
		}
		run.files = append(run.files, f)
	}
	return run
}

// checkLAMMPS converts and simulates a LAMMPS trace and checks its
// communication.
//
// LAMMPS's CommBrick, with the cutoff (2.5 + 0.3 skin) thinner than a
// sub-domain, swaps ghost atoms once with each of a rank's 6 face
// neighbours, 2 per dimension; a dimension with one rank swaps with itself
// without MPI. With k dimensions of more than one rank, every step makes
// 2k swaps forward (positions) and 2k in reverse (forces, Newton on), each
// an MPI_Irecv, an MPI_Send and an MPI_Wait. On a rebuild step (every 20th,
// neigh_modify every 20 check no, and once at set-up) the forward swaps
// are replaced one for one by borders(), which first agrees on the count
// with an MPI_Sendrecv, and exchange() migrates atoms: per dimension an
// MPI_Sendrecv of the count and one message (two with more than 2 ranks
// in the dimension). So with B = steps/20 + 1 rebuilds, every rank sends
//
//	4k(steps+1) + k·B <= MPI_Send <= 4k(steps+1) + 2k·B
//
// (the lower bound when every such dimension has 2 ranks, as at 4 ranks:
// 1x2x2, k = 2), and makes between 3k·B and 4k·B MPI_Sendrecv calls.
func checkLAMMPS(t *testing.T, run *lammpsRun) {
	t.Helper()
	np := len(run.files)
	k := 0
	for _, p := range run.grid {
		if p > 1 {
			k++
		}
	}
	rebuilds := run.steps/20 + 1
	lo, hi := 4*k*(run.steps+1)+k*rebuilds, 4*k*(run.steps+1)+2*k*rebuilds
	var colls []int
	for r, f := range run.files {
		sends, irecvs, waits := len(of(f, trace.FuncSend)), len(of(f, trace.FuncIrecv)), len(of(f, trace.FuncWait))
		sr := len(of(f, trace.FuncSendrecv))
		t.Logf("rank %d: %d MPI_Send, %d MPI_Irecv, %d MPI_Wait, %d MPI_Sendrecv (grid %v, %d steps, %d rebuilds)",
			r, sends, irecvs, waits, sr, run.grid, run.steps, rebuilds)
		if sends < lo || sends > hi {
			t.Errorf("rank %d: %d MPI_Send, want %d to %d (%d-D ghost exchange, %d steps, %d rebuilds)", r, sends, lo, hi, k, run.steps, rebuilds)
		}
		if irecvs != sends || waits != sends {
			t.Errorf("rank %d: %d MPI_Irecv and %d MPI_Wait for %d MPI_Send, want one each per swap", r, irecvs, waits, sends)
		}
		if sr < 3*k*rebuilds || sr > 4*k*rebuilds {
			t.Errorf("rank %d: %d MPI_Sendrecv, want %d to %d", r, sr, 3*k*rebuilds, 4*k*rebuilds)
		}
		n := 0
		for _, c := range f.Calls {
			if c.Func.Class() == trace.ClassCollective {
				n++
			}
		}
		colls = append(colls, n)
	}
	if colls[0] == 0 || slices.Min(colls) != slices.Max(colls) {
		t.Errorf("collectives per rank %v, want the same nonzero number on every rank", colls)
	}

	d, err := trace.OpenDir(run.dir)
	if err != nil {
		t.Fatal(err)
	}
	s, st := convert(t, d, trace.ConvertOptions{}) // fails on unsupported calls
	if len(st.Unsupported) > 0 {
		t.Fatalf("unsupported calls: %v", st.Unsupported)
	}
	if st.Collectives != int64(colls[0]*np) {
		t.Errorf("%d collectives converted, want %d", st.Collectives, colls[0]*np)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime <= 0 {
		t.Fatalf("simulated time %d", res.MaxTime)
	}

	// The schedule has every message: a send per MPI_Send and Sendrecv,
	// to at most 2k neighbours (6 in 3-D), and the receiver's receive
	// from each sender has the sizes the sender sent, in order.
	type pair struct{ from, to int32 }
	sent, recvd := map[pair][]uint64{}, map[pair][]uint64{}
	for r := range np {
		f := run.files[r]
		peers := map[int32]bool{}
		nsend := 0
		for _, op := range s.RankOps(r) {
			if op.Tag&(1<<31) != 0 || op.Kind == goal.Calc {
				continue // collective traffic
			}
			switch op.Kind {
			case goal.Send:
				nsend++
				peers[op.Peer] = true
				sent[pair{int32(r), op.Peer}] = append(sent[pair{int32(r), op.Peer}], op.Size)
			case goal.Recv:
				recvd[pair{op.Peer, int32(r)}] = append(recvd[pair{op.Peer, int32(r)}], op.Size)
			}
		}
		if want := len(of(f, trace.FuncSend)) + len(of(f, trace.FuncSendrecv)); nsend != want {
			t.Errorf("rank %d: %d point-to-point sends in the schedule, want %d", r, nsend, want)
		}
		if len(peers) < 1 || len(peers) > 2*k {
			t.Errorf("rank %d: sends to %d ranks, want 1 to %d", r, len(peers), 2*k)
		}
	}
	for p, sizes := range sent {
		if !slices.Equal(sizes, recvd[p]) {
			t.Errorf("%d -> %d: sizes sent %v, received %v", p.from, p.to, head(sizes), head(recvd[p]))
		}
	}
	for p := range recvd {
		if sent[p] == nil {
			t.Errorf("%d -> %d: receives without sends", p.from, p.to)
		}
	}
	var region int64 // Init end to Finalize end, the slowest rank
	for _, f := range run.files {
		region = max(region, f.Calls[len(f.Calls)-1].End-f.Calls[0].End)
	}
	t.Logf("%d calls, %d ops, %d collectives; traced region %.3f s, simulated %.3f s with LogGOPSim's default parameters",
		st.Calls, st.Ops, st.Collectives, float64(region)/1e9, float64(res.MaxTime)/1e9)
}

func head(x []uint64) string {
	if len(x) > 8 {
		return fmt.Sprintf("%v... (%d)", x[:8], len(x))
	}
	return fmt.Sprint(x)
}

// TestLAMMPSMelt traces examples/lammps/in.melt as written: 4,000 atoms,
// 250 steps.
func TestLAMMPSMelt(t *testing.T) {
	run := runLAMMPS(t, 4, "in.melt", 0)
	if !strings.Contains(run.screen, "Created 4000 atoms") {
		t.Errorf("LAMMPS did not create 4000 atoms:\n%s", run.screen)
	}
	checkLAMMPS(t, run)
}

// TestLAMMPSBenchLJ traces the 32,000-atom benchmark examples/lammps/in.lj
// as written (100 steps, 2-15 s on 2 busy cores); with -short, 20 steps.
func TestLAMMPSBenchLJ(t *testing.T) {
	steps := 0
	if testing.Short() {
		steps = 20
	}
	run := runLAMMPS(t, 4, "in.lj", steps)
	if !strings.Contains(run.screen, "Created 32000 atoms") {
		t.Errorf("LAMMPS did not create 32000 atoms:\n%s", run.screen)
	}
	checkLAMMPS(t, run)
}
