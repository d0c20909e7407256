package collective

// allgathervSegment is MPICH's MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE default:
// the ring allgatherv sends blocks in pieces of at most this many bytes.
const allgathervSegment = 32768

func init() {
	register(&Algorithm{Op: Allgather, Name: "ring",
		Doc:  "ring (MPICH MPIR_Allgather_intra_ring): P-1 steps, each a sendrecv that passes the block received last to me+1 and gets the next from me-1",
		emit: allgatherRing})
	register(&Algorithm{Op: Allgather, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Allgather_intra_recursive_doubling): step 2^k swaps everything held with me XOR 2^k; for P not a power of two, ranks without a partner get the data by recursive halving from those that had one (MPICH's experimental branch)",
		emit: func(e *emitter) { allgatherRecdoubEmit(e, false) }})
	register(&Algorithm{Op: Allgather, Name: "bruck",
		Doc:  "Bruck (MPICH MPIR_Allgather_intra_brucks): floor(log2 P) steps sending the 2^k blocks held to me-2^k and receiving as many from me+2^k, then one step of the P-2^floor(log2 P) remaining blocks; any P",
		emit: allgatherBruck})
	register(&Algorithm{Op: Allgatherv, Name: "ring",
		Doc:  "ring (MPICH MPIR_Allgatherv_intra_ring): blocks travel to me+1 in pieces of at most Segment bytes (default 32768, MPICH's pipeline size), zero-byte blocks send nothing",
		emit: allgathervRing})
	register(&Algorithm{Op: Allgatherv, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Allgatherv_intra_recursive_doubling): as allgather recdoub with per-rank block sizes, including the recursive-halving fill MPICH marks experimental for P not a power of two",
		emit: func(e *emitter) { allgatherRecdoubEmit(e, true) }})
}

func allgatherRing(e *emitter) {
	p, me := e.p, e.me
	left, right := (me-1+p)%p, (me+1)%p
	for i := 1; i < p; i++ {
		e.send(right, e.s.Size)
		e.recv(left, e.s.Size)
		e.next()
	}
}

// allgatherBlocks is the number of bytes of the blocks of comm ranks
// lo..hi-1 that exist (below P): Size each for allgather, Counts for
// allgatherv.
func allgatherBlocks(e *emitter, v bool, lo, hi int) uint64 {
	hi = min(hi, e.p)
	if lo >= hi {
		return 0
	}
	if !v {
		return uint64(hi-lo) * e.s.Size
	}
	var n uint64
	for _, c := range e.s.Counts[lo:hi] {
		n += c
	}
	return n
}

// allgatherRecdoubEmit is MPICH's recursive doubling allgather(v). At the
// step of distance m every rank holds the blocks of the existing ranks of
// its aligned group of m ranks and swaps them with me^m. When me^m does not
// exist but part of its group does (P not a power of two), the nc ranks of
// my group that did have a partner pass that part on by recursive halving:
// within aligned groups of 2h ranks, h = m/2 .. 1, a holder at offset x < h
// sends to x+h when that rank does not hold it yet (holders are always the
// first nc offsets of each group). Messages carry what the sender holds,
// not the larger buffer MPICH posts for the receive.
func allgatherRecdoubEmit(e *emitter, v bool) {
	p, me := e.p, e.me
	if v && allgatherBlocks(e, v, 0, p) == 0 {
		return // MPICH returns at once when there is nothing to gather
	}
	for m := 1; m < p; m <<= 1 {
		root := me &^ (m - 1) // first rank of my group of m
		peerRoot := root ^ m
		if dst := me ^ m; dst < p {
			e.send(dst, allgatherBlocks(e, v, root, root+m))
			e.recv(dst, allgatherBlocks(e, v, peerRoot, peerRoot+m))
			e.next()
		}
		nc := p - peerRoot // ranks of the partner group that exist
		if peerRoot < root || nc <= 0 || nc >= m {
			continue // partner group complete, absent, or I am in the upper one
		}
		fill := allgatherBlocks(e, v, peerRoot, p)
		for h := m >> 1; h > 0; h >>= 1 {
			base := me &^ (2*h - 1)
			dst := me ^ h
			switch {
			case dst > me && me < base+nc && dst >= base+nc:
				e.send(dst, fill)
				e.next()
			case dst < me && dst < base+nc && me >= base+nc:
				e.recv(dst, fill)
				e.next()
			}
		}
	}
}

func allgatherBruck(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	if n == 0 {
		return // MPICH returns at once for empty blocks
	}
	d := 1
	for ; 2*d <= p; d <<= 1 {
		e.send((me-d+p)%p, uint64(d)*n)
		e.recv((me+d)%p, uint64(d)*n)
		e.next()
	}
	if rem := p - d; rem > 0 {
		e.send((me-d+p)%p, uint64(rem)*n)
		e.recv((me+d)%p, uint64(rem)*n)
		e.next()
	}
}

// allgathervRing follows MPICH's loop: each iteration is one blocking
// step that sends the next piece of the block being forwarded to me+1 and
// receives the next piece from me-1, leaving out a side that has nothing
// (a zero-byte block takes an iteration and sends nothing).
func allgathervRing(e *emitter) {
	p, me, c := e.p, e.me, e.s.Counts
	var total uint64
	for _, x := range c {
		total += x
	}
	if total == 0 {
		return
	}
	seg := e.s.Segment
	if seg == 0 {
		seg = allgathervSegment
	}
	left, right := (me-1+p)%p, (me+1)%p
	toRecv, toSend := total-c[me], total-c[right]
	sidx, ridx := me, left
	var soff, roff uint64
	for toSend > 0 || toRecv > 0 {
		sendNow, recvNow := min(c[sidx]-soff, seg), min(c[ridx]-roff, seg)
		if toSend == 0 {
			sendNow = 0
		}
		if toRecv == 0 {
			recvNow = 0
		}
		if sendNow > 0 {
			e.send(right, sendNow)
		}
		if recvNow > 0 {
			e.recv(left, recvNow)
		}
		e.next()
		toSend -= sendNow
		toRecv -= recvNow
		if soff += sendNow; soff == c[sidx] {
			soff, sidx = 0, (sidx-1+p)%p
		}
		if roff += recvNow; roff == c[ridx] {
			roff, ridx = 0, (ridx-1+p)%p
		}
	}
}
