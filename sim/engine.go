package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/topology"
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
	// Model is the member of the LogP family to simulate; the zero value
	// is LogGOPS, LogGOPSim's model (docs/models.md).
	Model Model

	// Noise, when not nil, charges OS noise and stragglers to CPU work:
	// calcs, send overheads and receive overheads (docs/model.md). A
	// model counts what it charged; give each run a fresh one.
	Noise *noise.Model
	// Network, when not nil and not topology.None, decides when messages
	// have crossed a congested network (docs/model.md). It is reset at
	// the start of the run; its link statistics describe the run after.
	Network *topology.Network
	// Breakdown asks for Result.Breakdown, Record for Result.Record.
	// The record of a streamed program is kept in a file (streamrec.go)
	// that Result.Record maps: it stays valid until the program's next
	// run with Record, or its Close.
	Breakdown bool
	Record    bool
	// RecordRanks, with Record, lists the ranks whose records are read
	// after the run (a timeline's); empty means every rank. A streamed
	// run then writes to its record file only the pages that hold the
	// records of their ops and of the ops they exchange messages with,
	// and the other records of Result.Record are unspecified; a run in
	// memory records every op all the same. A critical path needs every
	// rank.
	RecordRanks []int
	// PathOnly, with Record, says that only CriticalPath reads the
	// record. A run that counts in ticks finer than a ns (parameters with
	// fractions of a ns) then keeps its record in those ticks alone, not
	// a copy in ns beside it: Result.Record is nil, which halves the
	// record's memory (96 bytes an op instead of 192) or, streamed, the
	// record files on disk (29 GB instead of 59 GB for 306 M ops).
	// CriticalPath gives the same path either way.
	PathOnly bool
	// Progress, when not nil, is set to the number of completed ops
	// every 65,536 events and at the end, for a progress display.
	Progress *atomic.Int64

	// psAlways makes the engine count ps even when every parameter is
	// whole ns (tests compare the two time units).
	psAlways bool
	// putBack puts an event that finds its resources busy back into the
	// queue at every retry, as docs/model.md states the rules, instead
	// of parking it in a waiting list (park.go); tests compare the two.
	putBack bool
}

// MaxResourceSlots bounds ranks × (CPUs + 2 NICs), the number of resource
// clocks the engine keeps (8 bytes each): 2^31 slots are 16 GiB.
const MaxResourceSlots = 1 << 31

// Result is the outcome of a run.
//
// Its times are in ns, rounded once from the engine's exact time unit
// (docs/model.md): with parameters that are whole ns they are exact.
type Result struct {
	Params   Params
	NumRanks int
	NumOps   int
	PerRank  []int64 // finishing time of each rank, ns: max over its CPUs
	MaxTime  int64   // largest finishing time, ns
	MaxRank  int     // lowest rank with MaxTime
	// Events counts the events processed: op starts (receives posted at
	// time 0 included) and message arrivals taken by their receiver, each
	// once, as LogGOPSim counts them. QueueOps counts the events the
	// engine took from its event queue and its waiting lists, retries of
	// events that found a resource busy or a message still in a congested
	// network included (park.go): it depends on how the engine queues,
	// Events does not.
	Events   uint64
	QueueOps uint64

	Breakdown []Breakdown // per rank, with Options.Breakdown
	Record    []OpRecord  // per op (global index), with Options.Record

	// The run's own time unit, for CriticalPath: scale ticks per ns, and
	// when it is not 1, the record and the largest finishing time in
	// ticks.
	scale   int64
	rawRec  []OpRecord
	rawMax  int64
	rawRank int
}

type release struct{ rank, op int32 }

// An event's key is its sequence number << 32, which orders events at the
// same time (docs/model.md), and for the arrival of a message, keyArrival
// and the receiving rank in the low bits, so that the event loop knows the
// receiver without loading the send's record. Sequence numbers stay below
// 2^32: each op's start event and each send's arrival takes one, and
// there are fewer than 2^31 ops. keyWaited marks an event that waited
// for a busy resource before (park.go); ranks stay below 2^30
// (checkResources allows at most 2^31 clocks, three or more per rank).
const (
	keyArrival = 1 << 31
	keyWaited  = 1 << 30
	keyRank    = keyWaited - 1
)

// rankRec is the state of one rank, one 64-byte cache line: the heads of
// its posted and unexpected queues and, when they fit, its resource
// clocks, so that an event at a rank touches one line of rank state.
type rankRec struct {
	posted, unexp mqHead
	// The receives posted at time 0 that have not been matched are the
	// ops g in [icur, iend) whose pend is stStarted|implicit (engine.init).
	icur, iend int32
	// clk holds the clocks at clock indexes 0 .. nc+2nn-1 when
	// nc+2nn <= len(clk); otherwise engine.ext does.
	clk [5]int64
}

