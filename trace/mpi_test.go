package trace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/trace"
)

// These tests build the tracer and the programs of examples/mpi with the
// Makefile (make tracer), run each program on 4 ranks with the tracer
// preloaded, and check the trace against the communication the program
// documents. Without MPI they skip, unless $CI is set: then they fail.

var mpiSetup struct {
	once      sync.Once
	root, lib string
	openMPI   bool
	err       error
	missing   string
}

// needMPI returns the repository root and the tracer library, built.
func needMPI(t *testing.T) (root, lib string) {
	t.Helper()
	s := &mpiSetup
	s.once.Do(func() {
		for _, tool := range []string{"mpicc", "mpif90", "mpirun", "make"} {
			if _, err := exec.LookPath(tool); err != nil {
				s.missing = tool
				return
			}
		}
		s.root, s.err = filepath.Abs("..")
		if s.err != nil {
			return
		}
		cmd := exec.Command("make", "--no-print-directory", "-s", "-C", s.root, "tracer")
		if out, err := cmd.CombinedOutput(); err != nil {
			s.err = fmt.Errorf("make tracer: %v\n%s", err, out)
			return
		}
		s.lib = filepath.Join(s.root, "bin", "libgopsim-pmpi.so")
		out, _ := exec.Command("mpirun", "--version").CombinedOutput()
		s.openMPI = strings.Contains(string(out), "Open MPI") || strings.Contains(string(out), "OpenRTE")
	})
	if s.missing != "" {
		testenv.Missing(t, s.missing+" not found: MPI tests need Open MPI and gfortran (make mpi-deps)")
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.root, s.lib
}

// runTraced runs example prog (of bin/examples/mpi) on np ranks of the
// default MPI under the tracer and returns each rank's trace.
func runTraced(t *testing.T, np int, env []string, prog string, args ...string) []*trace.File {
	t.Helper()
	root, lib := needMPI(t)
	var opts []string
	if mpiSetup.openMPI {
		opts = []string{"--oversubscribe"}
	}
	return runProgram(t, "mpirun", opts, lib, np, env, filepath.Join(root, "bin", "examples", "mpi", prog), args...)
}

// runProgram runs bin on np ranks with mpirun and its options opts, the
// tracer lib preloaded, and returns each rank's trace.
func runProgram(t *testing.T, mpirun string, opts []string, lib string, np int, env []string, bin string, args ...string) []*trace.File {
	t.Helper()
	_, files := runProgramDir(t, mpirun, opts, lib, np, env, bin, args...)
	return files
}

// runTracedDir is runTraced that also returns the trace directory.
func runTracedDir(t *testing.T, np int, prog string, args ...string) (string, []*trace.File) {
	t.Helper()
	root, lib := needMPI(t)
	var opts []string
	if mpiSetup.openMPI {
		opts = []string{"--oversubscribe"}
	}
	return runProgramDir(t, "mpirun", opts, lib, np, nil, filepath.Join(root, "bin", "examples", "mpi", prog), args...)
}

func runProgramDir(t *testing.T, mpirun string, opts []string, lib string, np int, env []string, bin string, args ...string) (string, []*trace.File) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	mpiArgs := append([]string{"-np", strconv.Itoa(np)}, opts...)
	cmd := exec.CommandContext(ctx, mpirun, append(append(mpiArgs, bin), args...)...)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir,
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", mpirun, filepath.Base(bin), err, out)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumRanks() != np {
		t.Fatalf("%d ranks traced, want %d", d.NumRanks(), np)
	}
	files := make([]*trace.File, np)
	for r := range files {
		if files[r], err = trace.ReadFile(d.Files[r]); err != nil {
			t.Fatal(err)
		}
		checkFile(t, files[r], r, np)
		if c := files[r].Header.Command; !strings.Contains(c, filepath.Base(bin)) {
			t.Errorf("rank %d: command line %q", r, c)
		}
	}
	return dir, files
}

