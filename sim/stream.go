package sim

// Streamed programs: schedules larger than memory.
//
// ReadProgramStream decodes a binary schedule once, rank block by rank
// block, compiles each block into op records exactly as ReadProgram does,
// and writes the records to a spill file instead of keeping them. A run
// then loads a rank's records a unit of ops at a time, when the run first
// needs them, into blocks of a pool of its own, and takes a page's block
// back into the pool once every op on the page has finished
// (recpool.go). Memory follows the active window of the run (per
// rank, the ops from its oldest unfinished one to the successors of its
// queued ones), not the size of the schedule. The results are those of
// the in-memory program, byte for byte: the records, their order and the
// events are the same; only where the records live differs.
//
// # Units and the spill file
//
// A rank's ops are cut into units: unit k of a rank holds its ops k·U to
// min((k+1)·U, n)-1, for U ops per unit (StreamOptions.Unit) and n the
// rank's ops. Each distinct unit is stored once (unitstore.go): in memory,
// up to StreamOptions.StoreBytes, or else in the spill file. The spill
// file is private to one process and unlinked as soon as it is created; it
// is a sequence of units, each one s2 block
// (github.com/klauspost/compress/s2). A unit is, little-endian:
//
//   - per op 24 bytes: size (uint64: kind<<62 | bytes, or ns for a calc),
//     peer (uint32: a send's or receive's relative to the rank, modulo
//     2^32; a calc's as it is), tag (uint32), edge (uint32, as
//     opRec.edge, an edge list given by its index relative to the unit's
//     first list entry) and pend (uint32, the op's state and unresolved
//     predecessors when a run starts, as Program.prepare leaves it);
//   - when the schedule uses several CPUs or NICs, or is read from a text
//     (which states them op by op), per op cpu<<16 | nic as a uint32;
//   - the edge lists of the unit's ops, uint32 entries as in Program.deps;
//     the lists of a rank's ops are contiguous and in op order.
//
// Where each unit is stored and where its edge lists go are kept in
// memory (8 bytes a unit), with the per-rank start state of the run.
//
// # Invariants that make it exact
//
// A record is read or written by a run only once it is loaded, and is
// never touched after it has been given back:
//
//   - Before a run, each rank loads up to its last op without
//     predecessors and their successors (initHi): the ops a run starts
//     from and the receives posted at time 0.
//   - When an op is queued (engine.insert), its successors are loaded
//     (engine.ahead): a predecessor resolves only successors of a queued
//     or started op, so resolve never meets a record that is not loaded.
//   - A page of records is given back when all its ops have finished: a
//     calc or receive when it completes, a send when its message has been
//     matched (an arrival reads the send's record); its block is
//     reused by the next load. A page of edge lists goes back to the
//     system when every op whose list touches it has finished, in
//     batches (dropper): later, never earlier.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/s2"

	"github.com/gopsim/gopsim/goal"
)

// maxListEntries bounds the edge list entries of a streamed program,
// which opRec.edge indexes with 31 bits (an in-memory program needs twice
// its edges while it is built: maxEdges).
const maxListEntries = edgeList - 1

// DefaultStreamUnit is the number of ops a streamed run loads at a time
// when StreamOptions.Unit is 0: 128 records, 4 KiB.
const DefaultStreamUnit = 128

// StreamOptions configure ReadProgramStream.
type StreamOptions struct {
	// Dir is where the spill file is created; "" is os.TempDir().
	Dir string
	// Unit is the number of ops loaded at a time, 0 for
	// DefaultStreamUnit. Smaller units follow the active window more
	// closely at the cost of more reads.
	Unit int
	// StoreBytes is the memory, in bytes, that distinct units are kept
	// in rather than in the spill file (see unitstore.go): 0 for
	// DefaultStoreBytes, negative for none.
	StoreBytes int64
}

// StreamStats describes the memory use of a streamed Program's last run.
type StreamStats struct {
	SpillBytes  int64 // size of the spill file
	Units       int   // units of the schedule
	StoredUnits int   // distinct units kept in memory
	StoreBytes  int64 // the memory they take
	RepeatRanks int   // ranks whose block repeats an earlier rank's, spilled from its summary (blockSource)
	Loads       int64 // units read during the run
	Drops       int64 // pages of op records given back during the run
	PeakOps     int64 // largest number of op records in memory at once
	PeakBytes   int64 // the memory those records took
	ResidentOps int64 // op records in memory at the end of the run
}

