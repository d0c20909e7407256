package sim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// This file holds the two event queues of the simulator. Both pop events in
// exactly ascending (time, key) order, which is what makes a run
// deterministic: events that happen at the same nanosecond are processed in
// key order, never in an order that depends on the queue's internals.
//
// radixQueue is the fast one. It exploits the fact that simulated time never
// goes back: every event pushed has a time at or after the last popped one.
// heapQueue has no such precondition; it is the reference the radix queue is
// tested against and a fallback for workloads that are not monotone.
//
// Neither queue allocates once its slices have grown to the workload's peak
// size, and reset keeps that storage for the next run.

// event is one pending simulation event. Events are ordered by (time, key); keys are unique.
type event struct {
	time int64  // ns
	key  uint64 // tie-breaker, unique per event (the engine's: sequence number << 32 | ...)
	op   int32  // global op index
	rank int32  // rank where the event happens
}

// eventBefore reports whether a is ordered before b: by time, then by key.
func eventBefore(a, b event) bool {
	return a.time < b.time || a.time == b.time && a.key < b.key
}

// cmpKey orders events by key. It sorts the minimum bucket of a radixQueue,
// whose events all share one time.
func cmpKey(a, b event) int {
	return cmp.Compare(a.key, b.key)
}

// radixQueue is a monotone radix heap of events ordered by (time, key). Its
// zero value is an empty queue ready to use.
//
// Precondition (monotonicity): every pushed event has a time at or after the
// time of the last popped event; before the first pop (and after reset) any
// time is allowed. The queue does not check this; the tests do. A push that
// breaks it leaves the queue in an undefined order.
//
// The queue keeps last, the time of the last popped event, which is at or
// before every pending time. An event with time t lives in bucket
// bits.Len64(uint64(t ^ last)): bucket 0 holds the events at time last, and
// bucket b > 0 those whose highest bit differing from last is bit b-1. Every
// time in bucket b is smaller than every time in bucket b+1, and an event
// never changes bucket until its bucket becomes the lowest non-empty one.
// Then pop moves last up to that bucket's minimum time and redistributes it
// to lower buckets. Each event moves at most 64 times, so push and pop cost
// amortized O(1) plus the sort of events that share a time.
//
// Storage: buckets 1..64 are chains of blocks of qBlock events from a pool
// shared by all buckets: a bucket appends to its last block and takes a
// new one from the pool when that is full; a redistributed bucket returns
// its blocks but its last, which it keeps for the events to come. So the
// queue holds about as many blocks as the pending events fill, whichever
// buckets they are in, plus one partly filled block per bucket, and it
// never copies a bucket to grow it. (Buckets as growing slices held
// several times the pending set, and the arrays they outgrew stayed
// allocated until the garbage collector ran, which a run that allocates
// nothing else rarely lets it do.)
//
// Bucket 0 is a plain slice, kept sorted by key and consumed from the front
// (from head). A push at time last goes there: it is appended when its key
// is greater than every key there, as in the simulator, where keys grow
// with a sequence number, and binary-search-inserted otherwise.
type radixQueue struct {
	// lastx is the time of the last popped event XOR math.MinInt64, so that
	// the zero value means last == math.MinInt64 and accepts any time.
	lastx int64
	n     int    // number of pending events
	head  int    // b0[:head] are popped; head == 0 when b0 is empty
	mask  uint64 // bit b-1 is set when bucket b (1 <= b <= 64) is non-empty
	// min[b] is the minimum time in bucket b >= 1, math.MaxInt64 when
	// it is empty; minSet says that min has been so set (the zero value
	// has not).
	min    [65]int64
	minSet bool
	// b0 is bucket 0: b0[head:] is sorted by key, and all its events have
	// time last.
	b0 []event
	// tail[b] is the block bucket b >= 1 appends to, or nil, and
	// tailN[b] the events in it (up to qBlock; 0 when nil); full[b] are
	// its earlier blocks, all full, oldest first. A block is a fixed
	// array, so that adding an event stores it and a count, not a slice.
	tail  [65]*qBlk
	tailN [65]int32
	full  [65][]*qBlk
	pool  []*qBlk // free blocks
	// scratch holds the shorter run while sortKeys merges two.
	scratch []event
}

// qBlock is the number of events in a block of a radixQueue bucket (3 KiB).
const qBlock = 128

// qBlk is a block of a radixQueue bucket.
type qBlk [qBlock]event

// last returns the time of the last popped event, math.MinInt64 if none.
func (q *radixQueue) last() int64 { return q.lastx ^ math.MinInt64 }

