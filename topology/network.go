package topology

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Model selects how messages in flight share links.
type Model uint8

const (
	// None is LogGOPS: the network is a crossbar and is never consulted.
	None Model = iota
	// Simple is LogGOPSim's --network-type simple: a message progresses at
	// 1/k bytes per ns, k the largest number of messages in flight on a
	// link of its route, and leaves the network when its arrival finds it
	// drained.
	Simple
	// Flow is max-min fair sharing: link bandwidth is divided by
	// progressive filling among the flows crossing it, recomputed whenever
	// a flow starts or drains.
	Flow
)

func (m Model) String() string {
	switch m {
	case None:
		return "none"
	case Simple:
		return "simple"
	case Flow:
		return "flow"
	}
	return fmt.Sprintf("Model(%d)", uint8(m))
}

// ParseModel parses a --network-type value: none (or LogGP, LogGOPSim's
// name for it), simple or flow.
func ParseModel(s string) (Model, error) {
	switch strings.ToLower(s) {
	case "none", "loggp", "":
		return None, nil
	case "simple":
		return Simple, nil
	case "flow":
		return Flow, nil
	}
	return None, fmt.Errorf("%w: network type %q (want none, simple or flow)", ErrTopology, s)
}

// Routing selects static or minimal adaptive routing.
type Routing uint8

const (
	// Static routes are fixed per (source, destination); see Graph.Route.
	Static Routing = iota
	// Adaptive routes pick, at each node with several minimal next hops,
	// the link with the fewest messages in flight when the message enters
	// the network; see Graph.RouteAdaptive. The route is then fixed.
	Adaptive
)

// Options configure a Network. The zero value is the None model with
// static routing and links of 1 byte per ns.
type Options struct {
	Model   Model
	Routing Routing
	// Bandwidth is the Flow model's bandwidth of a capacity-1 link, bytes
	// per ns; 0 means 1, the rate of LogGOPSim's simple model. The Simple
	// model always uses 1, as LogGOPSim does.
	Bandwidth float64
}

const (
	// NoFlow is the handle of a message that does not use the network
	// (model None, or no bytes): Arrive(NoFlow, t) returns t.
	NoFlow int32 = -1
	// Never is the time Arrive returns for a parked arrival and Wake for
	// no wake-up.
	Never int64 = math.MaxInt64
)

// Network holds the messages in flight on a Graph for one simulation run
// and decides when each has drained. The engine calls it from its event
// loop, in non-decreasing time order:
//
//   - Start when a send starts: the message enters the network; keep the
//     handle with the arrival event.
//   - Arrive when that arrival event is processed, before the receiver's
//     CPU and NIC are checked: it returns the time t given if the message
//     has drained (the handle is then released: use NoFlow from there on),
//     a later time to retry at (Simple: put the arrival back at the latest
//     of that, the CPU and the NIC free times), or Never (Flow: the
//     arrival is parked and Wake will hand it back).
//   - Wake before popping each event, with the time of the event at the
//     head of the queue (Never if the queue is empty): while it returns
//     ok, queue the arrival of id at time t (t is no later than the head)
//     and call it again with the head's new time, min(head, t): the
//     queued arrival is now the head. Calling it again with the old head
//     would advance the network past an arrival the engine has yet to
//     process, and a send that arrival releases would start in the
//     network late (a caller that starts nothing in reaction to wake-ups
//     may keep the old limit).
//
// A Network allocates nothing per message once its tables have grown to
// the largest number of messages in flight at once.
type Network struct {
	g       *Graph
	hostOf  Mapping
	model   Model
	adapt   bool
	bw      float64
	now     int64
	seq     uint64
	started uint64

	// Per message slot.
	msgs   []msg
	routes [][]int32 // the route of each slot (its buffer is reused)
	pos    [][]int32 // pos[s][i]: index of slot s in onLink[routes[s][i]]
	free   []int32

	// Per link.
	onLink  [][]linkEntry // the messages in flight on each link
	load    []int32       // len(onLink[l]), for adaptive routing
	stBytes []int64
	stMsgs  []int64
	stBusy  []int64
	stSince []int64
	stPeak  []int32

	// Simple: LogGOPSim's "query db" of messages to query when a message
	// enters at the time their uncongested transfer would end.
	pending pendHeap
	recalc  []int32
	epoch   uint32

	// Flow.
	fh         finishHeap
	dirty      bool
	dirtyLinks []int32
	linkMark   []uint32
	compLinks  []int32
	compFlows  []int32
	capRem     []float64 // per link: capacity left to the flows being re-solved
	unfrozen   []int32   // per link: flows being re-solved not yet frozen
	share      []float64 // per link: capRem/unfrozen, the key of lh
	lpos       []int32   // per link: position in lh, -1 if none
	lh         linkHeap
	touchMark  []uint32
	tepoch     uint32
	touched    []int32
	parked     int
	woken      []woke
	wHead      int
	recomputes uint64
}

