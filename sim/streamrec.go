package sim

// The per-op record of a streamed run (Options.Record).
//
// A streamed run writes each op's OpRecord beside its op record, in a
// pool of blocks that parallels the window's pool of op records
// (recpool.go): the records of page k of ops (recPageOps ops) are in
// block slot[k] of the record pool, the block number the op records of
// page k have. A record is written only while its op is loaded (the
// invariants at the top of stream.go) and is set to its initial values
// when its op is loaded; when the last op of a page has finished, just
// before the page's block goes back to the pool, the page's records are
// written to a record file (in the spill file's directory, unlinked at
// once) at their offset, and the block is reused for the records of the
// next page loaded. Memory thus follows the active window, as the op
// records do, and no page is given back to the system or faulted in again
// during a run. The file holds the whole record when the run ends.
// Result.Record is then a read-only shared mapping of the file: reading
// it brings clean pages back, which Program.ReleaseRecordPages gives back
// again (and the kernel may reclaim at will). When the run counts ps, the
// record in ns is a second file of the same layout, converted a run of
// pages at a time.
//
// With Options.RecordRanks, the record pool has slots of its own
// (recFile.slot): a page gets a block when the first op loaded on it that
// a timeline of the listed ranks reads (an op of theirs, or a send or
// receive whose peer is one of them or any source) is loaded, and only
// such pages are written; the other ops' records all go to block 0, a
// scratch block that is never written to the file. Whether an op is read
// is known when it is loaded, before its record is first written, and
// both ends of a message with a listed rank are read.

// The records are written with pwrite rather than through a writable
// file mapping: dirty mapped pages are what made the kernel's reclaim
// costly when the op records themselves lived in a file mapping
// (docs/performance.md).

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/gopsim/gopsim/goal"
)

// recFile is a file of n OpRecords, view the file mapped read-only,
// where they are read after the run, and mem, for the file a run writes,
// the pool of blocks the run writes them in.
type recFile struct {
	f    *os.File
	name string // removed by close when it could not be unlinked at once
	n    int32
	view []OpRecord
	vmem []byte
	mem  []byte // blocks of recPageOps records, block b at b·recBlockBytes
	// With Options.RecordRanks: listed has a bit per listed rank, slot
	// a block per page of ops (0: the scratch block), free and next the
	// blocks given back and handed out (only), sel a bit per page holding
	// an op of a listed rank. Without, all four are nil and page k's
	// records are in the block of the op records' pool (recPool.slot).
	listed, sel []uint64
	slot        []pageSlot // blk only
	free        []uint32
	next        uint32
	// written has a bit per page written to the file in the last run
	// (nil: every page).
	written []uint64
}

const (
	recSize       = int64(unsafe.Sizeof(OpRecord{}))
	recBlockBytes = recPageOps * recSize // 12 KiB: whole pages of the file
)

// newRecFile creates a record file of n ops in dir; with pool, also the
// pool of blocks a run writes them in.
func newRecFile(dir string, n int32, pool bool) (*recFile, error) {
	f, err := os.CreateTemp(dir, "gopsim-record-*")
	if err != nil {
		return nil, fmt.Errorf("sim: record file: %w", err)
	}
	rf := &recFile{f: f, n: n}
	if os.Remove(f.Name()) != nil {
		rf.name = f.Name()
	}
	size := int64(n) * recSize
	if err := f.Truncate(size); err != nil {
		rf.close()
		return nil, fmt.Errorf("sim: record file of %d bytes: %w", size, err)
	}
	if pool {
		if rf.mem, err = mapMem(int(int64(rf.pages()+1) * recBlockBytes)); err != nil {
			rf.close()
			return nil, err
		}
		hugePages(rf.mem) // blocks are never given back to the system
	}
	if rf.vmem, err = mapFile(f, int(size)); err != nil {
		rf.close()
		return nil, err
	}
	rf.view = []OpRecord{} // a record, of no op
	if n > 0 {
		rf.view = unsafe.Slice((*OpRecord)(unsafe.Pointer(unsafe.SliceData(rf.vmem))), n)
	}
	return rf, nil
}

// pages is the number of pages of ops.
func (rf *recFile) pages() int { return (int(rf.n) + recPageOps - 1) / recPageOps }

// base is the address of block 0 of the pool.
func (rf *recFile) base() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(rf.mem)) }

// block returns the records of block b of the pool.
func (rf *recFile) block(b uint32) []OpRecord {
	return unsafe.Slice((*OpRecord)(unsafe.Add(rf.base(), uintptr(b)*uintptr(recBlockBytes))), recPageOps)
}