// checkFile checks what every trace has: Init first and Finalize last,
// a normal end, times in order, the world and self communicators.
func checkFile(t *testing.T, f *trace.File, rank, np int) {
	t.Helper()
	h := f.Header
	if h.Rank != rank || h.Size != np || h.Host == "" || h.Library == "" || h.PID == 0 || h.Command == "" {
		t.Errorf("rank %d: header %+v", rank, h)
	}
	if f.End != trace.EndFinalize {
		t.Errorf("rank %d: trace ended with %v", rank, f.End)
	}
	calls := f.Calls
	if len(calls) < 2 || calls[0].Func.Class() != trace.ClassInit || calls[len(calls)-1].Func != trace.FuncFinalize {
		t.Fatalf("rank %d: trace does not run from MPI_Init to MPI_Finalize: %v ... %v", rank, calls[0].Func, calls[len(calls)-1].Func)
	}
	// The tracer sets itself up inside MPI_Init, after the library's:
	// its record ends after the tracer started, so that the set-up is not
	// counted as the program's computation before its first call.
	if calls[0].Start > h.T0 || calls[0].End < h.T0 {
		t.Errorf("rank %d: MPI_Init from %d to %d, the tracer started at %d: want it inside", rank, calls[0].Start, calls[0].End, h.T0)
	}
	prev := h.T0
	for i, c := range calls {
		if c.End < c.Start {
			t.Errorf("rank %d call %d %v: ends before it starts", rank, i, c.Func)
		}
		if i > 0 && c.Func != trace.FuncFlush {
			if c.Start < prev {
				t.Errorf("rank %d call %d %v: starts at %d, before the previous call (%d)", rank, i, c.Func, c.Start, prev)
			}
			prev = c.Start
		}
	}
	if len(f.Comms) < 2 || !slices.Equal(f.Comms[0].Members, seq(np)) || f.Comms[1].ID != 1 ||
		!slices.Equal(f.Comms[1].Members, []int32{int32(rank)}) {
		t.Errorf("rank %d: world and self communicators: %+v", rank, f.Comms)
	}
}

