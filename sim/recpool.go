package sim

// The pool of a streamed run's op records.
//
// A streamed program's records are loaded as the run needs them and
// dropped once their ops have finished (stream.go). They live in pages of
// recPageOps records: page k holds ops k·recPageOps .. (k+1)·recPageOps-1
// (global indexes, so a page may hold the end of one rank and the start
// of the next). A page is given a block of the pool when the first of its
// ops is loaded, and its block goes back to the pool when the last of its
// ops has finished; the engine finds op g in block slot[g>>recPageShift].blk.
//
// The pool reuses its blocks instead of giving memory back to the system
// and taking fresh memory for the next ops: giving back a page costs a
// TLB flush, taking one a page fault and zeroing, and on a virtual
// machine those were most of a streamed run's time (docs/performance.md).
// The pool's memory is what the run's largest window needs, touched once.
//
// Block 0 is a guard that no page owns: the slot of a page not loaded is
// 0, so that a prefetch of records not loaded reads harmless memory.
// A run reads and writes only records that are loaded (stream.go's
// invariants); with -tags invariants, a block given back is overwritten
// with 0xff bytes, so that a record read after its page was given back
// shows as a broken run rather than as stale values.

import (
	"unsafe"
)

const (
	recPageShift = 7
	recPageOps   = 1 << recPageShift
	recBlockSize = recPageOps * int(unsafe.Sizeof(opRec{}))
)

// pageSlot is a page's entry in the pool: blk is its block, 0 when it is
// not loaded; live is how many of its ops have not finished (stream.go's
// window.finish), kept beside the block so that finishing an op touches
// the cache line that finding its record has just read.
type pageSlot struct {
	blk, live uint32
}

// recPool holds the blocks of records of one streamed program's runs.
type recPool struct {
	mem  []byte     // the blocks, block 0 the guard; mapped once, never moved
	slot []pageSlot // per page of records: its block and its live count
	free []uint32   // blocks given back, handed out again first
	next uint32     // blocks handed out so far, the guard included
	used uint32     // blocks owned by pages now
	peak uint32     // the most blocks owned at once in the run
}

// newRecPool maps room for the records of a program of n ops: as many
// blocks as pages, plus the guard, of which a run touches only those its
// largest window needs.
func newRecPool(n int) (*recPool, error) {
	pages := (n + recPageOps - 1) / recPageOps
	mem, err := mapMem((pages + 1) * recBlockSize)
	if err != nil {
		return nil, err
	}
	hugePages(mem) // blocks are never given back to the system
	slot := make([]pageSlot, pages)
	hugePages(slot) // read at every access to a record
	return &recPool{mem: mem, slot: slot, next: 1}, nil
}

// reset gives every block back, for a new run (the live counts too:
// window.begin sets them).
func (q *recPool) reset() {
	clear(q.slot)
	q.free = q.free[:0]
	q.next, q.used, q.peak = 1, 0, 0
}

// base is the address of block 0.
func (q *recPool) base() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(q.mem)) }

// page returns the records of page pg, giving it a block if it has none.
func (q *recPool) page(pg int32) []opRec {
	b := q.slot[pg].blk
	if b == 0 {
		if n := len(q.free); n > 0 {
			b = q.free[n-1]
			q.free = q.free[:n-1]
		} else {
			b = q.next
			q.next++
		}
		q.slot[pg].blk = b
		q.used++
		q.peak = max(q.peak, q.used)
	}
	return q.block(b)
}

// recAt returns op g's record in the pool whose block 0 is at base and
// whose pages have the blocks slot (engine.op keeps both at hand).
func recAt(base unsafe.Pointer, slot []pageSlot, g int32) *opRec {
	return (*opRec)(unsafe.Add(base, uintptr(slot[g>>recPageShift].blk)*uintptr(recBlockSize)+uintptr(g&(recPageOps-1))*unsafe.Sizeof(opRec{})))
}

func (q *recPool) block(b uint32) []opRec {
	return unsafe.Slice((*opRec)(unsafe.Add(q.base(), uintptr(b)*uintptr(recBlockSize))), recPageOps)
}

// give takes the block of page pg back: every op on it has finished.
func (q *recPool) give(pg int32) {
	b := q.slot[pg].blk
	if invariants {
		if b == 0 {
			panic("sim: a page of records given back twice, or never loaded")
		}
		blk := q.block(b)
		for i := range blk {
			blk[i] = opRec{tm: -1, size: ^uint64(0), peer: -1, tag: ^uint32(0), edge: ^uint32(0), pend: ^uint32(0)}
		}
	}
	q.slot[pg].blk = 0
	q.free = append(q.free, b)
	q.used--
}

// bytes is the memory the run's largest window took.
func (q *recPool) bytes() int64 { return int64(q.peak) * int64(recBlockSize) }

func (q *recPool) close() {
	unmapMem(q.mem)
	q.mem, q.slot = nil, nil
}