// load sets the records of ops lo to hi-1 of rank r, just loaded into
// the pages whose op record blocks opSlot gives, to their initial values
// (newExtras), giving their pages a block of their own first when the
// run records only some ranks (only) and one of them is read.
func (rf *recFile) load(w *window, opSlot []pageSlot, r, lo, hi int32) {
	if rf.slot == nil {
		for g := lo; g < hi; g++ {
			rf.block(opSlot[g>>recPageShift].blk)[g&(recPageOps-1)] = initialRecord
		}
		return
	}
	mine := bitSet(rf.listed, int64(r))
	for g := lo; g < hi; g++ {
		pg := g >> recPageShift
		if rf.slot[pg].blk == 0 && (mine || rf.readsPeer(w.op(g))) {
			rf.slot[pg].blk = rf.take()
		}
		rf.block(rf.slot[pg].blk)[g&(recPageOps-1)] = initialRecord
	}
}

// readsPeer says whether a timeline of the listed ranks reads the record
// of op o for its peer: a send to or a receive from one of them, or from
// any source.
func (rf *recFile) readsPeer(o *opRec) bool {
	if o.kind() == goal.Calc {
		return false
	}
	return o.peer == goal.AnySource || (o.peer >= 0 && int64(o.peer) < int64(len(rf.listed))*64 && bitSet(rf.listed, int64(o.peer)))
}

// take hands out a block of the record pool's own.
func (rf *recFile) take() uint32 {
	if n := len(rf.free); n > 0 {
		b := rf.free[n-1]
		rf.free = rf.free[:n-1]
		return b
	}
	rf.next++
	return rf.next - 1
}

// write writes the records of page pg to the file, its last op just
// finished: from block b of the op records' pool, or from its own block,
// which it gives back (none: nothing the run reads). A failed write stops
// the run (window.load's spillError).
func (rf *recFile) write(pg int32, b uint32) {
	if rf.slot != nil {
		if b = rf.slot[pg].blk; b == 0 {
			return
		}
		rf.slot[pg].blk = 0
		rf.free = append(rf.free, b)
	}
	if err := rf.writeBlock(pg, rf.block(b)); err != nil {
		panic(spillError{err})
	}
}

// bitSet says whether bit i of bits is set.
func bitSet(bits []uint64, i int64) bool { return bits[i>>6]&(1<<(i&63)) != 0 }

// setBit sets bit i of bits.
func setBit(bits []uint64, i int64) { bits[i>>6] |= 1 << (i & 63) }

// writeBlock writes recs, the records of page pg, to the file.
func (rf *recFile) writeBlock(pg int32, recs []OpRecord) error {
	if rf.written != nil {
		setBit(rf.written, int64(pg))
	}
	lo := int64(pg) * recPageOps
	return rf.writeRecs(lo, recs[:min(int64(rf.n)-lo, recPageOps)])
}

// writeRecs writes recs, the records of ops from lo on, to the file.
// Without a file mapping (recfile_other.go) the view is ordinary memory,
// where they are copied.
func (rf *recFile) writeRecs(lo int64, recs []OpRecord) error {
	if !fileMapped {
		copy(rf.view[lo:], recs)
		return nil
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(recs))), int64(len(recs))*recSize)
	if _, err := rf.f.WriteAt(b, lo*recSize); err != nil {
		return fmt.Errorf("sim: writing the record file: %w", err)
	}
	return nil
}

func (rf *recFile) close() error {
	unmapMem(rf.mem)
	unmapFile(rf.vmem)
	rf.mem, rf.vmem, rf.view = nil, nil, nil
	err := rf.f.Close()
	if rf.name != "" {
		if rerr := os.Remove(rf.name); err == nil {
			err = rerr
		}
	}
	return err
}

// records makes the window keep the record file of a run of p with
// Options.Record, creating it at the first such run, of ranks only
// (Options.RecordRanks), or of all when ranks is empty. It returns the
// address of block 0 of the record pool and the slots of its pages
// (extras.record).
func (w *window) records(p *Program, ranks []int) (unsafe.Pointer, []pageSlot, error) {
	if w.rec == nil {
		rf, err := newRecFile(w.dir, int32(p.NumOps()), true)
		if err != nil {
			return nil, nil, err
		}
		w.rec = rf
	}
	rf := w.rec
	rf.only(p, ranks)
	w.recOn = true
	if rf.slot != nil {
		return rf.base(), rf.slot, nil
	}
	return rf.base(), w.pool.slot, nil
}

