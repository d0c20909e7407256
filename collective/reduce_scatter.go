package collective

func init() {
	register(&Algorithm{Op: ReduceScatter, Name: "recursive_halving",
		Doc:  "recursive halving (MPICH MPIR_Reduce_scatter_block_intra_recursive_halving): the first P - 2^floor(log2 P) even ranks fold their vector into the next rank, log2 rounds exchange and reduce half of the remaining blocks, then the folded ranks get their block back",
		emit: reduceScatterRecursiveHalving})
	register(&Algorithm{Op: ReduceScatter, Name: "pairwise",
		Doc:  "pairwise exchange (MPICH MPIR_Reduce_scatter_block_intra_pairwise): P-1 steps, step i sends to me+i the block of me+i and receives and reduces the own block from me-i",
		emit: reduceScatterPairwise})
	register(&Algorithm{Op: ReduceScatter, Name: "ring",
		Doc:  "ring (Open MPI ompi_coll_base_reduce_scatter_intra_ring): P-1 steps pass partial blocks to me+1, each reduced into and forwarded, with the next receive posted one step early",
		emit: reduceScatterRing})
}

func reduceScatterRecursiveHalving(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	total := uint64(p) * n
	pof2 := pow2Floor(p)
	newrank, rem := fold(e, total, true)
	if newrank >= 0 {
		// New ranks below rem hold their folded neighbour's block too.
		weight := func(lo, hi int) uint64 {
			w := hi - lo
			if rem > lo {
				w += min(hi, rem) - lo
			}
			return uint64(w) * n
		}
		lo, hi := 0, pof2 // the blocks still being reduced, in new ranks
		for mask := pof2 / 2; mask > 0; mask /= 2 {
			nd := newrank ^ mask
			dst := nd + rem
			if nd < rem {
				dst = 2*nd + 1
			}
			mid := lo + mask
			var sendCnt, recvCnt uint64
			if newrank < nd {
				sendCnt, recvCnt = weight(mid, hi), weight(lo, mid)
				hi = mid
			} else {
				sendCnt, recvCnt = weight(lo, mid), weight(mid, hi)
				lo = mid
			}
			if sendCnt > 0 {
				e.send(dst, sendCnt)
			}
			if recvCnt > 0 {
				e.reduce(recvCnt, e.recv(dst, recvCnt))
			}
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

func reduceScatterPairwise(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	for i := 1; i < p; i++ {
		e.send((me+i)%p, n)
		e.reduce(n, e.recv((me-i+p)%p, n))
		e.next()
	}
}

// reduceScatterRing: step k (1..P-1) sends a block to me+1 and receives one
// from me-1. The receive of step k is posted once the send of step k-1 has
// returned; the send of step k carries the block reduced after step k-1's
// receive, so it waits for that reduction (and for the previous send). The
// block received in the last step is the own one.
func reduceScatterRing(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	if p == 1 {
		return
	}
	to, from := (me+1)%p, (me-1+p)%p
	var lastSend int32 = -1
	var ready []int32 // what the next send waits for
	for k := 1; k < p; k++ {
		r := e.rawRecv(from, n)
		s := e.rawSend(to, n)
		if k == 1 {
			e.requiresStart(r)
			e.requiresStart(s)
		} else {
			e.requires(r, lastSend)
			for _, id := range ready {
				e.requires(s, id)
			}
		}
		// The reduction of step k's block waits for its receive and, as
		// it follows the next step's post in program order, for step k's
		// send.
		if c := e.rawReduce(n, r); c != r {
			e.requires(c, s)
			ready = append(ready[:0], c)
		} else {
			ready = append(ready[:0], r, s)
		}
		lastSend = s
	}
	e.end(ready...)
}
