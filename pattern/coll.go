package pattern

import (
	"fmt"
	"math/rand/v2"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
)

// One pattern per collective operation, named mpi_OP (Schedgen already owns
// "gather" and "scatter"), over all ranks, built by the
// algorithms of package collective: --algo picks one (default auto: MPICH's
// selection), --iterations repeats the call, each time after --compute ns
// of computation.

func init() {
	for _, op := range collective.Ops() {
		op := op
		flags := []string{"-s", "-d", "--algo", "--iterations", "--compute", "--tag", "--reduce-cost", "--segmentsize", "--nway"}
		if op.Rooted() {
			flags = append(flags, "--root")
		}
		switch op {
		case collective.Gatherv, collective.Scatterv, collective.Allgatherv, collective.Alltoallv:
			flags = append(flags, "--seed")
		}
		var names []string
		for _, a := range collective.Algorithms(op) {
			names = append(names, a.Name)
		}
		register(&Pattern{Name: "mpi_" + op.String(), Group: "collective", Flags: flags,
			Doc:     fmt.Sprintf("MPI %s; --algo auto or one of %v", op, names),
			prepare: func(p *Params) (*Generator, error) { return prepColl(op, p) }})
	}
}

// vCounts draws the block sizes of v-collectives: uniform in 0..2·Size, so
// the mean is Size, with zeros included, from --seed.
func vCounts(rnd *rand.Rand, n int, size uint64) []uint64 {
	c := make([]uint64, n)
	for i := range c {
		c[i] = rnd.Uint64N(2*size + 1)
	}
	return c
}

func prepColl(op collective.Op, p *Params) (*Generator, error) {
	n := p.Ranks
	spec := collective.Spec{
		Comm: collective.WorldComm(n), Root: p.Root, Size: p.Size, Tag: p.Tag,
		Segment: p.Segment, Radix: p.NWay, ReduceNsPerByte: p.ReduceNsPerByte,
	}
	var matrix func(i, j int) uint64 // alltoallv: bytes from i to j
	switch op {
	case collective.Gatherv, collective.Scatterv, collective.Allgatherv:
		spec.Counts = vCounts(rand.New(rand.NewPCG(p.Seed, 0x6761746865727620)), n, p.Size)
	case collective.Alltoallv:
		// Row i drawn from its own stream, so any rank's row or column is
		// computed without a P x P matrix.
		matrix = func(i, j int) uint64 {
			if i == j {
				return 0
			}
			r := rand.New(rand.NewPCG(p.Seed, uint64(i)<<32|uint64(j)))
			return r.Uint64N(2*p.Size + 1)
		}
		spec.Counts, spec.RecvCounts = make([]uint64, n), make([]uint64, n)
	}
	var alg *collective.Algorithm
	var err error
	if p.Algo == "" || p.Algo == "auto" {
		alg, err = collective.Select(op, &spec)
	} else {
		alg, err = collective.Lookup(op, p.Algo)
		if err == nil {
			err = alg.Check(&spec)
		}
	}
	if err != nil {
		return nil, err
	}
	iters, compute, cost := p.Iterations, p.Compute, p.ReduceNsPerByte
	var after, ends []int32
	g := &Generator{ranks: n, rank: func(b *goal.Builder, r int) error {
		var err error
		s := spec
		if matrix != nil {
			for j := 0; j < n; j++ {
				s.Counts[j], s.RecvCounts[j] = matrix(r, j), matrix(j, r)
			}
		}
		after = after[:0]
		for it := 0; it < iters; it++ {
			if compute > 0 {
				c := b.Calc(compute, 0)
				for _, a := range after {
					b.Requires(c, a)
				}
				after = append(after[:0], c)
			}
			if ends, err = alg.Emit(b, r, &s, after, ends); err != nil {
				return fmt.Errorf("--reduce-cost %g: %w", cost, err)
			}
			after = append(after[:0], ends...)
		}
		return nil
	}}
	if cost > 0 {
		if err := checkReduceCost(g, op, &spec, cost); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// checkReduceCost refuses, before any rank is written, a reduction cost of
// cost ns/byte that makes a combination of some rank of g longer than a
// calc holds (goal.MaxCalc), naming the first such rank: no rank can have
// one when combining the call's whole vector fits in a calc
// (collective.MaxCombined); otherwise every rank is generated once, since
// which ranks combine how much depends on the algorithm (a linear scan's
// rank 0 combines nothing, a reduce's root the most).
func checkReduceCost(g *Generator, op collective.Op, s *collective.Spec, cost float64) error {
	if _, err := goal.CalcSize(float64(collective.MaxCombined(op, s)) * cost); err == nil {
		return nil
	}
	var b goal.Builder
	for r := 0; r < g.ranks; r++ {
		b.Reset(int32(r))
		if err := g.rank(&b, r); err != nil {
			return fmt.Errorf("%w: rank %d: %w", ErrParams, r, err)
		}
	}
	return nil
}
