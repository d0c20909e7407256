package collective

import "fmt"

// Select picks the algorithm MPICH's default selection would run for s, as
// in MPICH 3.x's choice in MPIR_<Op>_intra (kept as the "auto" fallback of
// MPICH 4's selection), with the MPIR_CVAR_* defaults of those versions
// (bytes; commutative reduction operations):
//
//	bcast:     P < 8 or bytes < 12288 (BCAST_SHORT_MSG_SIZE, BCAST_MIN_PROCS): binomial;
//	           bytes < 524288 (BCAST_LONG_MSG_SIZE) and P a power of two: scatter_recdoub_allgather;
//	           otherwise scatter_ring_allgather
//	reduce:    bytes > 2048 (REDUCE_SHORT_MSG_SIZE) and bytes/elem >= 2^floor(log2 P): rabenseifner; else binomial
//	allreduce: bytes <= 2048 (ALLREDUCE_SHORT_MSG_SIZE) or count < 2^floor(log2 P): recdoub; else rabenseifner
//	allgather: total P·bytes < 524288 (ALLGATHER_LONG_MSG_SIZE) and P a power of two: recdoub;
//	           total < 81920 (ALLGATHER_SHORT_MSG_SIZE): bruck; otherwise ring
//	alltoall:  bytes <= 256 (ALLTOALL_SHORT_MSG_SIZE) and P >= 8 (ALLTOALL_MIN_PROCS): bruck;
//	           bytes <= 32768 (ALLTOALL_MEDIUM_MSG_SIZE): linear (MPICH's "scattered", which
//	           keeps at most ALLTOALL_THROTTLE = 32 requests in flight; ours posts all); else pairwise
//	reduce_scatter: total bytes < 524288 (REDSCAT_COMMUTATIVE_LONG_MSG_SIZE): recursive_halving; else pairwise
//	gather, scatter: binomial; the v-variants: linear; scan: recdoub; barrier: dissemination
//
// Sizes are in bytes and one byte is taken as one element. When the
// preferred algorithm cannot build s (not registered, or its check fails),
// Select falls back to the next candidate and finally to any algorithm of
// the operation that accepts s.
func Select(op Op, s *Spec) (*Algorithm, error) {
	p := s.Comm.Size()
	n := s.Size
	pof2 := pow2Floor(max(p, 1))
	var pref []string
	switch op {
	case Barrier:
		pref = []string{"dissemination"}
	case Bcast:
		switch {
		case p < 8 || n < 12288:
			pref = []string{"binomial"}
		case n < 524288 && isPow2(p):
			pref = []string{"scatter_recdoub_allgather", "scatter_ring_allgather"}
		default:
			pref = []string{"scatter_ring_allgather"}
		}
	case Reduce:
		if n > 2048 && n >= uint64(pof2) {
			pref = []string{"rabenseifner"}
		} else {
			pref = []string{"binomial"}
		}
	case Allreduce:
		if n <= 2048 || n < uint64(pof2) {
			pref = []string{"recdoub"}
		} else {
			pref = []string{"rabenseifner"}
		}
	case Allgather:
		total := n * uint64(p)
		switch {
		case total < 524288 && isPow2(p):
			pref = []string{"recdoub"}
		case total < 81920:
			pref = []string{"bruck"}
		default:
			pref = []string{"ring"}
		}
	case Allgatherv:
		pref = []string{"ring"}
	case Alltoall:
		switch {
		case n <= 256 && p >= 8:
			pref = []string{"bruck"}
		case n <= 32768:
			pref = []string{"linear"}
		default:
			pref = []string{"pairwise"}
		}
	case Alltoallv:
		pref = []string{"linear"}
	case Gather, Scatter:
		pref = []string{"binomial"}
	case Gatherv, Scatterv:
		pref = []string{"linear"}
	case ReduceScatter:
		if n*uint64(p) < 524288 {
			pref = []string{"recursive_halving"}
		} else {
			pref = []string{"pairwise"}
		}
	case Scan, Exscan:
		pref = []string{"recdoub"}
	}
	for _, name := range pref {
		if a, err := Lookup(op, name); err == nil && a.Check(s) == nil {
			return a, nil
		}
	}
	var firstErr error
	for _, a := range Algorithms(op) {
		err := a.Check(s)
		if err == nil {
			return a, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, fmt.Errorf("%w: no algorithm for %s", ErrSpec, op)
}