type msg struct {
	seq   uint64
	bytes int64
	id    int32
	state uint8
	hpos  int32 // Flow: position in the finish heap, -1 if none
	mark  uint32

	// Simple: LogGOPSim's fixed point, units of 1e-4 byte.
	left int64
	last int64 // Simple and Flow: time left (rem) was last brought up to date
	cong int32

	// Flow.
	rem    float64 // bytes left at time last
	rate   float64 // bytes per ns; -1 while progressive filling runs
	finish int64
	bn     int32 // a bottleneck link
}

const (
	stFree uint8 = iota
	stActive
	stDrained // left the network; its arrival has not been seen
	stParked  // Flow: in flight, its arrival waits
)

type linkEntry struct {
	slot int32
	hop  int32 // index of the link in the slot's route
}

type woke struct {
	id int32
	t  int64
}

// NewNetwork makes the network state for ranks placed on g by m.
func NewNetwork(g *Graph, m Mapping, opt Options) (*Network, error) {
	if err := m.Check(g); err != nil {
		return nil, err
	}
	if opt.Model > Flow {
		return nil, errTopo("unknown network model %d", opt.Model)
	}
	if opt.Routing > Adaptive {
		return nil, errTopo("unknown routing %d", opt.Routing)
	}
	bw := opt.Bandwidth
	if bw == 0 {
		bw = 1
	}
	if !(bw > 0) || math.IsInf(bw, 0) {
		return nil, errTopo("bandwidth %v bytes/ns (want a positive number)", opt.Bandwidth)
	}
	L := g.NumLinks()
	n := &Network{g: g, hostOf: m, model: opt.Model, adapt: opt.Routing == Adaptive, bw: bw}
	if opt.Model == None {
		return n, nil
	}
	n.onLink = make([][]linkEntry, L)
	n.load = make([]int32, L)
	n.stBytes = make([]int64, L)
	n.stMsgs = make([]int64, L)
	n.stBusy = make([]int64, L)
	n.stSince = make([]int64, L)
	n.stPeak = make([]int32, L)
	if opt.Model == Flow {
		n.linkMark = make([]uint32, L)
		n.capRem = make([]float64, L)
		n.unfrozen = make([]int32, L)
		n.share = make([]float64, L)
		n.lpos = make([]int32, L)
		n.touchMark = make([]uint32, L)
	}
	return n, nil
}

// Model returns the congestion model.
func (n *Network) Model() Model { return n.model }

// Graph returns the topology.
func (n *Network) Graph() *Graph { return n.g }

// InFlight returns the number of messages that entered and have not been
// released by Arrive or Wake.
func (n *Network) InFlight() int { return len(n.msgs) - len(n.free) }

// Messages returns the number of messages that entered the network.
func (n *Network) Messages() uint64 { return n.started }

// Recomputes returns how many times the Flow model ran progressive filling.
func (n *Network) Recomputes() uint64 { return n.recomputes }

