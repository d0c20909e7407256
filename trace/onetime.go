package trace

import (
	"math"

	"github.com/gopsim/gopsim/goal"
)

// The MPI library's one-time costs (ConvertOptions.LibraryCosts,
// sim.LibraryCosts): what a process pays once beside its messages,
// charged as calc ops on the rank that pays them, in the rank's order:
//
//   - the first call of each MPI function: its measured extra cost, after
//     the computation before the call and before the call's own ops;
//   - the first message with each peer (a point-to-point call naming it,
//     or a message of a collective): the first-contact cost, once per
//     peer, before the ops of the call that makes the contact; a
//     receive from MPI_ANY_SOURCE names no peer and contacts none;
//   - creating a communicator: the creation cost after the messages of
//     its creation.
//
// Without LibraryCosts nothing is charged and the schedule is the one gopsim
// always wrote.

// oneTime is a rank's record of what it has paid for.
type oneTime struct {
	called    [256]bool
	contacted map[int32]bool
}

// charge emits a calc of ns (rounded to whole ns) after the rank's
// predecessors and makes it their only successor's predecessor.
func (cv *converter) charge(s *rankState, ns float64) {
	t := int64(math.Round(ns))
	if t <= 0 {
		return
	}
	id := cv.b.Calc(uint64(t), 0)
	cv.follow(s, id)
	s.preds = append(s.preds[:0], pred{op: id})
	cv.stats.LibraryNs += t
}

// firstCall charges the first call of c's function on this rank.
func (cv *converter) firstCall(s *rankState, c *Call) {
	lib := cv.opt.LibraryCosts
	if lib == nil || s.once.called[c.Func] {
		return
	}
	s.once.called[c.Func] = true
	if ns := lib.FirstCallNs(c.Func.String()); ns > 0 {
		cv.charge(s, ns)
		cv.stats.LibraryFirstCalls++
	}
}

// isNew tells whether peer (a world rank) has not been contacted by rank
// r, and records it as contacted.
func (cv *converter) isNew(s *rankState, r, peer int32) bool {
	if peer < 0 || peer == r || s.once.contacted[peer] {
		return false
	}
	if s.once.contacted == nil {
		s.once.contacted = map[int32]bool{}
	}
	s.once.contacted[peer] = true
	return true
}

// contact charges the first contact with the peers of a point-to-point
// call, before its ops.
func (cv *converter) contact(s *rankState, r int32, peers ...int32) {
	lib := cv.opt.LibraryCosts
	if lib == nil {
		return
	}
	n := 0
	for _, p := range peers {
		if cv.isNew(s, r, p) {
			n++
		}
	}
	if n > 0 {
		cv.charge(s, float64(n)*lib.FirstContactNs)
		cv.stats.LibraryContacts += int64(n)
	}
}

// contactSlot returns a 0 ns calc after the rank's predecessors for the
// first contacts of a collective whose peers are known only once it is
// emitted (contactEmitted), or -1 when there is nothing to charge: no
// LibraryCosts, or every member already contacted.
func (cv *converter) contactSlot(s *rankState, r int32, members []int32) int32 {
	lib := cv.opt.LibraryCosts
	if lib == nil || lib.FirstContactNs <= 0 {
		return -1
	}
	for _, m := range members {
		if m != r && !s.once.contacted[m] {
			id := cv.b.Calc(0, 0)
			cv.follow(s, id)
			s.preds = append(s.preds[:0], pred{op: id})
			return id
		}
	}
	return -1
}

// contactEmitted sets slot to the first-contact cost of the peers the
// ops from first on exchange messages with.
func (cv *converter) contactEmitted(s *rankState, r, slot, first int32) {
	if slot < 0 {
		return
	}
	n := 0
	for id := first; id < cv.b.NumOps(); id++ {
		if op := cv.b.Op(id); (op.Kind == goal.Send || op.Kind == goal.Recv) && op.Peer != goal.AnySource && cv.isNew(s, r, op.Peer) {
			n++
		}
	}
	if n == 0 {
		return
	}
	t := int64(math.Round(float64(n) * cv.opt.LibraryCosts.FirstContactNs))
	cv.b.Set(slot, goal.Op{Kind: goal.Calc, Size: uint64(t)})
	cv.stats.LibraryNs += t
	cv.stats.LibraryContacts += int64(n)
}
