package sim

import (
	"fmt"
	"slices"

	"github.com/gopsim/gopsim/goal"
)

// This file holds matchQueue, the store behind the posted-receive queue and
// the unexpected-message queue of every rank.
//
// An entry is (rank, src, tag, op) plus a sequence number seq that the queue
// assigns in insertion order. A query (rank, src, tag) matches the entry of
// that rank with the lowest seq whose source and tag match, where
// goal.AnySource as a source and goal.AnyTag as a tag, on either side, match
// anything (docs/model.md, "Matching"). The matched entry is removed.
//
// Design. Entries live in one pool of nodes (a slice, index 0 unused so that
// 0 is the nil link; removed nodes go on a free list). Each node is on two
// lists:
//
//   - the FIFO of its key (rank, src, tag): a circular singly linked list
//     whose tail links to its head. An open-addressing hash table
//     (power-of-two size, linear probing, backward-shift deletion, at most
//     half full, grows by doubling) maps each key with entries to the tail
//     of its FIFO, in a 16-byte slot. All entries of one key match the same
//     queries, so the head, the oldest, is the only one a query can pick.
//   - the list of all entries of its rank in seq order, doubly linked, so
//     that any entry can be unlinked in O(1).
//
// A query without wildcards looks up its own key and, when the rank has
// entries with wildcards (counted per rank), the three keys with a wildcard
// source and/or tag that it would match: at most four probes, and the oldest
// head wins. A query with a wildcard walks the rank's list from the oldest
// entry and takes the first that matches; that entry is the head of its
// key's FIFO, since an older entry with the same key would have matched
// first.
//
// Nothing here allocates once the pool and the table have grown to the
// workload's peak (reserve sizes them up front when the peak is known);
// there are no maps, interfaces or closures on these paths. An entry costs
// a 32-byte node plus 32 to 64 bytes of table per distinct key.
type matchQueue struct {
	nodes []mqNode // nodes[0] is unused: link 0 is nil
	free  int32    // first node of the free list (linked through next)
	n     int      // entries
	seq   uint64   // seq of the next entry

	slots []mqSlot // len(slots) is a power of two; tail == 0 marks a free slot
	shift uint8    // 64 - log2(len(slots)): a hash's top bits index the table
	keys  int      // used slots

	ranks []mqRank
}

// mqNode is one entry. Its rank is that of the list it is on.
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

// mqRank is the list of one rank's entries in seq order.
type mqRank struct {
	head, tail int32
	wild       int32 // entries whose src is AnySource or tag is AnyTag
}

// matchEntry is an entry as the queue reports it.
type matchEntry struct {
	rank, src int32
	tag       uint32
	op        int32
}

const mqMinSlots = 64

// init empties q and sizes it for ranks 0 .. nranks-1.
func (q *matchQueue) init(nranks int) {
	*q = matchQueue{
		nodes: make([]mqNode, 1, 64),
		slots: make([]mqSlot, mqMinSlots),
		shift: uint8(64 - ceilLog2(mqMinSlots)),
		ranks: make([]mqRank, nranks),
	}
}

