package goal

import "fmt"

// BlockError describes what is wrong with a rank block: the op (and, for
// an edge, the edge index within Deps) that breaks a rule. Readers turn it
// into an error that names the file and the line or byte offset.
type BlockError struct {
	Rank int32
	Op   int32 // local op index, -1 if the error is not about one op
	Edge int32 // index into Deps, -1 if the error is not about an edge
	Msg  string
}

func (e *BlockError) Error() string {
	switch {
	case e.Edge >= 0:
		return fmt.Sprintf("rank %d, op %d, edge %d: %s", e.Rank, e.Op, e.Edge, e.Msg)
	case e.Op >= 0:
		return fmt.Sprintf("rank %d, op %d: %s", e.Rank, e.Op, e.Msg)
	}
	return fmt.Sprintf("rank %d: %s", e.Rank, e.Msg)
}

// Validate checks the invariants every reader guarantees: peers inside
// 0..numRanks-1 (AnySource allowed on receives only), known op kinds,
// calc ops without peer, tag or NIC, a well-formed CSR, successor indexes
// inside the block, and no dependency cycle. work is scratch space that
// may be nil; it is returned, possibly grown, for reuse.
func (b *RankBlock) Validate(numRanks int, work []int32) ([]int32, *BlockError) {
	n := int32(len(b.Ops))
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case Send, Recv:
			if op.Peer == AnySource && op.Kind == Recv {
				break
			}
			if op.Peer < 0 || int(op.Peer) >= numRanks {
				return work, &BlockError{Rank: b.Rank, Op: int32(i), Edge: -1,
					Msg: fmt.Sprintf("peer rank %d outside 0..%d", op.Peer, numRanks-1)}
			}
		case Calc:
			if op.Peer != 0 || op.Tag != 0 || op.NIC != 0 {
				return work, &BlockError{Rank: b.Rank, Op: int32(i), Edge: -1, Msg: "calc with a peer, tag or nic"}
			}
		default:
			return work, &BlockError{Rank: b.Rank, Op: int32(i), Edge: -1, Msg: fmt.Sprintf("unknown op kind %d", op.Kind)}
		}
	}
	if len(b.DepStart) != len(b.Ops)+1 || b.DepStart[0] != 0 || int(b.DepStart[n]) != len(b.Deps) {
		return work, &BlockError{Rank: b.Rank, Op: -1, Edge: -1, Msg: "malformed dependency index"}
	}
	forward := true // every edge goes to a later op: no cycle possible
	for i := int32(0); i < n; i++ {
		if b.DepStart[i+1] < b.DepStart[i] {
			return work, &BlockError{Rank: b.Rank, Op: i, Edge: -1, Msg: "malformed dependency index"}
		}
		for e := b.DepStart[i]; e < b.DepStart[i+1]; e++ {
			s := b.Deps[e].Succ()
			if s < 0 || s >= n {
				return work, &BlockError{Rank: b.Rank, Op: i, Edge: e, Msg: fmt.Sprintf("successor op %d outside 0..%d", s, n-1)}
			}
			forward = forward && s > i
		}
	}
	for i := 1; i < len(b.Labels); i++ {
		if b.Labels[i].Op <= b.Labels[i-1].Op {
			return work, &BlockError{Rank: b.Rank, Op: b.Labels[i].Op, Edge: -1, Msg: "labels not sorted by op"}
		}
	}
	for _, l := range b.Labels {
		if l.Op < 0 || l.Op >= n {
			return work, &BlockError{Rank: b.Rank, Op: l.Op, Edge: -1, Msg: "label of a missing op"}
		}
	}
	if forward {
		return work, nil
	}
	var cyc, edge int32
	work, cyc, edge = b.cycle(work)
	if cyc >= 0 {
		return work, &BlockError{Rank: b.Rank, Op: cyc, Edge: edge, Msg: "dependency cycle through this op"}
	}
	return work, nil
}

// cycle finds a dependency cycle with Kahn's algorithm. It returns -1, -1
// if there is none, else an op on the cycle and the index in Deps of an
// edge of the cycle that enters it. The error path walks blocked
// predecessors until it repeats an op, which is then on the cycle.
func (b *RankBlock) cycle(work []int32) ([]int32, int32, int32) {
	n := len(b.Ops)
	if len(b.Deps) == 0 {
		return work, -1, -1
	}
	if cap(work) < 2*n {
		work = make([]int32, 2*n)
	}
	work = work[:2*n]
	indeg, stack := work[:n], work[n:n]
	clear(indeg)
	for _, d := range b.Deps {
		indeg[d.Succ()]++
	}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			stack = append(stack, int32(i))
		}
	}
	seen := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		seen++
		for e := b.DepStart[i]; e < b.DepStart[i+1]; e++ {
			s := b.Deps[e].Succ()
			indeg[s]--
			if indeg[s] == 0 {
				stack = append(stack, s)
			}
		}
	}
	if seen == n {
		return work, -1, -1
	}
	// Error path: for every blocked op remember one blocked predecessor
	// edge, then walk back from any blocked op until an op repeats.
	predEdge := make([]int32, n)
	for i := range predEdge {
		predEdge[i] = -1
	}
	pred := make([]int32, n)
	start := int32(-1)
	for p := 0; p < n; p++ {
		if indeg[p] == 0 {
			continue
		}
		for e := b.DepStart[p]; e < b.DepStart[p+1]; e++ {
			s := b.Deps[e].Succ()
			if indeg[s] > 0 && predEdge[s] < 0 {
				predEdge[s], pred[s] = e, int32(p)
				if start < 0 {
					start = s
				}
			}
		}
	}
	cur := start
	for i := 0; i < n; i++ {
		cur = pred[cur]
	}
	return work, cur, predEdge[cur]
}
