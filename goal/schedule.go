package goal

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Kind is the kind of a GOAL operation. The numeric order (Send < Recv <
// Calc) is the order in which LogGOPSim inserts operations that become
// ready together, so the simulator relies on it.
type Kind uint8

const (
	Send Kind = 1 // send Size bytes to Peer
	Recv Kind = 2 // receive Size bytes from Peer (or AnySource)
	Calc Kind = 3 // compute for Size time units (ns)
)

func (k Kind) String() string {
	switch k {
	case Send:
		return "send"
	case Recv:
		return "recv"
	case Calc:
		return "calc"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Wildcards. AnySource is a receive's peer that matches any sender; AnyTag
// matches any tag (on a receive, and, as in LogGOPSim, on a send).
const (
	AnySource int32  = -1
	AnyTag    uint32 = math.MaxUint32
)

// Limits of the fields, enforced by every reader.
const (
	MaxRanks = math.MaxInt32 // rank numbers are int32
	MaxCPU   = math.MaxUint16
	MaxNIC   = math.MaxUint16
	MaxTag   = math.MaxUint32 - 1 // AnyTag is reserved
)

// MaxCalc is the longest calc, in ns, that gopsim sim runs: its op record
// keeps a size in 62 bits. The readers take any size unless given Limits
// (sim's text readers refuse a longer calc at its line); the producers of
// computed calcs (a reduction cost, a compute scale, gen --compute) refuse
// a longer one through CalcSize, so that it is never wrapped or clamped.
const MaxCalc = 1<<62 - 1

// CalcSize rounds a computation of ns nanoseconds to the nearest whole ns,
// the size of a calc op. A time that is negative, not a number, or beyond
// MaxCalc once rounded is an error that gives the time and the limit;
// callers add what the time is made of.
func CalcSize(ns float64) (uint64, error) {
	v := math.Round(ns)
	if !(v >= 0) { // negative or NaN
		return 0, fmt.Errorf("%.4g ns: a calc takes 0 to %d ns", ns, uint64(MaxCalc))
	}
	// float64(MaxCalc) is 2^62, so the bound is strict: the float below
	// 2^62 is 2^62-512, within the limit.
	if v >= 1<<62 {
		return 0, fmt.Errorf("%.4g ns: more than the %d ns a calc holds", ns, uint64(MaxCalc))
	}
	return uint64(v), nil
}

// Op is one operation of a rank's schedule. It is a 24-byte value: a
// schedule is a flat slice of them, never a graph of pointers.
type Op struct {
	Size uint64 // bytes for send/recv, time units (ns) for calc
	Peer int32  // destination (send) or source (recv, AnySource allowed); 0 for calc
	Tag  uint32 // message tag, AnyTag for the wildcard; 0 for calc
	CPU  uint16 // CPU that executes the op
	NIC  uint16 // NIC that carries the message; 0 for calc
	Kind Kind
}

// Dep is one dependency edge seen from its predecessor: the successor's
// op index within the rank, shifted left by one, with the low bit set for
// an irequires edge (the successor may start once the predecessor has
// started) and clear for a requires edge (once it has completed).
type Dep uint32

// MakeDep builds an edge to successor op index succ.
func MakeDep(succ int32, start bool) Dep {
	d := Dep(uint32(succ) << 1)
	if start {
		d |= 1
	}
	return d
}

// Succ is the successor's op index within the rank.
func (d Dep) Succ() int32 { return int32(uint32(d) >> 1) }

// Start reports whether the edge is an irequires edge.
func (d Dep) Start() bool { return d&1 != 0 }

// Label is an op's label when it is not the canonical one.
type Label struct {
	Op   int32  // op index within the rank
	Name string // "" means the op has no label
}

// CanonicalLabel is the label an op gets when none is stored: "l" followed
// by its 1-based index, as LogGOPSim's Schedgen writes them.
func CanonicalLabel(op int32) string { return "l" + strconv.Itoa(int(op)+1) }

// RankBlock is the schedule of one rank: its ops in definition order, their
// dependency edges grouped by predecessor (CSR form), and the labels that
// differ from CanonicalLabel. Readers hand out one RankBlock at a time, so
// schedules can be streamed.
type RankBlock struct {
	Rank int32
	Ops  []Op
	// DepStart has len(Ops)+1 entries; the successors of op i are
	// Deps[DepStart[i]:DepStart[i+1]], in the order the edges were given.
	DepStart []int32
	Deps     []Dep
	Labels   []Label // sorted by Op
}

// Reset empties b for reuse, keeping its storage.
func (b *RankBlock) Reset(rank int32) {
	b.Rank = rank
	b.Ops = b.Ops[:0]
	b.DepStart = b.DepStart[:0]
	b.Deps = b.Deps[:0]
	b.Labels = b.Labels[:0]
}

// Schedule is a whole GOAL schedule held in memory: per rank a range of a
// flat op slice, and the dependency edges in CSR form over all ops. An op
// is named by its global index g; its rank's ops are
// Ops[RankStart[r]:RankStart[r+1]], and its local index is g-RankStart[r].
type Schedule struct {
	NumRanks int
	NumCPUs  int // CPUs per rank: at least the largest cpu index used, plus one
	NumNICs  int // NICs per rank: at least the largest nic index used, plus one

	Ops       []Op
	RankStart []int32 // len NumRanks+1
	DepStart  []int32 // len len(Ops)+1, indexes Deps
	Deps      []Dep   // successor local index <<1 | irequires
	// Labels holds the labels that are not canonical, by global op index.
	Labels map[int32]string
}

// ErrTooLarge reports a schedule beyond the int32 indexes of the in-memory form.
var ErrTooLarge = errors.New("goal: schedule too large for the in-memory form (more than 2^31-1 ops or edges)")

// NewSchedule returns an empty schedule for numRanks ranks, to be filled
// with AppendRank in rank order.
func NewSchedule(numRanks int) *Schedule {
	s := &Schedule{NumRanks: numRanks, NumCPUs: 1, NumNICs: 1}
	// Reserve for at most 64 k ranks up front: numRanks comes from input
	// files, and a 10-byte file must not make us allocate gigabytes.
	s.RankStart = make([]int32, 1, min(numRanks, 1<<16)+1)
	s.DepStart = []int32{0}
	return s
}

// AppendRank copies block b, which must be the next rank, into s.
func (s *Schedule) AppendRank(b *RankBlock) error {
	r := len(s.RankStart) - 1
	if int(b.Rank) != r {
		return fmt.Errorf("goal: rank %d appended where rank %d was expected", b.Rank, r)
	}
	if r >= s.NumRanks {
		return fmt.Errorf("goal: rank %d appended to a schedule of %d ranks", b.Rank, s.NumRanks)
	}
	if int64(len(s.Ops))+int64(len(b.Ops)) > math.MaxInt32 || int64(len(s.Deps))+int64(len(b.Deps)) > math.MaxInt32 {
		return ErrTooLarge
	}
	base := int32(len(s.Ops))
	depBase := int32(len(s.Deps))
	for i := range b.Ops {
		op := &b.Ops[i]
		if int(op.CPU) >= s.NumCPUs {
			s.NumCPUs = int(op.CPU) + 1
		}
		if int(op.NIC) >= s.NumNICs {
			s.NumNICs = int(op.NIC) + 1
		}
	}
	s.Ops = append(s.Ops, b.Ops...)
	for i := 1; i < len(b.DepStart); i++ {
		s.DepStart = append(s.DepStart, depBase+b.DepStart[i])
	}
	s.Deps = append(s.Deps, b.Deps...)
	for _, l := range b.Labels {
		if s.Labels == nil {
			s.Labels = make(map[int32]string)
		}
		s.Labels[base+l.Op] = l.Name
	}
	s.RankStart = append(s.RankStart, int32(len(s.Ops)))
	return nil
}

// collect builds a Schedule from a stream of rank blocks: next fills a
// block or returns io.EOF after the last; numRanks is asked once the first
// block has been read (a text file's num_ranks may come late) or at the
// end if there is none. Errors of next are returned as they are; an
// AppendRank failure (too large a schedule) is prefixed with where.
func collect(next func(*RankBlock) error, numRanks func() int, where string) (*Schedule, error) {
	var b RankBlock
	var s *Schedule
	for {
		err := next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if s == nil {
			s = NewSchedule(numRanks())
		}
		if err := s.AppendRank(&b); err != nil {
			return nil, fmt.Errorf("%s: rank %d: %w", where, b.Rank, err)
		}
	}
	if s == nil {
		s = NewSchedule(numRanks())
	}
	return s, nil
}

// Complete reports whether every rank has been appended.
func (s *Schedule) Complete() bool { return len(s.RankStart)-1 == s.NumRanks }

// RankOps returns rank r's ops.
func (s *Schedule) RankOps(r int) []Op { return s.Ops[s.RankStart[r]:s.RankStart[r+1]] }

// Label returns the label of the op with global index g ("" if it has none).
func (s *Schedule) Label(g int32) string {
	if name, ok := s.Labels[g]; ok {
		return name
	}
	return CanonicalLabel(g - s.RankStart[s.RankOf(g)])
}

// RankOf returns the rank that owns the op with global index g.
func (s *Schedule) RankOf(g int32) int {
	lo, hi := 0, s.NumRanks
	for lo < hi { // first rank whose end is beyond g
		m := int(uint(lo+hi) >> 1)
		if s.RankStart[m+1] <= g {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Block fills b with rank r of s (sharing nothing with s).
func (s *Schedule) Block(r int, b *RankBlock) {
	b.Reset(int32(r))
	lo, hi := s.RankStart[r], s.RankStart[r+1]
	b.Ops = append(b.Ops, s.Ops[lo:hi]...)
	d0 := s.DepStart[lo]
	for g := lo; g <= hi; g++ {
		b.DepStart = append(b.DepStart, s.DepStart[g]-d0)
	}
	b.Deps = append(b.Deps, s.Deps[d0:s.DepStart[hi]]...)
	if len(s.Labels) > 0 {
		for g := lo; g < hi; g++ {
			if name, ok := s.Labels[g]; ok {
				b.Labels = append(b.Labels, Label{Op: g - lo, Name: name})
			}
		}
	}
}

// NumOps returns the total number of ops.
func (s *Schedule) NumOps() int { return len(s.Ops) }