// window is the spill file of a streamed Program and the state of the run
// that loads from it.
type window struct {
	f        *os.File
	name     string        // removed by Close when it could not be unlinked at once
	refs     *atomic.Int32 // windows sharing f (Program.Share); nil for one
	unit     int32
	ranks    int32     // the number of ranks peers are relative modulo (relPeer); 0: 2^32
	multi    bool      // the program has CPU and NIC numbers (Program.cn)
	cnCol    bool      // the units have a column of them (see the top of this file)
	rankUnit []int32   // len NumRanks+1: rank r's units are rankUnit[r] .. rankUnit[r+1]-1
	ref      []unitRef // per unit: where it is stored
	st       *unitStore
	listAt   []uint32 // len units+1: unit u's edge lists go to deps[listAt[u]:listAt[u+1]]
	initHi   []int32  // per rank: how many of its ops a run loads before it starts
	// span, per rank: the furthest any of its ops is from a successor
	// (ops), so that engine.ahead need not read the edges of an op whose
	// successors are loaded whatever they are.
	span []int32
	// lim, per rank during a run, is hi - span: an op below it has its
	// successors loaded (engine.ahead reads one word of the rank, not two).
	lim []int32

	// During a run: hi[r] is the global index of rank r's first op not
	// loaded; dlive and clive count, per page of edge lists or CPU and
	// NIC numbers, the ops not finished whose data is on it (ops whose
	// edge list touches it); a page of op records counts its own in the
	// pool (pageSlot.live).
	hi                             []int32
	dlive, clive                   []uint16
	liveInit, dliveInit, cliveInit []uint16
	dShift, cShift                 uint
	depsMem, cnMem                 []byte
	pool                           *recPool // the loaded records (recpool.go)
	tmp                            []opRec  // a unit that spans two pages, decoded
	comp, raw                      []byte
	drop                           *dropper // gives pages back in batches
	stats                          StreamStats
	recBytes                       int
	numOps                         int32

	// The per-op record (streamrec.go): dir is where its files go; rec
	// and recNs are created at the first run with Options.Record, and
	// recOn says whether the current run writes rec.
	dir        string
	rec, recNs *recFile
	recOn      bool
	// net holds a congestion network's per-op state (opcolumn.go); cols
	// are the per-op columns the current run keeps up to date.
	net  *netCol
	cols []*pagedCol
	// units decoded for static (streamcache.go)
	cache *[unitCacheSize]cachedUnit
}

// spillError is a failure to read the spill file during a run; the event
// loop cannot return errors, so load panics with it and Program.run
// recovers it.
type spillError struct{ err error }

// ReadProgramStream reads a schedule in goal's binary form into a Program
// that keeps its op records in a spill file in opt.Dir and loads them as a
// run needs them (see the top of this file). It reads the file once,
// sequentially, in bounded memory. Close the Program to release the
// mapping and the file.
func ReadProgramStream(r io.Reader, opt StreamOptions) (*Program, error) {
	rd, err := goal.NewReader(r)
	if err != nil {
		return nil, err
	}
	h := rd.Header()
	rd.RememberBlocks(repeatBytes)
	return readStream(rd.NextRepeat, h, nil, opt)
}

// ReadTextProgramStream is ReadProgramStream for a schedule in the GOAL
// text form, read once, sequentially, by a goal.TextReader (name is used
// in errors, which are ReadTextProgram's).
func ReadTextProgramStream(r io.Reader, name string, opt StreamOptions) (*Program, error) {
	t := goal.NewTextReader(r, name)
	t.SetLimits(textLimits)
	return readStream(noRepeats(t.Next), goal.Header{NumRanks: -1}, t.NumRanks, opt)
}

// ReadTextProgramStreamAt is ReadTextProgramStream for size bytes of text
// in r, parsed on all CPUs a few pieces ahead of the spill
// (goal.TextStream): the same program and the same errors, in about the
// same memory.
func ReadTextProgramStreamAt(r io.ReaderAt, size int64, name string, opt StreamOptions) (*Program, error) {
	t := goal.NewTextStream(r, size, name, textLimits)
	defer t.Close()
	return readStream(noRepeats(t.Next), goal.Header{NumRanks: -1}, t.NumRanks, opt)
}

// readStream spills the rank blocks next hands out into a streamed
// program. h is the schedule's header; for a text (numRanks not nil) its
// ranks are known only once read, and its CPUs and NICs are the largest
// used plus one.
func readStream(next blockSource, h goal.Header, numRanks func() int, opt StreamOptions) (*Program, error) {
	unit := opt.Unit
	if unit == 0 {
		unit = DefaultStreamUnit
	}
	if unit < 1 || unit > 1<<20 {
		return nil, fmt.Errorf("sim: stream unit of %d ops, want 1..%d", unit, 1<<20)
	}
	dir := opt.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "gopsim-spill-*")
	if err != nil {
		return nil, fmt.Errorf("sim: spill file: %w", err)
	}
	// A text's units always have the CPU and NIC column: whether one is
	// used is known only at its end.
	multi := h.NumCPUs > 1 || h.NumNICs > 1
	w := &window{f: f, unit: int32(unit), multi: multi, cnCol: multi || numRanks != nil, dir: dir}
	if numRanks == nil {
		w.ranks = int32(h.NumRanks)
	}
	budget := opt.StoreBytes
	if budget == 0 {
		budget = DefaultStoreBytes
	}
	if os.Remove(f.Name()) != nil {
		w.name = f.Name()
	}
	// Per-rank state grows with the blocks read, so that a header that
	// promises more ranks than the file holds costs nothing.
	p := &Program{NumRanks: h.NumRanks, NumCPUs: h.NumCPUs, NumNICs: h.NumNICs, win: w,
		rankStart: []int32{0}, tooBig: -1}
	if err := w.spill(p, next, numRanks, budget); err != nil {
		w.close()
		return nil, err
	}
	if err := w.mapRecords(p); err != nil {
		w.close()
		return nil, err
	}
	return p, nil
}

