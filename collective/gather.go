package collective

import "fmt"

func init() {
	register(&Algorithm{Op: Gather, Name: "binomial",
		Doc:  "binomial tree (MPICH MPIR_Gather_intra_binomial): receive the subtrees from the nearest child out, then send own and gathered blocks to the parent in one message",
		emit: gatherBinomial})
	register(&Algorithm{Op: Gather, Name: "linear",
		Doc:  "linear: every rank sends its block to the root, which posts all receives at once and waits for them (MPICH MPIR_Gatherv_allcomm_linear with equal counts)",
		emit: gatherLinear})
	register(&Algorithm{Op: Gatherv, Name: "linear",
		Doc:   "linear (MPICH MPIR_Gatherv_allcomm_linear): the root posts a receive per rank with a nonzero count and waits for all; a rank with a zero count sends nothing",
		check: checkVRootCounts,
		emit:  gathervLinear})
}

// gatherTreeSize is the number of ranks in the binomial subtree of the
// rank whose rank relative to the root is r: r and the ranks below
// r + lowbit(r) (the whole communicator for the root), cut at p.
func gatherTreeSize(r, p int) int {
	if r == 0 {
		return p
	}
	return min(r&-r, p-r)
}

// checkVRootCounts requires one count per comm rank, as the
// v-collectives rooted at one rank index Counts by comm rank.
func checkVRootCounts(s *Spec) error {
	if p := s.Comm.Size(); len(s.Counts) != p {
		return fmt.Errorf("%d counts for %d ranks", len(s.Counts), p)
	}
	return nil
}

// gatherBinomial: relative rank r receives, one blocking receive per round,
// from r+1, r+2, r+4, ... (each child's whole subtree), until the first set
// bit of r, where it sends everything it holds to r - that bit and stops.
func gatherBinomial(e *emitter) {
	p, root, n := e.p, e.s.Root, e.s.Size
	r := rel(e.me, root, p)
	for mask := 1; mask < p; mask <<= 1 {
		if r&mask != 0 {
			e.send(abs(r-mask, root, p), uint64(gatherTreeSize(r, p))*n)
			e.next()
			return
		}
		if child := r + mask; child < p {
			e.recv(abs(child, root, p), uint64(gatherTreeSize(child, p))*n)
			e.next()
		}
	}
}

func gatherLinear(e *emitter) {
	if e.me != e.s.Root {
		e.send(e.s.Root, e.s.Size)
		return
	}
	for i := 0; i < e.p; i++ {
		if i != e.me {
			e.recv(i, e.s.Size)
		}
	}
}

func gathervLinear(e *emitter) {
	if e.me != e.s.Root {
		if c := e.s.Counts[e.me]; c > 0 {
			e.send(e.s.Root, c)
		}
		return
	}
	for i, c := range e.s.Counts {
		if i != e.me && c > 0 {
			e.recv(i, c)
		}
	}
}
