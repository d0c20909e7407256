package collective

// Open MPI's allreduces (ompi/mca/coll/base/coll_base_allreduce.c, tag
// v4.1.4). Its recursive doubling is the same exchange as MPICH's (the
// "recdoub" algorithm); the others follow.

func init() {
	register(&Algorithm{Op: Allreduce, Name: "ompi_ring",
		Doc:  "ring (Open MPI ompi_coll_base_allreduce_intra_ring): count split in P blocks (the first count mod P one element larger), P-1 reduce-scatter steps with the next receive posted before combining the last, then P-1 sendrecv steps of allgather; recursive doubling when count < P",
		emit: ompiAllreduceRing})
	register(&Algorithm{Op: Allreduce, Name: "ompi_segmented_ring",
		Doc:  "segmented ring (Open MPI ompi_coll_base_allreduce_intra_ring_segmented): the ring's reduce-scatter run once per phase on a piece of every block (phases from Spec.Segment), then the ring allgather of whole blocks; the plain ring when count < P·segment count (always with the fixed rules' segment size 0)",
		emit: ompiAllreduceSegRing})
	register(&Algorithm{Op: Allreduce, Name: "ompi_redscat_allgather",
		Doc:  "Rabenseifner (Open MPI ompi_coll_base_allreduce_intra_redscat_allgather): the first 2(P-2^k) ranks pair up and swap halves (the odd one then hands its half over and sits out), recursive halving of the element count, recursive doubling back, result to the folded ranks; linear when count < 2^floor(log2 P)",
		emit: ompiAllreduceRedscat})
	register(&Algorithm{Op: Allreduce, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_allreduce_intra_basic_linear): linear reduce to rank 0, then linear broadcast from it",
		emit: ompiAllreduceLinear})
	register(&Algorithm{Op: Allreduce, Name: "ompi_nonoverlapping",
		Doc:  "reduce then broadcast (Open MPI ompi_coll_base_allreduce_intra_nonoverlapping): MPI_Reduce to rank 0 and MPI_Bcast from it, each with the algorithm Open MPI's fixed rules pick for it",
		emit: ompiAllreduceNonoverlapping})
}

// ompiBlocks is Open MPI's COLL_BASE_COMPUTE_BLOCKCOUNT: count elements in
// n blocks, the first count mod n one element larger.
type ompiBlocks struct {
	early, late uint64 // elements of an early and a late block
	split       int    // blocks 0..split-1 are early
	elem        uint64
}

func newOmpiBlocks(count uint64, n int, elem uint64) ompiBlocks {
	b := ompiBlocks{late: count / uint64(n), split: int(count % uint64(n)), elem: elem}
	b.early = b.late
	if b.split > 0 {
		b.early++
	}
	return b
}

// bytes is the size of block i in bytes.
func (b ompiBlocks) bytes(i int) uint64 {
	if i < b.split {
		return b.early * b.elem
	}
	return b.late * b.elem
}

func ompiAllreduceRing(e *emitter) {
	count, elem := ompiElems(e.s, e.s.Size)
	if e.p == 1 {
		return
	}
	if count < uint64(e.p) {
		allreduceRecdoub(e)
		return
	}
	bl := newOmpiBlocks(count, e.p, elem)
	ompiRingReduceScatter(e, bl.bytes)
	ompiRingAllgather(e, bl.bytes)
}

// ompiRingReduceScatter is the first half of Open MPI's ring allreduce
// with block sizes size(block): post the receive from the left, send the
// own block to the right (blocking); then for k = 2..P-1 post the next
// receive, wait for the previous one, combine it into block me-k+1 and
// send that; last wait and combine block me+1.
func ompiRingReduceScatter(e *emitter, size func(int) uint64) {
	p, me := e.p, e.me
	left, right := (me+p-1)%p, (me+1)%p
	r := e.rawRecv(left, size((me+p-1)%p))
	e.requiresStart(r)
	s := e.rawSend(right, size(me))
	e.requiresStart(s)
	done := []int32{s} // program order: what the next post follows
	for k := 2; k <= p; k++ {
		block := (me + p - k + 1) % p // the block the pending receive carries
		var next int32 = -1
		if k < p {
			next = e.rawRecv(left, size((me+p-k)%p))
			for _, x := range done {
				e.requires(next, x)
			}
		}
		c := e.rawReduce(size(block), r)
		if c != r {
			for _, x := range done {
				e.requires(c, x)
			}
			done = append(done[:0], c)
		} else {
			done = append(done, r)
		}
		if k < p {
			s = e.rawSend(right, size(block))
			for _, x := range done {
				e.requires(s, x)
			}
			done = append(done[:0], s)
		}
		r = next
	}
	e.prev = e.prev[:0]
	e.end(done...)
	e.next()
}

// ompiRingAllgather is the second half: P-1 sendrecv steps passing block
// me+1-k to the right and receiving block me-k from the left.
func ompiRingAllgather(e *emitter, size func(int) uint64) {
	p, me := e.p, e.me
	left, right := (me+p-1)%p, (me+1)%p
	for k := 0; k < p-1; k++ {
		e.send(right, size((me+1+p-k)%p))
		e.recv(left, size((me+p-k)%p))
		e.next()
	}
}

