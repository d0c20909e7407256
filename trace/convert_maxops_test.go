package trace_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// TestConvertMaxRankOps: a conversion with a small ConvertOptions.MaxRankOps
// fails with ErrTooManyOps at the call that passes it, named with its rank,
// the same error and stats with 1 and 4 workers; with the bound at the
// largest rank's ops it writes the same bytes as without a bound, and one
// less fails.
func TestConvertMaxRankOps(t *testing.T) {
	send := func(at int64, peer int32) trace.Call {
		return call(trace.FuncSend, at, at+50, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes = 0, peer, 5, 8 })
	}
	recv := func(at int64, peer int32) trace.Call {
		return call(trace.FuncRecv, at, at+50, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes = 0, peer, 5, 8 })
	}
	// Rank 2 sends rank 3 ten messages, each after a computation (2 ops a
	// call: the 5th passes 8); ranks 0 and 1 one.
	var many2, many3 []trace.Call
	for k := range int64(10) {
		many2 = append(many2, send(2000+100*k, 3))
		many3 = append(many3, recv(2000+100*k, 2))
	}
	p2p := [][]trace.Call{world(send(2000, 1)), world(recv(2000, 0)), world(many2...), world(many3...)}
	// An allgatherv of 4 MiB blocks: MPICH's ring in 32 KiB pieces, 768
	// messages a rank.
	allgatherv := call(trace.FuncAllgatherv, 3000, 4000, func(c *trace.Call) {
		c.Comm, c.Bytes, c.Counts, c.Type = 0, 4<<20, []int64{4 << 20, 4 << 20, 4 << 20, 4 << 20}, trace.Datatype{Size: 1, Extent: 1}
	})
	coll := [][]trace.Call{world(allgatherv), world(allgatherv), world(allgatherv), world(allgatherv)}
	split := func(r int) []trace.Call { return []trace.Call{commNew(trace.FuncCommSplit, 0, int32(2+r%2))} }
	halves := []*trace.Comm{{ID: 2, Members: []int32{0, 2}}, {ID: 3, Members: []int32{1, 3}}}
	tests := []struct {
		name string
		d    *trace.Dir
		max  int64
		want string // in the error
	}{
		{"point-to-point", writeTrace(t, p2p), 8, "rank 2: MPI_Send at t=2400: trace: too many ops: more than 8 ops in the rank ("},
		{"collective", writeTrace(t, coll), 100, "rank 0: MPI_Allgatherv at t=3000: trace: too many ops: more than 100 ops in the rank, expanding allgatherv/ring ("},
		{"communicator creation", commTrace(t, split, halves...), 3, "rank 0: MPI_Comm_split at t=2000: trace: too many ops: more than 3 ops in the rank, expanding allgather/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			free, maxOps := convertBytes(t, tc.d, trace.ConvertOptions{})
			if tc.max >= maxOps {
				t.Fatalf("the bound %d does not cut the largest rank's %d ops", tc.max, maxOps)
			}
			if tight, _ := convertBytes(t, tc.d, trace.ConvertOptions{MaxRankOps: maxOps}); !bytes.Equal(tight, free) {
				t.Errorf("at most %d ops per rank, the largest rank's: the output differs from the unbounded one", maxOps)
			}
			var first string
			for _, workers := range []int{1, 4} {
				st, err := trace.Convert(tc.d, trace.ConvertOptions{MaxRankOps: tc.max, Workers: workers}, func(*goal.RankBlock) error { return nil })
				if !errors.Is(err, trace.ErrTooManyOps) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%d workers: %v\nwant ErrTooManyOps with %q", workers, err, tc.want)
				}
				got := fmt.Sprintf("%v; %+v", err, *st)
				if first == "" {
					first = got
					t.Log(err)
				} else if got != first {
					t.Errorf("%d workers:\n%s\nwant, as with 1 worker,\n%s", workers, got, first)
				}
			}
			_, err := trace.Convert(tc.d, trace.ConvertOptions{MaxRankOps: maxOps - 1}, func(*goal.RankBlock) error { return nil })
			if !errors.Is(err, trace.ErrTooManyOps) {
				t.Errorf("at most %d ops per rank, one less than the largest rank's: %v", maxOps-1, err)
			}
		})
	}
}