type engine struct {
	p    *Program
	ops  []opRec // the records of a program held in memory; see op
	nops int32
	// slot and pool locate the records of a streamed program (op).
	slot  []pageSlot
	pool  unsafe.Pointer
	deps  []uint32
	cn    []uint32
	costs costTable // L, o, g, G, O by message size
	eager int64     // S

	// Time is counted in ticks, scale per ns (1 or 1000, timeunit.go);
	// a calc of more than calcMax ns is beyond MaxTime ticks.
	scale, calcMax int64

	// Clock indexes, per rank: CPU c is c, send NIC n is nc+n, receive
	// NIC n is nc+nn+n; a clock holds the time the resource is free (a
	// NIC may send or receive again).
	nc, nn int32
	ranks  []rankRec
	ext    []int64 // the clocks, stride per rank, when they do not fit in rankRec
	stride int32

	useHeap bool
	radix   radixQueue
	heap    heapQueue
	seq     uint64

	// posted receives (src may be AnySource, tag AnyTag) and unexpected
	// messages (tag may be AnyTag), per receiving rank
	posted, unexpected matchQueue

	batch    []release
	scratch  []matchEntry // for explicit
	now      int64        // time of the event being processed
	events   uint64       // events taken from the queue, plus the implicit receives
	waits    uint64       // events that found their resources busy, or their message in the network
	wl       waitLists
	putBack  bool // Options.putBack
	done     int
	implicit int // receives posted at time 0 and kept implicitly, not yet matched

	x    *extras // noise, network, breakdown, record; nil for a plain run
	hook bool    // x wants engine.hooks before each event (progress, network)
	// m is the state of a model other than LogGOPS, LogGP and LogP; nil
	// for those, which run on the LogGOPS path.
	m *modelState
	// win loads and gives back the records of a streamed program; nil
	// for a program held in memory.
	win *window
	// lists is set when some ops keep their successors in edge lists
	// (prefetchNext).
	lists bool
}

// Run simulates schedule s under opt.Model (LogGOPS by default).
func Run(s *goal.Schedule, opt Options) (*Result, error) {
	if err := opt.Params.Validate(); err != nil {
		return nil, err
	}
	if !s.Complete() {
		return nil, fmt.Errorf("sim: schedule has %d of %d ranks", len(s.RankStart)-1, s.NumRanks)
	}
	if err := checkResources(s.NumRanks, s.NumCPUs, s.NumNICs, len(s.Ops)); err != nil {
		return nil, err
	}
	p, err := Compile(s)
	if err != nil {
		return nil, err
	}
	return p.run(opt)
}

// Run simulates the program under opt.Model; see the package function Run.
func (p *Program) Run(opt Options) (*Result, error) {
	if err := opt.Params.Validate(); err != nil {
		return nil, err
	}
	if err := checkResources(p.NumRanks, p.NumCPUs, p.NumNICs, p.NumOps()); err != nil {
		return nil, err
	}
	return p.run(opt)
}

// checkResources refuses a clock table beyond MaxResourceSlots, and one
// that the ops cannot use: the engine keeps a clock for every CPU and NIC
// number up to the highest one any op names, on every rank, so a single
// "cpu 65535" would cost 65,536 clocks per rank. Clocks beyond the first
// CPU and NIC of each rank are refused when there are more than
// sparseSlack per op (and more than minSparse in all), with a message
// that says which numbers to change.
func checkResources(ranks, cpus, nics, ops int) error {
	if ranks < 1 {
		return fmt.Errorf("sim: a schedule of %d ranks: there is no rank to simulate", ranks)
	}
	cells := int64(ranks) * int64(cpus+2*nics)
	if cells > MaxResourceSlots {
		return fmt.Errorf("sim: %d ranks with %d CPUs and %d NICs each need %d resource clocks (%d GiB); the limit is %d",
			ranks, cpus, nics, cells, cells*8>>30, int64(MaxResourceSlots))
	}
	extra := int64(ranks) * int64(cpus-1+2*(nics-1))
	if extra > minSparse && extra > sparseSlack*int64(ops) {
		return fmt.Errorf("sim: the ops name CPUs up to %d and NICs up to %d, so every one of the %d ranks gets %d CPU and %d NIC clocks (%d MiB) for %d ops; number each rank's CPUs and NICs from 0",
			cpus-1, nics-1, ranks, cpus, nics, cells*8>>20, ops)
	}
	return nil
}

// A schedule may keep up to sparseSlack unused CPU and NIC clocks per op,
// and minSparse in all (8 MiB), whatever its ops.
const (
	sparseSlack = 64
	minSparse   = 1 << 20
)

