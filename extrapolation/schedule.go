package extrapolation

import (
	"fmt"

	"github.com/gopsim/gopsim/goal"
)

// ScheduleOptions control Schedule.
type ScheduleOptions struct {
	// Factor is K: the output has K·P ranks. It must be at least 1.
	Factor int
	// Grid, if not nil, is the process grid of the schedule's ranks in
	// rank order, slowest dimension first, whose product is P: the copies
	// are stacked along its first dimension and messages that wrapped
	// around it cross into the neighbouring copy (see the package doc).
	// nil: every copy keeps its messages.
	Grid []int
}

// Schedule writes the K·P-rank extrapolation of s, rank by rank in order,
// to write: rank r + P·j is rank r's block with its peers remapped for
// copy j (AnySource stays the wildcard), its tags, sizes, CPUs, NICs,
// dependencies and labels kept. The block handed to write is reused for
// the next rank.
func Schedule(s *goal.Schedule, opt ScheduleOptions, write func(*goal.RankBlock) error) error {
	p := s.NumRanks
	if err := checkFactor(p, opt.Factor); err != nil {
		return err
	}
	if !s.Complete() {
		return fmt.Errorf("extrapolation: the schedule has %d of its %d ranks", len(s.RankStart)-1, p)
	}
	m := mapper{p: p, k: opt.Factor}
	if opt.Grid != nil {
		if product(opt.Grid) != p {
			return fmt.Errorf("%w: grid %s has %d ranks, the schedule %d", ErrOptions, FormatDims(opt.Grid), product(opt.Grid), p)
		}
		m.d0 = opt.Grid[0]
	}
	var b goal.RankBlock
	for j := range opt.Factor {
		for r := range p {
			s.Block(r, &b)
			b.Rank = int32(r + p*j)
			for i := range b.Ops {
				op := &b.Ops[i]
				if op.Kind == goal.Calc || op.Peer == goal.AnySource {
					continue
				}
				op.Peer = m.peer(int32(r), op.Peer, j)
			}
			if err := write(&b); err != nil {
				return fmt.Errorf("extrapolation: rank %d (copy %d of rank %d): %w", b.Rank, j, r, err)
			}
		}
	}
	return nil
}