// Reset empties the network for another run, keeping its memory.
func (n *Network) Reset() {
	n.msgs, n.free = n.msgs[:0], n.free[:0] // routes and pos keep their buffers
	for l := range n.onLink {
		n.onLink[l] = n.onLink[l][:0]
		n.load[l], n.stBytes[l], n.stMsgs[l], n.stBusy[l], n.stSince[l], n.stPeak[l] = 0, 0, 0, 0, 0, 0
	}
	n.now, n.seq, n.started = 0, 0, 0
	n.pending = n.pending[:0]
	n.fh = n.fh[:0]
	n.dirty, n.dirtyLinks = false, n.dirtyLinks[:0]
	n.parked, n.woken, n.wHead, n.recomputes = 0, n.woken[:0], 0, 0
}

func (n *Network) alloc() int32 {
	if k := len(n.free); k > 0 {
		s := n.free[k-1]
		n.free = n.free[:k-1]
		return s
	}
	n.msgs = append(n.msgs, msg{})
	if len(n.routes) < len(n.msgs) {
		n.routes = append(n.routes, make([]int32, 0, n.g.maxHops))
		n.pos = append(n.pos, make([]int32, 0, n.g.maxHops))
	}
	return int32(len(n.msgs) - 1)
}

func (n *Network) release(s int32) {
	n.msgs[s].state = stFree
	n.free = append(n.free, s)
}

// Start puts a message of bytes from rank src to rank dst into the
// network at time now and returns its handle (NoFlow for the None model
// and for empty messages, which do not use the network). id is the
// engine's name for the message; Wake returns it.
func (n *Network) Start(now int64, src, dst int32, bytes int64, id int32) int32 {
	if n.model == None || bytes <= 0 {
		return NoFlow
	}
	if n.model == Flow {
		n.advance(now, false)
	} else {
		n.simplePoll(now)
	}
	n.now = max(n.now, now)
	s := n.alloc()
	m := &n.msgs[s]
	*m = msg{seq: n.seq, bytes: bytes, id: id, state: stActive, hpos: -1}
	n.seq++
	n.started++
	if n.adapt {
		n.routes[s] = n.g.RouteAdaptive(n.routes[s][:0], n.hostOf[src], n.hostOf[dst], n.load)
	} else {
		n.routes[s] = n.g.Route(n.routes[s][:0], n.hostOf[src], n.hostOf[dst])
	}
	if n.model == Simple {
		n.simpleStart(s, now)
	} else {
		n.flowStart(s, now)
	}
	return s
}

// Arrive is called when the arrival event of message h is processed at
// time now. It returns now if the message has drained (h is released),
// a later time at which to process the arrival again (Simple), or Never
// (Flow: the arrival is parked until Wake returns its id).
func (n *Network) Arrive(h int32, now int64) int64 {
	if h == NoFlow {
		return now
	}
	m := &n.msgs[h]
	if n.model == Flow {
		n.advance(now, false)
		n.now = max(n.now, now)
		switch m.state {
		case stDrained:
			n.release(h)
			return now
		case stActive:
			m.state = stParked
			n.parked++
			return Never
		}
		panic(fmt.Sprintf("topology: Arrive(%d) on a message in state %d", h, m.state))
	}
	switch m.state {
	case stDrained:
		n.release(h)
		return now
	case stActive:
		if t, done := n.simpleQuery(h, now); !done {
			return t
		}
		n.release(h)
		return now
	}
	panic(fmt.Sprintf("topology: Arrive(%d) on a message in state %d", h, m.state))
}

// Wake hands back parked arrivals (Flow): it advances the network to at
// most limit, the time of the next event, and returns the id given to
// Start of a message whose arrival was parked and that drained at t <=
// limit. Call it until ok is false before processing the event at limit,
// lowering limit to each t returned (see Network).
// Messages draining at the same time come back in the order they started.
func (n *Network) Wake(limit int64) (id int32, t int64, ok bool) {
	if n.wHead == len(n.woken) {
		n.woken, n.wHead = n.woken[:0], 0
		if n.parked == 0 {
			return NoFlow, Never, false
		}
		n.advance(limit, true)
		if len(n.woken) == 0 {
			return NoFlow, Never, false
		}
	}
	w := n.woken[n.wHead]
	n.wHead++
	return w.id, w.t, true
}

// Route returns the links of message h's route (the Network's own slice).
func (n *Network) Route(h int32) []int32 { return n.routes[h] }

