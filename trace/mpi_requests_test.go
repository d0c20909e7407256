package trace_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// TestMPIRequests runs testdata/requests.c on 2 ranks under the tracer:
// every completion names the request that completed (none is "untraced"),
// a request is completed once, and the trace converts with no unsupported
// call into the messages the program sends.
func TestMPIRequests(t *testing.T) {
	_, lib := needMPI(t)
	bin := filepath.Join(t.TempDir(), "requests")
	if out, err := exec.Command("mpicc", "-O2", "-o", bin, filepath.Join("testdata", "requests.c")).CombinedOutput(); err != nil {
		t.Fatalf("mpicc: %v\n%s", err, out)
	}
	var opts []string
	if mpiSetup.openMPI {
		opts = []string{"--oversubscribe"}
	}
	dir, files := runProgramDir(t, "mpirun", opts, lib, 2, nil, bin)
	for r, f := range files {
		created := map[uint64]trace.Func{}
		completed := map[uint64]bool{}
		cancelled := 0
		for _, c := range f.Calls {
			if c.Request != 0 && (c.Func.Class() == trace.ClassIsend || c.Func.Class() == trace.ClassIrecv) {
				created[c.Request] = c.Func
			}
			for _, d := range c.Done {
				if d.Request == 0 || created[d.Request] == 0 || completed[d.Request] {
					t.Errorf("rank %d: %v completes request %d (created by %v, completed before %v)", r, &c, d.Request, created[d.Request], completed[d.Request])
				}
				completed[d.Request] = true
				if d.Cancelled {
					cancelled++
				}
			}
		}
		// 4+4, 3+3, 1+1 and the cancelled receive.
		if len(created) != 17 || len(completed) != 17 || cancelled != 1 {
			t.Errorf("rank %d: %d requests created, %d completed, %d cancelled; want 17, 17, 1", r, len(created), len(completed), cancelled)
		}
		if w := of(f, trace.FuncWaitall); len(w) != 1 || len(w[0].Done) != 8 {
			t.Errorf("rank %d: Waitall %+v", r, w)
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
	sub := uint32(of(files[0], trace.FuncCommSplit)[0].NewComm)
	for r := range 2 {
		var tags []uint32
		for _, op := range s.RankOps(r) {
			if op.Kind == goal.Send && op.Tag&(1<<31) == 0 {
				if op.Peer != int32(1-r) {
					t.Errorf("rank %d: send %+v", r, op)
				}
				tags = append(tags, op.Tag)
			}
		}
		if want := []uint32{1, 2, 3, 4, 11, 12, 13, sub<<24 | 21}; !slices.Equal(tags, want) {
			t.Errorf("rank %d: sends with tags %v, want %v", r, tags, want)
		}
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}
