package collective

import (
	"fmt"
	"sort"
	"strings"
)

// Rules is an MPI library's default choice of collective algorithms.
type Rules uint8

// The selection rules gopsim knows.
const (
	// MPICH is MPICH's default selection (Select).
	MPICH Rules = iota + 1
	// OpenMPI is Open MPI's: the fixed decision rules of its "tuned"
	// component for the operations tuned implements, the "basic"
	// component's linear algorithms for the others (see SelectOpenMPI).
	OpenMPI
)

func (r Rules) String() string {
	switch r {
	case MPICH:
		return "mpich"
	case OpenMPI:
		return "openmpi"
	}
	return fmt.Sprintf("Rules(%d)", uint8(r))
}

// ParseRules reads "mpich" or "openmpi".
func ParseRules(s string) (Rules, error) {
	switch s {
	case "mpich":
		return MPICH, nil
	case "openmpi":
		return OpenMPI, nil
	}
	return 0, fmt.Errorf("%w: collective selection %q: expected openmpi or mpich", ErrSpec, s)
}

// Choice is the algorithm Rules.Choose picked for one call.
type Choice struct {
	Alg *Algorithm
	// Wanted is, when the library would run an algorithm gopsim does not
	// model, that algorithm's name; Alg is then the stand-in (see
	// SelectOpenMPI). Empty otherwise.
	Wanted string
}

// Choose picks the algorithm the library of r runs for s.
func (r Rules) Choose(op Op, s *Spec) (Choice, error) {
	switch r {
	case MPICH:
		a, err := Select(op, s)
		return Choice{Alg: a}, err
	case OpenMPI:
		return SelectOpenMPI(op, s)
	}
	return Choice{}, fmt.Errorf("%w: no selection rules %v", ErrSpec, r)
}

// pick is Choose for an algorithm that calls another collective inside
// (Open MPI's nonoverlapping allreduce): it falls back to any algorithm
// that accepts s, as Select does.
func (r Rules) pick(op Op, s *Spec) *Algorithm {
	c, err := r.Choose(op, s)
	if err != nil || c.Alg == nil {
		return Algorithms(op)[0]
	}
	return c.Alg
}

// ompiBand is one range of communicator sizes in Open MPI's fixed rules:
// for P < below (0: any larger P), cuts lists "bytes < x: algorithm a"
// pairs x, a in order, then the algorithm for larger sizes. Algorithms
// are Open MPI's numbers for the operation (ompiAlgs).
type ompiBand struct {
	below int
	cuts  []uint64
}

// pick returns the algorithm number of the band for bytes.
func (b ompiBand) pick(bytes uint64) int {
	i := 0
	for ; i+1 < len(b.cuts); i += 2 {
		if bytes < b.cuts[i] {
			return int(b.cuts[i+1])
		}
	}
	return int(b.cuts[i])
}

// ompiDecide returns Open MPI's algorithm number for op on p ranks with
// the size measure bytes (see ompiMeasure), under the fixed rules of
// coll_tuned_decision_fixed.c for commutative operations; block selects
// MPI_Reduce_scatter_block's table for ReduceScatter.
func ompiDecide(op Op, p int, bytes uint64, block bool) int {
	table := ompiFixed[op]
	if op == ReduceScatter && block {
		table = ompiFixedRSBlock
	}
	for _, b := range table {
		if b.below == 0 || p < b.below {
			return b.pick(bytes)
		}
	}
	return 0
}

// ompiMeasure is the size Open MPI's rules compare for s: the buffer for
// bcast, reduce and allreduce; the block per rank for allgather, alltoall,
// gather, scatter and reduce_scatter_block; all result blocks together for
// reduce_scatter; the mean block for allgatherv; nothing for barrier and
// alltoallv.
func ompiMeasure(op Op, s *Spec) uint64 {
	p := uint64(max(s.Comm.Size(), 1))
	switch op {
	case ReduceScatter:
		if s.Block {
			return s.Size
		}
		return s.Size * p
	case Allgatherv:
		var t uint64
		for _, c := range s.Counts {
			t += c
		}
		return t / p
	case Barrier, Alltoallv:
		return 0
	}
	return s.Size
}