// spill writes the units of every rank block that next hands out and
// sets up p's rank starts, start states, labels and size check, and w's
// index; for a text (numRanks not nil), also its ranks, CPUs and NICs.
func (w *window) spill(p *Program, next blockSource, numRanks func() int, budget int64) error {
	bw := bufio.NewWriterSize(w.f, 1<<20)
	w.st = newUnitStore(budget, bw)
	w.recBytes = 24
	if w.cnCol {
		w.recBytes += 4
	}
	w.listAt = append(w.listAt, 0)
	w.dShift = pageShift(4)
	blocks, stop := decodeAhead(next)
	defer stop()
	var reps map[int32]*rankSummary // the ranks a later one may repeat
	repeats := 0
	var (
		recs  []opRec
		cn    []uint32
		lists []uint32
		ops   int64
		deps  int64
		r     int32
		cpus  = 1
		nics  = 1
	)
	for ; ; r++ {
		d := <-blocks
		if errors.Is(d.err, io.EOF) {
			break
		}
		if d.err != nil {
			return d.err
		}
		if d.same >= 0 {
			if err := w.repeat(p, r, reps[d.same], &ops, &deps); err != nil {
				return err
			}
			repeats++
			d.free <- d.blk
			continue
		}
		blk := d.blk
		n := len(blk.Ops)
		var sum *rankSummary
		if d.kept {
			sum = &rankSummary{ops: int32(n), units: int32(len(w.ref))}
			if reps == nil {
				reps = map[int32]*rankSummary{}
			}
			reps[r] = sum
		}
		if ops+int64(n) > math.MaxInt32 {
			return fmt.Errorf("sim: more than %d ops; the engine takes at most %d", int64(math.MaxInt32), int64(math.MaxInt32))
		}
		base := int32(ops)
		recs = grow(recs, n)
		if w.cnCol {
			cn = grow(cn, n)
		}
		if numRanks != nil {
			for i := range blk.Ops {
				o := &blk.Ops[i]
				cpus, nics = max(cpus, int(o.CPU)+1), max(nics, int(o.NIC)+1)
			}
		}
		lists = grow(lists, 2*len(blk.Deps))
		used, big, oerr := compileRank(r, recs, cn, blk.Ops, blk.DepStart, 0, blk.Deps, int(base), lists, 0)
		if oerr != nil {
			return oerr.err
		}
		if big >= 0 && p.tooBig < 0 {
			p.tooBig, p.tooBigSize, p.tooBigKind = int64(base)+int64(big), blk.Ops[big].Size, blk.Ops[big].Kind
		}
		if deps+int64(used) > maxListEntries {
			return fmt.Errorf("sim: more than %d edge list entries; the engine takes at most %d", maxListEntries, maxListEntries)
		}
		p.start = append(p.start, rankStartState{})
		marked := p.prepare(r, base, recs, lists)
		p.implicit += marked
		initHi, span := rankWindow(recs, lists, base)
		w.initHi, w.span = append(w.initHi, initHi), append(w.span, span)
		if sum != nil {
			st := p.start[r]
			sum.start = rankStartState{icur: st.icur - base, iend: st.iend - base, ready: st.ready}
			sum.implicit, sum.initHi, sum.span, sum.lists = marked, initHi, span, int32(used)
		}
		// Edge lists by their index in the program's lists; count, per
		// page of lists, the ops whose list touches it.
		for i := range recs {
			if ed := recs[i].edge; ed&edgeList != 0 {
				at := ed &^ edgeList
				w.listPages(int64(at)+deps, int64(lists[at]))
				if sum != nil {
					sum.edgeLists = append(sum.edgeLists, [2]uint32{at, lists[at]})
				}
				recs[i].edge = edgeList | uint32(int64(at)+deps)
			}
		}
		w.rankUnit = append(w.rankUnit, int32(len(w.ref)))
		cur := 0 // the next list entry, in lists
		for lo := 0; lo < n; lo += int(w.unit) {
			hi := min(lo+int(w.unit), n)
			start := cur
			for i := lo; i < hi; i++ {
				if ed := recs[i].edge; ed&edgeList != 0 {
					cur += 1 + int(lists[int64(ed&^edgeList)-deps])
				}
			}
			raw := w.encodeUnit(r, recs[lo:hi], cn, lo, lists[start:cur], base, uint32(deps+int64(start)))
			ref, err := w.st.put(raw)
			if err != nil {
				return err
			}
			w.ref = append(w.ref, ref)
			w.listAt = append(w.listAt, uint32(deps+int64(cur)))
			if sum != nil {
				sum.listEnds = append(sum.listEnds, uint32(cur))
			}
		}
		if sum != nil {
			sum.refs = int32(len(w.ref)) - sum.units
			sum.labels = slices.Clone(blk.Labels)
		}
		if len(blk.Labels) > 0 {
			if p.labels == nil {
				p.labels = make(map[int32]string)
			}
			for _, l := range blk.Labels {
				p.labels[base+l.Op] = l.Name
			}
		}
		ops += int64(n)
		deps += int64(used)
		p.rankStart = append(p.rankStart, int32(ops))
		d.free <- blk
	}
	if numRanks != nil {
		p.NumRanks, p.NumCPUs, p.NumNICs = numRanks(), cpus, nics
		w.multi = cpus > 1 || nics > 1
	}
	if int(r) != p.NumRanks { // the Reader checks, but the engine depends on it
		return fmt.Errorf("sim: the schedule has %d of %d ranks", r, p.NumRanks)
	}
	w.rankUnit = append(w.rankUnit, int32(len(w.ref)))
	// read at every load, in no order
	w.ref, w.listAt = hugeCopy(w.ref), hugeCopy(w.listAt)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sim: writing the spill file: %w", err)
	}
	w.numOps = int32(ops)
	w.st.sealed()
	w.stats.SpillBytes, w.stats.Units = w.st.fileBytes(), len(w.ref)
	w.stats.StoredUnits, w.stats.StoreBytes, w.stats.RepeatRanks = len(w.st.mem), w.st.used, repeats
	if p.tooBig < 0 {
		p.tooBigKind = 0
	}
	w.comp, w.raw = nil, nil
	return nil
}

