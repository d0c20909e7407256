package sim

// unitCacheSize is how many decoded units a streamed program keeps for
// OpInfo, Succ and Preds (window.static), about 5 KiB each: readers such
// as a critical path or a timeline go through a rank's ops in order
// while looking up the senders of its messages on other ranks. With 64
// units, a 1,024-rank recursive-doubling allreduce's Paraver trace spent
// a third of its time decoding units again; a unit's slot is a hash of
// its number, so that the same unit of ranks a power of two apart does
// not share one.
const unitCacheSize = 1024

// cachedUnit is a unit of the spill file as readUnit decodes it.
type cachedUnit struct {
	u    int32 // the unit's number + 1; 0 when empty
	recs []opRec
	cn   []uint32
	deps []uint32
}

// cachedUnit returns unit u, whose ops are lo to hi-1, decoded: from the
// cache, or read into it. The slices stay valid until the next call.
func (w *window) cachedUnit(r, u, lo, hi int32) ([]opRec, []uint32, []uint32, error) {
	if w.cache == nil {
		w.cache = new([unitCacheSize]cachedUnit)
	}
	c := &w.cache[uint32(u)*2654435761>>22] // the top 10 bits
	if c.u == u+1 {
		return c.recs, c.cn, c.deps, nil
	}
	c.u = 0
	c.recs = grow(c.recs, int(hi-lo))
	if w.multi {
		c.cn = grow(c.cn, int(hi-lo))
	}
	c.deps = grow(c.deps, int(w.listAt[u+1]-w.listAt[u]))
	if err := w.readUnit(r, u, lo, c.recs, c.cn, c.deps); err != nil {
		return nil, nil, nil, err
	}
	c.u = u + 1
	return c.recs, c.cn, c.deps, nil
}
