package sim

// The per-op record of a streamed run (Options.Record).
//
// A streamed run writes each op's OpRecord into memory mapped as the op
// records are (a pagedCol): a record is written only while its op is
// loaded (the invariants at the top of stream.go), set to its initial
// values when its op is loaded, and once every op whose record touches a
// page has finished, the page is written to a record file (in the spill
// file's directory, unlinked at once) at its offset and given back.
// Memory thus follows the active window, as the op records do, and the
// file holds the whole record when the run ends. Result.Record is then a
// read-only shared mapping of the file: reading it brings clean pages
// back, which Program.ReleaseRecordPages gives back again (and the
// kernel may reclaim at will). When the run counts ps, the record in ns
// is a second file of the same layout, converted a run of pages at a time.
//
// The records are written with pwrite rather than through a writable
// file mapping: dirty mapped pages are what made the kernel's reclaim
// costly when the op records themselves lived in a file mapping
// (docs/performance.md).

import (
	"fmt"
	"os"
	"slices"
	"unsafe"
)

// recFile is a file of n OpRecords: mem is where a run writes them, view
// the file mapped read-only, where they are read after the run.
type recFile struct {
	f    *os.File
	name string     // removed by close when it could not be unlinked at once
	recs []OpRecord // in mem
	view []OpRecord
	vmem []byte
	// sel has a bit per page holding a record of a rank the run's
	// Options.RecordRanks lists (nil: every rank); pagedCol.want starts
	// as sel and gains the pages of the ops they exchange messages with.
	sel []uint64
	pagedCol
}

const recSize = int64(unsafe.Sizeof(OpRecord{}))

// newRecFile creates a record file of n ops in dir.
func newRecFile(dir string, n int32) (*recFile, error) {
	f, err := os.CreateTemp(dir, "gopsim-record-*")
	if err != nil {
		return nil, fmt.Errorf("sim: record file: %w", err)
	}
	rf := &recFile{f: f}
	if os.Remove(f.Name()) != nil {
		rf.name = f.Name()
	}
	size := int64(n) * recSize
	if err := f.Truncate(size); err != nil {
		rf.close()
		return nil, fmt.Errorf("sim: record file of %d bytes: %w", size, err)
	}
	mem, err := mapMem(int(size))
	if err != nil {
		rf.close()
		return nil, err
	}
	rf.pagedCol = newPagedCol(mem, recSize, n, f)
	rf.vmem = mem
	if fileMapped {
		if rf.vmem, err = mapFile(f, int(size)); err != nil {
			rf.close()
			return nil, err
		}
	}
	rf.recs, rf.view = []OpRecord{}, []OpRecord{} // a record, of no op
	if n > 0 {
		rf.recs = unsafe.Slice((*OpRecord)(unsafe.Pointer(unsafe.SliceData(mem))), n)
		rf.view = unsafe.Slice((*OpRecord)(unsafe.Pointer(unsafe.SliceData(rf.vmem))), n)
	}
	return rf, nil
}

// load sets the records of ops lo to hi-1, just loaded, to their initial
// values (newExtras).
func (rf *recFile) load(lo, hi int32) {
	for g := lo; g < hi; g++ {
		rf.recs[g] = initialRecord
	}
}

func (rf *recFile) close() error {
	unmapMem(rf.mem)
	if fileMapped {
		unmapFile(rf.vmem)
	}
	rf.mem, rf.vmem, rf.recs, rf.view = nil, nil, nil, nil
	err := rf.f.Close()
	if rf.name != "" {
		if rerr := os.Remove(rf.name); err == nil {
			err = rerr
		}
	}
	return err
}

// records returns the record file of a run of p with Options.Record,
// creating it at the first such run, and makes the window keep it: of
// ranks only (Options.RecordRanks), or of all when ranks is empty.
func (w *window) records(p *Program, ranks []int) ([]OpRecord, error) {
	if w.rec == nil {
		rf, err := newRecFile(w.dir, int32(p.NumOps()))
		if err != nil {
			return nil, err
		}
		w.rec = rf
	}
	w.rec.only(p, ranks)
	w.recOn = true
	w.keep(&w.rec.pagedCol)
	return w.rec.recs, nil
}

