package trace_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// messages lists rank r's sends and receives in op order.
func messages(s *goal.Schedule, r int) []goal.Op {
	var out []goal.Op
	for _, op := range s.RankOps(r) {
		if op.Kind != goal.Calc {
			out = append(out, op)
		}
	}
	return out
}

var byte1 = trace.Datatype{Size: 1, Extent: 1}

func isend(start int64, comm, peer, tag int32, bytes int64, req uint64) trace.Call {
	return call(trace.FuncIsend, start, start+10, func(c *trace.Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = comm, peer, tag, bytes, byte1, req
	})
}

func irecv(start int64, comm, peer, tag int32, bytes int64, req uint64) trace.Call {
	return call(trace.FuncIrecv, start, start+10, func(c *trace.Call) {
		c.Comm, c.Peer, c.Tag, c.Bytes, c.Type, c.Request = comm, peer, tag, bytes, byte1, req
	})
}

// done is a Wait* or Test* call (with the flag set for a Test*) completing ds.
func done(f trace.Func, start int64, ds ...trace.Completion) trace.Call {
	return call(f, start, start+10, func(c *trace.Call) {
		c.Done = ds
		c.Flag = f.Class() == trace.ClassTest
	})
}

func poll(f trace.Func, start int64, n int64) trace.Call {
	return call(f, start, start+100, func(c *trace.Call) { c.Polls = n })
}

func world(calls ...trace.Call) []trace.Call {
	out := []trace.Call{call(trace.FuncInit, 900, 1000, nil)}
	out = append(out, calls...)
	return append(out, call(trace.FuncFinalize, 90000, 90010, nil))
}

