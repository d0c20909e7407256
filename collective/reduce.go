package collective

import "fmt"

func init() {
	register(&Algorithm{Op: Reduce, Name: "binomial",
		Doc:  "binomial tree (MPICH MPIR_Reduce_intra_binomial, commutative op): receive and combine from children nearest first, then send to the parent",
		emit: reduceBinomial})
	register(&Algorithm{Op: Reduce, Name: "rabenseifner",
		Doc:   "Rabenseifner (MPICH MPIR_Reduce_intra_reduce_scatter_gather): odd ranks below 2(P-2^k) fold into rank-1, recursive-halving reduce-scatter, binomial gather to the root; needs Size >= 2^floor(log2 P)",
		check: rabCheckSize,
		emit:  reduceRabenseifner})
}

// rabCheckSize is MPICH's "size-ge-pof2" restriction of the reduce-scatter
// based algorithms: every one of the 2^floor(log2 P) blocks has an element.
func rabCheckSize(s *Spec) error {
	if pof2 := pow2Floor(max(s.Comm.Size(), 1)); s.Size < uint64(pof2) {
		return fmt.Errorf("%d bytes for %d ranks: needs at least %d (one per block of the power-of-two core)", s.Size, s.Comm.Size(), pof2)
	}
	return nil
}

func reduceBinomial(e *emitter) {
	p, root, n := e.p, e.s.Root, e.s.Size
	r := rel(e.me, root, p)
	for mask := 1; mask < p; mask <<= 1 {
		if r&mask != 0 {
			e.send(abs(r&^mask, root, p), n)
			e.next()
			return
		}
		if c := r | mask; c < p {
			e.reduce(n, e.recv(abs(c, root, p), n))
			e.next()
		}
	}
}

// rabBlocks is MPICH's split of n elements into pof2 blocks for the
// reduce-scatter: n/pof2 each, the first n mod pof2 one more.
type rabBlocks struct {
	q, r uint64
}

func newRabBlocks(n uint64, pof2 int) rabBlocks {
	return rabBlocks{q: n / uint64(pof2), r: n % uint64(pof2)}
}

// span is the number of bytes in blocks lo..hi-1.
func (b rabBlocks) span(lo, hi int) uint64 {
	if hi <= lo {
		return 0
	}
	extra := uint64(0)
	if uint64(lo) < b.r {
		extra = min(b.r, uint64(hi)) - uint64(lo)
	}
	return uint64(hi-lo)*b.q + extra
}

// rabHalving is the recursive-halving reduce-scatter of MPICH's
// Rabenseifner algorithms among the pof2 ranks of the core: in the step of
// distance mask the lower partner keeps the lower half of its current
// blocks, sends the upper half and combines what it receives. peer maps a
// core rank to its comm rank. It returns MPICH's send_idx and last_idx
// after the loop (last_idx is not advanced in the last step), which the
// gather or allgather that follows starts from.
func rabHalving(e *emitter, newrank, pof2 int, bl rabBlocks, peer func(int) int) (sendIdx, lastIdx int) {
	recvIdx := 0
	lastIdx = pof2
	for mask := 1; mask < pof2; {
		d := newrank ^ mask
		half := pof2 / (mask * 2)
		var sent, got uint64
		if newrank < d {
			sendIdx = recvIdx + half
			sent, got = bl.span(sendIdx, lastIdx), bl.span(recvIdx, sendIdx)
		} else {
			recvIdx = sendIdx + half
			sent, got = bl.span(sendIdx, recvIdx), bl.span(recvIdx, lastIdx)
		}
		e.reduce(got, e.recv(peer(d), got))
		e.send(peer(d), sent)
		e.next()
		sendIdx = recvIdx
		if mask <<= 1; mask < pof2 {
			lastIdx = recvIdx + pof2/mask
		}
	}
	return sendIdx, lastIdx
}

func reduceRabenseifner(e *emitter) {
	p, me, root, n := e.p, e.me, e.s.Root, e.s.Size
	pof2 := pow2Floor(p)
	bl := newRabBlocks(n, pof2)
	// Fold: odd ranks below 2·rem give their data to rank-1 and sit out
	// (MPICH keeps the even ones so that root 0 needs no extra message).
	newrank, rem := fold(e, n, false)
	peer := func(nr int) int {
		if nr < rem {
			return nr * 2
		}
		return nr + rem
	}
	var sendIdx, lastIdx int
	if newrank >= 0 {
		sendIdx, lastIdx = rabHalving(e, newrank, pof2, bl, peer)
	}
	// Gather to the root. A root that sat out gets block 0 from core rank 0
	// (comm rank 0) and plays core rank 0 in the gather.
	rootOut := root < 2*rem && root%2 != 0
	var newroot int
	switch {
	case rootOut:
		newroot = 0
		if me == root {
			e.recv(0, bl.span(0, 1))
			e.next()
			newrank, sendIdx, lastIdx = 0, 0, 2
		} else if newrank == 0 {
			e.send(root, bl.span(0, 1))
			e.next()
			newrank = -1
		}
	case root < 2*rem:
		newroot = root / 2
	default:
		newroot = root - rem
	}
	if newrank < 0 {
		return
	}
	j := 0
	for 1<<(j+1) < pof2 {
		j++
	}
	for mask := pof2 / 2; mask > 0; mask, j = mask>>1, j-1 {
		d := newrank ^ mask
		dst := peer(d)
		if d == 0 && rootOut {
			dst = root
		}
		half := pof2 / (mask * 2)
		var recvIdx int
		var sent, got uint64
		if newrank < d {
			if mask != pof2/2 {
				lastIdx += half
			}
			recvIdx = sendIdx + half
			sent, got = bl.span(sendIdx, recvIdx), bl.span(recvIdx, lastIdx)
		} else {
			recvIdx = sendIdx - half
			sent, got = bl.span(sendIdx, lastIdx), bl.span(recvIdx, sendIdx)
		}
		if d>>j == newroot>>j { // d is on the root's side: hand over and leave
			e.send(dst, sent)
			e.next()
			return
		}
		e.recv(dst, got)
		e.next()
		if newrank > d {
			sendIdx = recvIdx
		}
	}
}
