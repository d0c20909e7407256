package otf2

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gopsim/gopsim/internal/testenv"
)

// Samples: the Score-P 2.0.2 archive of the trace package's tests and
// the OTF2 3.0.2 archive written by testdata/otf2gen.c.
var (
	sampleScoreP = filepath.Join("testdata", "sstmacro-otf2-10", "traces.otf2")
	sampleGen    = filepath.Join("testdata", "otf2gen-3.0.2", "ring.otf2")
)

// printed renders an event the way `otf2-print` prints its line (for the
// kinds whose every attribute the decoder reads), or only its kind.
func printed(d *Definitions, loc uint64, ev *Event) string {
	head := fmt.Sprintf("%s %d %d", ev.Kind, loc, ev.Time)
	comm := func(c uint32) string {
		for _, cm := range d.Comms {
			if cm.ID == c {
				return fmt.Sprintf("%q <%d>", d.Text(cm.Name), c)
			}
		}
		return fmt.Sprintf("UNKNOWN <%d>", c)
	}
	root := func(r uint32) string {
		if r == Undefined {
			return "NONE"
		}
		return fmt.Sprint(r)
	}
	switch ev.Kind {
	case Enter, Leave:
		return fmt.Sprintf("%s Region: %q <%d>", head, d.RegionName(ev.Region), ev.Region)
	case MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled, NonBlockingCollectiveRequest:
		return fmt.Sprintf("%s Request: %d", head, ev.Request)
	case MpiSend, MpiIsend, MpiRecv, MpiIrecv:
		s := fmt.Sprintf("%s Communicator: %s, Tag: %d, Length: %d", head, comm(ev.Comm), ev.Tag, ev.Bytes)
		if ev.Kind == MpiIsend || ev.Kind == MpiIrecv {
			s += fmt.Sprintf(", Request: %d", ev.Request)
		}
		return s
	case MpiCollectiveEnd, NonBlockingCollectiveComplete:
		s := fmt.Sprintf("%s Operation: %s, Communicator: %s, Root: %s, Sent: %d, Received: %d", head, ev.Op, comm(ev.Comm), root(ev.Root), ev.Sent, ev.Recv)
		if ev.Kind == NonBlockingCollectiveComplete {
			s += fmt.Sprintf(", Request: %d", ev.Request)
		}
		return s
	case Other:
		return fmt.Sprintf("record%d %d %d", ev.Record, loc, ev.Time)
	}
	return head
}

// fromPrint renders a line of otf2-print's events like printed.
func fromPrint(line string) (loc uint64, s string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, "", false
	}
	if _, err := fmt.Sscan(f[1], &loc); err != nil {
		return 0, "", false
	}
	var ts uint64
	if _, err := fmt.Sscan(f[2], &ts); err != nil {
		return 0, "", false
	}
	rest := line[strings.Index(line, f[2])+len(f[2]):]
	rest = strings.TrimSpace(rest)
	head := fmt.Sprintf("%s %d %d", f[0], loc, ts)
	switch f[0] {
	case "ENTER", "LEAVE", "MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "MPI_REQUEST_TEST", "MPI_REQUEST_CANCELLED",
		"NON_BLOCKING_COLLECTIVE_REQUEST", "MPI_COLLECTIVE_END", "NON_BLOCKING_COLLECTIVE_COMPLETE":
		// Drop the root's location name: "Root: 0 ("Master thread" <0>)".
		return loc, head + " " + rootName.ReplaceAllString(rest, "$1"), true
	case "MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV":
		// Drop the peer (printed with the location's name).
		i := strings.Index(rest, "Communicator:")
		return loc, head + " " + rest[i:], true
	case "BUFFER_FLUSH", "MEASUREMENT_ON_OFF", "MPI_COLLECTIVE_BEGIN", "COMM_CREATE", "COMM_DESTROY":
		return loc, head, true
	}
	return loc, fmt.Sprintf("other %d %d", loc, ts), true
}

var rootName = regexp.MustCompile(`(Root: [0-9]+) \([^)]*\)`)