// Rate returns the bandwidth message h gets now, bytes per ns.
func (n *Network) Rate(h int32) float64 {
	m := &n.msgs[h]
	if m.state != stActive && m.state != stParked {
		return 0
	}
	if n.model == Simple {
		return 1 / float64(m.cong)
	}
	if n.dirty {
		n.recompute()
	}
	return m.rate
}

// Finish returns the time message h drains if nothing else starts or
// drains meanwhile (Flow), or the time it drained.
func (n *Network) Finish(h int32) int64 {
	if n.dirty {
		n.recompute()
	}
	return n.msgs[h].finish
}

func (n *Network) linkEnter(l int32, now, bytes int64) {
	n.stBytes[l] += bytes
	n.stMsgs[l]++
	n.load[l]++
	if n.load[l] == 1 {
		n.stSince[l] = now
	}
	n.stPeak[l] = max(n.stPeak[l], n.load[l])
}

func (n *Network) linkLeave(l int32, now int64) {
	n.load[l]--
	if n.load[l] == 0 {
		n.stBusy[l] += now - n.stSince[l]
	}
}

// enter appends slot s to the lists of the links on its route.
func (n *Network) enter(s int32, now int64) {
	route := n.routes[s]
	pos := n.pos[s][:0]
	for i, l := range route {
		pos = append(pos, int32(len(n.onLink[l])))
		n.onLink[l] = append(n.onLink[l], linkEntry{s, int32(i)})
		n.linkEnter(l, now, n.msgs[s].bytes)
	}
	n.pos[s] = pos
}

// leave removes slot s from the lists of the links on its route.
func (n *Network) leave(s int32, now int64) {
	for i, l := range n.routes[s] {
		lst := n.onLink[l]
		p := n.pos[s][i]
		last := lst[len(lst)-1]
		lst[p] = last
		n.pos[last.slot][last.hop] = p
		n.onLink[l] = lst[:len(lst)-1]
		n.linkLeave(l, now)
	}
}

// ---- Simple: LogGOPSim's SimpleNetwork, operation for operation ----

// progress returns LogGOPSim's (uint64_t) floor((double)(dt*1e4)/cong).
func progress(dt int64, cong int32) int64 {
	return int64(uint64(math.Floor(float64(dt) * 1e4 / float64(cong))))
}

func (n *Network) simpleStart(s int32, now int64) {
	m := &n.msgs[s]
	m.left = int64(float64(m.bytes) * 1e4)
	m.last = now
	m.cong = 1
	for _, l := range n.routes[s] {
		lst := n.onLink[l]
		if k := int32(len(lst)); k > 0 {
			m.cong = max(m.cong, k+1)
			for _, e := range lst {
				o := &n.msgs[e.slot]
				o.left -= progress(now-o.last, o.cong)
				o.last = now
				if o.cong == k {
					o.cong++
				}
			}
		}
	}
	n.enter(s, now)
	n.pending.push(pend{t: now + m.bytes, seq: m.seq, slot: s})
}

// simplePoll is LogGOPSim's "noorder" step at the start of an insert at
// now: the messages whose uncongested transfer ends exactly at now are
// queried first, in the order they entered, and leave if drained.
func (n *Network) simplePoll(now int64) {
	for len(n.pending) > 0 && n.pending[0].t <= now {
		e := n.pending.pop()
		if e.t < now {
			continue
		}
		m := &n.msgs[e.slot]
		if m.seq != e.seq || m.state == stFree || m.state == stDrained {
			continue // already left (LogGOPSim's behaviour there is undefined)
		}
		n.simpleQuery(e.slot, now)
	}
}

