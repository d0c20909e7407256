package sim

// The per-op record of a streamed run (Options.Record).
//
// A streamed run writes each op's OpRecord into a file mapped into
// memory (recFile), in the spill file's directory and unlinked at once.
// A record is written only while its op is loaded (the invariants at the
// top of stream.go): it is set to its initial values when its op is
// loaded, and its page of the mapping is given back once every op whose
// record touches the page has finished; what was written stays in the
// file. Memory thus follows the active window, as the op records do, and
// the file holds the whole record when the run ends. Result.Record is
// then a view of the file: reading it brings pages back, which
// Program.ReleaseRecordPages gives back again. When the run counts ps,
// the record in ns is a second file of the same layout, converted a run
// of pages at a time (recordNs).

import (
	"fmt"
	"os"
	"unsafe"
)

// recFile is a file of n OpRecords mapped into memory.
type recFile struct {
	f    *os.File
	name string // removed by close when it could not be unlinked at once
	recs []OpRecord
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
	mem, err := mapFile(f, int(size))
	if err != nil {
		rf.close()
		return nil, err
	}
	rf.pagedCol = newPagedCol(mem, recSize, n, dropFile)
	if n > 0 {
		rf.recs = unsafe.Slice((*OpRecord)(unsafe.Pointer(unsafe.SliceData(mem))), n)
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
	unmapFile(rf.mem)
	rf.mem, rf.recs = nil, nil
	err := rf.f.Close()
	if rf.name != "" {
		if rerr := os.Remove(rf.name); err == nil {
			err = rerr
		}
	}
	return err
}

// records returns the record file of a run of p with Options.Record,
// creating it at the first such run, and makes the window keep it.
func (w *window) records(p *Program) ([]OpRecord, error) {
	if w.rec == nil {
		rf, err := newRecFile(w.dir, int32(p.NumOps()))
		if err != nil {
			return nil, err
		}
		w.rec = rf
	}
	w.recOn = true
	w.cols = append(w.cols, &w.rec.pagedCol)
	return w.rec.recs, nil
}

// finishRecord sets the records of the ops a failed run never loaded to
// their initial values, as a run in memory leaves them, and returns the
// record in ns: itself when the run counted ns (scale 1), else a second
// file converted from it a run of pages at a time.
func (w *window) finishRecord(p *Program, scale int64) ([]OpRecord, error) {
	rf := w.rec
	for r := range w.hi {
		rf.load(w.hi[r], p.rankStart[r+1])
	}
	if scale == 1 {
		return rf.recs, nil
	}
	if w.recNs == nil {
		ns, err := newRecFile(w.dir, int32(len(rf.recs)))
		if err != nil {
			return nil, err
		}
		w.recNs = ns
	}
	// 4,096 records are a whole number of pages.
	const chunk = 4096
	for lo := 0; lo < len(rf.recs); lo += chunk {
		hi := min(lo+chunk, len(rf.recs))
		for g := lo; g < hi; g++ {
			w.recNs.recs[g] = opRecordNs(&rf.recs[g], scale)
		}
		dropFile(rf.mem[int64(lo)*recSize : int64(hi)*recSize])
		dropFile(w.recNs.mem[int64(lo)*recSize : int64(hi)*recSize])
	}
	return w.recNs.recs, nil
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
			dropFile(rf.mem)
		}
	}
}
