package topology_test

import (
	"fmt"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/topology"
)

// refEngine is a small LogGOPS engine for schedules without dependencies
// (docs/model.md's rules, one CPU and one NIC per rank), wired to a
// Network exactly as sim's engine should be: it is the reference for the
// hook points and drives the conformance cases of
// sim/testdata/conformance/network/.
type refEngine struct {
	L, o, g, G, O, S int64

	s   *goal.Schedule
	net *topology.Network

	q       []refEvent
	seq     uint64
	cpu     []int64
	snic    []int64
	rnic    []int64
	handle  []int32 // per send op: its network handle
	parked  []refEvent
	posted  [][]int32 // per rank: posted receives (global op)
	unexp   [][]int32 // per rank: unexpected sends (global op)
	matched []bool    // per rendezvous send: matched
	sendEnd []int64   // per rendezvous send: o end
}

type refEvent struct {
	t       int64
	seq     uint64
	arrival bool
	op      int32 // global op index (the send for an arrival)
}

func newRefEngine(s *goal.Schedule, net *topology.Network) *refEngine {
	P := s.NumRanks
	e := &refEngine{L: 2500, o: 1500, g: 1000, G: 6, O: 0, S: 65535, s: s, net: net,
		cpu: make([]int64, P), snic: make([]int64, P), rnic: make([]int64, P),
		handle: make([]int32, len(s.Ops)), parked: make([]refEvent, len(s.Ops)),
		posted: make([][]int32, P), unexp: make([][]int32, P),
		matched: make([]bool, len(s.Ops)), sendEnd: make([]int64, len(s.Ops))}
	return e
}

func (e *refEngine) push(ev refEvent) {
	e.q = append(e.q, ev)
	for i := len(e.q) - 1; i > 0; {
		p := (i - 1) / 2
		if !refBefore(e.q[i], e.q[p]) {
			break
		}
		e.q[i], e.q[p] = e.q[p], e.q[i]
		i = p
	}
}

func refBefore(a, b refEvent) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

func (e *refEngine) pop() refEvent {
	top := e.q[0]
	n := len(e.q) - 1
	e.q[0] = e.q[n]
	e.q = e.q[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && refBefore(e.q[c+1], e.q[c]) {
			c++
		}
		if !refBefore(e.q[c], e.q[i]) {
			break
		}
		e.q[i], e.q[c] = e.q[c], e.q[i]
		i = c
	}
	return top
}

func (e *refEngine) newEvent(t int64, arrival bool, op int32) refEvent {
	ev := refEvent{t: t, seq: e.seq, arrival: arrival, op: op}
	e.seq++
	return ev
}

func (e *refEngine) rankOf(g int32) int32 { return int32(e.s.RankOf(g)) }

// run returns every rank's finishing time.
func (e *refEngine) run() ([]int64, error) {
	for r := 0; r < e.s.NumRanks; r++ {
		for _, k := range []goal.Kind{goal.Send, goal.Recv, goal.Calc} {
			for i := e.s.RankStart[r]; i < e.s.RankStart[r+1]; i++ {
				if e.s.DepStart[i] != e.s.DepStart[i+1] {
					return nil, fmt.Errorf("refEngine: op %d has dependencies", i)
				}
				if e.s.Ops[i].Kind == k {
					e.push(e.newEvent(0, false, i))
				}
			}
		}
	}
	for {
		// Hook 3: before popping, hand back parked arrivals that drained
		// no later than the head event.
		head := topology.Never
		if len(e.q) > 0 {
			head = e.q[0].t
		}
		if id, t, ok := e.net.Wake(head); ok {
			ev := e.parked[id]
			ev.t = t
			e.handle[id] = topology.NoFlow
			e.push(ev)
			continue
		}
		if len(e.q) == 0 {
			break
		}
		ev := e.pop()
		op := e.s.Ops[ev.op]
		r := e.rankOf(ev.op)
		b := max(int64(op.Size)-1, 0)
		switch {
		case ev.arrival:
			q := op.Peer
			// Hook 2: ask the network first (LogGOPSim does, and its
			// query has side effects), then check the receiver.
			at := ev.t
			if h := e.handle[ev.op]; h != topology.NoFlow {
				at = e.net.Arrive(h, ev.t)
				if at == topology.Never { // Flow: parked until Wake
					e.parked[ev.op] = ev
					continue
				}
				if at == ev.t {
					e.handle[ev.op] = topology.NoFlow // drained, released
				}
			}
			if free := max(at, e.cpu[q], e.rnic[q]); free > ev.t {
				ev.t = free
				e.push(ev)
				continue
			}
			t := ev.t
			e.cpu[q] = t + e.o + max(b*e.O, b*e.G)
			e.rnic[q] = t + e.g + b*e.G
			if k := e.find(e.posted[q], r); k >= 0 {
				e.posted[q] = append(e.posted[q][:k], e.posted[q][k+1:]...)
				if int64(op.Size) > e.S {
					e.match(ev.op, t)
				}
			} else {
				e.unexp[q] = append(e.unexp[q], ev.op)
			}
		case op.Kind == goal.Calc:
			if e.cpu[r] > ev.t {
				ev.t = e.cpu[r]
				e.push(ev)
				continue
			}
			e.cpu[r] = ev.t + int64(op.Size)
		case op.Kind == goal.Send:
			if free := max(e.cpu[r], e.snic[r]); free > ev.t {
				ev.t = free
				e.push(ev)
				continue
			}
			t := ev.t
			e.cpu[r] = t + e.o + b*e.O
			e.snic[r] = t + e.g + b*e.G
			// Hook 1: the message enters the network when its send starts.
			e.handle[ev.op] = e.net.Start(t, r, op.Peer, int64(op.Size), ev.op)
			e.push(e.newEvent(t+e.o+e.L, true, ev.op))
			e.sendEnd[ev.op] = e.cpu[r]
		case op.Kind == goal.Recv:
			if k := e.findSend(e.unexp[r], op.Peer); k >= 0 {
				g := e.unexp[r][k]
				e.unexp[r] = append(e.unexp[r][:k], e.unexp[r][k+1:]...)
				if int64(e.s.Ops[g].Size) > e.S {
					e.match(g, ev.t)
				}
			} else {
				e.posted[r] = append(e.posted[r], ev.op)
			}
		}
	}
	return e.cpu, nil
}

// find returns the first posted receive from src (or any source).
func (e *refEngine) find(posted []int32, src int32) int {
	for k, g := range posted {
		if p := e.s.Ops[g].Peer; p == src || p == goal.AnySource {
			return k
		}
	}
	return -1
}

// findSend returns the first unexpected send from src (or any).
func (e *refEngine) findSend(unexp []int32, src int32) int {
	for k, g := range unexp {
		if src == goal.AnySource || e.rankOf(g) == src {
			return k
		}
	}
	return -1
}

// match completes rendezvous send g at t.
func (e *refEngine) match(g int32, t int64) {
	s := e.rankOf(g)
	e.cpu[s] = max(e.cpu[s], t)
	e.snic[s] = max(e.snic[s], t)
}
