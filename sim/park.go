package sim

// Waiting lists: ops whose resources are busy, without an event per retry.
//
// The rules (docs/model.md) put an event that finds its CPU or NIC busy
// back into the queue at the time the resource frees, keeping its key; if
// another event takes the resource first, it goes back again. A rank with
// k ready sends on one busy CPU thus costs k events at every free time,
// k²/2 in all: 1.07 billion events for a linear all-to-all of 1,024 ranks.
// The engine gives the same results without them.
//
// An event that waits for the first time goes back into the queue as the
// rules say, marked keyWaited: most events wait once, if at all. One that
// waits again joins a group: the events that need the same resources (a
// calc its CPU; a send its CPU and send NIC; a message arrival the
// receiver's CPU and receive NIC), whose free time is the latest of those
// clocks. Per group, one waiting event, the guard, is in the event queue,
// and the others are parked in the group's list, sorted by key, with no
// event at all. The guard's key is smaller than every parked key. When the
// guard starts, the parked event with the smallest key becomes the guard,
// queued at the group's free time (or now, if later); when the guard finds
// its resources busy again, it goes back into the queue alone, at the new
// free time. A waiting event with a smaller key than the guard's (queued
// long ago for a late time, it finds the resources busy only now) becomes
// the guard instead; the former guard stays queued as an ordinary event
// and parks behind the new one if it has to wait again.
//
// Why the results are those of the rules, event for event:
//
//   - Clocks never go back: a resource's new clock is a start time at or
//     after its old one plus a cost, or the larger of its old one and
//     another time, under every model.
//   - A retry that finds the resources busy changes nothing but the
//     event's time (it takes no resource), so the other events see the
//     same state whether or not it happens.
//   - An event that waits starts at the first position (time t, key k) of
//     the queue's order, from its first wait on, at which the group's free
//     time, as the events before that position left it, is at most t.
//     Retrying it at any time up to that t, or not at all until then,
//     starts it at that same position: a retry at t' < t finds the free
//     time above t' (clocks only grow) and queues it again at that free
//     time, which is at most t.
//   - The guard was queued at the free time as it then stood (or the then
//     current time), which is at most the t at which any parked event of
//     its group can start, and its key is smaller than theirs: it comes
//     out of the queue before any of them could start, and then queues the
//     next guard in the same way, or goes back itself.
//   - An arrival waits in a group only once the network has delivered its
//     message; while a congested network still holds it, it is put back
//     (or parked in the network) as before, since the network must be
//     asked again.
//
// Result.Events counts what the events did (op starts, receives posted,
// message arrivals taken) and is the same with or without waiting lists;
// Result.QueueOps counts the events taken from the event queue and from
// the waiting lists, retries included.

import (
	"cmp"
	"math"
	"slices"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/simswitch"
)

// Group classes, the top bits of a group's id.
const (
	waitCalc uint64 = iota << 32
	waitSend
	waitArrival
)

// noGuard is waitGroup.guard when the group has no guard.
const noGuard = math.MaxUint64

// waitGroup is the waiting events of one group of one rank.
type waitGroup struct {
	id    uint64 // class | cpu<<16 | nic
	guard uint64 // the guard's key, without keyWaited; noGuard if none
	next  int32  // the rank's next group, -1 if none
	// parked[head:] are the parked events, sorted by key. Events most
	// often park in key order (they leave the queue in that order), and
	// are appended; one with a smaller key than all goes before head
	// when there is room, and one in between is inserted, shifting the
	// shorter side.
	head   int32
	parked []parkedEvent
}

// parkedEvent is a parked event: its time is of no use until it is
// queued again.
type parkedEvent struct {
	key      uint64
	op, rank int32
}

// waitLists holds the groups that have waiting events, per rank a list
// (a rank has few: three with one CPU and one NIC). Groups without
// waiting events go back to a free list and keep their list's storage.
type waitLists struct {
	first  []int32 // per rank, its first group or -1; nil until an event waits
	groups []waitGroup
	free   []int32
	slab   []parkedEvent // room for new groups' lists, parkInit each
	pops   uint64        // events taken from the lists
}

// A new group's list has room for parkInit events, cut from a slab of
// parkSlab groups' worth, so that the groups a run makes (thousands at
// once on a broadcast over many ranks) cost few allocations.
const (
	parkInit = 8
	parkSlab = 512
)

// find returns the index of rank r's group id, -1 if it has none.
func (w *waitLists) find(r int32, id uint64) int32 {
	if w.first == nil {
		return -1
	}
	g := w.first[r]
	for g >= 0 && w.groups[g].id != id {
		g = w.groups[g].next
	}
	return g
}

// get returns the index of rank r's group id, making it if need be.
func (w *waitLists) get(r int32, id uint64, ranks int) int32 {
	if w.first == nil {
		w.first = make([]int32, ranks)
		for i := range w.first {
			w.first[i] = -1
		}
	}
	if g := w.find(r, id); g >= 0 {
		return g
	}
	var g int32
	if n := len(w.free); n > 0 {
		g = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		g = int32(len(w.groups))
		w.groups = append(w.groups, waitGroup{})
	}
	x := &w.groups[g]
	x.id, x.guard, x.next = id, noGuard, w.first[r]
	if cap(x.parked) == 0 {
		if len(w.slab) < parkInit {
			w.slab = make([]parkedEvent, parkInit*parkSlab)
		}
		x.parked, w.slab = w.slab[:0:parkInit], w.slab[parkInit:]
	}
	w.first[r] = g
	return g
}

