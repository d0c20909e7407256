package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func testHeader(rank, size int) Header {
	return Header{Version: Version, Rank: rank, Size: size, T0: 1_000_000, Wall0: 1_700_000_000_000_000_000,
		Thread: 0, PID: 4242, Host: "node1", Library: "test MPI 1.0", Command: "./app -n 3"}
}

var call = NewCall

// sample is a rank-1 trace of 4 ranks with every kind of record.
func sample() (Header, []*Comm, []Call) {
	h := testHeader(1, 4)
	world := &Comm{ID: 0, Members: []int32{0, 1, 2, 3}}
	self := &Comm{ID: 1, Members: []int32{1}}
	sub := &Comm{ID: 2, Members: []int32{3, 1}}
	inter := &Comm{ID: 0x40000000, Members: []int32{1}, Remote: []int32{0, 2}, Local: true}
	var calls []Call
	add := func(c Call, edit func(*Call)) {
		edit(&c)
		calls = append(calls, c)
	}
	add(call(FuncInit, 900_000, 999_000), func(c *Call) {})
	add(call(FuncIsend, 1_000_100, 1_000_400), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, 2, 7, 800, Datatype{Size: 8, Extent: 8}, 1
	})
	add(call(FuncIrecv, 1_000_500, 1_000_600), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, AnySource, AnyTag, 4096, Datatype{Size: 4, Extent: 4}, 2
	})
	add(call(FuncTest, 1_000_700, 1_090_000), func(c *Call) { c.Polls = 1000 })
	add(call(FuncFlush, 1_090_100, 1_095_000), func(c *Call) {})
	add(call(FuncWaitall, 1_100_000, 1_200_000), func(c *Call) {
		c.Done = []Completion{
			{Request: 1, Kind: ReqSend, Peer: 2, Tag: 7, Bytes: 800, Func: FuncIsend, Comm: 0},
			{Request: 2, Kind: ReqRecv, Peer: 3, Tag: 9, Bytes: 1024, Func: FuncIrecv, Comm: 0},
			{Request: 0, Kind: ReqUnknown, Peer: None, Tag: None, Comm: None},
		}
	})
	add(call(FuncCommSplit, 1_300_000, 1_400_000), func(c *Call) { c.Comm, c.NewComm = 0, 2 })
	add(call(FuncSendrecv, 1_500_000, 1_600_000), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 2, 3, 1, 16, Datatype{Size: 16, Extent: 32}
		c.RecvPeer, c.RecvTag, c.RecvBytes, c.RecvType = 3, 2, 8, Datatype{Size: 8, Extent: 8}
	})
	add(call(FuncBcast, 1_700_000, 1_700_500), func(c *Call) { c.Comm, c.Root, c.Bytes, c.Type = 2, 0, 64, Datatype{Size: 4, Extent: 4} })
	add(call(FuncAlltoallv, 1_800_000, 1_900_000), func(c *Call) {
		c.Comm, c.Type, c.RecvType = 0, Datatype{Size: 4, Extent: 4}, Datatype{Size: 4, Extent: 4}
		c.Counts, c.RecvCounts = []int64{32, 64, 96, 128}, []int64{0, 8, 16, 24}
	})
	add(call(FuncIprobe, 2_000_000, 2_000_100), func(c *Call) { c.Comm, c.Peer, c.Tag, c.Polls = 0, 0, 9, 5 })
	add(call(FuncIprobe, 2_000_200, 2_000_300), func(c *Call) { c.Flag, c.Comm, c.Peer, c.Tag, c.Bytes = true, 0, 0, 9, 8 })
	add(call(FuncIbcast, 2_100_000, 2_100_100), func(c *Call) {
		c.Comm, c.Root, c.Bytes, c.Type, c.Request = 0, 3, 8, Datatype{Size: 8, Extent: 8}, 3
	})
	add(call(FuncTestany, 2_200_000, 2_200_100), func(c *Call) {
		c.Flag = true
		c.Done = []Completion{{Request: 3, Kind: ReqCollective, Peer: None, Tag: None, Func: FuncIbcast, Comm: 0}}
	})
	add(call(FuncGatherv, 2_300_000, 2_300_100), func(c *Call) {
		c.Comm, c.Root, c.Bytes, c.Type, c.Counts = 0x40000000, Root, 4, Datatype{Size: 4, Extent: 4}, []int64{4, 8}
	})
	add(call(FuncSend, 2_400_000, 2_400_100), func(c *Call) { c.Comm, c.Peer, c.Tag, c.Err = 0, ProcNull, 0, 13 })
	add(call(FuncIrecv, 2_500_000, 2_500_100), func(c *Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, 3, 1, 8, Datatype{Size: 8, Extent: 8}, 4
	})
	add(call(FuncCancel, 2_600_000, 2_600_100), func(c *Call) { c.Request = 4 })
	add(call(FuncWait, 2_700_000, 2_700_100), func(c *Call) {
		c.Done = []Completion{{Request: 4, Kind: ReqRecv, Cancelled: true, Peer: None, Tag: None, Func: FuncIrecv, Comm: 0}}
	})
	add(call(FuncCommFree, 2_800_000, 2_800_100), func(c *Call) { c.Comm = 2 })
	add(call(FuncFinalize, 3_000_000, 3_100_000), func(c *Call) {})
	return h, []*Comm{world, self, sub, inter}, calls
}