func seq(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// of returns the calls of f's classes or functions.
func of(f *trace.File, fns ...trace.Func) []trace.Call {
	var out []trace.Call
	for _, c := range f.Calls {
		if slices.Contains(fns, c.Func) {
			out = append(out, c)
		}
	}
	return out
}

func comm(f *trace.File, id int32) *trace.Comm {
	for _, c := range f.Comms {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// want compares a field.
func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestMPIPingPong(t *testing.T) {
	const iters, bytes = 30, 512
	checkPingPong(t, runTraced(t, 4, nil, "pingpong", strconv.Itoa(iters), strconv.Itoa(bytes)), iters, bytes)
}

// checkPingPong checks a trace of examples/mpi/pingpong.c.
func checkPingPong(t *testing.T, files []*trace.File, iters int, bytes int64) {
	for r, f := range files {
		sends, recvs := of(f, trace.FuncSend), of(f, trace.FuncRecv)
		want(t, fmt.Sprintf("rank %d barriers", r), len(of(f, trace.FuncBarrier)), 1)
		if r > 1 {
			want(t, fmt.Sprintf("rank %d sends+recvs", r), len(sends)+len(recvs), 0)
			continue
		}
		want(t, fmt.Sprintf("rank %d sends", r), len(sends), iters)
		want(t, fmt.Sprintf("rank %d recvs", r), len(recvs), iters)
		stag, rtag := int32(1), int32(2)
		if r == 1 {
			stag, rtag = 2, 1
		}
		for i := range sends {
			s, v := sends[i], recvs[i]
			tr := trace.Datatype{Size: 1, Extent: 1}
			if s.Peer != int32(1-r) || s.Tag != stag || s.Bytes != bytes || s.Comm != 0 || s.Type != tr {
				t.Fatalf("rank %d send %d: %+v", r, i, s)
			}
			if v.Peer != int32(1-r) || v.Tag != rtag || v.Bytes != bytes || v.Comm != 0 || v.Type != tr {
				t.Fatalf("rank %d recv %d: %+v", r, i, v)
			}
		}
		// The calls alternate: rank 0 sends first, rank 1 receives first.
		var seqFuncs []trace.Func
		for _, c := range f.Calls {
			if c.Func == trace.FuncSend || c.Func == trace.FuncRecv {
				seqFuncs = append(seqFuncs, c.Func)
			}
		}
		first := trace.FuncSend
		if r == 1 {
			first = trace.FuncRecv
		}
		for i, fn := range seqFuncs {
			if (fn == first) != (i%2 == 0) {
				t.Fatalf("rank %d: call %d is %v, out of turn", r, i, fn)
			}
		}
	}
}

func TestMPIHalo2D(t *testing.T) {
	const iters, nx, ny = 40, 64, 32
	// A 4 KiB buffer makes the tracer flush several times per rank.
	files := runTraced(t, 4, []string{"GOPSIM_TRACE_BUFFER=4096"}, "halo2d", strconv.Itoa(iters), strconv.Itoa(nx), strconv.Itoa(ny))
	const rows, cols = 2, 2 // MPI_Dims_create(4, 2)
	for r, f := range files {
		row, col := r/cols, r%cols
		at := func(i, j int) int32 { return int32(((i+rows)%rows)*cols + (j+cols)%cols) }
		north, south, west, east := at(row-1, col), at(row+1, col), at(row, col-1), at(row, col+1)
		from := []int32{north, south, west, east}
		to := []int32{south, north, east, west}
		size := []int64{8 * nx, 8 * nx, 8 * ny, 8 * ny}

		cc := of(f, trace.FuncCartCreate)
		if len(cc) != 1 || cc[0].Comm != 0 || cc[0].NewComm != 2 {
			t.Fatalf("rank %d: Cart_create records %+v", r, cc)
		}
		grid := comm(f, 2)
		if grid == nil || !slices.Equal(grid.Members, seq(4)) || grid.Local {
			t.Fatalf("rank %d: grid communicator %+v", r, grid)
		}
		irecvs, sends, waits := of(f, trace.FuncIrecv), of(f, trace.FuncSend), of(f, trace.FuncWaitall)
		want(t, "irecvs", len(irecvs), 4*iters)
		want(t, "sends", len(sends), 4*iters)
		want(t, "waitalls", len(waits), iters)
		for it := 0; it < iters && !t.Failed(); it++ {
			w := waits[it]
			if len(w.Done) != 4 {
				t.Fatalf("rank %d iteration %d: Waitall completes %d requests", r, it, len(w.Done))
			}
			for d := range 4 {
				ir, s, c := irecvs[4*it+d], sends[4*it+d], w.Done[d]
				if ir.Peer != from[d] || ir.Tag != int32(d) || ir.Bytes != size[d] || ir.Comm != 2 || ir.Request == 0 {
					t.Errorf("rank %d iteration %d: Irecv %d: %+v", r, it, d, ir)
				}
				if s.Peer != to[d] || s.Tag != int32(d) || s.Bytes != size[d] || s.Comm != 2 {
					t.Errorf("rank %d iteration %d: Send %d: %+v", r, it, d, s)
				}
				if c.Request != ir.Request || c.Kind != trace.ReqRecv || c.Peer != from[d] || c.Tag != int32(d) ||
					c.Bytes != size[d] || c.Func != trace.FuncIrecv || c.Comm != 2 {
					t.Errorf("rank %d iteration %d: completion %d: %+v (Irecv %+v)", r, it, d, c, ir)
				}
			}
		}
		ar := of(f, trace.FuncAllreduce)
		want(t, "allreduces", len(ar), iters/5)
		for _, c := range ar {
			if c.Comm != 2 || c.Bytes != 8 || c.Type != (trace.Datatype{Size: 8, Extent: 8}) {
				t.Errorf("rank %d: allreduce %+v", r, c)
			}
		}
		cf := of(f, trace.FuncCommFree)
		if len(cf) != 1 || cf[0].Comm != 2 {
			t.Errorf("rank %d: Comm_free %+v", r, cf)
		}
		flushes := of(f, trace.FuncFlush)
		if len(flushes) == 0 {
			t.Errorf("rank %d: no flush records with a 4 KiB buffer", r)
		}
	}
}

func TestMPIAllreduceLoop(t *testing.T) {
	const iters, count = 25, 100
	files := runTraced(t, 4, nil, "allreduce_loop", strconv.Itoa(iters), strconv.Itoa(count))
	for r, f := range files {
		ar := of(f, trace.FuncAllreduce)
		if len(ar) != iters+1 {
			t.Fatalf("rank %d: %d allreduces, want %d", r, len(ar), iters+1)
		}
		for i, c := range ar {
			b, dt := int64(8*count), trace.Datatype{Size: 8, Extent: 8}
			if i == iters {
				b, dt = 4, trace.Datatype{Size: 4, Extent: 4}
			}
			if c.Bytes != b || c.Type != dt || c.Comm != 0 || c.Root != trace.None || c.Peer != trace.None {
				t.Errorf("rank %d allreduce %d: %+v", r, i, c)
			}
		}
	}
}

func TestMPIAlltoall(t *testing.T) {
	const iters, block, p = 5, 128, 4
	files := runTraced(t, p, nil, "fft_alltoall", strconv.Itoa(iters), strconv.Itoa(block))
	for r, f := range files {
		a2a, a2av := of(f, trace.FuncAlltoall), of(f, trace.FuncAlltoallv)
		want(t, "alltoalls", len(a2a), iters)
		want(t, "alltoallvs", len(a2av), iters)
		var sc, rc []int64
		for j := range p {
			sc = append(sc, 4*8*int64((r+2*j)%p+1))
			rc = append(rc, 4*8*int64((j+2*r)%p+1))
		}
		for i := range iters {
			if c := a2a[i]; c.Bytes != 16*block || c.Type.Size != 16 || c.Type.Extent != 16 || c.Type.ID == 0 || c.Type.Stride != 0 || c.Comm != 0 {
				t.Errorf("rank %d alltoall %d: %+v", r, i, c)
			}
			if c := a2av[i]; !slices.Equal(c.Counts, sc) || !slices.Equal(c.RecvCounts, rc) || c.Type.Size != 4 || c.RecvType.Size != 4 {
				t.Errorf("rank %d alltoallv %d: counts %v, receive counts %v; want %v, %v", r, i, c.Counts, c.RecvCounts, sc, rc)
			}
		}
	}
}

func TestMPIIrregular(t *testing.T) {
	const p = 4
	files := runTraced(t, p, nil, "irregular")
	for r, f := range files {
		split := of(f, trace.FuncCommSplit)
		if len(split) != 1 || split[0].NewComm != 2 {
			t.Fatalf("rank %d: Comm_split %+v", r, split)
		}
		sub := comm(f, 2)
		wantSub := []int32{2, 0} // key -rank: descending
		if r%2 == 1 {
			wantSub = []int32{3, 1}
		}
		if sub == nil || !slices.Equal(sub.Members, wantSub) {
			t.Errorf("rank %d: sub-communicator %+v, want members %v", r, sub, wantSub)
		}
		dup := of(f, trace.FuncCommDup)
		if len(dup) != 1 || dup[0].NewComm != 3 || !slices.Equal(comm(f, 3).Members, seq(p)) {
			t.Errorf("rank %d: Comm_dup %+v", r, dup)
		}
		bc, ar := of(f, trace.FuncBcast), of(f, trace.FuncAllreduce)
		if len(bc) != 1 || bc[0].Comm != 2 || bc[0].Root != 0 || bc[0].Bytes != 64 {
			t.Errorf("rank %d: Bcast %+v", r, bc)
		}
		if len(ar) != 1 || ar[0].Comm != 2 || ar[0].Bytes != 8 {
			t.Errorf("rank %d: Allreduce %+v", r, ar)
		}
		// Point to point on the sub-communicator: peers are world ranks.
		if r >= 2 {
			s := of(f, trace.FuncSend)
			if i := slices.IndexFunc(s, func(c trace.Call) bool { return c.Tag == 13 }); i < 0 || s[i].Peer != int32(r-2) || s[i].Comm != 2 || s[i].Bytes != 32 {
				t.Errorf("rank %d: no Send of 32 bytes to world rank %d on the sub-communicator: %+v", r, r-2, s)
			}
		} else {
			ir, w := of(f, trace.FuncIrecv), of(f, trace.FuncWait)
			i := slices.IndexFunc(ir, func(c trace.Call) bool { return c.Tag == 13 })
			if i < 0 || ir[i].Peer != trace.AnySource || ir[i].Comm != 2 || len(w) != 1 || len(w[0].Done) != 1 ||
				w[0].Done[0].Request != ir[i].Request || w[0].Done[0].Peer != int32(r+2) || w[0].Done[0].Bytes != 32 || w[0].Done[0].Comm != 2 {
				t.Errorf("rank %d: want an Irecv from any source on the sub-communicator completed by a Wait from world rank %d: %+v %+v", r, r+2, ir, w)
			}
		}
		if b := of(f, trace.FuncBarrier); len(b) != 1 || b[0].Comm != 3 {
			t.Errorf("rank %d: Barrier %+v", r, b)
		}
		if cf := of(f, trace.FuncCommFree); len(cf) != 2 || cf[0].Comm != 2 || cf[1].Comm != 3 {
			t.Errorf("rank %d: Comm_free %+v", r, cf)
		}

		switch r {
		case 0:
			irecvs, waits := of(f, trace.FuncIrecv), of(f, trace.FuncWaitany)
			irecvs = slices.DeleteFunc(irecvs, func(c trace.Call) bool { return c.Tag == 13 })
			want(t, "rank 0 irecvs", len(irecvs), p-1)
			want(t, "rank 0 waitanys", len(waits), p-1)
			for _, c := range irecvs {
				if c.Peer != trace.AnySource || c.Tag != 7 || c.Bytes != 100*p {
					t.Errorf("rank 0: Irecv %+v", c)
				}
			}
			var srcs []int32
			for _, w := range waits {
				if len(w.Done) != 1 || w.Done[0].Kind != trace.ReqRecv || w.Done[0].Bytes != 100*int64(w.Done[0].Peer) || w.Done[0].Tag != 7 {
					t.Errorf("rank 0: Waitany %+v", w)
					continue
				}
				srcs = append(srcs, w.Done[0].Peer)
			}
			slices.Sort(srcs)
			if !slices.Equal(srcs, []int32{1, 2, 3}) {
				t.Errorf("rank 0: received from %v, want 1 2 3", srcs)
			}
			probes := of(f, trace.FuncIprobe)
			if len(probes) != 2 || probes[0].Flag || probes[0].Polls < 1 || probes[0].Peer != 1 || probes[0].Tag != 9 ||
				!probes[1].Flag || probes[1].Polls != 1 || probes[1].Peer != 1 || probes[1].Tag != 9 || probes[1].Bytes != 8 {
				t.Errorf("rank 0: want a run of failed probes, then one that finds 8 bytes: %+v", probes)
			}
			if rv := of(f, trace.FuncRecv); len(rv) != 1 || rv[0].Peer != 1 || rv[0].Tag != 9 || rv[0].Bytes != 8 {
				t.Errorf("rank 0: Recv %+v", rv)
			}
		case 2:
			ir, tests := of(f, trace.FuncIrecv), of(f, trace.FuncTest)
			ir = slices.DeleteFunc(ir, func(c trace.Call) bool { return c.Tag == 13 })
			if len(ir) != 1 || ir[0].Peer != 3 || ir[0].Tag != 11 || ir[0].Bytes != 16 {
				t.Fatalf("rank 2: Irecv %+v", ir)
			}
			if len(tests) != 2 || tests[0].Flag || tests[0].Polls < 1 || len(tests[0].Done) != 0 || !tests[1].Flag ||
				len(tests[1].Done) != 1 || tests[1].Done[0].Request != ir[0].Request || tests[1].Done[0].Peer != 3 || tests[1].Done[0].Bytes != 16 {
				t.Errorf("rank 2: want a run of failed tests, then one that completes the Irecv: %+v", tests)
			}
		}
		if r > 0 {
			sends := of(f, trace.FuncSend)
			if len(sends) < 1 || sends[0].Peer != 0 || sends[0].Tag != 7 || sends[0].Bytes != 100*int64(r) {
				t.Errorf("rank %d: first Send %+v", r, sends)
			}
		}
	}
}

func TestMPIFortran(t *testing.T) {
	checkFortran(t, runTraced(t, 4, nil, "fring"))
}

// checkFortran checks a trace of examples/mpi/fring.f90.
func checkFortran(t *testing.T, files []*trace.File) {
	p := len(files)
	for r, f := range files {
		left, right := int32((r+p-1)%p), int32((r+1)%p)
		if f.Calls[0].Func != trace.FuncInit {
			t.Errorf("rank %d: first call %v", r, f.Calls[0].Func)
		}
		var parity []int32 // split by parity, in rank order
		for q := r % 2; q < p; q += 2 {
			parity = append(parity, int32(q))
		}
		split := of(f, trace.FuncCommSplit)
		if len(split) != 1 || split[0].NewComm != 2 || !slices.Equal(comm(f, 2).Members, parity) {
			t.Errorf("rank %d: Comm_split %+v, communicators %+v", r, split, f.Comms)
		}
		irecvs, isends, waits := of(f, trace.FuncIrecv), of(f, trace.FuncIsend), of(f, trace.FuncWaitall)
		if len(irecvs) != 10 || len(isends) != 10 || len(waits) != 10 {
			t.Fatalf("rank %d: %d Irecv, %d Isend, %d Waitall; want 10 each", r, len(irecvs), len(isends), len(waits))
		}
		for i := range 10 {
			ir, is, w := irecvs[i], isends[i], waits[i]
			if ir.Peer != left || ir.Tag != 5 || ir.Bytes != 800 || is.Peer != right || is.Tag != 5 || is.Bytes != 800 {
				t.Errorf("rank %d: Irecv %+v Isend %+v", r, ir, is)
			}
			if len(w.Done) != 2 || w.Done[0].Request != ir.Request || w.Done[0].Peer != left || w.Done[0].Bytes != 800 ||
				w.Done[1].Request != is.Request || w.Done[1].Kind != trace.ReqSend || w.Done[1].Peer != right {
				t.Errorf("rank %d: Waitall %+v", r, w.Done)
			}
		}
		sr := of(f, trace.FuncSendrecv)
		if len(sr) != 1 || sr[0].Peer != right || sr[0].Tag != 6 || sr[0].Bytes != 40 ||
			sr[0].RecvPeer != left || sr[0].RecvTag != 6 || sr[0].RecvBytes != 40 {
			t.Errorf("rank %d: Sendrecv %+v", r, sr)
		}
		if ar := of(f, trace.FuncAllreduce); len(ar) != 1 || ar[0].Bytes != 8 || ar[0].Comm != 0 {
			t.Errorf("rank %d: Allreduce %+v", r, ar)
		}
		if bc := of(f, trace.FuncBcast); len(bc) != 1 || bc[0].Bytes != 16 || bc[0].Comm != 2 || bc[0].Root != 0 {
			t.Errorf("rank %d: Bcast %+v", r, bc)
		}
		s, v := of(f, trace.FuncSend), of(f, trace.FuncRecv)
		if len(s) != 1 || s[0].Peer != right || s[0].Tag != 7 || s[0].Bytes != 4 || len(v) != 1 || v[0].Peer != left || v[0].Bytes != 4 {
			t.Errorf("rank %d: Send %+v Recv %+v", r, s, v)
		}
		if cf := of(f, trace.FuncCommFree); len(cf) != 1 || cf[0].Comm != 2 {
			t.Errorf("rank %d: Comm_free %+v", r, cf)
		}
	}
}

func TestMPIFortran2008(t *testing.T) {
	const p = 4
	checkFortran2008(t, runTraced(t, p, nil, "fring_f08"))
}

// checkFortran2008 checks a trace of examples/mpi/fring_f08.f90.
func checkFortran2008(t *testing.T, files []*trace.File) {
	p := len(files)
	for r, f := range files {
		left, right := int32((r+p-1)%p), int32((r+1)%p)
		if f.Calls[0].Func != trace.FuncInit {
			t.Errorf("rank %d: first call %v", r, f.Calls[0].Func)
		}
		split := of(f, trace.FuncCommSplit)
		if len(split) != 1 || split[0].NewComm != 2 {
			t.Fatalf("rank %d: Comm_split %+v", r, split)
		}
		s, v := of(f, trace.FuncSend), of(f, trace.FuncRecv)
		if len(s) != 5 || len(v) != 5 {
			t.Fatalf("rank %d: %d sends, %d receives; want 5 each", r, len(s), len(v))
		}
		for i := range 5 {
			if s[i].Peer != right || s[i].Tag != 3 || s[i].Bytes != 200 || v[i].Peer != left || v[i].Tag != 3 || v[i].Bytes != 200 {
				t.Errorf("rank %d: Send %+v Recv %+v", r, s[i], v[i])
			}
		}
		irecvs, isends, waitalls, waits := of(f, trace.FuncIrecv), of(f, trace.FuncIsend), of(f, trace.FuncWaitall), of(f, trace.FuncWait)
		if len(irecvs) != 4 || len(isends) != 4 || len(waitalls) != 3 || len(waits) != 2 {
			t.Fatalf("rank %d: %d Irecv, %d Isend, %d Waitall, %d Wait; want 4, 4, 3, 2", r, len(irecvs), len(isends), len(waitalls), len(waits))
		}
		for i, w := range waitalls {
			if len(w.Done) != 2 || w.Done[0].Request != irecvs[i].Request || w.Done[0].Peer != left || w.Done[0].Bytes != 40 ||
				w.Done[1].Request != isends[i].Request || w.Done[1].Peer != right || w.Done[1].Bytes != 40 {
				t.Errorf("rank %d: Waitall %d: %+v", r, i, w.Done)
			}
		}
		if d := waits[0].Done; len(d) != 1 || d[0].Request != irecvs[3].Request || d[0].Peer != left || d[0].Tag != 8 || d[0].Bytes != 4 {
			t.Errorf("rank %d: Wait on the receive: %+v", r, d)
		}
		if d := waits[1].Done; len(d) != 1 || d[0].Request != isends[3].Request || d[0].Kind != trace.ReqSend {
			t.Errorf("rank %d: Wait on the send: %+v", r, d)
		}
		if ar := of(f, trace.FuncAllreduce); len(ar) != 1 || ar[0].Bytes != 4 {
			t.Errorf("rank %d: Allreduce %+v", r, ar)
		}
		if b := of(f, trace.FuncBarrier); len(b) != 2 || b[0].Comm != 2 || b[1].Comm != 0 {
			t.Errorf("rank %d: Barriers %+v", r, b)
		}
		if cf := of(f, trace.FuncCommFree); len(cf) != 1 || cf[0].Comm != 2 {
			t.Errorf("rank %d: Comm_free %+v", r, cf)
		}
	}
}

// ending builds testdata/ending.c and runs it on 2 ranks in mode; the run
// may fail (that is the point of the exit and abort modes).
func ending(t *testing.T, mode string) (*trace.Dir, []byte) {
	t.Helper()
	needMPI(t)
	bin := filepath.Join(t.TempDir(), "ending")
	if out, err := exec.Command("mpicc", "-O2", "-pthread", "-o", bin, filepath.Join("testdata", "ending.c")).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"-np", "2"}
	if mpiSetup.openMPI {
		args = append(args, "--oversubscribe")
	}
	cmd := exec.CommandContext(ctx, "mpirun", append(args, bin, mode)...)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+mpiSetup.lib, "GOPSIM_TRACE_DIR="+dir,
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mpirun %s timed out:\n%s", mode, out)
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatalf("%v\nmpirun output:\n%s", err, out)
	}
	return d, out
}

func TestMPIEndings(t *testing.T) {
	t.Run("exit without MPI_Finalize", func(t *testing.T) {
		d, out := ending(t, "exit")
		for r := range 2 {
			f, err := trace.ReadFile(d.Files[r])
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			last := f.Calls[len(f.Calls)-1]
			if f.End != trace.EndExit || last.Func != trace.FuncBarrier {
				t.Errorf("rank %d: ended with %v after %v", r, f.End, last.Func)
			}
		}
	})
	t.Run("MPI_Abort", func(t *testing.T) {
		d, out := ending(t, "abort")
		f, err := trace.ReadFile(d.Files[1])
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if last := f.Calls[len(f.Calls)-1]; f.End != trace.EndAbort || last.Func != trace.FuncAbort || last.Comm != 0 {
			t.Errorf("rank 1: ended with %v after %+v", f.End, last)
		}
		// Rank 0 was killed: its file has the header and nothing more.
		if _, err := trace.ReadFile(d.Files[0]); !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, trace.ErrFormat) {
			t.Errorf("rank 0: %v", err)
		}
		st, err := d.Stats()
		if err != nil || !slices.Equal(st.Cut, []int{0}) || st.Ends[trace.EndAbort] != 1 {
			t.Errorf("stats %+v, %v", st, err)
		}
	})
	t.Run("MPI_THREAD_MULTIPLE", func(t *testing.T) {
		d, out := ending(t, "threads")
		for r := range 2 {
			f, err := trace.ReadFile(d.Files[r])
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if f.Header.Thread != 3 || f.Calls[0].Func != trace.FuncInitThread || f.End != trace.EndFinalize {
				t.Errorf("rank %d: thread level %d, first call %v, end %v", r, f.Header.Thread, f.Calls[0].Func, f.End)
			}
			per := map[int32]int{}
			var polls int64
			for _, c := range of(f, trace.FuncSendrecv) {
				if c.Peer != int32(1-r) || c.RecvPeer != int32(1-r) || c.Bytes != 8 || c.RecvBytes != 8 {
					t.Errorf("rank %d: %v", r, &c)
				}
				per[c.Comm]++
			}
			for _, c := range of(f, trace.FuncIprobe) {
				polls += c.Polls
			}
			if len(per) != 2 || per[2] != 100 || per[3] != 100 || polls != 100 {
				t.Errorf("rank %d: Sendrecv per communicator %v, %d probes; want 100 on each of 2 and 3, 100 probes", r, per, polls)
			}
		}
	})
}

