package trace_test

import (
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// p2p counts a rank's point-to-point messages (collective tags have the
// top bit set) by kind and peer.
type p2p struct {
	kind goal.Kind
	peer int32
	tag  uint32
	size uint64
}

func p2pOps(s *goal.Schedule, r int) map[p2p]int {
	m := map[p2p]int{}
	for _, op := range s.RankOps(r) {
		if op.Kind != goal.Calc && op.Tag&(1<<31) == 0 {
			m[p2p{op.Kind, op.Peer, op.Tag, op.Size}]++
		}
	}
	return m
}

// convertTraced traces an example on 4 ranks under Open MPI, converts the
// trace and simulates the schedule, which must finish.
func convertTraced(t *testing.T, prog string, args ...string) (*goal.Schedule, *trace.ConvertStats) {
	t.Helper()
	dir, _ := runTracedDir(t, 4, prog, args...)
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, st := convert(t, d, trace.ConvertOptions{})
	if len(st.Unsupported) > 0 {
		t.Fatalf("unsupported calls: %v", st.Unsupported)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime <= 0 {
		t.Fatalf("simulated time %d", res.MaxTime)
	}
	return s, st
}

func TestMPIConvertPingPong(t *testing.T) {
	const iters, bytes = 30, 2048
	s, st := convertTraced(t, "pingpong", strconv.Itoa(iters), strconv.Itoa(bytes))
	want := map[int]map[p2p]int{
		0: {{goal.Send, 1, 1, bytes}: iters, {goal.Recv, 1, 2, bytes}: iters},
		1: {{goal.Recv, 0, 1, bytes}: iters, {goal.Send, 0, 2, bytes}: iters},
		2: {}, 3: {},
	}
	for r, w := range want {
		if got := p2pOps(s, r); !equalCounts(got, w) {
			t.Errorf("rank %d: point-to-point %v, want %v", r, got, w)
		}
	}
	if st.Collectives != 4 { // one barrier per rank
		t.Errorf("%d collectives, want 4", st.Collectives)
	}
}

func TestMPIConvertHalo(t *testing.T) {
	const iters, nx, ny = 10, 16, 8
	s, st := convertTraced(t, "halo2d", strconv.Itoa(iters), strconv.Itoa(nx), strconv.Itoa(ny))
	// 2x2 periodic grid: north and south are the same rank, as are east and west.
	for r := 0; r < 4; r++ {
		row, col := r/2, r%2
		ns := int32((1-row)*2 + col)
		we := int32(row*2 + 1 - col)
		got := p2pOps(s, r)
		var msgs, bytesN, bytesE int
		for k, n := range got {
			msgs += n
			if k.peer == ns && k.size == 8*nx {
				bytesN += n
			}
			if k.peer == we && k.size == 8*ny {
				bytesE += n
			}
		}
		if msgs != 8*iters || bytesN != 4*iters || bytesE != 4*iters {
			t.Errorf("rank %d: %d messages (%d north/south, %d east/west), want %d (%d, %d): %v", r, msgs, bytesN, bytesE, 8*iters, 4*iters, 4*iters, got)
		}
	}
	if st.Collectives != 4*(iters/5) {
		t.Errorf("%d collectives, want %d", st.Collectives, 4*(iters/5))
	}
}

func TestMPIConvertAllreduceAndAlltoall(t *testing.T) {
	_, st := convertTraced(t, "allreduce_loop", "20", "64")
	if st.Collectives != 4*21 {
		t.Errorf("allreduce_loop: %d collectives, want %d", st.Collectives, 4*21)
	}
	s, st := convertTraced(t, "fft_alltoall", "3", "32")
	if st.Collectives != 4*6 {
		t.Errorf("fft_alltoall: %d collectives, want %d", st.Collectives, 4*6)
	}
	for r := 0; r < 4; r++ {
		if n := len(p2pOps(s, r)); n != 0 {
			t.Errorf("rank %d: %d point-to-point messages in a collective-only program", r, n)
		}
	}
}

// TestMPIConvertIrregular: wildcard receives become receives from the rank
// that actually sent, with the size it sent.
func TestMPIConvertIrregular(t *testing.T) {
	s, _ := convertTraced(t, "irregular")
	got := p2pOps(s, 0)
	for src := int32(1); src < 4; src++ {
		if got[p2p{goal.Recv, src, 7, uint64(100 * src)}] != 1 {
			t.Errorf("rank 0: no receive of %d bytes from %d tag 7: %v", 100*src, src, got)
		}
	}
	if got[p2p{goal.Recv, 1, 9, 8}] != 1 {
		t.Errorf("rank 0: no receive of the probed message: %v", got)
	}
}

func TestMPIConvertFortran(t *testing.T) {
	convertTraced(t, "fring")
}

func equalCounts(a, b map[p2p]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMPIConvertStrided traces examples/mpi/strided (a halo exchange of
// matrix columns with MPI_Type_vector): the tracer describes the vector
// type, every send of a column gets the label of its stride, 8*NX bytes,
// and log3P charges its pack table for them.
func TestMPIConvertStrided(t *testing.T) {
	const iters, nx, ny = 3, 128, 2048 // columns of 16 KiB at a stride of 1 KiB
	const stride, size = 8 * nx, 8 * ny
	label := "stride" + strconv.Itoa(stride) + "_"

	t.Run("trace", func(t *testing.T) {
		dir, files := runTracedDir(t, 4, "strided", strconv.Itoa(iters), strconv.Itoa(nx), strconv.Itoa(ny))
		for r, f := range files {
			if len(f.Types) != 1 {
				t.Fatalf("rank %d: %d datatypes described, want 1: %+v", r, len(f.Types), f.Types)
			}
			vt := f.Types[0]
			if vt.Combiner != trace.CombinerVector || !slices.Equal(vt.Ints, []int64{ny, 1, nx}) || len(vt.Types) != 1 ||
				vt.Types[0].Combiner != trace.CombinerNamed || vt.Types[0].Size != 8 || vt.Size != size {
				t.Errorf("rank %d: column type %+v", r, vt)
			}
			if l := vt.Layout(1); l != (trace.Layout{Blocks: ny, Block: 8, Stride: stride}) {
				t.Errorf("rank %d: layout %+v", r, l)
			}
			for _, fn := range []trace.Func{trace.FuncIsend, trace.FuncIrecv, trace.FuncSendrecv, trace.FuncBcast} {
				for _, c := range of(f, fn) {
					if c.Type.ID != vt.ID || c.Type.Stride != stride {
						t.Errorf("rank %d: %v", r, c.String())
					}
				}
			}
			if n := len(of(f, trace.FuncTypeCommit)); n != 1 {
				t.Errorf("rank %d: %d MPI_Type_commit", r, n)
			}
			if fr := of(f, trace.FuncTypeFree); len(fr) != 1 || fr[0].Type.ID != vt.ID {
				t.Errorf("rank %d: MPI_Type_free %v", r, fr)
			}
			if ar := of(f, trace.FuncAllreduce); len(ar) != 1 || ar[0].Type.ID != 0 || ar[0].Type.Stride != 0 {
				t.Errorf("rank %d: MPI_Allreduce of a double %v", r, ar)
			}
		}
		d, err := trace.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, st := convert(t, d, trace.ConvertOptions{})
		if len(st.Unsupported) > 0 {
			t.Fatalf("unsupported calls: %v", st.Unsupported)
		}
		if st.PerFunc["MPI_Type_commit"] != 4 || st.PerFunc["MPI_Type_free"] != 4 {
			t.Errorf("calls per function %v", st.PerFunc)
		}
		var strided int64
		for r := 0; r < 4; r++ {
			var b goal.RankBlock
			s.Block(r, &b)
			labels := map[int32]string{}
			for _, l := range b.Labels {
				labels[l.Op] = l.Name
			}
			for i, op := range b.Ops {
				name := labels[int32(i)]
				switch {
				case op.Kind == goal.Send && op.Tag&(1<<31) == 0: // the halo exchange
					if name != label+goal.CanonicalLabel(int32(i)) {
						t.Errorf("rank %d op %d: send %d bytes to %d labelled %q", r, i, op.Size, op.Peer, name)
					}
					strided++
				case op.Kind == goal.Send && op.Size == size: // the broadcast of a column
					if !strings.HasPrefix(name, label) {
						t.Errorf("rank %d op %d: broadcast send labelled %q", r, i, name)
					}
					strided++
				case name != "": // the allreduce of a double, receives
					t.Errorf("rank %d op %d: %v labelled %q", r, i, op.Kind, name)
				}
			}
		}
		if strided != st.Strided || strided < 4*2*iters+3 {
			t.Errorf("%d sends labelled (stats %d), want %d and the broadcast's", strided, st.Strided, 4*2*iters)
		}
	})

	// Two ranks, one iteration, no collectives, no computation: each rank
	// posts the Irecv, sends a column (o = 1500 ns of CPU), receives the
	// other's at o + L = 4000 ns and takes o + 16383*G = 99798 ns of CPU:
	// done at 103798; then the Sendrecv: the send's CPU to 105298, the
	// arrival at 107798, the receive done at 207596 ns. log3P adds its
	// pack time (420 us at 16 KiB and 1 KiB stride) to each send before it
	// leaves and its unpack time (400 us) to each receive, and both
	// messages are on the path: 207596 + 2*(420000+400000) = 1847596 ns.
	t.Run("log3p", func(t *testing.T) {
		root, lib := needMPI(t)
		var opts []string
		if mpiSetup.openMPI {
			opts = []string{"--oversubscribe"}
		}
		dir, _ := runProgramDir(t, "mpirun", opts, lib, 2, nil, filepath.Join(root, "bin", "examples", "mpi", "strided"),
			"1", strconv.Itoa(nx), strconv.Itoa(ny), "0")
		d, err := trace.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, st := convert(t, d, trace.ConvertOptions{ComputeScale: 1e-15})
		if st.Calcs != 0 || st.Strided != 4 {
			t.Fatalf("%d calcs, %d strided sends; want 0 and 4", st.Calcs, st.Strided)
		}
		p := sim.DefaultParams()
		p.Log3P = &sim.Log3PParams{Points: []sim.Log3PPoint{
			{Size: 16384, Stride: 1024, Pack: 420000, Unpack: 400000},
			{Size: 32768, Stride: 1024, Pack: 840000, Unpack: 800000},
		}}
		for _, tc := range []struct {
			model sim.Model
			want  int64
		}{
			{sim.LogGOPS, 207596},
			{sim.Log3P, 207596 + 2*(420000+400000)},
		} {
			res, err := sim.Run(s, sim.Options{Params: p, Model: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.PerRank, []int64{tc.want, tc.want}) {
				t.Errorf("%v: per rank %v ns, want %d each", tc.model, res.PerRank, tc.want)
			}
		}
	})
}

// TestMPIConvertCollSelectOpenMPI traces allreduce_loop at 2 ranks under
// Open MPI: the trace names the library, and auto expands the collectives
// with Open MPI's rules (4800 B and 4 B allreduces on 2 ranks: its ring;
// MPICH would run Rabenseifner and recursive doubling).
func TestMPIConvertCollSelectOpenMPI(t *testing.T) {
	needMPI(t)
	if !mpiSetup.openMPI {
		testenv.Missing(t, "the default mpirun is not Open MPI")
	}
	const iters = 5
	dir, files := runTracedDir(t, 2, "allreduce_loop", strconv.Itoa(iters), "600")
	if lib := files[0].Header.Library; !strings.HasPrefix(lib, "Open MPI") {
		t.Fatalf("library %q, want Open MPI's", lib)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, st := convert(t, d, trace.ConvertOptions{})
	want := map[string]int64{"allreduce/ompi_ring": 2 * (iters + 1)}
	if st.CollRules != "openmpi" || st.CollNote != "" || !maps.Equal(st.CollAlgorithms, want) {
		t.Errorf("auto: rules %s (note %q), algorithms %v; want openmpi, %v", st.CollRules, st.CollNote, st.CollAlgorithms, want)
	}
	_, st = convert(t, d, trace.ConvertOptions{CollSelect: "mpich"})
	want = map[string]int64{"allreduce/rabenseifner": 2 * iters, "allreduce/recdoub": 2}
	if st.CollRules != "mpich" || !maps.Equal(st.CollAlgorithms, want) {
		t.Errorf("mpich: rules %s, algorithms %v; want %v", st.CollRules, st.CollAlgorithms, want)
	}
}

// TestMPINonblockingCollectives traces testdata/icoll.c on 2 ranks: each
// of the 16 nonblocking collectives is recorded with its request and
// converted as the collective's communication completed at its MPI_Wait,
// none unsupported, none counted as computation.
func TestMPINonblockingCollectives(t *testing.T) {
	_, lib := needMPI(t)
	bin := filepath.Join(t.TempDir(), "icoll")
	if out, err := exec.Command("mpicc", "-O2", "-o", bin, filepath.Join("testdata", "icoll.c")).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	var opts []string
	if mpiSetup.openMPI {
		opts = []string{"--oversubscribe"}
	}
	dir, _ := runProgramDir(t, "mpirun", opts, lib, 2, nil, bin)
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, st := convert(t, d, trace.ConvertOptions{})
	if len(st.Unsupported) > 0 {
		t.Fatalf("unsupported calls: %v", st.Unsupported)
	}
	names := []string{"MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Iallgather", "MPI_Iallgatherv",
		"MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Igather", "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv",
		"MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan"}
	for _, f := range names {
		if st.PerFunc[f] != 2 {
			t.Errorf("%s: %d records, want one per rank", f, st.PerFunc[f])
		}
	}
	if st.PerFunc["MPI_Wait"] != 2*int64(len(names)) || st.Collectives != 2*int64(len(names)) {
		t.Errorf("%d waits, %d collectives; want %d each", st.PerFunc["MPI_Wait"], st.Collectives, 2*len(names))
	}
	if len(messages(s, 0)) == 0 {
		t.Fatal("no messages")
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}
