package sim

import (
	"slices"

	"github.com/gopsim/gopsim/goal"
)

// OpInfo is what the schedule says of one op of a Program, as read by
// Program.OpInfo: the static fields, not the state of a run.
type OpInfo struct {
	Rank  int       // rank that owns the op
	Index int32     // op index within the rank
	Kind  goal.Kind // Send, Recv or Calc
	Peer  int32     // destination (send), source (recv, may be goal.AnySource); 0 for calc
	Tag   uint32    // message tag (goal.AnyTag for the wildcard); 0 for calc
	Size  uint64    // bytes (send, recv) or ns (calc)
	CPU   uint16    // CPU that executes the op
	NIC   uint16    // NIC that carries the message; 0 for calc
}

// Edge is a dependency edge of a Program seen from one end: the op at the
// other end, by global index, and whether it is an irequires edge (the
// successor may start once the predecessor has started) rather than a
// requires edge (once it has completed). Edges never leave a rank.
type Edge struct {
	Op    int32
	Start bool
}

// OpInfo returns the static fields of op g (global index, 0 <= g <
// NumOps()). A streamed program (ReadProgramStream) reads them from its
// spill file, a unit at a time: slow, and the zero OpInfo but for Rank and
// Index if the file cannot be read.
func (p *Program) OpInfo(g int32) OpInfo {
	info, _ := p.opInfo(g)
	return info
}

// opInfo is OpInfo with the error reading a streamed program's spill file.
func (p *Program) opInfo(g int32) (OpInfo, error) {
	r := p.rankOf(g)
	info := OpInfo{Rank: r, Index: g - p.rankStart[r]}
	var o *opRec
	var cn uint32
	if p.win != nil {
		rec, c, _, err := p.win.static(p, int32(r), g, nil)
		if err != nil {
			return info, err
		}
		o, cn = &rec, c
	} else {
		o = &p.ops[g]
		if p.cn != nil {
			cn = p.cn[g]
		}
	}
	info.Kind, info.Peer, info.Tag, info.Size = o.kind(), o.peer, o.tag, o.bytes()
	info.CPU, info.NIC = uint16(cn>>16), uint16(cn)
	return info, nil
}

// Label returns the label of op g: the one the schedule gave it ("" when
// a text schedule gave none), or goal.CanonicalLabel of its index within
// its rank when the schedule stored none.
func (p *Program) Label(g int32) string { return p.label(p.rankOf(g), g) }

// RankOps returns the global indexes of rank r's ops: lo <= g < hi.
func (p *Program) RankOps(r int) (lo, hi int32) { return p.rankStart[r], p.rankStart[r+1] }

// Succ appends the successors of op g to buf and returns it, in the order
// the schedule gave the edges. A streamed program reads them from its
// spill file (see OpInfo); if it cannot, it appends none.
func (p *Program) Succ(g int32, buf []Edge) []Edge {
	if p.win != nil {
		out, err := p.win.succ(p, g, buf)
		if err != nil {
			return buf
		}
		return out
	}
	ed := p.ops[g].edge
	if ed&edgeList == 0 {
		return appendInline(buf, ed, g)
	}
	at := ed &^ edgeList
	for _, d := range p.deps[at+1 : at+1+p.deps[at]] {
		buf = append(buf, Edge{Op: int32(d >> 1), Start: d&1 != 0})
	}
	return buf
}

// appendInline appends the successors that op g keeps in its edge word
// ed (inlineEdges), in order, to buf.
func appendInline(buf []Edge, ed uint32, g int32) []Edge {
	n, a, b := inlineEdges(ed)
	if n > 0 {
		buf = append(buf, Edge{Op: g + int32(a>>1), Start: a&1 != 0})
	}
	if n > 1 {
		buf = append(buf, Edge{Op: g + int32(b>>1), Start: b&1 != 0})
	}
	return buf
}

// Preds returns the predecessors of every op of rank r, in CSR form:
// op g's are edges[start[g-lo]:start[g-lo+1]] where lo, _ = RankOps(r),
// with Edge.Op the predecessor, each list in the order of the
// predecessors' indexes. It costs a pass over the rank's edges; callers
// that walk a graph backwards keep the result per rank.
func (p *Program) Preds(r int) (start []int32, edges []Edge) {
	return p.predsInto(r, nil, nil)
}

// predsInto is Preds with the slices to reuse for start and edges.
func (p *Program) predsInto(r int, start []int32, edges []Edge) ([]int32, []Edge) {
	lo, hi := p.RankOps(r)
	start = slices.Grow(start[:0], int(hi-lo+1))[:hi-lo+1]
	clear(start)
	var buf []Edge
	for g := lo; g < hi; g++ {
		buf = p.Succ(g, buf[:0])
		for _, e := range buf {
			start[e.Op-lo+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	edges = slices.Grow(edges[:0], int(start[len(start)-1]))[:start[len(start)-1]]
	fill := make([]int32, hi-lo)
	for g := lo; g < hi; g++ {
		buf = p.Succ(g, buf[:0])
		for _, e := range buf {
			i := e.Op - lo
			edges[start[i]+fill[i]] = Edge{Op: g, Start: e.Start}
			fill[i]++
		}
	}
	return start, edges
}

// MessageCost is what a message of a given size pays under a parameter
// set, in ns (Costs.Of), as the engine charges it without noise: computed
// in ps from the parameters and rounded once to the nearest ns. Costs
// beyond MaxTime ps come out as MaxTime/1000 + 1 ns.
type MessageCost struct {
	L        int64 // wire latency
	Overhead int64 // o, per message at each end
	SendCPU  int64 // the sender's CPU: o + (s-1)·O
	RecvCPU  int64 // the receiver's CPU: o + max((s-1)·O, (s-1)·G)
	NIC      int64 // a NIC's occupation at either end: g + (s-1)·G
}

// Costs resolves message sizes to their costs under one parameter set,
// size ranges included.
type Costs struct{ t costTable }

// NewCosts returns the costs of parameter set p.
func NewCosts(p Params) *Costs { return &Costs{t: newCostTable(&p, 1000)} }

// Of returns the costs of a message of size bytes.
func (c *Costs) Of(size uint64) MessageCost {
	co := c.t.of(size)
	b := bytesBeyondFirst(size)
	ns := func(t int64) int64 { return toNs(min(t, tooLong), 1000) }
	return MessageCost{L: ns(co.L), Overhead: ns(co.o), SendCPU: ns(co.o + co.O(b)), RecvCPU: ns(co.o + max(co.O(b), co.G(b))), NIC: ns(co.g + co.G(b))}
}
