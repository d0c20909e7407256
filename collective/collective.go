package collective

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"sync"

	"github.com/gopsim/gopsim/goal"
)

// ErrSpec is returned (wrapped) for a Spec an algorithm cannot build.
var ErrSpec = errors.New("collective: invalid collective")

// ErrTooManyOps is returned (wrapped) by Emit when the builder would hold
// more ops than Spec.MaxOps.
var ErrTooManyOps = errors.New("collective: too many ops")

// Comm is the membership of a communicator: member i is world rank World(i).
// The zero Comm is empty; World(n) is 0..n-1.
type Comm struct {
	n     int
	ranks []int32 // nil: member i is world rank i
}

// WorldComm is the communicator of world ranks 0..n-1.
func WorldComm(n int) Comm { return Comm{n: n} }

// NewComm is the communicator whose member i is world rank ranks[i]. The
// slice is kept, not copied.
func NewComm(ranks []int32) Comm { return Comm{n: len(ranks), ranks: ranks} }

// Size is the number of members.
func (c Comm) Size() int { return c.n }

// World is the world rank of member i.
func (c Comm) World(i int) int32 {
	if c.ranks == nil {
		return int32(i)
	}
	return c.ranks[i]
}

// Op names a collective operation.
type Op uint8

// The collective operations. Spec.Size means, per operation:
//
//	Barrier                          unused (messages carry 0 bytes... see the algorithm)
//	Bcast, Reduce, Allreduce,
//	Scan, Exscan                     the buffer, in bytes
//	Allgather, Gather, Scatter       the block each rank contributes or receives, in bytes
//	Alltoall                         the block sent to each rank, in bytes
//	ReduceScatter                    the result block of each rank, in bytes (vector: P·Size)
//	Gatherv, Scatterv, Allgatherv    unused: Spec.Counts gives the block of each rank
//	Alltoallv                        unused: Spec.Counts / Spec.RecvCounts of this rank
const (
	Barrier Op = iota + 1
	Bcast
	Reduce
	Allreduce
	Allgather
	Allgatherv
	Alltoall
	Alltoallv
	Gather
	Gatherv
	Scatter
	Scatterv
	ReduceScatter
	Scan
	Exscan
	numOps
)

var opNames = [...]string{
	Barrier: "barrier", Bcast: "bcast", Reduce: "reduce", Allreduce: "allreduce",
	Allgather: "allgather", Allgatherv: "allgatherv", Alltoall: "alltoall", Alltoallv: "alltoallv",
	Gather: "gather", Gatherv: "gatherv", Scatter: "scatter", Scatterv: "scatterv",
	ReduceScatter: "reduce_scatter", Scan: "scan", Exscan: "exscan",
}