// encode writes a trace: the communicators first, then the calls.
func encode(t testing.TB, h Header, comms []*Comm, calls []Call, end EndReason) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comms {
		if err := w.WriteComm(c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range calls {
		if err := w.WriteCall(&calls[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(end); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decode reads a whole trace from data.
func decode(data []byte) (*File, error) {
	r, err := NewReader(bytes.NewReader(data), "test.gpt")
	if err != nil {
		return nil, err
	}
	f := &File{Header: r.Header()}
	var c Call
	for {
		err := r.Next(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			return f, err
		}
		f.Calls = append(f.Calls, c.Clone())
	}
	f.Comms, f.End = r.Comms(), r.End()
	return f, nil
}

func TestRoundTrip(t *testing.T) {
	h, comms, calls := sample()
	data := encode(t, h, comms, calls, EndFinalize)
	f, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header != h {
		t.Errorf("header\n got %+v\nwant %+v", f.Header, h)
	}
	if f.End != EndFinalize {
		t.Errorf("end %v", f.End)
	}
	if !reflect.DeepEqual(f.Comms, comms) {
		t.Errorf("communicators\n got %+v\nwant %+v", f.Comms, comms)
	}
	if len(f.Calls) != len(calls) {
		t.Fatalf("%d calls, want %d", len(f.Calls), len(calls))
	}
	for i := range calls {
		want := calls[i].Clone()
		if !reflect.DeepEqual(f.Calls[i], want) {
			t.Errorf("call %d\n got %v\nwant %v", i, &f.Calls[i], &want)
		}
	}
	t.Logf("%d records in %d bytes", len(calls)+len(comms), len(data))
}

// A send's completion gets its peer, tag and size from the Isend.
func TestCompletionFromRequest(t *testing.T) {
	_, _, calls := sample()
	got := calls[5].Done[0]
	if got.Peer != 2 || got.Tag != 7 || got.Bytes != 800 || got.Func != FuncIsend || got.Comm != 0 {
		t.Fatalf("sample's send completion %+v", got)
	}
	h, comms, calls := sample()
	f, err := decode(encode(t, h, comms, calls, EndFinalize))
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Calls[5].Done[0]; d != got {
		t.Errorf("send completion %+v, want %+v", d, got)
	}
}

// mutate builds the sample with a change, for the error cases.
type mutation struct {
	name    string
	data    func(t *testing.T) []byte
	wantErr string
	wantOff int64 // -1: any
}

func sampleWith(t *testing.T, edit func(h *Header, comms *[]*Comm, calls *[]Call)) []byte {
	h, comms, calls := sample()
	edit(&h, &comms, &calls)
	return encode(t, h, comms, calls, EndFinalize)
}

func TestReaderErrors(t *testing.T) {
	h, comms, calls := sample()
	good := encode(t, h, comms, calls, EndFinalize)
	headerLen := func() int64 {
		var b bytes.Buffer
		w, err := NewWriter(&b, h)
		if err != nil {
			t.Fatal(err)
		}
		w.w.Flush()
		return int64(b.Len())
	}()
	tests := []mutation{
		{"empty", func(*testing.T) []byte { return nil }, "bad magic", 0},
		{"not a trace", func(*testing.T) []byte { return []byte("num_ranks 2\n") }, "not a gopsim trace file", 0},
		{"cut magic", func(*testing.T) []byte { return Magic[:5] }, "unexpected EOF", 5},
		{"future version", func(*testing.T) []byte { return append(append([]byte{}, Magic...), Version+1) },
			"format version 3; this reader reads versions 1 through 2", 8},
		{"rank beyond size", func(t *testing.T) []byte { return sampleWith(t, func(h *Header, _ *[]*Comm, _ *[]Call) { h.Rank = 9 }) },
			"rank 9 in a world of 4 ranks", 10},
		{"cut", func(*testing.T) []byte { return good[:len(good)-4] }, "unexpected EOF", -1},
		{"no end record", func(*testing.T) []byte { return good[:len(good)-3] }, "the file ends without an end record", int64(len(good) - 3)},
		{"trailing data", func(*testing.T) []byte { return append(append([]byte{}, good...), 0) }, "data after the end record", int64(len(good))},
		{"unknown function", func(*testing.T) []byte {
			b := append([]byte{}, good[:headerLen]...)
			return append(b, 0xee, 0, 0, 0)
		}, "unknown record kind 0xee", headerLen},
		{"reserved mask bit", func(*testing.T) []byte {
			b := append([]byte{}, good[:headerLen]...)
			b = append(b, byte(FuncBarrier))
			return binary.AppendUvarint(b, 1<<20)
		}, "unknown fields 0x100000 in the mask", headerLen + 1},
		{"communicator used before its definition", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, comms *[]*Comm, _ *[]Call) { *comms = (*comms)[:2] })
		}, "communicator 2 used before its definition", -1},
		{"communicator defined twice", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, comms *[]*Comm, _ *[]Call) { *comms = append(*comms, (*comms)[2]) })
		}, "communicator 2 defined twice", -1},
		{"member twice", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, comms *[]*Comm, _ *[]Call) { (*comms)[2] = &Comm{ID: 2, Members: []int32{3, 3}} })
		}, "member: world rank 3 twice", -1},
		{"member beyond the world", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, comms *[]*Comm, _ *[]Call) { (*comms)[2] = &Comm{ID: 2, Members: []int32{3, 4}} })
		}, "member 4 is not a world rank (size 4)", -1},
		{"peer beyond the world", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[1].Peer = 4 })
		}, "peer 4 is not a world rank (size 4)", -1},
		{"bad tag", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[1].Tag = -7 })
		}, "tag -7", -1},
		{"root outside the communicator", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[8].Root = 2 })
		}, "root 2 is not a rank of the call's communicator", -1},
		{"counts of the wrong length", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[9].Counts = []int64{1, 2, 3} })
		}, "3 counts for a communicator of 4 ranks", -1},
		{"request completed twice", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) {
				(*calls)[13].Done = append((*calls)[13].Done, Completion{Request: 1, Kind: ReqSend})
			})
		}, "request 1 completed but not pending", -1},
		{"request created twice", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[2].Request = 1 })
		}, "request 1 created twice", -1},
		{"request of another kind", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[5].Done[0].Kind = ReqCollective })
		}, "request 1 created as send completed as collective", -1},
		{"unknown request with an id", func(t *testing.T) []byte {
			return sampleWith(t, func(_ *Header, _ *[]*Comm, calls *[]Call) { (*calls)[5].Done[2].Request = 99 })
		}, "completed request 99 of kind unknown", -1},
		{"wrong record count", func(*testing.T) []byte {
			b := append([]byte{}, good...)
			b[len(b)-2]++ // the count, one byte for 25 records
			return b
		}, "the end record counts 26 records, the file has 25", int64(len(good) - 3)},
		{"unknown end reason", func(*testing.T) []byte {
			b := append([]byte{}, good...)
			b[len(b)-1] = 9
			return b
		}, "unknown end reason 9", int64(len(good) - 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(tc.data(t))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %q does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "test.gpt") {
				t.Errorf("error %q, want the file name and %q", err, tc.wantErr)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %q is not a *FormatError", err)
			}
			if tc.wantOff >= 0 && fe.Offset != tc.wantOff {
				t.Errorf("error at byte %d, want %d: %v", fe.Offset, tc.wantOff, err)
			}
		})
	}
}

