package sim

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/topology"
)

// Breakdown is where one rank's time went, in ns (Options.Breakdown).
// With fractional parameters the engine counts ps; each part is then
// rounded so that Calc, SendOverhead, RecvOverhead and Noise, taken in
// that order, add up to their rounded sum, and Wait is NumCPUs × Finish
// minus that sum (0 if rounding would make it negative).
// Calc, SendOverhead, RecvOverhead and Noise are CPU work, summed over the
// rank's CPUs; Wait is the rest of its CPUs' time up to the rank's
// finishing time (NumCPUs × Finish minus that work): idle until a message
// or a dependency arrived, or blocked in a rendezvous. NICBusy is the time
// its NICs were occupied, g + (s-1)·G per message sent or received, summed
// over NICs and directions; it overlaps the others.
type Breakdown struct {
	Finish       int64 `json:"finish_ns"`
	Calc         int64 `json:"calc_ns"`
	SendOverhead int64 `json:"send_overhead_ns"`
	RecvOverhead int64 `json:"recv_overhead_ns"`
	Wait         int64 `json:"wait_ns"`
	Noise        int64 `json:"noise_ns"`
	NICBusy      int64 `json:"nic_busy_ns"`
}

// Add adds b's fields to a's.
func (a *Breakdown) Add(b Breakdown) {
	a.Finish = max(a.Finish, b.Finish)
	a.Calc += b.Calc
	a.SendOverhead += b.SendOverhead
	a.RecvOverhead += b.RecvOverhead
	a.Wait += b.Wait
	a.Noise += b.Noise
	a.NICBusy += b.NICBusy
}

// OpRecord is what happened to one op in a run (Options.Record), times in
// ns. The receiving side of a message is kept in its send's record.
type OpRecord struct {
	// Ready is when the op's last predecessor resolved it (0 without
	// predecessors); Start when it took its CPU (calc, send; later than
	// Ready when a resource was busy) or was posted (recv).
	Ready, Start int64
	// CPUEnd is when the op's CPU work ended: a calc's end, a send's
	// o + (s-1)·O (+ noise); for a receive, the end of its message's
	// receive overhead (RecvCPUEnd of the matched send).
	CPUEnd int64
	// End is when the op completed (-1 if it never did).
	End int64
	// Noise is the noise charged to the op's own CPU work.
	Noise int64

	// Sends: Delivered is when the message was at the receiver (after
	// o + L, and after the network drained it under a congestion model);
	// Arrive when the receiver's CPU and NIC took it (-1 if never);
	// RecvCPUEnd the end of its receive overhead, RecvNoise the noise in
	// it.
	Delivered, Arrive, RecvCPUEnd, RecvNoise int64
	// Sends: NICEnd is when the send NIC was free again (Start + g +
	// (s-1)·G under LogGOPS), RecvNICEnd when the receive NIC was (-1 if
	// the message was never taken).
	NICEnd, RecvNICEnd int64

	// Match is the matching op, by global index: a send's receive, a
	// receive's send; -1 if none.
	Match int32
}

// extras holds what an instrumented run adds to the engine: noise, a
// congestion model, the breakdown, the per-op record and progress. The
// plain LogGOPS run leaves engine.x nil and pays one predictable branch
// at each hook.
type extras struct {
	scale int64 // the engine's ticks per ns: noise and the network count ns
	noise *noise.Model
	net   *topology.Network
	netH  []int32 // per op (sends): network handle + 1, 0 for topology.NoFlow
	park  []event // per op (sends): parked arrival (Flow)
	bd    []Breakdown
	rec   []OpRecord // the per-op record of a run in memory
	// recOn says that the run records; op g's record is then in block
	// recSlot[g>>recPageShift] of recPageOps records from recBase
	// (record): the record pool of a streamed run (streamrec.go), or rec
	// in op order.
	recOn    bool
	pathOnly bool // Options.PathOnly: no copy of the record in ns
	recBase  unsafe.Pointer
	recSlot  []pageSlot
	prog     *atomic.Int64
}

// RecordBytes is the memory the per-op record (Options.Record) of a run
// in memory of ops ops under params takes: 96 bytes an op, twice that
// when the parameters have fractions of a ns (the run counts ps and
// Result.Record is a copy in ns), unless Options.PathOnly (then
// RecordBytes(DefaultParams(), ops)). A streamed run keeps it in a file.
func RecordBytes(params Params, ops int64) int64 {
	n := ops * recSize
	if scaleOf(&params) != 1 {
		n *= 2
	}
	return n
}