// simpleQuery is LogGOPSim's SimpleNetwork::query: it brings message s up
// to date at now and, if it has drained, takes it out of the network and
// recomputes the congestion of the messages that shared a link with it.
// Otherwise it returns the time to ask again: now plus the bytes left at
// 1 byte per ns, whatever the congestion (LogGOPSim's estimate).
func (n *Network) simpleQuery(s int32, now int64) (int64, bool) {
	m := &n.msgs[s]
	m.left -= progress(now-m.last, m.cong)
	m.last = now
	if m.left > 0 {
		return int64(float64(now) + math.Ceil(float64(m.left)/1e4)), false
	}
	ep := n.nextEpoch()
	rc := n.recalc[:0]
	for _, l := range n.routes[s] {
		for _, e := range n.onLink[l] {
			if e.slot == s {
				continue
			}
			o := &n.msgs[e.slot]
			o.left -= progress(now-o.last, o.cong)
			o.last = now
			if o.mark != ep {
				o.mark = ep
				rc = append(rc, e.slot)
			}
		}
	}
	n.leave(s, now)
	for _, o := range rc {
		c := int32(0)
		for _, l := range n.routes[o] {
			c = max(c, int32(len(n.onLink[l])))
		}
		n.msgs[o].cong = c
	}
	n.recalc = rc
	m.state = stDrained
	m.finish = now
	return now, true
}

// ---- Flow: max-min fair sharing ----

func (n *Network) flowStart(s int32, now int64) {
	m := &n.msgs[s]
	m.rem = float64(m.bytes)
	m.last = now
	if len(n.routes[s]) == 0 { // same host: not shared
		m.rate = n.bw
		m.finish = now + ceilTime(m.rem, m.rate)
		n.fh.push(n.msgs, s)
		return
	}
	m.rate = 0
	m.finish = Never
	n.enter(s, now)
	n.dirtyLinks = append(n.dirtyLinks, n.routes[s]...)
	n.dirty = true
}

// ceilTime returns the ns needed for rem bytes at rate, rounded up, with a
// relative tolerance of 1e-12 so that a float quotient a hair above an
// integer does not cost a nanosecond.
func ceilTime(rem, rate float64) int64 {
	if rem <= 0 {
		return 0
	}
	x := rem / rate * (1 - 1e-12)
	if x >= 1<<62 {
		return 1 << 62
	}
	return int64(math.Ceil(x))
}

// advance completes, in time order, every flow that drains at or before
// t, recomputing rates after each batch of simultaneous completions. With
// stopOnWake it stops after a batch that drained a parked flow.
func (n *Network) advance(t int64, stopOnWake bool) {
	for {
		if n.dirty {
			if t <= n.now {
				break // nothing changed rate can drain before n.now+1
			}
			n.recompute()
		}
		if len(n.fh) == 0 || n.msgs[n.fh[0]].finish > t {
			break
		}
		tf := n.msgs[n.fh[0]].finish
		n.now = tf
		woke := false
		for len(n.fh) > 0 && n.msgs[n.fh[0]].finish == tf {
			s := n.fh.pop(n.msgs)
			woke = n.complete(s, tf) || woke
		}
		if woke && stopOnWake {
			return
		}
	}
	if t > n.now && t != Never {
		n.now = t
	}
}

// complete takes flow s, drained at tf, out of the network.
func (n *Network) complete(s int32, tf int64) bool {
	if len(n.routes[s]) > 0 {
		n.leave(s, tf)
		n.dirtyLinks = append(n.dirtyLinks, n.routes[s]...)
		n.dirty = true
	}
	m := &n.msgs[s]
	m.rate, m.rem, m.finish = 0, 0, tf
	if m.state == stParked {
		n.parked--
		n.woken = append(n.woken, woke{m.id, tf})
		n.release(s)
		return true
	}
	m.state = stDrained
	return false
}

// Flow rates: max-min fair sharing by progressive filling, restricted to
// the flows whose rates can change.
//
// An allocation is max-min fair if and only if every flow has a bottleneck:
// a saturated link on its route on which no flow gets more than it does
// (Bertsekas and Gallager, Data Networks, 6.5.2). After every recompute
// each flow records such a link (bn). When flows start or drain, only the
// flows on the links they cross (the changed links) are re-solved, by
// progressive filling on what the other flows leave of each link; then
// every flow's bottleneck is checked: a re-solved flow whose bottleneck
// carries another flow with a larger rate, or an unchanged flow whose
// bottleneck changed and no longer qualifies, joins the re-solved set and
// the step repeats. When the checks pass, every flow has a bottleneck, so
// the allocation is the max-min fair one, as a full recomputation would
// give. After a few rounds the whole connected component is re-solved
// at once, which always passes.