// SelectOpenMPI picks the algorithm Open MPI 4.1 runs for s on a
// communicator where its "tuned" component is selected (priority 30, the
// highest of the components that serve intracommunicators of more than
// one rank in a default build): tuned's fixed decision rules
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, tag v4.1.4; identical
// in v5.0.x) for bcast, reduce, allreduce, allgather(v), alltoall(v),
// barrier, gather, scatter and reduce_scatter(_block), with commutative
// reduction operations (traces do not record the operation), segment size
// 0 and fanout 0 as those rules pass them; the "basic" component's linear
// algorithms for scan, exscan, gatherv and scatterv, which tuned does not
// implement. Nonblocking collectives (Open MPI's libnbc component) are
// given the same choice.
//
// The rules are the tables of ompiFixed, one per operation; docs/
// collectives.md lists them. When an algorithm the rules name is not in
// this package, Choice.Wanted names it and Choice.Alg is its stand-in
// (ompiStandIn). When the choice cannot build s, the next candidates of
// the stand-in list are tried, then any algorithm of the operation.
func SelectOpenMPI(op Op, s *Spec) (Choice, error) {
	p := s.Comm.Size()
	var name string
	switch op {
	case Scan, Exscan, Gatherv, Scatterv:
		name = ompiBasic[op]
	default:
		id := ompiDecide(op, p, ompiMeasure(op, s), s.Block)
		names := ompiAlgs[op]
		if op == ReduceScatter && s.Block {
			names = ompiAlgsRSBlock
		}
		if id <= 0 || id >= len(names) {
			return Choice{}, fmt.Errorf("%w: Open MPI rules give no algorithm for %s on %d ranks", ErrSpec, op, p)
		}
		name = names[id]
	}
	c := Choice{}
	cands := []string{name}
	if a, err := Lookup(op, name); err != nil || a == nil {
		c.Wanted = name
		cands = ompiStandIn[op.String()+"/"+name]
	}
	for _, n := range cands {
		if a, err := Lookup(op, n); err == nil && a.Check(s) == nil {
			c.Alg = a
			return c, nil
		}
	}
	var firstErr error
	for _, a := range Algorithms(op) {
		err := a.Check(s)
		if err == nil {
			c.Alg = a
			if c.Wanted == "" {
				c.Wanted = name
			}
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w: no algorithm for %s", ErrSpec, op)
	}
	return Choice{}, firstErr
}

// OpenMPIRules describes the rules of op, one line per band of
// communicator sizes, as docs/collectives.md and the tests show them.
func OpenMPIRules(op Op) []string {
	if n, ok := ompiBasic[op]; ok {
		return []string{"any P: " + n + " (basic component)"}
	}
	var out []string
	lo := 1
	add := func(table []ompiBand, ompi, ours []string, prefix string) {
		lo = 1
		name := func(id uint64) string {
			if ompi[id] == ours[id] {
				return ours[id]
			}
			return ompi[id] + " (" + ours[id] + ")"
		}
		for _, b := range table {
			var parts []string
			i := 0
			for ; i+1 < len(b.cuts); i += 2 {
				parts = append(parts, fmt.Sprintf("< %d B: %s", b.cuts[i], name(b.cuts[i+1])))
			}
			if len(parts) == 0 {
				parts = append(parts, name(b.cuts[i]))
			} else {
				parts = append(parts, "else "+name(b.cuts[i]))
			}
			rng := fmt.Sprintf("P >= %d", lo)
			switch {
			case b.below == 3 && lo == 1:
				rng = "P <= 2"
			case b.below > 0:
				rng = fmt.Sprintf("%d <= P < %d", lo, b.below)
			}
			if b.below > 0 {
				lo = b.below
			}
			out = append(out, prefix+rng+": "+strings.Join(parts, ", "))
		}
	}
	add(ompiFixed[op], ompiNames[op], ompiAlgs[op], "")
	if op == ReduceScatter {
		add(ompiFixedRSBlock, ompiNamesRSBlock, ompiAlgsRSBlock, "block: ")
	}
	return out
}

// OpenMPIStandIns lists, sorted, the algorithms Open MPI's rules can name
// that gopsim does not model, with their stand-ins.
func OpenMPIStandIns() []string {
	var out []string
	for k, v := range ompiStandIn {
		op, name, _ := strings.Cut(k, "/")
		o, _ := ParseOp(op)
		if _, err := Lookup(o, name); err == nil {
			continue
		}
		out = append(out, k+" -> "+strings.Join(v, ", "))
	}
	sort.Strings(out)
	return out
}
