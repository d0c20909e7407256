package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
)

// writeTraceDir writes a 2-rank trace: an allreduce, and on rank 1 an
// MPI_Abort when abort is set.
func writeTraceDir(t *testing.T, abort bool) string {
	t.Helper()
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		f, err := os.Create(filepath.Join(dir, trace.FileName(r)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := trace.NewWriter(f, trace.Header{Rank: r, Size: 2, T0: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*trace.Comm{{ID: 0, Members: []int32{0, 1}}, {ID: 1, Members: []int32{int32(r)}}} {
			if err := w.WriteComm(c); err != nil {
				t.Fatal(err)
			}
		}
		calls := []trace.Call{trace.NewCall(trace.FuncInit, 0, 100), trace.NewCall(trace.FuncAllreduce, 1000, 1500)}
		calls[1].Comm, calls[1].Bytes, calls[1].Type = 0, 4096, trace.Datatype{Size: 8, Extent: 8}
		if abort && r == 1 {
			c := trace.NewCall(trace.FuncAbort, 2000, 2100)
			c.Comm = 0
			calls = append(calls, c)
		}
		calls = append(calls, trace.NewCall(trace.FuncFinalize, 3000, 3100))
		for i := range calls {
			if err := w.WriteCall(&calls[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(trace.EndFinalize); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return dir
}

func TestConvertTrace(t *testing.T) {
	dir := writeTraceDir(t, false)
	out := filepath.Join(t.TempDir(), "ar.goal")
	code, _, e := run("convert", "--coll-algo", "allreduce=ring", "--compute-scale", "2", dir, out)
	if code != ExitOK || !strings.Contains(e, "2 ranks, 2 MPI call records") && !strings.Contains(e, "converted") {
		t.Fatalf("exit %d: %s", code, e)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Ring allreduce on 2 ranks of 4096 bytes: 2 blocks of 2048, one
	// reduce-scatter and one allgather step; the computation doubled.
	if !strings.Contains(string(data), "send 2048b to 1") || !strings.Contains(string(data), "calc 1800") {
		t.Fatalf("schedule:\n%s", data)
	}
	if code, out, _ := run("sim", out); code != ExitOK || !strings.Contains(out, "max finishing time") {
		t.Fatalf("sim: exit %d\n%s", code, out)
	}
}

func TestConvertTraceErrors(t *testing.T) {
	dir := writeTraceDir(t, true)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "x.bin")
	code, _, e := run("convert", dir, out)
	if code != ExitError || !strings.Contains(e, "unsupported MPI calls") || !strings.Contains(e, "MPI_Abort x1") {
		t.Fatalf("exit %d: %s", code, e)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Fatalf("a failed conversion left %v", entries)
	}
	if code, _, e := run("convert", "--unsupported=calc", dir, out); code != ExitOK || !strings.Contains(e, "MPI_Abort:1") {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, bad := range []string{"allreduce", "allreduce=nope", "nosuch=ring"} {
		if code, _, _ := run("convert", "--coll-algo", bad, dir, out); code != ExitUsage {
			t.Errorf("--coll-algo %s: exit %d, want %d", bad, code, ExitUsage)
		}
	}
}
