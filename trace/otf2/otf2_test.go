package otf2

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/testenv"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// needOTF2Print skips the test when otf2-print ($GOPSIM_OTF2_PRINT, if
// set) is missing, unless $CI is set: then it fails (`make test` installs
// it with make otf2-deps).
func needOTF2Print(t *testing.T) {
	t.Helper()
	if PrintAvailable() {
		return
	}
	testenv.Missing(t, otf2PrintCmd()+" not found: this test runs OTF2's printer (Debian's otf2-tools; make otf2-deps installs it)")
}

// otf2Text builds otf2-print -A output: the definitions of a world of
// len(events) ranks (one location each, its event count computed), the
// extra definition lines given, then the events, merged by location in
// the order given.
func otf2Text(defs []string, events [][]string) string {
	var b strings.Builder
	b.WriteString("\n=== OTF2-PRINT ===\n\nContent of OTF2 anchor file:\nVersion                        3.0.0\n\n")
	b.WriteString("=== Global Definitions =========================================================\n\n")
	b.WriteString("Definition                            ID  Attributes\n")
	b.WriteString("--------------------------------------------------------------------------------\n")
	b.WriteString("CLOCK_PROPERTIES                          Ticks per Seconds: 1000000000, Global Offset: 1000, Length: 100000, Date: UNDEFINED\n")
	var members []string
	for r, ev := range events {
		fmt.Fprintf(&b, "LOCATION_GROUP %d  Name: \"MPI Rank %d\" <%d>, Type: PROCESS, Parent: \"node\" <1>, Creator: UNDEFINED\n", r, r, 20+r)
		fmt.Fprintf(&b, "LOCATION %d  Name: \"Master thread\" <10>, Type: CPU_THREAD, # Events: %d, Group: \"MPI Rank %d\" <%d>\n", r, len(ev), r, r)
		members = append(members, fmt.Sprintf("\"Master thread\" <%d>", r))
	}
	fmt.Fprintf(&b, "GROUP 0  Name: \"\" <0>, Type: COMM_LOCATIONS, Paradigm: \"MPI\" <4>, Flags: NONE, %d Members: %s\n", len(events), strings.Join(members, ", "))
	for _, d := range defs {
		b.WriteString(d + "\n")
	}
	b.WriteString("\n=== Events =====================================================================\n")
	b.WriteString("Event                                   Location            Timestamp  Attributes\n")
	b.WriteString("--------------------------------------------------------------------------------\n")
	for r, ev := range events {
		for _, e := range ev {
			kind, rest, _ := strings.Cut(e, " ")
			ts, attrs, _ := strings.Cut(rest, " ")
			fmt.Fprintf(&b, "%-30s %15d %20s  %s\n", kind, r, ts, attrs)
		}
	}
	return b.String()
}

var otf2Defs = []string{
	`GROUP                                  1  Name: "" <0>, Type: COMM_GROUP, Paradigm: "MPI" <4>, Flags: NONE, 2 Members: 0 ("Master thread" <0>), 1 ("Master thread" <1>)`,
	`GROUP                                  2  Name: "" <0>, Type: COMM_GROUP, Paradigm: "MPI" <4>, Flags: NONE, 1 Members: 1 ("Master thread" <1>)`,
	`GROUP                                  3  Name: "" <0>, Type: COMM_SELF, Paradigm: "MPI" <4>, Flags: NONE, 0 Members`,
	`COMM                                   0  Name: "MPI_COMM_WORLD" <5>, Group: "" <1>, Parent: UNDEFINED, Flags: NONE`,
	`COMM                                   1  Name: "MPI_COMM_SELF" <6>, Group: "" <3>, Parent: UNDEFINED, Flags: NONE`,
	`COMM                                   2  Name: "odd, name: \"x\"" <0>, Group: "" <2>, Parent: "MPI_COMM_WORLD" <0>, Flags: NONE`,
}

const otf2World = `"MPI_COMM_WORLD" <0>`

