package sim

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// testQueue is the method set both queues share. The interface is for the
// tests only; the engine uses the concrete types.
type testQueue interface {
	push(event)
	pop() event
	len() int
	reset()
	peekTime() int64
}

// queueKinds names the queues under test and makes an empty one of each.
var queueKinds = []struct {
	name string
	new  func() testQueue
}{
	{"radix", func() testQueue { return new(radixQueue) }},
	{"heap", func() testQueue { return new(heapQueue) }},
}

// cmpEvent orders events by (time, key), as the queues must.
func cmpEvent(a, b event) int {
	if a.time != b.time {
		if a.time < b.time {
			return -1
		}
		return 1
	}
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	return 0
}

// refQueue is the reference queue: a slice kept sorted in descending
// (time, key) order, so that the minimum is popped from the end.
type refQueue struct{ ev []event }

func (q *refQueue) push(e event) {
	i, found := slices.BinarySearchFunc(q.ev, e, func(a, b event) int { return cmpEvent(b, a) })
	if found {
		panic(fmt.Sprintf("duplicate key %d at time %d", e.key, e.time))
	}
	q.ev = slices.Insert(q.ev, i, e)
}

func (q *refQueue) pop() event {
	e := q.ev[len(q.ev)-1]
	q.ev = q.ev[:len(q.ev)-1]
	return e
}

// checkRadix checks every invariant of q and returns a description of the
// first broken one, or "".
func checkRadix(q *radixQueue) string {
	last := q.last()
	n := 0
	b0 := q.b0
	if len(b0) == 0 && q.head != 0 {
		return fmt.Sprintf("bucket 0 empty with head %d", q.head)
	}
	if len(b0) > 0 && q.head >= len(b0) {
		return fmt.Sprintf("bucket 0 head %d >= len %d", q.head, len(b0))
	}
	for i, e := range b0[min(q.head, len(b0)):] {
		if e.time != last {
			return fmt.Sprintf("bucket 0 holds time %d, last is %d", e.time, last)
		}
		if i > 0 && b0[q.head+i-1].key >= e.key {
			return fmt.Sprintf("bucket 0 not sorted by key at %d", q.head+i)
		}
	}
	n += len(b0) - q.head
	blocks := map[*event]string{}
	own := func(blk *qBlk, who string) string {
		p := &blk[0]
		if other, ok := blocks[p]; ok {
			return fmt.Sprintf("%s and %s share a block", who, other)
		}
		blocks[p] = who
		return ""
	}
	for i, blk := range q.pool {
		if msg := own(blk, fmt.Sprintf("pool block %d", i)); msg != "" {
			return msg
		}
	}
	for b := 1; b < len(q.tail); b++ {
		var bk []event
		for i, blk := range q.full[b] {
			if msg := own(blk, fmt.Sprintf("bucket %d block %d", b, i)); msg != "" {
				return msg
			}
			bk = append(bk, blk[:]...)
		}
		if t, n := q.tail[b], q.tailN[b]; t != nil {
			if msg := own(t, fmt.Sprintf("bucket %d tail", b)); msg != "" {
				return msg
			}
			if n < 0 || n > qBlock {
				return fmt.Sprintf("bucket %d: tail holds %d events", b, n)
			}
			bk = append(bk, t[:n]...)
		} else if len(q.full[b]) > 0 || n != 0 {
			return fmt.Sprintf("bucket %d: %d full blocks and %d events without a tail", b, len(q.full[b]), n)
		}
		if got, want := q.mask&(1<<(b-1)) != 0, len(bk) > 0; got != want {
			return fmt.Sprintf("bucket %d: mask bit %v, %d events", b, got, len(bk))
		}
		if len(bk) == 0 {
			continue
		}
		m := int64(math.MaxInt64)
		for _, e := range bk {
			if e.time < last {
				return fmt.Sprintf("bucket %d holds time %d before last %d", b, e.time, last)
			}
			if got := bits.Len64(uint64(e.time ^ last)); got != b {
				return fmt.Sprintf("time %d in bucket %d, belongs in %d", e.time, b, got)
			}
			m = min(m, e.time)
		}
		if q.min[b] != m {
			return fmt.Sprintf("bucket %d: min %d, want %d", b, q.min[b], m)
		}
		n += len(bk)
	}
	if n != q.n {
		return fmt.Sprintf("n is %d, %d events pending", q.n, n)
	}
	return ""
}