// only makes the next run keep the records of ranks (load) and write only
// their pages; every page when ranks is empty.
func (rf *recFile) only(p *Program, ranks []int) {
	rf.listed, rf.sel, rf.slot, rf.free, rf.next, rf.written = nil, nil, nil, rf.free[:0], 1, nil
	if len(ranks) == 0 {
		return
	}
	pages := rf.pages()
	rf.listed = make([]uint64, (p.NumRanks+63)/64)
	rf.sel = make([]uint64, (pages+63)/64)
	rf.written = make([]uint64, (pages+63)/64)
	rf.slot = make([]pageSlot, pages)
	for _, r := range ranks {
		if r < 0 || r >= p.NumRanks {
			continue
		}
		setBit(rf.listed, int64(r))
		lo, hi := p.rankStart[r], p.rankStart[r+1]
		for pg := lo >> recPageShift; lo < hi && pg <= (hi-1)>>recPageShift; pg++ {
			setBit(rf.sel, int64(pg))
		}
	}
}

// finishRecord writes the pages the run did not finish (a failed run's),
// the records of the ops it never loaded set to their initial values, as
// a run in memory leaves them, and returns the record read from its
// file, raw, and in ns: the same when the run counted ns (scale 1), else
// a second file converted from it a run of pages at a time; nil with
// rawOnly (Options.PathOnly).
func (w *window) finishRecord(p *Program, scale int64, rawOnly bool) (raw, ns []OpRecord, err error) {
	rf := w.rec
	if err := w.writeUnfinished(p); err != nil {
		return nil, nil, err
	}
	if scale == 1 {
		return rf.view, rf.view, nil
	}
	if rawOnly {
		return rf.view, nil, nil
	}
	if w.recNs == nil {
		x, err := newRecFile(w.dir, rf.n, false)
		if err != nil {
			return nil, nil, err
		}
		w.recNs = x
	}
	out := w.recNs
	// 32 pages of ops are 96 pages of the file.
	const chunk = 32 * recPageOps
	buf := make([]OpRecord, chunk)
	for lo := 0; lo < len(rf.view); lo += chunk {
		hi := min(lo+chunk, len(rf.view))
		pg0 := int32(lo / recPageOps)
		if rf.written == nil {
			for g := lo; g < hi; g++ {
				buf[g-lo] = opRecordNs(&rf.view[g], scale)
			}
			if err := out.writeRecs(int64(lo), buf[:hi-lo]); err != nil {
				return nil, nil, err
			}
		} else {
			for pg := pg0; int(pg)*recPageOps < hi; pg++ {
				if !bitSet(rf.written, int64(pg)) {
					continue
				}
				a, b := int(pg)*recPageOps, min(int(pg+1)*recPageOps, hi)
				for g := a; g < b; g++ {
					buf[g-lo] = opRecordNs(&rf.view[g], scale)
				}
				if err := out.writeRecs(int64(a), buf[a-lo:b-lo]); err != nil {
					return nil, nil, err
				}
			}
		}
		dropFile(rf.vmem[int64(lo)*recSize : int64(hi)*recSize])
	}
	return rf.view, out.view, nil
}

// writeUnfinished writes to the record file the pages of ops whose
// blocks are still in the pool (a failed run's), the records of the ops
// the run never loaded set to their initial values first, and the pages
// the run never loaded, all initial; of these, only the pages holding
// ops of the listed ranks when the run records only some (the others'
// records it reads, their messages' other ends, were loaded and matched).
func (w *window) writeUnfinished(p *Program) (err error) {
	rf, slot := w.rec, w.pool.slot
	if rf.slot != nil {
		slot = rf.slot
	}
	for r := range w.hi {
		lo, hi := w.hi[r], p.rankStart[r+1]
		for g := lo; g < hi; g++ {
			if b := slot[g>>recPageShift].blk; b != 0 {
				rf.block(b)[g&(recPageOps-1)] = initialRecord
			}
		}
	}
	initial := make([]OpRecord, recPageOps)
	for i := range initial {
		initial[i] = initialRecord
	}
	for pg := range slot {
		if w.pool.slot[pg].live == 0 {
			continue // written when its last op finished
		}
		recs := initial
		if b := slot[pg].blk; b != 0 {
			recs = rf.block(b)
		} else if rf.sel != nil && !bitSet(rf.sel, int64(pg)) {
			continue
		}
		if err := rf.writeBlock(int32(pg), recs); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseRecordPages gives back the memory that reading the record of a
// streamed program's last run (Result.Record) brought in; the records
// read from their file again when next used. Readers of a large record
// call it now and then. A program held in memory has nothing to give
// back.
func (p *Program) ReleaseRecordPages() {
	if p.win == nil {
		return
	}
	for _, rf := range []*recFile{p.win.rec, p.win.recNs} {
		if rf != nil {
			dropFile(rf.vmem)
		}
	}
}