// A Reader keeps returning its error.
func TestReaderStickyError(t *testing.T) {
	h, comms, calls := sample()
	data := encode(t, h, comms, calls, EndFinalize)
	r, err := NewReader(bytes.NewReader(data[:len(data)/2]), "")
	if err != nil {
		t.Fatal(err)
	}
	var c Call
	for err == nil {
		err = r.Next(&c)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), "trace: byte ") {
		t.Fatalf("error %v", err)
	}
	if err2 := r.Next(&c); err2 != err {
		t.Errorf("second error %v, want %v", err2, err)
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	write := func(rank, size int) {
		h, comms, calls := sample()
		h.Rank, h.Size = rank, size
		comms[1] = &Comm{ID: 1, Members: []int32{int32(rank)}}
		if err := os.WriteFile(filepath.Join(dir, FileName(rank)), encode(t, h, comms, calls, EndFinalize), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for r := range 3 {
		write(r, 4)
	}
	if _, err := OpenDir(dir); err == nil || !strings.Contains(err.Error(), "3 rank files for a world of 4 ranks (missing [3])") {
		t.Errorf("a missing rank: %v", err)
	}
	write(3, 5)
	if _, err := OpenDir(dir); err == nil || !strings.Contains(err.Error(), "world of 5 ranks") {
		t.Errorf("ranks of different runs: %v", err)
	}
	write(3, 4)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a rank file"), 0o644)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.Stats()
	if err != nil {
		t.Fatal(err)
	}
	_, _, calls := sample()
	var polls int64
	for _, c := range calls {
		if c.Func != FuncFlush {
			polls += c.Polls
		}
	}
	if st.Ranks != 4 || st.Calls != 4*polls || st.Records != 4*int64(len(calls)+4) || st.Ends[EndFinalize] != 4 {
		t.Errorf("stats %+v", st)
	}
	// world, the 4 selves counted once, {3 1}, and one local id per rank
	if st.Comms != 1+1+1+4 {
		t.Errorf("%d communicators, want 7", st.Comms)
	}
	if _, err := OpenDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no rank files") {
		t.Errorf("an empty directory: %v", err)
	}
}

// testdata/irregular is a trace of examples/mpi/irregular.c on 4 ranks of
// Open MPI, written by the tracer; irregular.txt is its dump.
func TestGoldenTrace(t *testing.T) {
	d, err := OpenDir(filepath.Join("testdata", "irregular"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for rank := range d.NumRanks() {
		f, err := ReadFile(d.Files[rank])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "rank %d of %d, thread level %d, ended with %s, command %q\n", f.Header.Rank, f.Header.Size, f.Header.Thread, f.End, f.Header.Command)
		for _, c := range f.Comms {
			fmt.Fprintf(&out, "  comm %d: %v local=%v\n", c.ID, c.Members, c.Local)
		}
		for i := range f.Calls {
			c := f.Calls[i]
			c.Start -= f.Header.T0
			c.End -= f.Header.T0
			fmt.Fprintf(&out, "  %v\n", &c)
		}
	}
	golden := filepath.Join("testdata", "irregular.txt")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("dump differs from %s (go test -update rewrites it):\n%s", golden, out.Bytes())
	}
}

func TestFuncs(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Funcs() {
		name := f.String()
		if !strings.HasPrefix(name, "MPI_") || seen[name] || f.Class() == 0 || !f.Known() {
			t.Errorf("function %d: %q class %v", f, name, f.Class())
		}
		seen[name] = true
	}
	tests := []struct {
		f     Func
		name  string
		class Class
	}{
		{FuncSend, "MPI_Send", ClassSend},
		{FuncIrecv, "MPI_Irecv", ClassIrecv},
		{FuncReduceScatterBlock, "MPI_Reduce_scatter_block", ClassCollective},
		{FuncIallreduce, "MPI_Iallreduce", ClassICollective},
		{FuncCommSplit, "MPI_Comm_split", ClassCommNew},
		{FuncFlush, "tracer flush", ClassFlush},
		{Func(200), "Func(200)", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.String() != tc.name || tc.f.Class() != tc.class {
				t.Errorf("%d: %q %v, want %q %v", tc.f, tc.f.String(), tc.f.Class(), tc.name, tc.class)
			}
		})
	}
}