// fairTol is the relative tolerance of the bottleneck checks.
const fairTol = 1e-10

// fullRecompute makes every recompute re-solve the whole connected
// component (tests compare the two).
var fullRecompute = false

// maxRounds bounds the rounds of the restricted recompute before it falls
// back to the connected component.
const maxRounds = 4

// nextEpoch returns a fresh mark value, clearing the marks when the
// counter wraps.
func (n *Network) nextEpoch() uint32 {
	n.epoch++
	if n.epoch == 0 {
		for i := range n.msgs {
			n.msgs[i].mark = 0
		}
		clear(n.linkMark)
		n.epoch = 1
	}
	return n.epoch
}

// addFlow puts flow f into the set being re-solved, bringing its bytes
// left up to now at its old rate, and its links into the changed links.
func (n *Network) addFlow(f int32, ep uint32) {
	m := &n.msgs[f]
	if m.mark == ep {
		return
	}
	m.mark = ep
	if m.rate > 0 {
		m.rem -= float64(m.rate * float64(n.now-m.last))
	}
	m.last = n.now
	n.compFlows = append(n.compFlows, f)
	for _, l := range n.routes[f] {
		n.addLink(l, ep)
	}
}

func (n *Network) addLink(l int32, ep uint32) {
	if n.linkMark[l] != ep {
		n.linkMark[l] = ep
		n.compLinks = append(n.compLinks, l)
	}
}

// recompute re-solves the rates after flows started or drained at n.now.
func (n *Network) recompute() {
	n.dirty = false
	n.recomputes++
	ep := n.nextEpoch()
	n.compLinks, n.compFlows = n.compLinks[:0], n.compFlows[:0]
	for _, l := range n.dirtyLinks {
		n.addLink(l, ep)
	}
	n.dirtyLinks = n.dirtyLinks[:0]
	for _, l := range n.compLinks[:len(n.compLinks)] { // the flows on the changed links
		for _, e := range n.onLink[l] {
			n.addFlow(e.slot, ep) // appends its links, which are not walked here
		}
	}
	for round := 1; ; round++ {
		if round > maxRounds || fullRecompute {
			n.closeComponent(ep)
		}
		n.fill(ep)
		if round > maxRounds || fullRecompute || n.verify(ep) {
			break
		}
	}
	for _, f := range n.compFlows {
		m := &n.msgs[f]
		m.finish = n.now + ceilTime(m.rem, m.rate)
		if m.hpos < 0 {
			n.fh.push(n.msgs, f)
		} else {
			n.fh.fix(n.msgs, m.hpos)
		}
	}
}

// closeComponent adds every flow connected to the set through shared
// links.
func (n *Network) closeComponent(ep uint32) {
	for i := 0; i < len(n.compLinks); i++ {
		for _, e := range n.onLink[n.compLinks[i]] {
			n.addFlow(e.slot, ep)
		}
	}
}

// fill runs progressive filling for the flows of the set on the capacity
// the other flows leave of each changed link, recording each flow's
// bottleneck.
func (n *Network) fill(ep uint32) {
	for _, f := range n.compFlows {
		n.msgs[f].rate = -1
	}
	n.lh = n.lh[:0]
	for _, l := range n.compLinks {
		res := n.bw * n.g.capacity[l]
		c := int32(0)
		for _, e := range n.onLink[l] {
			if m := &n.msgs[e.slot]; m.mark == ep {
				c++
			} else {
				res -= m.rate
			}
		}
		n.capRem[l] = res
		n.unfrozen[l] = c
		n.lpos[l] = -1
		if c > 0 {
			n.share[l] = max(res, 0) / float64(c)
			n.lpos[l] = int32(len(n.lh))
			n.lh = append(n.lh, l)
		}
	}
	n.lh.init(n)
	for len(n.lh) > 0 {
		l := n.lh.pop(n)
		r := n.share[l]
		tep := n.nextTouch()
		touched := n.touched[:0]
		for _, e := range n.onLink[l] {
			m := &n.msgs[e.slot]
			if m.mark != ep || m.rate >= 0 {
				continue
			}
			m.rate, m.bn = r, l
			for _, l2 := range n.routes[e.slot] {
				n.capRem[l2] -= r
				n.unfrozen[l2]--
				if l2 != l && n.touchMark[l2] != tep {
					n.touchMark[l2] = tep
					touched = append(touched, l2)
				}
			}
		}
		for _, l2 := range touched {
			if n.lpos[l2] < 0 {
				continue
			}
			if n.unfrozen[l2] == 0 {
				n.lh.remove(n, n.lpos[l2])
				continue
			}
			n.share[l2] = max(n.capRem[l2], 0) / float64(n.unfrozen[l2])
			n.lh.fix(n, n.lpos[l2])
		}
		n.touched = touched
	}
}

