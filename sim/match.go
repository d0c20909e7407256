package sim

import (
	"fmt"
	"slices"

	"github.com/gopsim/gopsim/goal"
)

// This file holds matchQueue, the store behind the posted-receive queue and
// the unexpected-message queue of every rank.
//
// An entry is (rank, src, tag, op). A query (rank, src, tag) matches the
// oldest entry of that rank whose source and tag match, where
// goal.AnySource as a source and goal.AnyTag as a tag, on either side, match
// anything (docs/model.md, "Matching"). The matched entry is removed.
//
// Design. Most ranks hold a few entries at a time, and the ranks that an
// event touches next are scattered over memory, so what a query costs is
// the cache lines it touches. Each rank therefore has one of two forms:
//
//   - linear (the usual one): its entries, 12 bytes each, in queue order
//     in a segment of a shared arena. A query scans the segment from the
//     front and takes the first match; removal closes the gap. A segment
//     holds 4, 8, 16, 32 or 64 entries (classes 0 to 4) and moves to the
//     next class when full; a segment given up goes on its class's free
//     list.
//   - hashed, for a rank that needs more than mqLinearMax entries, so that
//     a linear all-to-all does not go quadratic. Its entries then live in a
//     pool of nodes, each on two lists: the FIFO of its key (rank, src,
//     tag), a circular singly linked list whose tail an open-addressing
//     hash table (power-of-two size, linear probing, backward-shift
//     deletion, at most half full) maps the key to; and the list of all
//     entries of the rank in queue order (seq), doubly linked. A query
//     without wildcards looks up its own key and, when the rank has entries
//     with wildcards, the three wildcard keys it would match, and takes the
//     oldest head; a query with a wildcard walks the rank's list. A hashed
//     rank that empties becomes linear again.
//
// A rank's form and where its entries are is its 8-byte mqHead, which the
// caller keeps (the engine keeps it next to the rank's resource clocks, in
// the cache line an event at that rank touches anyway) and passes to every
// call. Nothing here allocates once the arena, the pool and the table have
// grown to the workload's peak; there are no maps, interfaces or closures
// on these paths.
type matchQueue struct {
	n int // entries

	arena []mqEntry
	free  [mqClasses]int32 // first free segment of each class, offset+1; 0 for none

	// hashed ranks
	lists    []mqList // lists[0] is unused
	freeList int32    // first free list (linked through head)
	nodes    []mqNode // nodes[0] is unused: link 0 is nil
	freeNode int32    // first node of the free list (linked through next)
	seq      uint64   // seq of the next hashed entry
	slots    []mqSlot // len(slots) is a power of two; tail == 0 marks a free slot
	shift    uint8    // 64 - log2(len(slots)): a hash's top bits index the table
	keys     int      // used slots
}

const (
	mqClasses   = 5
	mqMinCap    = 4
	mqLinearMax = mqMinCap << (mqClasses - 1) // entries a linear rank holds
	mqHashed    = 0xffff                      // mqHead.cap of a hashed rank
	mqMinSlots  = 64
)

// mqHead is the state of one rank.
type mqHead struct {
	// linear: off is the arena offset of the segment, n the entries.
	// hashed: off indexes lists, and n and cap are mqHashed.
	off int32
	n   uint16
	cap uint16 // capacity of the segment (0: none), or mqHashed
}

// mqList is the list of a hashed rank's entries, in queue order.
type mqList struct {
	head, tail int32 // first and last node
	wild       int32 // entries with a wildcard
}

// mqEntry is an entry of a linear rank.
type mqEntry struct {
	src int32
	tag uint32
	op  int32
}

// mqNode is an entry of a hashed rank.
type mqNode struct {
	seq          uint64
	src          int32
	tag          uint32
	op           int32
	next         int32 // next node of the key's circular FIFO, or next free node
	rprev, rnext int32 // neighbours in the rank's list
}

// mqSlot is a hash table slot: a key and the newest of its entries, whose
// next is the oldest.
type mqSlot struct {
	rank, src int32
	tag       uint32
	tail      int32
}

