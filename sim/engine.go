package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gopsim/gopsim/goal"
)

// QueueKind selects the pending-event queue. Both give identical results;
// the heap exists to cross-check the radix queue.
type QueueKind uint8

const (
	RadixQueue QueueKind = iota // monotone radix heap (default)
	HeapQueue                   // 4-ary min-heap over the same order
)

// Options configure a run. The zero value uses the radix queue; Params
// has no usable zero value, so start from DefaultParams.
type Options struct {
	Params Params
	Queue  QueueKind
}

// MaxResourceSlots bounds ranks × (CPUs + 2 NICs), the number of resource
// clocks the engine keeps (8 bytes each): 2^31 slots are 16 GiB.
const MaxResourceSlots = 1 << 31

// Result is the outcome of a run.
type Result struct {
	Params   Params
	NumRanks int
	NumOps   int
	PerRank  []int64 // finishing time of each rank, ns: max over its CPUs
	MaxTime  int64   // largest finishing time, ns
	MaxRank  int     // lowest rank with MaxTime
	Events   uint64  // events processed, put-backs included
}

// op states
const (
	stWaiting uint8 = iota // has unresolved predecessors
	stQueued               // start event in the queue
	stStarted              // started, completion not known yet
	stDone                 // completed
)

type release struct{ rank, op int32 }

type engine struct {
	s     *goal.Schedule
	p     Params
	costs costTable // L, o, g, G, O by message size
	ops   []goal.Op

	nc, nn int32
	cpu    []int64 // [rank*nc+c]: time CPU c of rank is free
	snic   []int64 // [rank*nn+n]: time NIC n may send again
	rnic   []int64 // [rank*nn+n]: time NIC n may receive again

	pending []int32 // unresolved predecessors per op
	tm      []int64 // per op: ready time until started, then the send's earliest completion
	state   []uint8

	useHeap bool
	radix   radixQueue
	heap    heapQueue
	seq     uint64

	// posted receives (src may be AnySource, tag AnyTag) and unexpected
	// messages (tag may be AnyTag), per receiving rank
	posted, unexpected matchQueue

	batch  []release
	now    int64 // time of the event being processed
	events uint64
	done   int
}

// Run simulates schedule s under LogGOPS.
func Run(s *goal.Schedule, opt Options) (*Result, error) {
	if err := opt.Params.Validate(); err != nil {
		return nil, err
	}
	if !s.Complete() {
		return nil, fmt.Errorf("sim: schedule has %d of %d ranks", len(s.RankStart)-1, s.NumRanks)
	}
	if cells := int64(s.NumRanks) * int64(s.NumCPUs+2*s.NumNICs); cells > MaxResourceSlots {
		return nil, fmt.Errorf("sim: %d ranks with %d CPUs and %d NICs each need %d resource clocks (%d GiB); the limit is %d",
			s.NumRanks, s.NumCPUs, s.NumNICs, cells, cells*8>>30, int64(MaxResourceSlots))
	}
	e := newEngine(s, opt)
	if err := e.checkSizes(); err != nil {
		return nil, err
	}
	e.init()
	e.loop()
	res := &Result{Params: opt.Params, NumRanks: s.NumRanks, NumOps: len(s.Ops), PerRank: make([]int64, s.NumRanks), Events: e.events}
	for r := 0; r < s.NumRanks; r++ {
		var m int64
		for _, t := range e.cpu[r*int(e.nc) : (r+1)*int(e.nc)] {
			m = max(m, t)
		}
		res.PerRank[r] = m
		if m > res.MaxTime {
			res.MaxTime, res.MaxRank = m, r
		}
	}
	if e.done != len(e.ops) || e.posted.len() > 0 || e.unexpected.len() > 0 {
		return res, e.stuck()
	}
	return res, nil
}

func newEngine(s *goal.Schedule, opt Options) *engine {
	e := &engine{s: s, p: opt.Params, ops: s.Ops, nc: int32(s.NumCPUs), nn: int32(s.NumNICs)}
	e.costs = newCostTable(&e.p)
	e.cpu = make([]int64, s.NumRanks*s.NumCPUs)
	e.snic = make([]int64, s.NumRanks*s.NumNICs)
	e.rnic = make([]int64, s.NumRanks*s.NumNICs)
	e.pending = make([]int32, len(s.Ops))
	e.tm = make([]int64, len(s.Ops))
	e.state = make([]uint8, len(s.Ops))
	e.useHeap = opt.Queue == HeapQueue
	e.posted.init(s.NumRanks)
	e.unexpected.init(s.NumRanks)
	return e
}