// initialRecord is an op's record before the run reaches it.
var initialRecord = OpRecord{End: -1, Delivered: -1, Arrive: -1, RecvCPUEnd: -1, NICEnd: -1, RecvNICEnd: -1, Match: -1}

// newExtras returns what the run with opt adds to the engine, nil for a
// plain run. The record of a streamed program is its record file
// (streamrec.go), which window.load initialises op by op.
func newExtras(p *Program, opt *Options) (*extras, error) {
	if p.win != nil {
		p.win.recOn, p.win.cols = false, p.win.cols[:0]
	}
	if opt.Noise == nil && (opt.Network == nil || opt.Network.Model() == topology.None) && !opt.Breakdown && !opt.Record && opt.Progress == nil {
		return nil, nil
	}
	x := &extras{noise: opt.Noise, prog: opt.Progress, scale: 1}
	if n := opt.Network; n != nil && n.Model() != topology.None {
		n.Reset()
		x.net = n
		flow := n.Model() == topology.Flow
		if p.win != nil {
			var err error
			if x.netH, x.park, err = p.win.netColumns(p, flow); err != nil {
				return nil, err
			}
		} else {
			x.netH = make([]int32, p.NumOps())
			if flow {
				x.park = make([]event, p.NumOps())
			}
		}
	}
	if opt.Breakdown {
		x.bd = make([]Breakdown, p.NumRanks)
	}
	x.pathOnly = opt.Record && opt.PathOnly
	switch {
	case opt.Record && p.win != nil:
		base, slot, err := p.win.records(p, opt.RecordRanks)
		if err != nil {
			return nil, err
		}
		x.recOn, x.recBase, x.recSlot = true, base, slot
	case opt.Record:
		// 96 bytes an op, written in op order as the records are set up:
		// huge pages make that 512 times fewer page faults, which on
		// this VM were most of a recorded run (docs/performance.md).
		x.rec = make([]OpRecord, p.NumOps())
		hugePages(x.rec)
		for i := range x.rec {
			x.rec[i] = initialRecord
		}
		// Pages of recPageOps records in op order: page k in block k.
		x.recOn, x.recSlot = true, make([]pageSlot, (len(x.rec)+recPageOps-1)/recPageOps)
		if len(x.rec) > 0 {
			x.recBase = unsafe.Pointer(&x.rec[0])
		}
		for k := range x.recSlot {
			x.recSlot[k].blk = uint32(k)
		}
	}
	return x, nil
}

// charge returns the noise that CPU work of length ticks at t on rank r
// absorbs, in ticks. The noise model counts whole ns: when the engine
// counts ps, it sees the work from its start to its end, each rounded to
// the nearest ns. A charge beyond MaxTime comes back as tooLong, for the
// caller's check to report.
func (x *extras) charge(r int32, t, length int64) int64 {
	if x.noise == nil {
		return 0
	}
	a, b := toNs(t, x.scale), toNs(t+length, x.scale)
	n := x.noise.Charge(r, a, b-a)
	if n < 0 || n > MaxTime/x.scale {
		return tooLong
	}
	return n * x.scale
}

// nsOf returns engine time t in the ns of the network model (rounded);
// topology.Never stays Never.
func (x *extras) nsOf(t int64) int64 {
	if t == topology.Never {
		return t
	}
	return toNs(t, x.scale)
}

// wake queues the arrivals the network hands back before the event at
// time head is processed.
func (e *engine) wake(head int64) {
	for {
		id, t, ok := e.x.net.Wake(e.x.nsOf(head))
		if !ok {
			return
		}
		ev := e.x.park[id]
		ev.time = max(e.fromNetNs(ev, t), e.now)
		e.x.netH[id] = 0
		e.push(ev)
		// The arrival just queued is the new head: the network must not
		// advance past it before it is processed (it may start sends).
		head = min(head, ev.time)
	}
}

// netArrive asks the network whether the message of arrival ev has
// drained. It returns the time from which the receiver may take it, or
// topology.Never when the arrival is parked until wake hands it back.
func (e *engine) netArrive(ev event) int64 {
	x := e.x
	h := x.netH[ev.op] - 1
	if h == topology.NoFlow {
		return ev.time
	}
	now := x.nsOf(ev.time)
	at := x.net.Arrive(h, now)
	if at == topology.Never {
		x.park[ev.op] = ev
		return at
	}
	if at == now {
		x.netH[ev.op] = 0
		return ev.time
	}
	return e.fromNetNs(ev, at)
}

