package collective

import "fmt"

func init() {
	register(&Algorithm{Op: Bcast, Name: "binomial",
		Doc:  "binomial tree (MPICH MPIR_Bcast_intra_binomial): receive from the parent, then send to children from the farthest down",
		emit: bcastBinomial})
}

func bcastBinomial(e *emitter) {
	p, r := e.p, rel(e.me, e.s.Root, e.p)
	mask := 1
	for mask < p {
		if r&mask != 0 {
			e.recv(abs(r-mask, e.s.Root, p), e.s.Size)
			e.next()
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if r+mask < p {
			e.send(abs(r+mask, e.s.Root, p), e.s.Size)
			e.next()
		}
	}
}

func init() {
	register(&Algorithm{Op: Bcast, Name: "scatter_ring_allgather",
		Doc:  "van de Geijn (MPICH MPIR_Bcast_intra_scatter_ring_allgather): binomial scatter of ceil(n/P)-byte pieces, then a ring allgather of P-1 steps",
		emit: bcastScatterRingAllgather})
	register(&Algorithm{Op: Bcast, Name: "scatter_recdoub_allgather",
		Doc:   "van de Geijn (MPICH MPIR_Bcast_intra_scatter_recursive_doubling_allgather): binomial scatter of ceil(n/P)-byte pieces, then a recursive-doubling allgather; P a power of two, as MPICH runs it",
		check: bcastCheckPow2,
		emit:  bcastScatterRecdoubAllgather})
	register(&Algorithm{Op: Bcast, Name: "pipeline",
		Doc:  "chain root -> root+1 -> ... in Spec.Segment-byte pieces (default 8192, the odd piece first), receives pre-posted, each piece forwarded once it arrived (MPICH MPIR_Bcast_intra_pipelined_tree, 1-ary tree, non-blocking, receives pre-posted)",
		emit: bcastPipeline})
}

func bcastCheckPow2(s *Spec) error {
	if p := s.Comm.Size(); !isPow2(p) {
		return fmt.Errorf("%d ranks: needs a power of two", p)
	}
	return nil
}

// bcastPieces is how the scatter-allgather broadcasts cut n bytes: piece k
// of ceil(n/P) bytes goes to relative rank k; the last pieces are shorter
// or empty (MPICH's ceiling division).
type bcastPieces struct {
	n, size uint64
}

func newBcastPieces(n uint64, p int) bcastPieces {
	return bcastPieces{n: n, size: (n + uint64(p) - 1) / uint64(p)}
}

// span is the number of bytes in pieces lo..hi-1.
func (b bcastPieces) span(lo, hi int) uint64 {
	start, end := uint64(lo)*b.size, uint64(hi)*b.size
	if start >= b.n {
		return 0
	}
	return min(end, b.n) - start
}

// bcastScatter is the binomial scatter of MPICH's MPII_Scatter_for_bcast:
// a rank receives the pieces of its subtree from its parent, then hands the
// pieces of each child's subtree down, farthest child first. Empty messages
// are not sent.
func bcastScatter(e *emitter, pc bcastPieces) {
	p, root := e.p, e.s.Root
	r := rel(e.me, root, p)
	have := uint64(0) // bytes of the pieces from r on that this rank holds
	if r == 0 {
		have = pc.n
	}
	mask := 1
	for ; mask < p; mask <<= 1 {
		if r&mask != 0 {
			// the parent sends what it has of pieces r..r+mask-1
			if have = pc.span(r, r+mask); have > 0 {
				e.recv(abs(r-mask, root, p), have)
				e.next()
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if r+mask < p && have > pc.size*uint64(mask) {
			n := have - pc.size*uint64(mask)
			e.send(abs(r+mask, root, p), n)
			e.next()
			have -= n
		}
	}
}

func bcastScatterRingAllgather(e *emitter) {
	p := e.p
	if e.s.Size == 0 {
		return
	}
	pc := newBcastPieces(e.s.Size, p)
	bcastScatter(e, pc)
	bcastRing(e, pc)
}

// bcastRing is the allgather of the pieces: step i sends to the right the
// piece received in step i-1 (at first its own) and receives from the
// left the piece before it. Empty pieces still make (empty) messages, as
// MPIC_Sendrecv (and Open MPI's sendrecv) sends them.
func bcastRing(e *emitter, pc bcastPieces) {
	p, root := e.p, e.s.Root
	left, right := (e.me+p-1)%p, (e.me+1)%p
	j, jnext := e.me, left
	for i := 1; i < p; i++ {
		rj, rjnext := rel(j, root, p), rel(jnext, root, p)
		e.recv(left, pc.span(rjnext, rjnext+1))
		e.send(right, pc.span(rj, rj+1))
		e.next()
		j, jnext = jnext, (jnext+p-1)%p
	}
}

func bcastScatterRecdoubAllgather(e *emitter) {
	p, root := e.p, e.s.Root
	if e.s.Size == 0 {
		return
	}
	pc := newBcastPieces(e.s.Size, p)
	bcastScatter(e, pc)
	// Recursive doubling (P is a power of two): in step i the partners
	// r and r^2^i swap the pieces of their aligned groups of 2^i ranks.
	r := rel(e.me, root, p)
	for mask, i := 1, 0; mask < p; mask, i = mask<<1, i+1 {
		d := r ^ mask
		mine, theirs := r>>i<<i, d>>i<<i
		e.recv(abs(d, root, p), pc.span(theirs, theirs+mask))
		e.send(abs(d, root, p), pc.span(mine, mine+mask))
		e.next()
	}
}

// bcastPipelineSegment is MPICH's MPIR_CVAR_BCAST_TREE_PIPELINE_CHUNK_SIZE.
const bcastPipelineSegment = 8192

func bcastPipeline(e *emitter) {
	p, root, n := e.p, e.s.Root, e.s.Size
	if p == 1 || n == 0 {
		return
	}
	seg := e.s.Segment
	if seg == 0 {
		seg = bcastPipelineSegment
	}
	// MPIR_Algo_calculate_pipeline_chunk_info: ceil(n/seg) pieces, the
	// first one n mod seg bytes (seg when that is 0), the others seg.
	pieces := (n + seg - 1) / seg
	first := n % seg
	if first == 0 {
		first = seg
	}
	size := func(k uint64) uint64 {
		if k == 0 {
			return first
		}
		return seg
	}
	r := rel(e.me, root, p)
	recvs := make([]int32, 0, pieces)
	if r > 0 { // every receive is posted when the call starts
		for k := uint64(0); k < pieces; k++ {
			id := e.rawRecv(abs(r-1, root, p), size(k))
			e.requiresStart(id)
			recvs = append(recvs, id)
		}
	}
	if r == p-1 {
		e.end(recvs...)
		return
	}
	// Piece k goes on as soon as it arrived, and after piece k-1 went
	// (an MPI_Isend in program order: its start, not its completion).
	prev := int32(-1)
	for k := uint64(0); k < pieces; k++ {
		id := e.rawSend(abs(r+1, root, p), size(k))
		if r == 0 {
			e.requiresStart(id)
		} else {
			e.requires(id, recvs[k])
		}
		if prev >= 0 {
			e.b.Irequires(id, prev)
		}
		e.end(id)
		prev = id
	}
}
