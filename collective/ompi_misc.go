package collective

// Open MPI's barriers, alltoall(v)s, allgather(v)s, and the linear
// gathers, scatters and exscan of its basic component (ompi/mca/coll/base
// and ompi/mca/coll/basic, tag v4.1.4). Open MPI's bruck and recursive
// doubling barriers are the "dissemination" and "recdoub" barriers, its
// alltoall linear (and linear_sync with the default of no request limit)
// is the "linear" alltoall, its allgather bruck and ring are the "bruck"
// and "ring" allgathers.

func init() {
	register(&Algorithm{Op: Barrier, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_barrier_intra_basic_linear): every rank sends to rank 0 and waits for its reply; rank 0 receives from all, then replies to ranks 1..P-1 one blocking send at a time",
		emit: ompiBarrierLinear})
	register(&Algorithm{Op: Barrier, Name: "ompi_double_ring",
		Doc:  "double ring (Open MPI ompi_coll_base_barrier_intra_doublering): a token goes around the ring 0 -> 1 -> ... -> 0 twice, each rank forwarding it once it arrived",
		emit: ompiBarrierDoubleRing})
	register(&Algorithm{Op: Barrier, Name: "ompi_tree",
		Doc:  "tree (Open MPI ompi_coll_base_barrier_intra_tree): fan-in over a binomial tree to rank 0 (receive from me+1, me+2, me+4, ... below the lowest set bit, then send to me minus that bit), then the same tree back out in reverse order",
		emit: ompiBarrierTree})
	register(&Algorithm{Op: Barrier, Name: "ompi_two_proc",
		Doc:   "two ranks (Open MPI ompi_coll_base_barrier_intra_two_procs): one exchange of empty messages",
		check: checkTwoRanks,
		emit:  ompiExchangeOwn})
	register(&Algorithm{Op: Alltoall, Name: "ompi_pairwise",
		Doc:  "pairwise exchange (Open MPI ompi_coll_base_alltoall_intra_pairwise): P-1 sendrecv steps, step i sends to me+i and receives from me-i (no XOR pairing); at P = 2 also Open MPI's two_proc",
		emit: func(e *emitter) { ompiPairwise(e, false) }})
	register(&Algorithm{Op: Alltoallv, Name: "ompi_pairwise",
		Doc:  "pairwise exchange (Open MPI ompi_coll_base_alltoallv_intra_pairwise): as the alltoall one, empty blocks sent as empty messages",
		emit: func(e *emitter) { ompiPairwise(e, true) }})
	register(&Algorithm{Op: Alltoallv, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_alltoallv_intra_basic_linear): receives from every other rank, then sends to every other rank, in rank order, all posted at once (empty blocks too), then wait for all",
		emit: ompiAlltoallvLinear})
	register(&Algorithm{Op: Allgather, Name: "ompi_recdoub",
		Doc:  "recursive doubling (Open MPI ompi_coll_base_allgather_intra_recursivedoubling): P a power of two: the recdoub exchange; otherwise Open MPI runs bruck",
		emit: ompiAllgatherRecdoub})
	register(&Algorithm{Op: Allgather, Name: "ompi_neighbor",
		Doc:  "neighbor exchange (Open MPI ompi_coll_base_allgather_intra_neighborexchange): P even: one block with the first neighbour, then P/2-1 steps of two blocks alternating between the neighbours; P odd: ring",
		emit: func(e *emitter) { ompiNeighbor(e, false) }})
	register(&Algorithm{Op: Allgather, Name: "ompi_two_proc",
		Doc:   "two ranks (Open MPI ompi_coll_base_allgather_intra_two_procs): one sendrecv of the own block",
		check: checkTwoRanks,
		emit:  ompiExchangeOwn})
	register(&Algorithm{Op: Allgatherv, Name: "ompi_bruck",
		Doc:  "Bruck (Open MPI ompi_coll_base_allgatherv_intra_bruck): step 2^k sends the blocks of ranks me..me+c-1 to me-2^k and receives those of me+2^k.. from me+2^k, c = 2^k, or P-2^k in the last step when that is smaller",
		emit: ompiAllgathervBruck})
	register(&Algorithm{Op: Allgatherv, Name: "ompi_ring",
		Doc:  "ring (Open MPI ompi_coll_base_allgatherv_intra_ring): P-1 sendrecv steps passing whole blocks to me+1 (no segments)",
		emit: ompiAllgathervRing})
	register(&Algorithm{Op: Allgatherv, Name: "ompi_neighbor",
		Doc:  "neighbor exchange (Open MPI ompi_coll_base_allgatherv_intra_neighborexchange), as the allgather one with each rank's block",
		emit: func(e *emitter) { ompiNeighbor(e, true) }})
	register(&Algorithm{Op: Allgatherv, Name: "ompi_two_proc",
		Doc:   "two ranks (Open MPI ompi_coll_base_allgatherv_intra_two_procs): one sendrecv of the own block",
		check: checkTwoRanks,
		emit:  ompiExchangeOwn})
	register(&Algorithm{Op: Gather, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_gather_intra_basic_linear): the root receives from ranks 0..P-1 in order, one blocking receive at a time",
		emit: func(e *emitter) { ompiLinearRooted(e, false, false) }})
	register(&Algorithm{Op: Scatter, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_scatter_intra_basic_linear): the root sends to ranks 0..P-1 in order, one blocking send at a time",
		emit: func(e *emitter) { ompiLinearRooted(e, true, false) }})
	register(&Algorithm{Op: Gatherv, Name: "ompi_linear",
		Doc:   "linear (Open MPI basic component, mca_coll_basic_gatherv_intra): the root receives the nonempty blocks of ranks 0..P-1 in order, one blocking receive at a time",
		check: checkVRootCounts,
		emit:  func(e *emitter) { ompiLinearRooted(e, false, true) }})
	register(&Algorithm{Op: Scatterv, Name: "ompi_linear",
		Doc:   "linear (Open MPI basic component, mca_coll_basic_scatterv_intra): the root sends the nonempty blocks to ranks 0..P-1 in order, one blocking send at a time",
		check: checkVRootCounts,
		emit:  func(e *emitter) { ompiLinearRooted(e, true, true) }})
	register(&Algorithm{Op: Exscan, Name: "ompi_linear",
		Doc:  "linear chain (Open MPI basic component, mca_coll_basic_exscan_intra): rank 0 sends its data to 1; rank i receives the prefix from i-1 and, unless last, combines its own data into it and sends it to i+1",
		emit: ompiExscanLinear})
}

