package chakra

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/chakrapb"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
	"google.golang.org/protobuf/proto"
)

// chakraFile encodes a rank file: the metadata, then the nodes, each
// preceded by its varint length.
func chakraFile(t testing.TB, version string, nodes ...*chakrapb.Node) []byte {
	t.Helper()
	var out []byte
	msgs := []proto.Message{&chakrapb.GlobalMetadata{Version: version}}
	for _, n := range nodes {
		msgs = append(msgs, n)
	}
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out
}

func intAttr(name string, v int64) *chakrapb.AttributeProto {
	return &chakrapb.AttributeProto{Name: name, Value: &chakrapb.AttributeProto_Int64Val{Int64Val: v}}
}

func int32Attr(name string, v int32) *chakrapb.AttributeProto {
	return &chakrapb.AttributeProto{Name: name, Value: &chakrapb.AttributeProto_Int32Val{Int32Val: v}}
}

func comp(id uint64, us uint64, deps ...uint64) *chakrapb.Node {
	return &chakrapb.Node{Id: id, Name: fmt.Sprint("comp", id), Type: chakrapb.NodeType_COMP_NODE, DurationMicros: us, DataDeps: deps}
}

func sendNode(id uint64, dst int32, size int64, deps ...uint64) *chakrapb.Node {
	return &chakrapb.Node{Id: id, Type: chakrapb.NodeType_COMM_SEND_NODE, DataDeps: deps,
		Attr: []*chakrapb.AttributeProto{int32Attr("comm_dst", dst), intAttr("comm_size", size), int32Attr("comm_tag", 3)}}
}

func recvNode(id uint64, src int32, size int64, deps ...uint64) *chakrapb.Node {
	return &chakrapb.Node{Id: id, Type: chakrapb.NodeType_COMM_RECV_NODE, DataDeps: deps,
		Attr: []*chakrapb.AttributeProto{int32Attr("comm_src", src), intAttr("comm_size", size), int32Attr("comm_tag", 3)}}
}

func collNode(id uint64, ct chakrapb.CollectiveCommType, size int64, deps ...uint64) *chakrapb.Node {
	return &chakrapb.Node{Id: id, Type: chakrapb.NodeType_COMM_COLL_NODE, DataDeps: deps,
		Attr: []*chakrapb.AttributeProto{intAttr("comm_type", int64(ct)), intAttr("comm_size", size)}}
}

// writeChakra writes one file per rank into a new directory.
func writeChakra(t *testing.T, ranks ...[]byte) string {
	t.Helper()
	dir := t.TempDir()
	for r, data := range ranks {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("w.%d.et", r)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readCalls opens rank r and reads all its calls.
func readCalls(t *testing.T, src trace.Source, r int) []trace.Call {
	t.Helper()
	rs, err := src.OpenRank(r)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []trace.Call
	var c trace.Call
	for {
		err := rs.Next(&c)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Clone())
	}
}

func callStrings(calls []trace.Call) []string {
	var out []string
	for i := range calls {
		out = append(out, calls[i].String())
	}
	return out
}

// TestChakraGraphToCalls: the topological order, computation as time
// between calls, nonblocking communication with waits just before the
// first dependent node, sends that do not block their dependents, and a
// last Waitall for what is still open.
func TestChakraGraphToCalls(t *testing.T) {
	dir := writeChakra(t,
		chakraFile(t, "0.0.4",
			// Listed out of order; 5 depends on 4, which appears later.
			comp(5, 2, 4),
			comp(1, 10),
			sendNode(2, 1, 1000, 1),
			recvNode(3, 1, 500, 1),
			comp(4, 3, 2), // after the send: no wait
			comp(6, 4, 3), // after the receive: a wait first
			collNode(7, chakrapb.CollectiveCommType_ALL_REDUCE, 4096, 6),
		),
		chakraFile(t, "0.0.4",
			recvNode(1, 0, 1000),
			sendNode(2, 0, 500),
			collNode(3, chakrapb.CollectiveCommType_ALL_REDUCE, 4096, 1, 2),
		),
	)
	src, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src.NumRanks() != 2 {
		t.Fatalf("%d ranks", src.NumRanks())
	}
	got := callStrings(readCalls(t, src, 0))
	want := []string{
		"MPI_Isend t=10000+0 comm=0 peer=1 tag=3 bytes=1000 type=1/1 req=1",
		"MPI_Irecv t=10000+0 comm=0 peer=1 tag=3 bytes=500 type=1/1 req=2",
		"MPI_Waitall t=15000+0 done=[2:recv:peer=1:tag=3:bytes=500]",
		"MPI_Iallreduce t=19000+0 comm=0 bytes=4096 type=1/1 req=3",
		"MPI_Waitall t=19000+0 done=[1:send:peer=1:tag=3:bytes=1000 3:collective]",
	}
	// Node order: 1 (10 us), 2 send, 3 recv, 4 (3 us, after the send only:
	// no wait), 5 (2 us), a wait for 3, 6 (4 us), 7; then a wait for all.
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rank 0 calls:\n got  %q\n want %q", got, want)
	}
	got = callStrings(readCalls(t, src, 1))
	want = []string{
		"MPI_Irecv t=0+0 comm=0 peer=0 tag=3 bytes=1000 type=1/1 req=1",
		"MPI_Isend t=0+0 comm=0 peer=0 tag=3 bytes=500 type=1/1 req=2",
		"MPI_Waitall t=0+0 done=[1:recv:peer=0:tag=3:bytes=1000]",
		"MPI_Iallreduce t=0+0 comm=0 bytes=4096 type=1/1 req=3",
		"MPI_Waitall t=0+0 done=[2:send:peer=0:tag=3:bytes=500 3:collective]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rank 1 calls:\n got  %q\n want %q", got, want)
	}
	if u := src.Unsupported(); len(u) != 0 || len(src.Warnings) != 0 {
		t.Fatalf("unsupported: %v", u)
	}
	s := goal.NewSchedule(2)
	if _, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime < 19000 {
		t.Fatalf("simulated %d ns, less than the 19 us of computation", res.MaxTime)
	}
}