// nextTouch returns a fresh mark for the links touched by one bottleneck.
func (n *Network) nextTouch() uint32 {
	n.tepoch++
	if n.tepoch == 0 {
		clear(n.touchMark)
		n.tepoch = 1
	}
	return n.tepoch
}

// verify checks the bottleneck of every flow that may have lost it and
// adds the flows that did to the set; it reports whether all passed.
func (n *Network) verify(ep uint32) bool {
	ok := true
	nf := len(n.compFlows)
	// A re-solved flow: no unchanged flow gets more on its bottleneck.
	for _, f := range n.compFlows[:nf] {
		m := &n.msgs[f]
		lim := m.rate * (1 + fairTol)
		for _, e := range n.onLink[m.bn] {
			if o := &n.msgs[e.slot]; o.mark != ep && o.rate > lim {
				n.addFlow(e.slot, ep)
				ok = false
			}
		}
	}
	// An unchanged flow whose bottleneck is a changed link: that link must
	// still be saturated with no flow getting more.
	nl := len(n.compLinks)
	for _, l := range n.compLinks[:nl] {
		var top float64
		has := false
		for _, e := range n.onLink[l] {
			o := &n.msgs[e.slot]
			top = max(top, o.rate)
			has = has || o.mark != ep && o.bn == l
		}
		if !has {
			continue
		}
		c := n.bw * n.g.capacity[l]
		saturated := n.capRem[l] <= c*fairTol
		for _, e := range n.onLink[l] {
			o := &n.msgs[e.slot]
			if o.mark != ep && o.bn == l && (!saturated || o.rate*(1+fairTol) < top) {
				n.addFlow(e.slot, ep)
				ok = false
			}
		}
	}
	return ok
}

// ---- statistics ----

// LinkStat is what one link carried.
type LinkStat struct {
	Link      int32
	From, To  int32 // nodes
	Bytes     int64 // bytes of the messages routed over it
	Messages  int64 // messages routed over it
	BusyNs    int64 // time with at least one message in flight on it
	PeakFlows int32 // most messages in flight on it at once
}

// LinkStats appends to buf the statistics of every link, counting links
// still busy as busy until now.
func (n *Network) LinkStats(now int64, buf []LinkStat) []LinkStat {
	if n.model == None {
		return buf
	}
	for l := range n.stBytes {
		buf = append(buf, n.linkStat(int32(l), now))
	}
	return buf
}

func (n *Network) linkStat(l int32, now int64) LinkStat {
	busy := n.stBusy[l]
	if n.load[l] > 0 && now > n.stSince[l] {
		busy += now - n.stSince[l]
	}
	return LinkStat{Link: l, From: n.g.from[l], To: n.g.to[l], Bytes: n.stBytes[l], Messages: n.stMsgs[l],
		BusyNs: busy, PeakFlows: n.stPeak[l]}
}

// Hottest returns the k busiest links (by busy time, then bytes, then
// link index), busy time counted until now.
func (n *Network) Hottest(k int, now int64) []LinkStat {
	all := n.LinkStats(now, nil)
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.BusyNs != b.BusyNs {
			return a.BusyNs > b.BusyNs
		}
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		return a.Link < b.Link
	})
	if k < len(all) {
		all = all[:k]
	}
	return all
}