// decoded is a rank block decoded ahead, or the error that ended the
// blocks (io.EOF after the last); blk goes back on free once used.
type decoded struct {
	blk  *goal.RankBlock
	same int32 // blockSource's
	kept bool
	err  error
	free chan<- *goal.RankBlock
}

// blockSource hands out a schedule's rank blocks in rank order, as
// goal.Reader.NextRepeat does: a block equal to that of an earlier rank
// q whose block it handed out with kept set may come as same = q, not
// decoded.
type blockSource func(*goal.RankBlock) (same int32, kept bool, err error)

// noRepeats is a blockSource of next, which has no repeats.
func noRepeats(next func(*goal.RankBlock) error) blockSource {
	return func(b *goal.RankBlock) (int32, bool, error) { return -1, false, next(b) }
}

// repeatBytes bounds the bytes of rank blocks a streamed read remembers
// to tell repeats (goal.Reader.RememberBlocks); a variable for the tests.
var repeatBytes int64 = 64 << 20

// rankSummary is what spilling a rank gave that a rank whose block
// repeats it (blockSource) takes over, relative to the rank's first op and
// first edge-list entry: the units it added to w.ref (refs of them, from
// index units on) and where each unit's edge lists end; its start state,
// implicit receives, window, edge-list entries and, per op with an edge
// list, that list's index and length; its labels.
type rankSummary struct {
	ops, refs, units int32
	listEnds         []uint32
	start            rankStartState
	implicit         int
	initHi, span     int32
	lists            int32
	edgeLists        [][2]uint32
	labels           []goal.Label
}

// listPages counts, for the pages of the program's edge lists that the
// list of n successors at index at (its count, then the successors)
// touches, one more op whose list touches them (w.dliveInit).
func (w *window) listPages(at, n int64) {
	first, last := at>>w.dShift, (at+n)>>w.dShift
	for pg := first; pg <= last; pg++ {
		for int64(len(w.dliveInit)) <= pg {
			w.dliveInit = append(w.dliveInit, 0)
		}
		w.dliveInit[pg]++
	}
}