// needMPICH returns the MPICH tracer library and the directory of the
// MPICH examples, built with make tracer-mpich (bin/mpich/). MPICH is
// optional: without its tools the caller skips, unless $CI is set.
func needMPICH(t *testing.T) (lib, ex string) {
	t.Helper()
	testenv.NeedTools(t, "MPICH is not installed (make mpi-deps installs it as root)", "mpicc.mpich", "mpif90.mpich", "mpirun.mpich", "make")
	mpichSetup.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			mpichSetup.err = err
			return
		}
		cmd := exec.Command("make", "--no-print-directory", "-s", "-C", root, "tracer-mpich")
		if out, err := cmd.CombinedOutput(); err != nil {
			mpichSetup.err = fmt.Errorf("make tracer-mpich: %v\n%s", err, out)
			return
		}
		mpichSetup.dir = filepath.Join(root, "bin", "mpich")
	})
	if mpichSetup.err != nil {
		t.Fatal(mpichSetup.err)
	}
	return filepath.Join(mpichSetup.dir, "libgopsim-pmpi.so"), filepath.Join(mpichSetup.dir, "examples", "mpi")
}

var mpichSetup struct {
	once sync.Once
	dir  string
	err  error
}

// TestMPIWrongLibrary preloads each library's tracer into the other's
// programs: the tracer ends every rank at MPI_Init with one line naming
// both libraries and the make target to use, before a handle of the
// wrong mpi.h reaches the library (which failed with "Invalid
// communicator" or a segmentation fault). In MPICH's Fortran 2008
// program the tracer's Open MPI comes before MPICH in the lookup order.
func TestMPIWrongLibrary(t *testing.T) {
	root, openLib := needMPI(t)
	if !mpiSetup.openMPI {
		t.Skip("the default mpirun is not Open MPI's")
	}
	mpichLib, mpichEx := needMPICH(t)
	const (
		onMPICH   = "this tracer was built for Open MPI but the program runs MPICH (MPICH Version: "
		onOpenMPI = "this tracer was built for MPICH but the program runs Open MPI (Open MPI v"
	)
	openEx := filepath.Join(root, "bin", "examples", "mpi")
	for _, tc := range []struct {
		name, mpirun, lib, prog, want string
	}{
		{"open-mpi-tracer/mpich-c", "mpirun.mpich", openLib, filepath.Join(mpichEx, "pingpong"), onMPICH},
		{"open-mpi-tracer/mpich-f08", "mpirun.mpich", openLib, filepath.Join(mpichEx, "fring_f08"), onMPICH},
		{"mpich-tracer/open-mpi-c", "mpirun", mpichLib, filepath.Join(openEx, "pingpong"), onOpenMPI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, tc.mpirun, "-np", "2", tc.prog, "2", "8")
			cmd.Env = append(os.Environ(), "LD_PRELOAD="+tc.lib, "GOPSIM_TRACE_DIR="+t.TempDir(),
				"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the run succeeded:\n%s", out)
			}
			if n := strings.Count(string(out), "gopsim tracer: "); n != 1 || !strings.Contains(string(out), tc.want) ||
				!strings.Contains(string(out), "build the tracer for the program's MPI (make tracer") {
				t.Errorf("%d lines from the tracer, want 1 with %q and the make target:\n%s", n, tc.want, out)
			}
		})
	}
}