// fromNetNs returns the network's time t (ns) of arrival ev in ticks,
// stopping the run if it is beyond MaxTime.
func (e *engine) fromNetNs(ev event, t int64) int64 {
	if t < 0 || t > MaxTime/e.scale {
		e.tooLate(ev.rank, ev.op, fmt.Sprintf("message delivered by the congested network at %d ns", t))
	}
	return t * e.scale
}

// finishBreakdown fills in the finishing times (perRank, ns) and waiting,
// and gives the parts in ns.
func (e *engine) finishBreakdown(perRank []int64) []Breakdown {
	bd := e.x.bd
	for r := range bd {
		b := &bd[r]
		b.Finish = perRank[r]
		if e.scale != 1 {
			splitNs(0, e.scale, &b.Calc, &b.SendOverhead, &b.RecvOverhead, &b.Noise)
			b.NICBusy = toNs(b.NICBusy, e.scale)
		}
		b.Wait = max(int64(e.nc)*b.Finish-b.Calc-b.SendOverhead-b.RecvOverhead-b.Noise, 0)
	}
	return bd
}

// hooks runs before each event is popped: progress, and the network's
// parked arrivals that drained by the head event's time.
func (e *engine) hooks() {
	x := e.x
	if x.prog != nil && e.events&0xffff == 0 {
		x.prog.Store(int64(e.done))
	}
	if x.park != nil {
		head := topology.Never
		if e.useHeap {
			if e.heap.len() > 0 {
				head = e.heap.peekTime()
			}
		} else if e.radix.len() > 0 {
			head = e.radix.peekTime()
		}
		e.wake(head)
	}
}

// sendHooks runs when send ev starts at t: it charges noise to the CPU
// work that would end at cpuEnd, puts the message into the network and
// records. It returns the CPU's new end. nicBusy is g + (s-1)·G.
func (e *engine) sendHooks(ev event, t int64, size uint64, cpuEnd, nicBusy int64) int64 {
	x := e.x
	n := x.charge(ev.rank, t, cpuEnd-t)
	if x.bd != nil {
		b := &x.bd[ev.rank]
		b.SendOverhead += cpuEnd - t
		b.Noise += n
		b.NICBusy += nicBusy
	}
	cpuEnd += n
	if x.net != nil {
		x.netH[ev.op] = x.net.Start(x.nsOf(t), ev.rank, e.op(ev.op).peer, int64(size), ev.op) + 1
	}
	if x.recOn {
		r := x.record(ev.op)
		r.Start, r.CPUEnd, r.Noise, r.NICEnd = t, cpuEnd, n, t+nicBusy
	}
	return cpuEnd
}

// deliver returns the time from which the receiver may take the message
// of arrival ev (later than ev.time while a congested network still
// carries it), or topology.Never when the arrival is parked.
func (e *engine) deliver(ev event) int64 {
	x := e.x
	at := ev.time
	if x.net != nil {
		if at = e.netArrive(ev); at == topology.Never {
			return at
		}
	}
	if x.recOn && at == ev.time && x.record(ev.op).Delivered < 0 {
		x.record(ev.op).Delivered = at
	}
	return at
}

// arrivalHooks runs when receiver q takes the message of arrival ev at t:
// it charges noise to the receive overhead that would end at cpuEnd and
// records. It returns the CPU's new end.
func (e *engine) arrivalHooks(ev event, q int32, t, cpuEnd, nicBusy int64) int64 {
	x := e.x
	n := x.charge(q, t, cpuEnd-t)
	if x.bd != nil {
		b := &x.bd[q]
		b.RecvOverhead += cpuEnd - t
		b.Noise += n
		b.NICBusy += nicBusy
	}
	cpuEnd += n
	if x.recOn {
		r := x.record(ev.op)
		r.Arrive, r.RecvCPUEnd, r.RecvNoise, r.RecvNICEnd = t, cpuEnd, n, t+nicBusy
	}
	return cpuEnd
}

// record returns op g's record, which is loaded.
func (x *extras) record(g int32) *OpRecord {
	return (*OpRecord)(unsafe.Add(x.recBase, uintptr(x.recSlot[g>>recPageShift].blk)*uintptr(recBlockBytes)+uintptr(g&(recPageOps-1))*uintptr(recSize)))
}

// matched records that send s matched receive r.
func (x *extras) matched(s, r int32) {
	x.record(s).Match, x.record(r).Match = r, s
	x.record(r).CPUEnd = x.record(s).RecvCPUEnd
}