// checkSizes rejects ops whose costs could overflow int64 arithmetic.
func (e *engine) checkSizes() error {
	for g := range e.ops {
		op := &e.ops[g]
		limit := uint64(MaxMessage)
		if op.Kind == goal.Calc {
			limit = 1 << 62
		}
		if op.Size > limit {
			r := e.s.RankOf(int32(g))
			return fmt.Errorf("sim: rank %d op %d (%s): %s %d beyond the supported %d",
				r, int32(g)-e.s.RankStart[r], e.s.Label(int32(g)), op.Kind, op.Size, limit)
		}
	}
	return nil
}

func (e *engine) push(ev event) {
	if invariants && ev.time < e.now {
		panic(fmt.Sprintf("sim: event at %d ns queued while the clock is at %d ns (op %d, rank %d)", ev.time, e.now, ev.op, ev.rank))
	}
	if e.useHeap {
		e.heap.push(ev)
	} else {
		e.radix.push(ev)
	}
}

// init counts predecessors and inserts the ops that are ready at time 0,
// rank by rank, sends then receives then calcs, each in definition order.
// The receives among them are all posted before any message can arrive
// (arrivals get later sequence numbers), so the posted queue is sized for
// them up front.
func (e *engine) init() {
	s := e.s
	for r := 0; r < s.NumRanks; r++ {
		base := s.RankStart[r]
		for g := base; g < s.RankStart[r+1]; g++ {
			for _, d := range s.Deps[s.DepStart[g]:s.DepStart[g+1]] {
				e.pending[base+d.Succ()]++
			}
		}
	}
	recvs := 0
	for g := range e.ops {
		if e.pending[g] == 0 && e.ops[g].Kind == goal.Recv {
			recvs++
		}
	}
	e.posted.reserve(recvs)
	for r := 0; r < s.NumRanks; r++ {
		for _, k := range [...]goal.Kind{goal.Send, goal.Recv, goal.Calc} {
			for g := s.RankStart[r]; g < s.RankStart[r+1]; g++ {
				if e.pending[g] == 0 && e.ops[g].Kind == k {
					e.insert(int32(r), g)
				}
			}
		}
	}
}

// insert puts the start event of a ready op into the queue at
// max(ready time, free time of its resources).
func (e *engine) insert(r, g int32) {
	op := &e.ops[g]
	t := max(e.tm[g], e.cpu[r*e.nc+int32(op.CPU)])
	if op.Kind == goal.Send {
		t = max(t, e.snic[r*e.nn+int32(op.NIC)])
	}
	e.state[g] = stQueued
	e.push(event{time: t, key: e.seq << 1, op: g, rank: r})
	e.seq++
}

// resolve records that one predecessor of op g (rank r) is resolved at t.
func (e *engine) resolve(r, g int32, t int64) {
	if e.tm[g] < t {
		e.tm[g] = t
	}
	e.pending[g]--
	if e.pending[g] == 0 {
		e.batch = append(e.batch, release{r, g})
	}
}

// started releases the irequires successors of op g at its start time t.
func (e *engine) started(r, g int32, t int64) {
	base := e.s.RankStart[r]
	for _, d := range e.s.Deps[e.s.DepStart[g]:e.s.DepStart[g+1]] {
		if d.Start() {
			e.resolve(r, base+d.Succ(), t)
		}
	}
}

// completed marks op g done at t and releases its requires successors.
func (e *engine) completed(r, g int32, t int64) {
	e.state[g] = stDone
	e.done++
	base := e.s.RankStart[r]
	for _, d := range e.s.Deps[e.s.DepStart[g]:e.s.DepStart[g+1]] {
		if !d.Start() {
			e.resolve(r, base+d.Succ(), t)
		}
	}
}

