package collective

func init() {
	register(&Algorithm{Op: Scan, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Scan_intra_recursive_doubling): log2 rounds exchange the partial reduction with me^2^k; data from a lower rank is also folded into the result",
		emit: scanRecdoub})
	register(&Algorithm{Op: Scan, Name: "linear",
		Doc:  "linear chain (Open MPI ompi_coll_base_scan_intra_linear): receive the prefix from me-1, reduce, send it to me+1",
		emit: scanLinear})
	register(&Algorithm{Op: Exscan, Name: "recdoub",
		Doc:  "recursive doubling (MPICH MPIR_Exscan_intra_recursive_doubling): as scan, but the first data from a lower rank is copied into the result, later ones reduced",
		emit: exscanRecdoub})
}

// scanRecdoub: every round is a send-receive with me^mask; the received
// data is reduced into the partial result that is forwarded, and, when it
// comes from a lower rank, into the result as well (a second reduction).
func scanRecdoub(e *emitter) {
	n := e.s.Size
	for mask := 1; mask < e.p; mask <<= 1 {
		dst := e.me ^ mask
		if dst >= e.p {
			continue
		}
		e.send(dst, n)
		partial := e.reduce(n, e.recv(dst, n))
		if dst < e.me {
			e.reduce(n, partial)
		}
		e.next()
	}
}

func scanLinear(e *emitter) {
	n := e.s.Size
	if e.me > 0 {
		e.reduce(n, e.recv(e.me-1, n))
		e.next()
	}
	if e.me < e.p-1 {
		e.send(e.me+1, n)
		e.next()
	}
}

// exscanRecdoub is scanRecdoub except that the first data from a lower
// rank is copied into the result rather than reduced into it.
func exscanRecdoub(e *emitter) {
	n := e.s.Size
	haveResult := false
	for mask := 1; mask < e.p; mask <<= 1 {
		dst := e.me ^ mask
		if dst >= e.p {
			continue
		}
		e.send(dst, n)
		partial := e.reduce(n, e.recv(dst, n))
		if dst < e.me {
			if haveResult {
				e.reduce(n, partial)
			}
			haveResult = true
		}
		e.next()
	}
}
