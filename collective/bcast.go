package collective

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
