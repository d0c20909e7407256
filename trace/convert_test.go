package trace_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// writeTrace writes a synthetic trace directory: per rank its calls, after
// the world and self communicators and the extra ones given.
func writeTrace(t *testing.T, ranks [][]trace.Call, comms ...*trace.Comm) *trace.Dir {
	t.Helper()
	return writeTraceLib(t, "", ranks, comms...)
}

// writeTraceLib is writeTrace with the MPI library lib in the headers.
func writeTraceLib(t *testing.T, lib string, ranks [][]trace.Call, comms ...*trace.Comm) *trace.Dir {
	t.Helper()
	dir := t.TempDir()
	n := len(ranks)
	world := &trace.Comm{ID: 0}
	for r := 0; r < n; r++ {
		world.Members = append(world.Members, int32(r))
	}
	for r, calls := range ranks {
		f, err := os.Create(filepath.Join(dir, trace.FileName(r)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := trace.NewWriter(f, trace.Header{Rank: r, Size: n, T0: 1000, Library: lib})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range append([]*trace.Comm{world, {ID: 1, Members: []int32{int32(r)}}}, comms...) {
			if c.ID >= 2 && !contains(c.Members, int32(r)) {
				continue
			}
			if err := w.WriteComm(c); err != nil {
				t.Fatal(err)
			}
		}
		for i := range calls {
			if err := w.WriteCall(&calls[i]); err != nil {
				t.Fatalf("rank %d call %d: %v", r, i, err)
			}
		}
		if err := w.Close(trace.EndFinalize); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func contains(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func call(f trace.Func, start, end int64, set func(c *trace.Call)) trace.Call {
	c := trace.NewCall(f, start, end)
	if set != nil {
		set(&c)
	}
	return c
}

func convert(t *testing.T, d *trace.Dir, opt trace.ConvertOptions) (*goal.Schedule, *trace.ConvertStats) {
	t.Helper()
	s := goal.NewSchedule(d.NumRanks())
	st, err := trace.Convert(d, opt, s.AppendRank)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

// sameBlock compares rank r of s with the block built by want.
func sameBlock(t *testing.T, s *goal.Schedule, r int, want func(b *goal.Builder)) {
	t.Helper()
	var got goal.RankBlock
	s.Block(r, &got)
	var b goal.Builder
	b.Reset(int32(r))
	want(&b)
	w := b.Block()
	if !reflect.DeepEqual(got.Ops, w.Ops) {
		t.Fatalf("rank %d ops:\n got  %+v\n want %+v", r, got.Ops, w.Ops)
	}
	if !reflect.DeepEqual(got.DepStart, w.DepStart) || !reflect.DeepEqual(got.Deps, w.Deps) {
		t.Fatalf("rank %d edges:\n got  %v %v\n want %v %v", r, got.DepStart, got.Deps, w.DepStart, w.Deps)
	}
}

// TestConvertPointToPoint: nonblocking calls, a wildcard receive resolved
// from its completion, computation between calls without the tracer's
// flush time, and the dependencies that order it all.
func TestConvertPointToPoint(t *testing.T) {
	d := writeTrace(t, [][]trace.Call{
		{
			call(trace.FuncInit, 900, 1000, nil),
			call(trace.FuncIsend, 1500, 1600, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, 1, 5, 800, trace.Datatype{Size: 8, Extent: 8}, 1
			}),
			call(trace.FuncIrecv, 1700, 1750, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, trace.AnySource, trace.AnyTag, 4096, trace.Datatype{Size: 1, Extent: 1}, 2
			}),
			call(trace.FuncFlush, 2000, 2300, nil),
			call(trace.FuncWaitall, 3000, 5000, func(c *trace.Call) {
				c.Done = []trace.Completion{{Request: 1, Kind: trace.ReqSend}, {Request: 2, Kind: trace.ReqRecv, Peer: 1, Tag: 6, Bytes: 100}}
			}),
			call(trace.FuncFinalize, 6000, 6100, nil),
		},
		{
			call(trace.FuncInit, 900, 1000, nil),
			call(trace.FuncRecv, 1200, 1400, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 0, 5, 800, trace.Datatype{Size: 8, Extent: 8}
			}),
			call(trace.FuncSend, 1450, 1500, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 0, 6, 100, trace.Datatype{Size: 1, Extent: 1}
			}),
			call(trace.FuncFinalize, 1600, 1700, nil),
		},
	})
	s, st := convert(t, d, trace.ConvertOptions{})
	sameBlock(t, s, 0, func(b *goal.Builder) {
		c0 := b.Calc(500, 0) // 1000..1500
		snd := b.Send(800, 1, 5, 0, 0)
		b.Requires(snd, c0)
		c1 := b.Calc(100, 0) // 1600..1700, after the isend started
		b.Irequires(c1, snd)
		rcv := b.Recv(100, 1, 6, 0, 0) // filled in from the completion
		b.Requires(rcv, c1)
		c2 := b.Calc(950, 0) // 1750..3000 less 300 ns of flush
		b.Irequires(c2, rcv)
		c3 := b.Calc(1000, 0) // 5000..6000, after the Waitall
		b.Requires(c3, c2)
		b.Requires(c3, snd)
		b.Requires(c3, rcv)
	})
	sameBlock(t, s, 1, func(b *goal.Builder) {
		c0 := b.Calc(200, 0)
		rcv := b.Recv(800, 0, 5, 0, 0)
		b.Requires(rcv, c0)
		c1 := b.Calc(50, 0)
		b.Requires(c1, rcv)
		snd := b.Send(100, 0, 6, 0, 0)
		b.Requires(snd, c1)
		c2 := b.Calc(100, 0)
		b.Requires(c2, snd)
	})
	if st.Calls != 9 || st.Calcs != 7 || st.ComputeNs != 500+100+950+1000+200+50+100 {
		t.Fatalf("stats %+v", st)
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
	// Twice as fast CPUs: every calc halves.
	half, _ := convert(t, d, trace.ConvertOptions{ComputeScale: 0.5})
	for g, op := range s.Ops {
		if op.Kind == goal.Calc && half.Ops[g].Size != (op.Size+1)/2 && half.Ops[g].Size != op.Size/2 {
			t.Fatalf("op %d: %d ns scaled by 0.5 gave %d", g, op.Size, half.Ops[g].Size)
		}
	}
}

// TestConvertCollectives: a broadcast on a sub-communicator whose ranks
// are in reverse world order, then an allreduce on the world; each call
// gets its own tag and the algorithm's messages.
func TestConvertCollectives(t *testing.T) {
	sub := &trace.Comm{ID: 2, Members: []int32{3, 1}}
	var ranks [][]trace.Call
	for r := 0; r < 4; r++ {
		calls := []trace.Call{call(trace.FuncInit, 900, 1000, nil)}
		if r == 1 || r == 3 {
			calls = append(calls, call(trace.FuncBcast, 2000, 2100, func(c *trace.Call) {
				c.Comm, c.Bytes, c.Root, c.Type = 2, 64, 0, trace.Datatype{Size: 4, Extent: 4}
			}))
		}
		calls = append(calls,
			call(trace.FuncAllreduce, 3000, 3100, func(c *trace.Call) {
				c.Comm, c.Bytes, c.Type = 0, 8, trace.Datatype{Size: 8, Extent: 8}
			}),
			call(trace.FuncFinalize, 4000, 4100, nil))
		ranks = append(ranks, calls)
	}
	d := writeTrace(t, ranks, sub)
	s, st := convert(t, d, trace.ConvertOptions{CollAlgo: map[collective.Op]string{collective.Allreduce: "recdoub"}})
	if st.Collectives != 6 {
		t.Fatalf("%d collectives converted, want 6", st.Collectives)
	}
	bcastTag, arTag := uint32(1<<31|2<<16), uint32(1<<31)
	// World rank 3 is the sub-communicator's root: one send to world rank 1.
	var msgs []goal.Op
	for _, op := range s.RankOps(3) {
		if op.Kind != goal.Calc {
			msgs = append(msgs, op)
		}
	}
	want := []goal.Op{
		{Kind: goal.Send, Size: 64, Peer: 1, Tag: bcastTag},
		{Kind: goal.Send, Size: 8, Peer: 2, Tag: arTag}, {Kind: goal.Recv, Size: 8, Peer: 2, Tag: arTag},
		{Kind: goal.Send, Size: 8, Peer: 1, Tag: arTag}, {Kind: goal.Recv, Size: 8, Peer: 1, Tag: arTag},
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Fatalf("rank 3 messages:\n got  %+v\n want %+v", msgs, want)
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}

// TestConvertUnsupported: calls the converter cannot model are listed
// with their counts, never dropped; --unsupported=calc counts their time
// as computation.
func TestConvertUnsupported(t *testing.T) {
	d := writeTrace(t, [][]trace.Call{{
		call(trace.FuncInit, 900, 1000, nil),
		call(trace.FuncWait, 2000, 2500, func(c *trace.Call) {
			c.Done = []trace.Completion{{Request: 0, Kind: trace.ReqUnknown}} // a persistent request
		}),
		call(trace.FuncAbort, 3000, 3100, func(c *trace.Call) { c.Comm = 0 }),
	}})
	s := goal.NewSchedule(1)
	_, err := trace.Convert(d, trace.ConvertOptions{}, s.AppendRank)
	if !errors.Is(err, trace.ErrUnsupported) || !strings.Contains(err.Error(), "MPI_Abort x1") ||
		!strings.Contains(err.Error(), "completion of an untraced request (persistent or MPI_Mprobe) x1") {
		t.Fatalf("error %v", err)
	}
	s2, st := convert(t, d, trace.ConvertOptions{Unsupported: "calc"})
	if st.Unsupported["MPI_Abort"] != 1 {
		t.Fatalf("stats %+v", st)
	}
	// 1000..2000 is computation; the Wait has nothing traced to wait for;
	// the Abort's time would join the next computation gap, but no call
	// follows it: one calc.
	if n := len(s2.RankOps(0)); n != 1 {
		t.Fatalf("%d ops: %+v", n, s2.RankOps(0))
	}
}

// TestConvertCancel: a cancelled receive becomes a no-op.
func TestConvertCancel(t *testing.T) {
	d := writeTrace(t, [][]trace.Call{{
		call(trace.FuncInit, 900, 1000, nil),
		call(trace.FuncIrecv, 1000, 1010, func(c *trace.Call) {
			c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = 0, 0, 3, 10, trace.Datatype{Size: 1, Extent: 1}, 1
		}),
		call(trace.FuncCancel, 1010, 1020, func(c *trace.Call) { c.Request = 1 }),
		call(trace.FuncWait, 1020, 1030, func(c *trace.Call) {
			c.Done = []trace.Completion{{Request: 1, Kind: trace.ReqRecv, Cancelled: true}}
		}),
		call(trace.FuncFinalize, 1030, 1040, nil),
	}})
	s, _ := convert(t, d, trace.ConvertOptions{})
	for _, op := range s.RankOps(0) {
		if op.Kind == goal.Recv {
			t.Fatalf("cancelled receive kept: %+v", s.RankOps(0))
		}
	}
	if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}