// printLines runs otf2-print on an anchor (or reads its saved output) and
// returns its event lines by location.
func printLines(t *testing.T, anchor, saved string) map[uint64][]string {
	t.Helper()
	var r io.Reader
	if saved != "" {
		f, err := os.Open(saved)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = z
	} else {
		needPrint(t)
		r = bytes.NewReader(livePrint(t, anchor))
	}
	byLoc := map[uint64][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	events := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "=== Events") {
			events = true
			continue
		}
		if !events || strings.HasPrefix(line, "Event ") || strings.HasPrefix(line, "---") || strings.HasPrefix(line, " ") || line == "" {
			continue
		}
		loc, s, ok := fromPrint(line)
		if ok {
			byLoc[loc] = append(byLoc[loc], s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return byLoc
}

// printed caches otf2-print's output by anchor file: running it takes
// seconds.
var (
	printedMu sync.Mutex
	printedBy = map[string][]byte{}
)

// livePrint returns `otf2-print -A anchor`.
func livePrint(t *testing.T, anchor string) []byte {
	t.Helper()
	printedMu.Lock()
	defer printedMu.Unlock()
	if out, ok := printedBy[anchor]; ok {
		return out
	}
	out, err := exec.Command("otf2-print", "-A", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print -A %s: %v (Debian's otf2-tools)", anchor, err)
	}
	printedBy[anchor] = out
	return out
}

// needPrint skips a test that runs otf2-print when it is missing, unless
// $CI is set: then it fails (`make test` installs it with make otf2-deps).
func needPrint(t *testing.T) {
	t.Helper()
	testenv.NeedTools(t, "this test runs OTF2's printer (Debian's otf2-tools; make otf2-deps installs it)", "otf2-print")
}

// decodeAll reads every location's events, rendered as printed.
func decodeAll(t *testing.T, anchor string) (*Archive, map[uint64][]string) {
	t.Helper()
	a, err := OpenArchive(anchor)
	if err != nil {
		t.Fatal(err)
	}
	byLoc := map[uint64][]string{}
	for _, l := range a.Defs.Locations {
		r, err := a.Events(l.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ev Event
		for {
			err := r.Next(&ev)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			s := printed(a.Defs, l.ID, &ev)
			if ev.Kind == Other {
				s = fmt.Sprintf("other %d %d", l.ID, ev.Time)
			}
			byLoc[l.ID] = append(byLoc[l.ID], s)
		}
		if r.Count() != l.Events {
			t.Errorf("location %d: %d events decoded, %d defined", l.ID, r.Count(), l.Events)
		}
		r.Close()
	}
	return a, byLoc
}

// TestArchiveMatchesPrint decodes every sample and checks each event
// against otf2-print's line for it: kind, location, corrected time and
// every attribute the decoder reads.
func TestArchiveMatchesPrint(t *testing.T) {
	tests := []struct {
		name, anchor, saved string
		version             Version
		locations           int
	}{
		{"scorep-2.0.2", sampleScoreP, filepath.Join("testdata", "sstmacro-otf2-10.print.txt.gz"), Version{2, 0, 0}, 10},
		{"otf2gen-3.0.2", sampleGen, filepath.Join("testdata", "otf2gen-3.0.2.print.txt.gz"), Version{3, 0, 2}, 4},
		{"scorep-2.0.2 live", sampleScoreP, "", Version{2, 0, 0}, 10},
		{"otf2gen-3.0.2 live", sampleGen, "", Version{3, 0, 2}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, got := decodeAll(t, tc.anchor)
			if a.Anchor.Version != tc.version || len(a.Defs.Locations) != tc.locations {
				t.Fatalf("version %s, %d locations; want %s, %d", a.Anchor.Version, len(a.Defs.Locations), tc.version, tc.locations)
			}
			if a.Defs.Count != a.Anchor.NumGlobalDefs {
				t.Errorf("%d global definitions decoded, the anchor announces %d", a.Defs.Count, a.Anchor.NumGlobalDefs)
			}
			want := printLines(t, tc.anchor, tc.saved)
			if len(got) != len(want) {
				t.Fatalf("%d locations decoded, %d printed", len(got), len(want))
			}
			for loc, w := range want {
				g := got[loc]
				if len(g) != len(w) {
					t.Errorf("location %d: %d events decoded, %d printed", loc, len(g), len(w))
				}
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("location %d event %d:\n decoded %s\n printed %s", loc, i, g[i], w[i])
					}
				}
			}
		})
	}
}

// TestArchiveDefinitions checks the global definitions of the Score-P
// sample against what otf2-print prints for them.
func TestArchiveDefinitions(t *testing.T) {
	a, err := OpenArchive(sampleScoreP)
	if err != nil {
		t.Fatal(err)
	}
	d := a.Defs
	if d.Clock != (Clock{TicksPerSecond: 1995386627, GlobalOffset: 3971700851734240, TraceLength: 2491054360}) {
		t.Errorf("clock %+v", d.Clock)
	}
	if a.Anchor.Creator != "Score-P 2.0.2" || a.Anchor.NumLocations != 10 || len(a.Anchor.Properties) != 5 || a.Anchor.TraceID != 0x785dd547a296ba66 {
		t.Errorf("anchor %+v", a.Anchor)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"string 1", d.Text(1), "machine"},
		{"region 173", d.RegionName(173), "MPI_Init"},
		{"region 175", d.RegionName(175), "MPI_Initialized"},
		{"comms", len(d.Comms), 8},
		{"comm 0 name", d.Text(d.Comms[0].Name), "MPI_COMM_WORLD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	var locs *Group
	for _, g := range d.Groups {
		if g.Type == GroupCommLocations {
			locs = &g
		}
	}
	if locs == nil || len(locs.Members) != 10 || locs.Members[3] != 3 {
		t.Errorf("COMM_LOCATIONS group %+v", locs)
	}
}

// TestArchiveErrors checks that bad archives fail with the file, the
// byte offset and what was expected.
func TestArchiveErrors(t *testing.T) {
	anchor, err := os.ReadFile(sampleScoreP)
	if err != nil {
		t.Fatal(err)
	}
	evt, err := os.ReadFile(filepath.Join(filepath.Dir(sampleScoreP), "traces", "1.evt"))
	if err != nil {
		t.Fatal(err)
	}
	patch := func(b []byte, off int, v ...byte) []byte {
		b = append([]byte(nil), b...)
		copy(b[off:], v)
		return b
	}
	anchorTests := []struct {
		name string
		data []byte
		want []string
		is   error
	}{
		{"version 1", patch(anchor, 9, 1), []string{"byte 9", "OTF2 version 1.0.0", "2.x to 3.x"}, ErrArchiveVersion},
		{"version 4", patch(anchor, 9, 4, 1), []string{"byte 9", "OTF2 version 4.1.0"}, ErrArchiveVersion},
		{"zlib", patch(anchor, 29, 2), []string{"byte 29", "compression 2"}, ErrArchiveVersion},
		{"sion", patch(anchor, 28, 2), []string{"byte 28", "substrate 2"}, ErrArchiveVersion},
		{"not otf2", []byte("hello"), []string{"byte 0", "not an OTF2 anchor"}, ErrArchive},
		{"big endian", patch(anchor, 1, 0x23), []string{"byte 1", "byte order 0x23"}, ErrArchiveVersion},
		{"cut", anchor[:40], []string{"file ends inside"}, ErrArchive},
	}
	for _, tc := range anchorTests {
		t.Run("anchor "+tc.name, func(t *testing.T) {
			_, err := DecodeAnchor("x.otf2", tc.data)
			checkErr(t, err, "x.otf2", tc.is, tc.want...)
		})
	}
	evtTests := []struct {
		name string
		data []byte
		want []string
	}{
		{"cut", evt[:len(evt)-100], []string{"byte 28964", "file cut short"}},
		{"cut at record", evt[:len(evt)-3], []string{fmt.Sprintf("byte %d", len(evt)-3), "end-of-data marker"}},
		{"empty", nil, []string{"byte 0", "end-of-data marker"}},
		{"no header", patch(evt, 0, 7), []string{"byte 0", "chunk header 0x03"}},
		{"bad numbers", patch(evt, 2, 9), []string{"byte 2", "expected the next event to be number 1"}},
		{"event before time", patch(evt, 18, 12, 0, 12, 0), []string{"byte 18", "before any timestamp"}},
		{"long compressed", patch(evt, 28, 9), []string{"byte 28", "record 12 (at byte 27): compressed integer of 9 bytes (at most 4)"}},
		{"long record", evtBuf(1, []byte{14, 0xf0, 1, 2}), []string{"byte 27", "record 14 of 240 bytes runs past"}},
		{"short record", evtBuf(1, []byte{15, 3, 1, 2, 0}), []string{"byte 32", "record 15 (at byte 27): attribute past the end"}},
		{"count", evtBuf(2, []byte{12, 0}), []string{"byte 29", "1 events read, the chunk header announces 2"}},
		{"header in chunk", patch(evt, 27, 3), []string{"byte 27", "chunk header 0x03 in the middle"}},
	}
	for _, tc := range evtTests {
		t.Run("events "+tc.name, func(t *testing.T) {
			r := NewEventReader("1.evt", strings.NewReader(string(tc.data)), 1<<20, nil)
			var ev Event
			var err error
			for err == nil {
				err = r.Next(&ev)
			}
			checkErr(t, err, "1.evt", ErrArchive, tc.want...)
		})
	}
}

// evtBuf is an event file of one chunk: the header announcing events 1
// to last, a timestamp, the records, the end of data.
func evtBuf(last uint64, recs ...[]byte) []byte {
	b := []byte{markChunk, orderLittle}
	b = binary.LittleEndian.AppendUint64(b, 1)
	b = binary.LittleEndian.AppendUint64(b, last)
	b = append(b, markTime)
	b = binary.LittleEndian.AppendUint64(b, 1000)
	for _, r := range recs {
		b = append(b, r...)
	}
	return append(b, markEndData, 0x01)
}

func checkErr(t *testing.T, err error, file string, is error, want ...string) {
	t.Helper()
	var fe *ArchiveError
	if !errors.As(err, &fe) || !errors.Is(err, is) {
		t.Fatalf("error %v: not a *ArchiveError unwrapping to %v", err, is)
	}
	if fe.File != file {
		t.Errorf("error %v names %q, not %q", err, fe.File, file)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// chunked writes events as an event file of chunks of size bytes: each
// event is a timestamp and an Enter or Leave of region 7, alternating;
// a chunk ends with 0x00 and zero padding when the next event does not
// fit, the file with 0x02 0x01.
func chunked(events, size int) []byte {
	var out []byte
	var chunk []byte
	first := 1
	flush := func(last int, end byte) {
		h := []byte{markChunk, orderLittle}
		h = binary.LittleEndian.AppendUint64(h, uint64(first))
		h = binary.LittleEndian.AppendUint64(h, uint64(last))
		c := append(append(h, chunk...), end)
		if end == markEndChunk {
			c = append(c, make([]byte, size-len(c))...)
		} else {
			c = append(c, 0x01)
		}
		out = append(out, c...)
		chunk, first = chunk[:0], last+1
	}
	for i := 1; i <= events; i++ {
		ev := []byte{markTime}
		ev = binary.LittleEndian.AppendUint64(ev, uint64(1000*i))
		ev = append(ev, byte(12+(i+1)%2), 1, 7)
		if chunkHeader+len(chunk)+len(ev)+1 > size {
			flush(i-1, markEndChunk)
		}
		chunk = append(chunk, ev...)
	}
	flush(events, markEndData)
	return out
}

// TestArchiveChunks decodes files of many chunks, of chunk sizes that
// cut between events at every place.
func TestArchiveChunks(t *testing.T) {
	for _, size := range []int{64, 65, 71, 100, 4096} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			const n = 500
			data := chunked(n, size)
			if size < 4096 && len(data) < 3*size {
				t.Fatalf("%d bytes: not several chunks", len(data))
			}
			r := NewEventReader("c.evt", strings.NewReader(string(data)), uint64(size), nil)
			var ev Event
			for i := 1; ; i++ {
				err := r.Next(&ev)
				if err == io.EOF {
					if i != n+1 {
						t.Fatalf("%d events, want %d", i-1, n)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				want := Enter
				if i%2 == 0 {
					want = Leave
				}
				if ev.Kind != want || ev.Time != uint64(1000*i) || ev.Region != 7 {
					t.Fatalf("event %d: %+v", i, ev)
				}
			}
			// The same file read with another chunk size fails at the
			// second chunk, saying so.
			r = NewEventReader("c.evt", strings.NewReader(string(data)), uint64(size+8), nil)
			var err error
			for err == nil {
				err = r.Next(&ev)
			}
			if size < 4096 {
				checkErr(t, err, "c.evt", ErrArchive, "chunk")
			}
		})
	}
}