// repeat spills rank r, whose block is that of the rank summarized by
// sum with its peers moved, which spilling it would give, from sum: the
// same units (stored relative to the rank), moved to the rank's first op
// *ops and edge-list entry *deps, which it advances.
func (w *window) repeat(p *Program, r int32, sum *rankSummary, ops, deps *int64) error {
	if sum == nil {
		return fmt.Errorf("sim: rank %d repeats a rank block that was not kept", r)
	}
	n := int64(sum.ops)
	if *ops+n > math.MaxInt32 {
		return fmt.Errorf("sim: more than %d ops; the engine takes at most %d", int64(math.MaxInt32), int64(math.MaxInt32))
	}
	if *deps+int64(sum.lists) > maxListEntries {
		return fmt.Errorf("sim: more than %d edge list entries; the engine takes at most %d", maxListEntries, maxListEntries)
	}
	base, d := int32(*ops), *deps
	st := sum.start
	p.start = append(p.start, rankStartState{icur: st.icur + base, iend: st.iend + base, ready: st.ready})
	p.implicit += sum.implicit
	w.initHi, w.span = append(w.initHi, sum.initHi), append(w.span, sum.span)
	for _, l := range sum.edgeLists {
		w.listPages(int64(l[0])+d, int64(l[1]))
	}
	w.rankUnit = append(w.rankUnit, int32(len(w.ref)))
	w.ref = append(w.ref, w.ref[sum.units:sum.units+sum.refs]...)
	for _, e := range sum.listEnds {
		w.listAt = append(w.listAt, uint32(d+int64(e)))
	}
	if len(sum.labels) > 0 {
		if p.labels == nil {
			p.labels = make(map[int32]string)
		}
		for _, l := range sum.labels {
			p.labels[base+l.Op] = l.Name
		}
	}
	*ops += n
	*deps += int64(sum.lists)
	p.rankStart = append(p.rankStart, int32(*ops))
	return nil
}

// decodeAhead decodes rank blocks with next on another goroutine, a few
// blocks ahead of the one being spilled, so that decoding and spilling use
// two CPUs. stop ends the goroutine and waits for it, so that next's
// reader is the caller's again.
func decodeAhead(next blockSource) (<-chan decoded, func()) {
	const ahead = 4
	out := make(chan decoded, ahead)
	free := make(chan *goal.RankBlock, ahead+1)
	for range ahead + 1 {
		free <- new(goal.RankBlock)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var b *goal.RankBlock
			select {
			case b = <-free:
			case <-done:
				return
			}
			same, kept, err := next(b)
			select {
			case out <- decoded{blk: b, same: same, kept: kept, err: err, free: free}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, func() { close(done); wg.Wait() }
}

// grow returns s with length n, reusing its storage when it is enough.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// rankWindow returns, for a rank's ops recs (first op base, edge lists in
// lists at their index in recs), how many of them a run must load before
// it starts (initHi: up to its last op without predecessors, queued or
// posted at time 0, and the successors of those ops) and the furthest a
// successor is from its op (span, for engine.ahead).
func rankWindow(recs []opRec, lists []uint32, base int32) (initHi, span int32) {
	for i := range recs {
		o := &recs[i]
		g := base + int32(i)
		far := furthestSuccessor(o.edge, lists, g)
		span = max(span, far-g)
		if o.pend == 0 || o.pend == stStarted|implicit {
			initHi = max(initHi, far-base+1)
		}
	}
	return initHi, span
}

// furthestSuccessor returns the global index of the furthest successor
// of op g, whose edge field is ed and whose edge list, if it has one, is
// in deps (opRec.edge); g itself when it has none.
func furthestSuccessor(ed uint32, deps []uint32, g int32) int32 {
	if ed&edgeList == 0 {
		_, a, b := inlineEdges(ed)
		return g + int32(max(a, b)>>1)
	}
	at := ed &^ edgeList
	m := g
	for _, d := range deps[at+1 : at+1+deps[at]] {
		m = max(m, int32(d>>1))
	}
	return m
}

// encodeUnit lays out the records recs of rank r, whose first op is op lo
// of its rank (for cn), and their edge lists, as a unit (see the top of
// this file), in w.raw. The rank's first op is base and the unit's first
// list entry has index at in the program's lists.
//
// The fields go column by column, the peers of sends and receives
// relative to r (relPeer), edge-list indexes relative to at
// and each edge in lists relative to the op it leaves, so that the units
// of ranks that do the same thing are equal (unitStore) or alike and
// compress.
func (w *window) encodeUnit(r int32, recs []opRec, cn []uint32, lo int, lists []uint32, base int32, at uint32) []byte {
	n := len(recs)
	raw := grow(w.raw, n*w.recBytes+4*len(lists))
	le := binary.LittleEndian
	for i := range recs {
		o := &recs[i]
		le.PutUint64(raw[8*i:], o.size)
		le.PutUint32(raw[8*n+4*i:], w.relPeer(o, r))
		le.PutUint32(raw[12*n+4*i:], o.tag)
		ed := o.edge
		if ed&edgeList != 0 {
			ed = edgeList | (ed&^edgeList - at)
		}
		le.PutUint32(raw[16*n+4*i:], ed)
		le.PutUint32(raw[20*n+4*i:], o.pend)
	}
	b := raw[24*n:]
	if w.cnCol {
		for _, x := range cn[lo : lo+n] {
			le.PutUint32(b, x)
			b = b[4:]
		}
	}
	g := base + int32(lo) // the op that owns the next list
	for k := 0; k < len(lists); g++ {
		if recs[g-base-int32(lo)].edge&edgeList == 0 {
			continue
		}
		c := lists[k]
		le.PutUint32(b, c)
		for _, d := range lists[k+1 : k+1+int(c)] {
			le.PutUint32(b[4:], uint32(int32(d>>1)-g)<<1|d&1)
			b = b[4:]
		}
		b = b[4:]
		k += 1 + int(c)
	}
	w.raw = raw
	return raw
}

// pageShift returns log2 of how many elements of size bytes fit in a
// memory page.
func pageShift(size int) uint {
	return uint(bits.TrailingZeros(uint(os.Getpagesize() / size)))
}

// mapRecords maps the memory the records, edge lists and CPU and NIC
// numbers are loaded into, and sets up the per-page counts.
func (w *window) mapRecords(p *Program) error {
	var err error
	n := int(w.numOps)
	if w.pool, err = newRecPool(n); err != nil {
		return err
	}
	nd := int(w.listAt[len(w.listAt)-1])
	if w.depsMem, err = mapMem(4 * nd); err != nil {
		return err
	}
	if w.multi {
		if w.cnMem, err = mapMem(4 * n); err != nil {
			return err
		}
	}
	if nd > 0 {
		p.deps = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(w.depsMem))), nd)
	}
	if w.multi && n > 0 {
		p.cn = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(w.cnMem))), n)
	}
	w.cShift = pageShift(4)
	w.liveInit = perPage(n, recPageShift)
	if w.multi {
		w.cliveInit = perPage(n, w.cShift)
	}
	w.dlive = make([]uint16, len(w.dliveInit))
	w.clive = make([]uint16, len(w.cliveInit))
	w.hi = make([]int32, p.NumRanks)
	w.lim = make([]int32, p.NumRanks)
	w.drop = newDropper()
	return nil
}