// TestChakraRingNoDeadlock: every rank sends a large message (rendezvous
// at the default S) before it receives, and the receive depends on the
// send: with sends that only need to be issued, the schedule finishes.
func TestChakraRingNoDeadlock(t *testing.T) {
	const n = 4
	var ranks [][]byte
	for r := int32(0); r < n; r++ {
		ranks = append(ranks, chakraFile(t, "0.0.4",
			sendNode(0, (r+1)%n, 1<<20),
			recvNode(1, (r+n-1)%n, 1<<20, 0),
			comp(2, 5, 1),
			sendNode(3, (r+1)%n, 1<<20, 2),
			recvNode(4, (r+n-1)%n, 1<<20, 3),
		))
	}
	src, err := Open(writeChakra(t, ranks...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(n)
	if _, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}

// TestChakraUnsupported: what has no call is counted, and its time kept.
func TestChakraUnsupported(t *testing.T) {
	data := chakraFile(t, "0.0.4",
		&chakrapb.Node{Id: 1, Type: chakrapb.NodeType_MEM_LOAD_NODE, DurationMicros: 7},
		&chakrapb.Node{Id: 2, Type: chakrapb.NodeType_INVALID_NODE, DurationMicros: 1, DataDeps: []uint64{99}, CtrlDeps: []uint64{1}},
		&chakrapb.Node{Id: 3, Type: chakrapb.NodeType_COMM_SEND_NODE},
		&chakrapb.Node{Id: 4, Type: chakrapb.NodeType_COMM_COLL_NODE, DurationMicros: 2,
			Attr: []*chakrapb.AttributeProto{{Name: "is_cpu_op", Value: &chakrapb.AttributeProto_BoolVal{BoolVal: true}}}},
		&chakrapb.Node{Id: 5, Type: chakrapb.NodeType_COMM_COLL_NODE, Attr: []*chakrapb.AttributeProto{intAttr("comm_type", 42)}},
		sendNode(6, 9, 10),
		&chakrapb.Node{Id: 7, Type: chakrapb.NodeType(77)},
		&chakrapb.Node{Id: 8, Type: chakrapb.NodeType_COMM_COLL_NODE, Attr: []*chakrapb.AttributeProto{intAttr("comm_type", 0),
			{Name: "pg_name", Value: &chakrapb.AttributeProto_StringVal{StringVal: "3"}}}},
	)
	dir := writeChakra(t, data)
	_, err := Open(dir, Options{})
	if !errors.Is(err, trace.ErrUnsupported) || !strings.Contains(err.Error(), "Chakra MEM_LOAD_NODE: memory is not modelled (duration counted as computation) x1") {
		t.Fatalf("default policy: %v", err)
	}
	if want := "trace: chakra " + dir; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), ": unsupported MPI calls (use --unsupported=calc") ||
		strings.Count(err.Error(), "trace:") != 1 {
		t.Errorf("default policy: %q, want it to start %q, then \"unsupported MPI calls\" (\"trace:\" once)", err, want)
	}
	if _, err := Open(dir, Options{Unsupported: "skip"}); err == nil {
		t.Fatal("policy skip accepted")
	}
	src, err := Open(dir, Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	calls := readCalls(t, src, 0)
	if len(calls) != 0 {
		t.Fatalf("calls: %q", callStrings(calls))
	}
	got := src.Unsupported()
	want := map[string]int64{
		"Chakra MEM_LOAD_NODE: memory is not modelled (duration counted as computation)":                                                1,
		"Chakra INVALID_NODE: node type not supported (duration counted as computation)":                                                1,
		"Chakra COMM_SEND_NODE: no comm_dst (duration counted as computation)":                                                          1,
		"Chakra COMM_COLL_NODE: unknown comm_type 42 (duration counted as computation)":                                                 1,
		"Chakra COMM_SEND_NODE: peer outside the 1 ranks of the trace (rank files 1 and up missing?) (duration counted as computation)": 1,
		"Chakra 77: node type not supported (duration counted as computation)":                                                          1,
		"Chakra COMM_COLL_NODE: on a named process group, whose members the trace does not give (duration counted as computation)":      1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unsupported:\n got  %v\n want %v", got, want)
	}
	wantW := []string{
		"Chakra COMM_COLL_NODE on the CPU without comm_type (the launcher of a device collective): computation x1",
		"Chakra dependency on a node absent from the file: ignored x1",
	}
	if !reflect.DeepEqual(src.Warnings, wantW) {
		t.Fatalf("warnings:\n got  %q\n want %q", src.Warnings, wantW)
	}
}

// TestChakraErrors: graphs that cannot be ordered and malformed files are
// errors with the byte offset of the message at fault.
func TestChakraErrors(t *testing.T) {
	good := chakraFile(t, "", comp(1, 1), comp(2, 1, 1))
	const firstNode = 1 // after the empty metadata's length prefix
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "byte 0: trace: malformed Chakra execution trace: empty file"},
		{"cycle", chakraFile(t, "", comp(1, 1, 2), comp(2, 1, 1)), fmt.Sprintf("byte %d: trace: malformed Chakra execution trace: node 1 (\"comp1\") is on a dependency cycle (2 nodes cannot be ordered)", firstNode)},
		{"self", chakraFile(t, "", comp(1, 1, 1)), "node 1 (\"comp1\") is on a dependency cycle"},
		{"duplicate", chakraFile(t, "", comp(1, 1), comp(1, 1)), fmt.Sprintf("node id 1 already used by the node at byte %d", firstNode)},
		{"truncated", good[:len(good)-1], "message 2 of "},
		{"bad length", append(append([]byte{}, good...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), fmt.Sprintf("byte %d: trace: malformed Chakra execution trace: message 3: length prefix is not a valid length", len(good))},
		{"cut prefix", append(append([]byte{}, good...), 0x80), fmt.Sprintf("byte %d: trace: malformed Chakra execution trace: message 3: length prefix cut short", len(good))},
		{"bad node", append(append([]byte{}, good...), 2, 0x08, 0x80), fmt.Sprintf("byte %d: trace: malformed Chakra execution trace: message 3 (Node): ", len(good))},
		{"bad gzip", []byte{0x1f, 0x8b, 0, 0}, "byte 0: trace: malformed Chakra execution trace: gzip"},
		// A length of 1 GiB in a small file: an error, not a 1 GiB buffer.
		{"length past the end", append(append([]byte{}, good...), 0x80, 0x80, 0x80, 0x80, 0x04, 1, 2), fmt.Sprintf("byte %d: trace: malformed Chakra execution trace: message 3 of 1073741824 bytes runs past the end of the file (2 bytes left): truncated?", len(good))},
		{"bad metadata", []byte{2, 0x0a, 0x80}, "byte 0: trace: malformed Chakra execution trace: message 0 (GlobalMetadata): "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(writeChakra(t, tc.data), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var fe *trace.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, trace.ErrFormat) || !errors.Is(err, ErrChakra) {
				t.Fatalf("%v: not a *FormatError wrapping ErrFormat and ErrChakra", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestChakraOpen: a directory, a file and a prefix name the same trace;
// a missing rank, several traces in one directory and no trace at all are
// errors; Detect sniffs all three forms.
func TestChakraOpen(t *testing.T) {
	data := chakraFile(t, "0.0.4", comp(1, 1))
	dir := writeChakra(t, data, data, data)
	for _, p := range []string{dir, filepath.Join(dir, "w.1.et"), filepath.Join(dir, "w")} {
		src, err := Open(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if src.NumRanks() != 3 {
			t.Fatalf("%s: %d ranks", p, src.NumRanks())
		}
		if !Detect(p) {
			t.Fatalf("Detect(%s) = false", p)
		}
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "z.0.et.gz"), zipped.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "several traces (prefixes w, z)") {
		t.Fatalf("two traces in one directory: %v", err)
	}
	zsrc, err := Open(filepath.Join(dir, "z"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if calls := readCalls(t, zsrc, 0); len(calls) != 0 || !Detect(filepath.Join(dir, "z.0.et.gz")) {
		t.Fatalf("gzip-compressed file: %v", calls)
	}
	os.Remove(filepath.Join(dir, "w.1.et"))
	if _, err := Open(filepath.Join(dir, "w"), Options{}); err == nil || !strings.Contains(err.Error(), "missing [1]") {
		t.Fatalf("missing rank: %v", err)
	}
	single := filepath.Join(t.TempDir(), "workload.et")
	if err := os.WriteFile(single, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if src, err := Open(single, Options{}); err != nil || src.NumRanks() != 1 || !Detect(single) {
		t.Fatalf("a file without a rank: %v", err)
	}
	empty := t.TempDir()
	if _, err := Open(empty, Options{}); err == nil || Detect(empty) {
		t.Fatalf("empty directory: %v", err)
	}
	for _, p := range []string{"../testdata/irregular", "../testdata/irregular.txt", filepath.Join(empty, "nothing")} {
		if Detect(p) {
			t.Fatalf("Detect(%s) = true", p)
		}
	}
}

// chakraSample is what TestChakraSamples expects of a sample.
type chakraSample struct {
	dir      string
	ranks    int
	perFunc  map[string]int64
	warnings []string
}

var chakraSamples = []chakraSample{
	{"astrasim-allreduce-16npus-1MB", 16, map[string]int64{"MPI_Iallreduce": 16, "MPI_Waitall": 16}, nil},
	{"astrasim-custom-ring-allreduce-8", 8, map[string]int64{"MPI_Isend": 8 * 14, "MPI_Irecv": 8 * 14, "MPI_Waitall": 8 * 14}, nil},
	{"chakra-feeder-test", 1, map[string]int64{"MPI_Ibcast": 2, "MPI_Iallreduce": 5, "MPI_Waitall": 1}, []string{
		"Chakra COMM_COLL_NODE on the CPU without comm_type (the launcher of a device collective): computation x14",
	}},
}

// TestChakraSamples converts and simulates every sample of
// testdata/chakra (see PROVENANCE.md there) at the default parameters,
// and prints what docs/formats.md lists (go test -run ChakraSamples -v).
func TestChakraSamples(t *testing.T) {
	for _, tc := range chakraSamples {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.dir)
			if !Detect(dir) {
				t.Fatalf("Detect(%s) = false", dir)
			}
			src, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if src.NumRanks() != tc.ranks {
				t.Fatalf("%d ranks, want %d", src.NumRanks(), tc.ranks)
			}
			s := goal.NewSchedule(src.NumRanks())
			st, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st.PerFunc, tc.perFunc) {
				t.Errorf("calls per function: %v, want %v", st.PerFunc, tc.perFunc)
			}
			if len(st.Unsupported) > 0 {
				t.Errorf("converter: unsupported %v", st.Unsupported)
			}
			if u := src.Unsupported(); len(u) > 0 {
				t.Errorf("unsupported: %v", u)
			}
			if !reflect.DeepEqual(src.Warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", src.Warnings, tc.warnings)
			}
			res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
			if err != nil {
				t.Fatal(err)
			}
			if res.MaxTime <= 0 {
				t.Fatalf("simulated time %d", res.MaxTime)
			}
			t.Logf("| %s | %d | %d | %d | %d |", tc.dir, src.NumRanks(), len(s.Ops), st.ComputeNs, res.MaxTime)
		})
	}
}

// TestChakraCorruptSamples cuts every sample file at many lengths and
// flips bytes in it: reading fails with a *FormatError or succeeds, and
// whatever it reads converts; nothing panics.
func TestChakraCorruptSamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.0.et"))
	if len(files) == 0 {
		t.Fatal("no samples")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/300)
		for cut := 0; cut < len(data); cut += step {
			checkChakraBytes(t, fmt.Sprintf("%s cut at %d", f, cut), data[:cut], true)
		}
		for i := 0; i < len(data); i += step {
			bad := bytes.Clone(data)
			bad[i] ^= 0xa5
			checkChakraBytes(t, fmt.Sprintf("%s byte %d flipped", f, i), bad, false)
		}
	}
}

func checkChakraBytes(t *testing.T, what string, data []byte, cut bool) {
	t.Helper()
	g, err := decodeChakra("x.0.et", data)
	if err == nil {
		_, err = g.stream("x.0.et", 0, 4)
	}
	if err == nil {
		return
	}
	var fe *trace.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrChakra) {
		t.Fatalf("%s: %v is not a *FormatError wrapping ErrChakra", what, err)
	}
	if fe.Offset < 0 || fe.Offset > int64(len(data)) {
		t.Fatalf("%s: offset %d outside the %d bytes", what, fe.Offset, len(data))
	}
	if cut && len(data) > 0 && !strings.Contains(err.Error(), "runs past the end") && !strings.Contains(err.Error(), "cut short") && !strings.Contains(err.Error(), "(Node)") && !strings.Contains(err.Error(), "(GlobalMetadata)") {
		t.Fatalf("%s: %v does not say the file is cut", what, err)
	}
}

// FuzzChakra: decoding any bytes as a rank file and ordering its graph
// never panics, fails only with *FormatError values that wrap ErrChakra,
// and what it reads converts (the calls reference only requests it made).
func FuzzChakra(f *testing.F) {
	f.Add(chakraFile(f, "0.0.4", comp(5, 2, 4), comp(1, 10), sendNode(2, 1, 1000, 1), recvNode(3, 1, 500, 1), comp(4, 3, 2),
		collNode(7, chakrapb.CollectiveCommType_ALL_REDUCE, 4096, 3)))
	f.Add(chakraFile(f, "", comp(1, 1, 2), comp(2, 1, 1)))
	f.Add([]byte{})
	files, _ := filepath.Glob(filepath.Join("testdata", "astrasim-*", "*.0.et"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := decodeChakra("fuzz.0.et", data)
		if err == nil {
			var s *chakraStream
			s, err = g.stream("fuzz.0.et", 0, 2)
			if err == nil {
				open := map[uint64]bool{}
				for _, c := range s.calls {
					if c.Request != 0 {
						open[c.Request] = true
					}
					for _, d := range c.Done {
						if !open[d.Request] {
							t.Fatalf("completion of request %d that no call made", d.Request)
						}
						delete(open, d.Request)
					}
				}
				if len(open) > 0 {
					t.Fatalf("requests never completed: %v", open)
				}
				return
			}
		}
		var fe *trace.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrChakra) || !errors.Is(err, trace.ErrFormat) {
			t.Fatalf("%v is not a *FormatError wrapping ErrChakra and ErrFormat", err)
		}
	})
}

