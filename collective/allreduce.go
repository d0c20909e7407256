package collective

func init() {
	register(&Algorithm{Op: Allreduce, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Allreduce_intra_recursive_doubling): the P - 2^floor(log2 P) extra ranks fold into their neighbours first and get the result last",
		emit: allreduceRecdoub})
}

func allreduceRecdoub(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	pof2 := pow2Floor(p)
	newrank, rem := fold(e, n, true)
	if newrank >= 0 {
		for mask := 1; mask < pof2; mask <<= 1 {
			nd := newrank ^ mask
			dst := nd + rem
			if nd < rem {
				dst = nd*2 + 1
			}
			e.send(dst, n)
			e.reduce(n, e.recv(dst, n))
			e.next()
		}
	}
	if me < 2*rem {
		if me%2 == 1 {
			e.send(me-1, n)
		} else {
			e.recv(me+1, n)
		}
		e.next()
	}
}

func init() {
	register(&Algorithm{Op: Allreduce, Name: "rabenseifner",
		Doc:   "Rabenseifner (MPICH MPIR_Allreduce_intra_reduce_scatter_allgather): even ranks below 2(P-2^k) fold into rank+1, recursive-halving reduce-scatter, recursive-doubling allgather, result back to the folded ranks; needs Size >= 2^floor(log2 P)",
		check: rabCheckSize,
		emit:  allreduceRabenseifner})
	register(&Algorithm{Op: Allreduce, Name: "ring",
		Doc:  "ring (MPICH MPIR_Allreduce_intra_ring, commutative op): P-1 steps of ring reduce-scatter over blocks of ceil(n/P) bytes (the last short or empty), then MPICH's ring allgatherv, blocks cut in Spec.Segment pieces when the largest exceeds it (default 32768, MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE)",
		emit: allreduceRing})
	register(&Algorithm{Op: Allreduce, Name: "reduce_bcast",
		Doc:  "binomial reduce to rank 0, then binomial broadcast from it (MPICH MPIR_Reduce_intra_binomial followed by MPIR_Bcast_intra_binomial)",
		emit: allreduceReduceBcast})
}

func allreduceRabenseifner(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	pof2 := pow2Floor(p)
	bl := newRabBlocks(n, pof2)
	newrank, rem := fold(e, n, true)
	peer := func(nr int) int {
		if nr < rem {
			return nr*2 + 1
		}
		return nr + rem
	}
	if newrank >= 0 {
		sendIdx, lastIdx := rabHalving(e, newrank, pof2, bl, peer)
		// Recursive-doubling allgather: undo the halving step by step.
		for mask := pof2 / 2; mask > 0; mask >>= 1 {
			d := newrank ^ mask
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
			e.recv(peer(d), got)
			e.send(peer(d), sent)
			e.next()
			if newrank > d {
				sendIdx = recvIdx
			}
		}
	}
	if me < 2*rem {
		if me%2 != 0 {
			e.send(me-1, n)
		} else {
			e.recv(me+1, n)
		}
		e.next()
	}
}

// allreduceRingSegment is MPICH's MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE.
const allreduceRingSegment = 32768

func allreduceRing(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	// MPICH's counts: ceil(n/P) per rank until the data runs out.
	c := (n + uint64(p) - 1) / uint64(p)
	block := func(i int) uint64 {
		if off := uint64(i) * c; off < n {
			return min(c, n-off)
		}
		return 0
	}
	left, right := (me+p-1)%p, (me+1)%p
	// Reduce-scatter: step i sends block me-1-i, receives block me-2-i and
	// combines it; empty blocks still make (empty) messages.
	for i := 0; i < p-1; i++ {
		got := block((me - 2 - i + 2*p) % p)
		e.reduce(got, e.recv(left, got))
		e.send(right, block((me-1-i+p)%p))
		e.next()
	}
	seg := e.s.Segment
	if seg == 0 {
		seg = allreduceRingSegment
	}
	allreduceRingAllgatherv(e, block, seg)
}

// allreduceRingAllgatherv is MPICH's MPIR_Allgatherv_intra_ring on the
// blocks of the ring allreduce: pass blocks to the right, own one first;
// when the largest block exceeds seg, every block travels in pieces of at
// most seg bytes; a step sends and receives what is left, skipping empty
// blocks.
func allreduceRingAllgatherv(e *emitter, block func(int) uint64, seg uint64) {
	p, me := e.p, e.me
	var total, largest uint64
	for i := 0; i < p; i++ {
		total += block(i)
		largest = max(largest, block(i))
	}
	if total == 0 {
		return
	}
	chunk := largest
	if seg > 0 && largest > seg {
		chunk = seg
	}
	left, right := (me+p-1)%p, (me+1)%p
	torecv, tosend := total-block(me), total-block(right)
	sidx, ridx := me, left
	var soff, roff uint64
	for tosend > 0 || torecv > 0 {
		sendNow := min(block(sidx)-soff, chunk)
		recvNow := min(block(ridx)-roff, chunk)
		if tosend == 0 {
			sendNow = 0
		}
		if torecv == 0 {
			recvNow = 0
		}
		if recvNow > 0 {
			e.recv(left, recvNow)
			torecv -= recvNow
		}
		if sendNow > 0 {
			e.send(right, sendNow)
			tosend -= sendNow
		}
		e.next()
		if soff += sendNow; soff == block(sidx) {
			soff, sidx = 0, (sidx+p-1)%p
		}
		if roff += recvNow; roff == block(ridx) {
			roff, ridx = 0, (ridx+p-1)%p
		}
	}
}

func allreduceReduceBcast(e *emitter) { e.atRoot0(reduceBinomial, bcastBinomial) }
