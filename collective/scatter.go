package collective

func init() {
	register(&Algorithm{Op: Scatter, Name: "binomial",
		Doc:  "binomial tree (MPICH MPIR_Scatter_intra_binomial): receive the blocks of the own subtree from the parent, then pass each child its subtree's blocks, farthest child first",
		emit: scatterBinomial})
	register(&Algorithm{Op: Scatter, Name: "linear",
		Doc:  "linear: the root posts a send of its block to every rank at once and waits for all (MPICH MPIR_Scatterv_allcomm_linear with equal counts)",
		emit: scatterLinear})
	register(&Algorithm{Op: Scatterv, Name: "linear",
		Doc:   "linear (MPICH MPIR_Scatterv_allcomm_linear): the root posts a send per rank with a nonzero count and waits for all; a rank with a zero count receives nothing",
		check: checkVRootCounts,
		emit:  scattervLinear})
}

// scatterBinomial mirrors gatherBinomial: relative rank r receives its
// subtree's blocks from r - lowbit(r), then sends to r+m, for the powers of
// two m below lowbit(r) from the largest down, the blocks of r+m's subtree.
func scatterBinomial(e *emitter) {
	p, root, n := e.p, e.s.Root, e.s.Size
	r := rel(e.me, root, p)
	mask := 1
	for mask < p {
		if r&mask != 0 {
			e.recv(abs(r-mask, root, p), uint64(gatherTreeSize(r, p))*n)
			e.next()
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if child := r + mask; child < p {
			e.send(abs(child, root, p), uint64(gatherTreeSize(child, p))*n)
			e.next()
		}
	}
}

func scatterLinear(e *emitter) {
	if e.me != e.s.Root {
		e.recv(e.s.Root, e.s.Size)
		return
	}
	for i := 0; i < e.p; i++ {
		if i != e.me {
			e.send(i, e.s.Size)
		}
	}
}

func scattervLinear(e *emitter) {
	if e.me != e.s.Root {
		if c := e.s.Counts[e.me]; c > 0 {
			e.recv(e.s.Root, c)
		}
		return
	}
	for i, c := range e.s.Counts {
		if i != e.me && c > 0 {
			e.send(i, c)
		}
	}
}
