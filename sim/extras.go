package sim

import (
	"sync/atomic"

	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/topology"
)

// Breakdown is where one rank's time went, in ns (Options.Breakdown).
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

	// Match is the matching op, by global index: a send's receive, a
	// receive's send; -1 if none.
	Match int32
}

// extras holds what an instrumented run adds to the engine: noise, a
// congestion model, the breakdown, the per-op record and progress. The
// plain LogGOPS run leaves engine.x nil and pays one predictable branch
// at each hook.
type extras struct {
	noise *noise.Model
	net   *topology.Network
	netH  []int32 // per op (sends): network handle
	park  []event // per op (sends): parked arrival (Flow)
	bd    []Breakdown
	rec   []OpRecord
	prog  *atomic.Int64
}

func newExtras(p *Program, opt *Options) *extras {
	if opt.Noise == nil && (opt.Network == nil || opt.Network.Model() == topology.None) && !opt.Breakdown && !opt.Record && opt.Progress == nil {
		return nil
	}
	x := &extras{noise: opt.Noise, prog: opt.Progress}
	if n := opt.Network; n != nil && n.Model() != topology.None {
		n.Reset()
		x.net = n
		x.netH = make([]int32, len(p.ops))
		for i := range x.netH {
			x.netH[i] = topology.NoFlow
		}
		if n.Model() == topology.Flow {
			x.park = make([]event, len(p.ops))
		}
	}
	if opt.Breakdown {
		x.bd = make([]Breakdown, p.NumRanks)
	}
	if opt.Record {
		x.rec = make([]OpRecord, len(p.ops))
		for i := range x.rec {
			x.rec[i] = OpRecord{End: -1, Delivered: -1, Arrive: -1, RecvCPUEnd: -1, Match: -1}
		}
	}
	return x
}

// charge returns the noise that CPU work of length ns at t on rank r
// absorbs.
func (x *extras) charge(r int32, t, length int64) int64 {
	if x.noise == nil {
		return 0
	}
	return x.noise.Charge(r, t, length)
}

// wake queues the arrivals the network hands back before the event at
// time head is processed.
func (e *engine) wake(head int64) {
	for {
		id, t, ok := e.x.net.Wake(head)
		if !ok {
			return
		}
		ev := e.x.park[id]
		ev.time = max(t, e.now)
		e.x.netH[id] = topology.NoFlow
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
	h := x.netH[ev.op]
	if h == topology.NoFlow {
		return ev.time
	}
	at := x.net.Arrive(h, ev.time)
	if at == topology.Never {
		x.park[ev.op] = ev
		return at
	}
	if at == ev.time {
		x.netH[ev.op] = topology.NoFlow
	}
	return at
}

// finishBreakdown fills in the finishing times and waiting.
func (e *engine) finishBreakdown(perRank []int64) []Breakdown {
	bd := e.x.bd
	for r := range bd {
		b := &bd[r]
		b.Finish = perRank[r]
		b.Wait = int64(e.nc)*b.Finish - b.Calc - b.SendOverhead - b.RecvOverhead - b.Noise
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
		x.netH[ev.op] = x.net.Start(t, ev.rank, e.ops[ev.op].peer, int64(size), ev.op)
	}
	if x.rec != nil {
		r := &x.rec[ev.op]
		r.Start, r.CPUEnd, r.Noise = t, cpuEnd, n
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
	if x.rec != nil && at == ev.time && x.rec[ev.op].Delivered < 0 {
		x.rec[ev.op].Delivered = at
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
	if x.rec != nil {
		r := &x.rec[ev.op]
		r.Arrive, r.RecvCPUEnd, r.RecvNoise = t, cpuEnd, n
	}
	return cpuEnd
}

// matched records that send s matched receive r.
func (x *extras) matched(s, r int32) {
	x.rec[s].Match, x.rec[r].Match = r, s
	x.rec[r].CPUEnd = x.rec[s].RecvCPUEnd
}