var otf2Events = [][]string{
	{
		`ENTER 1100 Region: "MPI_Init" <1>`,
		`LEAVE 1200 Region: "MPI_Init" <1>`,
		`ENTER 1300 Region: "MPI_Comm_rank" <2>`,
		`LEAVE 1310 Region: "MPI_Comm_rank" <2>`,
		`ENTER 1400 Region: "compute, kernel" <3>`,
		`LEAVE 1500 Region: "compute, kernel" <3>`,
		`ENTER 2000 Region: "MPI_Send" <4>`,
		`MPI_SEND 2050 Receiver: 1 ("Master thread" <1>), Communicator: ` + otf2World + `, Tag: 7, Length: 800`,
		`LEAVE 2100 Region: "MPI_Send" <4>`,
		`ENTER 2200 Region: "MPI_Irecv" <5>`,
		`MPI_IRECV_REQUEST 2210 Request: 5`,
		`LEAVE 2250 Region: "MPI_Irecv" <5>`,
		`ENTER 2300 Region: "MPI_Test" <6>`,
		`MPI_REQUEST_TEST 2305 Request: 5`,
		`LEAVE 2310 Region: "MPI_Test" <6>`,
		`ENTER 2400 Region: "MPI_Wait" <7>`,
		`MPI_IRECV 2590 Sender: 1 ("Master thread" <1>), Communicator: ` + otf2World + `, Tag: 8, Length: 100, Request: 5`,
		`LEAVE 2600 Region: "MPI_Wait" <7>`,
		`ENTER 3000 Region: "MPI_Allreduce" <8>`,
		`MPI_COLLECTIVE_BEGIN 3000 `,
		`MPI_COLLECTIVE_END 3490 Operation: ALLREDUCE, Communicator: ` + otf2World + `, Root: NONE, Sent: 64, Received: 64`,
		`LEAVE 3500 Region: "MPI_Allreduce" <8>`,
		`ENTER 3600 Region: "MPI_Put" <9>`,
		`LEAVE 3700 Region: "MPI_Put" <9>`,
		`ENTER 4000 Region: "MPI_Finalize" <10>`,
		`LEAVE 4100 Region: "MPI_Finalize" <10>`,
	},
	{
		`ENTER 1100 Region: "MPI_Init" <1>`,
		`LEAVE 1150 Region: "MPI_Init" <1>`,
		`ENTER 1900 Region: "MPI_Recv" <11>`,
		`MPI_RECV 2140 Sender: 0 ("Master thread" <0>), Communicator: ` + otf2World + `, Tag: 7, Length: 800`,
		`LEAVE 2150 Region: "MPI_Recv" <11>`,
		`ENTER 2160 Region: "MPI_Isend" <12>`,
		`MPI_ISEND 2165 Receiver: 0 ("Master thread" <0>), Communicator: ` + otf2World + `, Tag: 8, Length: 100, Request: 3`,
		`LEAVE 2170 Region: "MPI_Isend" <12>`,
		`ENTER 2200 Region: "MPI_Bcast" <13>`,
		`MPI_COLLECTIVE_BEGIN 2200 `,
		`MPI_COLLECTIVE_END 2290 Operation: BCAST, Communicator: "odd, name: \"x\"" <2>, Root: 0 ("Master thread" <1>), Sent: 16, Received: 16`,
		`LEAVE 2300 Region: "MPI_Bcast" <13>`,
		`ENTER 2310 Region: "MPI_Barrier" <14>`,
		`MPI_COLLECTIVE_BEGIN 2310 `,
		`MPI_COLLECTIVE_END 2320 Operation: BARRIER, Communicator: "MPI_COMM_SELF" <1>, Root: NONE, Sent: 0, Received: 0`,
		`LEAVE 2330 Region: "MPI_Barrier" <14>`,
		`ENTER 3000 Region: "MPI_Allreduce" <8>`,
		`MPI_COLLECTIVE_BEGIN 3000 `,
		`MPI_COLLECTIVE_END 3390 Operation: ALLREDUCE, Communicator: ` + otf2World + `, Root: NONE, Sent: 64, Received: 64`,
		`LEAVE 3400 Region: "MPI_Allreduce" <8>`,
		`ENTER 3450 Region: "MPI_Iallreduce" <15>`,
		`LEAVE 3455 Region: "MPI_Iallreduce" <15>`,
		`ENTER 3460 Region: "MPI_Waitall" <16>`,
		`MPI_ISEND_COMPLETE 3465 Request: 3`,
		`LEAVE 3470 Region: "MPI_Waitall" <16>`,
		`ENTER 4000 Region: "MPI_Finalize" <10>`,
		`LEAVE 4100 Region: "MPI_Finalize" <10>`,
	},
}

