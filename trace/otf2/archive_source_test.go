package otf2

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// schedule converts a trace to GOAL text.
func schedule(t *testing.T, src trace.Source) string {
	t.Helper()
	s := goal.NewSchedule(src.NumRanks())
	if _, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := goal.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestArchiveTraceMatchesPrint converts the Score-P sample natively and
// from otf2-print's output: the same schedule, the same unsupported calls.
func TestArchiveTraceMatchesPrint(t *testing.T) {
	native, err := OpenArchiveTrace(sampleScoreP, "calc")
	if err != nil {
		t.Fatal(err)
	}
	printed, err := trace.ReadOTF2Print(bytes.NewReader(gunzip(t, filepath.Join("..", "testdata", "otf2", "sstmacro-otf2-10.print.txt.gz"))),
		sampleScoreP, trace.OTF2Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(native.Unsupported(), printed.Unsupported()) {
		t.Errorf("unsupported: native %v, printed %v", native.Unsupported(), printed.Unsupported())
	}
	n, p := schedule(t, native), schedule(t, printed)
	if n != p {
		t.Fatalf("schedules differ: native %d bytes, printed %d bytes", len(n), len(p))
	}
	if len(n) < 10000 {
		t.Fatalf("schedule of %d bytes", len(n))
	}
}

// TestArchiveTraceNonblockingCollectives converts the OTF2 3 sample,
// whose MPI_Iallreduce, MPI_Ibcast and MPI_Ibarrier give their data at
// the wait that completes them: they are collectives, started at the call
// and completed at the wait, not computation.
func TestArchiveTraceNonblockingCollectives(t *testing.T) {
	src, err := OpenArchiveTrace(sampleGen, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Unsupported()) > 0 {
		t.Fatalf("unsupported %v", src.Unsupported())
	}
	// Rank 1's calls of the first iteration.
	rs, err := src.OpenRank(1)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var got []trace.Call
	var c trace.Call
	for len(got) < 12 {
		if err := rs.Next(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Clone())
	}
	type want struct {
		f        trace.Func
		bytes    int64
		root     int32
		req      uint64
		done     []uint64
		doneKind trace.ReqKind
	}
	wants := []want{
		{f: trace.FuncInit, root: trace.None},
		{f: trace.FuncIrecv, root: trace.None, req: 1},
		{f: trace.FuncIsend, bytes: 4096, root: trace.None, req: 2},
		{f: trace.FuncWaitall, root: trace.None, done: []uint64{2, 1}, doneKind: trace.ReqSend},
		{f: trace.FuncRecv, bytes: 1 << 20, root: trace.None},
		{f: trace.FuncAllreduce, bytes: 64, root: trace.None},
		{f: trace.FuncIallreduce, bytes: 128, root: trace.None, req: 3},
		{f: trace.FuncIbcast, bytes: 256, root: 0, req: 4},
		{f: trace.FuncTest, root: trace.None},
		{f: trace.FuncWaitall, root: trace.None, done: []uint64{3, 4}, doneKind: trace.ReqCollective},
		{f: trace.FuncIbarrier, root: trace.None, req: 5},
		{f: trace.FuncWait, root: trace.None, done: []uint64{5}, doneKind: trace.ReqCollective},
	}
	for i, w := range wants {
		g := got[i]
		var done []uint64
		for _, d := range g.Done {
			done = append(done, d.Request)
		}
		if g.Func != w.f || g.Bytes != w.bytes || g.Root != w.root || g.Request != w.req || !reflect.DeepEqual(done, w.done) ||
			len(g.Done) > 0 && g.Done[0].Kind != w.doneKind {
			t.Errorf("call %d: %v bytes %d root %d request %d done %+v; want %+v", i, g.Func, g.Bytes, g.Root, g.Request, g.Done, w)
		}
	}
	s := goal.NewSchedule(src.NumRanks())
	st, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"MPI_Iallreduce", "MPI_Ibcast", "MPI_Ibarrier"} {
		if st.PerFunc[f] != 12 {
			t.Errorf("%s: %d calls converted, want 12 (%v)", f, st.PerFunc[f], st.PerFunc)
		}
	}
	if len(st.Unsupported) > 0 {
		t.Errorf("converter: unsupported %v", st.Unsupported)
	}
	t.Logf("warnings: %v", src.Warnings)
}
