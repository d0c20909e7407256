package extrapolation_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// These tests build the tracer and examples/mpi with the Makefile (make
// tracer) and trace the examples under mpirun. Without MPI they skip,
// unless $CI is set: then they fail.

var mpiOnce struct {
	sync.Once
	root, lib string
	openMPI   bool
	missing   string
	err       error
}

func needMPI(t *testing.T) (root, lib string) {
	t.Helper()
	s := &mpiOnce
	s.Do(func() {
		for _, tool := range []string{"mpicc", "mpirun", "make"} {
			if _, err := exec.LookPath(tool); err != nil {
				s.missing = tool
				return
			}
		}
		if s.root, s.err = filepath.Abs(".."); s.err != nil {
			return
		}
		if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", s.root, "tracer").CombinedOutput(); err != nil {
			s.err = &buildError{err, string(out)}
			return
		}
		s.lib = filepath.Join(s.root, "bin", "libgopsim-pmpi.so")
		out, _ := exec.Command("mpirun", "--version").CombinedOutput()
		s.openMPI = strings.Contains(string(out), "Open MPI") || strings.Contains(string(out), "OpenRTE")
	})
	if s.missing != "" {
		testenv.Missing(t, s.missing+" not found: the MPI tests need Open MPI (make mpi-deps)")
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.root, s.lib
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "make tracer: " + e.err.Error() + "\n" + e.out }

// traceExample runs bin/examples/mpi/PROG on np ranks under the tracer
// and returns the trace directory, opened.
func traceExample(t *testing.T, np int, prog string, args ...string) *trace.Dir {
	t.Helper()
	root, lib := needMPI(t)
	dir := t.TempDir()
	mpiArgs := []string{"-np", strconv.Itoa(np)}
	if mpiOnce.openMPI {
		mpiArgs = append(mpiArgs, "--oversubscribe")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", append(append(mpiArgs, filepath.Join(root, "bin", "examples", "mpi", prog)), args...)...)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir,
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mpirun %s: %v\n%s", prog, err, out)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRanks() != np {
		t.Fatalf("%d ranks traced, want %d", d.NumRanks(), np)
	}
	return d
}

// noCompute drops the traced computation (every gap rounds to 0 ns), so
// that only the communication is compared.
var noCompute = trace.ConvertOptions{ComputeScale: 1e-9}