// len returns the number of pending events.
func (q *radixQueue) len() int { return q.n }

// reset empties the queue and forgets the last popped time; it keeps the
// storage.
func (q *radixQueue) reset() {
	for b := 1; b < len(q.tail); b++ {
		q.release(b)
	}
	q.b0 = q.b0[:0]
	q.lastx, q.n, q.head, q.mask = 0, 0, 0, 0
	q.emptyMins()
}

// emptyMins sets the minimum time of every bucket to math.MaxInt64, as
// it is while the bucket is empty, so that adding an event to a bucket
// takes the minimum of two times without a branch on the bucket's state.
func (q *radixQueue) emptyMins() {
	for b := range q.min {
		q.min[b] = math.MaxInt64
	}
	q.minSet = true
}

// release empties bucket b >= 1, returning its full blocks to the pool
// and keeping its tail block.
func (q *radixQueue) release(b int) {
	q.pool = append(q.pool, q.full[b]...)
	clear(q.full[b])
	q.full[b] = q.full[b][:0]
	q.tailN[b] = 0
}

// push adds e. Precondition: e.time is at or after the time of the last
// popped event, and e.key is unique among pending events.
func (q *radixQueue) push(e event) {
	if !q.minSet {
		q.emptyMins()
	}
	q.n++
	b := bits.Len64(uint64(e.time ^ q.last()))
	if b == 0 {
		q.pushMin(e)
		return
	}
	// The same as in redistribute, written out twice for speed: as a
	// function of its own it is beyond Go's inlining budget (cost 122 of
	// 80), and a call per event moved costs more than the copy.
	q.min[b] = min(q.min[b], e.time)
	q.mask |= 1 << (b - 1)
	t, n := q.tail[b], q.tailN[b]
	if t == nil || n == qBlock {
		t, n = q.newTail(b), 0
	}
	t[n] = e
	q.tailN[b] = n + 1
}

// newTail moves bucket b's full tail block, if any, to its full blocks
// and returns a new, empty tail block from the pool. It is the rare path
// of adding to a bucket, kept out of line so that the common path stays
// small.
//
//go:noinline
func (q *radixQueue) newTail(b int) *qBlk {
	if t := q.tail[b]; t != nil {
		q.full[b] = append(q.full[b], t)
	}
	var t *qBlk
	if n := len(q.pool); n > 0 {
		t, q.pool[n-1] = q.pool[n-1], nil
		q.pool = q.pool[:n-1]
	} else {
		t = new(qBlk)
	}
	q.tail[b], q.tailN[b] = t, 0
	return t
}

// pushMin adds e, whose time is last, to bucket 0 in key order.
func (q *radixQueue) pushMin(e event) {
	b := q.b0
	if len(b) == cap(b) && q.head > 0 && q.head >= len(b)/2 {
		// Full, and at least half of it popped: slide the pending events
		// to the front rather than grow. The copy is paid for by the pops.
		b = b[:copy(b, b[q.head:])]
		q.head = 0
	}
	i := len(b)
	if i > q.head && b[i-1].key > e.key {
		// Out of order: find the first pending event with a greater key.
		lo, hi := q.head, i-1 // b[hi].key > e.key
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if b[m].key > e.key {
				hi = m
			} else {
				lo = m + 1
			}
		}
		b = append(b, event{})
		copy(b[lo+1:], b[lo:])
		b[lo] = e
	} else {
		b = append(b, e)
	}
	q.b0 = b
}

// peekTime returns the time of the event pop would return.
// Precondition: q.len() > 0.
func (q *radixQueue) peekTime() int64 {
	if len(q.b0) > 0 {
		return q.last()
	}
	return q.min[bits.TrailingZeros64(q.mask)+1]
}

// pop removes and returns the event with the smallest (time, key).
// Precondition: q.len() > 0.
func (q *radixQueue) pop() event {
	if len(q.b0) == 0 {
		q.refill()
	}
	b := q.b0
	e := b[q.head]
	q.head++
	if q.head == len(b) {
		q.b0 = b[:0]
		q.head = 0
	}
	q.n--
	return e
}

// ahead returns the event that pop will return k pops from now, if it is
// already in bucket 0 (k >= 0).
func (q *radixQueue) ahead(k int) (event, bool) {
	b := q.b0
	if i := q.head + k; i < len(b) {
		return b[i], true
	}
	return event{}, false
}

