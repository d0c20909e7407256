package otf2

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
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

// TestArchiveTraceMatchesPrint converts every OTF2 sample of testdata
// natively and from otf2-print's text of it, the saved one and the
// printer's today: the same schedule (GOAL text), the same unsupported
// calls and warnings.
func TestArchiveTraceMatchesPrint(t *testing.T) {
	anchors, _ := filepath.Glob(filepath.Join("testdata", "*", "*.otf2"))
	if len(anchors) < 2 {
		t.Fatalf("samples %v", anchors)
	}
	for _, anchor := range anchors {
		t.Run(filepath.Base(filepath.Dir(anchor)), func(t *testing.T) {
			native, err := Open(anchor, Options{Unsupported: "calc"})
			if err != nil {
				t.Fatal(err)
			}
			want := schedule(t, native)
			if len(want) < 5000 {
				t.Fatalf("schedule of %d bytes", len(want))
			}
			texts := map[string][]byte{"saved": gunzip(t, filepath.Dir(anchor)+".print.txt.gz")}
			if PrintAvailable() || testenv.CI() {
				texts["otf2-print"] = livePrint(t, anchor)
			}
			for name, text := range texts {
				printed, err := ReadPrint(bytes.NewReader(text), anchor, Options{Unsupported: "calc"})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := schedule(t, printed); got != want {
					t.Errorf("%s: schedules differ: native %d bytes, printed %d bytes", name, len(want), len(got))
				}
				if !reflect.DeepEqual(native.Unsupported(), printed.Unsupported()) {
					t.Errorf("%s: unsupported: native %v, printed %v", name, native.Unsupported(), printed.Unsupported())
				}
				if !reflect.DeepEqual(native.Warnings, printed.Warnings) {
					t.Errorf("%s: warnings: native %q, printed %q", name, native.Warnings, printed.Warnings)
				}
			}
		})
	}
}

// TestArchiveTraceNonblockingCollectives converts the OTF2 3 sample,
// whose MPI_Iallreduce, MPI_Ibcast and MPI_Ibarrier give their data at
// the wait that completes them: they are collectives, started at the call
// and completed at the wait, not computation.
func TestArchiveTraceNonblockingCollectives(t *testing.T) {
	src, err := Open(sampleGen, Options{})
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

// copyArchive copies the OTF2 3 sample to a temporary directory and
// returns its anchor file.
func copyArchive(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Dir(sampleGen)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(sampleGen))
}

// firstEvent is the offset of location 0's first event of kind k.
func firstEvent(t *testing.T, anchor string, k Kind) int64 {
	t.Helper()
	a, err := OpenArchive(anchor)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ev Event
	for r.Next(&ev) == nil {
		if ev.Kind == k {
			return ev.Offset
		}
	}
	t.Fatalf("no %s event", k)
	return 0
}