func convertWith(t *testing.T, src trace.Source, opt trace.ConvertOptions) *goal.Schedule {
	t.Helper()
	s := goal.NewSchedule(src.NumRanks())
	if _, err := trace.Convert(src, opt, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	return s
}

func generate(t *testing.T, name string, p pattern.Params) *goal.Schedule {
	t.Helper()
	g, err := pattern.New(name, p)
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	return s
}

func simulate(t *testing.T, s *goal.Schedule) *sim.Result {
	t.Helper()
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// withoutCollectives is s without its collective messages (the converter
// tags them with bit 31): every kept op depends on the kept ops it depended
// on through removed ones (an irequires edge only if every edge of the way
// was one).
func withoutCollectives(s *goal.Schedule) *goal.Schedule {
	out := goal.NewSchedule(s.NumRanks)
	var in, b goal.RankBlock
	for r := range s.NumRanks {
		s.Block(r, &in)
		idx := make([]int32, len(in.Ops)) // new index, -1 if removed
		b.Reset(int32(r))
		for i, op := range in.Ops {
			idx[i] = -1
			if op.Kind == goal.Calc || op.Tag < 1<<31 {
				idx[i] = int32(len(b.Ops))
				b.Ops = append(b.Ops, op)
			}
		}
		var reach func(i int32, start bool, add func(goal.Dep))
		reach = func(i int32, start bool, add func(goal.Dep)) {
			for _, d := range in.Deps[in.DepStart[i]:in.DepStart[i+1]] {
				if j := idx[d.Succ()]; j >= 0 {
					add(goal.MakeDep(j, start && d.Start()))
				} else {
					reach(d.Succ(), start && d.Start(), add)
				}
			}
		}
		b.DepStart = append(b.DepStart, 0)
		for i := range in.Ops {
			if idx[i] < 0 {
				continue
			}
			seen := map[goal.Dep]bool{}
			reach(int32(i), true, func(d goal.Dep) {
				if !seen[d] {
					seen[d] = true
					b.Deps = append(b.Deps, d)
				}
			})
			b.DepStart = append(b.DepStart, int32(len(b.Deps)))
		}
		if err := out.AppendRank(&b); err != nil {
			panic(err)
		}
	}
	return out
}

// peers lists, per rank, the sorted peers of its sends and of its receives.
func peers(s *goal.Schedule) (send, recv [][]int32) {
	send, recv = make([][]int32, s.NumRanks), make([][]int32, s.NumRanks)
	for r := range s.NumRanks {
		for _, op := range s.RankOps(r) {
			switch op.Kind {
			case goal.Send:
				send[r] = append(send[r], op.Peer)
			case goal.Recv:
				recv[r] = append(recv[r], op.Peer)
			}
		}
		slices.Sort(send[r])
		slices.Sort(recv[r])
	}
	return send, recv
}

// TestHaloTraceMatchesPattern: examples/mpi/halo2d traced on 16 ranks (a
// periodic 4x4 grid, 10 iterations of 64-double halos, no residual
// Allreduce) and extrapolated ×64 is the 1,024-rank halo exchange of gopsim
// gen -p halo2d --periodic -d 512 --iterations 10: every rank has the
// neighbours it has in the 256x4 grid (one halo, not 64 disjoint ones), and
// every rank finishes at the same simulated time as in the generated
// 32x32 schedule, once the communicator creation that precedes the halo in
// the trace (MPI_Cart_create: the context-id allreduce, docs/formats.md)
// is taken out.
func TestHaloTraceMatchesPattern(t *testing.T) {
	d := traceExample(t, 16, "halo2d", "10", "64", "64", "0")
	x, err := extrapolation.NewSource(d, extrapolation.Options{Factor: 64})
	if err != nil {
		t.Fatal(err)
	}
	if g := x.Grid(); !slices.Equal(g.Dims, []int{4, 4}) || !slices.Equal(g.Grown, []int{256, 4}) || g.Agree != 16 {
		t.Fatalf("grid %s", g)
	}
	got := withoutCollectives(convertWith(t, x, noCompute))

	grid := generate(t, "halo2d", pattern.Params{Ranks: 1024, Size: 512, Iterations: 10, Periodic: true, Dims: []int{256, 4}})
	gs, gr := peers(got)
	ws, wr := peers(grid)
	for r := range 1024 {
		// Each neighbour once per iteration.
		if !slices.Equal(gs[r], ws[r]) || !slices.Equal(gr[r], wr[r]) {
			t.Fatalf("rank %d: sends to %v, receives from %v; in the 256x4 halo %v, %v", r, gs[r][:8], gr[r][:8], ws[r][:8], wr[r][:8])
		}
	}

	square := generate(t, "halo2d", pattern.Params{Ranks: 1024, Size: 512, Iterations: 10, Periodic: true})
	a, b := simulate(t, got), simulate(t, square)
	if a.MaxTime != b.MaxTime || !slices.Equal(a.PerRank, b.PerRank) {
		t.Errorf("extrapolated: max %d ns (rank 0 %d ns), generated: max %d ns (rank 0 %d ns)", a.MaxTime, a.PerRank[0], b.MaxTime, b.PerRank[0])
	}
	t.Logf("1024 ranks: %d ns, extrapolated and generated", a.MaxTime)
}

// TestCollectivesRegenerated: allreduce_loop traced on 4 ranks and
// extrapolated ×4 converts to the schedule of the same program traced on
// 16 ranks, op for op and edge for edge, once computation is left out: the
// Allreduces are regenerated over 16 ranks by the algorithm the traced
// library would pick at 16 (both traces name it).
func TestCollectivesRegenerated(t *testing.T) {
	small := traceExample(t, 4, "allreduce_loop", "20", "1000")
	large := traceExample(t, 16, "allreduce_loop", "20", "1000")
	x, err := extrapolation.NewSource(small, extrapolation.Options{Factor: 4})
	if err != nil {
		t.Fatal(err)
	}
	if g := x.Grid(); g.Dims != nil {
		t.Errorf("grid %s for a program without MPI_Cart_create", g)
	}
	got, want := textOf(t, convertWith(t, x, noCompute)), textOf(t, convertWith(t, large, noCompute))
	if got != want {
		t.Errorf("extrapolated 4x4 and traced 16 differ:\n%s\n----\n%s", head(got), head(want))
	}
	if !strings.Contains(got, "num_ranks 16") {
		t.Errorf("no 16 ranks:\n%s", head(got))
	}
}