// flush inserts the ops released while processing one event: ranks in
// ascending order, within a rank sends, receives, calcs, each in release
// order (LogGOPSim's order, made stable).
func (e *engine) flush() {
	b := e.batch
	if len(b) == 0 {
		return
	}
	last := int32(-1)
	for {
		r := int32(-1)
		for _, x := range b {
			if x.rank > last && (r < 0 || x.rank < r) {
				r = x.rank
			}
		}
		if r < 0 {
			break
		}
		for k := goal.Send; k <= goal.Calc; k++ {
			for _, x := range b {
				if x.rank == r && e.ops[x.op].Kind == k {
					e.insert(r, x.op)
				}
			}
		}
		last = r
	}
	e.batch = b[:0]
}

func bytesBeyondFirst(size uint64) int64 {
	if size == 0 {
		return 0
	}
	return int64(size - 1)
}

func (e *engine) loop() {
	for {
		var ev event
		if e.useHeap {
			if e.heap.len() == 0 {
				return
			}
			ev = e.heap.pop()
		} else {
			if e.radix.len() == 0 {
				return
			}
			ev = e.radix.pop()
		}
		e.events++
		if invariants && ev.time < e.now {
			panic(fmt.Sprintf("sim: clock went back from %d ns to %d ns", e.now, ev.time))
		}
		e.now = ev.time
		if ev.key&1 != 0 {
			e.arrival(ev)
		} else {
			switch e.ops[ev.op].Kind {
			case goal.Calc:
				e.calc(ev)
			case goal.Send:
				e.send(ev)
			case goal.Recv:
				e.recv(ev)
			}
		}
		e.flush()
	}
}

func (e *engine) calc(ev event) {
	op := &e.ops[ev.op]
	ci := ev.rank*e.nc + int32(op.CPU)
	if e.cpu[ci] > ev.time {
		ev.time = e.cpu[ci]
		e.push(ev)
		return
	}
	end := ev.time + int64(op.Size)
	e.cpu[ci] = end
	e.state[ev.op] = stStarted
	e.started(ev.rank, ev.op, ev.time)
	e.completed(ev.rank, ev.op, end)
}

func (e *engine) send(ev event) {
	op := &e.ops[ev.op]
	ci := ev.rank*e.nc + int32(op.CPU)
	ni := ev.rank*e.nn + int32(op.NIC)
	if free := max(e.cpu[ci], e.snic[ni]); free > ev.time {
		ev.time = free
		e.push(ev)
		return
	}
	t := ev.time
	b := bytesBeyondFirst(op.Size)
	e.state[ev.op] = stStarted
	e.started(ev.rank, ev.op, t)
	c := e.costs.of(op.Size)
	cpuEnd := t + c.o + c.O(b)
	e.cpu[ci] = cpuEnd
	e.snic[ni] = t + c.g + c.G(b)
	e.push(event{time: t + c.o + c.L, key: e.seq<<1 | 1, op: ev.op, rank: ev.rank})
	e.seq++
	if int64(op.Size) <= e.p.EagerLimit {
		e.completed(ev.rank, ev.op, cpuEnd)
	} else {
		e.tm[ev.op] = cpuEnd // completes when matched, not before this
	}
}

// rendezvousMatched completes rendezvous send g of rank s, matched at t.
func (e *engine) rendezvousMatched(s, g int32, t int64) {
	op := &e.ops[g]
	ci := s*e.nc + int32(op.CPU)
	ni := s*e.nn + int32(op.NIC)
	e.cpu[ci] = max(e.cpu[ci], t)
	e.snic[ni] = max(e.snic[ni], t)
	e.completed(s, g, max(t, e.tm[g]))
}

func (e *engine) recv(ev event) {
	op := &e.ops[ev.op]
	t := ev.time
	e.state[ev.op] = stStarted
	e.started(ev.rank, ev.op, t)
	if m, ok := e.unexpected.take(ev.rank, op.Peer, op.Tag); ok {
		if int64(e.ops[m.op].Size) > e.p.EagerLimit {
			e.rendezvousMatched(m.src, m.op, t)
		}
		e.completed(ev.rank, ev.op, t)
		return
	}
	e.posted.push(ev.rank, op.Peer, op.Tag, ev.op)
}