func otf2Calls(t *testing.T, tr *Trace, r int) []string {
	t.Helper()
	rs, err := tr.OpenRank(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var c trace.Call
	for {
		err := rs.Next(&c)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.String())
	}
}

// TestReadOTF2Print: every event gopsim uses, parsed from printer text
// (no otf2-print needed), converted and simulated. By default an
// unsupported call is an error, which must not say its time was counted
// as computation (it listed "MPI_Put (not modelled: its time counted as
// computation) x1").
func TestReadOTF2Print(t *testing.T) {
	text := otf2Text(otf2Defs, otf2Events)
	_, err := ReadPrint(strings.NewReader(text), "x.otf2", Options{})
	if !errors.Is(err, trace.ErrUnsupported) || !strings.Contains(err.Error(), "MPI_Put x1") || strings.Contains(err.Error(), "time counted") {
		t.Fatalf("default policy: %v", err)
	}
	// Prefixed once: not "trace: otf2 x.otf2: trace: unsupported MPI calls".
	if want := "trace: otf2 x.otf2: unsupported MPI calls (use --unsupported=calc"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("default policy: %q, want it to start %q", err, want)
	}
	tr, err := ReadPrint(strings.NewReader(text), "x.otf2", Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) > 0 {
		t.Fatalf("warnings: %q", tr.Warnings)
	}
	if tr.NumRanks() != 2 {
		t.Fatalf("%d ranks", tr.NumRanks())
	}
	want0 := []string{
		"MPI_Init t=100+100",
		"MPI_Send t=1000+100 comm=0 peer=1 tag=7 bytes=800 type=1/1",
		"MPI_Irecv t=1200+50 comm=0 peer=any tag=any type=1/1 req=5",
		"MPI_Test t=1300+10",
		"MPI_Wait t=1400+200 done=[5:recv:peer=1:tag=8:bytes=100]",
		"MPI_Allreduce t=2000+500 comm=0 bytes=32 type=1/1",
		"MPI_Finalize t=3000+100",
	}
	want1 := []string{
		"MPI_Init t=100+50",
		"MPI_Recv t=900+250 comm=0 peer=0 tag=7 bytes=800 type=1/1",
		"MPI_Isend t=1160+10 comm=0 peer=0 tag=8 bytes=100 type=1/1 req=3",
		"MPI_Bcast t=1200+100 comm=2 bytes=16 type=1/1 root=0",
		"MPI_Barrier t=1310+20 comm=1 type=1/1",
		"MPI_Allreduce t=2000+400 comm=0 bytes=32 type=1/1",
		"MPI_Waitall t=2460+10 done=[3:send:peer=0:tag=8:bytes=100]",
		"MPI_Finalize t=3000+100",
	}
	if got := otf2Calls(t, tr, 0); !reflect.DeepEqual(got, want0) {
		t.Fatalf("rank 0:\n got  %q\n want %q", got, want0)
	}
	if got := otf2Calls(t, tr, 1); !reflect.DeepEqual(got, want1) {
		t.Fatalf("rank 1:\n got  %q\n want %q", got, want1)
	}
	wantU := map[string]int64{
		"MPI_Put": 1,
		"MPI_Iallreduce without collective events": 1,
	}
	if got := tr.Unsupported(); !reflect.DeepEqual(got, wantU) {
		t.Fatalf("unsupported: %v, want %v", got, wantU)
	}
	rs, _ := tr.OpenRank(1)
	if c := rs.Comm(1); c == nil || !reflect.DeepEqual(c.Members, []int32{1}) {
		t.Fatalf("MPI_COMM_SELF of rank 1: %+v", c)
	}
	if c := rs.Comm(2); c == nil || !reflect.DeepEqual(c.Members, []int32{1}) {
		t.Fatalf("communicator 2: %+v", c)
	}
	if rs.Start() != 150 {
		t.Fatalf("rank 1 starts at %d, want 150 (after MPI_Init)", rs.Start())
	}
	s := goal.NewSchedule(2)
	st, err := trace.Convert(tr, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Unsupported) > 0 {
		t.Fatalf("converter: unsupported %v", st.Unsupported)
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}

