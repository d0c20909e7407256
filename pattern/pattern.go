package pattern

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gopsim/gopsim/goal"
)

// ErrParams is returned (wrapped) for parameters a pattern cannot use.
var ErrParams = errors.New("pattern: invalid parameters")

// Params are the knobs of every pattern; each pattern uses the ones its
// Flags list. The zero value of a field is its documented default.
type Params struct {
	Ranks   int    // -s: number of ranks (default 8)
	Size    uint64 // -d: bytes per basic message (default 1)
	Root    int    // --root (default 0)
	NWay    int    // --nway: fan-out of nwaydissemination (default 1)
	Segment uint64 // --segmentsize: bytes per pipeline segment (0: Schedgen's 1 for its patterns, 8192 for pipelined algorithms)
	Seed    uint64 // --seed: random patterns (default 0; Schedgen's own seeds: see each pattern)

	// Schedgen extras.
	NB           uint64 // --nb: a calc of this many ns at the start of every rank (0: none)
	NBPoll       uint64 // --nb-poll: split the --nb calc into a chain of calcs of this length
	ReplaceDeps  bool   // --rpl-dep-cmp given: allreduce_recdoub replaces data dependencies
	ReplaceDepNs uint64 // by a calc of this many ns
	A2AVSkew     int    // --a2av-skew-ratio: linear_alltoallv random sizes are up to Size/A2AVSkew (default 1)
	A2AVOutcast  bool   // --outcast: linear_alltoallv rank root+1 sends Size to everyone

	// Collectives beyond Schedgen.
	Algo            string  // --algo: algorithm name, or "auto" (default)
	ReduceNsPerByte float64 // --reduce-cost: ns of compute per reduced byte
	Tag             uint32  // --tag: tag of every message of a collective

	// Application patterns.
	Iterations int    // --iterations (default 1)
	Compute    uint64 // --compute: ns of computation per rank and iteration
	Dims       []int  // --dims: process grid (default: as square/cubic as possible)
	Stencil    int    // --stencil: points of a halo stencil (5 or 9 in 2-D, 7 or 27 in 3-D)
	Periodic   bool   // --periodic: halo neighbours wrap around
}

// Pattern is one named schedule generator.
type Pattern struct {
	Name  string
	Doc   string   // one line
	Flags []string // the gen flags it uses
	Group string   // "schedgen", "collective" or "application"

	prepare func(p *Params) (*Generator, error)
}

// Generator writes the ops of one rank at a time. It holds only what the
// pattern shares between ranks (a random pairing, a size matrix), so a
// schedule of any size streams rank by rank.
type Generator struct {
	ranks int
	rank  func(b *goal.Builder, r int) error
}

// NumRanks is the number of ranks of the schedule.
func (g *Generator) NumRanks() int { return g.ranks }

// Rank appends the ops of rank r to b, which the caller has Reset to r. Its
// error is a reduction that --reduce-cost makes longer than a calc holds
// (goal.MaxCalc); b then does not hold the rank's schedule. New refuses
// such a cost up front, naming the first rank it fails on, so that a
// generator it returns writes every rank.
func (g *Generator) Rank(b *goal.Builder, r int) error { return g.rank(b, r) }

var patterns []*Pattern

func register(p *Pattern) { patterns = append(patterns, p) }

// List returns every pattern, sorted by group then name.
func List() []*Pattern {
	out := append([]*Pattern(nil), patterns...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return groupOrder(out[i].Group) < groupOrder(out[j].Group)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func groupOrder(g string) int {
	switch g {
	case "schedgen":
		return 0
	case "collective":
		return 1
	}
	return 2
}

// Lookup finds a pattern by name.
func Lookup(name string) (*Pattern, error) {
	for _, p := range patterns {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w: unknown pattern %q (gopsim gen --list shows them)", ErrParams, name)
}

// New prepares the generator of pattern name with p, filling defaults.
func New(name string, p Params) (*Generator, error) {
	pat, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if p.Ranks == 0 {
		p.Ranks = 8
	}
	if p.Ranks < 1 || p.Ranks > goal.MaxRanks {
		return nil, fmt.Errorf("%w: %s: %d ranks", ErrParams, name, p.Ranks)
	}
	if p.Root < 0 || p.Root >= p.Ranks {
		return nil, fmt.Errorf("%w: %s: root %d outside 0..%d", ErrParams, name, p.Root, p.Ranks-1)
	}
	if p.Iterations == 0 {
		p.Iterations = 1
	}
	if p.Iterations < 0 {
		return nil, fmt.Errorf("%w: %s: %d iterations", ErrParams, name, p.Iterations)
	}
	g, err := pat.prepare(&p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

// Write generates every rank of g in order and hands each block to write
// (goal.Writer.WriteRank or goal.TextWriter.WriteRank).
func Write(g *Generator, write func(*goal.RankBlock) error) error {
	var b goal.Builder
	for r := 0; r < g.ranks; r++ {
		b.Reset(int32(r))
		if err := g.rank(&b, r); err != nil {
			return fmt.Errorf("rank %d: %w", r, err)
		}
		if err := write(b.Block()); err != nil {
			return fmt.Errorf("rank %d: %w", r, err)
		}
	}
	return nil
}