// drop unlinks rank r's group g, which has no waiting event left.
func (w *waitLists) drop(r, g int32) {
	p := &w.first[r]
	for *p != g {
		p = &w.groups[*p].next
	}
	*p = w.groups[g].next
	w.free = append(w.free, g)
}

// park adds ev to group x's parked events.
func (x *waitGroup) park(ev event) {
	p := parkedEvent{ev.key, ev.op, ev.rank}
	q, h := x.parked, int(x.head)
	n := len(q)
	if n == h || q[n-1].key < p.key {
		if n == cap(q) && h > 0 && h >= n/2 {
			// Full, and at least half of it taken: slide the parked
			// events to the front rather than grow.
			q = q[:copy(q, q[h:])]
			x.head = 0
		}
		x.parked = append(q, p)
		return
	}
	i, _ := slices.BinarySearchFunc(q[h:], p.key, func(a parkedEvent, k uint64) int { return cmp.Compare(a.key, k) })
	i += h // q[i] is the first with a greater key
	if i-h <= n-i && h > 0 {
		copy(q[h-1:], q[h:i])
		q[i-1] = p
		x.head--
		return
	}
	q = append(q, parkedEvent{})
	copy(q[i+1:], q[i:])
	q[i] = p
	x.parked = q
}

// unpark removes and returns the parked event with the smallest key from
// group x, which has one.
func (x *waitGroup) unpark() parkedEvent {
	p := x.parked[x.head]
	x.head++
	if int(x.head) == len(x.parked) {
		x.parked, x.head = x.parked[:0], 0
	}
	return p
}

// waitGroupOf returns the rank and group of event ev: the receiver's
// arrival group for an arrival, else the op's calc or send group.
func (e *engine) waitGroupOf(ev event) (int32, uint64) {
	c, n := e.cpuNIC(ev.op)
	id := uint64(c)<<16 | uint64(n)
	if ev.key&keyArrival != 0 {
		return int32(ev.key & keyRank), waitArrival | id
	}
	if e.op(ev.op).kind() == goal.Send {
		return ev.rank, waitSend | id
	}
	return ev.rank, waitCalc | id
}

// freeAt returns the time group id of rank r may start its next event:
// the latest clock of its resources.
func (e *engine) freeAt(r int32, id uint64) int64 {
	c, n := int32(id>>16&0xffff), int32(id&0xffff)
	t := *e.clock(r, c)
	switch id &^ (1<<32 - 1) {
	case waitSend:
		t = max(t, *e.clock(r, e.nc+n))
	case waitArrival:
		t = max(t, *e.clock(r, e.nc+e.nn+n))
	}
	return t
}

// wait handles event ev, which found its resources busy until free. The
// first time, it goes back into the queue at free, as the rules say,
// marked keyWaited: most events wait once, and a group would cost more
// than it saves. The next time, it parks behind its group's guard, or
// goes back into the queue as the guard. With Options.putBack it always
// goes back, unmarked.
func (e *engine) wait(ev event, free int64) {
	e.waits++
	if ev.key&keyWaited == 0 || e.putBack {
		if !e.putBack {
			ev.key |= keyWaited
		}
		ev.time = free
		e.push(ev)
		return
	}
	r, id := e.waitGroupOf(ev)
	w := &e.wl
	x := &w.groups[w.get(r, id, len(e.ranks))]
	k := ev.key &^ keyWaited
	if x.guard < k {
		ev.key = k
		x.park(ev)
		return
	}
	// The guard, or an event with a smaller key, which guards from now
	// on; the former guard stays queued as an ordinary event.
	x.guard = k
	ev.time, ev.key = free, k|keyWaited
	e.push(ev)
}

// unguard runs when event ev, which waited before, has started: if it
// is its group's guard, the parked event of the group with the smallest
// key, if any, becomes the guard, queued at the group's free time or now,
// whichever is later.
func (e *engine) unguard(ev event) {
	w := &e.wl
	if w.first == nil {
		return // no event has waited twice
	}
	r := ev.rank
	if ev.key&keyArrival != 0 {
		r = int32(ev.key & keyRank)
	}
	if w.first[r] < 0 {
		return // no group at its rank
	}
	r, id := e.waitGroupOf(ev)
	g := w.find(r, id)
	if g < 0 || w.groups[g].guard != ev.key&^keyWaited {
		return // a former guard
	}
	x := &w.groups[g]
	if len(x.parked) == 0 {
		x.guard = noGuard
		w.drop(r, g)
		return
	}
	p := x.unpark()
	w.pops++
	x.guard = p.key
	e.push(event{time: max(e.now, e.freeAt(r, id)), key: p.key | keyWaited, op: p.op, rank: p.rank})
}

// waitArrival handles arrival ev, which the receiver cannot take before
// free: a message the network delivered only at at (after ev.time) goes
// back into the queue, since the network must be asked again; one that
// is delivered waits for the receiver's CPU and NIC in its group.
func (e *engine) waitArrival(ev event, at, free int64) {
	if at > ev.time {
		e.waits++
		ev.time = free
		e.push(ev)
		return
	}
	e.wait(ev, free)
}

// putBackSwitch reports whether tests outside the package asked for the
// rules' put-backs (internal/simswitch).
func putBackSwitch() bool { return simswitch.PutBack.Load() }