func (p *Program) run(opt Options) (*Result, error) {
	if p.closed {
		return nil, fmt.Errorf("sim: the streamed program was closed")
	}
	if err := p.SizeError(); err != nil {
		return nil, err
	}
	if p.dirty {
		p.reset()
	}
	p.dirty = true
	e := newEngine(p, opt)
	if err := e.setModel(&opt); err != nil {
		return nil, err
	}
	var err error
	if e.x, err = newExtras(p, &opt); err != nil {
		return nil, err
	}
	if e.x != nil {
		e.x.scale = e.scale
	}
	e.hook = e.x != nil && (e.x.prog != nil || e.x.park != nil)
	if err := e.start(); err != nil {
		return nil, err
	}
	res, err := e.result(&opt)
	if err != nil {
		return nil, err
	}
	if e.done != p.NumOps() || e.posted.len() > 0 || e.implicit > 0 || e.unexpected.len() > 0 {
		return res, e.stuck()
	}
	return res, nil
}

// result gives the outcome of the run, in ns.
func (e *engine) result(opt *Options) (*Result, error) {
	p := e.p
	res := &Result{Params: opt.Params, NumRanks: p.NumRanks, NumOps: p.NumOps(), PerRank: make([]int64, p.NumRanks),
		Events: e.events - e.waits, QueueOps: e.events - uint64(p.implicit) + e.wl.pops, scale: e.scale}
	for r := int32(0); r < int32(p.NumRanks); r++ {
		var m int64
		for c := int32(0); c < e.nc; c++ {
			m = max(m, *e.clock(r, c))
		}
		res.PerRank[r] = toNs(m, e.scale)
		if m > res.rawMax {
			res.rawMax, res.rawRank = m, int(r)
		}
	}
	res.MaxTime = toNs(res.rawMax, e.scale)
	for r, t := range res.PerRank {
		if t == res.MaxTime {
			res.MaxRank = r // the lowest, which rounding may make another than rawRank
			break
		}
	}
	x := e.x
	if x == nil {
		return res, nil
	}
	if x.prog != nil {
		x.prog.Store(int64(e.done))
	}
	res.Record = x.rec
	pathOnly := x.pathOnly && e.scale != 1
	switch {
	case x.recOn && e.win != nil:
		raw, rec, err := e.win.finishRecord(p, e.scale, pathOnly)
		if err != nil {
			return nil, err
		}
		res.Record = rec
		if e.scale != 1 {
			res.rawRec = raw
		}
	case e.scale != 1 && x.recOn:
		res.rawRec = x.rec
		res.Record = nil
		if !pathOnly {
			res.Record = recordNs(x.rec, e.scale)
		}
	}
	if x.bd != nil {
		res.Breakdown = e.finishBreakdown(res.PerRank)
	}
	return res, nil
}

// start runs the event loop from the state at time 0. A streamed program
// loads each rank's first ops first; a failure to read its spill file
// stops the run with an error (window.load panics with it), and so does a
// time beyond MaxTime (engine.tooLate panics with it).
func (e *engine) start() (err error) {
	defer func() {
		if v := recover(); v != nil {
			switch x := v.(type) {
			case spillError:
				err = x.err
			case timePanic:
				err = x.err
			default:
				panic(v)
			}
		}
	}()
	if e.win != nil {
		e.win.begin(e.p)
	}
	e.init()
	e.loop()
	return nil
}

// reset restores the per-op state a run changed: no ready times, every
// op waiting for all its predecessors.
func (p *Program) reset() {
	if p.win != nil {
		return // window.begin starts from the spill file
	}
	for i := range p.ops {
		p.ops[i].tm, p.ops[i].pend = 0, 0
	}
	for g := range p.ops {
		ed := p.ops[g].edge
		if ed&edgeList == 0 {
			n, a, b := inlineEdges(ed)
			if n > 0 {
				p.ops[g+int(a>>1)].pend++
			}
			if n > 1 {
				p.ops[g+int(b>>1)].pend++
			}
			continue
		}
		at := ed &^ edgeList
		for _, d := range p.deps[at+1 : at+1+p.deps[at]] {
			p.ops[d>>1].pend++
		}
	}
	for r := range p.start {
		lo, hi := p.rankStart[r], p.rankStart[r+1]
		p.prepare(int32(r), lo, p.ops[lo:hi], p.deps)
	}
}

