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

// commTrace is a 4-rank trace where every rank makes the call mk(r) at
// t=2000..2500, between computations.
func commTrace(t *testing.T, mk func(r int) []trace.Call, comms ...*trace.Comm) *trace.Dir {
	t.Helper()
	var ranks [][]trace.Call
	for r := range 4 {
		ranks = append(ranks, world(mk(r)...))
	}
	return writeTrace(t, ranks, comms...)
}

func commNew(f trace.Func, parent, newComm int32) trace.Call {
	return call(f, 2000, 2500, func(c *trace.Call) { c.Comm, c.NewComm = parent, newComm })
}

// TestConvertCommCreation: a communicator's creation is the communication
// the library does over the parent: MPI_Comm_split an allgather of 8 bytes
// (color and key) and the context-id allreduce of 260 bytes, the same ops
// as those two collectives called by the program; MPI_Comm_dup the
// allreduce alone; MPI_Comm_free nothing.
func TestConvertCommCreation(t *testing.T) {
	halves := []*trace.Comm{{ID: 2, Members: []int32{0, 2}}, {ID: 3, Members: []int32{1, 3}}}
	allgather := call(trace.FuncAllgather, 2000, 2250, func(c *trace.Call) { c.Comm, c.Bytes, c.Type = 0, 8, trace.Datatype{Size: 4, Extent: 4} })
	allreduce := call(trace.FuncAllreduce, 2250, 2500, func(c *trace.Call) { c.Comm, c.Bytes, c.Type = 0, 260, trace.Datatype{Size: 4, Extent: 4} })
	ctxAllreduce := allreduce
	ctxAllreduce.Start = 2000
	free := call(trace.FuncCommFree, 3000, 3100, func(c *trace.Call) { c.Comm = 2 })
	tests := []struct {
		name  string
		calls func(r int) []trace.Call
		same  func(r int) []trace.Call // the collectives it is modelled as
		comms []*trace.Comm
		msgs  []goal.Op // rank 0's messages
	}{
		{
			name:  "MPI_Comm_split",
			calls: func(r int) []trace.Call { return []trace.Call{commNew(trace.FuncCommSplit, 0, int32(2+r%2))} },
			same:  func(int) []trace.Call { return []trace.Call{allgather, allreduce} },
			comms: halves,
			// MPICH's recursive doubling for both at 4 ranks: the
			// allgather doubles its block each round.
			msgs: []goal.Op{
				{Kind: goal.Send, Size: 8, Peer: 1, Tag: 1 << 31}, {Kind: goal.Recv, Size: 8, Peer: 1, Tag: 1 << 31},
				{Kind: goal.Send, Size: 16, Peer: 2, Tag: 1 << 31}, {Kind: goal.Recv, Size: 16, Peer: 2, Tag: 1 << 31},
				{Kind: goal.Send, Size: 260, Peer: 1, Tag: 1<<31 | 1}, {Kind: goal.Recv, Size: 260, Peer: 1, Tag: 1<<31 | 1},
				{Kind: goal.Send, Size: 260, Peer: 2, Tag: 1<<31 | 1}, {Kind: goal.Recv, Size: 260, Peer: 2, Tag: 1<<31 | 1},
			},
		},
		{
			name: "MPI_Cart_sub and MPI_Comm_free",
			calls: func(r int) []trace.Call {
				f := free
				f.Comm = int32(2 + r%2)
				return []trace.Call{commNew(trace.FuncCartSub, 0, int32(2+r%2)), f}
			},
			same: func(r int) []trace.Call {
				f := free
				f.Comm = int32(2 + r%2)
				return []trace.Call{allgather, allreduce, f}
			},
			comms: halves,
		},
		{
			name:  "MPI_Comm_dup",
			calls: func(r int) []trace.Call { return []trace.Call{commNew(trace.FuncCommDup, 0, 2)} },
			same:  func(int) []trace.Call { return []trace.Call{ctxAllreduce} },
			comms: []*trace.Comm{{ID: 2, Members: []int32{0, 1, 2, 3}}},
		},
		{
			name: "MPI_Cart_create of part of the parent",
			calls: func(r int) []trace.Call {
				if r == 3 {
					return []trace.Call{commNew(trace.FuncCartCreate, 0, trace.None)} // MPI_COMM_NULL
				}
				return []trace.Call{commNew(trace.FuncCartCreate, 0, 2)}
			},
			same:  func(int) []trace.Call { return []trace.Call{allgather, allreduce} },
			comms: []*trace.Comm{{ID: 2, Members: []int32{0, 1, 2}}},
		},
		{
			name:  "MPI_Cart_create of the whole parent",
			calls: func(r int) []trace.Call { return []trace.Call{commNew(trace.FuncCartCreate, 0, 2)} },
			same:  func(int) []trace.Call { return []trace.Call{ctxAllreduce} },
			comms: []*trace.Comm{{ID: 2, Members: []int32{0, 1, 2, 3}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, st := convert(t, commTrace(t, tc.calls, tc.comms...), trace.ConvertOptions{})
			want, _ := convert(t, commTrace(t, tc.same, tc.comms...), trace.ConvertOptions{})
			if len(st.Unsupported) > 0 {
				t.Fatalf("unsupported %v", st.Unsupported)
			}
			for r := range 4 {
				var got, w goal.RankBlock
				s.Block(r, &got)
				want.Block(r, &w)
				if !reflect.DeepEqual(got.Ops, w.Ops) || !reflect.DeepEqual(got.Deps, w.Deps) || !reflect.DeepEqual(got.DepStart, w.DepStart) {
					t.Fatalf("rank %d:\n got  %+v %v\n want %+v %v", r, got.Ops, got.Deps, w.Ops, w.Deps)
				}
			}
			if tc.msgs != nil {
				if got := messages(s, 0); !reflect.DeepEqual(got, tc.msgs) {
					t.Errorf("rank 0 messages:\n got  %+v\n want %+v", got, tc.msgs)
				}
			}
			if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConvertCommCreationUnknownParent: a creation whose parent the trace
// does not give (Comm None, as importers of formats without it write)
// keeps its measured time as a calc; one whose parent was itself created
// by an untraced call is unsupported, like the collectives on it.
func TestConvertCommCreationUnknownParent(t *testing.T) {
	d := commTrace(t, func(int) []trace.Call { return []trace.Call{commNew(trace.FuncCommSplit, trace.None, trace.None)} })
	s, st := convert(t, d, trace.ConvertOptions{})
	if len(st.Unsupported) > 0 || len(messages(s, 0)) != 0 {
		t.Fatalf("unsupported %v, messages %+v", st.Unsupported, messages(s, 0))
	}
	// Init ends at 1000: 1000 ns of computation, the 500 ns of the split,
	// the computation until MPI_Finalize.
	if ops := s.RankOps(0); len(ops) != 3 || ops[0].Size != 1000 || ops[1].Size != 500 {
		t.Fatalf("rank 0: %+v", ops)
	}
	local := &trace.Comm{ID: 0x40000000, Local: true, Members: []int32{0, 1, 2, 3}}
	d = commTrace(t, func(int) []trace.Call { return []trace.Call{commNew(trace.FuncCommDup, local.ID, trace.None)} }, local)
	_, err := trace.Convert(d, trace.ConvertOptions{}, goal.NewSchedule(4).AppendRank)
	if !errors.Is(err, trace.ErrUnsupported) || !strings.Contains(err.Error(), "MPI_Comm_dup (communicator created by an untraced call) x4") {
		t.Fatalf("error %v", err)
	}
}

// TestConvertCommCreationOpenMPI: under Open MPI's rules the context id
// costs three allreduces of one int (ompi_comm_nextcid's candidate and
// flag, ompi_comm_activate), after the split's allgather of 8 bytes: the
// same ops as the program calling those collectives.
func TestConvertCommCreationOpenMPI(t *testing.T) {
	const lib = "Open MPI v4.1.4, package: Debian OpenMPI"
	comms := []*trace.Comm{{ID: 2, Members: []int32{0, 2}}, {ID: 3, Members: []int32{1, 3}}}
	coll := func(f trace.Func, start int64, bytes int64) trace.Call {
		return call(f, start, start+100, func(c *trace.Call) { c.Comm, c.Bytes, c.Type = 0, bytes, trace.Datatype{Size: 4, Extent: 4} })
	}
	var split, same [][]trace.Call
	for r := range 4 {
		split = append(split, world(commNew(trace.FuncCommSplit, 0, int32(2+r%2))))
		same = append(same, world(coll(trace.FuncAllgather, 2000, 8), coll(trace.FuncAllreduce, 2100, 4), coll(trace.FuncAllreduce, 2200, 4), coll(trace.FuncAllreduce, 2300, 4)))
	}
	s, st := convert(t, writeTraceLib(t, lib, split, comms...), trace.ConvertOptions{})
	want, _ := convert(t, writeTraceLib(t, lib, same, comms...), trace.ConvertOptions{})
	if st.CollRules != "openmpi" {
		t.Fatalf("rules %s", st.CollRules)
	}
	for r := range 4 {
		if got, w := messages(s, r), messages(want, r); !reflect.DeepEqual(got, w) {
			t.Errorf("rank %d messages:\n got  %+v\n want %+v", r, got, w)
		}
	}
}
