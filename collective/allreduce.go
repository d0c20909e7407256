package collective

func init() {
	register(&Algorithm{Op: Allreduce, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Allreduce_intra_recursive_doubling): the P - 2^floor(log2 P) extra ranks fold into their neighbours first and get the result last",
		emit: allreduceRecdoub})
}

func allreduceRecdoub(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	pof2 := pow2Floor(p)
	rem := p - pof2
	newrank := me - rem
	if me < 2*rem {
		if me%2 == 0 {
			e.send(me+1, n)
			e.next()
			newrank = -1
		} else {
			e.reduce(n, e.recv(me-1, n))
			e.next()
			newrank = me / 2
		}
	}
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