// radixStorage returns the number of events q has room for.
func radixStorage(q *radixQueue) int {
	events := cap(q.b0) + len(q.pool)*qBlock
	for b := range q.tail {
		if q.tail[b] != nil {
			events += qBlock
		}
		events += len(q.full[b]) * qBlock
	}
	return events
}

// op is one step of a queue script: push ev, or pop when pop is set.
type op struct {
	pop bool
	ev  event
}

func push(time int64, key uint64) op { return op{ev: event{time: time, key: key}} }

var pop = op{pop: true}

func TestQueueTable(t *testing.T) {
	const big = 1 << 62
	tests := []struct {
		name   string
		script []op
		want   []uint64 // keys in pop order; every remaining event is drained at the end
	}{
		{
			name:   "empty",
			script: nil,
			want:   nil,
		},
		{
			name:   "single",
			script: []op{push(5, 1)},
			want:   []uint64{1},
		},
		{
			name:   "by time",
			script: []op{push(30, 1), push(10, 2), push(20, 3)},
			want:   []uint64{2, 3, 1},
		},
		{
			name:   "ties by key",
			script: []op{push(7, 9), push(7, 3), push(7, 5), push(7, 1), push(6, 8)},
			want:   []uint64{8, 1, 3, 5, 9},
		},
		{
			name: "push at current time, greater key",
			script: []op{push(7, 2), push(7, 4), push(9, 1), pop,
				push(7, 6)},
			want: []uint64{2, 4, 6, 1},
		},
		{
			name: "push at current time, smaller key",
			script: []op{push(7, 10), push(7, 20), push(7, 30), push(7, 40), pop, pop,
				push(7, 25), push(7, 35), push(7, 45), push(7, 31)},
			want: []uint64{10, 20, 25, 30, 31, 35, 40, 45},
		},
		{
			name: "push at current time, key below every popped key",
			script: []op{push(7, 10), push(7, 20), pop,
				push(7, 5)},
			want: []uint64{10, 5, 20},
		},
		{
			name: "push at current time after it drained",
			script: []op{push(7, 10), push(8, 1), pop,
				push(7, 3), pop, push(7, 2)},
			want: []uint64{10, 3, 2, 1},
		},
		{
			name: "large jumps",
			script: []op{push(big, 1), push(0, 2), push(big-1, 3), pop,
				push(math.MaxInt64, 4), push(big, 0), pop, push(big+1, 5)},
			want: []uint64{2, 3, 0, 1, 5, 4},
		},
		{
			name:   "negative times before the first pop",
			script: []op{push(-5, 1), push(math.MinInt64, 2), push(3, 3), push(-5, 0), push(0, 4)},
			want:   []uint64{2, 0, 1, 4, 3},
		},
		{
			name: "extremes",
			script: []op{push(math.MaxInt64, 1), push(math.MinInt64, 2), pop,
				push(math.MinInt64, 3), push(math.MaxInt64, 0)},
			want: []uint64{2, 3, 0, 1},
		},
		{
			name: "interleaved",
			script: []op{push(1, 1), push(3, 2), pop, push(2, 3), push(1, 4), pop,
				push(2, 0), pop, pop, push(3, 1), pop, pop},
			want: []uint64{1, 4, 0, 3, 1, 2},
		},
	}
	for _, qk := range queueKinds {
		for _, tc := range tests {
			t.Run(qk.name+"/"+tc.name, func(t *testing.T) {
				q := qk.new()
				var got []uint64
				for _, o := range tc.script {
					if o.pop {
						got = append(got, q.pop().key)
					} else {
						q.push(o.ev)
					}
				}
				for q.len() > 0 {
					got = append(got, q.pop().key)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("pop order %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// workload describes a random monotone sequence of pushes and pops.
type workload struct {
	name     string
	events   int     // events pushed in all
	window   int     // pending events the workload tends towards
	pTie     float64 // probability that a push is at the current time
	pJump    float64 // probability that a push jumps up to 2^62 ahead
	maxStep  int64   // other pushes are 0..maxStep-1 ahead of the current time
	scramble bool    // keys in random order rather than increasing
	start    int64   // the time of the first events
	check    bool    // check the radix invariants after every step
}

var workloads = []workload{
	{name: "small", events: 2000, window: 20, pTie: 0.3, maxStep: 8, scramble: true, check: true},
	{name: "ties", events: 20000, window: 500, pTie: 0.7, maxStep: 3, scramble: true},
	{name: "jumps", events: 20000, window: 200, pTie: 0.2, pJump: 0.05, maxStep: 1000, scramble: true, check: true},
	{name: "sim", events: 50000, window: 1024, pTie: 0.1, pJump: 0.001, maxStep: 1 << 12},
	{name: "sim scrambled", events: 50000, window: 1024, pTie: 0.1, pJump: 0.001, maxStep: 1 << 12, scramble: true},
	{name: "bursts", events: 50000, window: 64, pTie: 0.5, maxStep: 1 << 20},
	{name: "negative start", events: 20000, window: 100, pTie: 0.2, pJump: 0.01, maxStep: 100, scramble: true, start: -1 << 40},
	{name: "near max", events: 20000, window: 100, pTie: 0.2, pJump: 0.01, maxStep: 1 << 30, start: math.MaxInt64 - 1<<40},
}

// run drives one random instance of w, with the given seed, through the
// reference queue and through every queue under test at once. It fails t
// when a queue pops a different event than the reference, when a push
// breaks the monotone precondition (a bug in the test), or, with w.check,
// when the radix queue breaks an invariant. It returns every event pushed
// and every event popped, in order.
func (w workload) run(t *testing.T, seed uint64) (pushed, popped []event) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var ref refQueue
	radix := new(radixQueue)
	qs := []testQueue{radix, new(heapQueue)}
	now := w.start // time of the last popped event
	var seq uint64
	pushOne := func() {
		t.Helper()
		var d int64
		switch p := r.Float64(); {
		case p < w.pTie:
		case p < w.pTie+w.pJump:
			d = r.Int64N(1 << 62)
		default:
			d = r.Int64N(w.maxStep)
		}
		tm := now + d
		if tm < now { // overflow
			tm = math.MaxInt64
		}
		key := seq<<1 | uint64(r.IntN(2))
		if w.scramble {
			key *= 0x9e3779b97f4a7c15 // odd: a bijection, so keys stay unique
		}
		seq++
		e := event{time: tm, key: key, op: int32(seq), rank: int32(r.IntN(64))}
		if len(popped) > 0 && e.time < now {
			t.Fatalf("test bug: push at %d before last pop at %d", e.time, now)
		}
		pushed = append(pushed, e)
		ref.push(e)
		for _, q := range qs {
			q.push(e)
		}
	}
	popOne := func() {
		t.Helper()
		want := ref.pop()
		for _, q := range qs {
			if got := q.peekTime(); got != want.time {
				t.Fatalf("%s step %d: %T.peekTime() = %d, want %d", w.name, len(pushed)+len(popped), q, got, want.time)
			}
			if got := q.pop(); got != want {
				t.Fatalf("%s step %d: %T.pop() = %+v, want %+v", w.name, len(pushed)+len(popped), q, got, want)
			}
		}
		now = want.time
		popped = append(popped, want)
	}
	for len(pushed) < w.events {
		// Push a burst, or pop a burst, keeping the pending count near
		// the window.
		burst := 1 + r.IntN(8)
		if len(ref.ev) < w.window && r.IntN(4) > 0 || len(ref.ev) == 0 {
			for range min(burst, w.events-len(pushed)) {
				pushOne()
			}
		} else {
			for range min(burst, len(ref.ev)) {
				popOne()
			}
		}
		for _, q := range qs {
			if q.len() != len(ref.ev) {
				t.Fatalf("%T.len() = %d, want %d", q, q.len(), len(ref.ev))
			}
		}
		if w.check {
			if msg := checkRadix(radix); msg != "" {
				t.Fatalf("%s step %d: radix invariant: %s", w.name, len(pushed)+len(popped), msg)
			}
		}
	}
	for len(ref.ev) > 0 {
		popOne()
	}
	for _, q := range qs {
		if q.len() != 0 {
			t.Fatalf("%T.len() = %d after draining", q, q.len())
		}
	}
	return pushed, popped
}

func TestQueueRandom(t *testing.T) {
	seeds := []uint64{1, 2, 3, 42, 1 << 40}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, w := range workloads {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", w.name, seed), func(t *testing.T) {
				w.run(t, seed)
			})
		}
	}
}

// TestQueueOrder checks that with keys that grow with each push, as in the
// simulator, the pop sequence is exactly the sort of all events by
// (time, key), with no two events equal.
func TestQueueOrder(t *testing.T) {
	for _, w := range workloads {
		if w.scramble {
			continue
		}
		t.Run(w.name, func(t *testing.T) {
			pushed, popped := w.run(t, 7)
			sorted := slices.SortedFunc(slices.Values(pushed), cmpEvent)
			if !slices.Equal(popped, sorted) {
				t.Fatalf("pop order differs from the sorted order")
			}
			for i := 1; i < len(popped); i++ {
				if cmpEvent(popped[i-1], popped[i]) >= 0 {
					t.Fatalf("pop %d: %+v not after %+v", i, popped[i], popped[i-1])
				}
			}
		})
	}
}

// TestQueueFillDrain pushes every event before the first pop, in a random
// order, and checks that pop returns them sorted by (time, key).
func TestQueueFillDrain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ev := make([]event, 50000)
	for i := range ev {
		var tm int64
		switch r.IntN(3) {
		case 0:
			tm = r.Int64N(16) // many ties
		case 1:
			tm = r.Int64N(1 << 20)
		default:
			tm = r.Int64() - 1<<62
		}
		ev[i] = event{time: tm, key: uint64(i) * 0x9e3779b97f4a7c15}
	}
	want := slices.SortedFunc(slices.Values(ev), cmpEvent)
	for _, qk := range queueKinds {
		t.Run(qk.name, func(t *testing.T) {
			q := qk.new()
			for round := range 2 { // the second round reuses the storage
				for _, e := range ev {
					q.push(e)
				}
				for i, w := range want {
					if got := q.pop(); got != w {
						t.Fatalf("round %d pop %d = %+v, want %+v", round, i, got, w)
					}
				}
				q.reset()
			}
		})
	}
}

func TestQueueReset(t *testing.T) {
	for _, qk := range queueKinds {
		t.Run(qk.name, func(t *testing.T) {
			q := qk.new()
			for i := range 100 {
				q.push(event{time: int64(1000 + i%7), key: uint64(i)})
			}
			q.pop()
			q.reset()
			if q.len() != 0 {
				t.Fatalf("len() = %d after reset", q.len())
			}
			// After reset, times before the last popped one are allowed again.
			q.push(event{time: 5, key: 2})
			q.push(event{time: -1, key: 1})
			q.push(event{time: 5, key: 0})
			for _, want := range []uint64{1, 0, 2} {
				if got := q.pop().key; got != want {
					t.Fatalf("pop() key %d, want %d", got, want)
				}
			}
		})
	}
	t.Run("radix keeps storage", func(t *testing.T) {
		var q radixQueue
		for i := range 5000 {
			q.push(event{time: int64(i % 3000), key: uint64(i)})
		}
		for range 500 {
			q.pop()
		}
		before := radixStorage(&q)
		q.reset()
		if after := radixStorage(&q); after != before {
			t.Errorf("room for %d events after reset, %d before", after, before)
		}
		if msg := checkRadix(&q); msg != "" {
			t.Errorf("after reset: %s", msg)
		}
		for i := range 5000 {
			q.push(event{time: int64(i % 3000), key: uint64(i)})
		}
		// Buckets keep their last block; the others are shared.
		if after := radixStorage(&q); after > before+64*qBlock {
			t.Errorf("room for %d events after refilling, %d before", after, before)
		}
	})
}

// hold is the hold model, the classic priority queue workload and the
// simulator's steady state: pop the earliest event and push one at a random
// small step after it. steps is a precomputed cycle of steps.
type hold struct {
	steps []int64
	i     int
	seq   uint64
}

func newHold(seed uint64, n int, maxStep int64) *hold {
	r := rand.New(rand.NewPCG(seed, 1))
	h := &hold{steps: make([]int64, n)}
	for i := range h.steps {
		if r.IntN(8) > 0 { // 1 in 8 at the same time, as zero-cost ops are
			h.steps[i] = r.Int64N(maxStep)
		}
	}
	return h
}

// next returns the event that follows the popped event e.
func (h *hold) next(e event) event {
	d := h.steps[h.i]
	h.i++
	if h.i == len(h.steps) {
		h.i = 0
	}
	h.seq++
	return event{time: e.time + d, key: h.seq<<1 | uint64(d&1), op: e.op, rank: e.rank}
}

// fill pushes window events at times 0..maxStep-1 through push.
func (h *hold) fill(window int, push func(event)) {
	for i := range window {
		push(h.next(event{rank: int32(i)}))
	}
}

// TestQueueAllocs checks that once warmed up, the queues allocate nothing
// per event.
func TestQueueAllocs(t *testing.T) {
	const window, warm = 1 << 12, 1 << 18
	t.Run("radix", func(t *testing.T) {
		var q radixQueue
		h := newHold(1, 1<<16, 1<<10)
		h.fill(window, q.push)
		for range warm {
			q.push(h.next(q.pop()))
		}
		if a := testing.AllocsPerRun(1<<16, func() { q.push(h.next(q.pop())) }); a != 0 {
			t.Errorf("%v allocs per event", a)
		}
	})
	t.Run("heap", func(t *testing.T) {
		var q heapQueue
		h := newHold(1, 1<<16, 1<<10)
		h.fill(window, q.push)
		for range warm {
			q.push(h.next(q.pop()))
		}
		if a := testing.AllocsPerRun(1<<16, func() { q.push(h.next(q.pop())) }); a != 0 {
			t.Errorf("%v allocs per event", a)
		}
	})
}

// TestQueueRadixStorage checks that the radix queue's storage stays within a
// small multiple of the pending events however far time advances. Each
// time the clock first crosses a multiple of 2^k, one bucket holds nearly
// every pending event; with storage of its own, every such bucket would
// keep room for all of them.
func TestQueueRadixStorage(t *testing.T) {
	for _, window := range []int{1 << 10, 1 << 14} {
		var q radixQueue
		h := newHold(1, 1<<16, int64(window))
		h.fill(window, q.push)
		var e event
		for range 1 << 20 {
			e = q.pop()
			q.push(h.next(e))
		}
		if e.time < 1<<18 {
			t.Fatalf("time reached only %d; the test needs it to cross many powers of two", e.time)
		}
		events := radixStorage(&q)
		t.Logf("window %d: storage for %d events, %.2f times the pending", window, events, float64(events)/float64(window))
		// Blocks for the pending events, a partly filled block per
		// bucket (at most 16 used for steps below 2^14), bucket 0.
		if limit := window + 17*qBlock + window/2; events > limit {
			t.Errorf("window %d: storage for %d events, more than %d", window, events, limit)
		}
		if msg := checkRadix(&q); msg != "" {
			t.Error(msg)
		}
	}
}

// Benchmark workloads: the hold model with a window of pending events and
// steps of 0..maxStep-1 ns. One op is one pop plus one push.
var holdBenchmarks = []struct {
	name    string
	window  int
	maxStep int64
}{
	{"window=1k/step=1k", 1 << 10, 1 << 10},
	{"window=64k/step=1k", 1 << 16, 1 << 10},
	{"window=64k/step=16", 1 << 16, 1 << 4}, // many ties
	{"window=64k/step=1M", 1 << 16, 1 << 20},
}

// The benchmarks warm each queue up with 1M events before timing, so that
// the timed loop runs in steady state.
const benchWarm = 1 << 20

func BenchmarkQueueHoldRadix(b *testing.B) {
	for _, bc := range holdBenchmarks {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var q radixQueue
			h := newHold(1, 1<<20, bc.maxStep)
			h.fill(bc.window, q.push)
			for range benchWarm {
				q.push(h.next(q.pop()))
			}
			for b.Loop() {
				q.push(h.next(q.pop()))
			}
		})
	}
}

