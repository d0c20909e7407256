package collective

func init() {
	register(&Algorithm{Op: Barrier, Name: "dissemination",
		Doc:  "dissemination (Hensgen, Finkel, Manber 1988; MPICH's default): ceil(log2 P) rounds, round k sends to me+2^k and receives from me-2^k",
		emit: barrierDissemination})
	register(&Algorithm{Op: Barrier, Name: "recdoub",
		Doc:  "recursive doubling (the pairwise-exchange MPIR_Barrier left under #if 0 in MPICH2's barrier.c): with q = 2^floor(log2 P), rank q+i checks in with i, ranks below q exchange with me XOR 2^k, then i releases q+i",
		emit: barrierRecdoub})
}

func barrierDissemination(e *emitter) {
	for d := 1; d < e.p; d <<= 1 {
		e.send((e.me+d)%e.p, e.s.Size)
		e.recv((e.me-d+e.p)%e.p, e.s.Size)
		e.next()
	}
}

func barrierRecdoub(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	pof2 := pow2Floor(p)
	rem := p - pof2
	if me >= pof2 {
		e.send(me-pof2, n)
		e.next()
		e.recv(me-pof2, n)
		e.next()
		return
	}
	if me < rem {
		e.recv(me+pof2, n)
		e.next()
	}
	for m := 1; m < pof2; m <<= 1 {
		e.send(me^m, n)
		e.recv(me^m, n)
		e.next()
	}
	if me < rem {
		e.send(me+pof2, n)
		e.next()
	}
}