// matchEntry is an entry as the queue reports it.
type matchEntry struct {
	rank, src int32
	tag       uint32
	op        int32
}

func mqClassCap(c uint8) int { return mqMinCap << c }

// mqClassFor returns the smallest class that holds n <= mqLinearMax entries.
func mqClassFor(n int) uint8 {
	c := uint8(0)
	for mqClassCap(c) < n {
		c++
	}
	return c
}

// init empties q. The heads of its ranks must be zero.
func (q *matchQueue) init() {
	*q = matchQueue{}
}

// ceilLog2 returns the smallest k with 1<<k >= n.
func ceilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// len returns the number of entries.
func (q *matchQueue) len() int { return q.n }

func isWild(src int32, tag uint32) bool {
	return src == goal.AnySource || tag == goal.AnyTag
}

// matches reports whether an entry (src, tag) matches a query (qsrc, qtag).
func matches(src int32, tag uint32, qsrc int32, qtag uint32) bool {
	return (src == qsrc || src == goal.AnySource || qsrc == goal.AnySource) &&
		(tag == qtag || tag == goal.AnyTag || qtag == goal.AnyTag)
}

// allocSeg returns the offset of a free segment of class c.
func (q *matchQueue) allocSeg(c uint8) int32 {
	if f := q.free[c]; f != 0 {
		q.free[c] = q.arena[f-1].op
		return f - 1
	}
	return q.grab(mqClassCap(c))
}

// grab returns the offset of size new entries at the end of the arena.
func (q *matchQueue) grab(size int) int32 {
	off := len(q.arena)
	if off+size > cap(q.arena) {
		q.arena = slices.Grow(q.arena, max(size, off)) // double
	}
	q.arena = q.arena[:off+size]
	return int32(off)
}

// freeSeg puts the segment of capacity size at off on its class's free
// list.
func (q *matchQueue) freeSeg(off int32, size int) {
	c := mqClassFor(size)
	q.arena[off].op = q.free[c]
	q.free[c] = off + 1
}

// push appends entry (src, tag, op) to rank, whose head is h.
func (q *matchQueue) push(h *mqHead, rank, src int32, tag uint32, op int32) {
	q.n++
	if h.n < h.cap { // never for a hashed rank: n is mqHashed too
		q.arena[h.off+int32(h.n)] = mqEntry{src, tag, op}
		h.n++
		return
	}
	q.pushSlow(rank, h, src, tag, op)
}

// pushSlow is push to a rank whose segment is full or missing, or that is
// hashed.
func (q *matchQueue) pushSlow(rank int32, h *mqHead, src int32, tag uint32, op int32) {
	switch {
	case h.cap == mqHashed:
	case h.cap == 0:
		h.off, h.cap, h.n = q.allocSeg(0), mqMinCap, 0
	case h.cap < mqLinearMax:
		c := mqClassFor(int(h.cap) + 1)
		off := q.allocSeg(c)
		copy(q.arena[off:], q.arena[h.off:h.off+int32(h.n)])
		q.freeSeg(h.off, int(h.cap))
		h.off, h.cap = off, uint16(mqClassCap(c))
	default:
		// Full at the largest size: hash the rank.
		off, n, size := h.off, int32(h.n), int(h.cap)
		*h = mqHead{off: q.newList(), n: mqHashed, cap: mqHashed}
		for _, e := range q.arena[off : off+n] {
			q.hashPush(rank, &q.lists[h.off], e.src, e.tag, e.op)
		}
		q.freeSeg(off, size)
	}
	if h.cap == mqHashed {
		q.hashPush(rank, &q.lists[h.off], src, tag, op)
		return
	}
	q.arena[h.off+int32(h.n)] = mqEntry{src, tag, op}
	h.n++
}

// newList returns the index of an empty list for a rank being hashed.
func (q *matchQueue) newList() int32 {
	if i := q.freeList; i != 0 {
		q.freeList = q.lists[i].head
		q.lists[i] = mqList{}
		return i
	}
	if len(q.lists) == 0 {
		q.lists = append(q.lists, mqList{})
	}
	q.lists = append(q.lists, mqList{})
	return int32(len(q.lists) - 1)
}