func BenchmarkQueueHoldHeap(b *testing.B) {
	for _, bc := range holdBenchmarks {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var q heapQueue
			h := newHold(1, 1<<20, bc.maxStep)
			h.fill(bc.window, q.push)
			for range benchWarm {
				q.push(h.next(q.pop()))
			}
			for b.Loop() {
				q.push(h.next(q.pop()))
			}
		})
	}
}

// fillDrainEvents returns 1M events over a 16 ms span in random order, with
// keys increasing in push order.
func fillDrainEvents() []event {
	r := rand.New(rand.NewPCG(3, 4))
	ev := make([]event, 1<<20)
	for i := range ev {
		ev[i] = event{time: r.Int64N(1 << 24), key: uint64(i) << 1}
	}
	return ev
}

// The fill-drain benchmarks push 1M events, then pop them all, and reset
// the queue for the next round; one op is one round, and ns/event is the
// cost of one push and one pop.
func BenchmarkQueueFillDrainRadix(b *testing.B) {
	b.ReportAllocs()
	ev := fillDrainEvents()
	var q radixQueue
	for range 2 { // grow the storage before timing
		fillDrainRadix(&q, ev)
	}
	for b.Loop() {
		fillDrainRadix(&q, ev)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ev)), "ns/event")
}

func fillDrainRadix(q *radixQueue, ev []event) {
	for _, e := range ev {
		q.push(e)
	}
	for q.len() > 0 {
		q.pop()
	}
	q.reset()
}

