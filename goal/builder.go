package goal

// Builder assembles one rank block op by op, the way a generator writes
// GOAL text: ops are numbered in the order they are added, and dependency
// edges are kept in the order they are given. Block groups the edges by
// predecessor (stably), so a schedule built with Builder is identical to the
// same schedule written as text and read back.
//
// A Builder is reused across ranks: Reset, add ops and edges, Block, hand
// the block to a writer, Reset again. Its storage is kept between ranks.
type Builder struct {
	b     RankBlock
	edges []builderEdge // in the order given
}

type builderEdge struct {
	pred, succ int32
	start      bool
}

// Reset empties the builder for the ops of rank.
func (x *Builder) Reset(rank int32) {
	x.b.Reset(rank)
	x.edges = x.edges[:0]
}

// Rank is the rank being built.
func (x *Builder) Rank() int32 { return x.b.Rank }

// NumOps is the number of ops added since Reset; the next op gets this index.
func (x *Builder) NumOps() int32 { return int32(len(x.b.Ops)) }

// Op returns op i, which must have been added.
func (x *Builder) Op(i int32) Op { return x.b.Ops[i] }

// Set replaces op i, which must have been added; a converter uses it to
// fill in a nonblocking receive once its completion says what arrived.
func (x *Builder) Set(i int32, op Op) { x.b.Ops[i] = op }

// Add appends op and returns its index within the rank.
func (x *Builder) Add(op Op) int32 {
	x.b.Ops = append(x.b.Ops, op)
	return int32(len(x.b.Ops) - 1)
}

// Send appends "send size b to peer tag tag cpu cpu nic nic".
func (x *Builder) Send(size uint64, peer int32, tag uint32, cpu, nic uint16) int32 {
	return x.Add(Op{Kind: Send, Size: size, Peer: peer, Tag: tag, CPU: cpu, NIC: nic})
}

// Recv appends "recv size b from peer tag tag cpu cpu nic nic".
func (x *Builder) Recv(size uint64, peer int32, tag uint32, cpu, nic uint16) int32 {
	return x.Add(Op{Kind: Recv, Size: size, Peer: peer, Tag: tag, CPU: cpu, NIC: nic})
}

// Calc appends "calc t cpu cpu" (t in ns).
func (x *Builder) Calc(t uint64, cpu uint16) int32 {
	return x.Add(Op{Kind: Calc, Size: t, CPU: cpu})
}

// Requires records "succ requires pred": succ starts after pred finished.
func (x *Builder) Requires(succ, pred int32) {
	x.edges = append(x.edges, builderEdge{pred: pred, succ: succ})
}

// Irequires records "succ irequires pred": succ starts after pred started.
func (x *Builder) Irequires(succ, pred int32) {
	x.edges = append(x.edges, builderEdge{pred: pred, succ: succ, start: true})
}

// NumEdges is the number of edges recorded since Reset.
func (x *Builder) NumEdges() int { return len(x.edges) }

// Edge returns edge i in the order given: its successor, predecessor and
// whether it is an irequires edge.
func (x *Builder) Edge(i int) (succ, pred int32, start bool) {
	e := x.edges[i]
	return e.succ, e.pred, e.start
}

// Block groups the edges by predecessor and returns the finished block. It
// stays valid until the next Reset. Edges must name ops that exist; Block
// does not validate (the writers and RankBlock.Validate do).
func (x *Builder) Block() *RankBlock {
	b := &x.b
	n := len(b.Ops)
	if cap(b.DepStart) < n+1 {
		b.DepStart = make([]int32, n+1)
	}
	b.DepStart = b.DepStart[:n+1]
	clear(b.DepStart)
	for _, e := range x.edges {
		b.DepStart[e.pred+1]++
	}
	for i := 0; i < n; i++ {
		b.DepStart[i+1] += b.DepStart[i]
	}
	if cap(b.Deps) < len(x.edges) {
		b.Deps = make([]Dep, len(x.edges))
	}
	b.Deps = b.Deps[:len(x.edges)]
	// Fill each predecessor's range in edge order, using DepStart shifted
	// by one as the cursor, then shift it back.
	for _, e := range x.edges {
		k := b.DepStart[e.pred]
		b.DepStart[e.pred]++
		b.Deps[k] = MakeDep(e.succ, e.start)
	}
	copy(b.DepStart[1:], b.DepStart[:n])
	b.DepStart[0] = 0
	return b
}