func (o Op) String() string {
	if o > 0 && o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// ParseOp returns the Op named s ("allreduce", "reduce_scatter", ...).
func ParseOp(s string) (Op, bool) {
	for o := Barrier; o < numOps; o++ {
		if opNames[o] == s {
			return o, true
		}
	}
	return 0, false
}

// Ops lists every operation.
func Ops() []Op {
	ops := make([]Op, 0, numOps-1)
	for o := Barrier; o < numOps; o++ {
		ops = append(ops, o)
	}
	return ops
}

// Rooted reports whether the operation has a root.
func (o Op) Rooted() bool {
	switch o {
	case Bcast, Reduce, Gather, Gatherv, Scatter, Scatterv:
		return true
	}
	return false
}

// Spec is one collective call as seen by one member: the communicator, the
// root, the sizes, and where its messages go (tag, CPU, NIC).
type Spec struct {
	Comm Comm
	Root int    // comm rank of the root, for rooted operations
	Size uint64 // bytes; see Op for its meaning per operation

	// Counts gives, for v-collectives, bytes per comm rank: the root's
	// receive counts (Gatherv), the root's send counts (Scatterv), every
	// rank's block (Allgatherv), or what this rank sends to each rank
	// (Alltoallv). For Gatherv and Scatterv a non-root needs only its own
	// entry. RecvCounts is what this rank receives from each rank (Alltoallv).
	Counts     []uint64
	RecvCounts []uint64

	Tag uint32 // every message of the call carries this tag
	CPU uint16 // CPU for every op
	NIC uint16 // NIC for every message

	Segment uint64 // pipeline segment in bytes; 0 means the algorithm's default
	// ElemSize is the size of one element of the datatype in bytes (0
	// means 1). Open MPI's algorithms split buffers by elements and
	// switch algorithms on element counts; the others take a byte as an
	// element.
	ElemSize uint64
	// Block marks MPI_Reduce_scatter_block among the ReduceScatter calls:
	// Open MPI chooses its algorithm by another table.
	Block bool
	Radix int // fan-out of k-ary and n-way algorithms; 0 means the default

	// ReduceNsPerByte, when positive, adds a calc op of
	// round(bytes·ReduceNsPerByte) ns wherever received data is combined.
	ReduceNsPerByte float64

	// MaxOps, when positive, bounds the ops of the builder Emit appends
	// to, those it held before the call included: Emit stops before the
	// op that would pass it and returns an error wrapping ErrTooManyOps.
	// A converter sets it so that a call of a huge size, which a
	// pipelined algorithm cuts into millions of segments, fails at once
	// instead of after building them all. 0: no bound.
	MaxOps int64
}

// Algorithm is one way to implement an operation.
type Algorithm struct {
	Op   Op
	Name string // unique per Op, e.g. "binomial"
	Doc  string // one line: the idea and where it comes from

	// check rejects specs the algorithm cannot build (nil: any).
	check func(s *Spec) error
	// emit appends the ops of comm rank me to the emitter's builder.
	emit func(e *emitter)
}

var registry []*Algorithm

func register(a *Algorithm) {
	for _, b := range registry {
		if b.Op == a.Op && b.Name == a.Name {
			panic("collective: algorithm registered twice: " + a.Op.String() + "/" + a.Name)
		}
	}
	registry = append(registry, a)
}

// Algorithms lists the algorithms of op, sorted by name.
func Algorithms(op Op) []*Algorithm {
	var out []*Algorithm
	for _, a := range registry {
		if a.Op == op {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// regKey names an algorithm in the index.
type regKey struct {
	op   Op
	name string
}

// index maps every registered algorithm's key to it, built at the first
// Lookup (every register happens in init functions, before).
var index struct {
	once sync.Once
	m    map[regKey]*Algorithm
}

// Lookup finds the algorithm of op called name.
func Lookup(op Op, name string) (*Algorithm, error) {
	index.once.Do(func() {
		index.m = make(map[regKey]*Algorithm, len(registry))
		for _, a := range registry {
			index.m[regKey{a.Op, a.Name}] = a
		}
	})
	if a := index.m[regKey{op, name}]; a != nil {
		return a, nil
	}
	var names []string
	for _, a := range Algorithms(op) {
		names = append(names, a.Name)
	}
	return nil, fmt.Errorf("%w: %s has no algorithm %q (have %v, or auto)", ErrSpec, op, name, names)
}

// Check validates s for the algorithm: root and counts within the
// communicator, and the algorithm's own constraints.
func (a *Algorithm) Check(s *Spec) error {
	p := s.Comm.Size()
	if p < 1 {
		return fmt.Errorf("%w: %s/%s on an empty communicator", ErrSpec, a.Op, a.Name)
	}
	if a.Op.Rooted() && (s.Root < 0 || s.Root >= p) {
		return fmt.Errorf("%w: %s/%s: root %d outside 0..%d", ErrSpec, a.Op, a.Name, s.Root, p-1)
	}
	switch a.Op {
	case Allgatherv:
		if len(s.Counts) != p {
			return fmt.Errorf("%w: %s/%s: %d counts for %d ranks", ErrSpec, a.Op, a.Name, len(s.Counts), p)
		}
	case Alltoallv:
		if len(s.Counts) != p || len(s.RecvCounts) != p {
			return fmt.Errorf("%w: %s/%s: %d send and %d receive counts for %d ranks", ErrSpec, a.Op, a.Name, len(s.Counts), len(s.RecvCounts), p)
		}
	}
	if s.ReduceNsPerByte < 0 || math.IsNaN(s.ReduceNsPerByte) || math.IsInf(s.ReduceNsPerByte, 0) {
		return fmt.Errorf("%w: %s/%s: reduction cost %v ns/byte", ErrSpec, a.Op, a.Name, s.ReduceNsPerByte)
	}
	if a.check != nil {
		if err := a.check(s); err != nil {
			return fmt.Errorf("%w: %s/%s: %v", ErrSpec, a.Op, a.Name, err)
		}
	}
	return nil
}

// MaxCombined is the most bytes a member combines at once (one calc of
// Spec.ReduceNsPerByte) in a call of op with spec s, whatever the
// algorithm: the reduction's whole vector, s.Size for Reduce, Allreduce,
// Scan and Exscan and P·s.Size for ReduceScatter (math.MaxUint64 if that
// overflows), 0 for the operations that combine nothing. A reduction cost
// whose calc for these bytes fits in goal.MaxCalc cannot make Emit fail on
// any member, so a caller can rule that failure out before it emits a
// single rank; with a larger cost, whether Emit fails depends on the
// pieces each member combines.
func MaxCombined(op Op, s *Spec) uint64 {
	switch op {
	case Reduce, Allreduce, Scan, Exscan:
		return s.Size
	case ReduceScatter:
		hi, lo := bits.Mul64(uint64(s.Comm.Size()), s.Size)
		if hi != 0 {
			return math.MaxUint64
		}
		return lo
	}
	return 0
}

// Emit appends the ops that comm rank me runs for the collective to b. The
// ops that start the collective on this rank require every op in after
// (pass nil to start at once). Emit returns, appended to ends[:0], the ops
// that end it on this rank (those no other op of the call requires); when
// the rank has no ops in the call, that is after itself.
//
// Emit does not check s; call Check once per call beforehand. Its error is
// a reduction that Spec.ReduceNsPerByte makes longer than a calc holds
// (goal.MaxCalc): it depends on the sizes each rank combines, so Check
// cannot see it. The ops b then holds are not the call's.
//
// With a positive Spec.MaxOps, Emit stops as soon as b would hold more ops
// than that and returns an error wrapping ErrTooManyOps; the ops b then
// holds are not the call's either.
func (a *Algorithm) Emit(b *goal.Builder, me int, s *Spec, after, ends []int32) (out []int32, err error) {
	e := emitter{b: b, s: s, me: me, p: s.Comm.Size(), maxOps: math.MaxInt64}
	if s.MaxOps > 0 {
		e.maxOps = s.MaxOps
	}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(tooManyOps); !ok {
				panic(v)
			}
			out, err = ends[:0], fmt.Errorf("%w: %s/%s: more than %d ops", ErrTooManyOps, a.Op, a.Name, s.MaxOps)
		}
	}()
	e.prev = append(e.prev, after...)
	a.emit(&e)
	e.next()
	if e.err != nil {
		return ends[:0], fmt.Errorf("%w: %s/%s: %w", ErrSpec, a.Op, a.Name, e.err)
	}
	return append(ends[:0], e.prev...), nil
}
