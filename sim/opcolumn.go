package sim

import (
	"unsafe"
)

// pagedCol is per-op state of a streamed run beside the op records: a
// congestion network's handles and parked arrivals (netCol). Its memory
// is mapped (mapMem), costs nothing until touched, and each of its pages
// is given back once every op whose entry touches the page has finished
// (window.finish), as the op records' pages are. An entry is used only
// while its op is loaded and not finished, and reads as zero when first
// touched in a run. (The per-op record has a pool of blocks beside the op
// records' instead: streamrec.go.)
type pagedCol struct {
	mem            []byte
	size           int64    // bytes per op
	live, liveInit []uint16 // per page: ops whose entry touches it and that have not finished
	shift          uint     // log2 of the page size
	drop           *dropper // gives finished pages back in batches, or nil: at once
}

// newPagedCol sets up the page counts of n entries of size bytes in mem.
func newPagedCol(mem []byte, size int64, n int32) pagedCol {
	c := pagedCol{mem: mem, size: size, shift: pageShift(1)}
	pages := (int64(n)*size + 1<<c.shift - 1) >> c.shift
	c.liveInit = make([]uint16, pages)
	for pg := range c.liveInit {
		first := (int64(pg) << c.shift) / size
		last := min(((int64(pg)+1)<<c.shift-1)/size, int64(n)-1)
		c.liveInit[pg] = uint16(last - first + 1)
	}
	c.live = make([]uint16, pages)
	return c
}

// begin prepares a run: nothing in memory, every page waiting for all its
// ops.
func (c *pagedCol) begin() {
	dropMem(c.mem)
	copy(c.live, c.liveInit)
}

// finish records that op g has finished; pages whose ops have all
// finished are given back.
func (c *pagedCol) finish(g int32) {
	first, last := int64(g)*c.size>>c.shift, (int64(g)*c.size+c.size-1)>>c.shift
	for pg := first; pg <= last; pg++ {
		if c.live[pg]--; c.live[pg] == 0 {
			c.release(pg)
		}
	}
}

// release gives page pg back.
func (c *pagedCol) release(pg int64) {
	lo := pg << c.shift
	hi := min(lo+1<<c.shift, int64(len(c.mem)))
	if c.drop != nil {
		c.drop.drop(c.mem[lo:hi])
		return
	}
	dropMem(c.mem[lo:hi])
}

// keep makes the window keep column c up to date during the next run and
// give its finished pages back with its own (the dropper's batch: later,
// never earlier).
func (w *window) keep(c *pagedCol) {
	c.drop = w.drop
	w.cols = append(w.cols, c)
}

// netCol holds, for a streamed run under a congestion network, each
// send's network handle + 1 (0 for topology.NoFlow, so that an entry
// first touched reads as none) and its parked arrival (Flow).
type netCol struct {
	h, park pagedCol
}

// netColumns returns the columns of a run of p under a congestion
// network, creating them at the first such run (park only with flow),
// and makes the window keep them up to date during the run.
func (w *window) netColumns(p *Program, flow bool) ([]int32, []event, error) {
	n := int32(p.NumOps())
	if w.net == nil {
		w.net = &netCol{}
		mem, err := mapMem(4 * int(n))
		if err != nil {
			return nil, nil, err
		}
		w.net.h = newPagedCol(mem, 4, n)
	}
	if flow && w.net.park.mem == nil && n > 0 {
		size := int64(unsafe.Sizeof(event{}))
		mem, err := mapMem(int(size) * int(n))
		if err != nil {
			return nil, nil, err
		}
		w.net.park = newPagedCol(mem, size, n)
	}
	w.keep(&w.net.h)
	var h []int32
	var park []event
	if n > 0 {
		h = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(w.net.h.mem))), n)
	}
	if flow && n > 0 {
		w.keep(&w.net.park)
		park = unsafe.Slice((*event)(unsafe.Pointer(unsafe.SliceData(w.net.park.mem))), n)
	}
	return h, park, nil
}