func newEngine(p *Program, opt Options) *engine {
	e := &engine{p: p, ops: p.ops, nops: int32(p.NumOps()), deps: p.deps, cn: p.cn, eager: opt.Params.EagerLimit,
		nc: int32(p.NumCPUs), nn: int32(p.NumNICs), win: p.win}
	if p.win != nil {
		e.slot, e.pool = p.win.pool.slot, p.win.pool.base()
	}
	mp := opt.Params.ModelParams(opt.Model)
	e.scale = scaleOf(&mp)
	if opt.psAlways {
		e.scale = 1000
	}
	e.calcMax = MaxTime / e.scale
	e.costs = newCostTable(&opt.Params, e.scale)
	e.lists = len(p.deps) > 0
	e.stride = e.nc + 2*e.nn
	e.ranks = make([]rankRec, p.NumRanks)
	hugePages(e.ranks)
	if int(e.stride) > len(rankRec{}.clk) {
		e.ext = make([]int64, int64(p.NumRanks)*int64(e.stride))
	}
	e.useHeap = opt.Queue == HeapQueue
	e.putBack = opt.putBack || putBackSwitch()
	if !e.useHeap {
		// Room in bucket 0 for an event per rank at one time, as
		// symmetric schedules have, and for the ops ready at time 0, so
		// that it seldom grows (leaving the outgrown arrays behind);
		// pages never used take no memory. Bucket 0 holds time 0 from
		// the start, so that those ops go straight there.
		ready := 0
		for i := range p.start {
			ready += int(p.start[i].ready)
		}
		e.radix.b0 = make([]event, 0, max(p.NumRanks, ready))
		e.radix.lastx = math.MinInt64 // last = 0
	}
	e.posted.init()
	e.unexpected.init()
	return e
}

// op returns op g's record: in the program's records, or for a streamed
// program in the pool block of its page (recpool.go).
func (e *engine) op(g int32) *opRec {
	if e.slot == nil {
		return &e.ops[g]
	}
	return recAt(e.pool, e.slot, g)
}

// clock returns clock i of rank r.
func (e *engine) clock(r, i int32) *int64 {
	if e.ext == nil {
		return &e.ranks[r].clk[i]
	}
	return &e.ext[r*e.stride+i]
}