func ompiAllreduceSegRing(e *emitter) {
	count, elem := ompiElems(e.s, e.s.Size)
	if e.p == 1 {
		return
	}
	segcount := count
	if ss := e.s.Segment; ss >= elem && ss < elem*count {
		segcount = ss / elem
		if ss-segcount*elem > elem/2 {
			segcount++
		}
	}
	p := uint64(e.p)
	if segcount == 0 || count < p*segcount {
		ompiAllreduceRing(e)
		return
	}
	phases := count / (p * segcount)
	if r := count % (p * segcount); r >= p && r > p*segcount/2 {
		phases++
	}
	bl := newOmpiBlocks(count, e.p, elem)
	for ph := uint64(0); ph < phases; ph++ {
		ompiRingReduceScatter(e, func(i int) uint64 {
			pb := newOmpiBlocks(bl.bytes(i)/elem, int(phases), elem)
			return pb.bytes(int(ph))
		})
	}
	ompiRingAllgather(e, bl.bytes)
}

func ompiAllreduceRedscat(e *emitter) {
	count, elem := ompiElems(e.s, e.s.Size)
	p, me := e.p, e.me
	pof2 := pow2Floor(p)
	if count < uint64(pof2) {
		ompiAllreduceLinear(e)
		return
	}
	rem := p - pof2
	vrank := ompiFoldHalves(e, count, elem)
	if vrank >= 0 {
		sc, rc := ompiHalving(e, vrank, rem, pof2, count, elem)
		// recursive doubling back: send what was kept, get what was given
		step := len(sc) - 1
		for mask := pof2 >> 1; mask > 0; mask >>= 1 {
			d := ompiVDest(vrank^mask, rem)
			e.send(d, rc[step]*elem)
			e.recv(d, sc[step]*elem)
			e.next()
			step--
		}
	}
	if me < 2*rem {
		if me%2 != 0 {
			e.recv(me-1, count*elem)
		} else {
			e.send(me+1, count*elem)
		}
		e.next()
	}
}

// ompiVDest is the comm rank of core rank v in Open MPI's
// reduce-scatter-based algorithms: v < rem is the even rank 2v (its odd
// neighbour folded into it), the others v+rem.
func ompiVDest(v, rem int) int {
	if v < rem {
		return v * 2
	}
	return v + rem
}

// ompiFoldHalves is the first step of Open MPI's redscat_allgather and
// redscat_gather on P not a power of two: the first 2(P-2^k) ranks pair
// up, swap halves (the even one keeps the lower floor(count/2) elements)
// and combine; the odd one then hands its combined upper half to the even
// one and sits out. It returns the rank's core rank, or -1.
func ompiFoldHalves(e *emitter, count, elem uint64) int {
	me := e.me
	rem := e.p - pow2Floor(e.p)
	if me >= 2*rem {
		return me - rem
	}
	lhalf := count / 2
	rhalf := count - lhalf
	if me%2 != 0 {
		e.send(me-1, lhalf*elem)
		e.reduce(rhalf*elem, e.recv(me-1, rhalf*elem))
		e.next()
		e.send(me-1, rhalf*elem)
		e.next()
		return -1
	}
	e.send(me+1, rhalf*elem)
	e.reduce(lhalf*elem, e.recv(me+1, lhalf*elem))
	e.next()
	e.reduce(rhalf*elem, e.recv(me+1, rhalf*elem))
	e.next()
	return me / 2
}

// ompiHalving is the recursive halving among the 2^k core ranks: in each
// step the partner with the lower comm rank keeps the lower floor(w/2) of
// the w elements left, sends the rest and combines what it gets. It
// returns, per step, the elements sent and kept.
func ompiHalving(e *emitter, vrank, rem, pof2 int, count, elem uint64) (scount, rcount []uint64) {
	wsize := count
	for mask := 1; mask < pof2; mask <<= 1 {
		d := ompiVDest(vrank^mask, rem)
		var sc, rc uint64
		if e.me < d {
			rc = wsize / 2
			sc = wsize - rc
		} else {
			sc = wsize / 2
			rc = wsize - sc
		}
		e.send(d, sc*elem)
		e.reduce(rc*elem, e.recv(d, rc*elem))
		e.next()
		scount, rcount = append(scount, sc), append(rcount, rc)
		wsize = rc
	}
	return scount, rcount
}

func ompiAllreduceLinear(e *emitter) {
	e.atRoot0(ompiReduceLinear, ompiBcastLinear, (*emitter).next)
}

func ompiAllreduceNonoverlapping(e *emitter) {
	e.atRoot0(func(e *emitter) { OpenMPI.pick(Reduce, e.s).emit(e) }, (*emitter).next,
		func(e *emitter) { OpenMPI.pick(Bcast, e.s).emit(e) }, (*emitter).next)
}
