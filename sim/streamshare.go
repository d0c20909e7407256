package sim

import (
	"fmt"
	"sync/atomic"
)

// Share returns a Program that runs the schedule of the streamed program
// p from p's spill file, with memory of its own for the window of its
// runs: p and its shares can run at the same time, on several
// goroutines, each in the memory of its own active window, while the
// schedule is spilled and indexed once (gopsim sweep runs its points on
// shares). Close every share; the spill file goes with the last of p and
// its shares to be closed. A Program held in memory cannot be shared.
func (p *Program) Share() (*Program, error) {
	if p.closed {
		return nil, fmt.Errorf("sim: the streamed program was closed")
	}
	w := p.win
	if w == nil {
		return nil, fmt.Errorf("sim: a program held in memory cannot be shared; read it with ReadProgramStream")
	}
	if w.refs == nil {
		w.refs = new(atomic.Int32)
		w.refs.Store(1)
	}
	w.refs.Add(1)
	q := *p
	q.dirty = false
	q.ops, q.deps, q.cn = nil, nil, nil
	nw := &window{f: w.f, name: w.name, refs: w.refs, unit: w.unit, ranks: w.ranks, multi: w.multi, cnCol: w.cnCol,
		rankUnit: w.rankUnit, ref: w.ref, st: w.st, listAt: w.listAt, initHi: w.initHi, span: w.span, dliveInit: w.dliveInit,
		dShift: w.dShift, recBytes: w.recBytes, numOps: w.numOps, dir: w.dir,
		stats: StreamStats{SpillBytes: w.stats.SpillBytes, Units: w.stats.Units, StoredUnits: w.stats.StoredUnits, StoreBytes: w.stats.StoreBytes, RepeatRanks: w.stats.RepeatRanks}}
	q.win = nw
	if err := nw.mapRecords(&q); err != nil {
		nw.close()
		return nil, err
	}
	return &q, nil
}