// TestConvertRequests: the ways a request completes (Test, Testany and
// Waitany, after runs of failed polls; several in one Waitall;
// MPI_REQUEST_NULL; on a sub-communicator; cancelled) become the expected
// messages, with no unsupported call, and the schedule simulates.
func TestConvertRequests(t *testing.T) {
	sub := &trace.Comm{ID: 2, Members: []int32{1, 0}} // reversed: peers stay world ranks
	sendTo1 := func(tag uint32, size uint64) goal.Op { return goal.Op{Kind: goal.Send, Size: size, Peer: 1, Tag: tag} }
	recvFrom := func(peer int32, tag uint32, size uint64) goal.Op {
		return goal.Op{Kind: goal.Recv, Size: size, Peer: peer, Tag: tag}
	}
	sendTo0 := func(tag uint32, size uint64) goal.Op { return goal.Op{Kind: goal.Send, Size: size, Peer: 0, Tag: tag} }
	tests := []struct {
		name       string
		r0, r1     []trace.Call
		want0      []goal.Op
		want1      []goal.Op
		comms      []*trace.Comm
		wantCancel int // cancelled ops that became calcs on rank 0
	}{
		{
			name: "Testany and Test after failed polls",
			r0: world(irecv(1100, 0, trace.AnySource, trace.AnyTag, 64, 1), irecv(1200, 0, 1, 5, 64, 2),
				poll(trace.FuncTestany, 1300, 40),
				done(trace.FuncTestany, 1500, trace.Completion{Request: 2, Kind: trace.ReqRecv, Peer: 1, Tag: 5, Bytes: 8}),
				poll(trace.FuncTest, 1600, 3),
				done(trace.FuncTest, 1800, trace.Completion{Request: 1, Kind: trace.ReqRecv, Peer: 1, Tag: 4, Bytes: 16})),
			r1: world(isend(1100, 0, 0, 5, 8, 1), isend(1200, 0, 0, 4, 16, 2),
				done(trace.FuncWaitany, 1300, trace.Completion{Request: 2, Kind: trace.ReqSend}),
				done(trace.FuncWaitany, 1400, trace.Completion{Request: 1, Kind: trace.ReqSend})),
			want0: []goal.Op{recvFrom(1, 4, 16), recvFrom(1, 5, 8)},
			want1: []goal.Op{sendTo0(5, 8), sendTo0(4, 16)},
		},
		{
			name: "Waitall of several sends and MPI_REQUEST_NULL",
			r0: world(isend(1100, 0, 1, 1, 8, 1), isend(1200, 0, 1, 2, 8, 2),
				isend(1300, 0, trace.ProcNull, 3, 8, 0), // to MPI_PROC_NULL: MPI_REQUEST_NULL in Open MPI
				done(trace.FuncWaitall, 1400, trace.Completion{Request: 1, Kind: trace.ReqSend}, trace.Completion{Request: 2, Kind: trace.ReqSend}),
				done(trace.FuncTest, 1500)), // MPI_Test of MPI_REQUEST_NULL: flag, nothing completed
			r1: world(call(trace.FuncRecv, 1100, 1200, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 0, 1, 8, byte1
			}), call(trace.FuncRecv, 1300, 1400, func(c *trace.Call) {
				c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 0, 2, 8, byte1
			})),
			want0: []goal.Op{sendTo1(1, 8), sendTo1(2, 8)},
			want1: []goal.Op{recvFrom(0, 1, 8), recvFrom(0, 2, 8)},
		},
		{
			name:  "a wildcard receive on a sub-communicator",
			comms: []*trace.Comm{sub},
			r0: world(irecv(1100, 2, trace.AnySource, trace.AnyTag, 100, 1),
				done(trace.FuncWaitany, 1200, trace.Completion{Request: 1, Kind: trace.ReqRecv, Peer: 1, Tag: 9, Bytes: 40})),
			r1:    world(isend(1100, 2, 0, 9, 40, 1), done(trace.FuncWait, 1200, trace.Completion{Request: 1, Kind: trace.ReqSend})),
			want0: []goal.Op{recvFrom(1, 2<<24|9, 40)},
			want1: []goal.Op{sendTo0(2<<24|9, 40)},
		},
		{
			name: "cancelled receive and send",
			r0: world(irecv(1100, 0, trace.AnySource, trace.AnyTag, 100, 1), isend(1200, 0, 1, 7, 8, 2),
				call(trace.FuncCancel, 1300, 1310, func(c *trace.Call) { c.Request = 1 }),
				call(trace.FuncCancel, 1400, 1410, func(c *trace.Call) { c.Request = 2 }),
				done(trace.FuncWaitall, 1500, trace.Completion{Request: 1, Kind: trace.ReqRecv, Cancelled: true},
					trace.Completion{Request: 2, Kind: trace.ReqSend, Cancelled: true})),
			r1:         world(),
			wantCancel: 2,
		},
		{
			name: "a cancel that failed: the receive matched",
			r0: world(irecv(1100, 0, trace.AnySource, trace.AnyTag, 100, 1),
				call(trace.FuncCancel, 1300, 1310, func(c *trace.Call) { c.Request = 1 }),
				done(trace.FuncWait, 1500, trace.Completion{Request: 1, Kind: trace.ReqRecv, Peer: 1, Tag: 3, Bytes: 12})),
			r1:    world(call(trace.FuncSend, 1100, 1200, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 0, 3, 12, byte1 })),
			want0: []goal.Op{recvFrom(1, 3, 12)},
			want1: []goal.Op{sendTo0(3, 12)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := writeTrace(t, [][]trace.Call{tc.r0, tc.r1}, tc.comms...)
			s, st := convert(t, d, trace.ConvertOptions{})
			if len(st.Unsupported) > 0 {
				t.Fatalf("unsupported: %v", st.Unsupported)
			}
			if got := messages(s, 0); !reflect.DeepEqual(got, tc.want0) {
				t.Errorf("rank 0 messages:\n got  %+v\n want %+v", got, tc.want0)
			}
			if got := messages(s, 1); !reflect.DeepEqual(got, tc.want1) {
				t.Errorf("rank 1 messages:\n got  %+v\n want %+v", got, tc.want1)
			}
			zero := 0
			for _, op := range s.RankOps(0) {
				if op == (goal.Op{Kind: goal.Calc}) {
					zero++
				}
			}
			if zero != tc.wantCancel {
				t.Errorf("rank 0: %d empty calcs, want %d cancelled operations: %+v", zero, tc.wantCancel, s.RankOps(0))
			}
			if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConvertCancelUnknown: a cancelled request freed with
// MPI_Request_free, or never completed, has no MPI_Test_cancelled outcome
// in the trace: an error naming it, never a silent guess; with
// --unsupported=calc it is modelled as cancelled.
func TestConvertCancelUnknown(t *testing.T) {
	tests := []struct {
		name string
		end  []trace.Call // after the Irecv and its MPI_Cancel
		why  string
	}{
		{"freed", []trace.Call{call(trace.FuncRequestFree, 1400, 1410, func(c *trace.Call) { c.Request = 1 })},
			"MPI_Request_free of a cancelled request (whether the cancel succeeded is not traced) x1"},
		{"never completed", nil, "MPI_Cancel of a request never completed (whether the cancel succeeded is not traced) x1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := append([]trace.Call{irecv(1100, 0, trace.AnySource, trace.AnyTag, 100, 1),
				call(trace.FuncCancel, 1300, 1310, func(c *trace.Call) { c.Request = 1 })}, tc.end...)
			d := writeTrace(t, [][]trace.Call{world(calls...)})
			s := goal.NewSchedule(1)
			_, err := trace.Convert(d, trace.ConvertOptions{}, s.AppendRank)
			if !errors.Is(err, trace.ErrUnsupported) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("error %v, want %q", err, tc.why)
			}
			s, _ = convert(t, d, trace.ConvertOptions{Unsupported: "calc"})
			if m := messages(s, 0); len(m) != 0 {
				t.Fatalf("the cancelled receive kept: %+v", m)
			}
			if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