// perPage returns, per page of n elements with 1<<shift to a page, how
// many of them it holds.
func perPage(n int, shift uint) []uint16 {
	per := 1 << shift
	c := make([]uint16, (n+per-1)/per)
	for i := range c {
		c[i] = uint16(min(per, n-i*per))
	}
	return c
}

// begin prepares a run: nothing loaded, every page waiting for all its
// ops, then each rank's initial ops loaded.
func (w *window) begin(p *Program) {
	w.drop.flush()
	w.pool.reset()
	dropMem(w.depsMem)
	if w.cnMem != nil {
		dropMem(w.cnMem)
	}
	for pg, n := range w.liveInit {
		w.pool.slot[pg].live = uint32(n)
	}
	copy(w.dlive, w.dliveInit)
	copy(w.clive, w.cliveInit)
	w.stats = StreamStats{SpillBytes: w.stats.SpillBytes, Units: w.stats.Units, StoredUnits: w.stats.StoredUnits, StoreBytes: w.stats.StoreBytes, RepeatRanks: w.stats.RepeatRanks}
	for _, c := range w.cols {
		c.begin()
	}
	for r := range w.hi {
		w.hi[r] = p.rankStart[r]
		w.lim[r] = w.hi[r] - w.span[r]
	}
	for r := range w.hi {
		w.load(p, int32(r), p.rankStart[r]+w.initHi[r])
	}
}

// relPeer is op o's peer as a unit stores it for rank r: a send's or
// receive's relative to r, modulo the number of ranks (w.ranks) when it is
// known before the blocks are read (a binary file; as goal's binary form
// stores it, so that ranks whose blocks are equal have equal units:
// blockSource), else modulo 2^32; AnySource (negative) and a calc's as
// it is. absPeer undoes it.
func (w *window) relPeer(o *opRec, r int32) uint32 {
	switch {
	case o.kind() == goal.Calc:
		return uint32(o.peer)
	case w.ranks == 0:
		return uint32(o.peer) - uint32(r)
	case o.peer < 0:
		return uint32(o.peer)
	}
	return uint32((int64(o.peer) - int64(r) + int64(w.ranks)) % int64(w.ranks))
}

// absPeer undoes relPeer for o, whose size (and kind) is set.
func (w *window) absPeer(o *opRec, x uint32, r int32) int32 {
	switch {
	case o.kind() == goal.Calc:
		return int32(x)
	case w.ranks == 0:
		return int32(x + uint32(r))
	case int32(x) < 0:
		return int32(x)
	}
	return int32((int64(x) + int64(r)) % int64(w.ranks))
}

