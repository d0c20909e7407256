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
	key  uint64 // tie-breaker: sequence number << 1 | kind bit; unique per event
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
// Storage: when last crosses a multiple of 2^k for the first time, bucket
// k+1 briefly holds nearly every pending event. Were each bucket to keep
// its own storage, the footprint would grow by about the pending set each
// time simulated time doubles. Instead the storage of a redistributed
// bucket becomes the spare, which the next bucket to fill up takes over,
// so buckets above the span of pending times share one large array.
//
// Bucket 0 is kept sorted by key and consumed from the front (from head).
// A push at time last goes there: it is appended when its key is greater
// than every key there, as in the simulator, where keys grow with a
// sequence number, and binary-search-inserted otherwise.
type radixQueue struct {
	// lastx is the time of the last popped event XOR math.MinInt64, so that
	// the zero value means last == math.MinInt64 and accepts any time.
	lastx int64
	n     int    // number of pending events
	head  int    // buckets[0][:head] are popped; head == 0 when buckets[0] is empty
	mask  uint64 // bit b-1 is set when bucket b (1 <= b <= 64) is non-empty
	// min[b] is the minimum time in non-empty bucket b >= 1.
	min [65]int64
	// buckets[b] holds the pending events of bucket b; buckets[0][head:] is
	// sorted by key, and all its events have time last.
	buckets [65][]event
	// spare is empty storage that no bucket uses: the largest that a
	// redistributed bucket gave up. A bucket that fills up moves into it
	// rather than grow, and leaves its own storage as the spare.
	spare []event
}

// last returns the time of the last popped event, math.MinInt64 if none.
func (q *radixQueue) last() int64 { return q.lastx ^ math.MinInt64 }

// len returns the number of pending events.
func (q *radixQueue) len() int { return q.n }

// reset empties the queue and forgets the last popped time; it keeps the
// storage.
func (q *radixQueue) reset() {
	for b := range q.buckets {
		q.buckets[b] = q.buckets[b][:0]
	}
	q.lastx, q.n, q.head, q.mask = 0, 0, 0, 0
}

// push adds e. Precondition: e.time is at or after the time of the last
// popped event, and e.key is unique among pending events.
func (q *radixQueue) push(e event) {
	q.n++
	b := bits.Len64(uint64(e.time ^ q.last()))
	if b == 0 {
		q.pushMin(e)
		return
	}
	// The same as in refill, written out twice for speed.
	bit := uint64(1) << (b - 1)
	if q.mask&bit == 0 || e.time < q.min[b] {
		q.min[b] = e.time
	}
	q.mask |= bit
	bk := q.buckets[b]
	if len(bk) == cap(bk) {
		bk = q.grow(bk)
	}
	q.buckets[b] = append(bk, e)
}

// grow returns bk with room for one more event: moved into the spare
// storage if that is larger, leaving bk's storage as the spare, or else
// grown by append. It is the rare path of adding to a bucket, kept out of
// line so that the common path stays small.
//
//go:noinline
func (q *radixQueue) grow(bk []event) []event {
	if cap(q.spare) > len(bk) {
		bk, q.spare = append(q.spare, bk...), bk[:0]
		return bk
	}
	return slices.Grow(bk, 1)
}

// pushMin adds e, whose time is last, to bucket 0 in key order.
func (q *radixQueue) pushMin(e event) {
	b := q.buckets[0]
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
	q.buckets[0] = b
}

// peekTime returns the time of the event pop would return.
// Precondition: q.len() > 0.
func (q *radixQueue) peekTime() int64 {
	if len(q.buckets[0]) > 0 {
		return q.last()
	}
	return q.min[bits.TrailingZeros64(q.mask)+1]
}

// pop removes and returns the event with the smallest (time, key).
// Precondition: q.len() > 0.
func (q *radixQueue) pop() event {
	if len(q.buckets[0]) == 0 {
		q.refill()
	}
	b := q.buckets[0]
	e := b[q.head]
	q.head++
	if q.head == len(b) {
		q.buckets[0] = b[:0]
		q.head = 0
	}
	q.n--
	return e
}

// refill moves last up to the smallest pending time and redistributes the
// lowest non-empty bucket, which holds it, so that bucket 0 holds the events
// at that time, sorted by key. Precondition: bucket 0 is empty and q.n > 0.
func (q *radixQueue) refill() {
	src := bits.TrailingZeros64(q.mask) + 1 // 65, out of range, when q.n == 0
	last := q.min[src]
	q.lastx = last ^ math.MinInt64
	q.mask &^= 1 << (src - 1)
	b0 := q.buckets[0]
	for _, e := range q.buckets[src] {
		b := bits.Len64(uint64(e.time ^ last)) // < src
		if b == 0 {
			b0 = append(b0, e)
			continue
		}
		bit := uint64(1) << (b - 1)
		if q.mask&bit == 0 || e.time < q.min[b] {
			q.min[b] = e.time
		}
		q.mask |= bit
		bk := q.buckets[b]
		if len(bk) == cap(bk) {
			bk = q.grow(bk)
		}
		q.buckets[b] = append(bk, e)
	}
	if s := q.buckets[src]; cap(s) > cap(q.spare) {
		q.buckets[src], q.spare = q.spare, s[:0]
	} else {
		q.buckets[src] = s[:0]
	}
	if len(b0) > 1 {
		slices.SortFunc(b0, cmpKey)
	}
	q.buckets[0] = b0
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
