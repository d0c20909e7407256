package goal

import (
	"fmt"
	"math"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// Limits bound the sizes of the ops a text reader accepts, below the
// format's own bounds, for a consumer that cannot take larger ones: gopsim
// sim's engine runs messages of up to 2 TiB and calcs of up to MaxCalc ns
// (sim's text readers give these). A reader with limits reports an op
// beyond them as a *LimitError at the op's line, where the consumer could
// only name it by rank and index. The zero value bounds nothing.
type Limits struct {
	Message uint64 // the largest send or recv, in bytes; 0: no bound
	Calc    uint64 // the longest calc, in ns; 0: no bound
}

// Of returns the largest size l takes for an op of kind k.
func (l Limits) Of(k Kind) uint64 {
	v := l.Message
	if k == Calc {
		v = l.Calc
	}
	if v == 0 {
		return math.MaxUint64
	}
	return v
}

// Check returns a *LimitError for the first op of s, in rank order, that
// is larger than l allows, without a position (a schedule held in memory
// has no lines); nil if every op fits. The zero Limits bound nothing, and
// an op within the smaller of the two bounds costs one comparison.
func (l Limits) Check(s *Schedule) error {
	if l == (Limits{}) {
		return nil
	}
	low := min(l.Of(Send), l.Of(Calc))
	for g := range s.Ops {
		op := &s.Ops[g]
		if op.Size <= low || op.Size <= l.Of(op.Kind) {
			continue
		}
		r := s.RankOf(int32(g))
		return &LimitError{Rank: r, Op: g - int(s.RankStart[r]), Label: s.Label(int32(g)), Kind: op.Kind, Size: op.Size, Limit: l.Of(op.Kind)}
	}
	return nil
}

// LimitError is an op larger than its consumer takes: valid GOAL, beyond
// the Limits its reader was given, or beyond what a consumer of a schedule
// already read can run. A text reader gives the op's position; an op of a
// binary schedule, which has no lines, has none (Line 0), and the caller
// names the file.
type LimitError struct {
	File      string // the text's name; "" without a position
	Line, Col int    // 1-based, of the op's size; 0 when not known
	Rank, Op  int    // the op's rank and its index in the rank's block
	Label     string // its label; "" for none
	Kind      Kind
	Size      uint64 // bytes (send, recv) or ns (calc)
	Limit     uint64 // the largest size of its kind that is taken
}

func (e *LimitError) Error() string {
	unit := "bytes"
	if e.Kind == Calc {
		unit = "ns"
	}
	label := ""
	if e.Label != "" {
		label = " (" + excerpt.Of(e.Label) + ")"
	}
	msg := fmt.Sprintf("rank %d op %d%s: %s of %d %s beyond the supported %d",
		e.Rank, e.Op, label, e.Kind, e.Size, unit, e.Limit)
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, msg)
	}
	return msg
}