// TestMPICH runs the examples built with MPICH (make tracer-mpich) on 2
// ranks under MPICH's tracer (MPICH busy-polls: no more ranks than cores).
func TestMPICH(t *testing.T) {
	lib, ex := needMPICH(t)
	bin := func(name string) string { return filepath.Join(ex, name) }
	t.Run("pingpong", func(t *testing.T) {
		checkPingPong(t, runProgram(t, "mpirun.mpich", nil, lib, 2, nil, bin("pingpong"), "20", "100"), 20, 100)
	})
	t.Run("fring", func(t *testing.T) {
		checkFortran(t, runProgram(t, "mpirun.mpich", nil, lib, 2, nil, bin("fring")))
	})
	t.Run("fring_f08", func(t *testing.T) {
		checkFortran2008(t, runProgram(t, "mpirun.mpich", nil, lib, 2, nil, bin("fring_f08")))
	})
	t.Run("coll-select", func(t *testing.T) {
		// The trace names MPICH, and auto follows MPICH's selection.
		dir, files := runProgramDir(t, "mpirun.mpich", nil, lib, 2, nil, bin("allreduce_loop"), "5", "600")
		if l := files[0].Header.Library; !strings.HasPrefix(l, "MPICH") {
			t.Fatalf("library %q, want MPICH's", l)
		}
		d, err := trace.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, st := convert(t, d, trace.ConvertOptions{})
		want := map[string]int64{"allreduce/rabenseifner": 10, "allreduce/recdoub": 2}
		if st.CollRules != "mpich" || st.CollNote != "" || fmt.Sprint(st.CollAlgorithms) != fmt.Sprint(want) {
			t.Errorf("rules %s (note %q), algorithms %v; want mpich, %v", st.CollRules, st.CollNote, st.CollAlgorithms, want)
		}
	})
}
