package trace_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// opString lists rank r's ops compactly: c<ns> for a calc, s<bytes>>peer
// for a send, r<bytes><peer for a receive.
func opString(s *goal.Schedule, r int) string {
	var b strings.Builder
	for i, op := range s.RankOps(r) {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch op.Kind {
		case goal.Calc:
			fmt.Fprintf(&b, "c%d", op.Size)
		case goal.Send:
			fmt.Fprintf(&b, "s%d>%d", op.Size, op.Peer)
		default:
			fmt.Fprintf(&b, "r%d<%d", op.Size, op.Peer)
		}
	}
	return b.String()
}

var testLibraryCosts = &sim.LibraryCosts{Name: "test", FirstContactNs: 1000, CommCreateNs: 70,
	FirstCall: []sim.FirstCallCost{{Function: "MPI_Allreduce", Ns: 50}, {Function: "MPI_Comm_split", Ns: 300}, {Function: "MPI_Send", Ns: 20.4}}}

// TestConvertLibraryCosts: with the library's one-time costs, each rank
// pays the first call of a function once (MPI_Recv has no cost listed),
// the first contact with its peer once, before the messages of the call
// that makes it (here the communicator creation's allgather), and each
// communicator it creates after that creation's messages; a receive from
// MPI_ANY_SOURCE contacts no one. Without them the schedule is the usual
// one.
func TestConvertLibraryCosts(t *testing.T) {
	split := commNew(trace.FuncCommSplit, 0, 2)
	send := func(start int64) trace.Call {
		return call(trace.FuncSend, start, start+100, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, 1, 0, 8, byte1 })
	}
	recv := func(start int64, peer int32) trace.Call {
		return call(trace.FuncRecv, start, start+100, func(c *trace.Call) { c.Comm, c.Peer, c.Tag, c.Bytes, c.Type = 0, peer, 0, 8, byte1 })
	}
	allreduce := call(trace.FuncAllreduce, 5000, 5100, func(c *trace.Call) { c.Comm, c.Bytes, c.Type = 0, 8, byte1 })
	d := writeTrace(t, [][]trace.Call{
		world(split, send(3000), send(4000), allreduce),
		world(split, recv(3000, 0), recv(4000, trace.AnySource), allreduce),
	}, &trace.Comm{ID: 2, Members: []int32{0, 1}})

	plain, _ := convert(t, d, trace.ConvertOptions{})
	s, st := convert(t, d, trace.ConvertOptions{LibraryCosts: testLibraryCosts})
	for _, tc := range []struct {
		r           int
		plain, with string
	}{
		{0, "c1000 s8>1 r8<1 c0 s260>1 r260<1 c500 s8>1 c900 s8>1 c900 s8>1 r8<1 c84900",
			"c1000 c300 c1000 s8>1 r8<1 c0 s260>1 r260<1 c70 c500 c20 s8>1 c900 s8>1 c900 c50 s8>1 r8<1 c84900"},
		{1, "c1000 s8>0 r8<0 c0 s260>0 r260<0 c500 r8<0 c900 r8<-1 c900 s8>0 r8<0 c84900",
			"c1000 c300 c1000 s8>0 r8<0 c0 s260>0 r260<0 c70 c500 r8<0 c900 r8<-1 c900 c50 s8>0 r8<0 c84900"},
	} {
		if got := opString(plain, tc.r); got != tc.plain {
			t.Errorf("rank %d without costs:\n got  %s\n want %s", tc.r, got, tc.plain)
		}
		if got := opString(s, tc.r); got != tc.with {
			t.Errorf("rank %d with costs:\n got  %s\n want %s", tc.r, got, tc.with)
		}
	}
	// 300+1000+70+50 on both ranks, and MPI_Send's 20.4 rounded on rank 0.
	if st.LibraryNs != 2*1420+20 || st.LibraryFirstCalls != 5 || st.LibraryContacts != 2 || st.LibraryCommCreates != 2 {
		t.Errorf("stats: %d ns, %d first calls, %d contacts, %d creations", st.LibraryNs, st.LibraryFirstCalls, st.LibraryContacts, st.LibraryCommCreates)
	}
	// The costs are on the ranks' paths: each rank ends later by what it
	// paid, as neither waits for the other longer than before.
	a, err := sim.Run(plain, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if b.MaxTime <= a.MaxTime || b.MaxTime > a.MaxTime+1440 {
		t.Errorf("finish %d ns without costs, %d with: want later by at most 1440", a.MaxTime, b.MaxTime)
	}
}

// TestConvertLibraryCostsContactOnce: a peer contacted by a collective is
// not charged again by a later point-to-point call, and a rank charges
// one contact per peer of the collective.
func TestConvertLibraryCostsContactOnce(t *testing.T) {
	barrier := call(trace.FuncBarrier, 2000, 2100, func(c *trace.Call) { c.Comm = 0 })
	var ranks [][]trace.Call
	for r := range 4 {
		peer := int32(r ^ 1)
		ranks = append(ranks, world(barrier, call(trace.FuncSendrecv, 3000, 3100, func(c *trace.Call) {
			c.Comm, c.Peer, c.RecvPeer, c.Tag, c.RecvTag, c.Bytes, c.RecvBytes, c.Type = 0, peer, peer, 0, 0, 8, 8, byte1
		})))
	}
	_, st := convert(t, writeTrace(t, ranks), trace.ConvertOptions{LibraryCosts: &sim.LibraryCosts{FirstContactNs: 10}})
	// MPICH's dissemination barrier at 4 ranks: rank r sends to r+1 and
	// r+2 and receives from r-1 and r-2: 3 peers each (r+2 = r-2).
	if st.LibraryContacts != 4*3 || st.LibraryNs != 4*3*10 {
		t.Errorf("%d contacts, %d ns; want 12 and 120", st.LibraryContacts, st.LibraryNs)
	}
}

func TestConvertLibraryCostsInvalid(t *testing.T) {
	d := writeTrace(t, [][]trace.Call{world()})
	_, err := trace.Convert(d, trace.ConvertOptions{LibraryCosts: &sim.LibraryCosts{FirstContactNs: -1}}, goal.NewSchedule(1).AppendRank)
	if err == nil || !strings.Contains(err.Error(), "trace: the library's one-time costs: sim: library.first_contact_ns=-1 outside") {
		t.Errorf("error %v", err)
	}
}
