package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"unsafe"

	"github.com/gopsim/gopsim/goal"
)

// A Program is a schedule compiled for the engine: one 32-byte record per
// op that holds both what the op is and its state during a run, so that
// processing an event touches as few cache lines as possible. Compile
// builds one from a goal.Schedule; ReadProgram decodes a binary schedule
// straight into one, without the goal.Schedule in between, which halves
// the memory a large run needs.
//
// A Program can be run any number of times, but not by two runs at once:
// a run keeps its per-op state in the program.
type Program struct {
	NumRanks int
	NumCPUs  int // CPUs per rank
	NumNICs  int // NICs per rank

	ops       []opRec  // one per op
	deps      []uint32 // edge lists of the ops with several successors (opRec.edge)
	rankStart []int32  // len NumRanks+1: rank r's ops are ops[rankStart[r]:rankStart[r+1]]
	cn        []uint32 // per op cpu<<16 | nic; nil when every op uses CPU 0 and NIC 0
	labels    map[int32]string

	// What a run starts from, per rank (prepare): the receives posted at
	// time 0, kept implicitly, and how many other ops are ready then.
	start    []rankStartState
	implicit int // receives posted at time 0, in all
	// tooBig is the first op whose size the engine cannot take (-1 if
	// none), and tooBigSize its size.
	tooBig     int64
	tooBigSize uint64
	tooBigKind goal.Kind
	dirty      bool // a run changed the per-op state
	// win, when not nil, holds the records in a spill file and loads
	// them as a run needs them (ReadProgramStream): ops, deps and cn are
	// then views of memory that is filled and given back during a run.
	win    *window
	closed bool // a streamed program after Close
}

// opRec is one op: its kind and fields, its successor edges and its run
// state.
type opRec struct {
	// tm is the op's ready time, the latest time one of its resolved
	// predecessors gave, until it starts; then, for a rendezvous send,
	// the earliest time it can complete.
	tm   int64
	size uint64 // kind<<62 | size in bytes (send, recv) or ns (calc)
	peer int32
	tag  uint32
	// edge holds the op's successors. 0: none. Without edgeList or
	// edgePair: one edge, to op g+delta, as delta<<1 | irequires
	// (1 <= delta <= maxEdgeDelta). With edgePair: two edges, in the
	// schedule's order, each as delta<<1 | irequires in pairShift bits
	// (1 <= delta <= maxPairDelta), the first in the low bits
	// (inlineEdges). With edgeList: the others are at deps[i] where
	// i = edge&^edgeList: deps[i] is their count and deps[i+1:] the
	// edges, each as global op index<<1 | irequires. Collectives mostly
	// have one successor per op, and traced programs one or two (a
	// LAMMPS trace: 78 % and 20 % of its ops), which then cost no memory
	// and no cache line beyond the record.
	edge uint32
	// pend is the op's state (stWaiting ..., top two bits) and its
	// unresolved predecessors, or stStarted|implicit for a receive posted
	// at time 0 and kept implicitly (Program.prepare).
	pend uint32
}

const (
	edgeList     = 1 << 31
	edgePair     = 1 << 30
	maxEdgeDelta = 1<<29 - 1
	pairShift    = 15
	pairHalf     = 1<<pairShift - 1
	maxPairDelta = 1<<(pairShift-1) - 1
)

// inlineEdges returns the successors held in an edge word without
// edgeList (opRec.edge): n of them, 0, 1 or 2, the first as a and the
// second as b, each as delta<<1 | irequires.
func inlineEdges(ed uint32) (n int, a, b uint32) {
	switch {
	case ed == 0:
		return 0, 0, 0
	case ed&edgePair == 0:
		return 1, ed, 0
	}
	return 2, ed & pairHalf, ed >> pairShift & pairHalf
}