// cpuNIC returns the CPU and NIC of op g.
func (e *engine) cpuNIC(g int32) (int32, int32) {
	if e.cn == nil {
		return 0, 0
	}
	x := e.cn[g]
	return int32(x >> 16), int32(x & 0xffff)
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

// init inserts the ops that are ready at time 0, rank by rank, sends then
// receives then calcs, each in definition order.
//
// A receive among them without irequires successors is posted at once
// instead: its start event would be processed at time 0 before any
// arrival (arrivals get later sequence numbers), it would find the
// unexpected queue empty, post itself behind the receives of its rank
// before it, release nothing, and take no resource. Posting it now gives
// the same queues without the event (it still counts in Result.Events),
// and the sequence numbers of the other events keep their order.
//
// Such receives are the oldest entries of their rank's posted queue, in
// definition order, and they are not copied into the queue: Program.prepare,
// run while the schedule is decoded, has marked their records
// stStarted|implicit, and a match scans them from the rank's icur before
// looking at the queue (takeImplicit). That saves the queue's memory for
// them and a cache line per match, and leaves init only the other ready
// ops to visit, which prepare counted per rank.
func (e *engine) init() {
	p := e.p
	e.implicit = p.implicit
	e.events += uint64(p.implicit)
	var ready []int32 // a rank's ready ops, in definition order
	for r := int32(0); r < int32(p.NumRanks); r++ {
		st := &p.start[r]
		rk := &e.ranks[r]
		rk.icur, rk.iend = st.icur, st.iend
		if st.ready == 0 {
			continue
		}
		ready = ready[:0]
		for g := p.rankStart[r]; len(ready) < int(st.ready); g++ {
			if e.op(g).pend == 0 {
				ready = append(ready, g)
			}
		}
		for k := goal.Send; k <= goal.Calc; k++ {
			for _, g := range ready {
				if e.op(g).kind() == k {
					e.insert(r, g)
				}
			}
		}
	}
}

// implicitScan bounds the ops a match scans among a rank's implicitly
// posted receives (takeImplicit). Matches usually take the oldest, but a
// schedule can make every match scan far: once one would scan further,
// the rank's remaining implicit receives move into its posted queue,
// which finds matches in constant time however many entries it holds. A
// variable so that tests can vary it; results do not depend on it.
var implicitScan int32 = 4 * mqLinearMax

// takeImplicit removes and returns the oldest receive posted at time 0 and
// kept implicitly by rank r, whose record is rk, that matches a message
// from src with tag. The scan moves icur past the ops at its front that
// are not (or no longer) such receives, so each is passed over once; if it
// has to go beyond implicitScan ops, it gives up on the implicit form for
// the rank (explicit) and takes from its posted queue instead.
func (e *engine) takeImplicit(r int32, rk *rankRec, src int32, tag uint32) (int32, bool) {
	end := rk.iend
	if end-rk.icur > implicitScan {
		end = rk.icur + implicitScan
	}
	for g := rk.icur; g < end; g++ {
		o := e.op(g)
		if o.pend != stStarted|implicit {
			if g == rk.icur {
				rk.icur++
			}
			continue
		}
		if matches(o.peer, o.tag, src, tag) {
			o.pend = stStarted
			e.implicit--
			if g == rk.icur {
				rk.icur++
			}
			return g, true
		}
	}
	if end == rk.iend {
		return 0, false
	}
	e.explicit(r, rk)
	m, ok := e.posted.take(&rk.posted, r, src, tag)
	return m.op, ok
}

// explicit moves the receives that rank r keeps implicitly into its
// posted queue, ahead of the entries there, which are all younger.
func (e *engine) explicit(r int32, rk *rankRec) {
	h := &rk.posted
	later := e.scratch[:0]
	for {
		m, ok := e.posted.take(h, r, goal.AnySource, goal.AnyTag) // the oldest
		if !ok {
			break
		}
		later = append(later, m)
	}
	for g := rk.icur; g < rk.iend; g++ {
		if o := e.op(g); o.pend == stStarted|implicit {
			o.pend = stStarted
			e.implicit--
			e.posted.push(h, r, o.peer, o.tag, g)
		}
	}
	for _, m := range later {
		e.posted.push(h, r, m.src, m.tag, m.op)
	}
	rk.icur = rk.iend
	e.scratch = later[:0]
}

func (e *engine) insert(r, g int32) {
	o := e.op(g)
	c, n := e.cpuNIC(g)
	t := max(o.tm, *e.clock(r, c))
	if o.kind() == goal.Send {
		t = max(t, *e.clock(r, e.nc+n))
	}
	o.pend = stQueued
	if e.x != nil && e.x.recOn {
		e.x.record(g).Ready = o.tm
	}
	if e.win != nil {
		e.ahead(r, g)
	}
	e.push(event{time: t, key: e.seq << 32, op: g, rank: r})
	e.seq++
}

// resolve records that one predecessor of op g (rank r) is resolved at t.
func (e *engine) resolve(r, g int32, t int64) {
	o := e.op(g)
	if o.tm < t {
		o.tm = t
	}
	o.pend--
	if o.pend == 0 { // stWaiting is 0
		e.batch = append(e.batch, release{r, g})
	}
}

// started releases the irequires successors of op g at its start time t.
func (e *engine) started(r, g int32, t int64) {
	ed := e.op(g).edge
	if ed&edgeList == 0 {
		if ed&edgePair == 0 {
			if ed&1 != 0 {
				e.resolve(r, g+int32(ed>>1), t)
			}
			return
		}
		if ed&1 != 0 {
			e.resolve(r, g+int32(ed&pairHalf>>1), t)
		}
		if ed>>pairShift&1 != 0 {
			e.resolve(r, g+int32(ed>>(pairShift+1)&(pairHalf>>1)), t)
		}
		return
	}
	at := ed &^ edgeList
	for _, d := range e.deps[at+1 : at+1+e.deps[at]] {
		if d&1 != 0 {
			e.resolve(r, int32(d>>1), t)
		}
	}
}

// completed marks op g done at t and releases its requires successors.
func (e *engine) completed(r, g int32, t int64) {
	o := e.op(g)
	o.pend = stDone
	e.done++
	e.prefetchRank(g)
	if e.x != nil && e.x.recOn {
		e.x.record(g).End = t
	}
	if ed := o.edge; ed&edgeList == 0 {
		if ed&edgePair == 0 {
			if ed != 0 && ed&1 == 0 {
				e.resolve(r, g+int32(ed>>1), t)
			}
		} else {
			if ed&1 == 0 {
				e.resolve(r, g+int32(ed&pairHalf>>1), t)
			}
			if ed>>pairShift&1 == 0 {
				e.resolve(r, g+int32(ed>>(pairShift+1)&(pairHalf>>1)), t)
			}
		}
	} else {
		at := ed &^ edgeList
		for _, d := range e.deps[at+1 : at+1+e.deps[at]] {
			if d&1 == 0 {
				e.resolve(r, int32(d>>1), t)
			}
		}
	}
	if e.win != nil && o.kind() != goal.Send {
		e.win.finish(e.p, g) // a send finishes when its message is matched
	}
}

// ahead loads, for a streamed program, the successors of op g of rank r,
// which is being queued: they are the ops its start and completion
// resolve.
func (e *engine) ahead(r, g int32) {
	if g < e.win.lim[r] {
		return // its successors are loaded, whichever they are
	}
	if m := furthestSuccessor(e.op(g).edge, e.deps, g); m >= e.win.hi[r] {
		e.win.load(e.p, r, m+1)
	}
}

// flush inserts the ops released while processing one event: ranks in
// ascending order, within a rank sends, receives, calcs, each in release
// order (LogGOPSim's order, made stable).
func (e *engine) flush() {
	b := e.batch
	switch len(b) {
	case 0:
		return
	case 1:
		e.insert(b[0].rank, b[0].op)
		e.batch = b[:0]
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
				if x.rank == r && e.op(x.op).kind() == k {
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

// loop processes events until none is left. The models other than
// LogGOPS (and LogGP and LogP, which only change costs) run in
// loopModels, chosen once, so that LogGOPS's loop has no model checks.
func (e *engine) loop() {
	if e.m != nil {
		e.loopModels()
		return
	}
	for {
		if e.hook {
			e.hooks()
		}
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
			e.prefetchNext()
		}
		e.events++
		if invariants && ev.time < e.now {
			panic(fmt.Sprintf("sim: clock went back from %d ns to %d ns", e.now, ev.time))
		}
		e.now = ev.time
		w := e.waits
		if ev.key&keyArrival != 0 {
			e.arrival(ev)
		} else {
			switch e.op(ev.op).kind() {
			case goal.Calc:
				e.calc(ev)
			case goal.Send:
				e.send(ev)
			case goal.Recv:
				e.recv(ev)
			}
		}
		if ev.key&keyWaited != 0 && e.waits == w {
			e.unguard(ev)
		}
		e.flush()
	}
}

// prefetchAhead is how many events ahead of the one being processed the
// event loop prefetches the state of (engine.prefetchNext).
const prefetchAhead = 8

// prefetchNext asks the CPU to load what the events that follow the one
// being processed will touch, as far as bucket 0 of the radix queue (the
// events at the current time, in processing order) shows them: for the
// event prefetchAhead pops ahead, its op record and its rank's record (for
// an arrival, the receiver's, whose number is in the event's key); for the
// event half as far ahead, whose rank record is cached by then, an
// arrival's first candidate receives. On the large symmetric schedules,
// where thousands of events share a time and every event's state is far
// from the last's in memory, this hides most of the cache misses: the
// loop no longer waits for one line at a time (1.5x faster on a
// 65,536-rank dissemination). It changes nothing but timing.
func (e *engine) prefetchNext() {
	if e.slot != nil {
		// a streamed program's records are found through the slot
		// table: its entry for the event twice as far ahead, so that the
		// lookup below finds it in cache when that event comes
		if x, ok := e.radix.ahead(2 * prefetchAhead); ok {
			prefetch(uintptr(unsafe.Pointer(&e.slot[x.op>>recPageShift])))
		}
	}
	if x, ok := e.radix.ahead(prefetchAhead); ok {
		prefetch(uintptr(unsafe.Pointer(e.op(x.op))))
		if x.op&1 != 0 && x.op+1 < e.nops {
			// The record after it, when it is on the next line (two
			// records a line): most ops' successor, which the event's
			// completion resolves. At 102,400 ranks the line that
			// prefetchRank fetched at the rank's previous completion is
			// gone by then (docs/performance.md).
			prefetch(uintptr(unsafe.Pointer(e.op(x.op + 1))))
		}
		r := x.rank
		if x.key&keyArrival != 0 {
			r = int32(x.key & keyRank)
		}
		prefetch(uintptr(unsafe.Pointer(&e.ranks[r])))
	}
	x, ok := e.radix.ahead(prefetchAhead / 2)
	if !ok {
		return
	}
	if x.key&keyArrival == 0 {
		if !e.lists {
			return
		}
		// The op's record, prefetched four events ago, says where its
		// successors are: an op with several keeps them in a list far
		// from the records, which started and completed read.
		if ed := e.op(x.op).edge; ed&edgeList != 0 {
			if at := ed &^ edgeList; int(at) < len(e.deps) {
				prefetch(uintptr(unsafe.Pointer(&e.deps[at])))
			}
		}
	} else {
		rk := &e.ranks[x.key&keyRank]
		if rk.icur < rk.iend {
			prefetch(uintptr(unsafe.Pointer(e.op(rk.icur))))
			if rk.icur+1 < rk.iend {
				prefetch(uintptr(unsafe.Pointer(e.op(rk.icur + 1))))
			}
		} else if h := &rk.posted; h.n > 0 && h.cap != mqHashed {
			prefetch(uintptr(unsafe.Pointer(&e.posted.arena[h.off])))
		}
	}
}

// prefetchRank prefetches, as op g completes, the line of op records
// that follows its own: a rank runs through its ops in about definition
// order, so it holds the records its next events need. prefetchNext
// prefetches the records of the events ahead in the queue, not those
// their completions resolve, and where events seldom share a time, as in
// schedules converted from traces, it finds no event ahead at all: each
// rank's next records would otherwise be a cache miss apiece, thousands
// of ranks advancing through memory at once, more streams than the
// hardware prefetcher follows. One line, at every completion: two lines
// only when few events were ahead (until 2026-11-28) left most of a
// trace's misses, and two lines at every completion cost more than they
// gave at 102,400 ranks, whose lines were gone before they were read
// (docs/performance.md). It changes nothing but timing.
func (e *engine) prefetchRank(g int32) {
	const line = 64 / int32(unsafe.Sizeof(opRec{}))
	if g+line < e.nops {
		prefetch(uintptr(unsafe.Pointer(e.op(g + line))))
	}
}

func (e *engine) calc(ev event) {
	o := e.op(ev.op)
	c, _ := e.cpuNIC(ev.op)
	cpu := e.clock(ev.rank, c)
	if *cpu > ev.time {
		e.wait(ev, *cpu)
		return
	}
	d := int64(o.bytes())
	if d > e.calcMax {
		e.tooLate(ev.rank, ev.op, fmt.Sprintf("calc of %d ns", d))
	}
	d *= e.scale
	end := ev.time + d
	if x := e.x; x != nil {
		n := x.charge(ev.rank, ev.time, d)
		end += n
		if x.bd != nil {
			b := &x.bd[ev.rank]
			b.Calc += d
			b.Noise += n
		}
		if x.recOn {
			r := x.record(ev.op)
			r.Start, r.CPUEnd, r.Noise = ev.time, end, n
		}
	}
	if end > MaxTime {
		e.tooLate(ev.rank, ev.op, fmt.Sprintf("calc of %d ns from %d ns", o.bytes(), toNs(ev.time, e.scale)))
	}
	*cpu = end
	o.pend = stStarted
	e.started(ev.rank, ev.op, ev.time)
	e.completed(ev.rank, ev.op, end)
}

func (e *engine) send(ev event) {
	o := e.op(ev.op)
	c, n := e.cpuNIC(ev.op)
	cpu, nic := e.clock(ev.rank, c), e.clock(ev.rank, e.nc+n)
	if free := max(*cpu, *nic); free > ev.time {
		e.wait(ev, free)
		return
	}
	t := ev.time
	size := o.bytes()
	b := bytesBeyondFirst(size)
	o.pend = stStarted
	e.started(ev.rank, ev.op, t)
	co := e.costs.of(size)
	cpuEnd := t + co.o + co.O(b)
	nicEnd := t + co.g + co.G(b)
	if x := e.x; x != nil {
		cpuEnd = e.sendHooks(ev, t, size, cpuEnd, nicEnd-t)
	}
	arrive := t + co.o + co.L
	if max(cpuEnd, nicEnd, arrive) > MaxTime {
		e.msgTooLate(ev.rank, ev.op, t, co, "send")
	}
	*cpu = cpuEnd
	*nic = nicEnd
	e.push(event{time: arrive, key: e.seq<<32 | keyArrival | uint64(uint32(o.peer)), op: ev.op, rank: ev.rank})
	e.seq++
	if int64(size) <= e.eager {
		e.completed(ev.rank, ev.op, cpuEnd)
	} else {
		o.tm = cpuEnd // completes when matched, not before this
	}
}

// rendezvousMatched completes rendezvous send g of rank s, matched at t.
func (e *engine) rendezvousMatched(s, g int32, t int64) {
	c, n := e.cpuNIC(g)
	cpu, nic := e.clock(s, c), e.clock(s, e.nc+n)
	*cpu = max(*cpu, t)
	*nic = max(*nic, t)
	e.completed(s, g, max(t, e.op(g).tm))
}

func (e *engine) recv(ev event) {
	o := e.op(ev.op)
	t := ev.time
	o.pend = stStarted
	e.started(ev.rank, ev.op, t)
	rk := &e.ranks[ev.rank]
	if e.x != nil && e.x.recOn {
		e.x.record(ev.op).Start = t
	}
	if m, ok := e.unexpected.take(&rk.unexp, ev.rank, o.peer, o.tag); ok {
		if e.x != nil && e.x.recOn {
			e.x.matched(m.op, ev.op)
		}
		if int64(e.op(m.op).bytes()) > e.eager {
			e.rendezvousMatched(m.src, m.op, t)
		}
		e.completed(ev.rank, ev.op, t)
		if e.win != nil {
			e.win.finish(e.p, m.op)
		}
		return
	}
	e.posted.push(&rk.posted, ev.rank, o.peer, o.tag, ev.op)
}

func (e *engine) arrival(ev event) {
	o := e.op(ev.op)
	q := int32(ev.key & keyRank) // o.peer
	c, n := e.cpuNIC(ev.op)
	cpu, nic := e.clock(q, c), e.clock(q, e.nc+e.nn+n)
	at := ev.time
	if e.x != nil {
		if at = e.deliver(ev); at == topology.Never {
			e.waits++
			return // parked in the network until it drains
		}
	}
	if free := max(at, *cpu, *nic); free > ev.time {
		e.waitArrival(ev, at, free)
		return
	}
	t := ev.time
	size := o.bytes()
	b := bytesBeyondFirst(size)
	co := e.costs.of(size)
	cpuEnd := t + co.o + max(co.O(b), co.G(b))
	nicEnd := t + co.g + co.G(b)
	if e.x != nil {
		cpuEnd = e.arrivalHooks(ev, q, t, cpuEnd, nicEnd-t)
	}
	if max(cpuEnd, nicEnd) > MaxTime {
		e.msgTooLate(ev.rank, ev.op, t, co, "receive of the message of")
	}
	*cpu = cpuEnd
	*nic = nicEnd
	rk := &e.ranks[q]
	if rk.icur < rk.iend {
		if m, ok := e.takeImplicit(q, rk, ev.rank, o.tag); ok {
			if e.x != nil && e.x.recOn {
				e.x.matched(ev.op, m)
			}
			if int64(size) > e.eager {
				e.rendezvousMatched(ev.rank, ev.op, t)
			}
			e.completed(q, m, cpuEnd)
			if e.win != nil {
				e.win.finish(e.p, ev.op)
			}
			return
		}
	}
	if m, ok := e.posted.take(&rk.posted, q, ev.rank, o.tag); ok {
		if e.x != nil && e.x.recOn {
			e.x.matched(ev.op, m.op)
		}
		if int64(size) > e.eager {
			e.rendezvousMatched(ev.rank, ev.op, t)
		}
		e.completed(q, m.op, cpuEnd)
		if e.win != nil {
			e.win.finish(e.p, ev.op)
		}
		return
	}
	e.unexpected.push(&rk.unexp, q, ev.rank, o.tag, ev.op)
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
	unexp := make(map[int32]bool)
	for r := range e.ranks {
		e.posted.each(&e.ranks[r].posted, int32(r), func(m matchEntry) { posted[m.op] = true })
		e.unexpected.each(&e.ranks[r].unexp, int32(r), func(m matchEntry) { unexp[m.op] = true })
	}
	p := e.p
	for r := 0; r < p.NumRanks; r++ {
		base, end := p.rankStart[r], p.rankStart[r+1]
		if w := e.win; w != nil {
			end = w.hi[r]
		}
		for g := base; g < end; g++ {
			if e.win != nil && e.win.gone(g) {
				continue // every op on its page finished, a send matched
			}
			o := e.op(g)
			st := o.state()
			if st == stDone && !unexp[g] {
				continue
			}
			d.Total++
			if len(d.Stuck) >= MaxStuckListed {
				continue
			}
			var why string
			switch {
			case posted[g] || o.pend == stStarted|implicit:
				why = "receive posted, no matching message arrived"
			case unexp[g] && st == stDone:
				why = "eager message delivered, no matching receive was ever posted"
			case unexp[g]:
				why = "message arrived, no matching receive was posted"
			case st == stStarted && o.kind() == goal.Send:
				why = "rendezvous send never matched by a receive"
			case st == stWaiting:
				why = fmt.Sprintf("never ready: %d predecessors did not complete", o.pend&pendMask)
			default:
				why = "did not complete"
			}
			d.Stuck = append(d.Stuck, StuckOp{Rank: r, Op: int(g - base), Label: p.label(r, g), Kind: o.kind(),
				Peer: o.peer, Tag: o.tag, Size: o.bytes(), Reason: why})
		}
		// The ops a streamed run never loaded were never ready: a
		// predecessor resolves only loaded ops (window).
		for g := end; g < p.rankStart[r+1]; g++ {
			if len(d.Stuck) >= MaxStuckListed {
				d.Total += int(p.rankStart[r+1] - g)
				break
			}
			d.Total++
			o, _, _, err := e.win.static(p, int32(r), g, nil)
			if err != nil {
				return err
			}
			d.Stuck = append(d.Stuck, StuckOp{Rank: r, Op: int(g - base), Label: p.label(r, g), Kind: o.kind(),
				Peer: o.peer, Tag: o.tag, Size: o.bytes(), Reason: fmt.Sprintf("never ready: %d predecessors did not complete", o.pend&pendMask)})
		}
	}
	sort.SliceStable(d.Stuck, func(i, j int) bool { return d.Stuck[i].Rank < d.Stuck[j].Rank })
	return d
}