// convertBytes converts d with opt and returns the schedule in the binary
// form and the ops of its largest rank.
func convertBytes(t *testing.T, d *trace.Dir, opt trace.ConvertOptions) ([]byte, int64) {
	t.Helper()
	s, _ := convert(t, d, opt)
	var maxOps int64
	for r := range s.NumRanks {
		maxOps = max(maxOps, int64(len(s.RankOps(r))))
	}
	var buf bytes.Buffer
	if err := goal.WriteBinary(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), maxOps
}

// TestConvertMaxRankOpsInvalid: a negative bound is an error.
func TestConvertMaxRankOpsInvalid(t *testing.T) {
	d := writeTrace(t, [][]trace.Call{world()})
	_, err := trace.Convert(d, trace.ConvertOptions{MaxRankOps: -1}, func(*goal.RankBlock) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "-1 ops per rank") {
		t.Fatalf("err = %v, want one about -1 ops per rank", err)
	}
}

// TestConvertErrorWhere: a conversion error names the call by its record
// in the rank's file and the record's byte offset, where the file has the
// call's record.
func TestConvertErrorWhere(t *testing.T) {
	send := func(at int64) trace.Call {
		return call(trace.FuncSend, at, at+50, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes = 0, 1, 5, 8 })
	}
	recv := func(at int64) trace.Call {
		return call(trace.FuncRecv, at, at+50, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes = 0, 0, 5, 8 })
	}
	var sends, recvs []trace.Call
	for k := range int64(10) {
		sends, recvs = append(sends, send(2000+100*k)), append(recvs, recv(2000+100*k))
	}
	d := writeTrace(t, [][]trace.Call{world(sends...), world(recvs...)})
	_, err := trace.Convert(d, trace.ConvertOptions{MaxRankOps: 8}, func(*goal.RankBlock) error { return nil })
	if err == nil {
		t.Fatal("no error")
	}
	// The 5th MPI_Send passes 8 ops: where the reader says it is.
	rd, err2 := d.Open(0)
	if err2 != nil {
		t.Fatal(err2)
	}
	defer rd.Close()
	var c trace.Call
	for n := 0; n < 5; {
		if err := rd.Next(&c); err != nil {
			t.Fatal(err)
		}
		if c.Func == trace.FuncSend {
			n++
		}
	}
	pos, file := rd.Where(), d.Files[0]
	want := fmt.Sprintf("%s: record %d at byte %d: rank 0: MPI_Send at t=2400: trace: too many ops", file, pos.Record, pos.Offset)
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v\nwant %s...", err, want)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if pos.File != file || pos.Record < 6 || pos.Offset <= 0 || pos.Offset >= int64(len(data)) || data[pos.Offset] != byte(trace.FuncSend) {
		t.Errorf("position %+v: not the record of an MPI_Send (the 5th) in %s", pos, file)
	}
}

// TestPositionString: a call's position as errors give it, in a text
// trace, a binary one, a file alone, for a call the importer adds at the
// end of the rank's calls (End), and with a Note.
func TestPositionString(t *testing.T) {
	for _, tc := range []struct {
		name string
		pos  trace.Position
		want string
	}{
		{"line", trace.Position{File: "t.txt", Line: 4}, "t.txt:4"},
		{"record", trace.Position{File: "r.bin", Record: 3, Offset: 120}, "r.bin: record 3 at byte 120"},
		{"record in memory", trace.Position{File: "mem", Record: 3, Offset: -1}, "mem: record 3"},
		{"file", trace.Position{File: "r.bin", Offset: -1}, "r.bin"},
		{"end, after a line", trace.Position{File: "t.txt", Line: 4, End: true}, "t.txt: end of file (implicit call after line 4)"},
		{"end, after a record", trace.Position{File: "r.et", Record: 3, Offset: 120, End: true}, "r.et: end of file (implicit call after record 3 at byte 120)"},
		{"end of an empty file", trace.Position{File: "r.et", End: true}, "r.et: end of file (implicit call)"},
		{"line, noted", trace.Position{File: "t.txt", Line: 4, Note: "copy 3 of rank 1"}, "t.txt:4 (copy 3 of rank 1)"},
		{"end, noted", trace.Position{File: "t.txt", Line: 4, End: true, Note: "copy 3 of rank 1"}, "t.txt: end of file (implicit call after line 4) (copy 3 of rank 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.pos.String(); got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.pos, got, tc.want)
			}
		})
	}
}