// TestArchiveTraceErrors damages a copy of the OTF2 3 sample: each
// error names the file and the byte offset, or what is missing.
func TestArchiveTraceErrors(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, anchor string)
		want   []string
	}{
		{"peer outside its communicator", func(t *testing.T, anchor string) {
			off := firstEvent(t, anchor, MpiIsend)
			patchFile(t, evtFile(anchor, 0), off+3, 9) // receiver 1 → 9
		}, []string{"ring/0.evt: byte ", "rank 9 outside communicator of 4 ranks"}},
		{"undefined communicator", func(t *testing.T, anchor string) {
			off := firstEvent(t, anchor, MpiIsend)
			patchFile(t, evtFile(anchor, 0), off+4, 0xff) // comm 0 → undefined
		}, []string{"ring/0.evt: byte ", "communicator 4294967295 is not defined"}},
		{"regions not nested", func(t *testing.T, anchor string) {
			off := firstEvent(t, anchor, Leave)
			patchFile(t, evtFile(anchor, 0), off+1, 0xff) // Leave MPI_Init → an undefined region
		}, []string{"ring/0.evt: byte ", `Leave "" inside "MPI_Init" (regions not nested)`}},
		{"cut event file", func(t *testing.T, anchor string) {
			b, _ := os.ReadFile(evtFile(anchor, 2))
			os.WriteFile(evtFile(anchor, 2), b[:len(b)/2], 0o644)
		}, []string{"ring/2.evt: byte ", "file cut short"}},
		{"missing event file", func(t *testing.T, anchor string) {
			os.Remove(evtFile(anchor, 3))
		}, []string{"ring/3.evt", "no such file"}},
		{"no clock", func(t *testing.T, anchor string) {
			def := strings.TrimSuffix(anchor, ".otf2") + ".def"
			patchFile(t, def, 18, 99) // the first record, ClockProperties, becomes an unknown one
		}, []string{"ring.def", "no ClockProperties definition"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			anchor := copyArchive(t)
			tc.damage(t, anchor)
			_, err := Open(anchor, Options{Unsupported: "calc"})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.Contains(tc.name, "missing") && (!errors.Is(err, ErrArchive) || !errors.Is(err, trace.ErrFormat)) {
				t.Errorf("error %v does not unwrap to ErrArchive and trace.ErrFormat", err)
			}
		})
	}
}

func evtFile(anchor string, loc int) string {
	return filepath.Join(strings.TrimSuffix(anchor, ".otf2"), fmt.Sprintf("%d.evt", loc))
}

func patchFile(t *testing.T, path string, off int64, v byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] = v
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNonblockingCollectiveCases: the ways a trace records (or does not
// record) a nonblocking collective, through printed text (the converter
// is the one of the native reader).
func TestNonblockingCollectiveCases(t *testing.T) {
	const world = `"MPI_COMM_WORLD" <0>`
	defs := []string{
		`GROUP 1  Name: "" <0>, Type: COMM_GROUP, Paradigm: "MPI" <4>, Flags: NONE, 2 Members: 0 ("Master thread" <0>), 1 ("Master thread" <1>)`,
		`COMM 0  Name: "MPI_COMM_WORLD" <5>, Group: "" <1>, Parent: UNDEFINED, Flags: NONE`,
	}
	iallreduce := func(req string) []string {
		return []string{`ENTER 1000 Region: "MPI_Iallreduce" <1>`, `NON_BLOCKING_COLLECTIVE_REQUEST 1010 Request: ` + req, `LEAVE 1020 Region: "MPI_Iallreduce" <1>`}
	}
	wait := func(inside ...string) []string {
		return append(append([]string{`ENTER 2000 Region: "MPI_Wait" <2>`}, inside...), `LEAVE 2100 Region: "MPI_Wait" <2>`)
	}
	complete := func(req string) string {
		return `NON_BLOCKING_COLLECTIVE_COMPLETE 2050 Operation: ALLREDUCE, Communicator: ` + world + `, Root: NONE, Sent: 160, Received: 160, Request: ` + req
	}
	join := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name        string
		events      []string // rank 0's; rank 1 does the same as the first case
		calls       []string
		unsupported string
		warning     string
	}{
		{"request and complete", join(iallreduce("7"), wait(complete("7"))),
			[]string{"MPI_Iallreduce t=0+20 comm=0 bytes=80 type=1/1 req=7", "MPI_Wait t=1000+100 done=[7:collective]"}, "", ""},
		{"calls between", join(iallreduce("7"), []string{`ENTER 1500 Region: "MPI_Barrier" <3>`, `MPI_COLLECTIVE_END 1600 Operation: BARRIER, Communicator: ` + world + `, Root: NONE, Sent: 0, Received: 0`, `LEAVE 1700 Region: "MPI_Barrier" <3>`}, wait(complete("7"))),
			[]string{"MPI_Iallreduce t=0+20 comm=0 bytes=80 type=1/1 req=7", "MPI_Barrier t=500+200 comm=0 type=1/1", "MPI_Wait t=1000+100 done=[7:collective]"}, "", ""},
		{"never completed", join(iallreduce("7"), wait()),
			[]string{"MPI_Wait t=1000+100"}, "MPI_Iallreduce whose request no wait completes", ""},
		{"complete of an unknown request", join(iallreduce("7"), wait(complete("7"), complete("9"))),
			[]string{"MPI_Iallreduce t=0+20 comm=0 bytes=80 type=1/1 req=7", "MPI_Wait t=1000+100 done=[7:collective 0:unknown]"}, "",
			"OTF2 NON_BLOCKING_COLLECTIVE_COMPLETE of a request no nonblocking collective started: a completion of an unknown request x1"},
		{"Score-P 2: collective events, no request", []string{`ENTER 1000 Region: "MPI_Iallreduce" <1>`, `MPI_COLLECTIVE_END 1010 Operation: ALLREDUCE, Communicator: ` + world + `, Root: NONE, Sent: 160, Received: 160`, `LEAVE 1020 Region: "MPI_Iallreduce" <1>`},
			[]string{"MPI_Allreduce t=0+20 comm=0 bytes=80 type=1/1"}, "", "MPI_Iallreduce with collective events but no request: modelled as MPI_Allreduce x1"},
		{"Score-P 2: nothing", []string{`ENTER 1000 Region: "MPI_Iallreduce" <1>`, `LEAVE 1020 Region: "MPI_Iallreduce" <1>`},
			nil, "MPI_Iallreduce without collective events", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := join(iallreduce("7"), wait(complete("7")))
			tr, err := ReadPrint(strings.NewReader(otf2Text(defs, [][]string{tc.events, other})), "x.otf2", Options{Unsupported: "calc"})
			if err != nil {
				t.Fatal(err)
			}
			if got := otf2Calls(t, tr, 0); !reflect.DeepEqual(got, tc.calls) {
				t.Errorf("calls\n%q\nwant\n%q", got, tc.calls)
			}
			u := tr.Unsupported()
			if tc.unsupported != "" && u[tc.unsupported] != 1 || tc.unsupported == "" && len(u) > 0 {
				t.Errorf("unsupported %v, want %q", u, tc.unsupported)
			}
			if tc.warning != "" && !slices.Contains(tr.Warnings, tc.warning) || tc.warning == "" && len(tr.Warnings) > 0 {
				t.Errorf("warnings %q, want %q", tr.Warnings, tc.warning)
			}
		})
	}
}