func BenchmarkQueueFillDrainHeap(b *testing.B) {
	b.ReportAllocs()
	ev := fillDrainEvents()
	var q heapQueue
	for range 2 {
		fillDrainHeap(&q, ev)
	}
	for b.Loop() {
		fillDrainHeap(&q, ev)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ev)), "ns/event")
}

func fillDrainHeap(q *heapQueue, ev []event) {
	for _, e := range ev {
		q.push(e)
	}
	for q.len() > 0 {
		q.pop()
	}
	q.reset()
}

// TestSortKeys checks the bucket-0 sort on the shapes redistribution
// gives (one sorted run, two, a short one before or after a long one)
// and on arbitrary orders, against a plain sort, reusing one queue's
// scratch throughout.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// runs builds n events of distinct keys in the given number of
	// ascending runs with the given lengths (the last takes the rest).
	runs := func(n int, lens ...int) []event {
		keys := rng.Perm(n)
		b := make([]event, n)
		for i, k := range keys {
			b[i] = event{time: 9, key: uint64(k) * 3, op: int32(k), rank: int32(i)}
		}
		at := 0
		for _, l := range append(lens, n) {
			end := min(at+l, n)
			slices.SortFunc(b[at:end], cmpKey)
			at = end
		}
		return b
	}
	cases := []struct {
		name string
		b    []event
	}{
		{"empty", nil},
		{"one", runs(1)},
		{"sorted", runs(100, 100)},
		{"two equal runs", runs(100, 50)},
		{"short run first", runs(100, 3)},
		{"short run last", runs(100, 97)},
		{"one-event runs", runs(2, 1)},
		{"second run all below", rotate(runs(50, 50), 25)},
		{"three runs", runs(100, 30, 30)},
		{"descending", reverseEvents(runs(64, 64))},
		{"random", runs(1000, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)},
	}
	var q radixQueue
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := slices.SortedFunc(slices.Values(c.b), cmpKey)
			got := q.sortKeys(slices.Clone(c.b))
			if !slices.Equal(got, want) {
				t.Fatalf("sortKeys(%v)\n= %v\nwant %v", c.b, got, want)
			}
		})
	}
	for trial := range 200 {
		n := 2 + rng.IntN(300)
		b := runs(n, 1+rng.IntN(n))
		want := slices.SortedFunc(slices.Values(b), cmpKey)
		if got := q.sortKeys(slices.Clone(b)); !slices.Equal(got, want) {
			t.Fatalf("trial %d: sortKeys of %d events in two runs is not sorted", trial, n)
		}
	}
}

// rotate returns b with its first k events moved to its end.
func rotate(b []event, k int) []event { return append(slices.Clone(b[k:]), b[:k]...) }

// reverseEvents returns b in the opposite order.
func reverseEvents(b []event) []event {
	slices.Reverse(b)
	return b
}