// refill moves last up to the smallest pending time and redistributes the
// lowest non-empty bucket, which holds it, so that bucket 0 holds the events
// at that time, sorted by key. Precondition: bucket 0 is empty and q.n > 0.
func (q *radixQueue) refill() {
	src := bits.TrailingZeros64(q.mask) + 1 // 65, out of range, when q.n == 0
	last := q.min[src]
	q.min[src] = math.MaxInt64
	q.lastx = last ^ math.MinInt64
	q.mask &^= 1 << (src - 1)
	b0 := q.b0
	for i, blk := range q.full[src] {
		b0 = q.redistribute(blk[:], last, b0)
		q.pool = append(q.pool, blk) // at once: the buckets below may need it
		q.full[src][i] = nil
	}
	q.full[src] = q.full[src][:0]
	if t := q.tail[src]; t != nil {
		b0 = q.redistribute(t[:q.tailN[src]], last, b0)
		q.tailN[src] = 0 // the block is kept: the bucket will fill again
	}
	q.b0 = q.sortKeys(b0)
}

// sortKeys sorts b by key and returns it. Redistribution appends the
// events of one bucket in the order they were pushed, so b is most often
// already sorted or two sorted runs (the events pushed directly and those
// that came down from a higher bucket); those cases cost one pass and a
// merge through a scratch copy of the shorter run, where a general sort
// of a 65,536-event bucket took a tenth of a broadcast's run.
func (q *radixQueue) sortKeys(b []event) []event {
	if len(b) < 2 {
		return b
	}
	split := 0 // start of the second run
	for i := 1; i < len(b); i++ {
		if b[i].key < b[i-1].key {
			if split > 0 {
				slices.SortFunc(b, cmpKey) // three runs or more
				return b
			}
			split = i
		}
	}
	if split == 0 {
		return b
	}
	lo, hi := b[:split], b[split:]
	if len(lo) <= len(hi) {
		// Merge from the front: the output never overtakes hi's next.
		tmp := append(q.scratch[:0], lo...)
		i, j, k := 0, split, 0
		for i < len(tmp) && j < len(b) {
			if b[j].key < tmp[i].key {
				b[k] = b[j]
				j++
			} else {
				b[k] = tmp[i]
				i++
			}
			k++
		}
		copy(b[k:], tmp[i:])
		q.scratch = tmp[:0]
		return b
	}
	// Merge from the back: the output never undercuts lo's next.
	tmp := append(q.scratch[:0], hi...)
	i, j, k := split-1, len(tmp)-1, len(b)-1
	for i >= 0 && j >= 0 {
		if b[i].key > tmp[j].key {
			b[k] = b[i]
			i--
		} else {
			b[k] = tmp[j]
			j--
		}
		k--
	}
	copy(b[:j+1], tmp[:j+1])
	q.scratch = tmp[:0]
	return b
}

// redistribute moves the events of blk, all at or after last, to bucket
// 0 (returned, grown from b0) and the buckets below their old one.
func (q *radixQueue) redistribute(blk []event, last int64, b0 []event) []event {
	for i := range blk {
		e := &blk[i]
		b := bits.Len64(uint64(e.time ^ last))
		if b == 0 {
			b0 = append(b0, *e)
			continue
		}
		q.min[b] = min(q.min[b], e.time)
		q.mask |= 1 << (b - 1)
		t, n := q.tail[b], q.tailN[b]
		if t == nil || n == qBlock {
			t, n = q.newTail(b), 0
		}
		t[n] = *e
		q.tailN[b] = n + 1
	}
	return b0
}

// heapQueue is a 4-ary min-heap of events ordered by (time, key). Its zero
// value is an empty queue ready to use. Unlike radixQueue it accepts pushes
// in any time order. It is written out rather than built on container/heap,
// which boxes every pushed value in an interface.
type heapQueue struct {
	ev []event // ev[i] is ordered at or after ev[(i-1)/4]
}

// len returns the number of pending events.
func (q *heapQueue) len() int { return len(q.ev) }

// reset empties the queue; it keeps the storage.
func (q *heapQueue) reset() { q.ev = q.ev[:0] }

// peekTime returns the time of the event pop would return.
// Precondition: q.len() > 0.
func (q *heapQueue) peekTime() int64 { return q.ev[0].time }

// push adds e. Precondition: e.key is unique among pending events.
func (q *heapQueue) push(e event) {
	q.ev = append(q.ev, e)
	h := q.ev
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !eventBefore(e, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// pop removes and returns the event with the smallest (time, key).
// Precondition: q.len() > 0.
func (q *heapQueue) pop() event {
	h := q.ev
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.ev = h
	if n == 0 {
		return top
	}
	// Sift x down from the root, moving the hole rather than swapping.
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if eventBefore(h[k], h[m]) {
				m = k
			}
		}
		if !eventBefore(h[m], x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return top
}