// TestOTF2ConvertErrorWhere: a conversion error names the call by the
// event it starts with: in an archive its number among the rank's events
// and its byte offset in the event file, in otf2-print's output its line.
func TestOTF2ConvertErrorWhere(t *testing.T) {
	tr, err := Open(filepath.Join("testdata", "otf2gen-3.0.2", "ring.otf2"), Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	msg, pos := tracetest.ConvertWhere(t, tr, 3)
	re := regexp.MustCompile(`^testdata/otf2gen-3.0.2/ring/[^:]+\.evt: record \d+ at byte \d+: rank 0: MPI_\w+ at t=\d+: trace: too many ops`)
	if !re.MatchString(msg) || pos.Record <= 0 || pos.Offset <= 0 {
		t.Errorf("archive: err = %s (position %+v)\nwant a match for %s", msg, pos, re)
	}
	text := gunzip(t, filepath.Join("testdata", "otf2gen-3.0.2.print.txt.gz"))
	pr, err := ReadPrint(bytes.NewReader(text), "ring.print.txt", Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	msg, pos = tracetest.ConvertWhere(t, pr, 3)
	lines := strings.Split(string(text), "\n")
	if !strings.HasPrefix(msg, fmt.Sprintf("ring.print.txt:%d: rank 0: MPI_", pos.Line)) || pos.Line <= 0 || pos.Line > len(lines) || !strings.HasPrefix(lines[pos.Line-1], "ENTER") {
		t.Errorf("otf2-print: err = %s (position %+v): want the line of an ENTER event", msg, pos)
	}
}