func (e *engine) arrival(ev event) {
	op := &e.ops[ev.op]
	q := op.Peer
	ci := q*e.nc + int32(op.CPU)
	ni := q*e.nn + int32(op.NIC)
	if free := max(e.cpu[ci], e.rnic[ni]); free > ev.time {
		ev.time = free
		e.push(ev)
		return
	}
	t := ev.time
	b := bytesBeyondFirst(op.Size)
	c := e.costs.of(op.Size)
	cpuEnd := t + c.o + max(c.O(b), c.G(b))
	e.cpu[ci] = cpuEnd
	e.rnic[ni] = t + c.g + c.G(b)
	if m, ok := e.posted.take(q, ev.rank, op.Tag); ok {
		if int64(op.Size) > e.p.EagerLimit {
			e.rendezvousMatched(ev.rank, ev.op, t)
		}
		e.completed(q, m.op, cpuEnd)
		return
	}
	e.unexpected.push(q, ev.rank, op.Tag, ev.op)
}

// Matching (docs/model.md): the oldest entry whose source and tag match,
// AnySource or AnyTag on either side matching anything; see matchQueue.

// StuckOp describes an op that never completed.
type StuckOp struct {
	Rank   int
	Op     int // index within the rank
	Label  string
	Kind   goal.Kind
	Peer   int32
	Tag    uint32
	Size   uint64
	Reason string
}

func (s StuckOp) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rank %d op %d", s.Rank, s.Op)
	if s.Label != "" {
		fmt.Fprintf(&b, " (%s)", s.Label)
	}
	fmt.Fprintf(&b, ": %s", s.Kind)
	switch s.Kind {
	case goal.Send, goal.Recv:
		dir := "to"
		if s.Kind == goal.Recv {
			dir = "from"
		}
		tag := fmt.Sprint(s.Tag)
		if s.Tag == goal.AnyTag {
			tag = "any"
		}
		fmt.Fprintf(&b, " %d bytes %s %d tag %s", s.Size, dir, s.Peer, tag)
	case goal.Calc:
		fmt.Fprintf(&b, " %d ns", s.Size)
	}
	fmt.Fprintf(&b, ": %s", s.Reason)
	return b.String()
}

// DeadlockError reports a run that could not finish: unmatched sends or
// receives, or ops whose dependencies never completed.
type DeadlockError struct {
	Total int       // ops that never completed, plus sends whose message was never received
	Stuck []StuckOp // the first of them, by rank and op
}

// MaxStuckListed bounds DeadlockError.Stuck.
const MaxStuckListed = 50

func (d *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sim: the schedule cannot finish: %d ops stuck", d.Total)
	for _, s := range d.Stuck {
		b.WriteString("\n  ")
		b.WriteString(s.String())
	}
	if d.Total > len(d.Stuck) {
		fmt.Fprintf(&b, "\n  ... and %d more", d.Total-len(d.Stuck))
	}
	return b.String()
}

func (e *engine) stuck() error {
	d := &DeadlockError{}
	posted := make(map[int32]bool)
	e.posted.each(func(m matchEntry) { posted[m.op] = true })
	unexp := make(map[int32]bool)
	e.unexpected.each(func(m matchEntry) { unexp[m.op] = true })
	for r := 0; r < e.s.NumRanks; r++ {
		base := e.s.RankStart[r]
		for g := base; g < e.s.RankStart[r+1]; g++ {
			if e.state[g] == stDone && !unexp[g] {
				continue
			}
			d.Total++
			if len(d.Stuck) >= MaxStuckListed {
				continue
			}
			op := e.ops[g]
			var why string
			switch {
			case posted[g]:
				why = "receive posted, no matching message arrived"
			case unexp[g] && e.state[g] == stDone:
				why = "eager message delivered, no matching receive was ever posted"
			case unexp[g]:
				why = "message arrived, no matching receive was posted"
			case e.state[g] == stStarted && op.Kind == goal.Send:
				why = "rendezvous send never matched by a receive"
			case e.state[g] == stWaiting:
				why = fmt.Sprintf("never ready: %d predecessors did not complete", e.pending[g])
			default:
				why = "did not complete"
			}
			d.Stuck = append(d.Stuck, StuckOp{Rank: r, Op: int(g - base), Label: e.s.Label(g), Kind: op.Kind,
				Peer: op.Peer, Tag: op.Tag, Size: op.Size, Reason: why})
		}
	}
	sort.SliceStable(d.Stuck, func(i, j int) bool { return d.Stuck[i].Rank < d.Stuck[j].Rank })
	return d
}