// take removes and returns the entry of rank, whose head is h, that a
// query from src with tag matches: the oldest whose source and tag match,
// wildcards on either side matching anything. ok is false if there is
// none.
func (q *matchQueue) take(h *mqHead, rank, src int32, tag uint32) (e matchEntry, ok bool) {
	if h.cap != mqHashed {
		seg := q.arena[h.off : h.off+int32(h.n)]
		for i := range seg {
			x := seg[i]
			if matches(x.src, x.tag, src, tag) {
				copy(seg[i:], seg[i+1:])
				h.n--
				q.n--
				return matchEntry{rank: rank, src: x.src, tag: x.tag, op: x.op}, true
			}
		}
		return e, false
	}
	e, ok = q.hashTake(rank, &q.lists[h.off], src, tag)
	if ok && q.lists[h.off].head == 0 { // empty: linear again
		q.lists[h.off].head = q.freeList
		q.freeList = h.off
		*h = mqHead{}
	}
	return e, ok
}

// slotOf returns the home slot of key (rank, src, tag).
func (q *matchQueue) slotOf(rank, src int32, tag uint32) int {
	x := (uint64(uint32(rank))<<32 | uint64(uint32(src))) * 0x9e3779b97f4a7c15
	x = (x ^ uint64(tag)) * 0xbf58476d1ce4e5b9
	return int(x >> q.shift)
}

// find returns the slot of key (rank, src, tag), or -1 if it has no entries.
func (q *matchQueue) find(rank, src int32, tag uint32) int {
	if q.keys == 0 {
		return -1
	}
	mask := len(q.slots) - 1
	for i := q.slotOf(rank, src, tag); ; i = (i + 1) & mask {
		s := &q.slots[i]
		if s.tail == 0 {
			return -1
		}
		if s.rank == rank && s.src == src && s.tag == tag {
			return i
		}
	}
}

// hashPush appends entry (src, tag, op) to hashed rank with list h.
func (q *matchQueue) hashPush(rank int32, h *mqList, src int32, tag uint32, op int32) {
	if q.slots == nil {
		q.nodes = make([]mqNode, 1, 64)
		q.resize(mqMinSlots)
	}
	if 2*(q.keys+1) > len(q.slots) {
		q.resize(2 * len(q.slots))
	}
	n := q.freeNode
	if n != 0 {
		q.freeNode = q.nodes[n].next
	} else {
		if len(q.nodes) == cap(q.nodes) { // double: append grows big slices by 1.25
			q.nodes = slices.Grow(q.nodes, len(q.nodes))
		}
		n = int32(len(q.nodes))
		q.nodes = q.nodes[:n+1]
	}
	q.nodes[n] = mqNode{seq: q.seq, src: src, tag: tag, op: op, rprev: h.tail}
	q.seq++
	if h.tail != 0 {
		q.nodes[h.tail].rnext = n
	} else {
		h.head = n
	}
	h.tail = n
	if isWild(src, tag) {
		h.wild++
	}
	mask := len(q.slots) - 1
	for i := q.slotOf(rank, src, tag); ; i = (i + 1) & mask {
		s := &q.slots[i]
		if s.tail == 0 {
			*s = mqSlot{rank: rank, src: src, tag: tag, tail: n}
			q.nodes[n].next = n
			q.keys++
			return
		}
		if s.rank == rank && s.src == src && s.tag == tag {
			t := &q.nodes[s.tail]
			q.nodes[n].next = t.next
			t.next = n
			s.tail = n
			return
		}
	}
}

// head returns the oldest entry of slot i.
func (q *matchQueue) head(i int) int32 {
	return q.nodes[q.slots[i].tail].next
}

// older returns whichever of slots a and b (-1 for none) has the older head.
func (q *matchQueue) older(a, b int) int {
	if b < 0 {
		return a
	}
	if a < 0 || q.nodes[q.head(b)].seq < q.nodes[q.head(a)].seq {
		return b
	}
	return a
}