// inlineWord returns the edge word (opRec.edge) of op i, whose edges are
// ds, when they fit in it without a list: none, one, or two near ones.
func inlineWord(ds []goal.Dep, i int32) (uint32, bool) {
	switch len(ds) {
	case 0:
		return 0, true
	case 1:
		return inlineEdge(ds[0], i, maxEdgeDelta)
	case 2:
		a, okA := inlineEdge(ds[0], i, maxPairDelta)
		b, okB := inlineEdge(ds[1], i, maxPairDelta)
		return edgePair | b<<pairShift | a, okA && okB
	}
	return 0, false
}

// inlineEdge returns edge d of op i as delta<<1 | irequires and whether
// it fits in delta bits: its successor comes after the op, at most
// maxDelta ops later.
func inlineEdge(d goal.Dep, i int32, maxDelta int32) (uint32, bool) {
	delta := d.Succ() - i
	return uint32(delta)<<1 | uint32(d)&1, delta >= 1 && delta <= maxDelta
}

const (
	sizeMask  = 1<<62 - 1
	kindShift = 62

	pendMask   = 1<<29 - 1 // unresolved predecessors
	implicit   = 1 << 29   // with stStarted: a receive posted at time 0, not yet matched (engine.init)
	stShift    = 30
	maxPending = pendMask // predecessors one op may have
)

// op states, in the top bits of opRec.pend
const (
	stWaiting uint32 = iota << stShift // has unresolved predecessors (or none, before the run)
	stQueued                           // start event in the queue
	stStarted                          // started, completion not known yet
	stDone                             // completed
)

func (o *opRec) kind() goal.Kind { return goal.Kind(o.size >> kindShift) }
func (o *opRec) bytes() uint64   { return o.size & sizeMask }
func (o *opRec) state() uint32   { return o.pend >> stShift << stShift }

// NumOps returns the number of ops.
func (p *Program) NumOps() int {
	if p.win != nil {
		return int(p.win.numOps)
	}
	return len(p.ops)
}