// load loads rank r's ops below global index upto, a unit at a time.
func (w *window) load(p *Program, r, upto int32) {
	base, end := p.rankStart[r], p.rankStart[r+1]
	for w.hi[r] < upto {
		lo := w.hi[r]
		k := (lo - base) / w.unit
		hi := min(lo+w.unit, end)
		u := w.rankUnit[r] + k
		var cn []uint32
		if p.cn != nil {
			cn = p.cn[lo:hi]
		}
		recs, split := w.place(lo, hi)
		if err := w.readUnit(r, u, lo, recs, cn, p.deps[w.listAt[u]:w.listAt[u+1]]); err != nil {
			panic(spillError{err})
		}
		if split {
			w.spread(lo, hi)
		}
		if w.recOn {
			w.rec.load(w, w.pool.slot, r, lo, hi)
		}
		w.hi[r] = hi
		w.lim[r] = hi - w.span[r]
		w.stats.Loads++
		w.stats.ResidentOps += int64(hi - lo)
		w.stats.PeakOps = max(w.stats.PeakOps, w.stats.ResidentOps)
	}
}

// place returns where the records of ops lo .. hi-1, at most a unit, are
// to be decoded: in their page when they share one, and otherwise in
// w.tmp (split), which spread then copies into their two pages. Their
// pages get blocks of the pool if they have none.
func (w *window) place(lo, hi int32) (recs []opRec, split bool) {
	first, last := lo>>recPageShift, (hi-1)>>recPageShift
	if first == last {
		pg := w.pool.page(first)
		return pg[lo&(recPageOps-1) : (hi-1)&(recPageOps-1)+1], false
	}
	w.tmp = grow(w.tmp, int(hi-lo))
	return w.tmp, true
}

// spread copies the records of ops lo .. hi-1, decoded into w.tmp by
// place, into the pages they belong to.
func (w *window) spread(lo, hi int32) {
	for g := lo; g < hi; {
		pg := w.pool.page(g >> recPageShift)
		n := copy(pg[g&(recPageOps-1):], w.tmp[g-lo:hi-lo])
		g += int32(n)
	}
}

// op returns the record of op g, which is loaded.
func (w *window) op(g int32) *opRec { return recAt(w.pool.base(), w.pool.slot, g) }

// readUnit decodes unit u of rank r, whose first op is g0 (see
// encodeUnit), into recs, cn and deps, its edge lists (deps[i] is the
// program's deps[listAt[u]+i]); cn and deps may be nil.
func (w *window) readUnit(r, u, g0 int32, recs []opRec, cn []uint32, deps []uint32) error {
	at := w.listAt[u]
	nl := int(w.listAt[u+1] - at)
	n := len(recs)
	raw, err := w.unitBytes(u, n*w.recBytes+4*nl)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	for i := range recs {
		o := &recs[i]
		o.tm = 0
		o.size = le.Uint64(raw[8*i:])
		o.peer = w.absPeer(o, le.Uint32(raw[8*n+4*i:]), r)
		o.tag = le.Uint32(raw[12*n+4*i:])
		o.edge = le.Uint32(raw[16*n+4*i:])
		if o.edge&edgeList != 0 {
			o.edge += at
		}
		o.pend = le.Uint32(raw[20*n+4*i:])
	}
	b := raw[24*n:]
	if w.cnCol {
		for i := range recs {
			if cn != nil {
				cn[i] = le.Uint32(b)
			}
			b = b[4:]
		}
	}
	if deps == nil {
		return nil
	}
	d := deps[:nl]
	k := 0
	for i := range recs {
		if recs[i].edge&edgeList == 0 {
			continue
		}
		c := le.Uint32(b[4*k:])
		if int(c) >= nl-k || recs[i].edge != edgeList|(at+uint32(k)) {
			return fmt.Errorf("sim: unit %d of the spill file is damaged: an edge list of %d at entry %d of %d", u, c, k, nl)
		}
		d[k] = c
		g := g0 + int32(i)
		for j := k + 1; j <= k+int(c); j++ {
			x := le.Uint32(b[4*j:])
			d[j] = uint32(int32(x>>1)+g)<<1 | x&1
		}
		k += 1 + int(c)
	}
	return nil
}

// unitBytes returns unit u as encodeUnit laid it out, want bytes: kept in
// memory, or read from the spill file into w.raw.
func (w *window) unitBytes(u int32, want int) ([]byte, error) {
	ref := w.ref[u]
	if ref&inFile == 0 {
		raw := w.st.mem[ref]
		if len(raw) != want {
			return nil, fmt.Errorf("sim: unit %d of the spill file is damaged (%d bytes, want %d)", u, len(raw), want)
		}
		return raw, nil
	}
	i := ref &^ inFile
	lo, hi := w.st.foff[i], w.st.foff[i+1]
	w.comp = grow(w.comp, int(hi-lo))
	if _, err := w.f.ReadAt(w.comp, lo); err != nil {
		return nil, fmt.Errorf("sim: reading unit %d of the spill file: %w", u, err)
	}
	if dl, err := s2.DecodedLen(w.comp); err != nil || dl != want {
		return nil, fmt.Errorf("sim: unit %d of the spill file is damaged (%d bytes decoded, want %d): %v", u, dl, want, err)
	}
	raw, err := s2.Decode(grow(w.raw, want), w.comp)
	if err != nil {
		return nil, fmt.Errorf("sim: unit %d of the spill file is damaged: %w", u, err)
	}
	w.raw = raw
	return raw, nil
}