// reserve makes room for n entries with distinct keys in all, so that q
// grows no further until it holds more.
func (q *matchQueue) reserve(n int) {
	if n+1 > cap(q.nodes) {
		q.nodes = slices.Grow(q.nodes, n+1-len(q.nodes))
	}
	if size := 1 << ceilLog2(2*n); size > len(q.slots) {
		q.resize(size)
	}
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

// slotOf returns the home slot of key (rank, src, tag).
func (q *matchQueue) slotOf(rank, src int32, tag uint32) int {
	x := (uint64(uint32(rank))<<32 | uint64(uint32(src))) * 0x9e3779b97f4a7c15
	x = (x ^ uint64(tag)) * 0xbf58476d1ce4e5b9
	return int(x >> q.shift)
}

// find returns the slot of key (rank, src, tag), or -1 if it has no entries.
func (q *matchQueue) find(rank, src int32, tag uint32) int {
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

// push appends entry (rank, src, tag, op) with the next seq.
func (q *matchQueue) push(rank, src int32, tag uint32, op int32) {
	if 2*(q.keys+1) > len(q.slots) {
		q.resize(2 * len(q.slots))
	}
	n := q.free
	if n != 0 {
		q.free = q.nodes[n].next
	} else {
		if len(q.nodes) == cap(q.nodes) { // double: append grows big slices by 1.25
			q.nodes = slices.Grow(q.nodes, len(q.nodes))
		}
		n = int32(len(q.nodes))
		q.nodes = q.nodes[:n+1]
	}
	r := &q.ranks[rank]
	q.nodes[n] = mqNode{seq: q.seq, src: src, tag: tag, op: op, rprev: r.tail}
	q.seq++
	q.n++
	if r.tail != 0 {
		q.nodes[r.tail].rnext = n
	} else {
		r.head = n
	}
	r.tail = n
	if isWild(src, tag) {
		r.wild++
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

// take removes and returns the entry of rank that a query from src with tag
// matches: the oldest whose source and tag match, wildcards on either side
// matching anything. ok is false if there is none.
func (q *matchQueue) take(rank, src int32, tag uint32) (e matchEntry, ok bool) {
	r := &q.ranks[rank]
	if r.head == 0 {
		return e, false
	}
	if !isWild(src, tag) {
		best := q.find(rank, src, tag)
		if r.wild > 0 {
			best = q.older(best, q.find(rank, src, goal.AnyTag))
			best = q.older(best, q.find(rank, goal.AnySource, tag))
			best = q.older(best, q.find(rank, goal.AnySource, goal.AnyTag))
		}
		if best < 0 {
			return e, false
		}
		return q.pop(rank, best), true
	}
	for n := r.head; n != 0; n = q.nodes[n].rnext {
		nd := &q.nodes[n]
		if (src == goal.AnySource || nd.src == goal.AnySource || nd.src == src) &&
			(tag == goal.AnyTag || nd.tag == goal.AnyTag || nd.tag == tag) {
			i := q.find(rank, nd.src, nd.tag)
			if invariants && (i < 0 || q.head(i) != n) {
				panic(fmt.Sprintf("sim: match queue: rank %d entry %d (src %d tag %d) is not the head of its key", rank, n, nd.src, nd.tag))
			}
			return q.pop(rank, i), true
		}
	}
	return e, false
}

// pop removes the head of slot i's FIFO, an entry of rank, and returns it.
func (q *matchQueue) pop(rank int32, i int) matchEntry {
	s := &q.slots[i]
	n := q.nodes[s.tail].next
	nd := &q.nodes[n]
	e := matchEntry{rank: rank, src: nd.src, tag: nd.tag, op: nd.op}
	if n == s.tail {
		q.deleteSlot(i)
	} else {
		q.nodes[s.tail].next = nd.next
	}
	r := &q.ranks[rank]
	if nd.rprev != 0 {
		q.nodes[nd.rprev].rnext = nd.rnext
	} else {
		r.head = nd.rnext
	}
	if nd.rnext != 0 {
		q.nodes[nd.rnext].rprev = nd.rprev
	} else {
		r.tail = nd.rprev
	}
	if isWild(e.src, e.tag) {
		r.wild--
	}
	*nd = mqNode{next: q.free}
	q.free = n
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

// each calls f for every entry, by rank, then in queue order. It is for
// diagnostics, not for the event loop.
func (q *matchQueue) each(f func(matchEntry)) {
	for r := range q.ranks {
		for n := q.ranks[r].head; n != 0; n = q.nodes[n].rnext {
			nd := &q.nodes[n]
			f(matchEntry{rank: int32(r), src: nd.src, tag: nd.tag, op: nd.op})
		}
	}
}