// rankOf returns the rank that owns op g.
func (p *Program) rankOf(g int32) int {
	lo, hi := 0, p.NumRanks
	for lo < hi { // first rank whose end is beyond g
		m := int(uint(lo+hi) >> 1)
		if p.rankStart[m+1] <= g {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// label returns the label of op g, which belongs to rank r.
func (p *Program) label(r int, g int32) string {
	if name, ok := p.labels[g]; ok {
		return name
	}
	return goal.CanonicalLabel(g - p.rankStart[r])
}

// goal.MaxCalc, which the producers of calcs check, is the record's
// sizeMask: if one changes without the other, one of these array lengths
// is negative and the build fails.
var _ [goal.MaxCalc - sizeMask]struct{}
var _ [sizeMask - goal.MaxCalc]struct{}

// sizeLimit is the largest size the engine takes for an op of kind k:
// larger ones could overflow its int64 arithmetic, and a calc's must fit
// the record's 62 bits of size (2^62 itself would be kept as 0 ns).
func sizeLimit(k goal.Kind) uint64 {
	if k == goal.Calc {
		return goal.MaxCalc
	}
	return MaxMessage
}

// textLimits are sizeLimit's sizes as the limits of a text reader: the
// text readers of this package refuse an op beyond them at its line
// (goal.LimitError), where a run could only name it by rank and index.
var textLimits = goal.Limits{Message: MaxMessage, Calc: goal.MaxCalc}

// Limits returns the op sizes the engine runs, messages of up to
// MaxMessage bytes and calcs of up to goal.MaxCalc ns, as the limits of a
// goal reader (goal.ReadLimits): a consumer that reads a schedule for
// this package refuses an op beyond them as its text readers do.
func Limits() goal.Limits { return textLimits }

// SizeError returns the error Run fails with when an op of p is larger
// than the engine runs (Limits): a *goal.LimitError naming the first such
// op by rank, index and label, without a position (the caller names the
// file), or nil. A program read from a text has none: its readers refuse
// the op at its line. It costs nothing, so a caller can refuse such a
// program as soon as it is read.
func (p *Program) SizeError() error {
	if p.tooBig < 0 {
		return nil
	}
	g := int32(p.tooBig)
	r := p.rankOf(g)
	k := p.tooBigKind
	return &goal.LimitError{Rank: r, Op: int(g - p.rankStart[r]), Label: p.label(r, g),
		Kind: k, Size: p.tooBigSize, Limit: sizeLimit(k)}
}

// builder fills a Program rank block by rank block, possibly from several
// goroutines at once (each block writes only its own ops and edges).
type builder struct {
	p       *Program
	mu      sync.Mutex  // guards p.labels and the error
	lists   []uint32    // edge lists, block by block (see newBuilder)
	sums    []blockSums // per goroutine
	tooBig  int64       // lowest op index beyond its size limit, math.MaxInt64 if none
	bigSize uint64
	err     error // first error by op index
	errOp   int
	// labeled marks the ranks whose blocks have labels, so that a block
	// repeating one (repeat) copies them; nil until a block has some.
	labeled []bool
}

// blockSums are the totals over the blocks one goroutine added, on a
// cache line of their own: two goroutines adding to one shared counter
// per block made the line bounce between the cores, which cost a
// 131,072-rank broadcast a tenth of its run.
type blockSums struct {
	implicit int64 // receives marked as posted at time 0
	listUse  int64 // entries of lists in use
	_        [48]byte
}

// maxEdges bounds the dependency edges of a Program: edge lists are
// indexed with 31 bits, and the builder writes them at twice the edge
// index.
const maxEdges = 1<<30 - 1

// newBuilder returns a builder of a program with the given sizes, to which
// workers goroutines add blocks.
func newBuilder(numRanks, numCPUs, numNICs, numOps, numEdges int, multi bool, workers int) (*builder, error) {
	if numOps > math.MaxInt32 || numEdges > maxEdges {
		return nil, fmt.Errorf("sim: %d ops and %d dependency edges; the engine takes at most %d and %d", numOps, numEdges, math.MaxInt32, maxEdges)
	}
	p := &Program{NumRanks: numRanks, NumCPUs: numCPUs, NumNICs: numNICs,
		ops: make([]opRec, numOps), rankStart: make([]int32, numRanks+1), start: make([]rankStartState, numRanks), tooBig: -1}
	hugePages(p.ops)
	if multi {
		p.cn = make([]uint32, numOps)
	}
	b := &builder{p: p, errOp: math.MaxInt, tooBig: math.MaxInt64, sums: make([]blockSums, workers)}
	if numEdges > 0 {
		// A block whose edges start at index e writes its edge lists at
		// 2e and after: a list of k >= 1 edges takes k+1 entries. Pages
		// never written cost no memory; compact packs the lists.
		b.lists = make([]uint32, 2*numEdges)
	}
	return b, nil
}

// add stores the rank block of rank r whose first op has index op and
// first edge index edge. ops, depStart and deps are as in goal.RankBlock,
// except that depStart's entries are offset by d0. w is the number of the
// calling goroutine, below the workers of newBuilder.
func (b *builder) add(w int, r int32, ops []goal.Op, depStart []int32, d0 int32, deps []goal.Dep, labels []goal.Label, op, edge int) {
	p := b.p
	recs := p.ops[op : op+len(ops)]
	var cn []uint32
	if p.cn != nil {
		cn = p.cn[op : op+len(ops)]
	}
	list, big, err := compileRank(r, recs, cn, ops, depStart, d0, deps, op, b.lists, 2*edge)
	sums := &b.sums[w]
	sums.listUse += int64(list - 2*edge)
	if big >= 0 {
		b.noteTooBig(int64(op+big), ops[big].Size)
	}
	if err != nil {
		b.fail(op+err.op, err.err)
	}
	sums.implicit += int64(p.prepare(r, int32(op), recs, b.lists))
	p.rankStart[r+1] = int32(op + len(ops))
	if len(labels) > 0 {
		b.mu.Lock()
		if p.labels == nil {
			p.labels = make(map[int32]string)
			b.labeled = make([]bool, p.NumRanks)
		}
		b.labeled[r] = true
		for _, l := range labels {
			p.labels[int32(op)+l.Op] = l.Name
		}
		b.mu.Unlock()
	}
}

// repeat stores the rank block x.Rank, which repeats that of x.Same (see
// goal.BlockRepeat), added before: what add would give, from x.Same's
// records, moved. Errors and sizes beyond the limits need nothing: x.Same
// has them at a lower op index. w is as for add.
func (b *builder) repeat(w int, x goal.BlockRepeat) {
	p := b.p
	n := int(p.rankStart[x.Same+1]) - x.SameOp
	src, dst := p.ops[x.SameOp:x.SameOp+n], p.ops[x.Op:x.Op+n]
	copy(dst, src)
	if p.cn != nil {
		copy(p.cn[x.Op:x.Op+n], p.cn[x.SameOp:x.SameOp+n])
	}
	nr := int64(p.NumRanks)
	moved := int64(x.Rank) - int64(x.Same) + nr // >= 1
	dl := uint32(2*x.Edge - 2*x.SameEdge)       // where the lists move (newBuilder)
	dg := int32(x.Op - x.SameOp)
	used, implicitRecvs := 0, 0
	for i := range dst {
		o := &dst[i]
		if o.kind() != goal.Calc && o.peer >= 0 {
			o.peer = int32((int64(o.peer) + moved) % nr)
		}
		if o.pend == stStarted|implicit {
			implicitRecvs++
		}
		if o.edge&edgeList == 0 {
			continue
		}
		at := o.edge &^ edgeList
		to := at + dl
		o.edge = edgeList | to
		c := b.lists[at]
		b.lists[to] = c
		for j := uint32(1); j <= c; j++ {
			e := b.lists[at+j]
			b.lists[to+j] = uint32(int32(e>>1)+dg)<<1 | e&1
		}
		used += 1 + int(c)
	}
	sums := &b.sums[w]
	sums.listUse += int64(used)
	sums.implicit += int64(implicitRecvs)
	st := p.start[x.Same]
	p.start[x.Rank] = rankStartState{icur: st.icur + dg, iend: st.iend + dg, ready: st.ready}
	p.rankStart[x.Rank+1] = int32(x.Op + n)
	if b.labeled != nil && b.labeled[x.Same] {
		b.mu.Lock()
		for i := range n {
			if l, ok := p.labels[int32(x.SameOp+i)]; ok {
				p.labels[int32(x.Op+i)] = l
			}
		}
		b.mu.Unlock()
	}
}

// compileRank fills recs (and cn, when not nil) from the rank block of
// rank r whose first op has global index op; ops, depStart, d0 and deps
// are as for builder.add. It writes the edge lists into lists from index
// list on, contiguously and in op order, each edge as global op index<<1 |
// irequires, and an op with a list gets edge = edgeList | its index in
// lists; an op with no edges, one, or two near ones keeps them in its
// edge word instead (inlineWord). It counts every op's predecessors. It returns the index after
// the last list entry written, the first op beyond its size limit (-1 if
// none), and an op with more predecessors than the engine takes.
func compileRank(r int32, recs []opRec, cn []uint32, ops []goal.Op, depStart []int32, d0 int32, deps []goal.Dep, op int, lists []uint32, list int) (int, int, *opError) {
	big := -1
	for i := range ops {
		o := &ops[i]
		rec := &recs[i]
		rec.tm = 0
		rec.size = uint64(o.Kind)<<kindShift | o.Size&sizeMask
		rec.peer = o.Peer
		rec.tag = o.Tag
		rec.pend = 0
		if o.Size > sizeLimit(o.Kind) && big < 0 {
			big = i
		}
		if cn != nil {
			cn[i] = uint32(o.CPU)<<16 | uint32(o.NIC)
		}
		ds := deps[depStart[i]-d0 : depStart[i+1]-d0]
		if ed, ok := inlineWord(ds, int32(i)); ok {
			rec.edge = ed
			continue
		}
		rec.edge = edgeList | uint32(list)
		lists[list] = uint32(len(ds))
		for k, d := range ds {
			lists[list+1+k] = uint32(op+int(d.Succ()))<<1 | uint32(d)&1
		}
		list += 1 + len(ds)
	}
	for _, d := range deps {
		recs[d.Succ()].pend++ // a block's edges stay inside it
	}
	if len(deps) > maxPending {
		for i := range recs {
			if recs[i].pend > maxPending {
				return list, big, &opError{i, fmt.Errorf("sim: rank %d op %d has %d predecessors; the engine takes at most %d", r, i, recs[i].pend, maxPending)}
			}
		}
	}
	return list, big, nil
}

// opError is an error about the op at an index.
type opError struct {
	op  int
	err error
}

func (b *builder) noteTooBig(g int64, size uint64) {
	b.mu.Lock()
	if g < b.tooBig {
		b.tooBig, b.bigSize = g, size
	}
	b.mu.Unlock()
}

func (b *builder) fail(op int, err error) {
	b.mu.Lock()
	if op < b.errOp {
		b.errOp, b.err = op, err
	}
	b.mu.Unlock()
}

// finish returns the program, or the first error by op index.
func (b *builder) finish() (*Program, error) {
	if b.err != nil {
		return nil, b.err
	}
	p := b.p
	if b.tooBig != math.MaxInt64 {
		p.tooBig, p.tooBigSize, p.tooBigKind = b.tooBig, b.bigSize, p.ops[b.tooBig].kind()
	}
	listUse := int64(0)
	for _, s := range b.sums {
		p.implicit += int(s.implicit)
		listUse += s.listUse
	}
	b.compact(listUse)
	return p, nil
}

// compact moves the edge lists, written block by block at twice the
// block's first edge index, together into p.deps, which has listUse
// entries.
func (b *builder) compact(listUse int64) {
	p := b.p
	if listUse == 0 {
		b.lists = nil
		return
	}
	p.deps = make([]uint32, 0, listUse)
	hugePages(p.deps[:listUse])
	for i := range p.ops {
		rec := &p.ops[i]
		if rec.edge&edgeList == 0 {
			continue
		}
		at := rec.edge &^ edgeList
		n := b.lists[at]
		rec.edge = edgeList | uint32(len(p.deps))
		p.deps = append(p.deps, b.lists[at:at+1+n]...)
	}
	b.lists = nil
}

// rankStartState is how a rank starts a run (engine.init).
type rankStartState struct {
	// The receives posted at time 0, kept implicitly, are among ops
	// icur..iend-1 (engine.takeImplicit); icur == iend if none.
	icur, iend int32
	// ready counts the rank's other ops without predecessors.
	ready int32
}

// prepare sets up rank r, whose ops recs start at global index base and
// have their predecessor counts, for the start of a run. A receive without
// predecessors or irequires successors is posted at time 0 (engine.init);
// prepare marks such receives stStarted|implicit, in parallel for all
// ranks while the schedule is decoded, rather than leave them to the run.
// It returns the number it marked. deps holds the ops' edge lists.
func (p *Program) prepare(r int32, base int32, recs []opRec, deps []uint32) (marked int) {
	first, last, ready := 0, -1, 0
	for i := range recs {
		o := &recs[i]
		if o.pend != 0 {
			continue
		}
		if o.kind() == goal.Recv && !hasStart(o, deps) {
			o.pend = stStarted | implicit
			if marked == 0 {
				first = i
			}
			marked++
			last = i
			continue
		}
		ready++
	}
	p.start[r] = rankStartState{icur: base + int32(first), iend: base + int32(last) + 1, ready: int32(ready)}
	return marked
}

// hasStart reports whether op rec has an irequires successor; deps holds
// its edge list, if any.
func hasStart(rec *opRec, deps []uint32) bool {
	if rec.edge&edgeList == 0 {
		n, a, b := inlineEdges(rec.edge)
		return n > 0 && a&1 != 0 || n > 1 && b&1 != 0
	}
	at := rec.edge &^ edgeList
	for _, d := range deps[at+1 : at+1+deps[at]] {
		if d&1 != 0 {
			return true
		}
	}
	return false
}

// Compile builds the Program of schedule s, which must be complete.
func Compile(s *goal.Schedule) (*Program, error) {
	if !s.Complete() {
		return nil, fmt.Errorf("sim: schedule has %d of %d ranks", len(s.RankStart)-1, s.NumRanks)
	}
	multi := false
	for i := range s.Ops {
		if s.Ops[i].CPU|s.Ops[i].NIC != 0 {
			multi = true
			break
		}
	}
	b, err := newBuilder(s.NumRanks, max(s.NumCPUs, 1), max(s.NumNICs, 1), len(s.Ops), len(s.Deps), multi, 1)
	if err != nil {
		return nil, err
	}
	var labels []goal.Label
	for r := 0; r < s.NumRanks; r++ {
		lo, hi := s.RankStart[r], s.RankStart[r+1]
		labels = labels[:0]
		if len(s.Labels) > 0 {
			for g := lo; g < hi; g++ {
				if name, ok := s.Labels[g]; ok {
					labels = append(labels, goal.Label{Op: g - lo, Name: name})
				}
			}
		}
		d0 := s.DepStart[lo]
		b.add(0, int32(r), s.Ops[lo:hi], s.DepStart[lo:hi+1], d0, s.Deps[d0:s.DepStart[hi]], labels, int(lo), int(d0))
	}
	return b.finish()
}

// ReadProgram reads a schedule in goal's binary form straight into a
// Program, decoding its chunks on all CPUs (goal.ReadBinaryBlocks). It
// never holds the goal.Schedule, so it needs about half the memory of
// goal.ReadBinary followed by Compile.
func ReadProgram(r io.Reader) (*Program, error) { return ReadProgramWithin(r, 0) }

// ErrTooLarge is wrapped by the error of ReadProgramWithin when the
// program would need more memory than allowed.
var ErrTooLarge = errors.New("sim: the program does not fit in the memory allowed")

// ProgramBytes estimates the memory a Program held in memory needs while
// it is read and run: its op records and edge lists (twice the edges while
// decoding), the CPU and NIC numbers of a schedule with several, and the
// program's and the engine's state per rank.
func ProgramBytes(ranks, ops, edges int, multi bool) int64 {
	perRank := unsafe.Sizeof(rankRec{}) + unsafe.Sizeof(rankStartState{}) + 4 // + rankStart
	b := int64(ops)*int64(unsafe.Sizeof(opRec{})) + int64(edges)*8 + int64(ranks)*int64(perRank)
	if multi {
		b += 4 * int64(ops)
	}
	return b
}

// ReadProgramWithin is ReadProgram that gives up, before it allocates the
// program, with an error wrapping ErrTooLarge when ProgramBytes exceeds
// limit bytes (0: no limit). The caller can then stream the schedule
// (ReadProgramStream) instead.
func ReadProgramWithin(r io.Reader, limit int64) (*Program, error) {
	return ReadProgramIf(r, func(s ProgramSize) error {
		if limit > 0 && s.Bytes > limit {
			return fmt.Errorf("%w: %d ranks, %d ops and %d edges need about %d MiB, more than the %d MiB allowed", ErrTooLarge, s.Ranks, s.Ops, s.Edges, s.Bytes>>20, limit>>20)
		}
		return nil
	})
}

// ProgramSize is a schedule's size as its header and index give it,
// before any op is read.
type ProgramSize struct {
	Ranks, Ops, Edges int
	// Bytes is what the program needs held in memory (ProgramBytes).
	Bytes int64
}

// ReadProgramIf is ReadProgram that first calls check with the program's
// size, before it allocates the program or reads an op; an error from
// check ends the read and is returned as it is. So a caller can decide
// from the size whether to hold the schedule or stream it
// (ReadProgramStream).
func ReadProgramIf(r io.Reader, check func(ProgramSize) error) (*Program, error) {
	var b *builder
	return readProgramWith(check, &b, func(alloc func(goal.Header, int, int, int) error, visit func(int, *goal.RankBlock, int, int)) error {
		// A block equal to an earlier one is copied from its records
		// (builder.repeat), not decoded and compiled.
		return goal.ReadBinaryBlocksRepeats(r, alloc, visit, func(w int, x goal.BlockRepeat) { b.repeat(w, x) })
	})
}

// ReadTextProgram reads a schedule in the GOAL text form, the size bytes of
// r, straight into a Program, parsing the text on all CPUs
// (goal.ReadTextBlocks); name is used in errors, which are those of
// goal.ReadText, and an op larger than the engine runs (MaxMessage,
// goal.MaxCalc) is a *goal.LimitError at its line: the text readers of
// this package refuse it as they read, where a schedule compiled or read
// in the binary form (which has no lines) fails to Run. Like ReadProgram,
// it never holds the goal.Schedule.
func ReadTextProgram(r io.ReaderAt, size int64, name string) (*Program, error) {
	return readProgram(nil, func(alloc func(goal.Header, int, int, int) error, visit func(int, *goal.RankBlock, int, int)) error {
		return goal.ReadTextBlocks(r, size, name, textLimits, alloc, visit)
	})
}

// ReadTextProgramFrom is ReadTextProgram for a text that can only be read
// once, in order (a pipe): one goal.TextReader reads it into a
// goal.Schedule, which is compiled. The errors are ReadTextProgram's.
func ReadTextProgramFrom(r io.Reader, name string) (*Program, error) {
	s, err := goal.ReadTextLimits(r, name, textLimits)
	if err != nil {
		return nil, err
	}
	return Compile(s)
}

// readProgram builds a Program from the blocks that read hands out (a
// goal.ReadBinaryBlocks or goal.ReadTextBlocks), once check (if not nil)
// has accepted its size.
func readProgram(check func(ProgramSize) error, read func(alloc func(goal.Header, int, int, int) error, visit func(int, *goal.RankBlock, int, int)) error) (*Program, error) {
	var b *builder
	return readProgramWith(check, &b, read)
}

// readProgramWith is readProgram with the builder in *bp, for a read
// that uses it beyond visit.
func readProgramWith(check func(ProgramSize) error, bp **builder, read func(alloc func(goal.Header, int, int, int) error, visit func(int, *goal.RankBlock, int, int)) error) (*Program, error) {
	alloc := func(h goal.Header, ops, edges, workers int) error {
		multi := h.NumCPUs > 1 || h.NumNICs > 1
		if check != nil {
			if err := check(ProgramSize{Ranks: h.NumRanks, Ops: ops, Edges: edges, Bytes: ProgramBytes(h.NumRanks, ops, edges, multi)}); err != nil {
				return err
			}
		}
		var err error
		*bp, err = newBuilder(h.NumRanks, h.NumCPUs, h.NumNICs, ops, edges, multi, workers)
		return err
	}
	visit := func(w int, blk *goal.RankBlock, op, edge int) {
		(*bp).add(w, blk.Rank, blk.Ops, blk.DepStart, 0, blk.Deps, blk.Labels, op, edge)
	}
	if err := read(alloc, visit); err != nil {
		return nil, err
	}
	return (*bp).finish()
}