// finish records that op g has finished: no run will touch its record, its
// edge list or its CPU and NIC numbers again. Pages whose ops have all
// finished are given back.
func (w *window) finish(p *Program, g int32) {
	if ed := w.op(g).edge; ed&edgeList != 0 {
		at := ed &^ edgeList
		last := (at + p.deps[at]) >> w.dShift
		for pg := at >> w.dShift; pg <= last; pg++ {
			if w.dlive[pg]--; w.dlive[pg] == 0 {
				w.dropPage(w.depsMem, int(pg), w.dShift+2)
			}
		}
	}
	if w.cnMem != nil {
		pg := g >> w.cShift
		if w.clive[pg]--; w.clive[pg] == 0 {
			w.dropPage(w.cnMem, int(pg), w.cShift+2)
		}
	}
	for _, c := range w.cols {
		c.finish(g)
	}
	pg := g >> recPageShift
	ps := &w.pool.slot[pg]
	if ps.live--; ps.live == 0 {
		if w.recOn {
			w.rec.write(pg, ps.blk)
		}
		w.pool.give(pg)
		w.stats.Drops++
		w.stats.ResidentOps -= int64(w.liveInit[pg])
	}
}

// dropPage gives page pg of mem, pages of 1<<shift bytes, back (with
// the dropper's batch).
func (w *window) dropPage(mem []byte, pg int, shift uint) {
	lo := pg << shift
	w.drop.drop(mem[lo:min(lo+1<<shift, len(mem))])
}

// gone reports whether op g's record has been given back (every op on its
// page has finished).
func (w *window) gone(g int32) bool { return w.pool.slot[g>>recPageShift].live == 0 }

// static returns op g of rank r as the schedule gives it, read from the
// spill file: its record as a run starts from it, its CPU and NIC
// numbers, and its successors appended to buf (Program.Succ's order).
func (w *window) static(p *Program, r, g int32, buf []Edge) (opRec, uint32, []Edge, error) {
	base := p.rankStart[r]
	k := (g - base) / w.unit
	lo := base + k*w.unit
	hi := min(lo+w.unit, p.rankStart[r+1])
	u := w.rankUnit[r] + k
	recs, cn, deps, err := w.cachedUnit(r, u, lo, hi)
	if err != nil {
		return opRec{}, 0, buf, err
	}
	o := recs[g-lo]
	var c uint32
	if cn != nil {
		c = cn[g-lo]
	}
	if ed := o.edge; ed&edgeList == 0 {
		buf = appendInline(buf, ed, g)
	} else {
		at := ed&^edgeList - w.listAt[u]
		for _, d := range deps[at+1 : at+1+deps[at]] {
			buf = append(buf, Edge{Op: int32(d >> 1), Start: d&1 != 0})
		}
	}
	return o, c, buf, nil
}

// Stream returns the memory use of a streamed Program's last run, and
// false for a Program held in memory.
func (p *Program) Stream() (StreamStats, bool) {
	if p.win == nil {
		return StreamStats{}, false
	}
	st := p.win.stats
	st.PeakBytes = p.win.pool.bytes()
	return st, true
}

// Close releases what a streamed Program holds outside the Go heap: the
// memory its runs load records into and its spill file. A Program held in
// memory has nothing to release. The Program cannot run after Close.
func (p *Program) Close() error {
	if p.win == nil {
		return nil
	}
	err := p.win.close()
	p.win, p.ops, p.deps, p.cn = nil, nil, nil, nil
	p.closed = true
	return err
}

func (w *window) close() error {
	if w.drop != nil {
		w.drop.close()
	}
	if w.pool != nil {
		w.pool.close()
	}
	unmapMem(w.depsMem)
	unmapMem(w.cnMem)
	w.depsMem, w.cnMem = nil, nil
	var err error
	if w.refs == nil || w.refs.Add(-1) == 0 {
		err = w.f.Close()
		if w.name != "" {
			if rerr := os.Remove(w.name); err == nil {
				err = rerr
			}
		}
	}
	for _, rf := range []*recFile{w.rec, w.recNs} {
		if rf != nil {
			if rerr := rf.close(); err == nil {
				err = rerr
			}
		}
	}
	if w.net != nil {
		unmapMem(w.net.h.mem)
		unmapMem(w.net.park.mem)
	}
	return err
}

// succ is Program.Succ for a streamed program.
func (w *window) succ(p *Program, g int32, buf []Edge) ([]Edge, error) {
	_, _, out, err := w.static(p, int32(p.rankOf(g)), g, buf)
	return out, err
}
