package collective

func init() {
	register(&Algorithm{Op: Barrier, Name: "dissemination",
		Doc:  "dissemination (Hensgen, Finkel, Manber 1988; MPICH's default): ceil(log2 P) rounds, round k sends to me+2^k and receives from me-2^k",
		emit: barrierDissemination})
}

func barrierDissemination(e *emitter) {
	for d := 1; d < e.p; d <<= 1 {
		e.send((e.me+d)%e.p, e.s.Size)
		e.recv((e.me-d+e.p)%e.p, e.s.Size)
		e.next()
	}
}