// only makes the next run write to the file only the pages holding the
// records of ranks' ops and, as the run matches messages, those of the
// ops they exchange messages with (mark); every page when ranks is empty.
func (rf *recFile) only(p *Program, ranks []int) {
	rf.sel, rf.want = nil, nil
	if len(ranks) == 0 {
		return
	}
	words := (len(rf.live) + 63) / 64
	rf.sel = make([]uint64, words)
	for _, r := range ranks {
		if r < 0 || r >= p.NumRanks {
			continue
		}
		lo, hi := p.rankStart[r], p.rankStart[r+1]
		if lo == hi {
			continue
		}
		first, last := rf.pages(lo)
		_, last = rf.pages(hi - 1)
		for pg := first; pg <= last; pg++ {
			rf.sel[pg>>6] |= 1 << (pg & 63)
		}
	}
	rf.want = slices.Clone(rf.sel)
}

// pages returns the first and last page holding op g's record.
func (rf *recFile) pages(g int32) (first, last int64) {
	return int64(g) * recSize >> rf.shift, (int64(g)*recSize + recSize - 1) >> rf.shift
}

// selected says whether op g's record shares a page with a record of a
// listed rank (a superset of the listed ranks' ops, which costs at most
// a few pages more).
func (rf *recFile) selected(g int32) bool {
	first, last := rf.pages(g)
	return rf.sel[first>>6]&(1<<(first&63)) != 0 || rf.sel[last>>6]&(1<<(last&63)) != 0
}

// mark makes the pages of send s's and receive r's records go to the
// file when either is of a listed rank, so that a timeline finds both
// ends of their messages. It is called at their match, before either
// has finished.
func (rf *recFile) mark(s, r int32) {
	if !rf.selected(s) && !rf.selected(r) {
		return
	}
	for _, g := range [2]int32{s, r} {
		first, last := rf.pages(g)
		rf.want[first>>6] |= 1 << (first & 63)
		rf.want[last>>6] |= 1 << (last & 63)
	}
}

// finishRecord sets the records of the ops a failed run never loaded to
// their initial values, as a run in memory leaves them, writes what is
// still in memory to the record file, and returns the record read from
// its file, raw, and in ns: the same when the run counted ns (scale 1),
// else a second file converted from it a run of pages at a time.
func (w *window) finishRecord(p *Program, scale int64) (raw, ns []OpRecord, err error) {
	rf := w.rec
	for r := range w.hi {
		rf.load(w.hi[r], p.rankStart[r+1])
	}
	if err := rf.flush(); err != nil {
		return nil, nil, err
	}
	if scale == 1 {
		return rf.view, rf.view, nil
	}
	if w.recNs == nil {
		x, err := newRecFile(w.dir, int32(len(rf.recs)))
		if err != nil {
			return nil, nil, err
		}
		w.recNs = x
	}
	out := w.recNs
	// 4,096 records are a whole number of pages.
	const chunk = 4096
	for lo := 0; lo < len(rf.view); lo += chunk {
		hi := min(lo+chunk, len(rf.view))
		if !rf.wanted(lo, hi) {
			continue
		}
		for g := lo; g < hi; g++ {
			out.recs[g] = opRecordNs(&rf.view[g], scale)
		}
		a, b := int64(lo)*recSize, int64(hi)*recSize
		if fileMapped {
			dropFile(rf.vmem[a:b])
			if _, err := out.f.WriteAt(out.mem[a:b], a); err != nil {
				return nil, nil, fmt.Errorf("sim: writing the record file: %w", err)
			}
			dropMem(out.mem[a:b])
		}
	}
	return rf.view, out.view, nil
}

// wanted says whether any page of the records of ops lo to hi-1 was
// written to the file.
func (rf *recFile) wanted(lo, hi int) bool {
	if rf.want == nil {
		return true
	}
	first, _ := rf.pages(int32(lo))
	_, last := rf.pages(int32(hi - 1))
	for pg := first; pg <= last; pg++ {
		if rf.want[pg>>6]&(1<<(pg&63)) != 0 {
			return true
		}
	}
	return false
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
		if rf != nil && fileMapped {
			dropFile(rf.vmem)
		}
	}
}