// TestOTF2PrintErrors: malformed printer output is an *FormatError with
// the line at fault.
func TestOTF2PrintErrors(t *testing.T) {
	good := otf2Text(otf2Defs, otf2Events)
	lines := strings.Split(good, "\n")
	lineOf := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("no line %q", prefix)
		return 0
	}
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the text", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	evStart := lineOf("=== Events") + 3
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 0, "empty output"},
		{"not printer output", "hello\n", 1, "not otf2-print output"},
		{"no clock", strings.Replace(good, "CLOCK_PROPERTIES", "CLOCK_PROPERTIEZ", 1), lineOf("=== Events"), "no CLOCK_PROPERTIES"},
		{"no ranks", strings.Replace(good, "COMM_LOCATIONS", "LOCATIONS", 1), lineOf("=== Events"), "no COMM_LOCATIONS group"},
		{"bad event", strings.Replace(good, "1100  Region", "11x0  Region", 1), evStart, `event ENTER: location "0", timestamp "11x0"`},
		{"unknown comm", replace("Communicator: "+otf2World+", Tag: 7", `Communicator: "c" <9>, Tag: 7`), evStart + 7, "communicator 9 is not defined"},
		{"peer outside", replace(`Sender: 0 ("Master thread" <0>), Communicator: "MPI_COMM_WORLD" <0>, Tag: 7`, `Sender: 2 ("Master thread" <0>), Communicator: "MPI_COMM_WORLD" <0>, Tag: 7`), 0, "rank 2 outside communicator of 2 ranks"},
		{"not nested", replace(`2100  Region: "MPI_Send" <4>`, `2100  Region: "MPI_Recv" <9>`), evStart + 8, `Leave "MPI_Recv" inside "MPI_Send"`},
		{"printer error", good + "==ERROR== INVALID_DATA Read 7 events.\n", len(lines), "otf2-print reports: ==ERROR=="},
		{"member", replace(`2 Members: 0 ("Master`, `2 Members: x ("Master`), lineOf("GROUP                                  1"), `GROUP 1: member "x (\"Master thread\" <0>)"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadPrint(strings.NewReader(tc.text), "x.otf2", Options{})
			var oe *FormatError
			if !errors.As(err, &oe) || !errors.Is(err, ErrOTF2) || !errors.Is(err, trace.ErrFormat) {
				t.Fatalf("%v: not an *FormatError wrapping ErrOTF2 and ErrFormat", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v\nwant it to contain %q", err, tc.want)
			}
			if tc.line != 0 && oe.Line != tc.line {
				t.Fatalf("%v: line %d, want %d", err, oe.Line, tc.line)
			}
		})
	}
	// A rank cut short: an MPI call entered and never left, and fewer
	// events than the definitions announce.
	cut := strings.Join(lines[:lineOf(`ENTER`)+14], "\n") + "\n"
	_, err := ReadPrint(strings.NewReader(cut), "x.otf2", Options{})
	if err == nil || !strings.Contains(err.Error(), "entered and never left") && !strings.Contains(err.Error(), "events its definition announces") {
		t.Fatalf("cut: %v", err)
	}
}

func readGoldenPrint(t testing.TB) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sstmacro-otf2-10.print.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// otf2SampleFuncs is what the sample's ranks call, all ranks together.
var otf2SampleFuncs = map[string]int64{
	"MPI_Allgather": 360, "MPI_Allreduce": 360, "MPI_Alltoall": 360, "MPI_Bcast": 30, "MPI_Comm_free": 20,
	"MPI_Comm_split": 20, "MPI_Finalize": 10, "MPI_Gather": 30, "MPI_Init": 10, "MPI_Irecv": 1440,
	"MPI_Isend": 1440, "MPI_Reduce": 30, "MPI_Scatter": 30, "MPI_Wait": 1080, "MPI_Waitall": 480,
}

var otf2SampleUnsupported = map[string]int64{
	"MPI_Iallgather without collective events": 360,
	"MPI_Iallreduce without collective events": 360,
	"MPI_Ialltoall without collective events":  360,
}

// checkOTF2Sample converts and simulates the sample read one way or the
// other, and returns its calls for comparison.
func checkOTF2Sample(t *testing.T, src trace.Source) [][]string {
	t.Helper()
	if src.NumRanks() != 10 {
		t.Fatalf("%d ranks", src.NumRanks())
	}
	s := goal.NewSchedule(src.NumRanks())
	st, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.PerFunc, otf2SampleFuncs) {
		t.Errorf("calls per function: %v\nwant %v", st.PerFunc, otf2SampleFuncs)
	}
	if len(st.Unsupported) > 0 {
		t.Errorf("converter: unsupported %v", st.Unsupported)
	}
	if u := src.(trace.UnsupportedReporter).Unsupported(); !reflect.DeepEqual(u, otf2SampleUnsupported) || len(src.(*Trace).Warnings) > 0 {
		t.Errorf("unsupported %v\nwant %v", u, otf2SampleUnsupported)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime <= 0 {
		t.Fatalf("simulated time %d", res.MaxTime)
	}
	t.Logf("| sstmacro-otf2-10 | %d | %d | %d | %d |", src.NumRanks(), len(s.Ops), st.ComputeNs, res.MaxTime)
	var calls [][]string
	for r := 0; r < src.NumRanks(); r++ {
		calls = append(calls, otf2Calls(t, src.(*Trace), r))
	}
	return calls
}

// TestOTF2Sample reads the sample through otf2-print, and its stored
// printer output without: both convert, simulate and give the same calls.
func TestOTF2Sample(t *testing.T) {
	tr, err := ReadPrint(bytes.NewReader(readGoldenPrint(t)), "sstmacro-otf2-10/traces.otf2", Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	golden := checkOTF2Sample(t, tr)
	needOTF2Print(t)
	dir := filepath.Join("testdata", "sstmacro-otf2-10")
	if _, err := Open(dir, Options{}); !errors.Is(err, trace.ErrUnsupported) ||
		!strings.Contains(err.Error(), "MPI_Iallreduce without collective events x360") {
		t.Fatalf("default policy: %v", err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "traces.otf2")} {
		if !Detect(p) {
			t.Fatalf("Detect(%s) = false", p)
		}
		src, err := Open(p, Options{Unsupported: "calc"})
		if err != nil {
			t.Fatal(err)
		}
		if live := checkOTF2Sample(t, src); !reflect.DeepEqual(live, golden) {
			t.Fatalf("otf2-print's output today and testdata's differ in their calls")
		}
	}
	for _, p := range []string{"../chakra/testdata", filepath.Join(dir, "traces.def"), filepath.Join(dir, "nothing.otf2")} {
		if Detect(p) {
			t.Fatalf("Detect(%s) = true", p)
		}
	}
}

// TestOTF2NoPrinter: without otf2-print (none on PATH), Open reads every
// sample natively.
func TestOTF2NoPrinter(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOPSIM_OTF2_PRINT", filepath.Join(t.TempDir(), "no-otf2-print"))
	if PrintAvailable() {
		t.Fatal("otf2-print still found")
	}
	for _, p := range []string{filepath.Join("testdata", "sstmacro-otf2-10"), sampleGen} {
		tr, err := Open(p, Options{Unsupported: "calc"})
		if err != nil {
			t.Fatal(err)
		}
		if s := schedule(t, tr); len(s) < 1000 {
			t.Fatalf("%s: schedule of %d bytes", p, len(s))
		}
	}
}

// TestOTF2CorruptText cuts the sample's printer output at many lines and
// damages bytes in it: an *FormatError or a trace, never a panic.
func TestOTF2CorruptText(t *testing.T) {
	data := readGoldenPrint(t)
	lines := bytes.SplitAfter(data, []byte("\n"))
	for n := 0; n < len(lines); n += len(lines)/40 + 1 {
		text := bytes.Join(lines[:n], nil)
		tr, err := ReadPrint(bytes.NewReader(text), "x.otf2", Options{Unsupported: "calc"})
		checkOTF2Err(t, fmt.Sprintf("cut after %d lines", n), tr, err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 60; i++ {
		bad := bytes.Clone(data)
		for k := 0; k < 3; k++ {
			bad[rng.Intn(len(bad))] = " ,:\"<>()0123456789AZ\n"[rng.Intn(21)]
		}
		tr, err := ReadPrint(bytes.NewReader(bad), "x.otf2", Options{Unsupported: "calc"})
		checkOTF2Err(t, fmt.Sprintf("damage %d", i), tr, err)
	}
}

func checkOTF2Err(t *testing.T, what string, tr *Trace, err error) {
	t.Helper()
	if err != nil {
		var oe *FormatError
		if !errors.As(err, &oe) || !errors.Is(err, trace.ErrFormat) {
			t.Fatalf("%s: %v is not an *FormatError", what, err)
		}
		return
	}
	// Whatever reads must convert without panicking (it may fail).
	s := goal.NewSchedule(tr.NumRanks())
	trace.Convert(tr, trace.ConvertOptions{Unsupported: "calc"}, s.AppendRank)
}

// TestOTF2CorruptArchive damages the binary archive: the error names
// the damaged file and the byte offset, or the trace reads anyway.
func TestOTF2CorruptArchive(t *testing.T) {
	src := filepath.Join("testdata", "sstmacro-otf2-10")
	for _, tc := range []struct {
		name string
		file string
		cut  int // keep this many bytes, or
		flip int // xor this byte
	}{
		{"event file cut", "traces/3.evt", 10000, -1},
		{"event file cut short", "traces/3.evt", 100, -1},
		{"event file emptied", "traces/0.evt", 0, -1},
		{"definitions cut", "traces.def", 5000, -1},
		{"anchor cut", "traces.otf2", 40, -1},
		{"definition byte", "traces.def", -1, 5000},
		{"event byte", "traces/5.evt", -1, 20000},
		{"anchor byte", "traces.otf2", -1, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, src, dir)
			name := filepath.Join(dir, tc.file)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if tc.cut >= 0 {
				data = data[:tc.cut]
			} else {
				data[tc.flip] ^= 0xa5
			}
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := Open(dir, Options{Unsupported: "calc"})
			if err == nil {
				t.Logf("%s: read anyway (%d ranks)", tc.name, tr.NumRanks())
				checkOTF2Err(t, tc.name, tr, nil)
				return
			}
			if !errors.Is(err, ErrOTF2) || !errors.Is(err, trace.ErrFormat) {
				t.Fatalf("%v does not wrap ErrOTF2 and trace.ErrFormat", err)
			}
			if !strings.Contains(err.Error(), filepath.FromSlash(tc.file)+": byte ") {
				t.Fatalf("%v does not name %s and a byte offset", err, tc.file)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzOTF2Print: parsing any text as printer output never panics, fails
// only with *FormatError values, and what it reads converts.
func FuzzOTF2Print(f *testing.F) {
	f.Add(otf2Text(otf2Defs, otf2Events))
	f.Add("")
	f.Add("=== OTF2-PRINT ===\n=== Events\n")
	golden := readGoldenPrint(f)
	f.Add(string(golden[:min(len(golden), 20000)]))
	f.Add("=== OTF2-PRINT ===\n=== Global Definitions\n0 A:") // a key at the end of the line
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ReadPrint(strings.NewReader(text), "fuzz.otf2", Options{Unsupported: "calc"})
		if err != nil {
			var oe *FormatError
			if !errors.As(err, &oe) || !errors.Is(err, trace.ErrFormat) {
				t.Fatalf("%v is not an *FormatError", err)
			}
			return
		}
		s := goal.NewSchedule(tr.NumRanks())
		trace.Convert(tr, trace.ConvertOptions{Unsupported: "calc"}, s.AppendRank)
	})
}