// hashTake is take on a hashed rank with list h.
func (q *matchQueue) hashTake(rank int32, h *mqList, src int32, tag uint32) (e matchEntry, ok bool) {
	if !isWild(src, tag) {
		best := q.find(rank, src, tag)
		if h.wild > 0 {
			best = q.older(best, q.find(rank, src, goal.AnyTag))
			best = q.older(best, q.find(rank, goal.AnySource, tag))
			best = q.older(best, q.find(rank, goal.AnySource, goal.AnyTag))
		}
		if best < 0 {
			return e, false
		}
		return q.pop(rank, h, best), true
	}
	for n := h.head; n != 0; n = q.nodes[n].rnext {
		nd := &q.nodes[n]
		if matches(nd.src, nd.tag, src, tag) {
			i := q.find(rank, nd.src, nd.tag)
			if invariants && (i < 0 || q.head(i) != n) {
				panic(fmt.Sprintf("sim: match queue: rank %d entry %d (src %d tag %d) is not the head of its key", rank, n, nd.src, nd.tag))
			}
			return q.pop(rank, h, i), true
		}
	}
	return e, false
}

// pop removes the head of slot i's FIFO, an entry of hashed rank with list
// h, and returns it.
func (q *matchQueue) pop(rank int32, h *mqList, i int) matchEntry {
	s := &q.slots[i]
	n := q.nodes[s.tail].next
	nd := &q.nodes[n]
	e := matchEntry{rank: rank, src: nd.src, tag: nd.tag, op: nd.op}
	if n == s.tail {
		q.deleteSlot(i)
	} else {
		q.nodes[s.tail].next = nd.next
	}
	if nd.rprev != 0 {
		q.nodes[nd.rprev].rnext = nd.rnext
	} else {
		h.head = nd.rnext
	}
	if nd.rnext != 0 {
		q.nodes[nd.rnext].rprev = nd.rprev
	} else {
		h.tail = nd.rprev
	}
	if isWild(e.src, e.tag) {
		h.wild--
	}
	*nd = mqNode{next: q.freeNode}
	q.freeNode = n
	q.n--
	return e
}

// deleteSlot frees slot i by backward shift: each following slot of the
// probe run that may move back to the hole does, until a free slot ends the
// run. No tombstones, so lookups never probe past deleted keys.
func (q *matchQueue) deleteSlot(i int) {
	mask := len(q.slots) - 1
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := &q.slots[j]
		if s.tail == 0 {
			break
		}
		// s may fill the hole at i if i lies cyclically in [home, j).
		if home := q.slotOf(s.rank, s.src, s.tag); (j-home)&mask >= (j-i)&mask {
			q.slots[i] = *s
			i = j
		}
	}
	q.slots[i] = mqSlot{}
	q.keys--
}

// resize moves the hash table to size slots, a larger power of two.
func (q *matchQueue) resize(size int) {
	old := q.slots
	q.slots = make([]mqSlot, size)
	q.shift = uint8(64 - ceilLog2(size))
	mask := len(q.slots) - 1
	for _, s := range old {
		if s.tail == 0 {
			continue
		}
		i := q.slotOf(s.rank, s.src, s.tag)
		for q.slots[i].tail != 0 {
			i = (i + 1) & mask
		}
		q.slots[i] = s
	}
}

// each calls f for every entry of rank, whose head is h, in queue order.
// It is for diagnostics, not for the event loop.
func (q *matchQueue) each(h *mqHead, rank int32, f func(matchEntry)) {
	if h.cap == mqHashed {
		for n := q.lists[h.off].head; n != 0; n = q.nodes[n].rnext {
			nd := &q.nodes[n]
			f(matchEntry{rank: rank, src: nd.src, tag: nd.tag, op: nd.op})
		}
		return
	}
	for _, e := range q.arena[h.off : h.off+int32(h.n)] {
		f(matchEntry{rank: rank, src: e.src, tag: e.tag, op: e.op})
	}
}