// TestChakraConvertErrorWhere: a conversion error names the call by the
// message of its node in the rank's file and the message's byte offset.
func TestChakraConvertErrorWhere(t *testing.T) {
	tr, err := Open(filepath.Join("testdata", "astrasim-custom-ring-allreduce-8"), Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	msg, pos := tracetest.ConvertWhere(t, tr, 3)
	re := regexp.MustCompile(`^testdata/astrasim-custom-ring-allreduce-8/[^:]+\.0\.et: record \d+ at byte \d+: rank 0: MPI_\w+ at t=\d+: trace: too many ops`)
	if !re.MatchString(msg) || pos.Record < 2 || pos.Offset <= 0 {
		t.Errorf("err = %s (position %+v)\nwant a match for %s", msg, pos, re)
	}
}

// TestChakraConvertErrorWhereLastWaitall: the Waitall added after the
// last node, for the requests still open, is at the end of the file,
// after its last message (whichever node the order visits last).
func TestChakraConvertErrorWhereLastWaitall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []*chakrapb.Node // rank 0's; rank 1 receives its send
		want  string           // after the file name
	}{
		{"after a computation", []*chakrapb.Node{sendNode(1, 1, 64), comp(2, 5)},
			": end of file (implicit call after record 3 at byte %d): rank 0: MPI_Waitall at t=5000: trace: too many ops"},
		{"last in the file, first in the order", []*chakrapb.Node{comp(2, 5), sendNode(1, 1, 64)},
			": end of file (implicit call after record 3 at byte %d): rank 0: MPI_Waitall at t=5000: trace: too many ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := chakraFile(t, "0.0.4", tc.nodes...)
			last := len(chakraFile(t, "0.0.4", tc.nodes[:len(tc.nodes)-1]...))
			dir := writeChakra(t, data, chakraFile(t, "0.0.4", recvNode(1, 0, 64), comp(2, 5)))
			tr, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			msg, pos := tracetest.ConvertWhere(t, tr, 1)
			want := filepath.Join(dir, "w.0.et") + fmt.Sprintf(tc.want, last)
			if !strings.HasPrefix(msg, want) || !pos.End {
				t.Errorf("err = %s (position %+v)\nwant %s...", msg, pos, want)
			}
		})
	}
}
