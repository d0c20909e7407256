package collective

func init() {
	register(&Algorithm{Op: Alltoall, Name: "bruck",
		Doc:  "Bruck (MPICH MPIR_Alltoall_intra_brucks): ceil(log2 P) steps; step 2^k sends to me+2^k the blocks whose index has bit k set and receives as many from me-2^k",
		emit: alltoallBruck})
	register(&Algorithm{Op: Alltoall, Name: "pairwise",
		Doc:  "pairwise exchange (MPICH MPIR_Alltoall_intra_pairwise): P-1 sendrecv steps with me XOR i for P a power of two, else sending to me+i and receiving from me-i",
		emit: func(e *emitter) { alltoallPairwise(e, false) }})
	register(&Algorithm{Op: Alltoall, Name: "linear",
		Doc:  "all at once (MPICH MPIR_Alltoall_intra_scattered with no throttle): irecv from and isend to every other rank, then wait for all",
		emit: func(e *emitter) { alltoallLinear(e, false) }})
	register(&Algorithm{Op: Alltoallv, Name: "linear",
		Doc:  "all at once (MPICH MPIR_Alltoallv_intra_scattered with no throttle): irecv and isend every non-empty block, then wait for all",
		emit: func(e *emitter) { alltoallLinear(e, true) }})
	register(&Algorithm{Op: Alltoallv, Name: "pairwise",
		Doc:  "pairwise exchange in the order of MPICH MPIR_Alltoall_intra_pairwise (XOR for P a power of two, else me+i / me-i), one blocking step each, empty blocks not sent as in MPICH's alltoallv",
		emit: func(e *emitter) { alltoallPairwise(e, true) }})
}

// alltoallSend and alltoallRecv are the bytes this rank sends to and
// receives from comm rank j: Size for alltoall, the counts for alltoallv.
func alltoallSend(e *emitter, v bool, j int) uint64 {
	if v {
		return e.s.Counts[j]
	}
	return e.s.Size
}

func alltoallRecv(e *emitter, v bool, j int) uint64 {
	if v {
		return e.s.RecvCounts[j]
	}
	return e.s.Size
}

func alltoallBruck(e *emitter) {
	p, me := e.p, e.me
	for d := 1; d < p; d <<= 1 {
		blocks := 0
		for b := 1; b < p; b++ {
			if b&d != 0 {
				blocks++
			}
		}
		n := uint64(blocks) * e.s.Size
		e.send((me+d)%p, n)
		e.recv((me-d+p)%p, n)
		e.next()
	}
}

// alltoallPairwise serves alltoall and alltoallv: a v-collective leaves out
// the empty side of a step (MPICH's alltoallv algorithms post nothing for a
// zero count), and a step with nothing either way costs nothing.
func alltoallPairwise(e *emitter, v bool) {
	p, me := e.p, e.me
	xor := isPow2(p)
	for i := 1; i < p; i++ {
		dst, src := (me+i)%p, (me-i+p)%p
		if xor {
			dst, src = me^i, me^i
		}
		if n := alltoallSend(e, v, dst); n > 0 || !v {
			e.send(dst, n)
		}
		if n := alltoallRecv(e, v, src); n > 0 || !v {
			e.recv(src, n)
		}
		e.next()
	}
}

// alltoallLinear posts every receive (from me+1, me+2, ...) and every send
// (to me-1, me-2, ...) in one round, as MPICH posts its irecvs and isends
// before one waitall. The block to itself is a local copy, not a message.
func alltoallLinear(e *emitter, v bool) {
	p, me := e.p, e.me
	for i := 1; i < p; i++ {
		src := (me + i) % p
		if n := alltoallRecv(e, v, src); n > 0 || !v {
			e.recv(src, n)
		}
	}
	for i := 1; i < p; i++ {
		dst := (me - i + p) % p
		if n := alltoallSend(e, v, dst); n > 0 || !v {
			e.send(dst, n)
		}
	}
}