func checkTwoRanks(s *Spec) error {
	if p := s.Comm.Size(); p != 2 {
		return errTwoRanks(p)
	}
	return nil
}

type errTwoRanks int

func (e errTwoRanks) Error() string { return "needs exactly 2 ranks, not " + itoa(int(e)) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	neg := n < 0
	if neg {
		n = -n
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// ompiOwnBlock is this rank's block: Size, or its count for a v-collective.
func ompiOwnBlock(e *emitter, i int) uint64 {
	if e.s.Counts != nil && (len(e.s.Counts) == e.p) {
		return e.s.Counts[i]
	}
	return e.s.Size
}

// ompiExchangeOwn is the two-rank algorithms: one sendrecv with the other
// rank of the own block (an empty message for the barrier).
func ompiExchangeOwn(e *emitter) {
	other := 1 - e.me
	e.recv(other, ompiOwnBlock(e, other))
	e.send(other, ompiOwnBlock(e, e.me))
	e.next()
}

func ompiBarrierLinear(e *emitter) {
	n := e.s.Size
	if e.p < 2 {
		return
	}
	if e.me != 0 {
		e.send(0, n)
		e.next()
		e.recv(0, n)
		e.next()
		return
	}
	for i := 1; i < e.p; i++ {
		e.recv(i, n)
	}
	e.next()
	for i := 1; i < e.p; i++ {
		e.send(i, n)
		e.next()
	}
}

func ompiBarrierDoubleRing(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	if p < 2 {
		return
	}
	left, right := (me+p-1)%p, (me+1)%p
	for round := 0; round < 2; round++ {
		if me > 0 {
			e.recv(left, n)
			e.next()
		}
		e.send(right, n)
		e.next()
		if me == 0 {
			e.recv(left, n)
			e.next()
		}
	}
}

func ompiPairwise(e *emitter, v bool) {
	p, me := e.p, e.me
	for i := 1; i < p; i++ {
		dst, src := (me+i)%p, (me-i+p)%p
		e.recv(src, alltoallRecv(e, v, src))
		e.send(dst, alltoallSend(e, v, dst))
		e.next()
	}
}

func ompiAlltoallvLinear(e *emitter) {
	for i := 0; i < e.p; i++ {
		if i != e.me {
			e.recv(i, e.s.RecvCounts[i])
		}
	}
	for i := 0; i < e.p; i++ {
		if i != e.me {
			e.send(i, e.s.Counts[i])
		}
	}
}

func ompiAllgatherRecdoub(e *emitter) {
	if isPow2(e.p) {
		allgatherRecdoubEmit(e, false)
		return
	}
	allgatherBruck(e)
}

// ompiNeighbor is the neighbor exchange for allgather (v false) and
// allgatherv; odd P runs the ring.
func ompiNeighbor(e *emitter, v bool) {
	p, me := e.p, e.me
	if p%2 != 0 {
		if v {
			ompiAllgathervRing(e)
		} else {
			allgatherRing(e)
		}
		return
	}
	blk := func(i int) uint64 { return allgatherBlocks(e, v, (i+p)%p, (i+p)%p+1) }
	var nb [2]int
	var from [2]int
	var off [2]int
	if me%2 == 0 {
		nb = [2]int{(me + 1) % p, (me - 1 + p) % p}
		from = [2]int{me, me}
		off = [2]int{2, -2}
	} else {
		nb = [2]int{(me - 1 + p) % p, (me + 1) % p}
		from = [2]int{nb[0], nb[0]}
		off = [2]int{-2, 2}
	}
	e.send(nb[0], blk(me))
	e.recv(nb[0], blk(nb[0]))
	e.next()
	sendFrom := from[0]
	if me%2 == 0 {
		sendFrom = me
	}
	for i := 1; i < p/2; i++ {
		par := i % 2
		from[par] = (from[par] + off[par] + p) % p
		e.send(nb[par], blk(sendFrom)+blk(sendFrom+1))
		e.recv(nb[par], blk(from[par])+blk(from[par]+1))
		e.next()
		sendFrom = from[par]
	}
}

func ompiAllgathervRing(e *emitter) {
	p, me := e.p, e.me
	left, right := (me-1+p)%p, (me+1)%p
	for i := 0; i < p-1; i++ {
		e.send(right, e.s.Counts[(me-i+p)%p])
		e.recv(left, e.s.Counts[(me-i-1+p)%p])
		e.next()
	}
}

// ompiLinearRooted is the linear gather (scatter false) and scatter, of
// equal blocks or, with v, of the counts (empty blocks skipped): the root
// handles ranks 0..P-1 in order, one blocking message at a time.
func ompiLinearRooted(e *emitter, scatter, v bool) {
	root := e.s.Root
	size := func(i int) uint64 {
		if v {
			return e.s.Counts[i]
		}
		return e.s.Size
	}
	if e.me != root {
		if n := size(e.me); n > 0 || !v {
			if scatter {
				e.recv(root, n)
			} else {
				e.send(root, n)
			}
			e.next()
		}
		return
	}
	for i := 0; i < e.p; i++ {
		n := size(i)
		if i == root || (v && n == 0) {
			continue
		}
		if scatter {
			e.send(i, n)
		} else {
			e.recv(i, n)
		}
		e.next()
	}
}

func ompiExscanLinear(e *emitter) {
	n, me, p := e.s.Size, e.me, e.p
	if me > 0 {
		in := e.recv(me-1, n)
		if me < p-1 {
			e.reduce(n, in)
		}
		e.next()
	}
	if me < p-1 {
		e.send(me+1, n)
		e.next()
	}
}

func ompiBarrierTree(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	if p < 2 {
		return
	}
	depth := 1
	for depth < p {
		depth <<= 1
	}
	step := func(jump int, in bool) {
		partner := me ^ jump
		if partner&(jump-1) != 0 || partner >= p {
			return
		}
		if (partner > me) == in {
			e.recv(partner, n)
		} else {
			e.send(partner, n)
		}
		e.next()
	}
	for jump := 1; jump < depth; jump <<= 1 {
		step(jump, true)
	}
	for jump := depth >> 1; jump > 0; jump >>= 1 {
		step(jump, false)
	}
}

func ompiAllgathervBruck(e *emitter) {
	p, me := e.p, e.me
	blocks := func(from, c int) uint64 { // blocks of ranks from..from+c-1, mod P
		var n uint64
		for i := 0; i < c; i++ {
			n += e.s.Counts[(from+i)%p]
		}
		return n
	}
	for d := 1; d < p; d <<= 1 {
		c := d
		if d > p/2 {
			c = p - d
		}
		e.send((me-d+p)%p, blocks(me, c))
		e.recv((me+d)%p, blocks((me+d)%p, c))
		e.next()
	}
}
